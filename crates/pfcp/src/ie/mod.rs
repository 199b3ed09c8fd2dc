//! Information elements (TS 29.244 §8): the TLV layer, typed IE values and grouped IEs.
//!
//! Every typed IE implements [`IeValue`]: `decode` from an [`IeView`], `value_len` and
//! `encode_value`. Grouped IEs decode their children through the same [`IeIter`] and keep the IEs
//! they do not type (unknown, vendor-specific, surplus repetitions) in `other_ies`, so that nothing
//! received is lost when a message is decoded and encoded again.
//!
//! Known IEs whose value is longer than the layout needs are accepted and the extra octets ignored
//! (forward compatibility with later releases that append octets); they are not re-emitted.

#[macro_use]
mod group;

mod cause;
mod dns;
mod failed_rule_id;
mod flags;
mod flow_description;
mod fseid;
mod fteid;
mod grouped;
pub(crate) mod ie_type;
mod interface;
mod node_id;
mod numbers;
mod outer_header;
mod qos;
mod raw;
mod sdf_filter;
pub(crate) mod tlv;
mod ue_ip_address;
mod volume;

pub use cause::{Cause, OffendingIe};
pub use dns::{DnsName, InvalidDnsName};
pub use failed_rule_id::FailedRuleId;
pub use flags::{
    ApplyAction, CpFunctionFeatures, MeasurementMethod, PfcpsmReqFlags, ReportType,
    ReportingTriggers, UpFunctionFeatures, UsageInformation, UsageReportTrigger,
};
pub use flow_description::{
    FilterAction, FilterAddress, FilterDirection, FilterEndpoint, FlowDescription,
    FlowDescriptionError, FlowDescriptionErrorKind, PortRange,
};
pub use fseid::Fseid;
pub use fteid::Fteid;
pub use grouped::{
    CreateFar, CreatePdr, CreateQer, CreateUrr, CreatedPdr, ForwardingParameters, Pdi, RemoveFar,
    RemovePdr, RemoveQer, RemoveUrr, UpdateFar, UpdateForwardingParameters, UpdatePdr, UpdateQer,
    UpdateUrr, UsageReport,
};
pub use ie_type::IeType;
pub use interface::{
    DestinationInterface, InterfaceType, PagingPolicyIndicator, PdnType, SourceInterface,
};
pub use node_id::NodeId;
pub use numbers::NtpTimestamp;
pub use outer_header::{OuterHeaderCreation, OuterHeaderRemoval};
pub use qos::{BitRate, Gate, GateStatus, QerCorrelationId, Rqi};
pub use raw::RawIe;
pub use sdf_filter::SdfFilter;
pub use tlv::{IeIter, IeView};
pub use ue_ip_address::UeIpAddress;
pub use volume::{Volume, VolumeMeasurement};

use crate::error::{EmitError, Result};
use crate::wire::Writer;

/// The value part of an IE: decoded from an [`IeView`], encoded after a Type and Length that the
/// caller (a grouped IE or a message) writes.
pub trait IeValue: Sized {
    /// Decodes the value of `ie` (whose type the caller has matched).
    fn decode(ie: &IeView<'_>) -> Result<Self>;
    /// Length of the encoded value.
    fn value_len(&self) -> usize;
    /// Encodes the value.
    fn encode_value(&self, w: &mut Writer<'_>) -> core::result::Result<(), EmitError>;
}

/// An IE value with one IE type of its own (most of them; a few layouts serve several types,
/// e.g. [`BitRate`] for MBR and GBR, [`Volume`] for Volume Threshold and Volume Quota).
pub trait TypedIe: IeValue {
    /// The IE type.
    const TYPE: IeType;

    /// Encodes the whole IE (Type, Length, value) into a new vector.
    fn to_ie_bytes(&self) -> core::result::Result<Vec<u8>, EmitError> {
        let mut buf = vec![0; encoded_len(self)];
        let mut w = Writer::new(&mut buf);
        encode_ie(Self::TYPE, self, &mut w)?;
        Ok(buf)
    }

    /// Decodes one whole IE of this type from `bytes` (offsets in errors count from `bytes[0]`).
    fn from_ie_bytes(bytes: &[u8]) -> Result<Self> {
        let mut it = IeIter::new(bytes, 0);
        let ie = match it.next() {
            Some(r) => r?,
            None => {
                return Err(crate::error::DecodeError::truncated(
                    None,
                    0,
                    tlv::HEADER_LEN,
                    0,
                ));
            }
        };
        if ie.ie_type() != Self::TYPE {
            return Err(crate::error::DecodeError::invalid_value(
                ie.ie_type(),
                0,
                "unexpected IE type",
            ));
        }
        if it.next().is_some() {
            let end = ie.wire_len();
            return Err(crate::error::DecodeError::new(
                crate::error::ErrorKind::TrailingBytes {
                    extra: bytes.len() - end,
                },
                None,
                end,
            ));
        }
        Self::decode(&ie)
    }
}

/// Length of the whole IE (Type, Length, value) that holds `v`.
pub(crate) fn encoded_len<T: IeValue>(v: &T) -> usize {
    tlv::HEADER_LEN + v.value_len()
}

/// Writes Type, Length and the value of `v`; the length is patched in after the value.
pub(crate) fn encode_ie<T: IeValue>(
    ie_type: IeType,
    v: &T,
    w: &mut Writer<'_>,
) -> core::result::Result<(), EmitError> {
    w.u16(ie_type.0)?;
    let at = w.position();
    w.u16(0)?;
    v.encode_value(w)?;
    let len = w.position() - at - 2;
    let len16 = u16::try_from(len).map_err(|_| EmitError::TooLong {
        what: "IE",
        length: len,
    })?;
    w.patch_u16(at, len16);
    Ok(())
}
