//! The pairs' sections add up to the step's totals: every count, and each direction's latency
//! histogram bucket by bucket, from workers' real statistics over two pairs.
#![allow(clippy::print_stdout)]

use upfbench_stats::{
    Direction, LatencyRecorder, RunResult, RxConfig, RxStats, StreamSpec, TxStats,
};

use super::*;
use crate::datapath::assembly::{StepOutcome, stream_specs};

const SYSTEM: &str = include_str!("../../../../../../deploy/systems/memif-pairs.yaml");
const PROFILE: &str = "name: pairs\n\
    sessions: {count: 5}\n\
    streams:\n\
    - {name: ul, direction: uplink, rate: 10kpps, payload: 100}\n\
    - {name: dl, direction: downlink, rate: 10kpps, payload: 300}\n\
    duration: 1s\n";

/// Each worker's figures: every flow of its pair's UEs sent 100 packets; pair a's arrive after
/// 10 µs, pair b's after 50 µs (uplink) or 70 µs (downlink), pair b losing two downlink
/// packets a flow and receiving one twice.
fn outcome(plan: &Plan, specs: &[StreamSpec], blocks: &[std::ops::Range<u32>]) -> StepOutcome {
    let config = RxConfig {
        latency: plan.latency,
        ..RxConfig::default()
    };
    let mut tx = Vec::new();
    let mut rx = Vec::new();
    for (w, wp) in plan.workers.iter().enumerate() {
        let pair = usize::from(wp.pair);
        let (mut t, _) = TxStats::new(w as u32, specs);
        let (mut r, _) = RxStats::new(w as u32, specs, &config).expect("rx");
        for s in &plan.streams {
            for ue in s.ues.clone().filter(|u| blocks[pair].contains(u)) {
                let flow = s.flow_base + (ue - s.ues.start);
                let frame = u32::from(s.payload_len) + 50;
                t.record_n(flow, 100, frame);
                let transit = match (pair, s.direction) {
                    (0, _) => 10_000,
                    (_, Direction::Uplink) => 50_000,
                    (_, Direction::Downlink) => 70_000,
                };
                let lost = if pair == 1 && s.direction == Direction::Downlink {
                    2
                } else {
                    0
                };
                for seq in lost..100 {
                    r.record(flow, seq, 1_000, 1_000 + transit + u64::from(seq), frame);
                }
                if lost > 0 {
                    r.record(flow, 50, 1_000, 1_000 + transit, frame);
                }
            }
        }
        tx.push(t.finish(1_000_000));
        rx.push(r.finish(1_000_000));
    }
    let by_worker = vec![WorkerCounters::default(); tx.len()];
    StepOutcome {
        rx_by_worker: vec![[0, 0]; tx.len()],
        tx,
        rx,
        counters: WorkerCounters::default(),
        by_worker,
    }
}

fn step(plan: &Plan, specs: &[StreamSpec], part: &PairPart) -> StepReport {
    let clock = Clock::new(1_000_000_000, 0);
    report::step_report(&StepMeasurements {
        plan,
        specs,
        tx: &part.tx,
        rx: &part.rx,
        counters: &part.counters,
        start_clock: clock,
        end_clock: clock,
        ports: Default::default(),
        rx_by_worker: &part.rx_by_worker,
        rx_spread: ["", ""],
        one_port: false,
    })
    .expect("report")
}

/// Every count of the totals is the sum of the pairs'; the figures the test's workers made.
fn check_counts(totals: &StepReport, pairs: &[StepReport]) {
    for (d, total) in totals.directions.iter().enumerate() {
        let sum = |f: &dyn Fn(&upfbench_report::DirectionReport) -> u64| {
            pairs.iter().map(|p| f(&p.directions[d])).sum::<u64>()
        };
        println!(
            "{:?}: sent {} = {} + {}, unique {}, lost {}, duplicates {}",
            total.direction,
            total.loss.sent,
            pairs[0].directions[d].loss.sent,
            pairs[1].directions[d].loss.sent,
            total.loss.unique,
            total.loss.lost,
            total.loss.duplicates
        );
        assert_eq!(total.tx.packets, sum(&|x| x.tx.packets));
        assert_eq!(total.tx.bytes_l2, sum(&|x| x.tx.bytes_l2));
        assert_eq!(total.rx.packets, sum(&|x| x.rx.packets));
        assert_eq!(total.rx.bytes_l2, sum(&|x| x.rx.bytes_l2));
        assert_eq!(total.loss.sent, sum(&|x| x.loss.sent));
        assert_eq!(total.loss.unique, sum(&|x| x.loss.unique));
        assert_eq!(total.loss.lost, sum(&|x| x.loss.lost));
        assert_eq!(total.loss.duplicates, sum(&|x| x.loss.duplicates));
        assert_eq!(total.loss.reordered, sum(&|x| x.loss.reordered));
        let samples = |x: &upfbench_report::DirectionReport| {
            x.latency.as_ref().map_or(0, |l| l.percentiles.samples)
        };
        assert_eq!(samples(total), sum(&samples));
    }
    // Pair a: 2 UEs, pair b: 3 (the last takes the rounding), 100 packets a flow each way; b
    // lost 2 downlink a flow and received one twice.
    assert_eq!(
        (
            totals.directions[1].loss.sent,
            totals.directions[1].loss.lost
        ),
        (500, 6)
    );
    assert_eq!(
        (
            pairs[1].directions[1].loss.lost,
            pairs[1].directions[1].loss.duplicates
        ),
        (6, 3)
    );
    assert_eq!(pairs[0].directions[0].loss.sent, 200);
    for (s, total) in totals.streams.iter().enumerate() {
        let sum = |f: fn(&upfbench_report::StreamSummary) -> u64| {
            pairs.iter().map(|p| f(&p.streams[s])).sum::<u64>()
        };
        assert_eq!(total.sent, sum(|x| x.sent));
        assert_eq!(total.received, sum(|x| x.received));
        assert_eq!(total.lost, sum(|x| x.lost));
        assert_eq!(total.duplicates, sum(|x| x.duplicates));
        assert_eq!(total.flows, 5, "every stream's flows in total");
    }
}

/// Every bucket's count of a histogram, in order.
fn buckets(l: &LatencyRecorder) -> Vec<(u64, u64)> {
    l.histogram()
        .iter_all()
        .map(|v| (v.value_iterated_to(), v.count_at_value()))
        .collect()
}

#[test]
fn the_pairs_add_up_to_the_totals_count_by_count_and_bucket_by_bucket() {
    let (system, profile) =
        upfbench_config::run_from_str(SYSTEM, "memif-pairs.yaml", PROFILE, "p.yaml")
            .expect("valid");
    let plan = upfbench_run::plan::build(&system, &profile, None, [None, None]).expect("plan");
    let blocks = system.ue_blocks(5).expect("blocks");
    assert_eq!(blocks, [0..2, 2..5]);
    assert_eq!(
        plan.workers.iter().map(|w| w.pair).collect::<Vec<_>>(),
        [0, 1]
    );
    let specs = stream_specs(&plan);
    let o = outcome(&plan, &specs, &blocks);
    let of_worker: Vec<u16> = plan.workers.iter().map(|w| w.pair).collect();
    let all = PairPart {
        tx: o.tx.clone(),
        rx: o.rx.clone(),
        counters: o.counters.clone(),
        rx_by_worker: o.rx_by_worker.clone(),
    };
    let totals = step(&plan, &specs, &all);
    let parts: Vec<PairPart> = (0..2).map(|k| pair_part(&o, &of_worker, k)).collect();
    let pairs: Vec<StepReport> = parts.iter().map(|p| step(&plan, &specs, p)).collect();

    check_counts(&totals, &pairs);
    // The latency histograms: the totals' equal the merge of the pairs', bucket by bucket.
    let merged = |p: &PairPart| RunResult::merge(&specs, &p.tx, &p.rx, &plan.latency).unwrap();
    let total = merged(&all);
    let per_pair: Vec<RunResult> = parts.iter().map(merged).collect();
    for d in Direction::ALL {
        let mut sum = per_pair[0].directions[d.index()].latency.clone();
        sum.merge(&per_pair[1].directions[d.index()].latency);
        let (t, s) = (buckets(&total.directions[d.index()].latency), buckets(&sum));
        assert_eq!(t, s, "{d:?}");
        let counted: u64 = t.iter().map(|(_, c)| c).sum();
        assert_eq!(counted, if d == Direction::Uplink { 500 } else { 497 });
        // Each pair's own latencies: a's at 10 µs, b's at 50 or 70 µs.
        let max = |r: &RunResult| r.directions[d.index()].latency.histogram().max();
        assert!(max(&per_pair[0]) < 11_000, "{}", max(&per_pair[0]));
        assert!(max(&per_pair[1]) >= 50_000);
    }
}
