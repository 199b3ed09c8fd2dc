//! IEs that are one integer: rule IDs, Precedence, QFI, times and counters.

use super::{IeType, IeValue, IeView, TypedIe};
use crate::error::{EmitError, Result};
use crate::types::{FarId, PdrId, Precedence, QerId, Qfi, UrrId};
use crate::wire::Writer;

macro_rules! int_ie {
    ($ty:ty, $get:ident, $put:ident, $len:expr, |$v:ident| $wrap:expr, |$s:ident| $unwrap:expr) => {
        impl IeValue for $ty {
            fn decode(ie: &IeView<'_>) -> Result<Self> {
                let $v = ie.reader().$get()?;
                Ok($wrap)
            }
            fn value_len(&self) -> usize {
                $len
            }
            fn encode_value(&self, w: &mut Writer<'_>) -> core::result::Result<(), EmitError> {
                let $s = self;
                w.$put($unwrap)
            }
        }
    };
}

int_ie!(PdrId, u16, u16, 2, |v| PdrId(v), |s| s.0);
int_ie!(FarId, u32, u32, 4, |v| FarId(v), |s| s.0);
int_ie!(QerId, u32, u32, 4, |v| QerId(v), |s| s.0);
int_ie!(UrrId, u32, u32, 4, |v| UrrId(v), |s| s.0);
int_ie!(Precedence, u32, u32, 4, |v| Precedence(v), |s| s.0);
// QFI (§8.2.89): spare(2) + QFI value (6 bits).
int_ie!(Qfi, u8, u8, 1, |v| Qfi::from_masked(v), |s| s.get());
// Unsigned32 values: Measurement Period, Time Threshold/Quota (s), UR-SEQN, Duration Measurement.
int_ie!(u32, u32, u32, 4, |v| v, |s| *s);

impl TypedIe for PdrId {
    const TYPE: IeType = IeType::PDR_ID;
}
impl TypedIe for FarId {
    const TYPE: IeType = IeType::FAR_ID;
}
impl TypedIe for QerId {
    const TYPE: IeType = IeType::QER_ID;
}
impl TypedIe for UrrId {
    const TYPE: IeType = IeType::URR_ID;
}
impl TypedIe for Precedence {
    const TYPE: IeType = IeType::PRECEDENCE;
}
impl TypedIe for Qfi {
    const TYPE: IeType = IeType::QFI;
}

/// A time as the first four octets of an NTP timestamp: seconds since 1900-01-01 UTC
/// (RFC 5905 §6). Recovery Time Stamp (§8.2.65), Start/End Time (§8.2.52/53), Time of First/Last
/// Packet (§8.2.50/51).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct NtpTimestamp(pub u32);

impl NtpTimestamp {
    /// Seconds between the NTP era 0 epoch (1900) and the Unix epoch (1970).
    pub const UNIX_EPOCH_OFFSET: u64 = 2_208_988_800;

    /// From seconds since the Unix epoch (wrapping into NTP era 1 after 2036, as the field does).
    pub const fn from_unix_secs(secs: u64) -> Self {
        NtpTimestamp((secs + Self::UNIX_EPOCH_OFFSET) as u32)
    }
}

int_ie!(NtpTimestamp, u32, u32, 4, |v| NtpTimestamp(v), |s| s.0);

impl TypedIe for NtpTimestamp {
    const TYPE: IeType = IeType::RECOVERY_TIME_STAMP;
}
