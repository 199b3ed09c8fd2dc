//! Errors of decoding and emitting.
//!
//! Every decoding error names the layer that failed and the byte offset where it did, relative to
//! the start of the buffer handed to the decoding function.

use core::fmt;

/// The protocol layer in which a decoding or emitting error was found.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Layer {
    /// Ethernet II header.
    Ethernet,
    /// ARP packet (RFC 826).
    Arp,
    /// IPv4 header (RFC 791).
    Ipv4,
    /// ICMPv4 message (RFC 792).
    Icmp,
    /// UDP header (RFC 768).
    Udp,
    /// IPv6 fixed header (RFC 8200 §3).
    Ipv6,
    /// ICMPv6 message (RFC 4443).
    Icmpv6,
    /// A Neighbor Discovery option (RFC 4861 §4.6).
    NdpOption,
    /// An IEEE 802.1Q VLAN tag (C-tag, or 802.1ad S-tag).
    Vlan,
}

impl fmt::Display for Layer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Layer::Ethernet => "Ethernet",
            Layer::Arp => "ARP",
            Layer::Ipv4 => "IPv4",
            Layer::Icmp => "ICMP",
            Layer::Udp => "UDP",
            Layer::Ipv6 => "IPv6",
            Layer::Icmpv6 => "ICMPv6",
            Layer::NdpOption => "NDP option",
            Layer::Vlan => "VLAN",
        })
    }
}

/// Why a buffer could not be decoded. Offsets count bytes from the start of the decoded buffer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, thiserror::Error)]
pub enum ParseError {
    /// The buffer ends before a header or field does.
    #[error("{layer}: truncated at offset {offset}: {needed} bytes needed, {available} available")]
    Truncated {
        /// Layer being decoded.
        layer: Layer,
        /// Offset of the header or field that does not fit.
        offset: usize,
        /// Bytes the header or field needs from `offset`.
        needed: usize,
        /// Bytes the buffer holds from `offset`.
        available: usize,
    },
    /// The version field holds another version than the header's (IPv4: 4, IPv6: 6).
    #[error("{layer}: unsupported version {version} at offset {offset}")]
    UnsupportedVersion {
        /// Layer being decoded.
        layer: Layer,
        /// Offset of the version field.
        offset: usize,
        /// The version found.
        version: u8,
    },
    /// A length field is smaller than the fixed part it must cover.
    #[error("{layer}: length {length} at offset {offset} is below the minimum {minimum}")]
    LengthTooSmall {
        /// Layer being decoded.
        layer: Layer,
        /// Offset of the length field.
        offset: usize,
        /// The decoded length in bytes.
        length: usize,
        /// The smallest valid length in bytes.
        minimum: usize,
    },
    /// A length field claims more bytes than the buffer holds.
    #[error("{layer}: length {length} at offset {offset} exceeds the {available} bytes available")]
    LengthExceedsBuffer {
        /// Layer being decoded.
        layer: Layer,
        /// Offset of the length field.
        offset: usize,
        /// The decoded length in bytes.
        length: usize,
        /// Bytes available to it.
        available: usize,
    },
    /// An IPv4 fragment where a whole datagram is needed.
    #[error(
        "IPv4: fragment (fragment offset {fragment_offset}, more fragments {more_fragments}) at offset {offset}"
    )]
    Fragmented {
        /// Offset of the IPv4 header.
        offset: usize,
        /// Fragment offset in 8-octet units.
        fragment_offset: u16,
        /// The MF flag.
        more_fragments: bool,
    },
    /// A checksum does not match the data it covers.
    #[error("{layer}: checksum {found:#06x} at offset {offset}, computed {computed:#06x}")]
    BadChecksum {
        /// Layer being decoded.
        layer: Layer,
        /// Offset of the checksum field.
        offset: usize,
        /// The checksum in the packet.
        found: u16,
        /// The checksum computed over the data.
        computed: u16,
    },
    /// An ARP packet whose hardware is not Ethernet (hardware type 1, address length 6).
    #[error(
        "ARP: hardware type {hardware_type} with address length {hardware_len} at offset {offset} is not Ethernet (1, 6)"
    )]
    UnsupportedHardware {
        /// Offset of the hardware type field.
        offset: usize,
        /// The hardware type found.
        hardware_type: u16,
        /// The hardware address length found.
        hardware_len: u8,
    },
    /// An ARP packet whose protocol is not IPv4 (protocol type 0x0800, address length 4).
    #[error(
        "ARP: protocol type {protocol_type:#06x} with address length {protocol_len} at offset {offset} is not IPv4 (0x0800, 4)"
    )]
    UnsupportedProtocol {
        /// Offset of the protocol type field.
        offset: usize,
        /// The protocol type found.
        protocol_type: u16,
        /// The protocol address length found.
        protocol_len: u8,
    },
    /// An ARP operation other than request (1) or reply (2), such as RARP's.
    #[error("ARP: unsupported operation {operation} at offset {offset}")]
    UnsupportedOperation {
        /// Offset of the operation field.
        offset: usize,
        /// The operation found.
        operation: u16,
    },
    /// An IPv6 extension header (RFC 8200 §4): this crate decodes the fixed header only, so the
    /// upper-layer header must follow it directly.
    #[error("IPv6: extension header {next_header} at offset {offset} is not supported")]
    UnsupportedExtensionHeader {
        /// Offset of the next header field that names it.
        offset: usize,
        /// The extension header's protocol number (0 Hop-by-Hop, 43 Routing, 44 Fragment, ...).
        next_header: u8,
    },
    /// A UDP datagram over IPv6 without a checksum (0), which an IPv6 receiver discards (RFC
    /// 8200 §8.1).
    #[error("UDP: zero checksum at offset {offset} over IPv6 (RFC 8200 §8.1 makes it mandatory)")]
    MissingUdpChecksum {
        /// Offset of the checksum field.
        offset: usize,
    },
    /// A VLAN tag whose TPID is not one this crate decodes there: at most two tags, an 802.1ad
    /// S-tag (0x88a8) or an 802.1Q C-tag (0x8100) outside and a C-tag inside.
    #[error(
        "VLAN: tag with TPID {tpid:#06x} at offset {offset}: at most two tags are decoded, the inner one a C-tag (0x8100)"
    )]
    UnsupportedVlanTag {
        /// Offset of the TPID.
        offset: usize,
        /// The TPID found.
        tpid: u16,
    },
    /// VLAN id 4095 (0xFFF), which IEEE 802.1Q-2018 Table 9-2 reserves and forbids in a tag.
    #[error("VLAN: reserved VLAN id {vid} at offset {offset} (IEEE 802.1Q Table 9-2)")]
    ReservedVlanId {
        /// Offset of the tag control information (PCP, DEI, VID).
        offset: usize,
        /// The VLAN id found.
        vid: u16,
    },
    /// A Neighbor Solicitation or Advertisement that RFC 4861 §7.1 tells a node to discard.
    #[error("ICMPv6: {rule} at offset {offset} (RFC 4861 §7.1)")]
    InvalidNeighborDiscovery {
        /// Offset of the field that breaks the rule.
        offset: usize,
        /// The rule it breaks.
        rule: NdpRule,
    },
}

/// The validity checks of RFC 4861 §7.1.1 and §7.1.2 a Neighbor Solicitation or Advertisement
/// failed, besides its checksum and lengths (the IPv6 hop limit of 255 is the caller's check:
/// it is outside the message).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum NdpRule {
    /// The ICMP code is not 0.
    NonZeroCode,
    /// The target address is a multicast address.
    MulticastTarget,
    /// A solicitation from the unspecified address (duplicate address detection) carries a
    /// source link-layer address option.
    LinkLayerAddressFromUnspecified,
    /// A solicitation from the unspecified address is not sent to a solicited-node multicast
    /// address.
    UnspecifiedToNonSolicitedNode,
    /// An advertisement to a multicast address has the Solicited flag set.
    SolicitedToMulticast,
    /// A link-layer address option whose length is not 1 (8 octets): not an Ethernet address
    /// (RFC 2464 §6).
    LinkLayerAddressNotEthernet,
}

impl fmt::Display for NdpRule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            NdpRule::NonZeroCode => "neighbor discovery code is not 0",
            NdpRule::MulticastTarget => "target address is multicast",
            NdpRule::LinkLayerAddressFromUnspecified => {
                "source link-layer address option from the unspecified address"
            }
            NdpRule::UnspecifiedToNonSolicitedNode => {
                "solicitation from the unspecified address not to a solicited-node address"
            }
            NdpRule::SolicitedToMulticast => "solicited advertisement to a multicast address",
            NdpRule::LinkLayerAddressNotEthernet => {
                "link-layer address option is not 8 octets (Ethernet)"
            }
        })
    }
}

impl ParseError {
    /// The same error with its offset moved by `base` bytes: used when a decoder of an inner
    /// layer reports through the decoder of the enclosing frame.
    #[must_use]
    pub fn offset_by(mut self, base: usize) -> Self {
        let offset = self.offset_mut();
        *offset = offset.saturating_add(base);
        self
    }

    /// The offset the error points at.
    pub fn offset(&self) -> usize {
        let mut e = *self;
        *e.offset_mut()
    }

    /// The layer that failed.
    pub fn layer(&self) -> Layer {
        use ParseError as E;
        match *self {
            E::Truncated { layer, .. }
            | E::UnsupportedVersion { layer, .. }
            | E::LengthTooSmall { layer, .. }
            | E::LengthExceedsBuffer { layer, .. }
            | E::BadChecksum { layer, .. } => layer,
            E::Fragmented { .. } => Layer::Ipv4,
            E::UnsupportedHardware { .. }
            | E::UnsupportedProtocol { .. }
            | E::UnsupportedOperation { .. } => Layer::Arp,
            E::UnsupportedExtensionHeader { .. } => Layer::Ipv6,
            E::MissingUdpChecksum { .. } => Layer::Udp,
            E::UnsupportedVlanTag { .. } | E::ReservedVlanId { .. } => Layer::Vlan,
            E::InvalidNeighborDiscovery { .. } => Layer::Icmpv6,
        }
    }

    fn offset_mut(&mut self) -> &mut usize {
        use ParseError as E;
        match self {
            E::Truncated { offset, .. }
            | E::UnsupportedVersion { offset, .. }
            | E::LengthTooSmall { offset, .. }
            | E::LengthExceedsBuffer { offset, .. }
            | E::Fragmented { offset, .. }
            | E::BadChecksum { offset, .. }
            | E::UnsupportedHardware { offset, .. }
            | E::UnsupportedProtocol { offset, .. }
            | E::UnsupportedOperation { offset, .. }
            | E::UnsupportedExtensionHeader { offset, .. }
            | E::MissingUdpChecksum { offset }
            | E::UnsupportedVlanTag { offset, .. }
            | E::ReservedVlanId { offset, .. }
            | E::InvalidNeighborDiscovery { offset, .. } => offset,
        }
    }
}

/// Why a header or message could not be written into a buffer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, thiserror::Error)]
pub enum EmitError {
    /// The buffer is shorter than what is to be written.
    #[error("buffer too small: {needed} bytes needed, {available} available")]
    BufferTooSmall {
        /// Bytes needed.
        needed: usize,
        /// Bytes available.
        available: usize,
    },
    /// A payload too long for a length field of the layer.
    #[error("{layer}: payload of {len} bytes exceeds the maximum {max}")]
    PayloadTooLong {
        /// Layer whose length field overflows.
        layer: Layer,
        /// Length of the payload in bytes.
        len: usize,
        /// The largest payload the layer can carry.
        max: usize,
    },
    /// A field value the layer cannot carry: too wide for its bits, or reserved by its
    /// standard (a VLAN id of 4095).
    #[error("{layer}: {field} {value} {reason}")]
    InvalidField {
        /// Layer of the field.
        layer: Layer,
        /// Name of the field.
        field: &'static str,
        /// The value given.
        value: u32,
        /// Why it cannot be written.
        reason: &'static str,
    },
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn offsets_move_with_the_enclosing_layer() {
        let e = ParseError::UnsupportedOperation {
            offset: 6,
            operation: 3,
        };
        assert_eq!(e.offset(), 6);
        assert_eq!(e.layer(), Layer::Arp);
        assert_eq!(
            e.offset_by(14),
            ParseError::UnsupportedOperation {
                offset: 20,
                operation: 3
            }
        );
        let far = ParseError::Fragmented {
            offset: usize::MAX,
            fragment_offset: 1,
            more_fragments: false,
        };
        assert_eq!(far.offset_by(1), far);
        assert_eq!(far.layer(), Layer::Ipv4);
    }

    #[test]
    fn messages_name_the_layer_and_the_offset() {
        let e = ParseError::BadChecksum {
            layer: Layer::Icmp,
            offset: 36,
            found: 0x1234,
            computed: 0xabcd,
        };
        assert_eq!(
            e.to_string(),
            "ICMP: checksum 0x1234 at offset 36, computed 0xabcd"
        );
    }
}
