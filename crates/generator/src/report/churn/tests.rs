use std::sync::Arc;
use std::time::Duration;

use upfbench_report::{SecondDirection, StepSecond};
use upfbench_stats::Direction;

use super::*;
use crate::datapath::churn_rx::ProbeRecord;
use upfbench_config::Churn;
use upfbench_run::plan::ChurnPlan;

/// 4 churn sessions at 10/s from 0 (100 ms apart), 200 ms lives, probes every 1 ms; 3
/// modifications at 5/s over a 0.6 s phase.
fn step() -> ChurnStep {
    let c = Churn {
        rate: 10.0,
        lifetime: Duration::from_millis(200),
        modify_rate: 5.0,
        probe_interval: Duration::from_millis(1),
        start: Duration::ZERO,
        baseline: true,
    };
    ChurnStep {
        plan: Arc::new(ChurnPlan::new(&c, Duration::from_millis(600), 2, 2, 4, 20)),
        on: true,
    }
}

fn outcome(kind: ProcedureKind, index: u32, sent_ms: u64, latency_us: u64) -> ChurnOutcome {
    ChurnOutcome {
        kind,
        index,
        sent_at: Duration::from_millis(sent_ms),
        latency: Duration::from_micros(latency_us),
        error: None,
    }
}

fn second(t_s: f64) -> StepSecond {
    StepSecond {
        t_s,
        interval_s: 1.0,
        phase: upfbench_report::StepPhase::Measure,
        directions: vec![SecondDirection {
            direction: Direction::Downlink,
            tx_packets: 0,
            rx_packets: 0,
            tx_gbps_l1: 0.0,
            tx_kpps: 0.0,
            rx_gbps_l1: 0.0,
            rx_kpps: 0.0,
            lost: 0,
            lat_p50_ns: None,
            lat_p99_ns: None,
            lat_max_ns: None,
        }],
    }
}

#[test]
fn activation_lag_runs_from_the_answer_to_the_first_forwarded_probe() {
    let s = step();
    let p = &s.plan;
    assert_eq!((p.count, p.modifications.len()), (4, 3));
    let start = 5_000_000_000u64;
    let probes = probes(p, start);
    let outcomes = outcomes(p);
    // The timeline: the measured phase starts 0.4 s after its zero; seconds end at 1.0, 2.0.
    let seconds = [second(1.0), second(2.0)];
    let r = churn_report(
        &ChurnInputs {
            step: &s,
            outcomes: &outcomes,
            probes: &probes,
            seconds: &seconds,
            live_start_ns: start - 400_000_000,
            measured_s: 0.6,
        },
        Vec::new(),
    );
    check_activation(&r);
    check_procedures(&r);
    check_seconds(&r);
}

/// Four sessions' probes: forwarded late, forwarded after lost ones, forwarded before the
/// answer, never forwarded.
fn probes(p: &ChurnPlan, start: u64) -> ChurnRx {
    let mut probes = ChurnRx::new(4);
    probes.measure_start_ns = Some(start);
    let at = |k: u32, seq: u32| start + p.establish_at(k) + u64::from(seq) * 1_000_000;
    // Session 0: answered after 2.5 ms; probes 0..2 dropped, probe 3 (due at 3 ms, sent 0.4 ms
    // late) the first forwarded: lag at most 0.9 ms, at least 0, no probe after the answer
    // lost.
    probes.sessions[0] = ProbeRecord {
        sent: 200,
        received: 197,
        first_seq: 3,
        first_tx_ns: at(0, 3) + 400_000,
        first_rx_ns: at(0, 3) + 420_000,
    };
    // Session 1: answered after 2.5 ms, but the first forwarded is probe 6: probes 3, 4 and 5
    // were sent after the answer and met no rule; lag 3.5 ms.
    probes.sessions[1] = ProbeRecord {
        sent: 200,
        received: 194,
        first_seq: 6,
        first_tx_ns: at(1, 6),
        first_rx_ns: at(1, 6) + 20_000,
    };
    // Session 2: probe 0 forwarded, sent before the answer came: in effect before the answer.
    probes.sessions[2] = ProbeRecord {
        sent: 200,
        received: 200,
        first_seq: 0,
        first_tx_ns: at(2, 0),
        first_rx_ns: at(2, 0) + 20_000,
    };
    // Session 3: established, nothing ever forwarded.
    probes.sessions[3] = ProbeRecord {
        sent: 200,
        ..ProbeRecord::default()
    };
    probes
}

/// Every session established after 2.5 ms and deleted 200 ms later after 1 ms; one
/// modification answered, one refused.
fn outcomes(p: &ChurnPlan) -> Vec<ChurnOutcome> {
    let mut outcomes = Vec::new();
    for k in 0..4u32 {
        let t = p.establish_at(k) / 1_000_000;
        outcomes.push(outcome(ProcedureKind::Establishment, k, t, 2_500));
        outcomes.push(outcome(ProcedureKind::Deletion, k, t + 200, 1_000));
    }
    outcomes.push(outcome(ProcedureKind::Modification, 0, 0, 800));
    let mut refused = outcome(ProcedureKind::Modification, 1, 200, 900);
    refused.error = Some("Cause 65".into());
    outcomes.push(refused);
    outcomes
}

/// Activation: the lags, their floors and the probes lost after the answer.
fn check_activation(r: &ChurnReport) {
    let a = &r.activation;
    assert_eq!(
        (a.established, a.never_forwarded, a.before_answer),
        (4, 1, 1)
    );
    // 0 (lost 0), 3 (lost 3), 2 (before), 3 (never: all 197 after the answer's probe 3).
    assert_eq!(r.sessions[0].lost_after_answer, 0);
    assert_eq!(r.sessions[1].lost_after_answer, 3);
    assert_eq!(r.sessions[2].lost_after_answer, 0);
    assert_eq!(r.sessions[3].lost_after_answer, 197);
    assert_eq!(a.lost_after_answer, 200);
    let lag = |k: usize| r.sessions[k].lag_ms.unwrap();
    assert!((lag(0) - 0.9).abs() < 1e-9 && (lag(1) - 3.5).abs() < 1e-9 && lag(2) == 0.0);
    assert_eq!(r.sessions[3].lag_ms, None);
    // At least: when the dropped probe before the first forwarded was due, after the answer:
    // session 0's probe 2 (2 ms, before the 2.5 ms answer): 0; session 1's probe 5: 2.5 ms.
    let floor = |k: usize| r.sessions[k].lag_floor_ms.unwrap();
    assert!(floor(0) == 0.0 && (floor(1) - 2.5).abs() < 1e-9 && floor(2) == 0.0);
    assert!((r.sessions[0].probe_late_ms.unwrap() - 0.4).abs() < 1e-9);
    assert_eq!(r.sessions[1].probe_late_ms, Some(0.0));
    let f = a.lag_floor.unwrap();
    assert_eq!((f.samples, f.max.ms()), (3, 2.5));
    let l = a.lag.unwrap();
    assert_eq!((l.samples, l.min.ms(), l.max.ms()), (3, 0.0, 3.5));
    assert_eq!((a.probes_sent, a.probes_received), (800, 591));
}

/// Every procedure's counts and latency, the failed one's too.
fn check_procedures(r: &ChurnReport) {
    let e = &r.establishments;
    assert_eq!((e.planned, e.sent, e.succeeded, e.failed), (4, 4, 4, 0));
    assert_eq!(e.latency.unwrap().samples, 4);
    let m = &r.modifications;
    assert_eq!((m.planned, m.sent, m.succeeded, m.failed), (3, 2, 1, 1));
    assert_eq!(m.first_error.as_deref(), Some("Cause 65"));
    assert_eq!(r.deletions.latency.unwrap().samples, 4);
    // 4 from 0 to 302.5 ms.
    assert!((r.achieved_per_s[0] - 4.0 / 0.3025).abs() < 1e-9);
}

/// The timeline's seconds.
fn check_seconds(r: &ChurnReport) {
    // All in the first second of the timeline (0.4 s + at most 0.501 s).
    let first = &r.seconds[0];
    assert_eq!(
        (first.asked, first.achieved, first.failed),
        ([4, 2, 4], [4, 1, 4], 1)
    );
    assert_eq!(first.latency.unwrap().samples, 10);
    assert_eq!(r.seconds[1].asked, [0, 0, 0]);
}

#[test]
fn the_baseline_step_reports_its_plan_without_procedures() {
    let mut s = step();
    s.on = false;
    let r = churn_report(
        &ChurnInputs {
            step: &s,
            outcomes: &[],
            probes: &ChurnRx::default(),
            seconds: &[second(1.0)],
            live_start_ns: 0,
            measured_s: 0.6,
        },
        Vec::new(),
    );
    assert!(!r.on);
    assert_eq!((r.establishments.planned, r.establishments.sent), (0, 0));
    assert!(r.sessions.is_empty() && r.seconds.is_empty());
}
