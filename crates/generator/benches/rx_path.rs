//! The RX worker's per-packet cost, measured on its own code: `datapath::generator::worker::receive_frame`,
//! which the worker runs for every received frame — parse the frame (outer Ethernet/IPv4/UDP/
//! GTP-U with its extension headers on N3, plain Ethernet/IPv4/UDP on N6), classify it against
//! the run's rules (`RxRules`: the UE from the inner address, its downlink TEID, the QFI, the
//! stream, ports and direction from the tag), track its sequence, record its latency and jitter
//! (`RxStats`). The budget is 15 ns per packet, with and without the PDU Session Container.
//! It runs `receive_frame::<false>`, what the worker runs in a step without QoS windows.
//!
//! 1,024 UEs with an uplink and a downlink stream each (2,048 flows). Frames are built as a UPF
//! sends them back (the testkit's `upf_frames`), laid out as a mempool lays out mbufs (one frame per
//! 2,176-byte slot, 128 bytes of headroom), frame i of UE i mod 1024. Two pool sizes: 256 frames,
//! whose lines stay in the L2 cache (the cost of the code), and 32,768 frames (71 MB, beyond the
//! L3 cache), whose lines come from DRAM as after a NIC's DMA without DDIO. Before each replay of
//! the pool its sequence numbers move on by one lap, untimed, as a running flow's would: every
//! timed packet is a new, in-order packet of its flow.
//!
//! Each case runs three ways (criterion's "time" is per packet): `receive_frame` alone at a fixed
//! receive time, and the worker's per-burst work around it (the TSC read and converted once per
//! burst, the counters published) the way the worker did it before 2026-11-25
//! (`worker_32_publish_each`: bursts of 32, published every burst) and after
//! (`worker_128_publish_100us`: bursts of 128, published every 100 µs): the before and the after
//! in one run, on one host.

#![allow(missing_docs)] // criterion_group! generates undocumented public functions.

use std::hint::black_box;
use std::net::Ipv4Addr;
use std::time::{Duration, Instant};

use criterion::measurement::WallTime;
use criterion::{BenchmarkGroup, Criterion, Throughput, criterion_group, criterion_main};
use upfbench_datapath::queues::Side;
use upfbench_dpdk::tsc;
use upfbench_generator::datapath::classify::RxRules;
use upfbench_generator::datapath::clock::Clock;
use upfbench_generator::datapath::worker::{WorkerCounters, receive_frame};
use upfbench_net::tag::{TAG_LEN, Tag, field};
use upfbench_net::{Qfi, Teid};
use upfbench_run::plan::{Schedule, Spread, StreamPlan, TeidSequence, UeTable, UplinkTeids};
use upfbench_stats::{Direction, RxConfig, RxStats, StreamSpec};

use upfbench_testkit::upf_frames::{gpdu, inner, plain};

/// A measurement tag's bytes.
fn tag(stream: u16, sequence: u32, tx_time: u32) -> Vec<u8> {
    Tag {
        stream,
        sequence,
        tx_time,
    }
    .to_bytes()
    .to_vec()
}

const SLOT: usize = 2176;
const HEADROOM: usize = 128;
const UES: u32 = 1024;
const QFI: Qfi = Qfi::from_bits(9);
const PAYLOAD: u16 = 10;
const DN: Ipv4Addr = Ipv4Addr::new(192, 168, 16, 152);

fn ues() -> UeTable {
    UeTable::new(
        UES,
        Ipv4Addr::new(10, 45, 0, 2).into(),
        UplinkTeids::Sequence(TeidSequence {
            first: Teid(1),
            step: 2,
        }),
        TeidSequence {
            first: Teid(2),
            step: 2,
        },
    )
}

fn stream(id: u16, direction: Direction, flow_base: u32) -> StreamPlan {
    StreamPlan {
        id,
        name: direction.name().to_owned(),
        direction,
        payload_len: PAYLOAD,
        pdu_session_container: true,
        source_port: 10_000 + id,
        destination_port: 20_000 + id,
        ues: 0..UES,
        flow_base,
        rate_pps: 1.0,
        schedule: Schedule::Continuous { packets: 1 },
        spread: Spread::RoundRobin,
        shape: Default::default(),
        qfi: None,
        qer: None,
    }
}

/// Uplink is stream 0 (flows 0..1024), downlink stream 1 (flows 1024..2048).
fn rules() -> RxRules {
    RxRules::new(
        ues(),
        Some(QFI),
        &[
            stream(0, Direction::Uplink, 0),
            stream(1, Direction::Downlink, UES),
        ],
    )
}

/// What arrives on one port: the pool of frames and where each frame's tag is.
struct Lap {
    side: Side,
    arena: Vec<u8>,
    frame_len: usize,
    tag_at: usize,
}

#[derive(Clone, Copy)]
enum Shape {
    /// Downlink G-PDU on N3 with a PDU Session Container.
    N3Container,
    /// Downlink G-PDU on N3 without one.
    N3Bare,
    /// Uplink, decapsulated, on N6.
    N6Plain,
}

fn frame(shape: Shape, ue: u32, seq: u32, tx: u32) -> Vec<u8> {
    let ue_addr = ues().address_v4(ue);
    match shape {
        Shape::N3Container | Shape::N3Bare => gpdu(
            ues().downlink_teid.get(ue),
            matches!(shape, Shape::N3Container).then_some(QFI),
            &inner(DN, ue_addr, (10_001, 20_001), &tag(1, seq, tx)),
        ),
        Shape::N6Plain => plain(&inner(ue_addr, DN, (10_000, 20_000), &tag(0, seq, tx))),
    }
}

fn lap(shape: Shape, frames: usize) -> Lap {
    let sample = frame(shape, 0, 0, 0);
    let frame_len = sample.len();
    let mut arena = vec![0u8; frames * SLOT];
    for (i, slot) in arena.chunks_exact_mut(SLOT).enumerate() {
        let ue = i as u32 % UES;
        let f = frame(shape, ue, i as u32 / UES, (i as u32).wrapping_mul(671));
        slot[HEADROOM..HEADROOM + frame_len].copy_from_slice(&f);
    }
    Lap {
        side: match shape {
            Shape::N6Plain => Side::N6,
            _ => Side::N3,
        },
        arena,
        frame_len,
        tag_at: frame_len - usize::from(PAYLOAD),
    }
}

impl Lap {
    /// Moves every frame's sequence number on by `by` (untimed: what the next lap would carry).
    fn advance(&mut self, by: u32) {
        for slot in self.arena.chunks_exact_mut(SLOT) {
            let t = &mut slot[HEADROOM + self.tag_at..HEADROOM + self.tag_at + TAG_LEN];
            let seq = &mut t[field::SEQUENCE];
            let v = u32::from_be_bytes([seq[0], seq[1], seq[2], seq[3]]).wrapping_add(by);
            seq.copy_from_slice(&v.to_be_bytes());
        }
    }
}

/// How the timed loop hands the frames over, and what it does per burst.
#[derive(Clone, Copy)]
enum Loop {
    /// Frame by frame at a fixed receive time: the code of `receive_frame` alone.
    Frames,
    /// As the worker does it: bursts of `burst` frames, the TSC read and converted once per
    /// burst, the counters published every burst (`publish_ns` 0: the worker until
    /// 2026-11-25, with bursts of 32) or every `publish_ns` of the clock (100 µs, bursts of
    /// 128: the worker after).
    Worker { burst: usize, publish_ns: u64 },
}

/// Ticks per ns of the bench's clock: the conversion costs the same at any frequency.
const BENCH_TSC_HZ: u64 = 2_600_000_000;

fn bench(c: &mut Criterion) {
    let cases = [
        ("n3_container", Shape::N3Container),
        ("n3_no_container", Shape::N3Bare),
        ("n6_plain", Shape::N6Plain),
    ];
    let loops = [
        ("receive_frame", Loop::Frames),
        (
            "worker_32_publish_each",
            Loop::Worker {
                burst: 32,
                publish_ns: 0,
            },
        ),
        (
            "worker_128_publish_100us",
            Loop::Worker {
                burst: 128,
                publish_ns: 100_000,
            },
        ),
    ];
    let rules = rules();
    let specs = specs();
    for (pool, frames) in [("l2_resident", 256usize), ("from_dram", 32_768)] {
        let mut g = c.benchmark_group(format!("rx_path/{pool}"));
        // An iteration is one packet: criterion's "time" is the cost of a packet.
        g.throughput(Throughput::Elements(1));
        for case in cases {
            for how in loops {
                bench_case(&mut g, frames, case, how, &rules, &specs);
            }
        }
        g.finish();
    }
}

/// The flows: uplink 0..1024, downlink 1024..2048.
fn specs() -> Vec<StreamSpec> {
    (0..2 * UES)
        .map(|f| StreamSpec {
            direction: if f < UES {
                Direction::Uplink
            } else {
                Direction::Downlink
            },
            first_seq: 0,
        })
        .collect()
}

/// One case: a pool of `frames` frames of `shape` through `mode`, timed lap by lap; then
/// every packet checked measured.
fn bench_case(
    g: &mut BenchmarkGroup<'_, WallTime>,
    frames: usize,
    (label, shape): (&str, Shape),
    (how, mode): (&str, Loop),
    rules: &RxRules,
    specs: &[StreamSpec],
) {
    let mut lap = lap(shape, frames);
    let per_lap = frames.div_ceil(UES as usize) as u32;
    let (mut rx, _handle) = RxStats::new(0, specs, &RxConfig::default()).expect("rx stats");
    let mut counters = WorkerCounters::default();
    // Every transit is positive and below 2^31 ns: the tags' times are i * 671.
    let base_ns = u64::from(frames as u32 * 671) + 40_000;
    let mut laps = 0u32;
    g.bench_function(format!("{how}/{label}"), |b| {
        // `iters` packets, timed a lap of the pool at a time.
        b.iter_custom(|iters| {
            let mut took = Duration::ZERO;
            for _ in 0..iters.div_ceil(frames as u64) {
                if laps > 0 {
                    lap.advance(per_lap);
                }
                laps += 1;
                let clock = Clock::new(BENCH_TSC_HZ, tsc());
                let start = Instant::now();
                run_lap(&lap, mode, rules, &mut rx, &mut counters, &clock, base_ns);
                took += start.elapsed();
            }
            // The laps' time, scaled to the packets asked for.
            Duration::from_secs_f64(
                took.as_secs_f64() / iters.div_ceil(frames as u64) as f64 / frames as f64
                    * iters as f64,
            )
        })
    });
    // Every packet was measured: none rejected, none a duplicate or out of order (a case
    // that a filter left out ran no lap).
    if laps == 0 {
        return;
    }
    assert_eq!(counters.rejects, [[0; _]; 2], "{label}: rejected");
    let r = rx.finish(base_ns);
    let d = &r.directions[match shape {
        Shape::N6Plain => 0,
        _ => 1,
    }];
    assert_eq!(d.duplicates, 0, "{label}: duplicates");
    assert_eq!(d.late, 0, "{label}: late");
    assert!(d.traffic.packets > 0, "{label}: nothing measured");
}

/// One lap of the pool through `mode`.
#[inline(never)]
fn run_lap(
    lap: &Lap,
    mode: Loop,
    rules: &RxRules,
    rx: &mut RxStats,
    counters: &mut WorkerCounters,
    clock: &Clock,
    base_ns: u64,
) {
    // `Frames` is one burst of the whole lap at a fixed time, published once.
    let (burst, publish_ns, clocked) = match mode {
        Loop::Frames => (lap.arena.len() / SLOT, 0, false),
        Loop::Worker { burst, publish_ns } => (burst, publish_ns, true),
    };
    let mut published = 0u64;
    for bursts in lap.arena.chunks(SLOT * burst) {
        let now_ns = if clocked {
            base_ns + clock.ns(tsc())
        } else {
            base_ns
        };
        for slot in bursts.chunks_exact(SLOT) {
            black_box(receive_frame::<false>(
                lap.side,
                black_box(&slot[HEADROOM..HEADROOM + lap.frame_len]),
                rules,
                Some(&mut *rx),
                counters,
                now_ns,
                // The measured phase began at the clock's zero: every tag is of it.
                0,
            ));
        }
        if now_ns.wrapping_sub(published) >= publish_ns {
            rx.publish(now_ns);
            published = now_ns;
        }
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
