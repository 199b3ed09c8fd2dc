//! UDP (RFC 768): a checked view and a representation of the header, over IPv4 and over IPv6
//! (RFC 8200 §8.1: the same header, a pseudo header of its own, and a checksum that is not
//! optional).

use std::net::{Ipv4Addr, Ipv6Addr};

use crate::checksum;
use crate::error::{EmitError, Layer, ParseError};

/// Field offsets of the UDP header.
pub mod field {
    use core::ops::Range;
    /// Source port.
    pub const SOURCE_PORT: Range<usize> = 0..2;
    /// Destination port.
    pub const DESTINATION_PORT: Range<usize> = 2..4;
    /// Length of header and payload in octets.
    pub const LENGTH: Range<usize> = 4..6;
    /// Checksum (0: none sent, allowed over IPv4 only).
    pub const CHECKSUM: Range<usize> = 6..8;
}

/// Length of the UDP header.
pub const HEADER_LEN: usize = 8;
/// The largest payload the length field can describe.
pub(crate) const MAX_PAYLOAD_LEN: usize = 65_535 - HEADER_LEN;

/// A checked view of a UDP datagram. `new_checked` guarantees a whole header and a length field
/// between 8 and the buffer length.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct UdpPacket<T> {
    buffer: T,
}

impl<T: AsRef<[u8]>> UdpPacket<T> {
    /// Wraps `buffer` after checking the header and the length field against it.
    #[inline]
    pub fn new_checked(buffer: T) -> Result<Self, ParseError> {
        check(buffer.as_ref())?;
        Ok(UdpPacket { buffer })
    }

    /// Wraps a buffer that [`check`] accepted: the accessors index without checking and
    /// panic on a buffer that was not (decoders call [`new_checked`](Self::new_checked)).
    #[inline]
    pub fn new_unchecked(buffer: T) -> Self {
        UdpPacket { buffer }
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
    fn u16_at(&self, at: usize) -> u16 {
        let b = self.bytes();
        u16::from_be_bytes([b[at], b[at + 1]])
    }

    /// Source port.
    #[inline]
    pub fn source_port(&self) -> u16 {
        self.u16_at(field::SOURCE_PORT.start)
    }

    /// Destination port.
    #[inline]
    pub fn destination_port(&self) -> u16 {
        self.u16_at(field::DESTINATION_PORT.start)
    }

    /// Length field: header and payload in octets.
    #[inline]
    pub fn len(&self) -> usize {
        usize::from(self.u16_at(field::LENGTH.start))
    }

    /// Whether the payload is empty.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.len() == HEADER_LEN
    }

    /// Checksum as carried (0: none).
    #[inline]
    pub fn checksum(&self) -> u16 {
        self.u16_at(field::CHECKSUM.start)
    }

    /// The header and payload, as far as the length field says.
    #[inline]
    pub fn segment(&self) -> &[u8] {
        &self.bytes()[..self.len()]
    }

    /// Whether the checksum is right for a datagram between `src` and `dst`; a zero checksum
    /// (none sent) passes.
    #[inline]
    pub fn verify_checksum(&self, src: Ipv4Addr, dst: Ipv4Addr) -> bool {
        self.checksum() == 0 || checksum::udp_ipv4(src, dst, self.segment()) == self.checksum()
    }

    /// Whether the checksum is right for a datagram between `src` and `dst` over IPv6; a zero
    /// checksum fails (RFC 8200 §8.1).
    #[inline]
    pub fn verify_checksum_ipv6(&self, src: &Ipv6Addr, dst: &Ipv6Addr) -> bool {
        self.checksum() != 0 && checksum::udp_ipv6(src, dst, self.segment()) == self.checksum()
    }

    /// The payload.
    #[inline]
    pub fn payload(&self) -> &[u8] {
        &self.bytes()[HEADER_LEN..self.len()]
    }
}

impl<'a> UdpPacket<&'a [u8]> {
    /// The payload with the lifetime of the underlying buffer.
    #[inline]
    pub fn payload_slice(&self) -> &'a [u8] {
        let end = self.len();
        &self.buffer[HEADER_LEN..end]
    }
}

impl<T: AsRef<[u8]> + AsMut<[u8]>> UdpPacket<T> {
    #[inline]
    fn bytes_mut(&mut self) -> &mut [u8] {
        self.buffer.as_mut()
    }

    /// Sets the source port (the checksum is not updated).
    #[inline]
    pub fn set_source_port(&mut self, port: u16) {
        self.bytes_mut()[field::SOURCE_PORT].copy_from_slice(&port.to_be_bytes());
    }

    /// Sets the destination port (the checksum is not updated).
    #[inline]
    pub fn set_destination_port(&mut self, port: u16) {
        self.bytes_mut()[field::DESTINATION_PORT].copy_from_slice(&port.to_be_bytes());
    }

    /// Sets the checksum field.
    #[inline]
    pub(crate) fn set_checksum(&mut self, value: u16) {
        self.bytes_mut()[field::CHECKSUM].copy_from_slice(&value.to_be_bytes());
    }

    /// Computes and writes the checksum for a datagram between `src` and `dst`.
    #[inline]
    pub fn fill_checksum(&mut self, src: Ipv4Addr, dst: Ipv4Addr) {
        let c = checksum::udp_ipv4(src, dst, self.segment());
        self.set_checksum(c);
    }

    /// Computes and writes the checksum for a datagram between `src` and `dst` over IPv6.
    #[inline]
    pub fn fill_checksum_ipv6(&mut self, src: &Ipv6Addr, dst: &Ipv6Addr) {
        let c = checksum::udp_ipv6(src, dst, self.segment());
        self.set_checksum(c);
    }

    /// The payload, mutably.
    #[inline]
    pub fn payload_mut(&mut self) -> &mut [u8] {
        let end = self.len();
        &mut self.bytes_mut()[HEADER_LEN..end]
    }
}

/// The checks of [`UdpPacket::new_checked`]; returns the length field.
#[inline]
pub fn check(b: &[u8]) -> Result<usize, ParseError> {
    if b.len() < HEADER_LEN {
        return Err(ParseError::Truncated {
            layer: Layer::Udp,
            offset: 0,
            needed: HEADER_LEN,
            available: b.len(),
        });
    }
    let length = usize::from(u16::from_be_bytes([b[4], b[5]]));
    if length < HEADER_LEN {
        return Err(ParseError::LengthTooSmall {
            layer: Layer::Udp,
            offset: field::LENGTH.start,
            length,
            minimum: HEADER_LEN,
        });
    }
    if length > b.len() {
        return Err(ParseError::LengthExceedsBuffer {
            layer: Layer::Udp,
            offset: field::LENGTH.start,
            length,
            available: b.len(),
        });
    }
    Ok(length)
}

/// The fields of a UDP header that are not derived from the payload.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct UdpRepr {
    /// Source port.
    pub source_port: u16,
    /// Destination port.
    pub destination_port: u16,
}

impl UdpRepr {
    /// Reads a checked datagram's header; verifies a non-zero checksum with the pseudo header
    /// of `src` and `dst`.
    #[inline]
    pub fn parse<T: AsRef<[u8]>>(
        packet: &UdpPacket<T>,
        src: Ipv4Addr,
        dst: Ipv4Addr,
    ) -> Result<Self, ParseError> {
        if !packet.verify_checksum(src, dst) {
            return Err(ParseError::BadChecksum {
                layer: Layer::Udp,
                offset: field::CHECKSUM.start,
                found: packet.checksum(),
                computed: checksum::udp_ipv4(src, dst, packet.segment()),
            });
        }
        Ok(UdpRepr {
            source_port: packet.source_port(),
            destination_port: packet.destination_port(),
        })
    }

    /// Reads a checked datagram's header carried over IPv6 between `src` and `dst`: the
    /// checksum must be there ([`ParseError::MissingUdpChecksum`] if 0) and right.
    #[inline]
    pub fn parse_ipv6<T: AsRef<[u8]>>(
        packet: &UdpPacket<T>,
        src: &Ipv6Addr,
        dst: &Ipv6Addr,
    ) -> Result<Self, ParseError> {
        if packet.checksum() == 0 {
            return Err(ParseError::MissingUdpChecksum {
                offset: field::CHECKSUM.start,
            });
        }
        if !packet.verify_checksum_ipv6(src, dst) {
            return Err(ParseError::BadChecksum {
                layer: Layer::Udp,
                offset: field::CHECKSUM.start,
                found: packet.checksum(),
                computed: checksum::udp_ipv6(src, dst, packet.segment()),
            });
        }
        Ok(UdpRepr {
            source_port: packet.source_port(),
            destination_port: packet.destination_port(),
        })
    }

    /// Bytes of the header [`emit`](Self::emit) writes.
    #[inline]
    pub const fn buffer_len(&self) -> usize {
        HEADER_LEN
    }

    /// Writes the header for a payload of `payload_len` bytes into the start of `buf`, with a
    /// zero checksum; [`UdpPacket::fill_checksum`] (over IPv6
    /// [`fill_checksum_ipv6`](UdpPacket::fill_checksum_ipv6), which is not optional there)
    /// computes one once the payload is in place.
    #[inline]
    pub fn emit(&self, buf: &mut [u8], payload_len: usize) -> Result<(), EmitError> {
        if payload_len > MAX_PAYLOAD_LEN {
            return Err(EmitError::PayloadTooLong {
                layer: Layer::Udp,
                len: payload_len,
                max: MAX_PAYLOAD_LEN,
            });
        }
        let available = buf.len();
        let Some(h) = buf.get_mut(..HEADER_LEN) else {
            return Err(EmitError::BufferTooSmall {
                needed: HEADER_LEN,
                available,
            });
        };
        h[field::SOURCE_PORT].copy_from_slice(&self.source_port.to_be_bytes());
        h[field::DESTINATION_PORT].copy_from_slice(&self.destination_port.to_be_bytes());
        let len = (HEADER_LEN + payload_len) as u16;
        h[field::LENGTH].copy_from_slice(&len.to_be_bytes());
        h[field::CHECKSUM].copy_from_slice(&[0, 0]);
        Ok(())
    }
}
