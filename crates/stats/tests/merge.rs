//! Merging per-core results equals a single core that saw the same packets; streams split over
//! cores still keep the identities exact.

use proptest::prelude::*;
use upfbench_stats::{
    Direction, LatencyRecorder, RunResult, RxConfig, RxCoreResult, RxStats, TxCoreResult, TxStats,
};
use upfbench_testkit::sim::{Impairment, Simulation, simulate};

fn config() -> RxConfig {
    RxConfig {
        reorder_window: 64,
        latency_interval_ns: 400_000,
        ..RxConfig::default()
    }
}

fn tx_cores(sim: &Simulation, cores: u32) -> Vec<TxCoreResult> {
    let mut tx: Vec<TxStats> = (0..cores).map(|c| TxStats::new(c, &sim.specs).0).collect();
    for (s, &n) in sim.sent.iter().enumerate() {
        let core = &mut tx[s % cores as usize];
        for _ in 0..n {
            core.record(s as u32, sim.frame_len[s]);
        }
        core.publish(n);
    }
    tx.into_iter().map(|t| t.finish(0)).collect()
}

/// Feeds the arrivals to `cores` RX cores, packet `i` going to `pick(i, packet)`. Publishes
/// every few packets on a clock that crosses latency intervals; `drain` says whether the control
/// thread takes the intervals (otherwise the queue fills and the worker keeps its buffers).
fn rx_cores(
    sim: &Simulation,
    cores: u32,
    drain: bool,
    pick: impl Fn(usize, &upfbench_testkit::sim::Packet) -> u32,
) -> Vec<RxCoreResult> {
    let (mut rx, mut handles): (Vec<_>, Vec<_>) = (0..cores)
        .map(|c| RxStats::new(c, &sim.specs, &config()).unwrap())
        .unzip();
    let mut sink = [
        LatencyRecorder::new(&config().latency).unwrap(),
        LatencyRecorder::new(&config().latency).unwrap(),
    ];
    let mut now = 0u64;
    for (i, p) in sim.arrivals.iter().enumerate() {
        let c = pick(i, p) as usize;
        rx[c].record(p.stream, p.seq, p.tx_ns, p.rx_ns, p.frame_len);
        if i % 7 == 0 {
            now += 10_000;
            for r in &mut rx {
                r.publish(now);
            }
            if drain {
                for h in &mut handles {
                    h.collect_latency(&mut sink);
                }
            }
        }
    }
    rx.into_iter().map(|r| r.finish(now)).collect()
}

fn merge(sim: &Simulation, tx: &[TxCoreResult], rx: &[RxCoreResult]) -> RunResult {
    RunResult::merge(&sim.specs, tx, rx, &config().latency).unwrap()
}

fn impairment() -> impl Strategy<Value = Impairment> {
    (
        0u64..200,
        0u64..100,
        0u64..300,
        prop::sample::select(vec![1u64, 8, 40, 200]),
    )
        .prop_map(|(d, u, r, m)| Impairment {
            drop_per_mille: d,
            dup_per_mille: u,
            reorder_per_mille: r,
            max_displacement: m,
        })
}

fn check_identities(r: &RunResult) -> Result<(), TestCaseError> {
    for s in &r.streams {
        prop_assert_eq!(s.seq.unique + s.seq.lost, s.seq.sent, "stream {}", s.stream);
        prop_assert_eq!(
            s.seq.unique + s.seq.duplicates + s.seq.late,
            s.seq.received,
            "stream {}",
            s.stream
        );
    }
    for d in &r.directions {
        prop_assert_eq!(d.seq.unique + d.seq.lost, d.seq.sent);
        prop_assert_eq!(d.seq.unique + d.seq.duplicates + d.seq.late, d.seq.received);
        prop_assert_eq!(d.seq.received, d.rx.packets);
        prop_assert_eq!(d.latency.count(), d.rx.packets);
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    #[test]
    fn partitioned_merge_equals_single_core(
        seed in any::<u64>(),
        streams in 1usize..12,
        cores in 2u32..5,
        imp in impairment(),
        drain in any::<bool>(),
    ) {
        let sim = simulate(seed, streams, 400, imp, |s| 60 + 97 * s as u32);
        let tx1 = tx_cores(&sim, 1);
        let txn = tx_cores(&sim, 2);
        let single = merge(&sim, &tx1, &rx_cores(&sim, 1, drain, |_, _| 0));
        let multi = merge(&sim, &txn, &rx_cores(&sim, cores, !drain, |_, p| p.stream % cores));
        prop_assert_eq!(&multi, &single);
        prop_assert_eq!(single.split_streams, 0);
        check_identities(&single)?;
        // Against the truth: the sent and received totals.
        for (s, r) in single.streams.iter().enumerate() {
            prop_assert_eq!(r.seq.sent, sim.sent[s]);
            prop_assert!(r.seq.unique <= sim.delivered[s]);
        }
        let arrivals = sim.arrivals.len() as u64;
        prop_assert_eq!(
            single.directions.iter().map(|d| d.rx.packets).sum::<u64>(),
            arrivals
        );
    }

    #[test]
    fn split_streams_keep_exact_identities(
        seed in any::<u64>(),
        streams in 1usize..8,
        cores in 2u32..4,
        imp in impairment(),
    ) {
        let sim = simulate(seed, streams, 300, imp, |_| 100);
        let tx = tx_cores(&sim, 1);
        let single = merge(&sim, &tx, &rx_cores(&sim, 1, true, |_, _| 0));
        let spread =
            |i: usize, _: &upfbench_testkit::sim::Packet| ((i as u64).wrapping_mul(0x9E37_79B9) >> 7) as u32 % cores;
        let rx = rx_cores(&sim, cores, true, spread);
        let split = merge(&sim, &tx, &rx);
        check_identities(&split)?;
        // Latency, traffic and TX figures do not depend on the partitioning.
        for d in Direction::ALL {
            let (a, b) = (split.direction(d), single.direction(d));
            prop_assert_eq!(&a.latency, &b.latency);
            prop_assert_eq!(a.rx, b.rx);
            prop_assert_eq!(a.tx, b.tx);
            prop_assert_eq!(a.seq.received, b.seq.received);
            prop_assert_eq!(a.seq.sent, b.seq.sent);
        }
        let expected_split = (0..streams)
            .filter(|&s| {
                rx.iter()
                    .filter(|r| r.streams[s].tracker.received() > 0)
                    .count()
                    > 1
            })
            .count() as u32;
        prop_assert_eq!(split.split_streams, expected_split);
        prop_assert_eq!(
            split.streams.iter().filter(|s| s.rx_cores > 1).count() as u32,
            expected_split
        );
        prop_assert_eq!(
            split.warnings.iter().any(|w| w.contains("more than one RX core")),
            expected_split > 0
        );
    }
}

#[test]
fn stream_with_nothing_received_is_all_lost() {
    let sim = simulate(
        1,
        3,
        50,
        Impairment {
            drop_per_mille: 1000,
            dup_per_mille: 0,
            reorder_per_mille: 0,
            max_displacement: 0,
        },
        |_| 64,
    );
    let r = merge(&sim, &tx_cores(&sim, 2), &rx_cores(&sim, 2, true, |_, _| 0));
    for (s, st) in r.streams.iter().enumerate() {
        assert_eq!(st.seq.lost, sim.sent[s]);
        assert_eq!(st.rx_cores, 0);
        assert_eq!(st.jitter_ns, None);
    }
    for d in &r.directions {
        assert_eq!(d.latency.count(), 0);
        assert_eq!(d.jitter_mean_ns, None);
    }
}

#[test]
fn mismatched_tables_are_refused() {
    let sim = simulate(
        2,
        4,
        10,
        Impairment {
            drop_per_mille: 0,
            dup_per_mille: 0,
            reorder_per_mille: 0,
            max_displacement: 0,
        },
        |_| 64,
    );
    let tx = tx_cores(&sim, 1);
    let rx = rx_cores(&sim, 1, true, |_, _| 0);
    let err = RunResult::merge(&sim.specs[..3], &tx, &rx, &config().latency).unwrap_err();
    assert_eq!(
        err.to_string(),
        "TX core 0 counted 4 streams, the run has 3"
    );
    let err = RunResult::merge(&sim.specs, &tx, &[], &config().latency);
    assert!(err.is_ok());
    let mut bad_rx = rx.clone();
    bad_rx[0].streams.pop();
    let err = RunResult::merge(&sim.specs, &tx, &bad_rx, &config().latency).unwrap_err();
    assert_eq!(
        err.to_string(),
        "RX core 0 tracked 3 streams, the run has 4"
    );
}
