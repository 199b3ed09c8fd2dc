//! ARP (RFC 826) for IPv4 over Ethernet: a checked view and a representation.
//!
//! Only the Ethernet/IPv4 form is decoded (hardware type 1 with 6-octet addresses, protocol type
//! 0x0800 with 4-octet addresses), the one a port with an IPv4 address answers and asks with.

use std::net::Ipv4Addr;

use crate::error::{EmitError, Layer, ParseError};
use crate::ethernet::{ETHERTYPE_IPV4, MacAddr};

/// Field offsets of an Ethernet/IPv4 ARP packet.
pub mod field {
    use core::ops::Range;
    /// Hardware type (1: Ethernet).
    pub(crate) const HARDWARE_TYPE: Range<usize> = 0..2;
    /// Protocol type (an EtherType; 0x0800: IPv4).
    pub(crate) const PROTOCOL_TYPE: Range<usize> = 2..4;
    /// Length of a hardware address in octets.
    pub(crate) const HARDWARE_LEN: usize = 4;
    /// Length of a protocol address in octets.
    pub(crate) const PROTOCOL_LEN: usize = 5;
    /// Operation (1: request, 2: reply).
    pub(crate) const OPERATION: Range<usize> = 6..8;
    /// Sender hardware address.
    pub(crate) const SENDER_MAC: Range<usize> = 8..14;
    /// Sender protocol address.
    pub(crate) const SENDER_IP: Range<usize> = 14..18;
    /// Target hardware address (zero in a request).
    pub(crate) const TARGET_MAC: Range<usize> = 18..24;
    /// Target protocol address.
    pub(crate) const TARGET_IP: Range<usize> = 24..28;
}

/// Length of an Ethernet/IPv4 ARP packet (the Ethernet frame pads it to 46 octets).
pub const PACKET_LEN: usize = 28;
/// Hardware type of Ethernet (RFC 826; IANA ARP parameters).
pub(crate) const HARDWARE_ETHERNET: u16 = 1;
/// Operation code of a request.
pub(crate) const OPERATION_REQUEST: u16 = 1;
/// Operation code of a reply.
pub(crate) const OPERATION_REPLY: u16 = 2;

/// A checked view of an Ethernet/IPv4 ARP packet. `new_checked` guarantees 28 octets, Ethernet
/// hardware addresses and IPv4 protocol addresses, so that the accessors cannot fail; the
/// operation is read as carried.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ArpPacket<T> {
    buffer: T,
}

impl<T: AsRef<[u8]>> ArpPacket<T> {
    /// Wraps `buffer` after checking its length and its hardware and protocol formats.
    #[inline]
    pub fn new_checked(buffer: T) -> Result<Self, ParseError> {
        let b = buffer.as_ref();
        if b.len() < PACKET_LEN {
            return Err(ParseError::Truncated {
                layer: Layer::Arp,
                offset: 0,
                needed: PACKET_LEN,
                available: b.len(),
            });
        }
        let hardware_type = u16_at(b, field::HARDWARE_TYPE.start);
        let hardware_len = b[field::HARDWARE_LEN];
        if hardware_type != HARDWARE_ETHERNET || hardware_len != 6 {
            return Err(ParseError::UnsupportedHardware {
                offset: field::HARDWARE_TYPE.start,
                hardware_type,
                hardware_len,
            });
        }
        let protocol_type = u16_at(b, field::PROTOCOL_TYPE.start);
        let protocol_len = b[field::PROTOCOL_LEN];
        if protocol_type != ETHERTYPE_IPV4 || protocol_len != 4 {
            return Err(ParseError::UnsupportedProtocol {
                offset: field::PROTOCOL_TYPE.start,
                protocol_type,
                protocol_len,
            });
        }
        Ok(ArpPacket { buffer })
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

    /// The operation as carried (1: request, 2: reply; others are RARP's and InARP's).
    #[inline]
    pub fn operation(&self) -> u16 {
        u16_at(self.bytes(), field::OPERATION.start)
    }

    /// Sender hardware address.
    #[inline]
    pub fn sender_mac(&self) -> MacAddr {
        mac_at(self.bytes(), field::SENDER_MAC.start)
    }

    /// Sender protocol address.
    #[inline]
    pub fn sender_ip(&self) -> Ipv4Addr {
        ip_at(self.bytes(), field::SENDER_IP.start)
    }

    /// Target hardware address.
    #[inline]
    pub fn target_mac(&self) -> MacAddr {
        mac_at(self.bytes(), field::TARGET_MAC.start)
    }

    /// Target protocol address.
    #[inline]
    pub fn target_ip(&self) -> Ipv4Addr {
        ip_at(self.bytes(), field::TARGET_IP.start)
    }
}

#[inline]
fn u16_at(b: &[u8], at: usize) -> u16 {
    u16::from_be_bytes([b[at], b[at + 1]])
}

#[inline]
fn mac_at(b: &[u8], at: usize) -> MacAddr {
    MacAddr([b[at], b[at + 1], b[at + 2], b[at + 3], b[at + 4], b[at + 5]])
}

#[inline]
fn ip_at(b: &[u8], at: usize) -> Ipv4Addr {
    Ipv4Addr::new(b[at], b[at + 1], b[at + 2], b[at + 3])
}

/// The operation of an ARP packet (RFC 826).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ArpOperation {
    /// Who has the target address? (1)
    Request,
    /// The sender has the sender address. (2)
    Reply,
}

impl ArpOperation {
    /// The operation code on the wire.
    #[inline]
    pub const fn code(self) -> u16 {
        match self {
            ArpOperation::Request => OPERATION_REQUEST,
            ArpOperation::Reply => OPERATION_REPLY,
        }
    }
}

/// The fields of an Ethernet/IPv4 ARP request or reply.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ArpRepr {
    /// Request or reply.
    pub operation: ArpOperation,
    /// Sender hardware address.
    pub sender_mac: MacAddr,
    /// Sender protocol address.
    pub sender_ip: Ipv4Addr,
    /// Target hardware address (zero in a request).
    pub target_mac: MacAddr,
    /// Target protocol address.
    pub target_ip: Ipv4Addr,
}

impl ArpRepr {
    /// A request from `sender` asking who has `target_ip`; the target hardware address is zero.
    #[inline]
    pub const fn request(sender_mac: MacAddr, sender_ip: Ipv4Addr, target_ip: Ipv4Addr) -> Self {
        ArpRepr {
            operation: ArpOperation::Request,
            sender_mac,
            sender_ip,
            target_mac: MacAddr([0; 6]),
            target_ip,
        }
    }

    /// The reply to this packet from `our_mac`: we, at the address asked for, to the asker.
    #[inline]
    pub const fn reply(&self, our_mac: MacAddr) -> Self {
        ArpRepr {
            operation: ArpOperation::Reply,
            sender_mac: our_mac,
            sender_ip: self.target_ip,
            target_mac: self.sender_mac,
            target_ip: self.sender_ip,
        }
    }

    /// Reads a checked packet; operations other than request and reply are refused.
    #[inline]
    pub fn parse<T: AsRef<[u8]>>(packet: &ArpPacket<T>) -> Result<Self, ParseError> {
        let operation = match packet.operation() {
            OPERATION_REQUEST => ArpOperation::Request,
            OPERATION_REPLY => ArpOperation::Reply,
            operation => {
                return Err(ParseError::UnsupportedOperation {
                    offset: field::OPERATION.start,
                    operation,
                });
            }
        };
        Ok(ArpRepr {
            operation,
            sender_mac: packet.sender_mac(),
            sender_ip: packet.sender_ip(),
            target_mac: packet.target_mac(),
            target_ip: packet.target_ip(),
        })
    }

    /// Bytes [`emit`](Self::emit) writes.
    #[inline]
    pub const fn buffer_len(&self) -> usize {
        PACKET_LEN
    }

    /// Writes the packet into the first [`PACKET_LEN`] bytes of `buf`.
    #[inline]
    pub fn emit(&self, buf: &mut [u8]) -> Result<(), EmitError> {
        let available = buf.len();
        let Some(p) = buf.get_mut(..PACKET_LEN) else {
            return Err(EmitError::BufferTooSmall {
                needed: PACKET_LEN,
                available,
            });
        };
        p[field::HARDWARE_TYPE].copy_from_slice(&HARDWARE_ETHERNET.to_be_bytes());
        p[field::PROTOCOL_TYPE].copy_from_slice(&ETHERTYPE_IPV4.to_be_bytes());
        p[field::HARDWARE_LEN] = 6;
        p[field::PROTOCOL_LEN] = 4;
        p[field::OPERATION].copy_from_slice(&self.operation.code().to_be_bytes());
        p[field::SENDER_MAC].copy_from_slice(&self.sender_mac.0);
        p[field::SENDER_IP].copy_from_slice(&self.sender_ip.octets());
        p[field::TARGET_MAC].copy_from_slice(&self.target_mac.0);
        p[field::TARGET_IP].copy_from_slice(&self.target_ip.octets());
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_reply_swaps_the_sides_and_fills_in_our_mac() {
        let us = MacAddr([2, 0, 0, 0, 0, 1]);
        let asker = MacAddr([2, 0, 0, 0, 0, 2]);
        let req = ArpRepr::request(
            asker,
            Ipv4Addr::new(10, 0, 0, 2),
            Ipv4Addr::new(10, 0, 0, 1),
        );
        assert_eq!(req.target_mac, MacAddr([0; 6]));
        let rep = req.reply(us);
        assert_eq!(rep.operation, ArpOperation::Reply);
        assert_eq!(
            (rep.sender_mac, rep.sender_ip),
            (us, Ipv4Addr::new(10, 0, 0, 1))
        );
        assert_eq!(
            (rep.target_mac, rep.target_ip),
            (asker, Ipv4Addr::new(10, 0, 0, 2))
        );
    }
}
