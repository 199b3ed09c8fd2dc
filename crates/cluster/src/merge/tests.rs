use std::collections::BTreeMap;

use proptest::prelude::*;
use upfbench_api::v1::{
    DirectionFigures, LatencyHistogram, PairResult, QfiFigures, SecondDirection, SecondFigures,
    StepResult, StreamFigures,
};
use upfbench_report::{PortFrames, PortReport, StepPhase, TxSlip};
use upfbench_stats::{
    Direction, LatencyConfig, LatencyRecorder, PortName, SeqCounters, TrafficCounters,
};

use super::*;

const DIRS: [Direction; 2] = [Direction::Uplink, Direction::Downlink];

/// One sample: its latency (ns), its direction (0 up, 1 down), its second.
type Sample = (u32, usize, u32);

fn recorder(samples: impl Iterator<Item = u32>) -> LatencyRecorder {
    let mut r = LatencyRecorder::new(&LatencyConfig::default()).unwrap();
    for s in samples {
        r.record(i64::from(s));
    }
    r
}

fn encoded(samples: impl Iterator<Item = u32>) -> LatencyHistogram {
    LatencyHistogram::of(&recorder(samples)).unwrap()
}

fn seq(base: u64) -> SeqCounters {
    SeqCounters {
        sent: base * 10,
        received: base * 9,
        unique: base * 8,
        lost: base * 2,
        duplicates: base,
        reordered: base + 1,
        late: base + 2,
        sent_raised: base % 3,
    }
}

fn traffic(base: u64) -> TrafficCounters {
    TrafficCounters {
        packets: base,
        bytes_l2: base * 100,
    }
}

/// An agent's result with counters from `base` and the latency `samples` on one pair (or split
/// over two when `pairs` is 2), streams 0 (uplink) and 1 (downlink).
#[expect(
    clippy::too_many_lines,
    reason = "one agent's whole result, every field given"
)]
fn result(agent: &str, base: u64, samples: &[Sample], pairs: usize) -> StepResult {
    let config = LatencyConfig::default();
    let mut out = Vec::new();
    for p in 0..pairs {
        let mine = |d: usize| {
            samples
                .iter()
                .enumerate()
                .filter(move |(i, s)| s.1 == d && i % pairs == p)
                .map(|(_, s)| *s)
        };
        let directions = DIRS
            .iter()
            .enumerate()
            .map(|(d, &direction)| DirectionFigures {
                direction,
                tx: traffic(base + d as u64),
                rx: traffic(base + 7),
                seq: seq(base + d as u64),
                latency: encoded(mine(d).map(|s| s.0)),
            })
            .collect();
        let streams = DIRS
            .iter()
            .enumerate()
            .map(|(d, &direction)| StreamFigures {
                stream: d as u32,
                name: format!("s{d}"),
                direction,
                flows: 2,
                seq: seq(base * 3 + d as u64),
                jitter_mean_ns: Some(base as f64),
                jitter_flows: 2,
                latency: encoded(mine(d).map(|s| s.0)),
                tx_slip: Some(TxSlip {
                    count: base,
                    slipped_us: base as f64,
                    max_late_us: 1.0,
                }),
            })
            .collect();
        let mut seconds: BTreeMap<u32, Vec<Sample>> = BTreeMap::new();
        for s in mine(0).chain(mine(1)) {
            seconds.entry(s.2).or_default().push(s);
        }
        let seconds = seconds
            .into_iter()
            .map(|(index, ss)| SecondFigures {
                index,
                duration_ns: 1_000_000_000,
                phase: StepPhase::Measure,
                directions: DIRS
                    .iter()
                    .enumerate()
                    .map(|(d, &direction)| SecondDirection {
                        direction,
                        tx: traffic(base),
                        rx: traffic(1),
                        lost: base,
                        latency: encoded(ss.iter().filter(|s| s.1 == d).map(|s| s.0)),
                    })
                    .collect(),
            })
            .collect();
        let mut n3 = PortReport::zero(PortName::N3);
        n3.opackets = base;
        n3.imissed = base / 2;
        out.push(PairResult {
            pair: format!("p{p}"),
            directions,
            streams,
            qfis: vec![QfiFigures {
                qfi: 9,
                direction: Direction::Uplink,
                seq: seq(base),
                latency: encoded(mine(0).map(|s| s.0)),
            }],
            ports: vec![n3, PortReport::zero(PortName::N6)],
            frames: vec![PortFrames {
                name: PortName::N3,
                tx_measured: base,
                tx_warmup: 1,
                tx_service: 2,
                rx_measured: 3,
                rx_unmeasured: 4,
                rx_service: 5,
                rx_rejected: 6,
                tx_probes: 0,
                rx_probes: 0,
            }],
            rx_rejected: BTreeMap::from([("N3 not_gtpu".to_owned(), base)]),
            rx_untagged: base,
            rx_unknown_stream: 1,
            seconds,
        });
    }
    StepResult {
        step: 1,
        agent: agent.to_owned(),
        latency: settings(&config),
        start_late_ns: base as i64 - 50,
        duration_ns: 5_000_000_000 + base,
        tsc_hz: 2e9,
        warnings: vec![],
        pairs: out,
    }
}

/// (value, count) of every bucket that holds samples.
fn buckets(r: &LatencyRecorder) -> Vec<(u64, u64)> {
    r.histogram()
        .iter_recorded()
        .map(|v| (v.value_iterated_to(), v.count_at_value()))
        .collect()
}

fn samples_and_owners() -> impl Strategy<Value = (usize, Vec<(Sample, usize)>)> {
    (2usize..=3).prop_flat_map(|agents| {
        let sample = ((1u32..4_000_000_000, 0usize..2, 0u32..4), 0..agents);
        (Just(agents), prop::collection::vec(sample, 0..300))
    })
}

proptest! {
    // Each case encodes and decodes dozens of histograms (deflate, unoptimised in tests).
    #![proptest_config(ProptestConfig::with_cases(24))]

    #[test]
    fn merged_counts_are_the_sum_of_the_parts(
        bases in prop::collection::vec(0u64..1 << 40, 2..=3),
        pairs in 1usize..=2,
    ) {
        let results: Vec<StepResult> = bases
            .iter()
            .enumerate()
            .map(|(i, &b)| result(&format!("a{i}"), b, &[], pairs))
            .collect();
        let refs: Vec<&StepResult> = results.iter().collect();
        let m = merge(1, &LatencyConfig::default(), &refs).unwrap();
        let parts = |f: &dyn Fn(&PairResult) -> u64| -> u64 {
            results.iter().flat_map(|r| &r.pairs).map(f).sum()
        };
        for (d, md) in m.directions.iter().enumerate() {
            prop_assert_eq!(md.direction, DIRS[d]);
            prop_assert_eq!(md.seq.sent, parts(&|p| p.directions[d].seq.sent));
            prop_assert_eq!(md.seq.lost, parts(&|p| p.directions[d].seq.lost));
            prop_assert_eq!(md.seq.late, parts(&|p| p.directions[d].seq.late));
            prop_assert_eq!(md.tx.bytes_l2, parts(&|p| p.directions[d].tx.bytes_l2));
            prop_assert_eq!(md.rx.packets, parts(&|p| p.directions[d].rx.packets));
        }
        for (s, ms) in m.streams.iter().enumerate() {
            prop_assert_eq!(ms.seq.unique, parts(&|p| p.streams[s].seq.unique));
            prop_assert_eq!(u64::from(ms.flows), parts(&|p| u64::from(p.streams[s].flows)));
            let slip = ms.tx_slip.unwrap();
            prop_assert_eq!(slip.count, parts(&|p| p.streams[s].tx_slip.unwrap().count));
            let longest = bases.iter().copied().max().unwrap() as f64;
            prop_assert_eq!(slip.slipped_us, longest);
        }
        prop_assert_eq!(m.qfis[0].seq.received, parts(&|p| p.qfis[0].seq.received));
        prop_assert_eq!(m.ports[0].opackets, parts(&|p| p.ports[0].opackets));
        prop_assert_eq!(m.ports[0].imissed, parts(&|p| p.ports[0].imissed));
        prop_assert_eq!(m.frames[0].tx_measured, parts(&|p| p.frames[0].tx_measured));
        prop_assert_eq!(m.frames[0].rx_rejected, parts(&|p| p.frames[0].rx_rejected));
        prop_assert_eq!(m.rx_rejected["N3 not_gtpu"], parts(&|p| p.rx_rejected["N3 not_gtpu"]));
        prop_assert_eq!(m.rx_untagged, parts(&|p| p.rx_untagged));
        prop_assert_eq!(m.rx_unknown_stream, parts(&|p| p.rx_unknown_stream));
        let (sent, lost) = m.sent_and_lost();
        prop_assert_eq!(sent, parts(&|p| p.directions[0].seq.sent + p.directions[1].seq.sent));
        prop_assert_eq!(lost, parts(&|p| p.directions[0].seq.lost + p.directions[1].seq.lost));
        prop_assert_eq!(m.start_late_max_ns, bases.iter().max().map(|&b| b as i64 - 50).unwrap());
        prop_assert_eq!(m.start_late_min_ns, bases.iter().min().map(|&b| b as i64 - 50).unwrap());
        prop_assert_eq!(m.agents.len(), bases.len());
    }

    #[test]
    fn the_merged_histogram_is_one_recorder_of_every_sample_bucket_by_bucket(
        (agents, owned) in samples_and_owners(),
        pairs in 1usize..=2,
    ) {
        let results: Vec<StepResult> = (0..agents)
            .map(|a| {
                let mine: Vec<Sample> =
                    owned.iter().filter(|(_, o)| *o == a).map(|(s, _)| *s).collect();
                result(&format!("a{a}"), 1, &mine, pairs)
            })
            .collect();
        let refs: Vec<&StepResult> = results.iter().collect();
        let m = merge(1, &LatencyConfig::default(), &refs).unwrap();
        for (d, md) in m.directions.iter().enumerate() {
            let one = recorder(owned.iter().filter(|(s, _)| s.1 == d).map(|(s, _)| s.0));
            prop_assert_eq!(buckets(&md.latency), buckets(&one));
            prop_assert_eq!(&md.latency, &one);
            prop_assert_eq!(md.latency.quantile_ns(0.99), one.quantile_ns(0.99));
            prop_assert_eq!(&m.streams[d].latency, &one);
        }
        // Second k of the merge holds every agent's second k, whoever sent it.
        let mut indices: Vec<u32> = owned.iter().map(|(s, _)| s.2).collect();
        indices.sort_unstable();
        indices.dedup();
        prop_assert_eq!(m.seconds.iter().map(|s| s.index).collect::<Vec<_>>(), indices);
        for second in &m.seconds {
            for (d, sd) in second.directions.iter().enumerate() {
                let one = recorder(
                    owned.iter().filter(|(s, _)| s.1 == d && s.2 == second.index).map(|(s, _)| s.0),
                );
                prop_assert_eq!(buckets(&sd.latency), buckets(&one));
                prop_assert_eq!(&sd.latency, &one);
            }
        }
    }
}

#[test]
fn seconds_are_aligned_by_their_index_from_the_common_start() {
    // Agent a has seconds 0, 1 and 2; agent b, which sent nothing in second 0, 1 to 3.
    let a = result("a", 5, &[(100, 0, 0), (200, 0, 1), (300, 0, 2)], 1);
    let b = result("b", 7, &[(400, 0, 1), (500, 0, 2), (600, 0, 3)], 1);
    let m = merge(1, &LatencyConfig::default(), &[&a, &b]).unwrap();
    let index: Vec<u32> = m.seconds.iter().map(|s| s.index).collect();
    assert_eq!(index, [0, 1, 2, 3]);
    let up = |k: usize| &m.seconds[k].directions[0];
    assert_eq!(up(0).tx.packets, 5, "a's alone");
    assert_eq!(up(1).tx.packets, 12, "a's and b's");
    assert_eq!(up(3).lost, 7, "b's alone");
    assert_eq!(up(1).latency.count(), 2);
    assert_eq!(
        (up(1).latency.min_ns(), up(1).latency.max_ns()),
        (Some(200), Some(400))
    );
    assert_eq!(up(2).latency.sum_ns(), 800);
}

#[test]
fn jitter_is_the_flow_weighted_mean_and_the_extremes_are_exact() {
    let mut a = result("a", 1, &[(1_000, 0, 0)], 1);
    let mut b = result("b", 1, &[(77_777, 0, 0), (5, 0, 0)], 1);
    a.pairs[0].streams[0].jitter_mean_ns = Some(100.0);
    a.pairs[0].streams[0].jitter_flows = 1;
    b.pairs[0].streams[0].jitter_mean_ns = Some(400.0);
    b.pairs[0].streams[0].jitter_flows = 3;
    // A part without an estimate does not weigh.
    b.pairs[0].streams[1].jitter_mean_ns = None;
    b.pairs[0].streams[1].jitter_flows = 0;
    let m = merge(1, &LatencyConfig::default(), &[&a, &b]).unwrap();
    assert_eq!(m.streams[0].jitter_mean_ns, Some(325.0));
    assert_eq!(m.streams[0].jitter_flows, 4);
    assert_eq!(m.streams[1].jitter_mean_ns, Some(1.0));
    let up = &m.directions[0].latency;
    assert_eq!((up.min_ns(), up.max_ns()), (Some(5), Some(77_777)));
    assert_eq!(up.sum_ns(), 78_782);
}

#[test]
fn another_latency_configuration_is_refused() {
    let a = result("a", 1, &[(1_000, 0, 0)], 1);
    let mut b = result("b", 1, &[(2_000, 0, 0)], 1);
    b.latency.significant_digits = 4;
    let err = merge(1, &LatencyConfig::default(), &[&a, &b]).unwrap_err();
    assert!(matches!(err, MergeError::LatencyConfig { ref agent, .. } if agent == "b"));
    assert_eq!(
        err.to_string(),
        "b: latency histograms of 1..=10000000000 ns at 4 digits, the run's are of \
         1..=10000000000 ns at 3 digits: not merged"
    );
    // A histogram that says the run's settings but is of another precision is caught too.
    let mut c = result("c", 1, &[], 1);
    let finer = LatencyConfig {
        significant_digits: 4,
        ..LatencyConfig::default()
    };
    let mut r = LatencyRecorder::new(&finer).unwrap();
    r.record(10);
    c.pairs[0].streams[1].latency = LatencyHistogram::of(&r).unwrap();
    let err = merge(1, &LatencyConfig::default(), &[&a, &c]).unwrap_err();
    assert!(
        matches!(
            err,
            MergeError::Histogram { ref field, source: HistogramError::Configuration { .. }, .. }
                if field == "pairs[0].streams[1].latency"
        ),
        "{err}"
    );
}

#[test]
fn another_step_or_stream_and_nothing_are_refused() {
    let a = result("a", 1, &[], 1);
    let mut b = result("b", 1, &[], 1);
    b.step = 2;
    assert_eq!(
        merge(1, &LatencyConfig::default(), &[&a, &b])
            .unwrap_err()
            .to_string(),
        "b: a result of step 2 where step 1's was asked for"
    );
    let mut c = result("c", 1, &[], 1);
    c.pairs[0].streams[1].name = "other".to_owned();
    assert_eq!(
        merge(1, &LatencyConfig::default(), &[&a, &c])
            .unwrap_err()
            .to_string(),
        "c: pairs[0].streams[1]: stream 1 is \"other\" (Downlink) here and \"s1\" (Downlink) in \
         the results before"
    );
    assert_eq!(
        merge(1, &LatencyConfig::default(), &[]),
        Err(MergeError::Empty)
    );
}
