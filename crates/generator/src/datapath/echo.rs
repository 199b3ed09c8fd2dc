//! The reflector's echo mode, on frame bytes: what comes in on the echo port goes back out of it
//! with its Ethernet, IPv4 and UDP addresses swapped, for testing a generator (or a link) with
//! no UPF at all.
//!
//! What is echoed is IPv4/UDP, unfragmented, with a sound IPv4 header and a whole UDP header;
//! its checksums stay valid, since swapping two 16-bit words keeps a one's complement sum and
//! the UDP pseudo header sums both addresses. The rest, on either port:
//! - ARP and ICMP go to the service plane (ARP and echo requests for our address are answered,
//!   the rest counted by the service plane's kinds);
//! - other IPv4 (TCP, other protocols, fragments) and other EtherTypes are dropped as
//!   `not_user_traffic`;
//! - a frame too short for its headers, or an IPv4 header that is not one, is dropped as
//!   `malformed`.
//!
//! On the other port nothing is echoed: UDP there is `not_user_traffic` too.

use super::forward::{Drop, ETHERNET_LEN};

const ETHERTYPE_IPV4: [u8; 2] = [0x08, 0x00];
const ETHERTYPE_ARP: [u8; 2] = [0x08, 0x06];
const PROTOCOL_ICMP: u8 = 1;
const PROTOCOL_UDP: u8 = 17;
const IPV4_MIN_HEADER: usize = 20;
const UDP_HEADER: usize = 8;
/// More Fragments flag and fragment offset, in the IPv4 header's flags/offset word.
const FRAGMENT_MASK: u16 = 0x3fff;

/// What echo mode does with one frame.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EchoVerdict {
    /// Swap and send back; the UDP header starts at this offset.
    Echo {
        /// Offset of the UDP header in the frame.
        udp_at: usize,
    },
    /// Hand to the service plane (ARP, ICMP).
    Service,
    /// Drop and count.
    Drop(Drop),
}

/// The verdict on `frame`, received on the echo port. Never panics.
#[inline]
pub fn decide(frame: &[u8]) -> EchoVerdict {
    let Some(ethertype) = frame.get(12..ETHERNET_LEN) else {
        return EchoVerdict::Drop(Drop::Malformed);
    };
    if ethertype == ETHERTYPE_ARP {
        return EchoVerdict::Service;
    }
    if ethertype != ETHERTYPE_IPV4 {
        return EchoVerdict::Drop(Drop::NotUserTraffic);
    }
    let ip = &frame[ETHERNET_LEN..];
    let Some(header) = ip.get(..IPV4_MIN_HEADER) else {
        return EchoVerdict::Drop(Drop::Malformed);
    };
    let ihl = usize::from(header[0] & 0x0f) * 4;
    let total = usize::from(u16::from_be_bytes([header[2], header[3]]));
    if header[0] >> 4 != 4 || ihl < IPV4_MIN_HEADER || total < ihl || total > ip.len() {
        return EchoVerdict::Drop(Drop::Malformed);
    }
    match header[9] {
        PROTOCOL_ICMP => EchoVerdict::Service,
        PROTOCOL_UDP if u16::from_be_bytes([header[6], header[7]]) & FRAGMENT_MASK != 0 => {
            EchoVerdict::Drop(Drop::NotUserTraffic)
        }
        PROTOCOL_UDP if total < ihl + UDP_HEADER => EchoVerdict::Drop(Drop::Malformed),
        PROTOCOL_UDP => EchoVerdict::Echo {
            udp_at: ETHERNET_LEN + ihl,
        },
        _ => EchoVerdict::Drop(Drop::NotUserTraffic),
    }
}

/// The verdict on `frame` received on the port that does not echo: the service plane's, or
/// dropped.
#[inline]
pub fn decide_other_port(frame: &[u8]) -> EchoVerdict {
    match decide(frame) {
        EchoVerdict::Echo { .. } => EchoVerdict::Drop(Drop::NotUserTraffic),
        v => v,
    }
}

/// Swaps the Ethernet addresses, the IPv4 addresses and the UDP ports of `frame`, whose UDP
/// header starts at `udp_at` ([`decide`] said so). A frame too short is left alone.
#[inline]
pub fn swap(frame: &mut [u8], udp_at: usize) {
    if frame.len() < udp_at + UDP_HEADER || udp_at < ETHERNET_LEN + IPV4_MIN_HEADER {
        return;
    }
    let (dst, src) = frame[..12].split_at_mut(6);
    dst.swap_with_slice(src);
    let (a, b) = frame[ETHERNET_LEN + 12..ETHERNET_LEN + 20].split_at_mut(4);
    a.swap_with_slice(b);
    let (a, b) = frame[udp_at..udp_at + 4].split_at_mut(2);
    a.swap_with_slice(b);
}

#[cfg(test)]
mod tests;
