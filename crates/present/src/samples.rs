//! Reports made by hand for the tests: a sweep with both directions and a timeline, and a
//! search with two goals, its trials and its latency under load.

use upfbench_report::{
    DirectionReport, GoalResult, GoalSpec, GoalStatus, LatencyReport, LoadLatency, LossReport,
    Nanos, Percentiles, Report, SearchCase, SearchDirections, SearchReport, SecondDirection,
    StepPhase, StepReport, StepSecond, ThroughputReport, TrialLatency, TrialRecord, TrialWall,
};
use upfbench_stats::Direction;

fn throughput(packets: u64, frame: u64, secs: f64) -> ThroughputReport {
    let l1 = packets * (frame + 24);
    ThroughputReport {
        packets,
        bytes_l2: packets * frame,
        bytes_l1: l1,
        gbps_l2: (packets * frame) as f64 * 8.0 / secs / 1e9,
        gbps_l1: l1 as f64 * 8.0 / secs / 1e9,
        kpps: packets as f64 / secs / 1e3,
    }
}

/// Latency whose median is `p50_ns`, the tail ten and a hundred times that.
pub(crate) fn latency(p50_ns: u64) -> LatencyReport {
    let ns = |n: u64| Nanos::from_ns(n);
    LatencyReport {
        percentiles: Percentiles {
            samples: 500_000,
            min: ns(p50_ns / 2),
            p50: ns(p50_ns),
            p90: ns(p50_ns * 2),
            p99: ns(p50_ns * 10),
            p99_9: Some(ns(p50_ns * 30)),
            p99_99: Some(ns(p50_ns * 60)),
            max: ns(p50_ns * 100),
        },
        avg_ns: p50_ns as f64 * 1.2,
        jitter_ns: Some(100.0),
        jitter_max_ns: Some(200.0),
        negative: 0,
        over_range: 0,
    }
}

fn direction(d: Direction, frame: u64, sent: u64, lost: u64, p50_ns: u64) -> DirectionReport {
    DirectionReport {
        direction: d,
        streams: 1,
        tx: throughput(sent, frame, 5.0),
        rx: throughput(sent - lost, frame, 5.0),
        loss: LossReport {
            sent,
            unique: sent - lost,
            lost,
            loss_pct: lost as f64 * 100.0 / sent as f64,
            duplicates: 0,
            reordered: 0,
            late: 0,
        },
        latency: Some(latency(p50_ns)),
        tx_slip: None,
        tester_lost: None,
    }
}

/// Seven seconds: a warm-up, five measured seconds (one losing 1 %) and the end.
fn seconds(kpps: f64) -> Vec<StepSecond> {
    (1..=7)
        .map(|t| {
            let phase = match t {
                1 => StepPhase::Warmup,
                7 => StepPhase::End,
                _ => StepPhase::Measure,
            };
            let tx_packets = (kpps * 1e3) as u64;
            let lost = if t == 4 { tx_packets / 100 } else { 0 };
            let one = |direction| SecondDirection {
                direction,
                tx_packets,
                rx_packets: tx_packets - lost,
                tx_gbps_l1: kpps * 1e3 * 8.0 * 400.0 / 1e9,
                tx_kpps: kpps,
                rx_gbps_l1: (kpps * 1e3 - lost as f64) * 8.0 * 400.0 / 1e9,
                rx_kpps: kpps - lost as f64 / 1e3,
                lost,
                lat_p50_ns: Some(Nanos::from_ns(2_000 + t * 10)),
                lat_p99_ns: Some(Nanos(9_000)),
                lat_max_ns: Some(Nanos::from_ns(40_000 * t)),
            };
            StepSecond {
                t_s: t as f64,
                interval_s: 1.0,
                phase,
                directions: vec![one(Direction::Uplink), one(Direction::Downlink)],
            }
        })
        .collect()
}

/// A step at `payload` bytes, `kpps` each way, losing `lost` uplink packets.
pub(crate) fn step(payload: u32, kpps: u64, lost: u64, p50_ns: u64) -> StepReport {
    let frame = u64::from(payload) + 42;
    let sent = kpps * 5_000;
    StepReport {
        label: format!("{payload} B"),
        payload_bytes: Some(payload),
        duration_s: 5.0,
        tsc_hz: None,
        directions: vec![
            direction(Direction::Uplink, frame + 36, sent, lost, p50_ns),
            direction(Direction::Downlink, frame, sent, 0, p50_ns + 500),
        ],
        rx_untagged: 0,
        rx_unknown_stream: 0,
        warnings: Vec::new(),
        ports: Vec::new(),
        rx_rejected: Default::default(),
        streams: Vec::new(),
        frames: Vec::new(),
        seconds: seconds(kpps as f64),
        rx_queues: Vec::new(),
        upf_faults: Vec::new(),
        handover: None,
        churn: None,
        qos: None,
        pairs: Vec::new(),
    }
}

/// A sweep at 10, 300 and 1400 B.
pub(crate) fn sweep(label: &str, kpps: u64) -> Report {
    let mut r = Report::new("0.1.0", 1_795_651_738_586);
    r.config.insert("label".into(), label.to_owned());
    r.config.insert("profile".into(), "published".into());
    r.steps = vec![
        step(10, kpps, 0, 2_000),
        step(300, kpps, 25, 2_500),
        step(1400, kpps / 2, 0, 3_000),
    ];
    r.warnings
        .push("a <run-wide> warning & its \"quotes\"".into());
    r
}

fn trial(step: usize, load_mpps: f64, loss_ratio: f64, limited: bool) -> TrialRecord {
    let sent = (load_mpps * 1e6) as u64;
    let received = sent - (sent as f64 * loss_ratio) as u64;
    TrialRecord {
        step,
        intended_load_pps: load_mpps * 1e6,
        offered_load_pps: load_mpps * 1e6 * if limited { 0.9 } else { 1.0 },
        forwarding_rate_pps: received as f64,
        sent,
        received,
        loss_ratio,
        intended_duration_s: 1.0,
        duration_s: 1.2,
        latency: vec![TrialLatency {
            direction: Direction::Uplink,
            latency: Percentiles {
                samples: sent,
                min: Nanos(2_000),
                p50: Nanos(3_000),
                p90: Nanos(5_000),
                p99: Nanos(12_000),
                p99_9: Some(Nanos(40_000)),
                p99_99: Some(Nanos(60_000)),
                max: Nanos(90_000),
            },
        }],
        tester_limited: limited.then(|| "TX schedule slipped 3 %".to_owned()),
        wall: Some(TrialWall {
            total_s: 1.25,
            setup_s: 0.02,
            warmup_s: 0.0,
            settle_s: 0.0,
            traffic_s: 1.001,
            drain_s: 0.004,
            quiet_s: 0.225,
        }),
    }
}

fn goal(name: &str, loss_ratio: f64) -> GoalSpec {
    GoalSpec {
        name: name.into(),
        loss_ratio,
        exceed_ratio: 0.5,
        relative_width: 0.005,
        initial_trial_duration_s: 1.0,
        final_trial_duration_s: 1.0,
        duration_sum_s: 21.0,
        latency: None,
    }
}

fn result(goal: &str, status: GoalStatus, lower: f64, upper: f64) -> GoalResult {
    GoalResult {
        goal: goal.into(),
        status,
        lower_bound_pps: Some(lower),
        upper_bound_pps: Some(upper),
        conditional_throughput_pps: Some(lower * 0.999),
        gbps_l1: Some(lower * 0.999 * 84.0 * 8.0 / 1e9),
        gbps_l2: Some(lower * 0.999 * 64.0 * 8.0 / 1e9),
        line_rate_pct: Some(lower / 148_809.52),
        tester_limited_at_pps: None,
    }
}

/// A search over 64-byte frames (10 B payloads, both directions) with NDR and PDR: eight
/// trials, one of them tester-limited; and a second case at 1400 B whose PDR is max load.
pub(crate) fn search(label: &str) -> Report {
    let mut r = Report::new("0.1.0", 1_795_651_738_586);
    r.config.insert("label".into(), label.to_owned());
    r.config.insert("profile".into(), "search".into());
    let trials = vec![
        trial(0, 4.0, 0.2, false),
        trial(1, 2.0, 0.0, false),
        trial(2, 3.0, 0.004, false),
        trial(3, 2.5, 0.0, false),
        trial(4, 2.75, 0.001, false),
        trial(5, 2.6, 0.0, false),
        trial(6, 3.2, 0.02, false),
        trial(7, 3.5, 0.03, true),
    ];
    let case = SearchCase {
        label: "10 B both".into(),
        payload_bytes: Some(10),
        directions: SearchDirections::Both,
        min_load_pps: 10_000.0,
        max_load_pps: 14_880_952.0,
        line_rate_pps: Some(14_880_952.0),
        frame_bytes_l2: 64.0,
        results: vec![
            result("NDR", GoalStatus::Regular, 2.6e6, 2.75e6),
            result("PDR", GoalStatus::Regular, 3.0e6, 3.2e6),
        ],
        trials: trials.clone(),
        latency_under_load: vec![LoadLatency {
            fraction: 0.9,
            trial: trial(8, 2.7, 0.0, false),
        }],
    };
    let mut large = case.clone();
    large.label = "1400 B both".into();
    large.payload_bytes = Some(1400);
    large.results = vec![
        result("NDR", GoalStatus::TesterLimited, 0.8e6, 0.9e6),
        result("PDR", GoalStatus::MaxLoadLowerBound, 0.84e6, 0.84e6),
    ];
    large.results[0].tester_limited_at_pps = Some(0.9e6);
    large.latency_under_load.clear();
    r.search = Some(SearchReport {
        goals: vec![goal("NDR", 0.0), goal("PDR", 0.005)],
        cases: vec![case, large],
        complete: true,
    });
    r.steps = (0..9).map(|i| step(10, 100 + i, 0, 3_000)).collect();
    r
}
