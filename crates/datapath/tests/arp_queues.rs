//! ARP through the service plane on ports with a queue per worker, and on a port that refuses
//! frames (a vhost or memif port before its peer connects refuses every one):
//! - the resolution before traffic (`port_setup::resolve`) on ports of two queues, joined by
//!   ring pairs to a peer that has a worker per queue (the reflector over memif or vhost: its
//!   queue `i` is ours): our request goes out on both queues (each of the peer's workers learns
//!   our MAC from it), and the peer's request that came in on queue 1 is answered on queue 1
//!   alone, where the peer's worker 1 waits for it;
//! - a service plane whose port refused its ARP request asks again at the next `resolve`, not
//!   an ARP retry interval later; a request the port took is paced as before.
//!
//! - on a tagged port, the service plane answers a Neighbor Solicitation that carries the
//!   port's VLAN with a tagged advertisement, drops (and counts) what carries another VLAN or
//!   none, and resolves an IPv6 peer by a tagged solicitation;
//! - in one-port mode a frame with the other port's tags (in the frame, or stripped by the NIC)
//!   is the other port's, whichever queue it came on (af_packet's fanout spreads them).
//!
//! EAL initialises once per process: this is a `harness = false` test binary, its EAL
//! (`--no-huge`) and its runner upfbench-testkit's, which print the outcome the way libtest does.
#![allow(clippy::print_stdout)]

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};
use std::process::ExitCode;
use std::time::Duration;

use upfbench_datapath::port_setup::{resolve, split_queues};
use upfbench_datapath::queues::Side;
use upfbench_datapath::service::{Interface, Interface6, Seen, ServicePlane};
use upfbench_datapath::vlan::PortTags;
use upfbench_dpdk::{
    DEFAULT_DATA_ROOM, Eal, MbufBurst, Mempool, Port, PortConfig, RxQueue, Socket, StrippedTags,
    TxQueue, tsc,
};
use upfbench_net::ipv6::solicited_node;
use upfbench_net::ndp::NeighborSolicit;
use upfbench_net::{
    Icmpv6Packet, Icmpv6Repr, Ipv6Packet, Ipv6Repr, MacAddr, TaggedEthernetRepr, VlanId, VlanTags,
};
use upfbench_testkit::eal::{self, EalSetup};
use upfbench_testkit::runner::Runner;

const N3_US: Ipv4Addr = Ipv4Addr::new(192, 168, 13, 131);
const N6_US: Ipv4Addr = Ipv4Addr::new(192, 168, 16, 152);
const PEER_N3: Ipv4Addr = Ipv4Addr::new(192, 168, 13, 151);
const PEER_MAC: MacAddr = MacAddr([2, 0, 0, 0, 0, 0x51]);

type Outcome = Result<(), String>;
/// A case: its outcome on the process's EAL.
type Case = fn(&Eal) -> Outcome;

fn check(ok: bool, what: impl FnOnce() -> String) -> Outcome {
    if ok { Ok(()) } else { Err(what()) }
}

fn interfaces(macs: [MacAddr; 2]) -> [Interface; 2] {
    [
        Interface {
            mac: macs[0],
            address: N3_US,
            prefix_len: 24,
            secondary: None,
        },
        Interface {
            mac: macs[1],
            address: N6_US,
            prefix_len: 24,
            secondary: None,
        },
    ]
}

/// The peer's ARP request for our N3 address.
fn peer_request() -> Vec<u8> {
    let mut f = vec![0xff; 6];
    f.extend_from_slice(&PEER_MAC.0);
    f.extend_from_slice(&[0x08, 0x06, 0, 1, 8, 0, 6, 4, 0, 1]);
    f.extend_from_slice(&PEER_MAC.0);
    f.extend_from_slice(&PEER_N3.octets());
    f.extend_from_slice(&[0; 6]);
    f.extend_from_slice(&N3_US.octets());
    f
}

/// ARP's operation (1 request, 2 reply) and target address, `None` for a frame that is not
/// ARP.
fn arp(frame: &[u8]) -> Option<(u16, Ipv4Addr)> {
    if frame.len() < 42 || frame[12..14] != [0x08, 0x06] {
        return None;
    }
    let op = u16::from_be_bytes([frame[20], frame[21]]);
    let target: [u8; 4] = frame[38..42].try_into().ok()?;
    Some((op, Ipv4Addr::from(target)))
}

fn send<'p>(txq: &mut TxQueue<'p>, pool: &Mempool<'p>, frame: &[u8]) -> usize {
    let mut burst = MbufBurst::<1>::new();
    let mut m = pool.alloc().expect("mbuf");
    m.extend_from_slice(frame).expect("room");
    burst.push(m).map_err(|_| ()).expect("room in burst");
    txq.tx_burst(&mut burst)
}

/// Everything waiting on `rx`, each frame's bytes.
fn drain(rx: &mut RxQueue<'_>) -> Vec<Vec<u8>> {
    let mut frames = Vec::new();
    loop {
        let mut burst = MbufBurst::<64>::new();
        if rx.rx_burst(&mut burst) == 0 {
            return frames;
        }
        frames.extend(burst.iter().map(|m| m.data().to_vec()));
    }
}

fn on_two_queues_we_ask_on_both_and_answer_on_the_requests_queue(eal: &Eal) -> Outcome {
    let e = |e: upfbench_dpdk::Error| e.to_string();
    let pool = Mempool::new(eal, "aq-rx", 8191, 256, DEFAULT_DATA_ROOM, Socket::Any).map_err(e)?;
    let service_pool =
        Mempool::new(eal, "aq-service", 511, 0, DEFAULT_DATA_ROOM, Socket::Any).map_err(e)?;
    let [a3, p3] = eal.create_ring_pair(["aq3", "aq3peer"], 2).map_err(e)?;
    let [a6, p6] = eal.create_ring_pair(["aq6", "aq6peer"], 2).map_err(e)?;
    let mut ports = [a3, p3, a6, p6].map(|id| Port::by_id(eal, id).expect("port"));
    let macs = [ports[0].mac().map_err(e)?, ports[2].mac().map_err(e)?];
    let cfg = PortConfig {
        rx_queues: 2,
        tx_queues: 2,
        ..PortConfig::default()
    };
    let [us3, peer3, us6, peer6] = &mut ports;
    let (s3, sp3) = (
        us3.start(&cfg, &pool).map_err(e)?,
        peer3.start(&cfg, &pool).map_err(e)?,
    );
    let (s6, _sp6) = (
        us6.start(&cfg, &pool).map_err(e)?,
        peer6.start(&cfg, &pool).map_err(e)?,
    );
    let mut queues = split_queues(s3.queues().map_err(e)?, s6.queues().map_err(e)?);
    let mut peer = sp3.queues().map_err(e)?;
    let mut service = ServicePlane::new(interfaces(macs), service_pool, eal.tsc_hz(), &[]);

    // The peer's worker 1 asks for our N3 address on its queue 1.
    check(send(&mut peer.tx[1], &pool, &peer_request()) == 1, || {
        "the peer's request was not sent".into()
    })?;
    let macs = resolve(
        &mut queues,
        &mut service,
        &[(Side::N3, PEER_N3.into())],
        Duration::from_millis(100),
        3,
        &|| false,
    )
    .map_err(|e| e.to_string())?;
    check(macs == [PEER_MAC], || format!("resolved {macs:?}"))?;
    let on = |q: usize, frames: &[Vec<u8>]| -> Vec<Option<(u16, Ipv4Addr)>> {
        println!("arp_queues: peer's N3 queue {q}: {} frames", frames.len());
        frames.iter().map(|f| arp(f)).collect()
    };
    let q0 = on(0, &drain(&mut peer.rx[0]));
    let q1 = on(1, &drain(&mut peer.rx[1]));
    check(q0 == [Some((1, PEER_N3))], || {
        format!("queue 0: our request alone, got {q0:?}")
    })?;
    check(q1 == [Some((1, PEER_N3)), Some((2, PEER_N3))], || {
        format!("queue 1: our request, then the answer to the peer's, got {q1:?}")
    })
}

fn a_refused_request_is_asked_again_at_once(eal: &Eal) -> Outcome {
    let e = |e: upfbench_dpdk::Error| e.to_string();
    let pool = Mempool::new(eal, "ar-rx", 4095, 0, DEFAULT_DATA_ROOM, Socket::Any).map_err(e)?;
    let service_pool =
        Mempool::new(eal, "ar-service", 511, 0, DEFAULT_DATA_ROOM, Socket::Any).map_err(e)?;
    let [a, b] = eal.create_ring_pair(["ar", "arpeer"], 1).map_err(e)?;
    let (mut pa, mut pb) = (
        Port::by_id(eal, a).map_err(e)?,
        Port::by_id(eal, b).map_err(e)?,
    );
    let mac = pa.mac().map_err(e)?;
    let cfg = PortConfig::default();
    let (sa, sb) = (
        pa.start(&cfg, &pool).map_err(e)?,
        pb.start(&cfg, &pool).map_err(e)?,
    );
    let (mut ours, mut peer) = (sa.queues().map_err(e)?, sb.queues().map_err(e)?);
    let tx = &mut ours.tx[0];
    let mut service = ServicePlane::new(interfaces([mac, mac]), service_pool, eal.tsc_hz(), &[]);

    // The peer reads nothing: its ring fills and the port refuses what comes next.
    let mut filled = 0;
    while send(tx, &pool, &peer_request()) == 1 {
        filled += 1;
    }
    let ip = u32::from(PEER_N3);
    let t0 = tsc();
    service.resolve(Side::N3, ip, t0);
    let taken = service.flush(Side::N3, tx);
    let c = *service.counters();
    check(
        taken == 0 && c.arp_requests == 1 && c.tx_refused == 1,
        || format!("the full ring ({filled} frames) took {taken}: {c:?}"),
    )?;
    check(drain(&mut peer.rx[0]).len() == filled, || "drain".into())?;

    // Refused: asked again at once, and taken now.
    service.resolve(Side::N3, ip, t0 + 1);
    let taken = service.flush(Side::N3, tx);
    let c = *service.counters();
    check(taken == 1 && c.arp_requests == 2, || {
        format!("the refused request was not asked again: took {taken}, {c:?}")
    })?;
    let got: Vec<_> = drain(&mut peer.rx[0]).iter().map(|f| arp(f)).collect();
    check(got == [Some((1, PEER_N3))], || {
        format!("the peer got {got:?}")
    })?;

    // Taken: the next one waits for the ARP retry interval.
    service.resolve(Side::N3, ip, t0 + 2);
    let taken = service.flush(Side::N3, tx);
    let c = *service.counters();
    check(taken == 0 && c.arp_requests == 2, || {
        format!("a request the port took was asked again at once: {c:?}")
    })?;
    println!(
        "arp_queues: refused {} then taken, counters {c:?}",
        c.tx_refused
    );
    Ok(())
}

const N3_US6: Ipv6Addr = Ipv6Addr::new(0x2001, 0xdb8, 0x13, 0, 0, 0, 0, 0x131);
const PEER_N3_6: Ipv6Addr = Ipv6Addr::new(0x2001, 0xdb8, 0x13, 0, 0, 0, 0, 0x151);

/// An ICMPv6 message from the peer, tagged with `tags`.
fn peer_icmpv6(tags: VlanTags, dst: Ipv6Addr, m: &Icmpv6Repr<'_>) -> Vec<u8> {
    let eth = TaggedEthernetRepr {
        source: PEER_MAC,
        destination: MacAddr::ipv6_multicast(dst),
        tags,
        ethertype: 0x86dd,
    };
    let h = eth.header_len();
    let mut f = vec![0u8; h + 40 + m.buffer_len()];
    eth.emit(&mut f).unwrap();
    Ipv6Repr {
        source: PEER_N3_6,
        destination: dst,
        next_header: 58,
        payload_len: m.buffer_len(),
        hop_limit: 255,
        traffic_class: 0,
        flow_label: 0,
    }
    .emit(&mut f[h..])
    .unwrap();
    m.emit(&mut f[h + 40..], &PEER_N3_6, &dst).unwrap();
    f
}

/// The tags and ICMPv6 message of a frame, if it is one.
fn read_icmpv6(frame: &[u8]) -> Option<(VlanTags, Icmpv6Repr<'_>)> {
    let eth = TaggedEthernetRepr::parse(frame).ok()?;
    let ip = Ipv6Packet::new_checked(&frame[eth.header_len()..]).ok()?;
    let h = Ipv6Repr::parse(&ip).ok()?;
    let m = Icmpv6Packet::new_checked(&frame[eth.header_len() + 40..]).ok()?;
    let m = Icmpv6Repr::parse(&m, &h.source, &h.destination).ok()?;
    Some((eth.tags, m))
}

/// A service plane whose N3 has our IPv6 address and `tags`.
fn tagged_v6_service<'p>(
    eal: &Eal,
    pool: Mempool<'p>,
    mac: MacAddr,
    tags: PortTags,
) -> ServicePlane<'p> {
    ServicePlane::new(interfaces([mac, mac]), pool, eal.tsc_hz(), &[])
        .with_ipv6(
            Side::N3,
            Interface6 {
                address: N3_US6,
                prefix_len: 64,
                secondary: None,
            },
        )
        .with_vlan(Side::N3, tags)
}

fn a_tagged_port_answers_and_resolves_by_neighbor_discovery(eal: &Eal) -> Outcome {
    let e = |e: upfbench_dpdk::Error| e.to_string();
    let pool = Mempool::new(eal, "nd-rx", 4095, 0, DEFAULT_DATA_ROOM, Socket::Any).map_err(e)?;
    let service_pool =
        Mempool::new(eal, "nd-service", 511, 0, DEFAULT_DATA_ROOM, Socket::Any).map_err(e)?;
    let [a, b] = eal.create_ring_pair(["nd", "ndpeer"], 1).map_err(e)?;
    let (mut pa, mut pb) = (
        Port::by_id(eal, a).map_err(e)?,
        Port::by_id(eal, b).map_err(e)?,
    );
    let mac = pa.mac().map_err(e)?;
    let cfg = PortConfig::default();
    let (sa, sb) = (
        pa.start(&cfg, &pool).map_err(e)?,
        pb.start(&cfg, &pool).map_err(e)?,
    );
    let mut ours = split_queues(sa.queues().map_err(e)?, sb.queues().map_err(e)?);
    // The second "port" of the pair is the peer's end: N6 is not used here.
    let tags = PortTags::dot1q(VlanId::new(13).unwrap(), 5, None).unwrap();
    let mut service = tagged_v6_service(eal, service_pool, mac, tags);
    let asked = Icmpv6Repr::NeighborSolicit(NeighborSolicit::new(N3_US6, PEER_MAC));
    let ours_tagged = peer_icmpv6(tags.tags(), solicited_node(N3_US6), &asked);
    let other = PortTags::dot1q(VlanId::new(14).unwrap(), 0, None).unwrap();
    let other_vlan = peer_icmpv6(other.tags(), solicited_node(N3_US6), &asked);
    let untagged = peer_icmpv6(VlanTags::Untagged, solicited_node(N3_US6), &asked);
    for f in [&ours_tagged, &other_vlan, &untagged] {
        service.handle_any(Side::N3, f);
    }
    let c = *service.counters();
    check(
        c.seen[0][Seen::NdpSolicit as usize] == 1 && c.seen[0][Seen::OtherVlan as usize] == 2,
        || format!("one solicitation answered, two dropped: {c:?}"),
    )?;
    check(
        service.neighbor_v6(Side::N3, PEER_N3_6) == Some(PEER_MAC),
        || "the solicitor was not learned".into(),
    )?;
    let [n3, n6] = &mut ours[0];
    service.flush(Side::N3, &mut n3.tx);
    let got = drain(&mut n6.rx);
    let answer = got.first().and_then(|f| read_icmpv6(f));
    check(
        got.len() == 1
            && matches!(answer, Some((t, Icmpv6Repr::NeighborAdvert(na)))
                if t == tags.tags() && na.target == N3_US6 && na.solicited),
        || format!("a tagged advert, got {} frames: {answer:?}", got.len()),
    )?;

    // Resolving the peer: a tagged solicitation, answered by a tagged advert.
    let pool2 = Mempool::new(eal, "nd-service2", 511, 0, DEFAULT_DATA_ROOM, Socket::Any);
    let mut fresh = tagged_v6_service(eal, pool2.map_err(e)?, mac, tags);
    fresh.resolve_v6(Side::N3, PEER_N3_6, tsc());
    fresh.flush(Side::N3, &mut n3.tx);
    let got = drain(&mut n6.rx);
    let ns = got.first().and_then(|f| read_icmpv6(f));
    check(
        matches!(ns, Some((t, Icmpv6Repr::NeighborSolicit(s))) if t == tags.tags() && s.target == PEER_N3_6),
        || format!("a tagged solicitation, got {ns:?}"),
    )?;
    let (to, advert) = NeighborSolicit::new(PEER_N3_6, mac).advert(N3_US6, PEER_MAC);
    let reply = peer_icmpv6(tags.tags(), to, &Icmpv6Repr::NeighborAdvert(advert));
    fresh.handle_any(Side::N3, &reply);
    check(fresh.confirmed_ip(Side::N3, IpAddr::V6(PEER_N3_6)), || {
        format!(
            "the advert did not resolve the peer: {:?}",
            fresh.counters()
        )
    })?;
    println!("arp_queues: tagged NDP counters {:?}", fresh.counters());
    Ok(())
}

/// In one-port mode (N3 on VLAN 13, N6 on VLAN 16 on one device) a frame with N6's tag that
/// came on N3's queue, in the frame or stripped by the NIC into the mbuf, is N6's; on two
/// devices it is another VLAN's, counted on N3.
fn one_port_frames_go_to_the_port_their_tags_name(eal: &Eal) -> Outcome {
    let e = |e: upfbench_dpdk::Error| e.to_string();
    let pool = Mempool::new(eal, "op-service", 511, 0, DEFAULT_DATA_ROOM, Socket::Any);
    let pool = pool.map_err(e)?;
    let mac = MacAddr([2, 0, 0, 0, 0, 0x31]);
    let n3 = PortTags::dot1q(VlanId::new(13).unwrap(), 5, None).unwrap();
    let n6 = PortTags::dot1q(VlanId::new(16).unwrap(), 0, None).unwrap();
    let asked = Icmpv6Repr::NeighborSolicit(NeighborSolicit::new(N3_US6, PEER_MAC));
    let tagged16 = peer_icmpv6(n6.tags(), solicited_node(N3_US6), &asked);
    let untagged = peer_icmpv6(VlanTags::Untagged, solicited_node(N3_US6), &asked);
    for one_port in [true, false] {
        let mut service = ServicePlane::new(interfaces([mac, mac]), pool, eal.tsc_hz(), &[])
            .with_vlan(Side::N3, n3)
            .with_vlan(Side::N6, n6)
            .with_one_port(one_port);
        service.handle_any(Side::N3, &tagged16);
        service.handle_received(Side::N3, StrippedTags::one(16), &untagged);
        let c = *service.counters();
        let (on_n3, on_n6): (u64, u64) = (c.seen[0].iter().sum(), c.seen[1].iter().sum());
        let other_vlan = c.seen[0][Seen::OtherVlan as usize];
        let want = if one_port { (0, 2, 0) } else { (2, 0, 2) };
        check((on_n3, on_n6, other_vlan) == want, || {
            format!("one port {one_port}: N3 {on_n3}, N6 {on_n6}, other VLAN {other_vlan}: {c:?}")
        })?;
    }
    Ok(())
}

fn main() -> ExitCode {
    let cases: [(&str, Case); 4] = [
        (
            "one_port_frames_go_to_the_port_their_tags_name",
            one_port_frames_go_to_the_port_their_tags_name,
        ),
        (
            "a_tagged_port_answers_and_resolves_by_neighbor_discovery",
            a_tagged_port_answers_and_resolves_by_neighbor_discovery,
        ),
        (
            "on_two_queues_we_ask_on_both_and_answer_on_the_requests_queue",
            on_two_queues_we_ask_on_both_and_answer_on_the_requests_queue,
        ),
        (
            "a_refused_request_is_asked_again_at_once",
            a_refused_request_is_asked_again_at_once,
        ),
    ];
    let setup = EalSetup::new("arp-queues");
    eal::main(Runner::new(cases), setup, |eal, runner| {
        runner.run(|case| case(eal).into())
    })
}
