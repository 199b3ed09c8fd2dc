//! The values of a QER (TS 29.244 §7.5.2.5): Gate Status (§8.2.7), MBR (§8.2.8), GBR (§8.2.9),
//! QER Correlation ID (§8.2.10), RQI (§8.2.88). The QFI (§8.2.89) is `upfbench_net::Qfi`, the
//! Paging Policy Indicator (§8.2.116) a coded octet beside the interfaces.

use super::{IeType, IeValue, IeView, TypedIe};
use crate::error::{EmitError, Result};
use crate::wire::Writer;

/// One gate of a Gate Status: 2 bits, 0 open, 1 closed (2 and 3 are spare values, kept as
/// received).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Gate(u8);

impl Gate {
    /// 0: open.
    pub const OPEN: Gate = Gate(0);
    /// 1: closed.
    pub const CLOSED: Gate = Gate(1);

    /// From the 2-bit field.
    pub const fn new(v: u8) -> Self {
        Gate(v & 0x03)
    }

    /// The 2-bit value.
    pub const fn get(self) -> u8 {
        self.0
    }

    /// Whether the gate lets packets pass: only the value 0 (OPEN) does.
    pub const fn is_open(self) -> bool {
        self.0 == 0
    }
}

/// Gate Status (TS 29.244 §8.2.7). Octet 5: spare(4) UL Gate(2) DL Gate(2).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct GateStatus {
    /// Uplink gate.
    pub ul: Gate,
    /// Downlink gate.
    pub dl: Gate,
}

impl GateStatus {
    /// Both gates open.
    pub const OPEN: GateStatus = GateStatus {
        ul: Gate::OPEN,
        dl: Gate::OPEN,
    };
    /// Both gates closed: the QER's packets are dropped both ways.
    pub const CLOSED: GateStatus = GateStatus {
        ul: Gate::CLOSED,
        dl: Gate::CLOSED,
    };
}

impl IeValue for GateStatus {
    fn decode(ie: &IeView<'_>) -> Result<Self> {
        let v = ie.reader().u8()?;
        Ok(GateStatus {
            ul: Gate::new(v >> 2),
            dl: Gate::new(v),
        })
    }
    fn value_len(&self) -> usize {
        1
    }
    fn encode_value(&self, w: &mut Writer<'_>) -> core::result::Result<(), EmitError> {
        w.u8(self.ul.0 << 2 | self.dl.0)
    }
}

impl TypedIe for GateStatus {
    const TYPE: IeType = IeType::GATE_STATUS;
}

/// Uplink and downlink bit rates in kbit/s: the value of MBR (§8.2.8) and GBR (§8.2.9).
///
/// Layout: UL (5 octets), DL (5 octets), each an unsigned 40-bit integer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct BitRate {
    /// Uplink, kbit/s (at most 2^40 - 1).
    pub ul_kbps: u64,
    /// Downlink, kbit/s (at most 2^40 - 1).
    pub dl_kbps: u64,
}

impl BitRate {
    /// Largest encodable rate.
    pub const MAX_KBPS: u64 = (1 << 40) - 1;
}

impl IeValue for BitRate {
    fn decode(ie: &IeView<'_>) -> Result<Self> {
        let mut r = ie.reader();
        Ok(BitRate {
            ul_kbps: r.u40()?,
            dl_kbps: r.u40()?,
        })
    }
    fn value_len(&self) -> usize {
        10
    }
    fn encode_value(&self, w: &mut Writer<'_>) -> core::result::Result<(), EmitError> {
        if self.ul_kbps > Self::MAX_KBPS || self.dl_kbps > Self::MAX_KBPS {
            return Err(EmitError::Invalid {
                what: "bit rate above 2^40 - 1 kbit/s",
            });
        }
        w.u40(self.ul_kbps)?;
        w.u40(self.dl_kbps)
    }
}

impl TypedIe for BitRate {
    const TYPE: IeType = IeType::MBR;
}

/// QER Correlation ID (TS 29.244 §8.2.10): ties QERs of several sessions that share one
/// aggregate bit rate (an APN-AMBR). Octets 5-8, an unsigned 32-bit integer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct QerCorrelationId(pub u32);

/// RQI (TS 29.244 §8.2.88), the Reflective QoS of a QER: octet 5 spare(7) RQI(bit 1); set, the
/// UP function marks the flow's downlink for reflective QoS (TS 23.501 §5.7.5).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Rqi(pub bool);

impl IeValue for Rqi {
    fn decode(ie: &IeView<'_>) -> Result<Self> {
        Ok(Rqi(ie.reader().u8()? & 0x01 != 0))
    }
    fn value_len(&self) -> usize {
        1
    }
    fn encode_value(&self, w: &mut Writer<'_>) -> core::result::Result<(), EmitError> {
        w.u8(u8::from(self.0))
    }
}

impl TypedIe for Rqi {
    const TYPE: IeType = IeType::RQI;
}
