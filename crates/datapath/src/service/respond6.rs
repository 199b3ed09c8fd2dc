//! The service plane's answers over IPv6, on bytes, beside [`respond`](super::respond)'s ARP
//! and IPv4:
//!
//! - Neighbor Discovery (RFC 4861): a Neighbor Solicitation for one of our addresses is answered
//!   with a solicited Neighbor Advertisement carrying our MAC (§7.2.4); the solicitor's
//!   link-layer address is learned in passing (§7.2.3), an advertisement's target is learned
//!   as an answer (§7.2.5). Messages whose hop limit is not 255 are dropped (§7.1.1, §7.1.2):
//!   they came through a router.
//! - ICMPv6 echo (RFC 4443 §4.1): a request to our address is answered with the same
//!   identifier, sequence and data.
//! - GTP-U over IPv6: an Echo Request to our address is answered as over IPv4.
//!
//! Our own solicitations ([`neighbor_solicitation`]) go to the target's solicited-node
//! multicast address (RFC 4291 §2.7.1) and its Ethernet group address 33:33:ff:xx:xx:xx
//! (RFC 2464 §7), from our address with our MAC in a Source Link-Layer Address option.

use std::net::{IpAddr, Ipv6Addr};

use upfbench_gtpu::{GTPU_PORT, emit_ipv6_udp};
use upfbench_net::ethernet::{self, ETHERTYPE_IPV6};
use upfbench_net::ipv6::{self, PROTOCOL_ICMPV6, PROTOCOL_UDP, solicited_node};
use upfbench_net::ndp::{self, NeighborSolicit};
use upfbench_net::{
    EthernetFrame, EthernetRepr, Icmpv6Packet, Icmpv6Repr, Ipv6Packet, Ipv6Repr, MacAddr,
    UdpPacket, UdpRepr,
};

use super::respond::{Interface, Outcome, Seen, echo_response};

/// Our IPv6 interface on a port: the address we answer for (the port's MAC is its
/// [`Interface`]'s).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Interface6 {
    /// Our IPv6 address on the link.
    pub address: Ipv6Addr,
    /// The link's prefix length.
    pub prefix_len: u8,
    /// A second address on the link that Neighbor Discovery answers for (a handover's target
    /// gNB), if any.
    pub secondary: Option<Ipv6Addr>,
}

/// Our interfaces on a port of MAC `mac` whose address is `address` (of either family) with
/// `prefix_len`: an IPv4 port's [`Interface`] as it always was, and no [`Interface6`]; an IPv6
/// port's [`Interface`] without an IPv4 address (0.0.0.0/32: no ARP answered or asked, no
/// IPv4 destination on its link) and its [`Interface6`].
pub fn port_interfaces(
    mac: MacAddr,
    address: IpAddr,
    prefix_len: u8,
) -> (Interface, Option<Interface6>) {
    match address {
        IpAddr::V4(a) => (
            Interface {
                mac,
                address: a,
                prefix_len,
                secondary: None,
            },
            None,
        ),
        IpAddr::V6(a) => (
            Interface {
                mac,
                address: std::net::Ipv4Addr::UNSPECIFIED,
                prefix_len: 32,
                secondary: None,
            },
            Some(Interface6 {
                address: a,
                prefix_len,
                secondary: None,
            }),
        ),
    }
}

impl Interface6 {
    /// Whether `ip` is on this interface's link (its prefix).
    #[inline]
    pub fn on_link(&self, ip: Ipv6Addr) -> bool {
        let mask = u128::MAX
            .checked_shl(128 - u32::from(self.prefix_len))
            .unwrap_or(0);
        (u128::from(ip) ^ u128::from(self.address)) & mask == 0
    }

    /// Whether `ip` is one of our addresses.
    #[inline]
    pub fn is_ours(&self, ip: Ipv6Addr) -> bool {
        ip == self.address || Some(ip) == self.secondary
    }
}

/// Answers the IPv6 packet in `eth` (received on the port of `iface` and `v6`) into `out`.
pub(super) fn respond_ipv6(
    iface: &Interface,
    v6: &Interface6,
    eth: &EthernetFrame<&[u8]>,
    out: &mut [u8],
) -> Outcome {
    let Ok(ip) = Ipv6Packet::new_checked(eth.payload()) else {
        return Outcome::seen(Seen::Ignored);
    };
    let Ok(header) = Ipv6Repr::parse(&ip) else {
        return Outcome::seen(Seen::Ignored);
    };
    match header.next_header {
        PROTOCOL_ICMPV6 => respond_icmpv6(iface, v6, eth, &ip, &header, out),
        PROTOCOL_UDP if v6.is_ours(header.destination) => {
            respond_gtpu6(iface, eth, &ip, &header, out)
        }
        _ => Outcome::seen(Seen::Ignored),
    }
}

fn respond_icmpv6(
    iface: &Interface,
    v6: &Interface6,
    eth: &EthernetFrame<&[u8]>,
    ip: &Ipv6Packet<&[u8]>,
    h: &Ipv6Repr,
    out: &mut [u8],
) -> Outcome {
    let parsed = Icmpv6Packet::new_checked(ip.payload_slice())
        .and_then(|m| Icmpv6Repr::parse(&m, &h.source, &h.destination));
    let Ok(message) = parsed else {
        return Outcome::seen(Seen::Icmpv6Other);
    };
    let ndp_ok = h.hop_limit == ndp::HOP_LIMIT;
    match message {
        Icmpv6Repr::NeighborSolicit(ns) if ndp_ok => {
            // §7.2.3: the solicitor's address is learned only with its link-layer option.
            let learned = ns
                .source_link_layer
                .filter(|_| !h.source.is_unspecified())
                .map(|mac| (IpAddr::V6(h.source), mac));
            if !v6.is_ours(ns.target) {
                return Outcome {
                    seen: Seen::NdpOther,
                    reply: None,
                    learned,
                };
            }
            let (to, advert) = ns.advert(h.source, iface.mac);
            let to_mac = if to.is_multicast() {
                MacAddr::ipv6_multicast(to)
            } else {
                ns.source_link_layer.unwrap_or(eth.source())
            };
            let reply = icmpv6_frame(
                iface.mac,
                to_mac,
                (ns.target, to),
                ndp::HOP_LIMIT,
                &Icmpv6Repr::NeighborAdvert(advert),
                out,
            );
            Outcome {
                seen: Seen::NdpSolicit,
                reply,
                learned,
            }
        }
        Icmpv6Repr::NeighborAdvert(na) if ndp_ok => Outcome {
            seen: Seen::NdpAdvert,
            reply: None,
            learned: na
                .target_link_layer
                .filter(|_| !v6.is_ours(na.target))
                .map(|mac| (IpAddr::V6(na.target), mac)),
        },
        Icmpv6Repr::NeighborSolicit(_) | Icmpv6Repr::NeighborAdvert(_) => {
            Outcome::seen(Seen::NdpOther)
        }
        Icmpv6Repr::EchoRequest {
            identifier,
            sequence,
            data,
        } if v6.is_ours(h.destination) => {
            let reply = icmpv6_frame(
                iface.mac,
                eth.source(),
                (h.destination, h.source),
                ipv6::DEFAULT_HOP_LIMIT,
                &Icmpv6Repr::EchoReply {
                    identifier,
                    sequence,
                    data,
                },
                out,
            );
            Outcome {
                seen: Seen::Icmpv6EchoRequest,
                reply,
                learned: None,
            }
        }
        _ => Outcome::seen(Seen::Icmpv6Other),
    }
}

/// Writes an Ethernet/IPv6/ICMPv6 frame from `(source, destination)` into `out`; returns its
/// length.
fn icmpv6_frame(
    from_mac: MacAddr,
    to_mac: MacAddr,
    (source, destination): (Ipv6Addr, Ipv6Addr),
    hop_limit: u8,
    message: &Icmpv6Repr<'_>,
    out: &mut [u8],
) -> Option<usize> {
    let ip_at = ethernet::HEADER_LEN;
    let icmp_at = ip_at + ipv6::HEADER_LEN;
    let len = icmp_at + message.buffer_len();
    let f = out.get_mut(..len)?;
    EthernetRepr {
        source: from_mac,
        destination: to_mac,
        ethertype: ETHERTYPE_IPV6,
    }
    .emit(f)
    .ok()?;
    Ipv6Repr {
        source,
        destination,
        next_header: PROTOCOL_ICMPV6,
        payload_len: message.buffer_len(),
        hop_limit,
        traffic_class: 0,
        flow_label: 0,
    }
    .emit(&mut f[ip_at..])
    .ok()?;
    message
        .emit(&mut f[icmp_at..], &source, &destination)
        .ok()?;
    Some(len)
}

/// A Neighbor Solicitation for `target` from our interface, to its solicited-node address;
/// returns its length.
pub fn neighbor_solicitation(
    mac: MacAddr,
    v6: &Interface6,
    target: Ipv6Addr,
    out: &mut [u8],
) -> Option<usize> {
    let group = solicited_node(target);
    icmpv6_frame(
        mac,
        MacAddr::ipv6_multicast(group),
        (v6.address, group),
        ndp::HOP_LIMIT,
        &Icmpv6Repr::NeighborSolicit(NeighborSolicit::new(target, mac)),
        out,
    )
}

fn respond_gtpu6(
    iface: &Interface,
    eth: &EthernetFrame<&[u8]>,
    ip: &Ipv6Packet<&[u8]>,
    h: &Ipv6Repr,
    out: &mut [u8],
) -> Outcome {
    let Ok(udp) = UdpPacket::new_checked(ip.payload_slice()) else {
        return Outcome::seen(Seen::Ignored);
    };
    if udp.destination_port() != GTPU_PORT {
        return Outcome::seen(Seen::Ignored);
    }
    let response = match echo_response(udp.payload()) {
        Ok(r) => r,
        Err(seen) => return Outcome::seen(seen),
    };
    let mut body = [0u8; 64];
    let n = response.buffer_len();
    let reply = (|| {
        response.emit(body.get_mut(..n)?).ok()?;
        EthernetRepr {
            source: iface.mac,
            destination: eth.source(),
            ethertype: ETHERTYPE_IPV6,
        }
        .emit(out)
        .ok()?;
        let len = emit_ipv6_udp(
            out.get_mut(ethernet::HEADER_LEN..)?,
            &Ipv6Repr::udp(h.destination, h.source),
            &UdpRepr {
                source_port: GTPU_PORT,
                destination_port: udp.source_port(),
            },
            &body[..n],
        )
        .ok()?;
        Some(ethernet::HEADER_LEN + len)
    })();
    Outcome {
        seen: Seen::GtpuEchoRequest,
        reply,
        learned: None,
    }
}

#[cfg(test)]
mod tests;
