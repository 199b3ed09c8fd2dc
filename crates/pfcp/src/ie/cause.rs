//! Cause (§8.2.1) and Offending IE (§8.2.22).

use core::fmt;

use super::{IeType, IeValue, IeView, TypedIe};
use crate::error::{DecodeError, EmitError, ErrorKind, Result};
use crate::wire::Writer;

/// Cause (TS 29.244 §8.2.1): the outcome of a request.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Cause(pub u8);

impl Cause {
    /// 1: Request accepted (success).
    pub const REQUEST_ACCEPTED: Cause = Cause(1);
    /// 2: More Usage Report to send.
    pub const MORE_USAGE_REPORT_TO_SEND: Cause = Cause(2);
    /// 64: Request rejected (reason not specified).
    pub const REQUEST_REJECTED: Cause = Cause(64);
    /// 65: Session context not found.
    pub const SESSION_CONTEXT_NOT_FOUND: Cause = Cause(65);
    /// 66: Mandatory IE missing.
    pub const MANDATORY_IE_MISSING: Cause = Cause(66);
    /// 67: Conditional IE missing.
    pub(crate) const CONDITIONAL_IE_MISSING: Cause = Cause(67);
    /// 68: Invalid length.
    pub const INVALID_LENGTH: Cause = Cause(68);
    /// 69: Mandatory IE incorrect.
    pub const MANDATORY_IE_INCORRECT: Cause = Cause(69);
    /// 70: Invalid Forwarding Policy.
    pub const INVALID_FORWARDING_POLICY: Cause = Cause(70);
    /// 71: Invalid F-TEID allocation option.
    pub(crate) const INVALID_F_TEID_ALLOCATION_OPTION: Cause = Cause(71);
    /// 72: No established PFCP Association.
    pub const NO_ESTABLISHED_PFCP_ASSOCIATION: Cause = Cause(72);
    /// 73: Rule creation/modification Failure.
    pub const RULE_CREATION_MODIFICATION_FAILURE: Cause = Cause(73);
    /// 74: PFCP entity in congestion.
    pub const PFCP_ENTITY_IN_CONGESTION: Cause = Cause(74);
    /// 75: No resources available.
    pub const NO_RESOURCES_AVAILABLE: Cause = Cause(75);
    /// 76: Service not supported.
    pub const SERVICE_NOT_SUPPORTED: Cause = Cause(76);
    /// 77: System failure.
    pub const SYSTEM_FAILURE: Cause = Cause(77);

    /// Whether the value is in the acceptance range (1..=63, §8.2.1).
    pub const fn is_accepted(self) -> bool {
        self.0 >= 1 && self.0 <= 63
    }
}

impl DecodeError {
    /// The Cause a UPF answers this error with (TS 29.244 §7.6, §8.2.1), or `None` when the
    /// request is not to be answered at all (header errors, unknown messages) or is answered with a
    /// Version Not Supported Response.
    pub fn cause(&self) -> Option<Cause> {
        self.ie_type?;
        Some(match self.kind {
            ErrorKind::MissingMandatoryIe { .. } => Cause::MANDATORY_IE_MISSING,
            ErrorKind::Truncated { .. } | ErrorKind::InvalidLength { .. } => Cause::INVALID_LENGTH,
            ErrorKind::InvalidValue { .. } => Cause::MANDATORY_IE_INCORRECT,
            _ => return None,
        })
    }
}

impl fmt::Display for Cause {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let name = match self.0 {
            1 => "Request accepted",
            2 => "More Usage Report to send",
            64 => "Request rejected",
            65 => "Session context not found",
            66 => "Mandatory IE missing",
            67 => "Conditional IE missing",
            68 => "Invalid length",
            69 => "Mandatory IE incorrect",
            70 => "Invalid Forwarding Policy",
            71 => "Invalid F-TEID allocation option",
            72 => "No established PFCP Association",
            73 => "Rule creation/modification Failure",
            74 => "PFCP entity in congestion",
            75 => "No resources available",
            76 => "Service not supported",
            77 => "System failure",
            _ => "cause",
        };
        write!(f, "{name} ({})", self.0)
    }
}

impl Cause {
    /// The Cause a [`Display`](fmt::Display) text names: its value in the last parentheses
    /// (`Request accepted (1)`), or the bare value (`1`).
    pub fn from_text(text: &str) -> Option<Cause> {
        let value = match text.trim_end().strip_suffix(')') {
            Some(head) => &head[head.rfind('(')? + 1..],
            None => text.trim(),
        };
        value.parse().ok().map(Cause)
    }
}

/// In JSON a Cause is its name and value, `"Request accepted (1)"` (also as a map key); read
/// back from the value in parentheses, or from a bare number.
#[cfg(feature = "serde")]
impl serde::Serialize for Cause {
    fn serialize<S: serde::Serializer>(&self, s: S) -> core::result::Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

#[cfg(feature = "serde")]
impl<'de> serde::Deserialize<'de> for Cause {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> core::result::Result<Self, D::Error> {
        struct Text;
        impl serde::de::Visitor<'_> for Text {
            type Value = Cause;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a PFCP Cause, as \"Request accepted (1)\" or 1")
            }
            fn visit_str<E: serde::de::Error>(self, v: &str) -> core::result::Result<Cause, E> {
                Cause::from_text(v)
                    .ok_or_else(|| E::invalid_value(serde::de::Unexpected::Str(v), &self))
            }
            fn visit_u64<E: serde::de::Error>(self, v: u64) -> core::result::Result<Cause, E> {
                u8::try_from(v)
                    .map(Cause)
                    .map_err(|_| E::invalid_value(serde::de::Unexpected::Unsigned(v), &self))
            }
        }
        d.deserialize_any(Text)
    }
}

impl IeValue for Cause {
    fn decode(ie: &IeView<'_>) -> Result<Self> {
        Ok(Cause(ie.reader().u8()?))
    }
    fn value_len(&self) -> usize {
        1
    }
    fn encode_value(&self, w: &mut Writer<'_>) -> core::result::Result<(), EmitError> {
        w.u8(self.0)
    }
}

impl TypedIe for Cause {
    const TYPE: IeType = IeType::CAUSE;
}

/// Offending IE (TS 29.244 §8.2.22): the type of the IE that made a request fail.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct OffendingIe(pub IeType);

impl IeValue for OffendingIe {
    fn decode(ie: &IeView<'_>) -> Result<Self> {
        Ok(OffendingIe(IeType(ie.reader().u16()?)))
    }
    fn value_len(&self) -> usize {
        2
    }
    fn encode_value(&self, w: &mut Writer<'_>) -> core::result::Result<(), EmitError> {
        w.u16(self.0.0)
    }
}

impl TypedIe for OffendingIe {
    const TYPE: IeType = IeType::OFFENDING_IE;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cause_is_read_back_from_its_text() {
        for c in [Cause::REQUEST_ACCEPTED, Cause(73), Cause(200)] {
            assert_eq!(Cause::from_text(&c.to_string()), Some(c), "{c}");
        }
        assert_eq!(Cause(200).to_string(), "cause (200)");
        assert_eq!(Cause::from_text("65"), Some(Cause(65)));
        assert_eq!(Cause::from_text("Request accepted"), None);
        assert_eq!(Cause::from_text("x (256)"), None);
    }
}
