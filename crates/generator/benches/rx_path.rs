//! The RX worker's per-packet cost, end to end over what is written so far: parse the frame (outer
//! Ethernet/IPv4/UDP/GTP-U with its extension headers, or plain Ethernet/IPv4/UDP on N6), reach the
//! inner UDP payload, read the measurement tag, and record it (sequence tracker, jitter, staged
//! latency histogram, counters). The budget is 15 ns per packet.
//!
//! Frames are the reference vectors of `crates/gtpu/testdata/gtpu.json`, laid out as a mempool
//! lays out mbufs (one frame per 2176-octet slot, 128 octets of headroom), frame i of stream
//! i mod 1024, with a tag in the first 10 payload octets. Two pool sizes: 256 frames (256 streams),
//! whose touched lines stay in the L2 cache (the cost of the code), and 32 768 frames (1024
//! streams; 71 MB, twice the L3 cache), whose lines
//! come from DRAM as they do after a NIC's DMA on a machine without DDIO (the cost of the code plus
//! the misses that the hardware prefetchers do not hide).
//!
//! Reading a burst of 32 tags first and recording them in a second pass was tried: 3 to 37 %
//! slower than one pass per packet on both pool sizes, so the worker should record as it parses.
//!
//! The tag layout here (stream u16, sequence u32, low 32 bits of the TX time in ns, big endian)
//! stands in for the generator's own until the TX/RX workers define it; it has the size the design
//! fixes (10 octets). Each replay of the pool adds one lap to the sequence numbers, as a running
//! stream would.

#![allow(missing_docs)] // criterion_group! generates undocumented public functions.

use std::hint::black_box;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use upfbench_gtpu::{Ipv4Packet, decapsulate, udp_payload};
use upfbench_stats::{Direction, RxConfig, RxStats, StreamSpec};

/// Octets per mempool slot (DPDK's default mbuf: 128 octets of headroom, 2048 of data) and
/// where the frame starts in it.
const SLOT: usize = 2176;
const HEADROOM: usize = 128;
const STREAMS: usize = 1024;
const TAG_LEN: usize = 10;
const ETHERNET_HEADER_LEN: usize = 14;

fn vector(name: &str) -> Vec<u8> {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../gtpu/testdata/gtpu.json");
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(path).expect("gtpu.json")).expect("json");
    let hex = json["vectors"]
        .as_array()
        .expect("vectors")
        .iter()
        .find(|v| v["name"] == name)
        .unwrap_or_else(|| panic!("no vector {name}"))["hex"]
        .as_str()
        .expect("hex");
    (0..hex.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&hex[i..i + 2], 16).expect("hex digit"))
        .collect()
}

/// Where the inner UDP payload starts in a frame of this shape.
fn payload_offset(frame: &[u8], tunnelled: bool) -> usize {
    let inner = if tunnelled {
        let d = decapsulate(frame).expect("vector decapsulates");
        d.inner_offset()
    } else {
        ETHERNET_HEADER_LEN
    };
    let ip = Ipv4Packet::new_checked(&frame[inner..]).expect("inner IPv4");
    inner + ip.header_len() + 8
}

/// A pool of frames in mbuf-like slots.
struct Lap {
    arena: Vec<u8>,
    frame_len: usize,
    /// Receive time of each frame, 2..60 us after the time in its tag.
    rx_ns: Vec<u32>,
}

impl Lap {
    fn frames(&self) -> impl Iterator<Item = &[u8]> {
        self.arena
            .chunks_exact(SLOT)
            .map(|slot| &slot[HEADROOM..HEADROOM + self.frame_len])
    }

    fn len(&self) -> usize {
        self.rx_ns.len()
    }
}

fn lap(name: &str, tunnelled: bool, frames: usize) -> Lap {
    let template = vector(name);
    let at = payload_offset(&template, tunnelled);
    let mut arena = vec![0u8; frames * SLOT];
    let mut rx_ns = Vec::with_capacity(frames);
    for (i, slot) in arena.chunks_exact_mut(SLOT).enumerate() {
        let f = &mut slot[HEADROOM..HEADROOM + template.len()];
        f.copy_from_slice(&template);
        let tx = (i as u32).wrapping_mul(671);
        f[at..at + 2].copy_from_slice(&((i % STREAMS) as u16).to_be_bytes());
        f[at + 2..at + 6].copy_from_slice(&((i / STREAMS) as u32).to_be_bytes());
        f[at + 6..at + 10].copy_from_slice(&tx.to_be_bytes());
        rx_ns.push(tx.wrapping_add(2_000 + (i as u32 * 7919) % 58_000));
    }
    Lap {
        arena,
        frame_len: template.len(),
        rx_ns,
    }
}

/// The inner UDP payload of a frame, checked as the RX worker will check it.
#[inline(always)]
fn inner_payload(frame: &[u8], tunnelled: bool) -> Option<&[u8]> {
    let inner = if tunnelled {
        decapsulate(frame).ok()?.inner()
    } else {
        frame.get(ETHERNET_HEADER_LEN..)?
    };
    udp_payload(inner).ok()
}

fn bench(c: &mut Criterion) {
    let cases = [
        (
            "n3_gtpu_container_payload300",
            "dl_gpdu_pdusc_qfi1_payload300",
            true,
        ),
        ("n3_gtpu_payload10", "ul_gpdu_payload10", true),
        ("n6_plain_payload10", "n6_dl_udp_payload10", false),
    ];
    for (pool, frames) in [("l2_resident", 256), ("from_dram", 32_768)] {
        let mut g = c.benchmark_group(format!("rx_path/{pool}"));
        g.throughput(Throughput::Elements(frames as u64));
        for (label, vector_name, tunnelled) in cases {
            let lap = lap(vector_name, tunnelled, frames);
            bench_lap(&mut g, label, &lap, tunnelled);
        }
        g.finish();
    }
}

fn bench_lap(
    g: &mut criterion::BenchmarkGroup<'_, criterion::measurement::WallTime>,
    label: &str,
    lap: &Lap,
    tunnelled: bool,
) {
    let specs = vec![
        StreamSpec {
            direction: Direction::Downlink,
            first_seq: 0,
        };
        STREAMS
    ];
    let (mut rx, _handle) = RxStats::new(0, &specs, &RxConfig::default()).expect("rx stats");
    // Streams take frames in turn: each replay of the pool advances each stream by this much.
    let per_lap = lap.len().div_ceil(STREAMS) as u32;
    let mut laps = 0u32;

    g.bench_function(format!("parse_only/{label}"), |b| {
        b.iter(|| {
            let mut n = 0usize;
            for f in lap.frames() {
                n += inner_payload(black_box(f), tunnelled).map_or(0, |p| p.len());
            }
            n
        })
    });
    g.bench_function(format!("parse_track_record/{label}"), |b| {
        b.iter(|| {
            let shift = laps.wrapping_mul(per_lap);
            laps = laps.wrapping_add(1);
            for (f, &rx_ns) in lap.frames().zip(&lap.rx_ns) {
                match read_tag(black_box(f), tunnelled, rx_ns) {
                    Some(t) => {
                        rx.record_transit(t.stream, t.seq.wrapping_add(shift), t.transit, t.len);
                    }
                    None => rx.record_untagged(),
                }
            }
        })
    });
}

/// What the RX worker takes from a frame's measurement tag.
#[derive(Clone, Copy)]
struct Tag {
    stream: u32,
    seq: u32,
    transit: i64,
    len: u32,
}

#[inline(always)]
fn read_tag(f: &[u8], tunnelled: bool, rx_ns: u32) -> Option<Tag> {
    let tag = inner_payload(f, tunnelled)?.get(..TAG_LEN)?;
    let tx = u32::from_be_bytes([tag[6], tag[7], tag[8], tag[9]]);
    Some(Tag {
        stream: u32::from(u16::from_be_bytes([tag[0], tag[1]])),
        seq: u32::from_be_bytes([tag[2], tag[3], tag[4], tag[5]]),
        transit: i64::from(rx_ns.wrapping_sub(tx)),
        len: f.len() as u32,
    })
}

criterion_group!(benches, bench);
criterion_main!(benches);
