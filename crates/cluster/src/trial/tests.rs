use std::collections::BTreeMap;

use upfbench_api::v1::{DirectionFigures, LatencyHistogram, PairResult, StepResult};
use upfbench_report::PortReport;
use upfbench_stats::{
    Direction, LatencyConfig, LatencyRecorder, PortName, SeqCounters, TrafficCounters,
};

use super::*;
use crate::merge::{merge, settings};

/// An agent that sent `sent` packets over 1 s, lost `lost`, with latencies `samples`.
fn result(agent: &str, sent: u64, lost: u64, samples: &[i64]) -> StepResult {
    let mut r = LatencyRecorder::new(&LatencyConfig::default()).unwrap();
    samples.iter().for_each(|&s| r.record(s));
    StepResult {
        step: 3,
        agent: agent.to_owned(),
        latency: settings(&LatencyConfig::default()),
        start_late_ns: 0,
        duration_ns: 1_000_000_000,
        tsc_hz: 2e9,
        warnings: vec![],
        pairs: vec![PairResult {
            pair: "p0".to_owned(),
            directions: vec![DirectionFigures {
                direction: Direction::Uplink,
                tx: TrafficCounters::default(),
                rx: TrafficCounters::default(),
                seq: SeqCounters {
                    sent,
                    lost,
                    unique: sent - lost,
                    received: sent - lost,
                    ..Default::default()
                },
                latency: LatencyHistogram::of(&r).unwrap(),
            }],
            streams: vec![],
            qfis: vec![],
            ports: vec![PortReport::zero(PortName::N3)],
            frames: vec![],
            rx_rejected: BTreeMap::new(),
            rx_untagged: 0,
            rx_unknown_stream: 0,
            seconds: vec![],
        }],
    }
}

fn outcome(results: Vec<StepResult>, agents: usize) -> StepOutcome {
    let refs: Vec<&StepResult> = results.iter().collect();
    let merged = merge(3, &LatencyConfig::default(), &refs);
    StepOutcome {
        step: 3,
        start_ns: Some(1),
        stop_ns: None,
        counted: (results.len(), agents),
        merged: Some(merged),
        results,
        lost: vec![],
    }
}

const TOLERANCE: Tolerance = Tolerance {
    load: 0.01,
    late_us: 1_000.0,
};

fn shares() -> Vec<(String, f64)> {
    vec![("gnb-a".to_owned(), 0.25), ("gnb-b".to_owned(), 0.75)]
}

#[test]
fn the_trial_s_loss_is_the_sum_of_lost_over_the_sum_sent() {
    let request = TrialRequest {
        load: 40_000.0,
        duration_s: 1.0,
    };
    let o = outcome(
        vec![
            result("gnb-a", 10_000, 10, &[1_000, 2_000]),
            result("gnb-b", 30_000, 30, &[3_000, 90_000]),
        ],
        2,
    );
    let (t, limits) = trial(request, &o, &shares(), TOLERANCE, 1.5).unwrap();
    assert!(limits.is_empty(), "{limits:?}");
    assert!(!t.tester_limited);
    assert_eq!(t.loss_ratio, 40.0 / 40_000.0);
    assert_eq!(t.offered_load, 40_000.0);
    assert_eq!(t.duration_s, 1.5);
    let l = t.latency.unwrap();
    // Four samples over both agents: the median the second, the maximum b's.
    assert_eq!((l.p50_ns, l.max_ns), (2_000, 90_000));
}

#[test]
fn one_agent_short_of_its_share_makes_the_trial_tester_limited() {
    let request = TrialRequest {
        load: 40_000.0,
        duration_s: 1.0,
    };
    let o = outcome(
        vec![
            result("gnb-a", 10_000, 0, &[1_000]),
            result("gnb-b", 27_360, 0, &[1_000]),
        ],
        2,
    );
    let (t, limits) = trial(request, &o, &shares(), TOLERANCE, 1.0).unwrap();
    assert!(t.tester_limited);
    assert_eq!(limits, ["tester-limited: gnb-b sent 91.2 % of its share"]);
}

#[test]
fn a_trial_without_every_agent_is_no_trial() {
    let request = TrialRequest {
        load: 40_000.0,
        duration_s: 1.0,
    };
    let o = outcome(vec![result("gnb-a", 10_000, 0, &[1_000])], 2);
    assert_eq!(
        trial(request, &o, &shares(), TOLERANCE, 1.0)
            .unwrap_err()
            .to_string(),
        "1 of 2 agents counted: the trial is not the load asked for"
    );
}

#[test]
fn a_trial_s_load_is_the_multiplier_of_the_profile_s_rates() {
    let s = step_request(4, 64, 250_000.0, 1_000_000.0, 10_000, 500);
    assert_eq!((s.step, s.load, s.duration_ms), (4, 0.25, 10_000));
}
