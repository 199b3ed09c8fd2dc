//! Errors of decoding and emitting.
//!
//! Every decoding error names the layer or element that failed and the byte offset where it did,
//! relative to the start of the buffer handed to the decoding function. The layers below GTP-U
//! are decoded by `upfbench-net`: their errors are carried whole ([`ParseError::Net`],
//! [`EmitError::Net`]), with net's layer, offset and message; the variants here are GTP-U's own
//! (and its demands on the layers below: EtherType IPv4 or IPv6, protocol UDP, port 2152).

use core::fmt;

use upfbench_net::IpFamily;
use upfbench_net::error as net;

/// The GTP-U layer or element in which a decoding error was found (the layers below are
/// `upfbench-net`'s [`Layer`](net::Layer)).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Layer {
    /// GTP-U header (TS 29.281 §5.1).
    Gtpu,
    /// A GTP-U extension header (TS 29.281 §5.2).
    ExtensionHeader,
    /// The PDU Session Container (TS 38.415 §5.5.2).
    PduSessionContainer,
    /// A GTP-U information element (TS 29.281 §8).
    InformationElement,
}

impl fmt::Display for Layer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Layer::Gtpu => "GTP-U",
            Layer::ExtensionHeader => "GTP-U extension header",
            Layer::PduSessionContainer => "PDU Session Container",
            Layer::InformationElement => "GTP-U information element",
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
    /// The version field holds a version this crate does not decode (GTP-U: 1).
    #[error("{layer}: unsupported version {version} at offset {offset}")]
    UnsupportedVersion {
        /// Layer being decoded.
        layer: Layer,
        /// Offset of the version field.
        offset: usize,
        /// The version found.
        version: u8,
    },
    /// The GTP header's protocol type bit is 0: GTP' (TS 32.295), not GTP (TS 29.281 §5.1).
    #[error("GTP-U: protocol type 0 (GTP') at offset {offset}")]
    NotGtp {
        /// Offset of the flags octet.
        offset: usize,
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
    /// The EtherType is not one of those needed (IPv4 0x0800, IPv6 0x86dd).
    #[error("Ethernet: EtherType {ethertype:#06x} at offset {offset} is not IPv4 or IPv6")]
    UnexpectedEtherType {
        /// Offset of the EtherType field.
        offset: usize,
        /// The EtherType found.
        ethertype: u16,
    },
    /// The IPv4 protocol is not the one needed (UDP, 17).
    #[error("IPv4: protocol {protocol} at offset {offset} is not UDP")]
    UnexpectedProtocol {
        /// Offset of the protocol field.
        offset: usize,
        /// The protocol found.
        protocol: u8,
    },
    /// The IPv6 next header is not the one needed (UDP, 17) nor an extension header (which
    /// `upfbench-net` reports).
    #[error("IPv6: next header {next_header} at offset {offset} is not UDP")]
    UnexpectedNextHeader {
        /// Offset of the next header field.
        offset: usize,
        /// The next header found.
        next_header: u8,
    },
    /// The UDP destination port is not the GTP-U port 2152 (TS 29.281 §4.4.2).
    #[error("UDP: destination port {port} at offset {offset} is not GTP-U (2152)")]
    UnexpectedPort {
        /// Offset of the destination port field.
        offset: usize,
        /// The port found.
        port: u16,
    },
    /// A GTP-U message type that this crate does not decode into a message.
    #[error("GTP-U: unsupported message type {message_type} at offset {offset}")]
    UnsupportedMessageType {
        /// Offset of the message type field.
        offset: usize,
        /// The message type found.
        message_type: u8,
    },
    /// A GTP-U message of another type than the one needed (a G-PDU for decapsulation).
    #[error("GTP-U: message type {message_type} at offset {offset} where {expected} is needed")]
    UnexpectedMessageType {
        /// Offset of the message type field.
        offset: usize,
        /// The message type found.
        message_type: u8,
        /// The message type needed.
        expected: u8,
    },
    /// An extension header with length 0 (TS 29.281 §5.2.1: the length is at least 1).
    #[error("GTP-U: extension header {extension_type:#04x} at offset {offset} has length 0")]
    ZeroExtensionLength {
        /// Offset of the extension header's length octet.
        offset: usize,
        /// Type of the extension header (from the preceding next-extension-header field).
        extension_type: u8,
    },
    /// An extension header of a type this crate does not understand, marked "comprehension
    /// required" by the receiving endpoint (TS 29.281 §5.2.1, the two MSBs of the type).
    #[error(
        "GTP-U: extension header {extension_type:#04x} at offset {offset} requires comprehension"
    )]
    ComprehensionRequired {
        /// Offset of the extension header's length octet.
        offset: usize,
        /// Type of the extension header.
        extension_type: u8,
    },
    /// A known extension header whose length is not the one its type defines.
    #[error(
        "GTP-U: extension header {extension_type:#04x} at offset {offset} has length {length}, expected {expected}"
    )]
    BadExtensionLength {
        /// Offset of the extension header's length octet.
        offset: usize,
        /// Type of the extension header.
        extension_type: u8,
        /// Its length field, in 4-octet units.
        length: u8,
        /// The length its type defines, in 4-octet units.
        expected: u8,
    },
    /// The same extension header type appears twice in one chain.
    #[error("GTP-U: duplicate extension header {extension_type:#04x} at offset {offset}")]
    DuplicateExtensionHeader {
        /// Offset of the second occurrence's length octet.
        offset: usize,
        /// Type of the extension header.
        extension_type: u8,
    },
    /// The PDU Session Container's PDU type is neither DL (0) nor UL (1) (TS 38.415 §5.5.3.1).
    #[error("PDU Session Container: unknown PDU type {pdu_type} at offset {offset}")]
    UnknownPduType {
        /// Offset of the octet holding the PDU type.
        offset: usize,
        /// The PDU type found.
        pdu_type: u8,
    },
    /// A TV information element (type below 128) whose length this crate does not know, so that
    /// the rest of the message cannot be walked (TS 29.281 §8.1).
    #[error("GTP-U: unknown TV information element {ie_type} at offset {offset}")]
    UnknownInformationElement {
        /// Offset of the IE's type octet.
        offset: usize,
        /// The IE type found.
        ie_type: u8,
    },
    /// An information element whose length is not valid for its type.
    #[error("GTP-U: information element {ie_type} at offset {offset} has invalid length {length}")]
    BadIeLength {
        /// Offset of the IE's type octet.
        offset: usize,
        /// The IE type.
        ie_type: u8,
        /// The length of its value in bytes.
        length: usize,
    },
    /// A mandatory information element is missing from a message (TS 29.281 §7).
    #[error("GTP-U: message type {message_type} lacks mandatory information element {ie_type}")]
    MissingInformationElement {
        /// The message type.
        message_type: u8,
        /// The missing IE type.
        ie_type: u8,
    },
    /// A layer below GTP-U (Ethernet, IPv4, UDP) failed to decode: `upfbench-net`'s error,
    /// with its layer, offset and message.
    #[error(transparent)]
    Net(#[from] net::ParseError),
}

impl ParseError {
    /// The same error with its offset moved by `base` bytes: used when a decoder of an inner
    /// layer reports through the decoder of the enclosing frame.
    #[must_use]
    pub fn offset_by(mut self, base: usize) -> Self {
        if let ParseError::Net(e) = self {
            return ParseError::Net(e.offset_by(base));
        }
        if let Some(offset) = self.offset_mut() {
            *offset = offset.saturating_add(base);
        }
        self
    }

    /// The offset the error points at, if it has one.
    pub fn offset(&self) -> Option<usize> {
        if let ParseError::Net(e) = self {
            return Some(e.offset());
        }
        let mut e = *self;
        e.offset_mut().copied()
    }

    fn offset_mut(&mut self) -> Option<&mut usize> {
        use ParseError as E;
        match self {
            E::Truncated { offset, .. }
            | E::UnsupportedVersion { offset, .. }
            | E::NotGtp { offset }
            | E::LengthTooSmall { offset, .. }
            | E::LengthExceedsBuffer { offset, .. }
            | E::UnexpectedEtherType { offset, .. }
            | E::UnexpectedProtocol { offset, .. }
            | E::UnexpectedNextHeader { offset, .. }
            | E::UnexpectedPort { offset, .. }
            | E::UnsupportedMessageType { offset, .. }
            | E::UnexpectedMessageType { offset, .. }
            | E::ZeroExtensionLength { offset, .. }
            | E::ComprehensionRequired { offset, .. }
            | E::BadExtensionLength { offset, .. }
            | E::DuplicateExtensionHeader { offset, .. }
            | E::UnknownPduType { offset, .. }
            | E::UnknownInformationElement { offset, .. }
            | E::BadIeLength { offset, .. } => Some(offset),
            E::MissingInformationElement { .. } | E::Net(_) => None,
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
    /// There is less room in front of the inner packet than the outer headers take.
    #[error(
        "headroom too small: {needed} bytes needed in front of the inner packet, {available} available"
    )]
    HeadroomTooSmall {
        /// Bytes of outer headers.
        needed: usize,
        /// Bytes in front of the inner packet.
        available: usize,
    },
    /// The inner packet's range lies outside the buffer.
    #[error("inner packet {start}..{end} lies outside the {len}-byte buffer")]
    InnerOutOfBounds {
        /// Start of the inner packet.
        start: usize,
        /// End of the inner packet.
        end: usize,
        /// Length of the buffer.
        len: usize,
    },
    /// A UE address of another family than the template's inner packets.
    #[error("the template's inner packets are {template}, the UE address given is {given}")]
    FamilyMismatch {
        /// The family of the template's inner packets.
        template: IpFamily,
        /// The family of the address given.
        given: IpFamily,
    },
    /// A payload too long for a length field of a GTP-U layer.
    #[error("{layer}: payload of {len} bytes exceeds the maximum {max}")]
    PayloadTooLong {
        /// Layer whose length field overflows.
        layer: Layer,
        /// Length of the payload in bytes.
        len: usize,
        /// The largest payload the layer can carry.
        max: usize,
    },
    /// A layer below GTP-U (Ethernet, IPv4, UDP) could not be written: `upfbench-net`'s error.
    #[error(transparent)]
    Net(#[from] net::EmitError),
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn offsets_move_with_the_enclosing_layer() {
        let e = ParseError::NotGtp { offset: 3 };
        assert_eq!(e.offset(), Some(3));
        assert_eq!(e.offset_by(42), ParseError::NotGtp { offset: 45 });
        assert_eq!(
            ParseError::NotGtp { offset: usize::MAX }.offset_by(1),
            ParseError::NotGtp { offset: usize::MAX }
        );
        let missing = ParseError::MissingInformationElement {
            message_type: 26,
            ie_type: 16,
        };
        assert_eq!(missing.offset(), None);
        assert_eq!(missing.offset_by(42), missing);
    }

    #[test]
    fn net_errors_keep_their_layer_offset_and_message() {
        let e = net::ParseError::LengthExceedsBuffer {
            layer: net::Layer::Udp,
            offset: 4,
            length: 55,
            available: 54,
        };
        let g = ParseError::from(e).offset_by(34);
        assert_eq!(g, ParseError::Net(e.offset_by(34)));
        assert_eq!(g.offset(), Some(38));
        assert_eq!(g.to_string(), e.offset_by(34).to_string());
        assert_eq!(
            g.to_string(),
            "UDP: length 55 at offset 38 exceeds the 54 bytes available"
        );
        let arp = net::ParseError::UnsupportedOperation {
            offset: 6,
            operation: 3,
        };
        let g = ParseError::from(arp);
        assert_eq!(g, ParseError::Net(arp));
        assert_eq!(g.offset_by(14).offset(), Some(20));
        assert_eq!(g.to_string(), arp.to_string());
        let too_long = net::EmitError::PayloadTooLong {
            layer: net::Layer::Ipv4,
            len: 70_000,
            max: 65_515,
        };
        assert_eq!(EmitError::from(too_long), EmitError::Net(too_long));
        assert_eq!(EmitError::from(too_long).to_string(), too_long.to_string());
    }
}
