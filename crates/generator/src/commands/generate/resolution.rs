//! Before a run's traffic: the UPF's MACs on N3 and N6 asked for (ARP for IPv4 peers,
//! Neighbor Discovery for IPv6 ones) by a service plane that knows the configured ones.

use upfbench_cli::out;
use upfbench_datapath::queues::Side;
use upfbench_datapath::service::{ServicePlane, port_interfaces};
use upfbench_net::MacAddr;

use super::interpreter::Testbed;

/// Says which peers are asked for and how: ARP for IPv4 ones, Neighbor Discovery for IPv6
/// ones (those whose MAC the system file gives are not asked for).
pub(super) fn announce_resolution(system: &upfbench_config::System) {
    let unknown: Vec<_> = [
        (Side::N3, &system.pair(0).n3),
        (Side::N6, &system.pair(0).n6),
    ]
    .into_iter()
    .filter(|(_, p)| p.peer_mac.is_none())
    .collect();
    let asked: Vec<String> = unknown
        .iter()
        .map(|(s, p)| format!("{} {}", s.name(), p.peer))
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

/// The service plane that resolves the UPF's MACs before traffic: the configured MACs known,
/// the ports' VLAN tags on what it sends and expects.
pub(super) fn resolving_service<'p>(bed: &Testbed<'_, 'p>) -> ServicePlane<'p> {
    let system = bed.setup.system;
    let known: Vec<_> = [
        (Side::N3, &system.pair(0).n3),
        (Side::N6, &system.pair(0).n6),
    ]
    .into_iter()
    .filter_map(|(s, p)| Some((s, bed.peers[s.index()], p.peer_mac?)))
    .collect();
    let mut s = ServicePlane::new(bed.interfaces, bed.service_pool, bed.dpdk_hz, &[])
        .with_vlan(Side::N3, bed.vlans.tags[0])
        .with_vlan(Side::N6, bed.vlans.tags[1])
        .with_one_port(bed.vlans.one_port);
    for (side, p) in [
        (Side::N3, &system.pair(0).n3),
        (Side::N6, &system.pair(0).n6),
    ] {
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
