//! IEs that are one integer: rule IDs, Precedence, QFI, times and counters.

use super::{IeType, IeValue, IeView, QerCorrelationId, TypedIe};
use crate::error::{EmitError, Result};
use crate::types::{FarId, PdrId, Precedence, QerId, Qfi, UrrId};
use crate::wire::Writer;

/// An IE value that is one big-endian integer of `$int` width, wrapped into `$ty`; with
/// `= $ie`, also the IE type it always travels as.
macro_rules! int_ie {
    ($ty:ty, $int:ident, $len:expr, |$v:ident| $wrap:expr, |$s:ident| $unwrap:expr) => {
        impl IeValue for $ty {
            fn decode(ie: &IeView<'_>) -> Result<Self> {
                let $v = ie.reader().$int()?;
                Ok($wrap)
            }
            fn value_len(&self) -> usize {
                $len
            }
            fn encode_value(&self, w: &mut Writer<'_>) -> core::result::Result<(), EmitError> {
                let $s = self;
                w.$int($unwrap)
            }
        }
    };
    ($ty:ty = $ie:ident, $($rest:tt)*) => {
        int_ie!($ty, $($rest)*);
        impl TypedIe for $ty {
            const TYPE: IeType = IeType::$ie;
        }
    };
}

int_ie!(PdrId = PDR_ID, u16, 2, |v| PdrId(v), |s| s.0);
int_ie!(FarId = FAR_ID, u32, 4, |v| FarId(v), |s| s.0);
int_ie!(QerId = QER_ID, u32, 4, |v| QerId(v), |s| s.0);
int_ie!(UrrId = URR_ID, u32, 4, |v| UrrId(v), |s| s.0);
int_ie!(Precedence = PRECEDENCE, u32, 4, |v| Precedence(v), |s| s.0);
int_ie!(
    QerCorrelationId = QER_CORRELATION_ID,
    u32,
    4,
    |v| QerCorrelationId(v),
    |s| s.0
);
// QFI (§8.2.89): spare(2) + QFI value (6 bits).
int_ie!(Qfi = QFI, u8, 1, |v| Qfi::from_bits(v), |s| s.get());
// Unsigned32 values: Measurement Period, Time Threshold/Quota (s), UR-SEQN, Duration Measurement.
int_ie!(u32, u32, 4, |v| v, |s| *s);

/// A time as the first four octets of an NTP timestamp: seconds since 1900-01-01 UTC
/// (RFC 5905 §6). Recovery Time Stamp (§8.2.65), Start/End Time (§8.2.52/53), Time of First/Last
/// Packet (§8.2.50/51).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct NtpTimestamp(pub u32);

impl NtpTimestamp {
    /// Seconds between the NTP era 0 epoch (1900) and the Unix epoch (1970).
    pub(crate) const UNIX_EPOCH_OFFSET: u64 = 2_208_988_800;

    /// From seconds since the Unix epoch (wrapping into NTP era 1 after 2036, as the field does).
    pub const fn from_unix_secs(secs: u64) -> Self {
        NtpTimestamp((secs + Self::UNIX_EPOCH_OFFSET) as u32)
    }
}

int_ie!(
    NtpTimestamp = RECOVERY_TIME_STAMP,
    u32,
    4,
    |v| NtpTimestamp(v),
    |s| s.0
);
