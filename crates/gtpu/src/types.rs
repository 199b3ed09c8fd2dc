//! Validated field types of GTP-U and the PDU Session Container. The TEID, the QFI and their
//! range error are `upfbench-net`'s ([`Teid`](upfbench_net::Teid), [`Qfi`](upfbench_net::Qfi),
//! [`OutOfRange`]), shared with PFCP: import them from there.

use core::fmt;

use upfbench_net::types::OutOfRange;

/// UDP port of GTP-U (TS 29.281 §4.4.2.0–§4.4.2.3: all GTP-U messages are sent to 2152).
pub const GTPU_PORT: u16 = 2152;

/// Paging Policy Indicator (TS 38.415 §5.5.3.7): 3 bits, 0–7.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, PartialOrd, Ord)]
pub struct Ppi(u8);

impl Ppi {
    /// The largest PPI.
    pub const MAX: u8 = 7;

    /// A PPI, if `v` fits in 3 bits.
    pub const fn new(v: u8) -> Result<Ppi, OutOfRange> {
        if v <= Self::MAX {
            Ok(Ppi(v))
        } else {
            Err(OutOfRange {
                field: "PPI",
                value: v as u32,
                bits: 3,
            })
        }
    }

    /// The low 3 bits of `v` as a PPI.
    pub const fn from_bits(v: u8) -> Ppi {
        Ppi(v & Self::MAX)
    }

    /// The PPI as a number.
    pub const fn get(self) -> u8 {
        self.0
    }
}

impl TryFrom<u8> for Ppi {
    type Error = OutOfRange;
    fn try_from(v: u8) -> Result<Self, Self::Error> {
        Ppi::new(v)
    }
}

/// A 24-bit QFI sequence number of the PDU Session Container (TS 38.415 §5.5.3.18, §5.5.3.21).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, PartialOrd, Ord)]
pub struct QfiSequenceNumber(u32);

impl QfiSequenceNumber {
    /// The largest value.
    pub const MAX: u32 = 0x00ff_ffff;

    /// A sequence number, if `v` fits in 24 bits.
    pub const fn new(v: u32) -> Result<Self, OutOfRange> {
        if v <= Self::MAX {
            Ok(QfiSequenceNumber(v))
        } else {
            Err(OutOfRange {
                field: "QFI sequence number",
                value: v,
                bits: 24,
            })
        }
    }

    /// The sequence number as a number.
    pub const fn get(self) -> u32 {
        self.0
    }
}

/// GTP-U message type (TS 29.281 §6.1, Table 6.1-1).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct MessageType(pub u8);

impl MessageType {
    /// Echo Request (§7.2.1).
    pub const ECHO_REQUEST: MessageType = MessageType(1);
    /// Echo Response (§7.2.2).
    pub(crate) const ECHO_RESPONSE: MessageType = MessageType(2);
    /// Error Indication (§7.3.1).
    pub(crate) const ERROR_INDICATION: MessageType = MessageType(26);
    /// Supported Extension Headers Notification (§7.2.3).
    pub(crate) const SUPPORTED_EXTENSION_HEADERS_NOTIFICATION: MessageType = MessageType(31);
    /// Tunnel Status (§7.3.4).
    pub(crate) const TUNNEL_STATUS: MessageType = MessageType(253);
    /// End Marker (§7.3.2).
    pub const END_MARKER: MessageType = MessageType(254);
    /// G-PDU: a T-PDU with a GTP-U header (§6.1).
    pub const G_PDU: MessageType = MessageType(255);
}

impl fmt::Display for MessageType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let name = match *self {
            Self::ECHO_REQUEST => "Echo Request",
            Self::ECHO_RESPONSE => "Echo Response",
            Self::ERROR_INDICATION => "Error Indication",
            Self::SUPPORTED_EXTENSION_HEADERS_NOTIFICATION => {
                "Supported Extension Headers Notification"
            }
            Self::TUNNEL_STATUS => "Tunnel Status",
            Self::END_MARKER => "End Marker",
            Self::G_PDU => "G-PDU",
            _ => return write!(f, "message type {}", self.0),
        };
        f.write_str(name)
    }
}

/// How a receiver must treat an extension header it does not understand: the two most
/// significant bits of its type (TS 29.281 §5.2.1, Table 5.2.1-2).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Comprehension {
    /// `00`: not required; an intermediate node forwards it.
    NotRequiredForward,
    /// `01`: not required; an intermediate node discards its content.
    NotRequiredDiscard,
    /// `10`: required by the endpoint receiver, not by an intermediate node.
    RequiredByEndpoint,
    /// `11`: required by every recipient.
    Required,
}

/// GTP-U extension header type, as carried in a "next extension header type" field (TS 29.281
/// §5.2.1, Figure 5.2.1-3).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ExtensionHeaderType(pub u8);

impl ExtensionHeaderType {
    /// No more extension headers.
    pub(crate) const NO_MORE: ExtensionHeaderType = ExtensionHeaderType(0x00);
    /// Service Class Indicator (§5.2.2.3).
    pub const SERVICE_CLASS_INDICATOR: ExtensionHeaderType = ExtensionHeaderType(0x20);
    /// UDP Port (§5.2.2.1): the source port of the G-PDU that caused an Error Indication.
    pub const UDP_PORT: ExtensionHeaderType = ExtensionHeaderType(0x40);
    /// RAN Container (§5.2.2.4).
    pub const RAN_CONTAINER: ExtensionHeaderType = ExtensionHeaderType(0x81);
    /// Long PDCP PDU Number (§5.2.2.2A).
    pub const LONG_PDCP_PDU_NUMBER: ExtensionHeaderType = ExtensionHeaderType(0x82);
    /// Xw RAN Container (§5.2.2.5).
    pub const XW_RAN_CONTAINER: ExtensionHeaderType = ExtensionHeaderType(0x83);
    /// NR RAN Container (§5.2.2.6).
    pub const NR_RAN_CONTAINER: ExtensionHeaderType = ExtensionHeaderType(0x84);
    /// PDU Session Container (§5.2.2.7, content in TS 38.415).
    pub const PDU_SESSION_CONTAINER: ExtensionHeaderType = ExtensionHeaderType(0x85);
    /// PDCP PDU Number (§5.2.2.2).
    pub const PDCP_PDU_NUMBER: ExtensionHeaderType = ExtensionHeaderType(0xc0);

    /// What a receiver that does not understand this type must do (its two MSBs).
    pub const fn comprehension(self) -> Comprehension {
        match self.0 >> 6 {
            0 => Comprehension::NotRequiredForward,
            1 => Comprehension::NotRequiredDiscard,
            2 => Comprehension::RequiredByEndpoint,
            _ => Comprehension::Required,
        }
    }

    /// Whether this crate decodes the content of this type.
    pub const fn is_understood(self) -> bool {
        matches!(self, Self::PDU_SESSION_CONTAINER | Self::UDP_PORT)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ppi_range() {
        assert!(Ppi::new(7).is_ok());
        assert!(Ppi::new(8).is_err());
    }

    #[test]
    fn comprehension_bits() {
        assert_eq!(
            ExtensionHeaderType::PDU_SESSION_CONTAINER.comprehension(),
            Comprehension::RequiredByEndpoint
        );
        assert_eq!(
            ExtensionHeaderType::UDP_PORT.comprehension(),
            Comprehension::NotRequiredDiscard
        );
        assert_eq!(
            ExtensionHeaderType::PDCP_PDU_NUMBER.comprehension(),
            Comprehension::Required
        );
        assert_eq!(
            ExtensionHeaderType(0x20).comprehension(),
            Comprehension::NotRequiredForward
        );
    }
}
