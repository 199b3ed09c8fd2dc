//! IPv6 (RFC 8200): a checked view and a representation of the fixed header, and the multicast
//! addresses Neighbor Discovery sends to.
//!
//! Only the 40-octet fixed header is decoded (RFC 8200 §3). Extension headers (§4) are not:
//! [`Ipv6Repr::parse`] reports one as [`ParseError::UnsupportedExtensionHeader`] at the next
//! header field that names it, so that a packet is either read whole or refused at a place.
//! There is no header checksum; the upper layers' checksums cover a pseudo header instead
//! (§8.1, [`checksum::udp_ipv6`](crate::checksum::udp_ipv6)).

use std::net::Ipv6Addr;

use crate::error::{EmitError, Layer, ParseError};
use crate::ip_protocol::is_ipv6_extension_header;
pub use crate::ip_protocol::{PROTOCOL_ICMPV6, PROTOCOL_UDP};

/// Field offsets of the IPv6 fixed header (RFC 8200 §3).
pub mod field {
    use core::ops::Range;
    /// Version (4 bits), traffic class (8 bits) and flow label (20 bits).
    pub const VERSION_TC_FLOW: Range<usize> = 0..4;
    /// Length of the payload (extension headers included) in octets.
    pub const PAYLOAD_LENGTH: Range<usize> = 4..6;
    /// Protocol of the header that follows.
    pub const NEXT_HEADER: usize = 6;
    /// Hop limit.
    pub const HOP_LIMIT: usize = 7;
    /// Source address.
    pub const SOURCE: Range<usize> = 8..24;
    /// Destination address.
    pub const DESTINATION: Range<usize> = 24..40;
}

/// Length of the fixed header.
pub const HEADER_LEN: usize = 40;
/// The largest payload the payload length field can describe (RFC 2675's jumbograms aside).
pub const MAX_PAYLOAD_LEN: usize = 65_535;
/// Hop limit of the headers [`Ipv6Repr::udp`] makes (Linux's default).
pub const DEFAULT_HOP_LIMIT: u8 = 64;
/// The largest flow label (20 bits).
pub const MAX_FLOW_LABEL: u32 = 0xf_ffff;

/// A checked view of an IPv6 packet. `new_checked` guarantees a version of 6, a whole fixed
/// header and a payload length within the buffer, so that the accessors cannot fail; bytes
/// after the payload (Ethernet padding) are not part of the packet.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Ipv6Packet<T> {
    buffer: T,
}

impl<T: AsRef<[u8]>> Ipv6Packet<T> {
    /// Wraps `buffer` after checking version and payload length against it.
    #[inline]
    pub fn new_checked(buffer: T) -> Result<Self, ParseError> {
        check(buffer.as_ref())?;
        Ok(Ipv6Packet { buffer })
    }

    /// Wraps a buffer that [`check`] accepted: the accessors index without checking and
    /// panic on a buffer that was not (decoders call [`new_checked`](Self::new_checked)).
    #[inline]
    pub fn new_unchecked(buffer: T) -> Self {
        Ipv6Packet { buffer }
    }

    /// Gives the buffer back.
    #[inline]
    pub fn into_inner(self) -> T {
        self.buffer
    }

    #[inline]
    fn bytes(&self) -> &[u8] {
        self.buffer.as_ref()
    }

    #[inline]
    fn first_word(&self) -> u32 {
        let b = self.bytes();
        u32::from_be_bytes([b[0], b[1], b[2], b[3]])
    }

    /// Version (always 6 in a checked view).
    #[inline]
    pub fn version(&self) -> u8 {
        self.bytes()[0] >> 4
    }

    /// Traffic class: DSCP (high 6 bits, RFC 2474) and ECN (low 2 bits, RFC 3168).
    #[inline]
    pub fn traffic_class(&self) -> u8 {
        (self.first_word() >> 20) as u8
    }

    /// Flow label (RFC 6437).
    #[inline]
    pub fn flow_label(&self) -> u32 {
        self.first_word() & MAX_FLOW_LABEL
    }

    /// Payload length in octets.
    #[inline]
    pub fn payload_len(&self) -> usize {
        let b = self.bytes();
        usize::from(u16::from_be_bytes([b[4], b[5]]))
    }

    /// Protocol of the header after the fixed header.
    #[inline]
    pub fn next_header(&self) -> u8 {
        self.bytes()[field::NEXT_HEADER]
    }

    /// Hop limit.
    #[inline]
    pub fn hop_limit(&self) -> u8 {
        self.bytes()[field::HOP_LIMIT]
    }

    /// Source address.
    #[inline]
    pub fn source(&self) -> Ipv6Addr {
        addr_at(self.bytes(), field::SOURCE.start)
    }

    /// Destination address.
    #[inline]
    pub fn destination(&self) -> Ipv6Addr {
        addr_at(self.bytes(), field::DESTINATION.start)
    }

    /// The payload: the payload length's octets after the fixed header.
    #[inline]
    pub fn payload(&self) -> &[u8] {
        &self.bytes()[HEADER_LEN..HEADER_LEN + self.payload_len()]
    }
}

impl<'a> Ipv6Packet<&'a [u8]> {
    /// The payload with the lifetime of the underlying buffer.
    #[inline]
    pub fn payload_slice(&self) -> &'a [u8] {
        let end = HEADER_LEN + self.payload_len();
        &self.buffer[HEADER_LEN..end]
    }
}

impl<T: AsRef<[u8]> + AsMut<[u8]>> Ipv6Packet<T> {
    #[inline]
    fn bytes_mut(&mut self) -> &mut [u8] {
        self.buffer.as_mut()
    }

    /// Sets the hop limit.
    #[inline]
    pub fn set_hop_limit(&mut self, hop_limit: u8) {
        self.bytes_mut()[field::HOP_LIMIT] = hop_limit;
    }

    /// Sets the source address (an upper-layer checksum is not updated).
    #[inline]
    pub fn set_source(&mut self, addr: Ipv6Addr) {
        self.bytes_mut()[field::SOURCE].copy_from_slice(&addr.octets());
    }

    /// Sets the destination address (an upper-layer checksum is not updated).
    #[inline]
    pub fn set_destination(&mut self, addr: Ipv6Addr) {
        self.bytes_mut()[field::DESTINATION].copy_from_slice(&addr.octets());
    }

    /// The payload, mutably.
    #[inline]
    pub fn payload_mut(&mut self) -> &mut [u8] {
        let end = HEADER_LEN + self.payload_len();
        &mut self.bytes_mut()[HEADER_LEN..end]
    }
}

#[inline]
fn addr_at(b: &[u8], at: usize) -> Ipv6Addr {
    let mut octets = [0u8; 16];
    octets.copy_from_slice(&b[at..at + 16]);
    Ipv6Addr::from(octets)
}

/// The checks of [`Ipv6Packet::new_checked`]; returns the end of the packet (the fixed header
/// and the payload length).
#[inline]
pub fn check(b: &[u8]) -> Result<usize, ParseError> {
    let len = b.len();
    if len < HEADER_LEN {
        return Err(ParseError::Truncated {
            layer: Layer::Ipv6,
            offset: 0,
            needed: HEADER_LEN,
            available: len,
        });
    }
    let version = b[0] >> 4;
    if version != 6 {
        return Err(ParseError::UnsupportedVersion {
            layer: Layer::Ipv6,
            offset: 0,
            version,
        });
    }
    let payload_len = usize::from(u16::from_be_bytes([b[4], b[5]]));
    if HEADER_LEN + payload_len > len {
        return Err(ParseError::LengthExceedsBuffer {
            layer: Layer::Ipv6,
            offset: field::PAYLOAD_LENGTH.start,
            length: payload_len,
            available: len - HEADER_LEN,
        });
    }
    Ok(HEADER_LEN + payload_len)
}

/// The fields of an IPv6 fixed header.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Ipv6Repr {
    /// Source address.
    pub source: Ipv6Addr,
    /// Destination address.
    pub destination: Ipv6Addr,
    /// Protocol of the payload (never an extension header: see [`Ipv6Repr::parse`]).
    pub next_header: u8,
    /// Payload length in octets.
    pub payload_len: usize,
    /// Hop limit.
    pub hop_limit: u8,
    /// Traffic class: DSCP (6 bits) and ECN (2 bits).
    pub traffic_class: u8,
    /// Flow label (20 bits).
    pub flow_label: u32,
}

impl Ipv6Repr {
    /// The header of a UDP datagram from `source` to `destination`: hop limit
    /// [`DEFAULT_HOP_LIMIT`], traffic class and flow label 0, and payload length 0 until an
    /// emitter that knows the payload sets it.
    #[inline]
    pub const fn udp(source: Ipv6Addr, destination: Ipv6Addr) -> Ipv6Repr {
        Ipv6Repr {
            source,
            destination,
            next_header: PROTOCOL_UDP,
            payload_len: 0,
            hop_limit: DEFAULT_HOP_LIMIT,
            traffic_class: 0,
            flow_label: 0,
        }
    }

    /// Reads a checked packet's fixed header; a next header that is an extension header is
    /// refused ([`ParseError::UnsupportedExtensionHeader`] at offset 6).
    #[inline]
    pub fn parse<T: AsRef<[u8]>>(packet: &Ipv6Packet<T>) -> Result<Self, ParseError> {
        let next_header = packet.next_header();
        if is_ipv6_extension_header(next_header) {
            return Err(ParseError::UnsupportedExtensionHeader {
                offset: field::NEXT_HEADER,
                next_header,
            });
        }
        Ok(Ipv6Repr {
            source: packet.source(),
            destination: packet.destination(),
            next_header,
            payload_len: packet.payload_len(),
            hop_limit: packet.hop_limit(),
            traffic_class: packet.traffic_class(),
            flow_label: packet.flow_label(),
        })
    }

    /// Bytes of the header [`emit`](Self::emit) writes.
    #[inline]
    pub const fn buffer_len(&self) -> usize {
        HEADER_LEN
    }

    /// Writes the 40-octet fixed header into the start of `buf`.
    #[inline]
    pub fn emit(&self, buf: &mut [u8]) -> Result<(), EmitError> {
        if self.payload_len > MAX_PAYLOAD_LEN {
            return Err(EmitError::PayloadTooLong {
                layer: Layer::Ipv6,
                len: self.payload_len,
                max: MAX_PAYLOAD_LEN,
            });
        }
        if self.flow_label > MAX_FLOW_LABEL {
            return Err(EmitError::InvalidField {
                layer: Layer::Ipv6,
                field: "flow label",
                value: self.flow_label,
                reason: "does not fit in 20 bits",
            });
        }
        let available = buf.len();
        let Some(h) = buf.get_mut(..HEADER_LEN) else {
            return Err(EmitError::BufferTooSmall {
                needed: HEADER_LEN,
                available,
            });
        };
        let first = (6u32 << 28) | (u32::from(self.traffic_class) << 20) | self.flow_label;
        h[field::VERSION_TC_FLOW].copy_from_slice(&first.to_be_bytes());
        h[field::PAYLOAD_LENGTH].copy_from_slice(&(self.payload_len as u16).to_be_bytes());
        h[field::NEXT_HEADER] = self.next_header;
        h[field::HOP_LIMIT] = self.hop_limit;
        h[field::SOURCE].copy_from_slice(&self.source.octets());
        h[field::DESTINATION].copy_from_slice(&self.destination.octets());
        Ok(())
    }
}

/// The solicited-node multicast address of `addr` (RFC 4291 §2.7.1): ff02::1:ff00:0/104 with
/// the low 24 bits of `addr`, where a Neighbor Solicitation for `addr` is sent.
#[inline]
pub const fn solicited_node(addr: Ipv6Addr) -> Ipv6Addr {
    let o = addr.octets();
    Ipv6Addr::new(
        0xff02,
        0,
        0,
        0,
        0,
        1,
        0xff00 | o[13] as u16,
        ((o[14] as u16) << 8) | o[15] as u16,
    )
}

/// Whether `addr` is a solicited-node multicast address (in ff02::1:ff00:0/104).
#[inline]
pub const fn is_solicited_node(addr: Ipv6Addr) -> bool {
    let s = addr.segments();
    s[0] == 0xff02
        && s[1] == 0
        && s[2] == 0
        && s[3] == 0
        && s[4] == 0
        && s[5] == 1
        && s[6] >> 8 == 0xff
}

/// The all-nodes multicast address ff02::1 (RFC 4291 §2.7.1), where an unsolicited Neighbor
/// Advertisement goes.
pub const ALL_NODES: Ipv6Addr = Ipv6Addr::new(0xff02, 0, 0, 0, 0, 0, 0, 1);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn solicited_node_addresses() {
        // RFC 4291 §2.7.1's example: 4037::01:800:200E:8C6C -> FF02::1:FF0E:8C6C.
        let a: Ipv6Addr = "4037::1:800:200e:8c6c".parse().unwrap();
        let s = solicited_node(a);
        assert_eq!(s, "ff02::1:ff0e:8c6c".parse::<Ipv6Addr>().unwrap());
        assert!(is_solicited_node(s));
        assert!(!is_solicited_node(ALL_NODES));
        assert!(!is_solicited_node(a));
    }

    #[test]
    fn the_first_word_holds_version_class_and_label() {
        let repr = Ipv6Repr {
            traffic_class: 0xb8,
            flow_label: 0xabcde,
            ..Ipv6Repr::udp(Ipv6Addr::LOCALHOST, Ipv6Addr::LOCALHOST)
        };
        let mut b = [0u8; 40];
        repr.emit(&mut b).unwrap();
        assert_eq!(b[..4], [0x6b, 0x8a, 0xbc, 0xde]);
        let p = Ipv6Packet::new_checked(&b[..]).unwrap();
        assert_eq!((p.traffic_class(), p.flow_label()), (0xb8, 0xabcde));
        assert_eq!(Ipv6Repr::parse(&p), Ok(repr));
    }
}
