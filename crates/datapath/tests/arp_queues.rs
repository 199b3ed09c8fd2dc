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
//! EAL initialises once per process: this is a `harness = false` test binary, its EAL
//! (`--no-huge`) and its runner upfbench-testkit's, which print the outcome the way libtest does.
#![allow(clippy::print_stdout)]

use std::net::Ipv4Addr;
use std::process::ExitCode;
use std::time::Duration;

use upfbench_datapath::port_setup::{resolve, split_queues};
use upfbench_datapath::queues::Side;
use upfbench_datapath::service::{Interface, ServicePlane};
use upfbench_dpdk::{
    DEFAULT_DATA_ROOM, Eal, MbufBurst, Mempool, Port, PortConfig, RxQueue, Socket, TxQueue, tsc,
};
use upfbench_net::MacAddr;
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
        &[(Side::N3, PEER_N3)],
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

fn main() -> ExitCode {
    let cases: [(&str, Case); 2] = [
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
