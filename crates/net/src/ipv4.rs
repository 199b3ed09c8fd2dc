//! IPv4 (RFC 791): a checked view and a representation of the header.

use std::net::Ipv4Addr;

use crate::checksum;
use crate::error::{EmitError, Layer, ParseError};
pub use crate::ip_protocol::{PROTOCOL_ICMP, PROTOCOL_UDP};

/// Field offsets of the IPv4 header.
pub mod field {
    use core::ops::Range;
    /// Version (high nibble) and IHL (low nibble, in 4-octet units).
    pub const VERSION_IHL: usize = 0;
    /// DSCP (high 6 bits) and ECN (low 2 bits), formerly the type of service.
    pub(crate) const DSCP_ECN: usize = 1;
    /// Total length of the datagram in octets.
    pub const TOTAL_LENGTH: Range<usize> = 2..4;
    /// Identification.
    pub(crate) const IDENTIFICATION: Range<usize> = 4..6;
    /// Flags (reserved, DF, MF) and fragment offset (13 bits, 8-octet units).
    pub const FLAGS_FRAGMENT_OFFSET: Range<usize> = 6..8;
    /// Time to live.
    pub const TTL: usize = 8;
    /// Protocol of the payload.
    pub const PROTOCOL: usize = 9;
    /// Header checksum.
    pub const CHECKSUM: Range<usize> = 10..12;
    /// Source address.
    pub const SOURCE: Range<usize> = 12..16;
    /// Destination address.
    pub const DESTINATION: Range<usize> = 16..20;
}

/// Length of a header without options.
pub const MIN_HEADER_LEN: usize = 20;
/// The largest datagram the total length field can describe.
pub const MAX_TOTAL_LEN: usize = 65_535;
/// Time to live of the headers [`Ipv4Repr::udp`] makes (Linux's default).
pub const DEFAULT_TTL: u8 = 64;

const FLAG_DF: u16 = 0x4000;
const FLAG_MF: u16 = 0x2000;
const FRAGMENT_OFFSET_MASK: u16 = 0x1fff;

/// A checked view of an IPv4 datagram. `new_checked` guarantees a version of 4, a whole
/// header (options included) and a total length within the buffer, so that the accessors
/// cannot fail; bytes after the total length (Ethernet padding) are not part of the datagram.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Ipv4Packet<T> {
    buffer: T,
}

impl<T: AsRef<[u8]>> Ipv4Packet<T> {
    /// Wraps `buffer` after checking version, IHL and total length against it.
    #[inline]
    pub fn new_checked(buffer: T) -> Result<Self, ParseError> {
        check(buffer.as_ref())?;
        Ok(Ipv4Packet { buffer })
    }

    /// Wraps a buffer that [`check`] accepted: the accessors index without checking and
    /// panic on a buffer that was not (decoders call [`new_checked`](Self::new_checked)).
    #[inline]
    pub fn new_unchecked(buffer: T) -> Self {
        Ipv4Packet { buffer }
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

    /// Version (always 4 in a checked view).
    #[inline]
    pub fn version(&self) -> u8 {
        self.bytes()[field::VERSION_IHL] >> 4
    }

    /// Header length in octets, options included (IHL × 4).
    #[inline]
    pub fn header_len(&self) -> usize {
        usize::from(self.bytes()[field::VERSION_IHL] & 0x0f) * 4
    }

    /// DSCP (RFC 2474).
    #[inline]
    pub fn dscp(&self) -> u8 {
        self.bytes()[field::DSCP_ECN] >> 2
    }

    /// ECN (RFC 3168).
    #[inline]
    pub fn ecn(&self) -> u8 {
        self.bytes()[field::DSCP_ECN] & 0x03
    }

    /// Total length of the datagram in octets.
    #[inline]
    pub fn total_len(&self) -> usize {
        usize::from(self.u16_at(field::TOTAL_LENGTH.start))
    }

    /// Identification.
    #[inline]
    pub fn identification(&self) -> u16 {
        self.u16_at(field::IDENTIFICATION.start)
    }

    /// The DF (don't fragment) flag.
    #[inline]
    pub fn dont_fragment(&self) -> bool {
        self.u16_at(field::FLAGS_FRAGMENT_OFFSET.start) & FLAG_DF != 0
    }

    /// The MF (more fragments) flag.
    #[inline]
    pub fn more_fragments(&self) -> bool {
        self.u16_at(field::FLAGS_FRAGMENT_OFFSET.start) & FLAG_MF != 0
    }

    /// Fragment offset in 8-octet units.
    #[inline]
    pub fn fragment_offset(&self) -> u16 {
        self.u16_at(field::FLAGS_FRAGMENT_OFFSET.start) & FRAGMENT_OFFSET_MASK
    }

    /// Whether this datagram is a fragment (MF set or a non-zero fragment offset).
    #[inline]
    pub fn is_fragment(&self) -> bool {
        self.u16_at(field::FLAGS_FRAGMENT_OFFSET.start) & (FLAG_MF | FRAGMENT_OFFSET_MASK) != 0
    }

    /// Time to live.
    #[inline]
    pub fn ttl(&self) -> u8 {
        self.bytes()[field::TTL]
    }

    /// Protocol of the payload.
    #[inline]
    pub fn protocol(&self) -> u8 {
        self.bytes()[field::PROTOCOL]
    }

    /// Header checksum as carried.
    #[inline]
    pub fn checksum(&self) -> u16 {
        self.u16_at(field::CHECKSUM.start)
    }

    /// Source address.
    #[inline]
    pub fn source(&self) -> Ipv4Addr {
        let b = &self.bytes()[field::SOURCE];
        Ipv4Addr::new(b[0], b[1], b[2], b[3])
    }

    /// Destination address.
    #[inline]
    pub fn destination(&self) -> Ipv4Addr {
        let b = &self.bytes()[field::DESTINATION];
        Ipv4Addr::new(b[0], b[1], b[2], b[3])
    }

    /// The header's options (empty when IHL is 5).
    #[inline]
    pub fn options(&self) -> &[u8] {
        &self.bytes()[MIN_HEADER_LEN..self.header_len()]
    }

    /// The whole header, options included.
    #[inline]
    pub fn header(&self) -> &[u8] {
        &self.bytes()[..self.header_len()]
    }

    /// Whether the header checksum is right.
    #[inline]
    pub fn verify_checksum(&self) -> bool {
        checksum::sum(self.header()) == 0xffff
    }

    /// The payload: from the end of the header to the total length.
    #[inline]
    pub fn payload(&self) -> &[u8] {
        &self.bytes()[self.header_len()..self.total_len()]
    }
}

impl<'a> Ipv4Packet<&'a [u8]> {
    /// The payload with the lifetime of the underlying buffer.
    #[inline]
    pub fn payload_slice(&self) -> &'a [u8] {
        let (start, end) = (self.header_len(), self.total_len());
        &self.buffer[start..end]
    }
}

impl<T: AsRef<[u8]> + AsMut<[u8]>> Ipv4Packet<T> {
    #[inline]
    fn bytes_mut(&mut self) -> &mut [u8] {
        self.buffer.as_mut()
    }

    /// Sets the time to live (the checksum is not updated).
    #[inline]
    pub fn set_ttl(&mut self, ttl: u8) {
        self.bytes_mut()[field::TTL] = ttl;
    }

    /// Sets the identification (the checksum is not updated).
    #[inline]
    pub fn set_identification(&mut self, id: u16) {
        self.bytes_mut()[field::IDENTIFICATION].copy_from_slice(&id.to_be_bytes());
    }

    /// Sets the source address (the checksum is not updated).
    #[inline]
    pub fn set_source(&mut self, addr: Ipv4Addr) {
        self.bytes_mut()[field::SOURCE].copy_from_slice(&addr.octets());
    }

    /// Sets the destination address (the checksum is not updated).
    #[inline]
    pub fn set_destination(&mut self, addr: Ipv4Addr) {
        self.bytes_mut()[field::DESTINATION].copy_from_slice(&addr.octets());
    }

    /// Sets the header checksum field.
    #[inline]
    pub(crate) fn set_checksum(&mut self, value: u16) {
        self.bytes_mut()[field::CHECKSUM].copy_from_slice(&value.to_be_bytes());
    }

    /// Recomputes the header checksum.
    #[inline]
    pub fn fill_checksum(&mut self) {
        let c = checksum::ipv4_header(self.header());
        self.set_checksum(c);
    }

    /// The payload, mutably.
    #[inline]
    pub fn payload_mut(&mut self) -> &mut [u8] {
        let (start, end) = (self.header_len(), self.total_len());
        &mut self.bytes_mut()[start..end]
    }
}

/// The checks of [`Ipv4Packet::new_checked`]; returns the header length and the total length.
#[inline]
pub fn check(b: &[u8]) -> Result<(usize, usize), ParseError> {
    let len = b.len();
    if len < MIN_HEADER_LEN {
        return Err(ParseError::Truncated {
            layer: Layer::Ipv4,
            offset: 0,
            needed: MIN_HEADER_LEN,
            available: len,
        });
    }
    let version = b[field::VERSION_IHL] >> 4;
    if version != 4 {
        return Err(ParseError::UnsupportedVersion {
            layer: Layer::Ipv4,
            offset: field::VERSION_IHL,
            version,
        });
    }
    let header_len = usize::from(b[field::VERSION_IHL] & 0x0f) * 4;
    if header_len < MIN_HEADER_LEN {
        return Err(ParseError::LengthTooSmall {
            layer: Layer::Ipv4,
            offset: field::VERSION_IHL,
            length: header_len,
            minimum: MIN_HEADER_LEN,
        });
    }
    if header_len > len {
        return Err(ParseError::LengthExceedsBuffer {
            layer: Layer::Ipv4,
            offset: field::VERSION_IHL,
            length: header_len,
            available: len,
        });
    }
    let total = usize::from(u16::from_be_bytes([b[2], b[3]]));
    if total < header_len {
        return Err(ParseError::LengthTooSmall {
            layer: Layer::Ipv4,
            offset: field::TOTAL_LENGTH.start,
            length: total,
            minimum: header_len,
        });
    }
    if total > len {
        return Err(ParseError::LengthExceedsBuffer {
            layer: Layer::Ipv4,
            offset: field::TOTAL_LENGTH.start,
            length: total,
            available: len,
        });
    }
    Ok((header_len, total))
}

/// The fields of an IPv4 header without options, as the emitters of this crate write it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Ipv4Repr {
    /// Source address.
    pub source: Ipv4Addr,
    /// Destination address.
    pub destination: Ipv4Addr,
    /// Protocol of the payload.
    pub protocol: u8,
    /// Payload length in octets (total length minus the header).
    pub payload_len: usize,
    /// Time to live.
    pub ttl: u8,
    /// DSCP (6 bits) and ECN (2 bits), octet 1 of the header.
    pub dscp_ecn: u8,
    /// Identification.
    pub identification: u16,
    /// The DF flag.
    pub dont_fragment: bool,
}

impl Ipv4Repr {
    /// The header of a UDP datagram from `source` to `destination`: TTL [`DEFAULT_TTL`], no
    /// DSCP/ECN, identification 0, DF clear, and payload length 0 until an emitter that knows
    /// the payload sets it (as `upfbench_gtpu::emit_ipv4_udp` does).
    #[inline]
    pub const fn udp(source: Ipv4Addr, destination: Ipv4Addr) -> Ipv4Repr {
        Ipv4Repr {
            source,
            destination,
            protocol: PROTOCOL_UDP,
            payload_len: 0,
            ttl: DEFAULT_TTL,
            dscp_ecn: 0,
            identification: 0,
            dont_fragment: false,
        }
    }

    /// Reads a checked datagram's header: verifies the checksum and refuses fragments. Options
    /// are skipped (a re-emitted header has none).
    #[inline]
    pub fn parse<T: AsRef<[u8]>>(packet: &Ipv4Packet<T>) -> Result<Self, ParseError> {
        if packet.is_fragment() {
            return Err(ParseError::Fragmented {
                offset: 0,
                fragment_offset: packet.fragment_offset(),
                more_fragments: packet.more_fragments(),
            });
        }
        if !packet.verify_checksum() {
            return Err(ParseError::BadChecksum {
                layer: Layer::Ipv4,
                offset: field::CHECKSUM.start,
                found: packet.checksum(),
                computed: checksum::ipv4_header(packet.header()),
            });
        }
        Ok(Ipv4Repr {
            source: packet.source(),
            destination: packet.destination(),
            protocol: packet.protocol(),
            payload_len: packet.total_len() - packet.header_len(),
            ttl: packet.ttl(),
            dscp_ecn: packet.bytes()[field::DSCP_ECN],
            identification: packet.identification(),
            dont_fragment: packet.dont_fragment(),
        })
    }

    /// Bytes of the header [`emit`](Self::emit) writes.
    #[inline]
    pub const fn buffer_len(&self) -> usize {
        MIN_HEADER_LEN
    }

    /// Writes the 20-octet header, checksum included, into the start of `buf`.
    #[inline]
    pub fn emit(&self, buf: &mut [u8]) -> Result<(), EmitError> {
        let total = MIN_HEADER_LEN + self.payload_len;
        if total > MAX_TOTAL_LEN {
            return Err(EmitError::PayloadTooLong {
                layer: Layer::Ipv4,
                len: self.payload_len,
                max: MAX_TOTAL_LEN - MIN_HEADER_LEN,
            });
        }
        let available = buf.len();
        let Some(h) = buf.get_mut(..MIN_HEADER_LEN) else {
            return Err(EmitError::BufferTooSmall {
                needed: MIN_HEADER_LEN,
                available,
            });
        };
        h[field::VERSION_IHL] = 0x45;
        h[field::DSCP_ECN] = self.dscp_ecn;
        h[field::TOTAL_LENGTH].copy_from_slice(&(total as u16).to_be_bytes());
        h[field::IDENTIFICATION].copy_from_slice(&self.identification.to_be_bytes());
        let flags = if self.dont_fragment { FLAG_DF } else { 0 };
        h[field::FLAGS_FRAGMENT_OFFSET].copy_from_slice(&flags.to_be_bytes());
        h[field::TTL] = self.ttl;
        h[field::PROTOCOL] = self.protocol;
        h[field::SOURCE].copy_from_slice(&self.source.octets());
        h[field::DESTINATION].copy_from_slice(&self.destination.octets());
        let c = checksum::ipv4_header(h);
        h[field::CHECKSUM].copy_from_slice(&c.to_be_bytes());
        Ok(())
    }
}
