//! ICMPv6 (RFC 4443): a checked view and a representation of echo request and reply and of
//! Neighbor Solicitation and Advertisement ([`ndp`](crate::ndp), RFC 4861 §4.3, §4.4), with every
//! other message kept as its type, code, rest of header and data.
//!
//! The checksum covers the IPv6 pseudo header (RFC 4443 §2.3, RFC 8200 §8.1), so parsing and
//! emitting take the packet's source and destination addresses.

use std::net::Ipv6Addr;

use crate::checksum;
use crate::error::{EmitError, Layer, ParseError};
use crate::ndp::{NeighborAdvert, NeighborSolicit};

/// Field offsets of the ICMPv6 header (RFC 4443 §2.1).
pub mod field {
    use core::ops::Range;
    /// Type.
    pub const TYPE: usize = 0;
    /// Code.
    pub const CODE: usize = 1;
    /// Checksum over the pseudo header and the whole message.
    pub const CHECKSUM: Range<usize> = 2..4;
    /// The four octets after the checksum, whose meaning depends on the type.
    pub const REST_OF_HEADER: Range<usize> = 4..8;
    /// Echo identifier (echo request and reply, RFC 4443 §4).
    pub const IDENTIFIER: Range<usize> = 4..6;
    /// Echo sequence number (echo request and reply).
    pub const SEQUENCE: Range<usize> = 6..8;
}

/// Length of the ICMPv6 header: type, code, checksum and the rest of the header.
pub const HEADER_LEN: usize = 8;

/// ICMPv6 message types (RFC 4443 §2.1, RFC 4861 §4; IANA ICMPv6 parameters).
pub mod message_type {
    /// Destination Unreachable.
    pub const DESTINATION_UNREACHABLE: u8 = 1;
    /// Packet Too Big.
    pub const PACKET_TOO_BIG: u8 = 2;
    /// Time Exceeded.
    pub const TIME_EXCEEDED: u8 = 3;
    /// Parameter Problem.
    pub const PARAMETER_PROBLEM: u8 = 4;
    /// Echo Request.
    pub const ECHO_REQUEST: u8 = 128;
    /// Echo Reply.
    pub const ECHO_REPLY: u8 = 129;
    /// Router Solicitation.
    pub const ROUTER_SOLICIT: u8 = 133;
    /// Router Advertisement.
    pub const ROUTER_ADVERT: u8 = 134;
    /// Neighbor Solicitation.
    pub const NEIGHBOR_SOLICIT: u8 = 135;
    /// Neighbor Advertisement.
    pub const NEIGHBOR_ADVERT: u8 = 136;
}

/// A checked view of an ICMPv6 message: the IPv6 payload. `new_checked` guarantees a whole
/// header; the checksum is verified by [`Icmpv6Repr::parse`] or
/// [`verify_checksum`](Self::verify_checksum).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Icmpv6Packet<T> {
    buffer: T,
}

impl<T: AsRef<[u8]>> Icmpv6Packet<T> {
    /// Wraps `buffer` after checking that it holds a whole header.
    #[inline]
    pub fn new_checked(buffer: T) -> Result<Self, ParseError> {
        let len = buffer.as_ref().len();
        if len < HEADER_LEN {
            return Err(ParseError::Truncated {
                layer: Layer::Icmpv6,
                offset: 0,
                needed: HEADER_LEN,
                available: len,
            });
        }
        Ok(Icmpv6Packet { buffer })
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

    /// Message type.
    #[inline]
    pub fn msg_type(&self) -> u8 {
        self.bytes()[field::TYPE]
    }

    /// Code.
    #[inline]
    pub fn code(&self) -> u8 {
        self.bytes()[field::CODE]
    }

    /// Checksum as carried.
    #[inline]
    pub fn checksum(&self) -> u16 {
        self.u16_at(field::CHECKSUM.start)
    }

    /// Echo identifier (meaningful in echo messages).
    #[inline]
    pub fn identifier(&self) -> u16 {
        self.u16_at(field::IDENTIFIER.start)
    }

    /// Echo sequence number (meaningful in echo messages).
    #[inline]
    pub fn sequence(&self) -> u16 {
        self.u16_at(field::SEQUENCE.start)
    }

    /// The four octets after the checksum.
    #[inline]
    pub fn rest_of_header(&self) -> [u8; 4] {
        let b = &self.bytes()[field::REST_OF_HEADER];
        [b[0], b[1], b[2], b[3]]
    }

    /// Everything after the header.
    #[inline]
    pub fn data(&self) -> &[u8] {
        &self.bytes()[HEADER_LEN..]
    }

    /// Whether the checksum over the pseudo header of `src` and `dst` and the whole message is
    /// right.
    #[inline]
    pub fn verify_checksum(&self, src: &Ipv6Addr, dst: &Ipv6Addr) -> bool {
        let len = u32::try_from(self.bytes().len()).unwrap_or(u32::MAX);
        let pseudo =
            checksum::ipv6_pseudo_header(src, dst, crate::ip_protocol::PROTOCOL_ICMPV6, len);
        checksum::add(pseudo, checksum::sum(self.bytes())) == 0xffff
    }
}

impl<T: AsRef<[u8]> + AsMut<[u8]>> Icmpv6Packet<T> {
    /// Computes and writes the checksum over the pseudo header of `src` and `dst` and the
    /// whole message.
    #[inline]
    pub fn fill_checksum(&mut self, src: &Ipv6Addr, dst: &Ipv6Addr) {
        let c = checksum::icmpv6(src, dst, self.bytes());
        self.buffer.as_mut()[field::CHECKSUM].copy_from_slice(&c.to_be_bytes());
    }
}

/// An ICMPv6 message.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Icmpv6Repr<'a> {
    /// Echo Request (type 128, code 0, RFC 4443 §4.1): answered by an echo reply with the same
    /// identifier, sequence number and data.
    EchoRequest {
        /// Identifier.
        identifier: u16,
        /// Sequence number.
        sequence: u16,
        /// Data.
        data: &'a [u8],
    },
    /// Echo Reply (type 129, code 0, RFC 4443 §4.2).
    EchoReply {
        /// Identifier.
        identifier: u16,
        /// Sequence number.
        sequence: u16,
        /// Data.
        data: &'a [u8],
    },
    /// Neighbor Solicitation (type 135, RFC 4861 §4.3).
    NeighborSolicit(NeighborSolicit),
    /// Neighbor Advertisement (type 136, RFC 4861 §4.4).
    NeighborAdvert(NeighborAdvert),
    /// Any other message, echo messages with a non-zero code included.
    Other {
        /// Type.
        msg_type: u8,
        /// Code.
        code: u8,
        /// The four octets after the checksum.
        rest_of_header: [u8; 4],
        /// Everything after the header.
        data: &'a [u8],
    },
}

impl<'a> Icmpv6Repr<'a> {
    /// Reads a checked message carried from `src` to `dst` after verifying its checksum;
    /// Neighbor Solicitations and Advertisements are checked as RFC 4861 §7.1 says, except for
    /// the IPv6 hop limit of 255, which the caller checks ([`ndp::HOP_LIMIT`](crate::ndp::HOP_LIMIT)).
    #[inline]
    pub fn parse(
        packet: &Icmpv6Packet<&'a [u8]>,
        src: &Ipv6Addr,
        dst: &Ipv6Addr,
    ) -> Result<Self, ParseError> {
        let b = packet.buffer;
        if !packet.verify_checksum(src, dst) {
            return Err(ParseError::BadChecksum {
                layer: Layer::Icmpv6,
                offset: field::CHECKSUM.start,
                found: packet.checksum(),
                computed: checksum::icmpv6(src, dst, b),
            });
        }
        let data = &b[HEADER_LEN..];
        let (identifier, sequence) = (packet.identifier(), packet.sequence());
        Ok(match (packet.msg_type(), packet.code()) {
            (message_type::ECHO_REQUEST, 0) => Icmpv6Repr::EchoRequest {
                identifier,
                sequence,
                data,
            },
            (message_type::ECHO_REPLY, 0) => Icmpv6Repr::EchoReply {
                identifier,
                sequence,
                data,
            },
            (message_type::NEIGHBOR_SOLICIT, _) => {
                Icmpv6Repr::NeighborSolicit(NeighborSolicit::parse(b, src, dst)?)
            }
            (message_type::NEIGHBOR_ADVERT, _) => {
                Icmpv6Repr::NeighborAdvert(NeighborAdvert::parse(b, dst)?)
            }
            (msg_type, code) => Icmpv6Repr::Other {
                msg_type,
                code,
                rest_of_header: packet.rest_of_header(),
                data,
            },
        })
    }

    /// Bytes [`emit`](Self::emit) writes: the header and the data or the options.
    #[inline]
    pub const fn buffer_len(&self) -> usize {
        match self {
            Icmpv6Repr::EchoRequest { data, .. }
            | Icmpv6Repr::EchoReply { data, .. }
            | Icmpv6Repr::Other { data, .. } => HEADER_LEN + data.len(),
            Icmpv6Repr::NeighborSolicit(ns) => ns.buffer_len(),
            Icmpv6Repr::NeighborAdvert(na) => na.buffer_len(),
        }
    }

    /// Writes the message into the first [`buffer_len`](Self::buffer_len) bytes of `buf`, with
    /// its checksum over the pseudo header of `src` and `dst`.
    #[inline]
    pub fn emit(&self, buf: &mut [u8], src: &Ipv6Addr, dst: &Ipv6Addr) -> Result<(), EmitError> {
        let needed = self.buffer_len();
        let available = buf.len();
        let Some(m) = buf.get_mut(..needed) else {
            return Err(EmitError::BufferTooSmall { needed, available });
        };
        m[field::CHECKSUM].fill(0);
        match *self {
            Icmpv6Repr::EchoRequest {
                identifier,
                sequence,
                data,
            } => emit_echo(m, message_type::ECHO_REQUEST, identifier, sequence, data),
            Icmpv6Repr::EchoReply {
                identifier,
                sequence,
                data,
            } => emit_echo(m, message_type::ECHO_REPLY, identifier, sequence, data),
            Icmpv6Repr::NeighborSolicit(ns) => ns.emit_message(m),
            Icmpv6Repr::NeighborAdvert(na) => na.emit_message(m),
            Icmpv6Repr::Other {
                msg_type,
                code,
                rest_of_header,
                data,
            } => {
                m[field::TYPE] = msg_type;
                m[field::CODE] = code;
                m[field::REST_OF_HEADER].copy_from_slice(&rest_of_header);
                m[HEADER_LEN..].copy_from_slice(data);
            }
        }
        Icmpv6Packet { buffer: m }.fill_checksum(src, dst);
        Ok(())
    }
}

fn emit_echo(m: &mut [u8], msg_type: u8, identifier: u16, sequence: u16, data: &[u8]) {
    m[field::TYPE] = msg_type;
    m[field::CODE] = 0;
    m[field::IDENTIFIER].copy_from_slice(&identifier.to_be_bytes());
    m[field::SEQUENCE].copy_from_slice(&sequence.to_be_bytes());
    m[HEADER_LEN..].copy_from_slice(data);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_echo_reply_answers_a_request() {
        let (a, b) = (
            "2001:db8::1".parse::<Ipv6Addr>().unwrap(),
            "2001:db8::2".parse::<Ipv6Addr>().unwrap(),
        );
        let req = Icmpv6Repr::EchoRequest {
            identifier: 7,
            sequence: 9,
            data: b"ping",
        };
        let mut m = [0u8; 12];
        req.emit(&mut m, &a, &b).unwrap();
        let p = Icmpv6Packet::new_checked(&m[..]).unwrap();
        assert!(p.verify_checksum(&a, &b));
        // The pseudo header counts: from another address it does not verify.
        assert!(!p.verify_checksum(&Ipv6Addr::LOCALHOST, &b));
        assert_eq!(Icmpv6Repr::parse(&p, &a, &b), Ok(req));
    }
}
