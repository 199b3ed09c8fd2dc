//! IEs kept as bytes: unknown types, vendor-specific IEs, and IEs a group does not type.

use super::{IeType, IeView};
use crate::error::EmitError;
use crate::wire::Writer;

/// An IE kept as its type and value octets, re-emitted unchanged.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct RawIe {
    /// The IE type.
    pub ie_type: IeType,
    /// The Enterprise ID; present exactly when `ie_type` is vendor-specific (≥ 32768).
    pub enterprise_id: Option<u16>,
    /// The value (after the Enterprise ID for a vendor IE).
    pub value: Vec<u8>,
}

impl RawIe {
    /// Copies an IE out of a message.
    pub(crate) fn from_view(ie: &IeView<'_>) -> Self {
        RawIe {
            ie_type: ie.ie_type(),
            enterprise_id: ie.enterprise_id(),
            value: ie.value().to_vec(),
        }
    }

    /// Length on the wire.
    pub(crate) fn wire_len(&self) -> usize {
        4 + self.enterprise_id.map_or(0, |_| 2) + self.value.len()
    }

    /// Writes the IE.
    pub fn encode(&self, w: &mut Writer<'_>) -> Result<(), EmitError> {
        if self.ie_type.is_vendor_specific() != self.enterprise_id.is_some() {
            return Err(EmitError::Invalid {
                what: "raw IE: Enterprise ID must be present exactly for vendor-specific types",
            });
        }
        let len = self.wire_len() - 4;
        let len = u16::try_from(len).map_err(|_| EmitError::TooLong {
            what: "IE",
            length: len,
        })?;
        w.u16(self.ie_type.0)?;
        w.u16(len)?;
        if let Some(e) = self.enterprise_id {
            w.u16(e)?;
        }
        w.put_slice(&self.value)
    }
}
