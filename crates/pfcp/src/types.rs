//! Validated newtypes for the numbers PFCP carries.

use core::fmt;

/// Session Endpoint Identifier (TS 29.244 §7.2.2.4.2, §8.2.37): 64 bits, 0 only in the header of
/// a Session Establishment Request.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct Seid(pub u64);

/// The GTP-U TEID carried in F-TEID and Outer Header Creation (TS 29.244 §8.2.3, §8.2.56) and
/// the QFI of QER and PDI (TS 29.244 §8.2.89) are the user plane's types, defined once in
/// `upfbench-net`.
pub use upfbench_net::{Qfi, Teid};

/// Rule identifiers (TS 29.244 §8.2.36, §8.2.74, §8.2.75, §8.2.54).
macro_rules! rule_id {
    ($(#[$m:meta])* $name:ident, $int:ty) => {
        $(#[$m])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
        pub struct $name(pub $int);
        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                self.0.fmt(f)
            }
        }
    };
}
rule_id!(
    /// PDR ID (TS 29.244 §8.2.36), 16 bits.
    PdrId, u16
);
rule_id!(
    /// FAR ID (TS 29.244 §8.2.74); bit 32 set means predefined in the UP function.
    FarId, u32
);
rule_id!(
    /// QER ID (TS 29.244 §8.2.75); bit 32 set means predefined in the UP function.
    QerId, u32
);
rule_id!(
    /// URR ID (TS 29.244 §8.2.54); bit 32 set means predefined in the UP function.
    UrrId, u32
);
rule_id!(
    /// Precedence of a PDR (TS 29.244 §8.2.11): lower values match first.
    Precedence, u32
);

/// An integer that did not fit its field.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("{value} does not fit in {bits} bits")]
pub struct OutOfRange {
    /// The rejected value.
    pub value: u64,
    /// The width of the field.
    pub bits: u8,
}

macro_rules! bounded {
    ($(#[$m:meta])* $name:ident, $int:ty, $bits:expr) => {
        $(#[$m])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
        pub struct $name($int);
        impl $name {
            /// The largest value.
            pub const MAX: $int = ((1u64 << $bits) - 1) as $int;
            /// Checks the range.
            pub const fn new(value: $int) -> Result<Self, OutOfRange> {
                if value > Self::MAX {
                    Err(OutOfRange { value: value as u64, bits: $bits })
                } else {
                    Ok(Self(value))
                }
            }
            /// Keeps the low bits, as a decoder does with a field of that width.
            pub const fn from_masked(value: $int) -> Self {
                Self(value & Self::MAX)
            }
            /// The value.
            pub const fn get(self) -> $int {
                self.0
            }
        }
        impl TryFrom<$int> for $name {
            type Error = OutOfRange;
            fn try_from(value: $int) -> Result<Self, OutOfRange> {
                Self::new(value)
            }
        }
        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                self.0.fmt(f)
            }
        }
    };
}

bounded!(
    /// Message sequence number (TS 29.244 §7.2.2.2): 24 bits.
    SequenceNumber, u32, 24
);
impl SequenceNumber {
    /// The next number, wrapping within 24 bits.
    pub const fn next(self) -> Self {
        Self((self.0 + 1) & Self::MAX)
    }
}
bounded!(
    /// Message priority in the session header (TS 29.244 §7.2.2.3): 4 bits, 0 highest.
    MessagePriority, u8, 4
);
