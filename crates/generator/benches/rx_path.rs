//! The RX worker's per-packet cost, measured on its own code: `datapath::worker::receive_frame`,
//! which the worker runs for every received frame — parse the frame (outer Ethernet/IPv4/UDP/
//! GTP-U with its extension headers on N3, plain Ethernet/IPv4/UDP on N6), classify it against
//! the run's rules (`RxRules`: the UE from the inner address, its downlink TEID, the QFI, the
//! stream, ports and direction from the tag), track its sequence, record its latency and jitter
//! (`RxStats`). The budget is 15 ns per packet, with and without the PDU Session Container.
//!
//! 1,024 UEs with an uplink and a downlink stream each (2,048 flows). Frames are built as a UPF
//! sends them back (`datapath::test_frames`), laid out as a mempool lays out mbufs (one frame per
//! 2,176-byte slot, 128 bytes of headroom), frame i of UE i mod 1024. Two pool sizes: 256 frames,
//! whose lines stay in the L2 cache (the cost of the code), and 32,768 frames (71 MB, beyond the
//! L3 cache), whose lines come from DRAM as after a NIC's DMA without DDIO. Before each replay of
//! the pool its sequence numbers move on by one lap, untimed, as a running flow's would: every
//! timed packet is a new, in-order packet of its flow.

#![allow(missing_docs)] // criterion_group! generates undocumented public functions.

use std::hint::black_box;
use std::net::Ipv4Addr;
use std::time::{Duration, Instant};

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use upfbench_generator::datapath::classify::RxRules;
use upfbench_generator::datapath::queues::Side;
use upfbench_generator::datapath::tag::{TAG_LEN, field};
use upfbench_generator::datapath::test_frames::{gpdu, inner, plain, tag};
use upfbench_generator::datapath::worker::{WorkerCounters, receive_frame};
use upfbench_generator::plan::{Schedule, Spread, StreamPlan, TeidSequence, UeTable, UplinkTeids};
use upfbench_net::{Qfi, Teid};
use upfbench_stats::{Direction, RxConfig, RxStats, StreamSpec};

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

fn bench(c: &mut Criterion) {
    let cases = [
        ("n3_container", Shape::N3Container),
        ("n3_no_container", Shape::N3Bare),
        ("n6_plain", Shape::N6Plain),
    ];
    let rules = rules();
    let specs: Vec<StreamSpec> = (0..2 * UES)
        .map(|f| StreamSpec {
            direction: if f < UES {
                Direction::Uplink
            } else {
                Direction::Downlink
            },
            first_seq: 0,
        })
        .collect();
    for (pool, frames) in [("l2_resident", 256usize), ("from_dram", 32_768)] {
        let mut g = c.benchmark_group(format!("rx_path/{pool}"));
        // An iteration is one packet: criterion's "time" is the cost of a packet.
        g.throughput(Throughput::Elements(1));
        for (label, shape) in cases {
            let mut lap = lap(shape, frames);
            let per_lap = frames.div_ceil(UES as usize) as u32;
            let (mut rx, _handle) =
                RxStats::new(0, &specs, &RxConfig::default()).expect("rx stats");
            let mut counters = WorkerCounters::default();
            let now_ns = u64::from(frames as u32 * 671) + 40_000;
            let mut laps = 0u32;
            g.bench_function(format!("receive_frame/{label}"), |b| {
                // `iters` packets, timed a lap of the pool at a time.
                b.iter_custom(|iters| {
                    let mut took = Duration::ZERO;
                    for _ in 0..iters.div_ceil(frames as u64) {
                        if laps > 0 {
                            lap.advance(per_lap);
                        }
                        laps += 1;
                        let start = Instant::now();
                        for slot in lap.arena.chunks_exact(SLOT) {
                            let f = &slot[HEADROOM..HEADROOM + lap.frame_len];
                            black_box(receive_frame(
                                lap.side,
                                black_box(f),
                                &rules,
                                Some(&mut rx),
                                &mut counters,
                                now_ns,
                            ));
                        }
                        rx.publish(now_ns);
                        took += start.elapsed();
                    }
                    // The laps' time, scaled to the packets asked for.
                    Duration::from_secs_f64(
                        took.as_secs_f64() / iters.div_ceil(frames as u64) as f64 / frames as f64
                            * iters as f64,
                    )
                })
            });
            // Every packet was measured: none rejected, none a duplicate or out of order.
            assert_eq!(counters.rejects, [[0; _]; 2], "{label}: rejected");
            let r = rx.finish(now_ns);
            let d = &r.directions[match shape {
                Shape::N6Plain => 0,
                _ => 1,
            }];
            assert_eq!(d.duplicates, 0, "{label}: duplicates");
            assert_eq!(d.late, 0, "{label}: late");
            assert!(d.traffic.packets > 0, "{label}: nothing measured");
        }
        g.finish();
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
