//! The control thread's view while workers run: consistent snapshots with no lock on the worker,
//! latency intervals handed over and recycled, and the live line's rates.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use upfbench_stats::{
    Direction, LatencyRecorder, LiveMeter, RxConfig, RxCounters, RxSnapshot, RxStats,
    TrafficCounters, TxSnapshot, TxStats,
};
use upfbench_testkit::sim::{Impairment, simulate};

/// One empty latency recorder per direction.
fn recorders(config: &RxConfig) -> [LatencyRecorder; 2] {
    core::array::from_fn(|_| LatencyRecorder::new(&config.latency).unwrap())
}

fn imp() -> Impairment {
    Impairment {
        drop_per_mille: 20,
        dup_per_mille: 10,
        reorder_per_mille: 50,
        max_displacement: 100,
    }
}

#[test]
fn snapshots_are_consistent_while_the_worker_writes() {
    let sim = simulate(7, 16, 20_000, imp(), |_| 128);
    let config = RxConfig {
        reorder_window: 64,
        latency_interval_ns: 50_000,
        ..RxConfig::default()
    };
    let (mut rx, mut handle) = RxStats::new(0, &sim.specs, &config).unwrap();
    let done = Arc::new(AtomicBool::new(false));
    let worker = {
        let done = Arc::clone(&done);
        let arrivals = sim.arrivals.clone();
        std::thread::spawn(move || {
            let mut now = 0;
            for burst in arrivals.chunks(32) {
                for p in burst {
                    rx.record(p.stream, p.seq, p.tx_ns, p.rx_ns, p.frame_len);
                }
                now += 1_000;
                rx.publish(now);
            }
            let r = rx.finish(now + 1);
            done.store(true, Ordering::Release);
            r
        })
    };

    let mut meter = LiveMeter::new(&config.latency).unwrap();
    let mut last = RxSnapshot::default();
    let mut reads = 0u64;
    let mut collected = 0usize;
    while !done.load(Ordering::Acquire) {
        let s = handle.snapshot();
        for d in Direction::ALL {
            let c = s.direction(d);
            // A torn snapshot would break this sum at once.
            assert_eq!(c.unique + c.duplicates + c.late, c.traffic.packets, "{c:?}");
            // 128 bytes of pkt_len: 132 on the wire with the FCS.
            assert_eq!(c.traffic.bytes_l2, c.traffic.packets * 132);
            let p = last.direction(d);
            assert!(c.traffic.packets >= p.traffic.packets && c.lost_confirmed >= p.lost_confirmed);
        }
        assert!(s.at_ns >= last.at_ns);
        last = s;
        reads += 1;
        collected += meter.collect(&mut handle);
    }
    let result = worker.join().unwrap();
    collected += meter.collect(&mut handle);
    let fin = handle.snapshot();
    assert_eq!(fin.directions, result.directions);
    assert_eq!(
        fin.directions
            .iter()
            .map(|d| d.traffic.packets)
            .sum::<u64>(),
        sim.arrivals.len() as u64
    );
    assert!(reads > 0);
    assert!(
        collected > 0,
        "no latency interval reached the control thread"
    );
    let total: u64 = result.latency.iter().map(LatencyRecorder::count).sum();
    assert_eq!(total, sim.arrivals.len() as u64);
}

#[test]
fn intervals_add_up_to_the_cumulative_histograms() {
    let sim = simulate(11, 4, 3_000, imp(), |_| 200);
    let config = RxConfig {
        latency_interval_ns: 10_000,
        ..RxConfig::default()
    };
    let (mut rx, mut handle) = RxStats::new(3, &sim.specs, &config).unwrap();
    let mut sum = recorders(&config);
    let mut now = 0;
    let mut intervals = 0;
    rx.publish(now);
    for burst in sim.arrivals.chunks(16) {
        for p in burst {
            rx.record(p.stream, p.seq, p.tx_ns, p.rx_ns, p.frame_len);
        }
        now += 1_000;
        rx.publish(now);
        while let Some(iv) = handle.try_interval() {
            assert_eq!(iv.core, 3);
            assert_eq!(iv.end_ns - iv.start_ns, 10_000);
            for (s, l) in sum.iter_mut().zip(&iv.latency) {
                s.merge(l);
            }
            intervals += 1;
        }
    }
    // Close the last interval with no packet after it: then the intervals hold every sample.
    now += 10_000;
    rx.publish(now);
    intervals += handle.collect_latency(&mut sum);
    let result = rx.finish(now);
    assert_eq!(sum, result.latency);
    assert!(intervals as u64 >= now / 10_000 - 1);
}

#[test]
fn a_control_thread_that_falls_behind_loses_live_intervals_not_samples() {
    let sim = simulate(5, 2, 2_000, imp(), |_| 64);
    let config = RxConfig {
        latency_interval_ns: 1_000,
        ..RxConfig::default()
    };
    let (mut rx, mut handle) = RxStats::new(0, &sim.specs, &config).unwrap();
    let mut now = 0;
    for p in &sim.arrivals {
        rx.record(p.stream, p.seq, p.tx_ns, p.rx_ns, p.frame_len);
        now += 1_000;
        rx.publish(now);
    }
    let mut queued = 0;
    while handle.try_interval().is_some() {
        queued += 1;
    }
    assert_eq!(queued, upfbench_stats::publish::INTERVAL_QUEUE);
    let result = rx.finish(now);
    let total: u64 = result.latency.iter().map(LatencyRecorder::count).sum();
    assert_eq!(total, sim.arrivals.len() as u64);
}

#[test]
fn dropping_the_handle_does_not_disturb_the_worker() {
    let sim = simulate(9, 2, 500, imp(), |_| 64);
    let config = RxConfig {
        latency_interval_ns: 100,
        ..RxConfig::default()
    };
    let (mut rx, handle) = RxStats::new(0, &sim.specs, &config).unwrap();
    drop(handle);
    let mut now = 0;
    for p in &sim.arrivals {
        rx.record(p.stream, p.seq, p.tx_ns, p.rx_ns, p.frame_len);
        now += 1_000;
        rx.publish(now);
    }
    let result = rx.finish(now);
    let total: u64 = result.latency.iter().map(LatencyRecorder::count).sum();
    assert_eq!(total, sim.arrivals.len() as u64);
}

#[test]
fn tx_snapshots_follow_the_worker() {
    let sim = simulate(3, 3, 100, imp(), |s| 100 + s as u32);
    let (mut tx, handle) = TxStats::new(1, &sim.specs);
    tx.publish(5);
    assert_eq!(
        handle.snapshot().at_ns,
        0,
        "nothing changed: no publication"
    );
    tx.record_n(0, 10, 100);
    tx.publish(6);
    let s = handle.snapshot();
    assert_eq!(s.at_ns, 6);
    let d = sim.specs[0].direction;
    assert_eq!(
        s.directions[d.index()],
        TrafficCounters {
            packets: 10,
            bytes_l2: 10 * 104
        }
    );
}

fn rx_snap(d: Direction, packets: u64, len: u64, lost: u64) -> RxSnapshot {
    let mut s = RxSnapshot::default();
    s.directions[d.index()] = RxCounters {
        traffic: TrafficCounters {
            packets,
            bytes_l2: packets * len,
        },
        unique: packets,
        lost_confirmed: lost,
        ..RxCounters::default()
    };
    s
}

fn tx_snap(d: Direction, packets: u64, len: u64) -> TxSnapshot {
    let mut s = TxSnapshot::default();
    s.directions[d.index()] = TrafficCounters {
        packets,
        bytes_l2: packets * len,
    };
    s
}

#[test]
fn live_line_rates_come_from_differences() {
    let config = RxConfig::default();
    let mut meter = LiveMeter::new(&config.latency).unwrap();
    let ul = Direction::Uplink;
    let first = meter.line(
        10_000_000_000,
        &[tx_snap(ul, 500, 100)],
        &[rx_snap(ul, 400, 100, 0)],
    );
    assert_eq!(first.elapsed_ns, 0);
    assert_eq!(first.directions[0].tx_kpps, 0.0, "no baseline yet");
    // One second later, two TX cores sent 1,000,500 frames of 100 B in all; 1,000,000 arrived.
    let line = meter.line(
        11_000_000_000,
        &[tx_snap(ul, 500_500, 100), tx_snap(ul, 500_000, 100)],
        &[rx_snap(ul, 1_000_400, 100, 2_001)],
    );
    assert_eq!(line.elapsed_ns, 1_000_000_000);
    assert_eq!(line.directions.len(), 1);
    let d = &line.directions[0];
    assert_eq!(d.direction, ul);
    assert!((d.tx_kpps - 1_000.0).abs() < 1e-9, "{}", d.tx_kpps);
    // L1: (100 B at L2 + 20) * 8 bit * 1e6 /s = 0.96 Gbit/s.
    assert!((d.tx_gbps_l1 - 0.96).abs() < 1e-9, "{}", d.tx_gbps_l1);
    assert!((d.rx_kpps - 1_000.0).abs() < 1e-9);
    assert_eq!(d.lost_total, 2_001);
    assert!(
        (d.loss_pct_total - 0.2).abs() < 1e-9,
        "{}",
        d.loss_pct_total
    );
    assert_eq!(d.lat_avg_ns, None);
    assert_eq!(
        line.to_string(),
        "    1.0s UL tx 0.960 Gbps 1000.0 kpps rx 0.960 Gbps 1000.0 kpps lost 2001 (0.200%) lat -"
    );
}

#[test]
fn live_line_shows_interval_latency_and_no_traffic() {
    let sim = simulate(21, 1, 1_000, imp(), |_| 64);
    let config = RxConfig {
        latency_interval_ns: 1_000,
        ..RxConfig::default()
    };
    let mut meter = LiveMeter::new(&config.latency).unwrap();
    assert_eq!(meter.line(0, &[], &[]).to_string(), "    0.0s no traffic");
    let (mut rx, mut handle) = RxStats::new(0, &sim.specs, &config).unwrap();
    rx.publish(0);
    for p in &sim.arrivals {
        rx.record(p.stream, p.seq, p.tx_ns, p.rx_ns, p.frame_len);
    }
    rx.publish(1_000);
    assert_eq!(meter.collect(&mut handle), 1);
    let line = meter.line(2_000_000_000, &[], &[handle.snapshot()]);
    let d = &line.directions[0];
    let min = sim
        .arrivals
        .iter()
        .map(|p| p.rx_ns - p.tx_ns)
        .min()
        .unwrap();
    let max = sim
        .arrivals
        .iter()
        .map(|p| p.rx_ns - p.tx_ns)
        .max()
        .unwrap();
    assert_eq!(d.lat_max_ns, Some(max));
    assert!(d.lat_avg_ns.unwrap() >= min as f64);
    assert!(line.to_string().contains(" lat avg/p99/max "));
    // The interval histograms were consumed by the line.
    let again = meter.line(3_000_000_000, &[], &[handle.snapshot()]);
    assert_eq!(again.directions[0].lat_avg_ns, None);
}

#[test]
fn each_line_after_the_first_writes_one_interval_per_active_direction() {
    use hdrhistogram::serialization::interval_log::{IntervalLogIterator, LogEntry};
    use std::time::{Duration, SystemTime};
    use upfbench_stats::IntervalLog;

    let sim = simulate(5, 1, 500, imp(), |_| 64);
    let config = RxConfig {
        latency_interval_ns: 1_000,
        ..RxConfig::default()
    };
    let mut meter = LiveMeter::new(&config.latency)
        .unwrap()
        .with_interval_log(IntervalLog::new(SystemTime::now(), "test"));
    let (mut rx, mut handle) = RxStats::new(0, &sim.specs, &config).unwrap();
    let dir = sim.specs[0].direction;
    meter.line(5_000_000_000, &[tx_snap(dir, 0, 64)], &[handle.snapshot()]);
    rx.publish(0);
    for p in &sim.arrivals {
        rx.record(p.stream, p.seq, p.tx_ns, p.rx_ns, p.frame_len);
    }
    rx.publish(1_000);
    meter.collect(&mut handle);
    meter.line(
        6_000_000_000,
        &[tx_snap(dir, 500, 64)],
        &[handle.snapshot()],
    );
    meter.line(
        6_500_000_000,
        &[tx_snap(dir, 500, 64)],
        &[handle.snapshot()],
    );
    let (log, failures) = meter.take_interval_log().unwrap();
    assert_eq!(failures, 0);
    let bytes = log.to_bytes();
    let intervals: Vec<_> = IntervalLogIterator::new(&bytes)
        .filter_map(|e| match e.unwrap() {
            LogEntry::Interval(iv) => Some((
                iv.tag().unwrap().as_str().to_owned(),
                iv.start_timestamp(),
                iv.duration(),
                iv.max(),
            )),
            _ => None,
        })
        .collect();
    let max = sim
        .arrivals
        .iter()
        .map(|p| p.rx_ns - p.tx_ns)
        .max()
        .unwrap() as f64;
    assert_eq!(intervals.len(), 2, "{intervals:?}");
    assert_eq!(intervals[0].0, dir.name());
    assert_eq!(intervals[0].1, Duration::ZERO);
    assert_eq!(intervals[0].2, Duration::from_secs(1));
    assert!(
        (intervals[0].3 - max).abs() <= max / 500.0,
        "{intervals:?} {max}"
    );
    assert_eq!(intervals[1].1, Duration::from_secs(1));
    assert_eq!(intervals[1].2, Duration::from_millis(500));
    assert_eq!(intervals[1].3, 0.0);
}

#[test]
fn the_last_interval_is_handed_over_at_the_finish() {
    let sim = simulate(9, 2, 800, imp(), |_| 64);
    let config = RxConfig {
        latency_interval_ns: 1_000_000_000,
        ..RxConfig::default()
    };
    let (mut rx, mut handle) = RxStats::new(0, &sim.specs, &config).unwrap();
    let mut sum = recorders(&config);
    rx.publish(0);
    for p in &sim.arrivals {
        rx.record(p.stream, p.seq, p.tx_ns, p.rx_ns, p.frame_len);
    }
    rx.publish(10);
    // The interval is not due: nothing handed over yet.
    assert_eq!(handle.collect_latency(&mut sum), 0);
    let result = rx.finish(20);
    assert_eq!(handle.collect_latency(&mut sum), 1);
    assert_eq!(sum, result.latency);
}

#[test]
fn an_interval_asked_for_comes_at_the_next_publish_before_its_period_ends() {
    let sim = simulate(31, 2, 500, imp(), |_| 64);
    let config = RxConfig {
        latency_interval_ns: 1_000_000_000,
        ..RxConfig::default()
    };
    let (mut rx, mut handle) = RxStats::new(0, &sim.specs, &config).unwrap();
    let mut live = recorders(&config);
    assert!(handle.answered(), "nothing asked yet");
    rx.publish(0);
    for p in &sim.arrivals {
        rx.record(p.stream, p.seq, p.tx_ns, p.rx_ns, p.frame_len);
    }
    rx.publish(1_000);
    assert_eq!(handle.collect_latency(&mut live), 0, "the period runs 1 s");
    handle.request_interval();
    assert!(!handle.answered());
    assert_eq!(
        handle.collect_latency(&mut live),
        0,
        "the worker has not published"
    );
    rx.publish(2_000);
    assert_eq!(handle.collect_latency(&mut live), 1);
    assert!(handle.answered());
    // Answered once: the next publish hands nothing over.
    rx.publish(3_000);
    assert_eq!(handle.collect_latency(&mut live), 0);
    // The interval asked for held every sample so far.
    let result = rx.finish(4_000);
    let samples: u64 = live.iter().map(LatencyRecorder::count).sum();
    assert_eq!(samples, sim.arrivals.len() as u64);
    assert_eq!(live, result.latency);
}
