//! Where the reflector sends what leaves by an IPv6 port: an N3 over IPv6 tunnels to IPv6
//! gNBs, an N6 over IPv6 hands the UE packets to its IPv6 next hop. The next hop's MAC comes
//! from Neighbor Discovery (the service plane's IPv6 neighbours, asked for by a Neighbor
//! Solicitation, paced, while it is unknown).
//!
//! An IPv4 port has no [`Route6`]; the worker tests that once per packet it tunnels or
//! decapsulates (a per-port value), and the IPv4 path is otherwise what it was.

use std::net::Ipv6Addr;

use upfbench_datapath::queues::Side;
use upfbench_datapath::service::{Interface6, ServicePlane};
use upfbench_net::MacAddr;
use upfbench_net::ipv6;

use super::counters::ReflectorCounters;
use super::forward::Drop;

const IPV6_DESTINATION_AT: usize = ipv6::field::DESTINATION.start;

/// An IPv6 port's route: its prefix is its link, the rest goes to its gateway (the file's
/// `peer`), if any.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Route6 {
    /// Our IPv6 address on the port and the link's prefix.
    pub interface: Interface6,
    /// The next hop for destinations off the link, if any.
    pub gateway: Option<Ipv6Addr>,
}

impl Route6 {
    /// The next hop toward `destination`: itself on the link, else the gateway (if any).
    #[inline]
    pub(crate) fn next_hop(&self, destination: Ipv6Addr) -> Option<Ipv6Addr> {
        if self.interface.on_link(destination) {
            Some(destination)
        } else {
            self.gateway
        }
    }

    /// The next hop of the decapsulated packet at `inner_offset` in `frame`: an IPv6 packet's
    /// by its destination; an IPv4 packet's the gateway (no IPv4 address is on an IPv6 link).
    pub(crate) fn uplink_hop(&self, frame: &[u8], inner_offset: usize) -> Option<Ipv6Addr> {
        let at = inner_offset + IPV6_DESTINATION_AT;
        let v6 = frame.get(inner_offset).is_some_and(|b| b >> 4 == 6);
        match frame.get(at..at + 16) {
            Some(d) if v6 => {
                let d: [u8; 16] = d.try_into().unwrap_or_default();
                self.next_hop(Ipv6Addr::from(d))
            }
            _ => self.gateway,
        }
    }
}

/// The MAC of IPv6 next hop `hop` on `side`, or None while it is not known (counted as
/// [`Drop::NoNeighbor`], and asked for by a Neighbor Solicitation, paced by the service plane).
/// No hop at all: nothing to ask for, counted as [`Drop::NoRoute`].
#[inline]
pub(crate) fn next_hop_mac_v6(
    service: &mut ServicePlane<'_>,
    side: Side,
    hop: Option<Ipv6Addr>,
    now: u64,
    c: &mut ReflectorCounters,
) -> Option<MacAddr> {
    let Some(hop) = hop else {
        c.dropped[Drop::NoRoute as usize] += 1;
        return None;
    };
    if let Some(mac) = service.neighbor_v6(side, hop) {
        return Some(mac);
    }
    service.resolve_v6(side, hop, now);
    c.dropped[Drop::NoNeighbor as usize] += 1;
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v6(text: &str) -> Ipv6Addr {
        text.parse().unwrap()
    }

    fn route(gateway: Option<&str>) -> Route6 {
        Route6 {
            interface: Interface6 {
                address: v6("2001:db8:16::151"),
                prefix_len: 64,
                secondary: None,
            },
            gateway: gateway.map(v6),
        }
    }

    /// A frame whose inner packet at 50 is IPv6 to `dst`, or IPv4 when `dst` is None.
    fn frame(dst: Option<&str>) -> Vec<u8> {
        let mut f = vec![0u8; 50 + 40];
        match dst {
            Some(d) => {
                f[50] = 0x60;
                f[50 + 24..50 + 40].copy_from_slice(&v6(d).octets());
            }
            None => f[50] = 0x45,
        }
        f
    }

    #[test]
    fn on_the_link_a_packet_goes_to_its_destination_else_to_the_gateway() {
        let r = route(Some("2001:db8:16::152"));
        assert_eq!(r.next_hop(v6("2001:db8:16::9")), Some(v6("2001:db8:16::9")));
        assert_eq!(
            r.next_hop(v6("2001:db8:99::9")),
            Some(v6("2001:db8:16::152"))
        );
        assert_eq!(route(None).next_hop(v6("2001:db8:99::9")), None);
    }

    #[test]
    fn an_uplink_packet_is_routed_by_its_inner_destination() {
        let r = route(Some("2001:db8:16::152"));
        let on_link = frame(Some("2001:db8:16::7"));
        assert_eq!(r.uplink_hop(&on_link, 50), Some(v6("2001:db8:16::7")));
        let off = frame(Some("64:ff9b::c0a8:1098"));
        assert_eq!(r.uplink_hop(&off, 50), Some(v6("2001:db8:16::152")));
        // An IPv4 packet has no destination on an IPv6 link: the gateway takes it.
        assert_eq!(r.uplink_hop(&frame(None), 50), Some(v6("2001:db8:16::152")));
        assert_eq!(route(None).uplink_hop(&frame(None), 50), None);
        // A short frame never panics.
        assert_eq!(
            r.uplink_hop(&on_link[..60], 50),
            Some(v6("2001:db8:16::152"))
        );
    }
}
