use serde_json::json;

use super::*;

fn throughput(packets: u64) -> serde_json::Value {
    json!({"packets": packets, "bytes_l2": packets * 128, "bytes_l1": packets * 148,
           "gbps_l2": 0.0, "gbps_l1": 0.0, "kpps": packets as f64 / 1e3})
}

fn direction(name: &str, sent: u64, unique: u64, p99_ns: u64) -> serde_json::Value {
    json!({
        "direction": name, "streams": 1,
        "tx": throughput(sent), "rx": throughput(unique),
        "loss": {"sent": sent, "unique": unique, "lost": sent - unique, "loss_pct": 0.0,
                 "duplicates": 0, "reordered": 0, "late": 0},
        "latency": {"samples": unique, "min_ns": 1000, "avg_ns": 2000.0, "max_ns": p99_ns * 2,
                    "p50_ns": 2000, "p90_ns": 3000, "p99_ns": p99_ns, "p99_9_ns": p99_ns + 1,
                    "p99_99_ns": p99_ns + 2, "jitter_ns": null, "jitter_max_ns": null,
                    "negative": 0, "over_range": 0}
    })
}

fn step(duration_s: f64, ul: (u64, u64), dl: (u64, u64), imissed: u64) -> StepReport {
    serde_json::from_value(json!({
        "label": "100 B", "payload_bytes": 100, "duration_s": duration_s,
        "directions": [direction("uplink", ul.0, ul.1, 9_000), direction("downlink", dl.0, dl.1, 7_000)],
        "rx_untagged": 0, "rx_unknown_stream": 0, "warnings": [],
        "ports": [{"name": "N3", "ipackets": 0, "opackets": 0, "ibytes": 0, "obytes": 0,
                   "imissed": imissed, "ierrors": 0, "rx_nombuf": 0, "oerrors": 0}]
    }))
    .expect("a step report")
}

const TOLERANCE: Tolerance = Tolerance {
    load: 0.01,
    late_us: 5_000.0,
};

const ASKED: TrialRequest = TrialRequest {
    load: 20_000.0,
    duration_s: 1.0,
};

#[test]
fn a_trial_adds_both_directions_and_keeps_the_worse_latency() {
    let s = step(1.0, (10_000, 9_990), (10_000, 10_000), 0);
    let wall = Duration::from_millis(1_900);
    let (t, r) = trial_of(&s, 7, ASKED, 20_000, wall, TOLERANCE);
    assert_eq!(t.loss_ratio, 10.0 / 20_000.0);
    assert_eq!(
        (t.offered_load, r.forwarding_rate_pps),
        (20_000.0, 19_990.0)
    );
    assert_eq!((t.intended_duration_s, t.duration_s), (1.0, 1.9));
    assert!(!t.tester_limited && r.tester_limited.is_none());
    assert_eq!(t.latency.unwrap().p99_ns, 9_000);
    assert_eq!(r.latency.len(), 2);
    assert_eq!((r.step, r.sent, r.received), (7, 20_000, 19_990));
}

#[test]
fn the_testers_own_shortfalls_mark_the_trial() {
    let wall = Duration::from_secs(2);
    // Sending took 5 % longer than asked: a slipped schedule.
    let (t, r) = trial_of(
        &step(1.05, (10_000, 10_000), (10_000, 10_000), 0),
        0,
        ASKED,
        20_000,
        wall,
        TOLERANCE,
    );
    assert!(t.tester_limited);
    assert!(r.tester_limited.unwrap().contains("schedule slipped"));
    // Within the tolerance: not marked.
    let (t, _) = trial_of(
        &step(1.005, (10_000, 10_000), (10_000, 10_000), 0),
        0,
        ASKED,
        20_000,
        wall,
        TOLERANCE,
    );
    assert!(!t.tester_limited);
    // Its own receive missed frames: the loss is not the UPF's.
    let (t, r) = trial_of(
        &step(1.0, (10_000, 9_000), (10_000, 10_000), 1_000),
        0,
        ASKED,
        20_000,
        wall,
        TOLERANCE,
    );
    assert!(t.tester_limited);
    assert_eq!(
        r.tester_limited.unwrap(),
        "1000 frames its receive queues missed (imissed) on N3"
    );
    // Cut short: fewer packets than planned.
    let (t, r) = trial_of(
        &step(1.0, (5_000, 5_000), (5_000, 5_000), 0),
        0,
        ASKED,
        20_000,
        wall,
        TOLERANCE,
    );
    assert!(t.tester_limited);
    assert!(
        r.tester_limited
            .unwrap()
            .starts_with("sent 10000 of 20000 packets")
    );
}

#[test]
fn a_sender_that_fell_far_behind_marks_the_trial_even_if_it_caught_up() {
    let mut s = step(1.0, (10_000, 10_000), (10_000, 10_000), 0);
    s.directions[1].tx_slip = Some(upfbench_report::TxSlip {
        count: 1,
        slipped_us: 0.0,
        max_late_us: 12_000.0,
    });
    let (t, r) = trial_of(&s, 0, ASKED, 20_000, Duration::from_secs(2), TOLERANCE);
    assert!(t.tester_limited);
    assert!(r.tester_limited.unwrap().contains("12000 us behind"));
    s.directions[1].tx_slip.as_mut().unwrap().max_late_us = 4_000.0;
    let (t, _) = trial_of(&s, 0, ASKED, 20_000, Duration::from_secs(2), TOLERANCE);
    assert!(!t.tester_limited);
}
