//! ICMP for IPv4 (RFC 792): a checked view and a representation of echo request and reply, with
//! every other message kept as its type, code, rest of header and data.

use crate::checksum;
use crate::error::{EmitError, Layer, ParseError};

/// Field offsets of the ICMPv4 header.
pub mod field {
    use core::ops::Range;
    /// Type.
    pub const TYPE: usize = 0;
    /// Code.
    pub(crate) const CODE: usize = 1;
    /// Checksum over the whole message.
    pub const CHECKSUM: Range<usize> = 2..4;
    /// The four octets after the checksum, whose meaning depends on the type.
    pub(crate) const REST_OF_HEADER: Range<usize> = 4..8;
    /// Echo identifier (echo request and reply).
    pub(crate) const IDENTIFIER: Range<usize> = 4..6;
    /// Echo sequence number (echo request and reply).
    pub const SEQUENCE: Range<usize> = 6..8;
}

/// Length of the ICMPv4 header: type, code, checksum and the rest of the header.
pub const HEADER_LEN: usize = 8;

/// ICMPv4 message types (RFC 792; IANA ICMP parameters).
pub mod message_type {
    /// Echo Reply.
    pub(crate) const ECHO_REPLY: u8 = 0;
    /// Destination Unreachable.
    pub const DESTINATION_UNREACHABLE: u8 = 3;
    /// Redirect.
    pub const REDIRECT: u8 = 5;
    /// Echo (request).
    pub const ECHO_REQUEST: u8 = 8;
    /// Time Exceeded.
    pub const TIME_EXCEEDED: u8 = 11;
    /// Parameter Problem.
    pub const PARAMETER_PROBLEM: u8 = 12;
}

/// A checked view of an ICMPv4 message: the IPv4 payload. `new_checked` guarantees a whole
/// header; the checksum is verified by [`Icmpv4Repr::parse`] or
/// [`verify_checksum`](Self::verify_checksum).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Icmpv4Packet<T> {
    buffer: T,
}

impl<T: AsRef<[u8]>> Icmpv4Packet<T> {
    /// Wraps `buffer` after checking that it holds a whole header.
    #[inline]
    pub fn new_checked(buffer: T) -> Result<Self, ParseError> {
        let len = buffer.as_ref().len();
        if len < HEADER_LEN {
            return Err(ParseError::Truncated {
                layer: Layer::Icmp,
                offset: 0,
                needed: HEADER_LEN,
                available: len,
            });
        }
        Ok(Icmpv4Packet { buffer })
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

    /// Whether the checksum over the whole message is right.
    #[inline]
    pub fn verify_checksum(&self) -> bool {
        checksum::sum(self.bytes()) == 0xffff
    }
}

impl<'a> Icmpv4Packet<&'a [u8]> {
    /// The data with the lifetime of the underlying buffer.
    #[inline]
    pub(crate) fn data_slice(&self) -> &'a [u8] {
        &self.buffer[HEADER_LEN..]
    }
}

impl<T: AsRef<[u8]> + AsMut<[u8]>> Icmpv4Packet<T> {
    /// Sets the checksum field.
    #[inline]
    pub(crate) fn set_checksum(&mut self, value: u16) {
        self.buffer.as_mut()[field::CHECKSUM].copy_from_slice(&value.to_be_bytes());
    }

    /// Computes and writes the checksum over the whole message.
    #[inline]
    pub fn fill_checksum(&mut self) {
        self.set_checksum(0);
        let c = !checksum::sum(self.bytes());
        self.set_checksum(c);
    }
}

/// An ICMPv4 message.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Icmpv4Repr<'a> {
    /// Echo (type 8, code 0): answered by an echo reply with the same identifier, sequence
    /// number and data.
    EchoRequest {
        /// Identifier.
        identifier: u16,
        /// Sequence number.
        sequence: u16,
        /// Data.
        data: &'a [u8],
    },
    /// Echo Reply (type 0, code 0).
    EchoReply {
        /// Identifier.
        identifier: u16,
        /// Sequence number.
        sequence: u16,
        /// Data.
        data: &'a [u8],
    },
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

impl<'a> Icmpv4Repr<'a> {
    /// Reads a checked message after verifying its checksum.
    #[inline]
    pub fn parse(packet: &Icmpv4Packet<&'a [u8]>) -> Result<Self, ParseError> {
        if !packet.verify_checksum() {
            let b = packet.buffer;
            let after = field::CHECKSUM.end;
            let computed =
                !checksum::sum_with(checksum::sum(&b[..field::CHECKSUM.start]), &b[after..]);
            return Err(ParseError::BadChecksum {
                layer: Layer::Icmp,
                offset: field::CHECKSUM.start,
                found: packet.checksum(),
                computed,
            });
        }
        let data = packet.data_slice();
        let (identifier, sequence) = (packet.identifier(), packet.sequence());
        Ok(match (packet.msg_type(), packet.code()) {
            (message_type::ECHO_REQUEST, 0) => Icmpv4Repr::EchoRequest {
                identifier,
                sequence,
                data,
            },
            (message_type::ECHO_REPLY, 0) => Icmpv4Repr::EchoReply {
                identifier,
                sequence,
                data,
            },
            (msg_type, code) => Icmpv4Repr::Other {
                msg_type,
                code,
                rest_of_header: packet.rest_of_header(),
                data,
            },
        })
    }

    /// The data after the header.
    #[inline]
    pub const fn data(&self) -> &'a [u8] {
        match *self {
            Icmpv4Repr::EchoRequest { data, .. }
            | Icmpv4Repr::EchoReply { data, .. }
            | Icmpv4Repr::Other { data, .. } => data,
        }
    }

    /// Bytes [`emit`](Self::emit) writes: the header and the data.
    #[inline]
    pub const fn buffer_len(&self) -> usize {
        HEADER_LEN + self.data().len()
    }

    /// Writes the message, checksum included, into the first [`buffer_len`](Self::buffer_len)
    /// bytes of `buf`.
    #[inline]
    pub fn emit(&self, buf: &mut [u8]) -> Result<(), EmitError> {
        let needed = self.buffer_len();
        let available = buf.len();
        let Some(m) = buf.get_mut(..needed) else {
            return Err(EmitError::BufferTooSmall { needed, available });
        };
        let (msg_type, code, rest) = match *self {
            Icmpv4Repr::EchoRequest {
                identifier,
                sequence,
                ..
            } => (
                message_type::ECHO_REQUEST,
                0,
                echo_rest(identifier, sequence),
            ),
            Icmpv4Repr::EchoReply {
                identifier,
                sequence,
                ..
            } => (message_type::ECHO_REPLY, 0, echo_rest(identifier, sequence)),
            Icmpv4Repr::Other {
                msg_type,
                code,
                rest_of_header,
                ..
            } => (msg_type, code, rest_of_header),
        };
        m[field::TYPE] = msg_type;
        m[field::CODE] = code;
        m[field::REST_OF_HEADER].copy_from_slice(&rest);
        m[HEADER_LEN..].copy_from_slice(self.data());
        Icmpv4Packet { buffer: m }.fill_checksum();
        Ok(())
    }
}

#[inline]
fn echo_rest(identifier: u16, sequence: u16) -> [u8; 4] {
    let (i, s) = (identifier.to_be_bytes(), sequence.to_be_bytes());
    [i[0], i[1], s[0], s[1]]
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Found by the fuzz target: one's complement has two zeros, so a message whose checksum
    /// field holds 0xffff where the computation gives 0x0000 verifies, and re-emits with 0x0000.
    #[test]
    fn both_zeros_of_the_checksum_verify() {
        let sent = [
            0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0, 0, 0, 0, 0, 0, 0xff, 0xff,
        ];
        let p = Icmpv4Packet::new_checked(&sent[..]).unwrap();
        assert!(p.verify_checksum());
        let repr = Icmpv4Repr::parse(&p).unwrap();
        let mut out = [0u8; 14];
        repr.emit(&mut out).unwrap();
        assert_eq!(out[field::CHECKSUM], [0, 0]);
        assert_eq!(out[4..], sent[4..]);
        assert!(
            Icmpv4Packet::new_checked(&out[..])
                .unwrap()
                .verify_checksum()
        );
    }
}
