//! Ethernet II frames (IEEE 802.3 with an EtherType): a checked view and a representation.

use core::fmt;
use std::net::Ipv6Addr;

use crate::error::{EmitError, Layer, ParseError};

/// Field offsets of the Ethernet II header.
pub mod field {
    use core::ops::Range;
    /// Destination MAC address.
    pub const DESTINATION: Range<usize> = 0..6;
    /// Source MAC address.
    pub const SOURCE: Range<usize> = 6..12;
    /// EtherType.
    pub const ETHERTYPE: Range<usize> = 12..14;
}

/// Length of the Ethernet II header (no VLAN tag).
pub const HEADER_LEN: usize = 14;

/// EtherType of IPv4.
pub const ETHERTYPE_IPV4: u16 = 0x0800;
/// EtherType of ARP.
pub const ETHERTYPE_ARP: u16 = 0x0806;
/// EtherType of an IEEE 802.1Q VLAN tag (the TPID of a C-tag).
pub const ETHERTYPE_VLAN: u16 = 0x8100;
/// EtherType of an IEEE 802.1ad service VLAN tag (the TPID of an S-tag, the outer tag of QinQ).
pub const ETHERTYPE_QINQ: u16 = 0x88a8;
/// EtherType of IPv6.
pub const ETHERTYPE_IPV6: u16 = 0x86dd;

/// A 48-bit MAC address.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, PartialOrd, Ord)]
pub struct MacAddr(pub [u8; 6]);

impl MacAddr {
    /// The broadcast address ff:ff:ff:ff:ff:ff.
    pub const BROADCAST: MacAddr = MacAddr([0xff; 6]);

    /// The address's six octets.
    #[inline]
    pub const fn octets(self) -> [u8; 6] {
        self.0
    }

    /// The Ethernet address an IPv6 multicast address maps to (RFC 2464 §7): 33:33 and the
    /// address's last four octets.
    #[inline]
    pub const fn ipv6_multicast(addr: Ipv6Addr) -> MacAddr {
        let o = addr.octets();
        MacAddr([0x33, 0x33, o[12], o[13], o[14], o[15]])
    }
}

impl fmt::Display for MacAddr {
    #[inline]
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let o = self.0;
        write!(
            f,
            "{:02x}:{:02x}:{:02x}:{:02x}:{:02x}:{:02x}",
            o[0], o[1], o[2], o[3], o[4], o[5]
        )
    }
}

/// A checked view of an Ethernet II frame over a byte buffer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EthernetFrame<T> {
    buffer: T,
}

impl<T: AsRef<[u8]>> EthernetFrame<T> {
    /// Wraps `buffer` after checking that it holds a whole header.
    #[inline]
    pub fn new_checked(buffer: T) -> Result<Self, ParseError> {
        let len = buffer.as_ref().len();
        if len < HEADER_LEN {
            return Err(ParseError::Truncated {
                layer: Layer::Ethernet,
                offset: 0,
                needed: HEADER_LEN,
                available: len,
            });
        }
        Ok(EthernetFrame { buffer })
    }

    /// Wraps a buffer known to hold a whole header: the accessors index without checking and
    /// panic on a buffer that was not (decoders call [`new_checked`](Self::new_checked)).
    #[inline]
    pub fn new_unchecked(buffer: T) -> Self {
        EthernetFrame { buffer }
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

    /// Destination MAC address.
    #[inline]
    pub fn destination(&self) -> MacAddr {
        MacAddr(read6(&self.bytes()[field::DESTINATION]))
    }

    /// Source MAC address.
    #[inline]
    pub fn source(&self) -> MacAddr {
        MacAddr(read6(&self.bytes()[field::SOURCE]))
    }

    /// EtherType.
    #[inline]
    pub fn ethertype(&self) -> u16 {
        let b = &self.bytes()[field::ETHERTYPE];
        u16::from_be_bytes([b[0], b[1]])
    }

    /// Everything after the header (the frame may carry padding after the network packet).
    #[inline]
    pub fn payload(&self) -> &[u8] {
        &self.bytes()[HEADER_LEN..]
    }
}

impl<T: AsRef<[u8]> + AsMut<[u8]>> EthernetFrame<T> {
    #[inline]
    fn bytes_mut(&mut self) -> &mut [u8] {
        self.buffer.as_mut()
    }

    /// Sets the destination MAC address.
    #[inline]
    pub fn set_destination(&mut self, mac: MacAddr) {
        self.bytes_mut()[field::DESTINATION].copy_from_slice(&mac.0);
    }

    /// Sets the source MAC address.
    #[inline]
    pub fn set_source(&mut self, mac: MacAddr) {
        self.bytes_mut()[field::SOURCE].copy_from_slice(&mac.0);
    }

    /// Sets the EtherType.
    #[inline]
    pub fn set_ethertype(&mut self, ethertype: u16) {
        self.bytes_mut()[field::ETHERTYPE].copy_from_slice(&ethertype.to_be_bytes());
    }

    /// Everything after the header, mutably.
    #[inline]
    pub fn payload_mut(&mut self) -> &mut [u8] {
        &mut self.bytes_mut()[HEADER_LEN..]
    }
}

fn read6(b: &[u8]) -> [u8; 6] {
    let mut out = [0u8; 6];
    out.copy_from_slice(b);
    out
}

/// The fields of an Ethernet II header.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct EthernetRepr {
    /// Source MAC address.
    pub source: MacAddr,
    /// Destination MAC address.
    pub destination: MacAddr,
    /// EtherType.
    pub ethertype: u16,
}

impl EthernetRepr {
    /// Reads the header of a checked frame.
    #[inline]
    pub fn parse<T: AsRef<[u8]>>(frame: &EthernetFrame<T>) -> Self {
        EthernetRepr {
            source: frame.source(),
            destination: frame.destination(),
            ethertype: frame.ethertype(),
        }
    }

    /// Bytes [`emit`](Self::emit) writes.
    #[inline]
    pub const fn buffer_len(&self) -> usize {
        HEADER_LEN
    }

    /// Writes the header into the first [`HEADER_LEN`] bytes of `buf`.
    #[inline]
    pub fn emit(&self, buf: &mut [u8]) -> Result<(), EmitError> {
        let available = buf.len();
        let Some(header) = buf.get_mut(..HEADER_LEN) else {
            return Err(EmitError::BufferTooSmall {
                needed: HEADER_LEN,
                available,
            });
        };
        header[field::DESTINATION].copy_from_slice(&self.destination.0);
        header[field::SOURCE].copy_from_slice(&self.source.0);
        header[field::ETHERTYPE].copy_from_slice(&self.ethertype.to_be_bytes());
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_buffer_is_truncated() {
        assert_eq!(
            EthernetFrame::new_checked(&[0u8; 13][..]),
            Err(ParseError::Truncated {
                layer: Layer::Ethernet,
                offset: 0,
                needed: 14,
                available: 13
            })
        );
    }

    #[test]
    fn ipv6_multicast_macs() {
        // RFC 2464 §7: FF02::1:FF0E:8C6C maps to 33:33:FF:0E:8C:6C.
        let a: Ipv6Addr = "ff02::1:ff0e:8c6c".parse().unwrap();
        assert_eq!(
            MacAddr::ipv6_multicast(a),
            MacAddr([0x33, 0x33, 0xff, 0x0e, 0x8c, 0x6c])
        );
    }

    #[test]
    fn mac_displays_lowercase_hex() {
        assert_eq!(
            MacAddr([2, 0, 0, 0, 0x13, 0x51]).to_string(),
            "02:00:00:00:13:51"
        );
    }
}
