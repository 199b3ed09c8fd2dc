//! The pairs' workers and their forwarding choice: a worker of pair k takes queue i of pair
//! k's ports, and its routes are pair k's, so that a frame leaves by the pair it came in on;
//! a gNB that pair k's N3 does not reach has no route.

use std::net::Ipv4Addr;

use upfbench_config::{Reflector, reflector_from_str};
use upfbench_datapath::queues::Side;
use upfbench_datapath::service::port_interfaces;
use upfbench_net::MacAddr;

use super::{Seat, seats, spans};
use crate::datapath::route::Route;
use crate::worker_template::impair_config;

/// Two pairs, `a` (workers 1 and 2; N3 192.168.13.0/24, N6 192.168.16.0/24) and `b` (worker 3;
/// N3 192.168.23.0/24, N6 192.168.26.0/24), with `n3_peer_b` as pair b's N3 peer, if any.
fn reflector(n3_peer_b: &str) -> Reflector {
    let port = |i: u32, side: &str, address: &str, extra: &str| {
        format!(
            "{side}: {{device: net_memif{i}, devargs: 'role=server,id=0,socket=/tmp/r{i}.sock', \
             address: {address}/24{extra}}}"
        )
    };
    let text = format!(
        "cores: {{main: 0}}\n\
         pairs:\n  \
           - {{name: a, workers: [1, 2], {}, {}}}\n  \
           - {{name: b, workers: [3], {}, {}}}\n\
         pfcp: {{}}\n\
         impairments: {{rate_cap: 3000pps}}\n",
        port(0, "n3", "192.168.13.151", ""),
        port(1, "n6", "192.168.16.151", ", peer: 192.168.16.152"),
        port(2, "n3", "192.168.23.151", n3_peer_b),
        port(3, "n6", "192.168.26.151", ", peer: 192.168.26.152"),
    );
    reflector_from_str(&text, "r.yaml").unwrap_or_else(|e| panic!("{e}"))
}

/// Each pair's routes as its workers get them (the MACs made up: DPDK gives them).
fn routes(r: &Reflector) -> Vec<[Route; 2]> {
    r.pairs()
        .iter()
        .enumerate()
        .map(|(k, p)| {
            let of = |side: u8, port: &upfbench_config::ReflectorPort| {
                let mac = MacAddr([2, 0, 0, 0, k as u8, side]);
                port_interfaces(mac, port.address.addr, port.address.len)
            };
            let ((n3, n3_v6), (n6, n6_v6)) = (of(3, &p.n3), of(6, &p.n6));
            Route::of_pair([n3, n6], [n3_v6, n6_v6], [p.n3.peer, p.n6.peer])
        })
        .collect()
}

fn ip(text: &str) -> u32 {
    u32::from(text.parse::<Ipv4Addr>().expect("an address"))
}

#[test]
fn each_worker_takes_its_queue_of_its_own_pair() {
    let r = reflector("");
    let seat = |lcore, pair, queue| Seat { lcore, pair, queue };
    assert_eq!(
        seats(r.pairs()),
        [seat(1, 0, 0), seat(2, 0, 1), seat(3, 1, 0)]
    );
    let spans: Vec<_> = spans(r.pairs())
        .into_iter()
        .map(|s| (s.name, s.workers))
        .collect();
    assert_eq!(spans, [("a".to_owned(), 0..2), ("b".to_owned(), 2..3)]);
    // The lcores EAL is given, in the seats' order (a worker's counter cell is its index).
    let lcores: Vec<u32> = seats(r.pairs()).iter().map(|s| s.lcore).collect();
    assert_eq!(lcores, r.cores.workers);
}

#[test]
fn a_downlink_leaves_by_its_own_pair_s_n3_or_has_no_route() {
    let r = reflector("");
    let pairs = routes(&r);
    let n3 = |k: usize| pairs[k][Side::N3.index()];
    // A gNB on pair a's N3 subnet: pair a's N3 sends to it, from pair a's N3 address and MAC.
    let gnb_a = ip("192.168.13.131");
    assert_eq!(n3(0).next_hop(gnb_a), Some(gnb_a));
    assert_eq!(n3(0).interface.address, Ipv4Addr::new(192, 168, 13, 151));
    assert_eq!(n3(0).interface.mac, MacAddr([2, 0, 0, 0, 0, 3]));
    // Pair b's N3 has no peer: a gNB off its subnet has no route there (`no_route`), even one
    // that pair a reaches.
    assert_eq!(n3(1).next_hop(gnb_a), None);
    let gnb_b = ip("192.168.23.131");
    assert_eq!(n3(1).next_hop(gnb_b), Some(gnb_b));
    assert_eq!(n3(0).next_hop(gnb_b), None);
    // With an N3 peer, pair b sends what is off its subnet to that peer: still its own port.
    let routed = routes(&reflector(", peer: 192.168.23.1"));
    assert_eq!(
        routed[1][Side::N3.index()].next_hop(gnb_a),
        Some(ip("192.168.23.1"))
    );
    assert_eq!(routed[0][Side::N3.index()].next_hop(gnb_b), None);
}

#[test]
fn an_uplink_leaves_by_its_own_pair_s_n6() {
    let routes = routes(&reflector(""));
    let dn = ip("10.99.0.1");
    for (k, peer) in [(0, "192.168.16.152"), (1, "192.168.26.152")] {
        let n6 = routes[k][Side::N6.index()];
        assert_eq!(n6.next_hop(dn), Some(ip(peer)), "pair {k}");
        assert_eq!(n6.interface.mac, MacAddr([2, 0, 0, 0, k as u8, 6]));
    }
}

#[test]
fn the_rate_cap_is_the_reflector_s_each_worker_a_share() {
    let r = reflector("");
    // 3 workers over two pairs: each polices a third of the cap.
    let c = impair_config(&r, 1_000_000_000, r.cores.workers.len());
    assert_eq!(c.rate_cap_pps, Some(1000.0));
    assert_eq!(impair_config(&r, 1, 1).rate_cap_pps, Some(3000.0));
}
