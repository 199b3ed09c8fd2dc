use std::collections::BTreeMap;

use upfbench_api::v1::{DirectionFigures, LatencyHistogram, PairResult, StepResult};
use upfbench_report::PortReport;
use upfbench_stats::{
    Direction, LatencyConfig, LatencyRecorder, PortName, SeqCounters, TrafficCounters,
};

use super::*;
use crate::merge::settings;

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

const TOLERANCE: Tolerance = Tolerance {
    load: 0.01,
    late_us: 1_000.0,
};

#[test]
fn one_agent_short_of_its_share_makes_the_trial_tester_limited() {
    // A trial of 40,000 pps: gnb-a holds a quarter of the UEs, gnb-b three quarters.
    assert!(agent_limits(&result("gnb-a", 10_000, 0, &[1_000]), 10_000.0, TOLERANCE).is_empty());
    let limits = agent_limits(&result("gnb-b", 27_360, 0, &[1_000]), 30_000.0, TOLERANCE);
    assert_eq!(limits, ["tester-limited: gnb-b sent 91.2 % of its share"]);
}

#[test]
fn a_trial_s_load_is_the_multiplier_of_the_profile_s_rates() {
    let s = step_request(4, Some(64), 250_000.0, 1_000_000.0, 10_000, 500);
    assert_eq!((s.step, s.load, s.duration_ms), (4, 0.25, 10_000));
}
