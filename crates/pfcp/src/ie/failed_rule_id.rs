//! Failed Rule ID (TS 29.244 §8.2.80).

use super::{IeType, IeValue, IeView, TypedIe};
use crate::error::{EmitError, Result};
use crate::types::{FarId, PdrId, QerId, UrrId};
use crate::wire::Writer;

/// The rule a UP function could not create or modify (sent with Cause 73, "Rule
/// creation/modification Failure").
///
/// Layout: octet 5 spare(3) + Rule ID Type(5), then the Rule ID Value whose width the type gives:
/// PDR 2 octets, FAR/QER/URR 4, BAR 1, MAR 2, SRR 1 (the order Wireshark's dissector
/// follows).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum FailedRuleId {
    /// Rule ID Type 0.
    Pdr(PdrId),
    /// Rule ID Type 1.
    Far(FarId),
    /// Rule ID Type 2.
    Qer(QerId),
    /// Rule ID Type 3.
    Urr(UrrId),
    /// Rule ID Type 4 (BAR ID, 1 octet).
    Bar(u8),
    /// Rule ID Type 5 (MAR ID, 2 octets).
    Mar(u16),
    /// Rule ID Type 6 (SRR ID, 1 octet).
    Srr(u8),
}

const PDR: u8 = 0;
const FAR: u8 = 1;
const QER: u8 = 2;
const URR: u8 = 3;
const BAR: u8 = 4;
const MAR: u8 = 5;
const SRR: u8 = 6;

impl FailedRuleId {
    fn rule_type(self) -> u8 {
        match self {
            FailedRuleId::Pdr(_) => PDR,
            FailedRuleId::Far(_) => FAR,
            FailedRuleId::Qer(_) => QER,
            FailedRuleId::Urr(_) => URR,
            FailedRuleId::Bar(_) => BAR,
            FailedRuleId::Srr(_) => SRR,
            FailedRuleId::Mar(_) => MAR,
        }
    }
}

impl core::fmt::Display for FailedRuleId {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            FailedRuleId::Pdr(id) => write!(f, "PDR {id}"),
            FailedRuleId::Far(id) => write!(f, "FAR {id}"),
            FailedRuleId::Qer(id) => write!(f, "QER {id}"),
            FailedRuleId::Urr(id) => write!(f, "URR {id}"),
            FailedRuleId::Bar(id) => write!(f, "BAR {id}"),
            FailedRuleId::Srr(id) => write!(f, "SRR {id}"),
            FailedRuleId::Mar(id) => write!(f, "MAR {id}"),
        }
    }
}

impl IeValue for FailedRuleId {
    fn decode(ie: &IeView<'_>) -> Result<Self> {
        let mut r = ie.reader();
        let at = r.offset();
        Ok(match r.u8()? & 0x1f {
            PDR => FailedRuleId::Pdr(PdrId(r.u16()?)),
            FAR => FailedRuleId::Far(FarId(r.u32()?)),
            QER => FailedRuleId::Qer(QerId(r.u32()?)),
            URR => FailedRuleId::Urr(UrrId(r.u32()?)),
            BAR => FailedRuleId::Bar(r.u8()?),
            SRR => FailedRuleId::Srr(r.u8()?),
            MAR => FailedRuleId::Mar(r.u16()?),
            _ => return Err(r.invalid_at(at, "Failed Rule ID: unknown Rule ID Type")),
        })
    }
    fn value_len(&self) -> usize {
        1 + match self {
            FailedRuleId::Pdr(_) | FailedRuleId::Mar(_) => 2,
            FailedRuleId::Far(_) | FailedRuleId::Qer(_) | FailedRuleId::Urr(_) => 4,
            FailedRuleId::Bar(_) | FailedRuleId::Srr(_) => 1,
        }
    }
    fn encode_value(&self, w: &mut Writer<'_>) -> core::result::Result<(), EmitError> {
        w.u8(self.rule_type())?;
        match *self {
            FailedRuleId::Pdr(id) => w.u16(id.0),
            FailedRuleId::Far(id) => w.u32(id.0),
            FailedRuleId::Qer(id) => w.u32(id.0),
            FailedRuleId::Urr(id) => w.u32(id.0),
            FailedRuleId::Bar(id) | FailedRuleId::Srr(id) => w.u8(id),
            FailedRuleId::Mar(id) => w.u16(id),
        }
    }
}

impl TypedIe for FailedRuleId {
    const TYPE: IeType = IeType::FAILED_RULE_ID;
}
