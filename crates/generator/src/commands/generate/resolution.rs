//! Before a run's traffic: the UPF's MACs on N3 and N6 asked for (ARP for IPv4 peers,
//! Neighbor Discovery for IPv6 ones) by a service plane that knows the configured ones.

use upfbench_cli::out;
use upfbench_datapath::queues::Side;
use upfbench_datapath::service::{ServicePlane, port_interfaces};
use upfbench_net::MacAddr;

use super::interpreter::{TestPair, Testbed};

/// Says which peers of `pair` are asked for and how: ARP for IPv4 ones, Neighbor Discovery for
/// IPv6 ones (those whose MAC the system file gives are not asked for); its ports after the
/// pair's `name` when there are several pairs.
pub(super) fn announce_resolution(
    system: &upfbench_config::System,
    pair: &upfbench_config::Pair,
    name: Option<&str>,
) {
    let prefix = name.map_or(String::new(), |n| format!("{n} "));
    let unknown: Vec<_> = [(Side::N3, &pair.n3), (Side::N6, &pair.n6)]
        .into_iter()
        .filter(|(_, p)| p.peer_mac.is_none())
        .collect();
    let asked: Vec<String> = unknown
        .iter()
        .map(|(s, p)| format!("{prefix}{} {}", s.name(), p.peer))
        .collect();
    if !asked.is_empty() {
        // ARP for IPv4 peers, Neighbor Discovery for IPv6 ones.
        let how = match unknown
            .iter()
            .map(|(_, p)| p.peer.is_ipv6())
            .collect::<Vec<_>>()[..]
        {
            [false] | [false, false] => "ARP",
            [true] | [true, true] => "NDP",
            _ => "ARP/NDP",
        };
        out::line(&format!(
            "{how}: resolving {} (at most {} requests {:?} apart)",
            asked.join(", "),
            system.arp.retries + 1,
            system.arp.timeout
        ));
    }
}

/// The service plane that resolves the UPF's MACs on `pair`'s ports before traffic: the
/// configured MACs known, the ports' VLAN tags on what it sends and expects.
pub(super) fn resolving_service<'p>(
    bed: &Testbed<'_, 'p>,
    pair: &TestPair<'_>,
) -> ServicePlane<'p> {
    let config = pair.config;
    let known: Vec<_> = [(Side::N3, &config.n3), (Side::N6, &config.n6)]
        .into_iter()
        .filter_map(|(s, p)| Some((s, pair.peers[s.index()], p.peer_mac?)))
        .collect();
    let mut s = ServicePlane::new(pair.interfaces, bed.service_pool, bed.dpdk_hz, &[])
        .with_vlan(Side::N3, pair.vlans.tags[0])
        .with_vlan(Side::N6, pair.vlans.tags[1])
        .with_one_port(pair.vlans.one_port);
    for (side, p) in [(Side::N3, &config.n3), (Side::N6, &config.n6)] {
        // An IPv6 port asks for its peer by a Neighbor Solicitation from its own address.
        if let (_, Some(v6)) = port_interfaces(MacAddr::default(), p.address.addr, p.address.len) {
            s = s.with_ipv6(side, v6);
        }
    }
    for (side, ip, mac) in known {
        s = s.with_neighbour(side, ip, mac);
    }
    s
}
