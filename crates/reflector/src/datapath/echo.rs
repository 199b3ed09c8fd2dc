//! The reflector's echo mode, on frame bytes: what comes in on the echo port goes back out of it
//! with its Ethernet, IPv4 and UDP addresses swapped, for testing a generator (or a link) with
//! no UPF at all.
//!
//! What is echoed is IPv4/UDP, unfragmented, with a sound IPv4 header and a whole UDP header;
//! its checksums stay valid, since swapping two 16-bit words keeps a one's complement sum and
//! the UDP pseudo header sums both addresses. The rest, on either port:
//! - ARP, ICMP and ICMPv6 go to the service plane (ARP, Neighbor Solicitations and echo
//!   requests for our addresses are answered, the rest counted by the service plane's kinds);
//! - other IPv4 (TCP, other protocols, fragments) and other EtherTypes are dropped as
//!   `not_user_traffic`;
//! - a frame too short for its headers, or an IPv4 header that is not one, is dropped as
//!   `malformed`.
//!
//! On the other port nothing is echoed: UDP there is `not_user_traffic` too.

use upfbench_net::ethernet::{
    self, ETHERTYPE_ARP, ETHERTYPE_IPV4, ETHERTYPE_IPV6, HEADER_LEN as ETHERNET_LEN,
};
use upfbench_net::ipv4::{
    MIN_HEADER_LEN as IPV4_MIN_HEADER, PROTOCOL_ICMP, PROTOCOL_UDP, field as ip,
};
use upfbench_net::ipv6::{self, PROTOCOL_ICMPV6};
use upfbench_net::udp::{self, HEADER_LEN as UDP_HEADER};

use super::forward::Drop;

/// More Fragments flag and fragment offset, in the IPv4 header's flags/offset word.
const FRAGMENT_MASK: u16 = 0x3fff;
/// The two IPv4 addresses, source then destination, as one range of the frame.
const IPV4_ADDRESSES: core::ops::Range<usize> =
    ETHERNET_LEN + ip::SOURCE.start..ETHERNET_LEN + ip::DESTINATION.end;

/// What echo mode does with one frame.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum EchoVerdict {
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
pub(crate) fn decide(frame: &[u8]) -> EchoVerdict {
    let Some(ethertype) = frame.get(ethernet::field::ETHERTYPE) else {
        return EchoVerdict::Drop(Drop::Malformed);
    };
    let ethertype = u16::from_be_bytes([ethertype[0], ethertype[1]]);
    if ethertype == ETHERTYPE_ARP {
        return EchoVerdict::Service;
    }
    if ethertype == ETHERTYPE_IPV6 {
        // Neighbor Discovery and ICMPv6 echo for an IPv6 port; nothing else of IPv6 is echoed.
        return match frame.get(ETHERNET_LEN + ipv6::field::NEXT_HEADER) {
            Some(&PROTOCOL_ICMPV6) => EchoVerdict::Service,
            _ => EchoVerdict::Drop(Drop::NotUserTraffic),
        };
    }
    if ethertype != ETHERTYPE_IPV4 {
        return EchoVerdict::Drop(Drop::NotUserTraffic);
    }
    let packet = &frame[ETHERNET_LEN..];
    let Some(header) = packet.get(..IPV4_MIN_HEADER) else {
        return EchoVerdict::Drop(Drop::Malformed);
    };
    let word =
        |r: core::ops::Range<usize>| u16::from_be_bytes([header[r.start], header[r.start + 1]]);
    let ihl = usize::from(header[ip::VERSION_IHL] & 0x0f) * 4;
    let total = usize::from(word(ip::TOTAL_LENGTH));
    if header[ip::VERSION_IHL] >> 4 != 4
        || ihl < IPV4_MIN_HEADER
        || total < ihl
        || total > packet.len()
    {
        return EchoVerdict::Drop(Drop::Malformed);
    }
    match header[ip::PROTOCOL] {
        PROTOCOL_ICMP => EchoVerdict::Service,
        PROTOCOL_UDP if word(ip::FLAGS_FRAGMENT_OFFSET) & FRAGMENT_MASK != 0 => {
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
pub(crate) fn decide_other_port(frame: &[u8]) -> EchoVerdict {
    match decide(frame) {
        EchoVerdict::Echo { .. } => EchoVerdict::Drop(Drop::NotUserTraffic),
        v => v,
    }
}

/// Swaps the Ethernet addresses, the IPv4 addresses and the UDP ports of `frame`, whose UDP
/// header starts at `udp_at` ([`decide`] said so). A frame too short is left alone.
#[inline]
pub(crate) fn swap(frame: &mut [u8], udp_at: usize) {
    if frame.len() < udp_at + UDP_HEADER || udp_at < ETHERNET_LEN + IPV4_MIN_HEADER {
        return;
    }
    let (dst, src) =
        frame[ethernet::field::DESTINATION.start..ethernet::field::SOURCE.end].split_at_mut(6);
    dst.swap_with_slice(src);
    let (a, b) = frame[IPV4_ADDRESSES].split_at_mut(4);
    a.swap_with_slice(b);
    let ports = udp::field::SOURCE_PORT.start..udp::field::DESTINATION_PORT.end;
    let (a, b) = frame[udp_at + ports.start..udp_at + ports.end].split_at_mut(2);
    a.swap_with_slice(b);
}

#[cfg(test)]
mod tests;
