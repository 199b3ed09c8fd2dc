//! Hot path cost per packet: the sequence tracker, `hdrhistogram` recording, the whole
//! `RxStats::record` (tracker + jitter + staged latency + counters) over 1, 1024 and 65536
//! streams, the per-burst `publish`, the once-per-interval hand-over, and the TX worker's
//! `TxStats::record`. Throughput is in packets: ns/packet = 1e3 / (Melem/s).
//!
//! Packets come from a precomputed lap of 65536 (as the parser would hand them over); each replay
//! of the lap shifts the sequence numbers and timestamps by one lap so the trackers keep
//! advancing. That reading and shifting is in every figure; `parts/loop_only` measures it alone,
//! so the cost of tracking + recording is `rx_record/...` minus `parts/loop_only`.

#![allow(missing_docs)] // criterion_group! generates undocumented public functions.

use std::hint::black_box;
use std::time::Duration;

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use upfbench_stats::windows::DEFAULT_WINDOW_NS;
use upfbench_stats::{
    Direction, LatencyConfig, LatencyRecorder, RateWindows, RxConfig, RxStats, SeqTracker,
    StreamSpec, TxStats,
};

const LAP: usize = 1 << 16;

#[derive(Clone, Copy)]
struct Pkt {
    stream: u32,
    seq: u32,
    tx_ns: u64,
    latency: u64,
}

struct Lap {
    pkts: Vec<Pkt>,
    /// Sequence numbers each stream advances per lap.
    per_stream: u32,
}

/// `streams` streams round robin; 1 packet in 1000 lost, 1 in 500 swapped with its successor
/// of the same stream; latencies 2..60 us with a rare 1 ms tail.
fn lap(streams: usize) -> Lap {
    let per_stream = LAP / streams;
    let mut x = 0x1234_5678_9abc_def0u64;
    let mut rnd = move || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    let mut per: Vec<Vec<u32>> = (0..streams)
        .map(|_| (0..per_stream as u32).collect())
        .collect();
    for seqs in &mut per {
        let mut i = 0;
        while i + 1 < seqs.len() {
            if rnd() % 500 == 0 {
                seqs.swap(i, i + 1);
                i += 1;
            }
            i += 1;
        }
        seqs.retain(|_| rnd() % 1000 != 0);
    }
    let mut pkts = Vec::with_capacity(LAP);
    for i in 0..per_stream {
        for (s, seqs) in per.iter().enumerate() {
            if let Some(&seq) = seqs.get(i) {
                let r = rnd();
                let latency = 2_000 + r % 58_000 + if r % 10_000 == 0 { 1_000_000 } else { 0 };
                pkts.push(Pkt {
                    stream: s as u32,
                    seq,
                    tx_ns: (i * streams + s) as u64 * 10,
                    latency,
                });
            }
        }
    }
    Lap {
        pkts,
        per_stream: per_stream as u32,
    }
}

fn specs(n: usize) -> Vec<StreamSpec> {
    (0..n)
        .map(|i| StreamSpec {
            direction: if i % 2 == 0 {
                Direction::Uplink
            } else {
                Direction::Downlink
            },
            first_seq: 0,
        })
        .collect()
}

fn bench_tracker(c: &mut Criterion) {
    let mut g = c.benchmark_group("seq_tracker");
    let l = lap(1);
    g.throughput(Throughput::Elements(l.pkts.len() as u64));
    g.bench_function("observe_1_stream", |b| {
        let mut t = SeqTracker::new(0, 1024).unwrap();
        let mut base = 0u32;
        b.iter(|| {
            for p in &l.pkts {
                black_box(t.observe(p.seq.wrapping_add(base)));
            }
            base = base.wrapping_add(l.per_stream);
        });
    });
    g.finish();
}

/// What the other figures include besides the measured code: reading the lap and shifting its
/// numbers (`loop_only`), and the tracker with the jitter step alone.
fn bench_parts(c: &mut Criterion) {
    let mut g = c.benchmark_group("parts");
    let l = lap(1);
    g.throughput(Throughput::Elements(l.pkts.len() as u64));
    g.bench_function("loop_only", |b| {
        let mut base = 0u32;
        let mut t0 = 0u64;
        b.iter(|| {
            for p in &l.pkts {
                let tx = p.tx_ns + t0;
                black_box((p.stream, p.seq.wrapping_add(base), tx, tx + p.latency));
            }
            base = base.wrapping_add(l.per_stream);
            t0 += LAP as u64 * 10;
        });
    });
    g.bench_function("tracker_and_jitter", |b| {
        let mut t = SeqTracker::new(0, 1024).unwrap();
        let mut j = upfbench_stats::Jitter::default();
        let mut base = 0u32;
        b.iter(|| {
            for p in &l.pkts {
                black_box(t.observe(p.seq.wrapping_add(base)));
                j.update(p.latency as i64);
            }
            base = base.wrapping_add(l.per_stream);
        });
    });
    g.finish();
}

fn bench_histogram(c: &mut Criterion) {
    let mut g = c.benchmark_group("latency");
    let l = lap(1);
    g.throughput(Throughput::Elements(l.pkts.len() as u64));
    g.bench_function("record", |b| {
        let mut r = LatencyRecorder::new(&LatencyConfig::default()).unwrap();
        b.iter(|| {
            for p in &l.pkts {
                r.record(black_box(p.latency as i64));
            }
        });
    });
    g.finish();
}

fn bench_rx_record(c: &mut Criterion) {
    let mut g = c.benchmark_group("rx_record");
    for streams in [1usize, 1024, 65536] {
        let l = lap(streams);
        g.throughput(Throughput::Elements(l.pkts.len() as u64));
        g.bench_with_input(BenchmarkId::new("streams", streams), &l, |b, l| {
            let (mut rx, _h) = RxStats::new(0, &specs(streams), &RxConfig::default()).unwrap();
            let mut base = 0u32;
            let mut t0 = 0u64;
            b.iter(|| {
                for p in &l.pkts {
                    let tx = p.tx_ns + t0;
                    black_box(rx.record(
                        p.stream,
                        p.seq.wrapping_add(base),
                        tx,
                        tx + p.latency,
                        128,
                    ));
                }
                base = base.wrapping_add(l.per_stream);
                t0 += LAP as u64 * 10;
            });
        });
    }
    g.finish();
}

fn bench_rx_burst(c: &mut Criterion) {
    let mut g = c.benchmark_group("rx_burst");
    let streams = 1024;
    let l = lap(streams);
    g.throughput(Throughput::Elements(l.pkts.len() as u64));
    g.bench_function("record_32_then_publish", |b| {
        let (mut rx, mut h) = RxStats::new(0, &specs(streams), &RxConfig::default()).unwrap();
        let mut sink = [
            LatencyRecorder::new(&LatencyConfig::default()).unwrap(),
            LatencyRecorder::new(&LatencyConfig::default()).unwrap(),
        ];
        let mut base = 0u32;
        let mut t0 = 0u64;
        b.iter(|| {
            for burst in l.pkts.chunks(32) {
                let mut now = 0;
                for p in burst {
                    let tx = p.tx_ns + t0;
                    now = tx + p.latency;
                    black_box(rx.record(p.stream, p.seq.wrapping_add(base), tx, now, 128));
                }
                rx.publish(now);
            }
            base = base.wrapping_add(l.per_stream);
            t0 += LAP as u64 * 10;
            // The control thread's share, as it would run once a second elsewhere.
            h.collect_latency(&mut sink);
        });
    });
    g.finish();
}

/// The QER conformance windows' share per packet ([`RateWindows::record`]): 3 flows, 10 ms
/// windows, the receive clock running through them as at 10 Mpps.
fn bench_rate_windows(c: &mut Criterion) {
    let mut g = c.benchmark_group("rate_windows");
    let l = lap(3);
    g.throughput(Throughput::Elements(l.pkts.len() as u64));
    g.bench_function("record_3_flows", |b| {
        let windows = RateWindows::windows_for(3_600_000_000_000, DEFAULT_WINDOW_NS);
        let mut t = RateWindows::new(3, DEFAULT_WINDOW_NS, windows).unwrap();
        let mut now = 0u64;
        b.iter(|| {
            for p in &l.pkts {
                now += 100;
                t.record(black_box(p.stream), now, 128);
            }
        });
        black_box(t.outside());
    });
    g.finish();
}

/// The TX worker's share: counting what the NIC took, per packet, over 1024 streams.
fn bench_tx(c: &mut Criterion) {
    let mut g = c.benchmark_group("tx_record");
    let l = lap(1024);
    g.throughput(Throughput::Elements(l.pkts.len() as u64));
    g.bench_function("streams/1024", |b| {
        let (mut tx, _h) = TxStats::new(0, &specs(1024));
        b.iter(|| {
            for p in &l.pkts {
                tx.record(black_box(p.stream), 128);
            }
            tx.publish(black_box(1));
        });
    });
    g.finish();
}

/// The once-per-interval hand-over that `publish` does on the worker: drain the staged latencies
/// into the interval histograms, add them to the cumulative ones, offer the interval and take a
/// recycled one. Timed alone (the recording before it is not).
fn bench_handover(c: &mut Criterion) {
    let mut g = c.benchmark_group("rx_handover");
    let l = lap(1024);
    g.bench_function("publish_at_interval_end", |b| {
        let config = RxConfig::default();
        let (mut rx, mut h) = RxStats::new(0, &specs(1024), &config).unwrap();
        let mut sink = [
            LatencyRecorder::new(&config.latency).unwrap(),
            LatencyRecorder::new(&config.latency).unwrap(),
        ];
        let mut base = 0u32;
        let mut now = 0u64;
        rx.publish(now);
        b.iter_custom(|iters| {
            let mut total = Duration::ZERO;
            for _ in 0..iters {
                for p in &l.pkts[..4096] {
                    rx.record(
                        p.stream,
                        p.seq.wrapping_add(base),
                        p.tx_ns,
                        p.tx_ns + p.latency,
                        128,
                    );
                }
                base = base.wrapping_add(l.per_stream);
                now += config.latency_interval_ns;
                let t = std::time::Instant::now();
                rx.publish(now);
                total += t.elapsed();
                h.collect_latency(&mut sink);
            }
            total
        });
    });
    g.finish();
}

fn config() -> Criterion {
    Criterion::default()
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(3))
        .sample_size(30)
}

criterion_group! {
    name = benches;
    config = config();
    targets = bench_parts, bench_tracker, bench_histogram, bench_rx_record, bench_rx_burst, bench_handover, bench_tx,
        bench_rate_windows
}
criterion_main!(benches);
