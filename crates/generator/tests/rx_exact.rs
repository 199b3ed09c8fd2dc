//! RX measurement is exact on crafted traffic: a real worker
//! (datapath::generator::worker::Worker) on lcore 1 receives on two ring-pair ports (N3 and N6)
//! what the main lcore sends from their peers — downlink G-PDUs and uplink plain frames with measurement tags, with known drops,
//! reorders and duplicates, and foreign frames of every kind — and every figure comes out
//! exactly: sent, lost, reordered, duplicates per direction, rejects per kind, latency samples
//! for every measured packet. An ARP request for our N6 address is answered on the wire.
//!
//! The same traffic again in one-port mode (`one_port_tagged`): N3's frames tagged VLAN 13 and
//! N6's VLAN 16, all on one ring pair (N3 is its queue 0, N6 its queue 1) and all sent to queue
//! 0: the worker tells them apart by VLAN and the figures are the same; the tags count in the
//! bytes, the ARP reply goes out tagged on N6's queue, frames of another VLAN or none are
//! counted by the service plane and dropped.
//!
//! EAL initialises once per process: this is a `harness = false` test binary, its EAL
//! (`--no-huge`) and its runner upfbench-testkit's, which print the outcome the way libtest does.
#![allow(clippy::print_stdout)]

use std::net::Ipv4Addr;
use std::process::ExitCode;
use std::time::{Duration, Instant};

use upfbench_config as config;
use upfbench_datapath::queues::{PortQueues, Side};
use upfbench_datapath::service::{Interface, Seen, ServicePlane};
use upfbench_datapath::vlan::{PortTags, PortVlans};
use upfbench_dpdk::{
    DEFAULT_DATA_ROOM, Eal, MbufBurst, Mempool, Port, PortConfig, Socket, TxQueue, tsc,
};
use upfbench_generator::datapath::classify::{Reject, RxRules};
use upfbench_generator::datapath::clock::Clock;
use upfbench_generator::datapath::worker::Worker;
use upfbench_gtpu::{
    Encapsulator, Ipv4Repr, OuterHeaders, PduSessionContainer, UdpChecksum, UdpRepr, emit_ipv4_udp,
};
use upfbench_net::tag::Tag;
use upfbench_net::{MacAddr, Qfi, TaggedEthernetRepr, Teid, VlanId, ipv4, udp};
use upfbench_run::phase::{Phase, PhaseBoard};
use upfbench_run::plan::{self, Plan};
use upfbench_stats::{Direction, RunResult, RxConfig, RxStats, StreamSpec, TxCoreResult, TxStats};
use upfbench_testkit::eal::{self, EalSetup};
use upfbench_testkit::runner::{CaseResult, Runner};

const SYSTEM: &str = include_str!("../../../deploy/systems/memif.yaml");
/// 4 UEs; stream 0 uplink over UEs 0-1, stream 1 downlink over UEs 2-3; QFI 9.
const PROFILE: &str = "name: rx\nsessions: {count: 4, qfi: 9}\nstreams:\n  - {name: ul, direction: uplink, rate: 1kpps, payload: 20, ues: {first: 0, count: 2}}\n  - {name: dl, direction: downlink, rate: 1kpps, payload: 20, ues: {first: 2, count: 2}}\nduration: 1s\n";

const N3_US: Ipv4Addr = Ipv4Addr::new(192, 168, 13, 131);
const N6_US: Ipv4Addr = Ipv4Addr::new(192, 168, 16, 152);
const UPF_N3: Ipv4Addr = Ipv4Addr::new(192, 168, 13, 151);
const PEER_MAC: MacAddr = MacAddr([2, 0, 0, 0, 0, 0x51]);
/// The profile's QFI, and another one.
const QFI: Qfi = Qfi::from_bits(9);
const OTHER_QFI: Qfi = Qfi::from_bits(8);

fn plan() -> Plan {
    let (s, p) = config::run_from_str(SYSTEM, "memif.yaml", PROFILE, "rx.yaml").expect("valid");
    plan::build(&s, &p, None, [Some(1e10), Some(1e10)]).expect("plan")
}

fn ip_udp(src: Ipv4Addr, dst: Ipv4Addr, ports: (u16, u16), payload: &[u8]) -> Vec<u8> {
    let mut buf = vec![0u8; ipv4::MIN_HEADER_LEN + udp::HEADER_LEN + payload.len()];
    let ip = Ipv4Repr::udp(src, dst);
    let udp = UdpRepr {
        source_port: ports.0,
        destination_port: ports.1,
    };
    let n = emit_ipv4_udp(&mut buf, &ip, &udp, payload, UdpChecksum::Compute).expect("emit");
    buf.truncate(n);
    buf
}

fn payload(stream: u16, seq: u32) -> Vec<u8> {
    let mut p = Tag {
        stream,
        sequence: seq,
        tx_time: 0,
    }
    .to_bytes()
    .to_vec();
    p.resize(20, 0);
    p
}

fn eth(dst: MacAddr, ethertype: u16, body: &[u8]) -> Vec<u8> {
    let mut f = dst.0.to_vec();
    f.extend_from_slice(&PEER_MAC.0);
    f.extend_from_slice(&ethertype.to_be_bytes());
    f.extend_from_slice(body);
    f
}

/// A downlink G-PDU from the UPF to UE `ue` with `teid` and a container with `qfi`.
fn downlink(plan: &Plan, us: MacAddr, ue: u32, teid: Teid, qfi: Qfi, seq: u32) -> Vec<u8> {
    let inner = ip_udp(
        N6_US,
        plan.ues.address_v4(ue),
        (10000, 20000),
        &payload(1, seq),
    );
    let mut outer = OuterHeaders::new(PEER_MAC, us, UPF_N3, N3_US, teid);
    outer.pdu_session_container = Some(PduSessionContainer::downlink(qfi));
    let e = Encapsulator::new(&outer).unwrap();
    let at = e.outer_len();
    let mut buf = vec![0u8; at + inner.len()];
    buf[at..].copy_from_slice(&inner);
    let end = buf.len();
    let r = e.encapsulate(&mut buf, at..end).unwrap();
    buf[r].to_vec()
}

/// An uplink packet decapsulated by the UPF, from UE `ue`.
fn uplink(plan: &Plan, us: MacAddr, ue: u32, seq: u32) -> Vec<u8> {
    eth(
        us,
        0x0800,
        &ip_udp(
            plan.ues.address_v4(ue),
            N6_US,
            (10000, 20000),
            &payload(0, seq),
        ),
    )
}

fn arp_request(target: Ipv4Addr) -> Vec<u8> {
    let mut a = vec![0, 1, 8, 0, 6, 4, 0, 1];
    a.extend_from_slice(&PEER_MAC.0);
    a.extend_from_slice(&[192, 168, 16, 151]);
    a.extend_from_slice(&[0; 6]);
    a.extend_from_slice(&target.octets());
    eth(MacAddr([0xff; 6]), 0x0806, &a)
}

fn send<'p>(txq: &mut TxQueue<'p>, pool: &Mempool<'p>, frames: &[Vec<u8>]) {
    for chunk in frames.chunks(16) {
        let mut burst = MbufBurst::<16>::new();
        for f in chunk {
            let mut m = pool.alloc().expect("mbuf");
            m.extend_from_slice(f).expect("room");
            burst.push(m).map_err(|_| ()).expect("room in burst");
        }
        while !burst.is_empty() {
            txq.tx_burst(&mut burst);
        }
    }
}

/// Sequence numbers 0..100 with the given edits, for one flow.
fn sequence(edit: impl Fn(&mut Vec<u32>)) -> Vec<u32> {
    let mut s: Vec<u32> = (0..100).collect();
    edit(&mut s);
    s
}

/// Our N3 and N6 interfaces, for the service plane.
fn interfaces(us: [MacAddr; 2]) -> [Interface; 2] {
    [
        Interface {
            mac: us[0],
            address: N3_US,
            prefix_len: 24,
            secondary: None,
        },
        Interface {
            mac: us[1],
            address: N6_US,
            prefix_len: 24,
            secondary: None,
        },
    ]
}

/// One stream spec per flow (per UE of each stream), numbered from 0.
fn stream_specs(plan: &Plan) -> Vec<StreamSpec> {
    plan.streams
        .iter()
        .flat_map(|s| {
            std::iter::repeat_n(
                StreamSpec {
                    direction: s.direction,
                    first_seq: 0,
                },
                s.ue_count() as usize,
            )
        })
        .collect()
}

/// The frames sent to N3 and to N6: the four flows' packets, with their drops, swap and
/// duplicates, interleaved, then the foreign frames and an ARP request.
fn crafted_frames(plan: &Plan, us: [MacAddr; 2]) -> (Vec<Vec<u8>>, Vec<Vec<u8>>) {
    // Flows: 0 = UL UE0 (10 and 20 dropped), 1 = UL UE1 (30, 31 swapped), 2 = DL UE2 (50 sent
    // twice), 3 = DL UE3 (clean).
    let ue0 = sequence(|s| s.retain(|&q| q != 10 && q != 20));
    let ue1 = sequence(|s| s.swap(30, 31));
    let ue2 = sequence(|s| s.insert(51, 50));
    let ue3 = sequence(|_| {});
    let dl_teid = |ue: u32| plan.ues.downlink_teid.get(ue);
    let interleave = |a: &[u32], b: &[u32], f: &dyn Fn(usize, u32) -> Vec<u8>| {
        let mut out = Vec::new();
        for i in 0..a.len().max(b.len()) {
            out.extend(a.get(i).map(|&q| f(0, q)));
            out.extend(b.get(i).map(|&q| f(1, q)));
        }
        out
    };
    let mut n6_frames = interleave(&ue0, &ue1, &|k, q| uplink(plan, us[1], k as u32, q));
    // Seq 99 of UE1 once more: a duplicate.
    n6_frames.push(uplink(plan, us[1], 1, 99));
    let mut n3_frames = interleave(&ue2, &ue3, &|k, q| {
        let ue = 2 + k as u32;
        downlink(plan, us[0], ue, dl_teid(ue), QFI, q)
    });
    // Foreign traffic: 3 G-PDUs to a wrong TEID, 2 with a wrong QFI, 1 UDP not GTP-U on N3;
    // 4 uplink packets from an unknown UE (UE 2 is downlink-only) and 1 IPv6 frame on N6
    // whose next header (0x60) is neither UDP nor ICMPv6.
    for _ in 0..3 {
        n3_frames.push(downlink(plan, us[0], 3, Teid(0x7777), QFI, 1));
    }
    for _ in 0..2 {
        n3_frames.push(downlink(plan, us[0], 3, dl_teid(3), OTHER_QFI, 2));
    }
    n3_frames.push(eth(
        us[0],
        0x0800,
        &ip_udp(UPF_N3, N3_US, (53, 53), &[0; 20]),
    ));
    for _ in 0..4 {
        n6_frames.push(uplink(plan, us[1], 2, 5));
    }
    n6_frames.push(eth(us[1], 0x86dd, &[0x60; 60]));
    n6_frames.push(arp_request(N6_US));
    (n3_frames, n6_frames)
}

/// 199 uplink and 201 downlink packets are measured; the rings deliver in order, so once they
/// are all counted only the foreign frames behind them may still be in flight.
fn wait_until_measured(rx_handle: &upfbench_stats::RxHandle) {
    let deadline = Instant::now() + Duration::from_secs(5);
    loop {
        let snap = rx_handle.snapshot();
        let seen = snap.directions[0].traffic.packets + snap.directions[1].traffic.packets;
        if seen == 400 {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "the worker measured {seen} of 400"
        );
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// Uplink and downlink: sent, lost, reordered and duplicated packets, a latency sample each.
fn check_sequences(merged: &RunResult) {
    let ul = merged.direction(Direction::Uplink);
    let dl = merged.direction(Direction::Downlink);
    println!("uplink: {:?}", ul.seq);
    println!("downlink: {:?}", dl.seq);
    // Uplink: UE0 lost 10 and 20; UE1 one reordered; one extra 99 of UE1 is a duplicate.
    assert_eq!(
        (
            ul.seq.sent,
            ul.seq.lost,
            ul.seq.reordered,
            ul.seq.duplicates
        ),
        (200, 2, 1, 1)
    );
    assert_eq!(ul.rx.packets, 98 + 100 + 1);
    // Downlink: UE2's 50 twice; UE3 complete.
    assert_eq!(
        (
            dl.seq.sent,
            dl.seq.lost,
            dl.seq.reordered,
            dl.seq.duplicates
        ),
        (200, 0, 0, 1)
    );
    assert_eq!(dl.rx.packets, 101 + 100);
    assert_eq!(
        ul.latency.count(),
        ul.rx.packets,
        "a latency sample per measured packet"
    );
    assert_eq!(dl.latency.count(), dl.rx.packets);
}

/// Every foreign frame rejected for its reason, nothing else.
fn check_rejects(counters: &upfbench_generator::datapath::worker::WorkerCounters) {
    let n3 = &counters.rejects[Side::N3.index()];
    let n6 = &counters.rejects[Side::N6.index()];
    assert_eq!(n3[Reject::WrongTeid as usize], 3);
    assert_eq!(n3[Reject::WrongQfi as usize], 2);
    assert_eq!(n3[Reject::NotGtpu as usize], 1);
    assert_eq!(n6[Reject::UnknownUe as usize], 4);
    assert_eq!(n6[Reject::Malformed as usize], 1);
    assert_eq!(
        n3.iter().sum::<u64>() + n6.iter().sum::<u64>(),
        11,
        "nothing else rejected"
    );
}

/// Every frame by kind: measured downlink on N3 and uplink on N6, the ARP request to the
/// service plane and its reply out of it, the foreign frames rejected; nothing unmeasured
/// (the whole test is the measured phase) and nothing sent but the reply.
fn check_frames_add_up(
    c: &upfbench_generator::datapath::worker::WorkerCounters,
    stats: &[upfbench_dpdk::PortStats; 2],
    frames: [&[Vec<u8>]; 2],
) {
    let (i3, i6) = (Side::N3.index(), Side::N6.index());
    assert_eq!((c.rx_measured[i3], c.rx_measured[i6]), (201, 199));
    assert_eq!(c.unmeasured, [0, 0]);
    assert_eq!((c.rx_service[i3], c.rx_service[i6]), (0, 1));
    assert_eq!((c.tx_service[i3], c.tx_service[i6]), (0, 1));
    assert_eq!(c.tx_measured, [0, 0]);
    assert_eq!(c.tx_warmup, [0, 0]);
    // ... and adds up to what the ports counted.
    for (i, stats, frames) in [(i3, &stats[0], frames[0]), (i6, &stats[1], frames[1])] {
        let rejected: u64 = c.rejects[i].iter().sum();
        let received = c.rx_measured[i] + c.unmeasured[i] + c.rx_service[i] + rejected;
        assert_eq!(received, frames.len() as u64, "port {i}: frames sent to it");
        assert_eq!(stats.ipackets, received, "port {i}: its own count");
        assert_eq!(stats.opackets, c.tx_service[i], "port {i}: sent");
    }
}

/// One ARP reply, to the peer, saying where our N6 address is.
fn check_arp_reply(replies: &[Vec<u8>]) {
    let arp: Vec<_> = replies
        .iter()
        .filter(|f| f[12..14] == [0x08, 0x06])
        .collect();
    assert_eq!(arp.len(), 1, "one ARP reply");
    assert_eq!(&arp[0][0..6], &PEER_MAC.0);
    assert_eq!(
        &arp[0][28..32],
        &N6_US.octets(),
        "it says where our N6 address is"
    );
}

fn scenario(eal: &Eal) -> Result<(), Box<dyn std::error::Error>> {
    let plan = plan();
    let pool = Mempool::new(eal, "rx-exact", 8191, 64, DEFAULT_DATA_ROOM, Socket::Any)?;
    let [n3_id, n3_peer_id] = eal.create_ring_pair(["n3", "n3peer"], 1)?;
    let [n6_id, n6_peer_id] = eal.create_ring_pair(["n6", "n6peer"], 1)?;
    let (mut n3, mut n3p) = (Port::by_id(eal, n3_id)?, Port::by_id(eal, n3_peer_id)?);
    let (mut n6, mut n6p) = (Port::by_id(eal, n6_id)?, Port::by_id(eal, n6_peer_id)?);
    let us = [MacAddr(n3.mac()?.0), MacAddr(n6.mac()?.0)];
    let cfg = PortConfig::default();
    let (s3, s3p) = (n3.start(&cfg, &pool)?, n3p.start(&cfg, &pool)?);
    let (s6, s6p) = (n6.start(&cfg, &pool)?, n6p.start(&cfg, &pool)?);
    let (mut q3, mut q3p) = (s3.queues()?, s3p.queues()?);
    let (mut q6, mut q6p) = (s6.queues()?, s6p.queues()?);
    let ports = [
        PortQueues {
            rx: q3.rx.remove(0),
            tx: q3.tx.remove(0),
        },
        PortQueues {
            rx: q6.rx.remove(0),
            tx: q6.tx.remove(0),
        },
    ];
    let interfaces = interfaces(us);
    let specs = stream_specs(&plan);
    let rules = RxRules::new(plan.ues, plan.qfi, &plan.streams);
    let rx_config = RxConfig {
        reorder_window: 64,
        ..RxConfig::default()
    };
    let (rx, rx_handle) = RxStats::new(0, &specs, &rx_config)?;
    let (tx, _) = TxStats::new(0, &specs);
    let clock = Clock::new(eal.tsc_hz(), tsc());
    let service = ServicePlane::new(interfaces, pool, eal.tsc_hz(), &[]);
    let worker = receiving_worker(ports, &rules, (rx, tx), service, clock);
    let control = PhaseBoard::new();
    // The tags say they were sent at 0: the clock's start, and the measured phase's epoch.
    control.set(Phase::Measure, clock.start());

    let (n3_frames, n6_frames) = crafted_frames(&plan, us);

    let result = eal.scope(|s| -> Result<_, Box<dyn std::error::Error>> {
        let h = s.launch(1, || worker.poll_until_stopped(&control))?;
        let mut tx3 = q3p.tx.remove(0);
        let mut tx6 = q6p.tx.remove(0);
        send(&mut tx3, &pool, &n3_frames);
        send(&mut tx6, &pool, &n6_frames);
        wait_until_measured(&rx_handle);
        std::thread::sleep(Duration::from_millis(200));
        control.set(Phase::Drain, tsc());
        control.set(Phase::Stop, tsc());
        let r = h.join().map_err(|_| "the worker panicked")?;
        let stats = [s3.stats()?, s6.stats()?];
        // The ARP reply went out on N6.
        let mut rx6p = q6p.rx.remove(0);
        let mut burst = MbufBurst::<32>::new();
        rx6p.rx_burst(&mut burst);
        let replies: Vec<Vec<u8>> = burst.iter().map(|m| m.data().to_vec()).collect();
        Ok((r, replies, stats))
    })?;
    let (r, replies, stats) = result;
    let sent = sent_by_the_peer();
    let merged = RunResult::merge(&specs, &[sent], &[r.rx], &rx_config.latency)?;
    check_sequences(&merged);
    check_rejects(&r.counters);
    check_frames_add_up(&r.counters, &stats, [&n3_frames, &n6_frames]);
    check_arp_reply(&replies);
    Ok(())
}

/// What the "sender" sent: 100 positions per flow.
fn sent_by_the_peer() -> TxCoreResult {
    TxCoreResult {
        core: 0,
        sent: vec![100; 4],
        directions: Default::default(),
        unknown_stream: 0,
    }
}

/// A worker that only receives, on `ports`.
fn receiving_worker<'p>(
    ports: [PortQueues<'p>; 2],
    rules: &'p RxRules,
    (rx, tx): (RxStats, TxStats),
    service: ServicePlane<'p>,
    clock: Clock,
) -> Worker<'p> {
    Worker {
        index: 0,
        ports,
        shares: Vec::new(),
        warmup: Vec::new(),
        probes: None,
        qos: None,
        rules,
        rx,
        tx,
        service,
        clock,
        flush_ns: 0,
    }
}

fn vid(v: u16) -> VlanId {
    VlanId::new(v).expect("a VLAN id")
}

/// The one-port run's figures: those of the two-port run, the foreign VLANs counted, the
/// reply tagged on N6's queue (`on_n6`; `on_n3` frames went out on N3's), the tags in the bytes.
fn check_one_port(
    merged: &RunResult,
    counters: &upfbench_generator::datapath::worker::WorkerCounters,
    on_n6: &[Vec<u8>],
    on_n3: usize,
    tags: &[PortTags; 2],
    [n3_tagged, n6_tagged]: [&[Vec<u8>]; 2],
) {
    check_sequences(merged);
    check_rejects(counters);
    let c = counters;
    assert_eq!((c.rx_measured[0], c.rx_measured[1]), (201, 199));
    // The ARP request on N6, and the two foreign frames that came on N3's queue.
    assert_eq!((c.rx_service[0], c.rx_service[1]), (2, 1));
    assert_eq!(c.service_seen[0][Seen::OtherVlan as usize], 2);
    assert_eq!((c.tx_service[0], c.tx_service[1], on_n3), (0, 1, 0));
    // The reply: tagged VLAN 16, on N6's queue.
    assert_eq!(on_n6.len(), 1);
    let reply = TaggedEthernetRepr::parse(&on_n6[0]).expect("an Ethernet frame");
    assert_eq!((reply.tags, reply.ethertype), (tags[1].tags(), 0x0806));
    assert_eq!(
        &on_n6[0][32..36],
        &N6_US.octets(),
        "our N6 address, 4 octets later"
    );
    // Every measured byte counts its tag: 4 more a frame than untagged.
    for (d, frame) in [
        (Direction::Uplink, &n6_tagged[0]),
        (Direction::Downlink, &n3_tagged[0]),
    ] {
        let rx = merged.direction(d).rx;
        assert_eq!(rx.bytes_l2, rx.packets * (frame.len() as u64 + 4), "{d:?}");
    }
}

fn one_port_tagged(eal: &Eal) -> Result<(), Box<dyn std::error::Error>> {
    let plan = plan();
    let pool = Mempool::new(eal, "rx-one", 8191, 64, DEFAULT_DATA_ROOM, Socket::Any)?;
    let [id, peer_id] = eal.create_ring_pair(["one", "onepeer"], 2)?;
    let (mut port, mut peer) = (Port::by_id(eal, id)?, Port::by_id(eal, peer_id)?);
    let mac = MacAddr(port.mac()?.0);
    let cfg = PortConfig {
        rx_queues: 2,
        tx_queues: 2,
        ..PortConfig::default()
    };
    let (started, started_peer) = (port.start(&cfg, &pool)?, peer.start(&cfg, &pool)?);
    let (mut q, mut qp) = (started.queues()?, started_peer.queues()?);
    let (rx6, tx6) = (q.rx.remove(1), q.tx.remove(1));
    let ports = [
        PortQueues {
            rx: q.rx.remove(0),
            tx: q.tx.remove(0),
        },
        PortQueues { rx: rx6, tx: tx6 },
    ];
    let tags = [
        PortTags::dot1q(vid(13), 5, None).unwrap(),
        PortTags::dot1q(vid(16), 0, None).unwrap(),
    ];
    let specs = stream_specs(&plan);
    let rules = RxRules::new(plan.ues, plan.qfi, &plan.streams).with_vlans(PortVlans {
        tags,
        one_port: true,
    });
    let rx_config = RxConfig {
        reorder_window: 64,
        ..RxConfig::default()
    };
    let (rx, rx_handle) = RxStats::new(0, &specs, &rx_config)?;
    let (tx, _) = TxStats::new(0, &specs);
    let clock = Clock::new(eal.tsc_hz(), tsc());
    let service = ServicePlane::new(interfaces([mac, mac]), pool, eal.tsc_hz(), &[])
        .with_vlan(Side::N3, tags[0])
        .with_vlan(Side::N6, tags[1]);
    let worker = receiving_worker(ports, &rules, (rx, tx), service, clock);
    let control = PhaseBoard::new();
    control.set(Phase::Measure, clock.start());
    let (n3_frames, n6_frames) = crafted_frames(&plan, [mac, mac]);
    let n3_tagged: Vec<Vec<u8>> = n3_frames.iter().map(|f| tags[0].tagged(f)).collect();
    let n6_tagged: Vec<Vec<u8>> = n6_frames.iter().map(|f| tags[1].tagged(f)).collect();
    let other = PortTags::dot1q(vid(99), 0, None).unwrap();
    let foreign = [n6_frames[0].clone(), other.tagged(&n6_frames[0])];
    let result = eal.scope(|s| -> Result<_, Box<dyn std::error::Error>> {
        let h = s.launch(1, || worker.poll_until_stopped(&control))?;
        let mut to_us = qp.tx.remove(0);
        send(&mut to_us, &pool, &n3_tagged);
        send(&mut to_us, &pool, &n6_tagged);
        send(&mut to_us, &pool, &foreign);
        wait_until_measured(&rx_handle);
        std::thread::sleep(Duration::from_millis(200));
        control.set(Phase::Drain, tsc());
        control.set(Phase::Stop, tsc());
        let r = h.join().map_err(|_| "the worker panicked")?;
        let mut burst = MbufBurst::<32>::new();
        qp.rx[1].rx_burst(&mut burst);
        let on_n6: Vec<Vec<u8>> = burst.iter().map(|m| m.data().to_vec()).collect();
        burst.clear();
        qp.rx[0].rx_burst(&mut burst);
        Ok((r, on_n6, burst.len()))
    })?;
    let (r, on_n6, on_n3) = result;
    let sent = sent_by_the_peer();
    let merged = RunResult::merge(&specs, &[sent], &[r.rx], &rx_config.latency)?;
    check_one_port(
        &merged,
        &r.counters,
        &on_n6,
        on_n3,
        &tags,
        [&n3_tagged, &n6_tagged],
    );
    Ok(())
}

fn main() -> ExitCode {
    let cases = [
        ("rx_exact", scenario as fn(&Eal) -> CaseResult),
        ("one_port_tagged", one_port_tagged),
    ];
    let setup = EalSetup::new("rx-exact").lcores("0,1").memory_mb(512);
    eal::main(Runner::new(cases), setup, |eal, runner| {
        runner.run(|case| case(eal).into())
    })
}
