//! The generator's scrape through a step's life: real RX and TX statistics read at scrape time
//! while the step runs, then the report's figures and the exact histograms once collected.

use std::time::Duration;

use upfbench_pfcp::node::{Figures, Stats};
use upfbench_stats::{
    Direction, LatencyConfig, LatencyRecorder, RunResult, RxConfig, RxStats, StreamSpec, TxStats,
};

use upfbench_cli::MetricsArgs;
use upfbench_metrics::scrape::{ParsedFamily, check_semantics, get, parse, promtool, value};

use super::*;
use crate::metrics::PfcpMetrics;

/// An endpoint on a free loopback port that does not linger.
fn endpoint() -> GeneratorMetrics {
    let args = MetricsArgs {
        metrics: Some("127.0.0.1:0".parse().expect("address")),
        metrics_linger: Duration::ZERO,
    };
    Metrics::start(&args).expect("starts").expect("asked for")
}

const SPECS: [StreamSpec; 2] = [
    StreamSpec {
        direction: Direction::Uplink,
        first_seq: 0,
    },
    StreamSpec {
        direction: Direction::Downlink,
        first_seq: 0,
    },
];

fn scrape(m: &GeneratorMetrics) -> (Vec<ParsedFamily>, String) {
    let (status, _, text) = get(m.address().expect("served"), "/metrics");
    assert_eq!(status, 200);
    let parsed = parse(&text).unwrap_or_else(|e| panic!("{e}\n{text}"));
    check_semantics(Role::Generator, &parsed);
    if let Some((ok, said)) = promtool(&text) {
        assert!(ok, "promtool check metrics:\n{said}\n{text}");
    }
    (parsed, text)
}

fn at(parsed: &[ParsedFamily], name: &str, direction: &str, step: &str) -> Option<f64> {
    value(parsed, name, &[("direction", direction), ("step", step)])
}

#[test]
fn a_step_is_read_from_its_workers_then_from_its_report() {
    let m = endpoint();
    let (mut rx, rx_handle) = RxStats::new(0, &SPECS, &RxConfig::default()).expect("rx");
    let (mut tx, tx_handle) = TxStats::new(0, &SPECS);
    m.step_started(0, "300 B".into(), &[rx_handle], &[tx_handle]);
    check_nothing_sent_yet(&m);

    send_and_receive(&mut tx, &mut rx);
    check_live_counters(&m);

    let config = LatencyConfig::default();
    add_two_live_intervals(&m, &config);
    check_live_latency(&m);

    let report = collect(&m, tx, rx, &config);
    check_collected_figures(&m, &report);

    let _next = start_the_next_step(&m);
    check_both_steps_series(&m);
}

/// Nothing sent yet: no direction shows.
fn check_nothing_sent_yet(m: &GeneratorMetrics) {
    let (parsed, _) = scrape(m);
    assert_eq!(
        at(&parsed, "upfbench_sent_packets_total", "uplink", "1"),
        None
    );
    assert_eq!(value(&parsed, "upfbench_step", &[]), Some(1.0));
}

/// 10 packets sent uplink and 5 downlink, the uplink senders 2.5 ms behind; uplink received
/// 0 1 2 4 5, then 3 (reordered) and 5 again (a duplicate), 1 µs each; downlink 0 to 4, 50 µs.
fn send_and_receive(tx: &mut TxStats, rx: &mut RxStats) {
    tx.record_n(0, 10, 100);
    tx.record_n(1, 5, 200);
    tx.set_late_ns([2_500_000, 0]);
    tx.publish(1_000);
    for seq in [0, 1, 2, 4, 5, 3, 5] {
        rx.record(0, seq, 10_000, 11_000, 100);
    }
    for seq in 0..5 {
        rx.record(1, seq, 10_000, 60_000, 200);
    }
    rx.publish(2_000);
}

/// The workers' counters, read at scrape time.
fn check_live_counters(m: &GeneratorMetrics) {
    let (parsed, _) = scrape(m);
    let up = |name: &str| at(&parsed, name, "uplink", "1");
    assert_eq!(up("upfbench_sent_packets_total"), Some(10.0));
    // On the wire: the FCS counted.
    assert_eq!(up("upfbench_sent_bytes_total"), Some(1_040.0));
    assert_eq!(up("upfbench_received_packets_total"), Some(7.0));
    assert_eq!(up("upfbench_received_bytes_total"), Some(728.0));
    assert_eq!(up("upfbench_duplicated_packets_total"), Some(1.0));
    assert_eq!(up("upfbench_reordered_packets_total"), Some(1.0));
    assert_eq!(up("upfbench_tx_behind_seconds"), Some(0.0025));
    assert_eq!(
        at(&parsed, "upfbench_tx_behind_seconds", "downlink", "1"),
        Some(0.0)
    );
    // No live line yet: no latency sample; the slips come with the report.
    assert_eq!(up("upfbench_latency_seconds_count"), Some(0.0));
    assert_eq!(up("upfbench_tx_slips_total"), None);
}

/// Two live lines' intervals, each of 3 samples at 1 µs uplink and 2 at 50 µs downlink.
fn add_two_live_intervals(m: &GeneratorMetrics, config: &LatencyConfig) {
    let mut interval = [
        LatencyRecorder::new(config).expect("recorder"),
        LatencyRecorder::new(config).expect("recorder"),
    ];
    for _ in 0..3 {
        interval[0].record(1_000);
    }
    interval[1].record(50_000);
    interval[1].record(50_000);
    m.add_latency(&interval);
    m.add_latency(&interval);
}

/// The live lines' samples: counted, summed and in their buckets.
fn check_live_latency(m: &GeneratorMetrics) {
    let (parsed, _) = scrape(m);
    let up = |name: &str| at(&parsed, name, "uplink", "1");
    assert_eq!(up("upfbench_latency_seconds_count"), Some(6.0));
    assert_eq!(up("upfbench_latency_seconds_sum"), Some(6e-6));
    let le = |bound: &str| {
        value(
            &parsed,
            "upfbench_latency_seconds_bucket",
            &[("direction", "downlink"), ("step", "1"), ("le", bound)],
        )
    };
    assert_eq!(le("3e-05"), Some(0.0));
    assert_eq!(le("5e-05"), Some(4.0));
    assert_eq!(le("+Inf"), Some(4.0));
}

/// Collects the step: its report and every sample's histogram go to the endpoint.
fn collect(m: &GeneratorMetrics, tx: TxStats, rx: RxStats, config: &LatencyConfig) -> StepReport {
    let txr = tx.finish(3_000);
    let rxr = rx.finish(3_000);
    let merged =
        RunResult::merge(&SPECS, &[txr], std::slice::from_ref(&rxr), config).expect("merge");
    let report = StepReport::from_run("300 B", Some(300), 1_000_000, &merged);
    let latency = rxr.latency.each_ref().map(LatencyBuckets::from_recorder);
    m.step_collected(0, &report, &latency);
    report
}

/// Collected: the report's figures and every sample's histogram.
fn check_collected_figures(m: &GeneratorMetrics, report: &StepReport) {
    let (parsed, _) = scrape(m);
    for d in &report.directions {
        let name = d.direction.name();
        let v = |family: &str| at(&parsed, family, name, "1");
        assert_eq!(v("upfbench_sent_packets_total"), Some(d.tx.packets as f64));
        assert_eq!(
            v("upfbench_received_packets_total"),
            Some(d.rx.packets as f64)
        );
        assert_eq!(v("upfbench_lost_packets_total"), Some(d.loss.lost as f64));
        let samples = d.latency.as_ref().map_or(0, |l| l.percentiles.samples);
        assert_eq!(v("upfbench_latency_seconds_count"), Some(samples as f64));
        assert_eq!(v("upfbench_tx_slips_total"), Some(0.0));
        assert_eq!(v("upfbench_tx_behind_seconds"), None, "not running");
    }
    assert_eq!(
        at(&parsed, "upfbench_latency_seconds_count", "uplink", "1"),
        Some(7.0),
        "every sample, not the live lines' six"
    );
    // The gap at 6..9 is lost once collected.
    assert_eq!(
        at(&parsed, "upfbench_lost_packets_total", "uplink", "1"),
        Some(4.0)
    );
}

/// The next step: 3 packets sent uplink (its sender kept, as while it runs).
fn start_the_next_step(m: &GeneratorMetrics) -> TxStats {
    let (_, rx_handle) = RxStats::new(0, &SPECS, &RxConfig::default()).expect("rx");
    let (mut tx, tx_handle) = TxStats::new(0, &SPECS);
    m.step_started(1, "1400 B".into(), &[rx_handle], &[tx_handle]);
    tx.record_n(0, 3, 1_400);
    tx.publish(10);
    tx
}

/// The next step's series beside the first's.
fn check_both_steps_series(m: &GeneratorMetrics) {
    let (parsed, _) = scrape(m);
    assert_eq!(value(&parsed, "upfbench_step", &[]), Some(2.0));
    assert_eq!(
        at(&parsed, "upfbench_sent_packets_total", "uplink", "2"),
        Some(3.0)
    );
    assert_eq!(
        at(&parsed, "upfbench_sent_packets_total", "uplink", "1"),
        Some(10.0)
    );
    let info = |step, name| {
        value(
            &parsed,
            "upfbench_step_info",
            &[("step", step), ("name", name)],
        )
    };
    assert_eq!(info("1", "300 B"), Some(1.0));
    assert_eq!(info("2", "1400 B"), Some(1.0));
}

#[test]
fn the_pfcp_clients_counters_and_causes() {
    let m = endpoint();
    let (parsed, _) = scrape(&m);
    assert_eq!(value(&parsed, "upfbench_pfcp_requests_total", &[]), None);
    m.pfcp_stats(Stats {
        requests_sent: 7,
        retransmissions: 2,
        timeouts: 1,
        sessions_established: 4,
        sessions_deleted: 1,
        window: 32,
        heartbeats_answered: 3,
        ..Stats::default()
    });
    let mut figures = Figures::default();
    figures.causes.insert(1, 4);
    figures.causes.insert(65, 1);
    figures.lost_sessions = 1;
    m.pfcp_figures(&figures);
    let (parsed, _) = scrape(&m);
    let v = |name: &str| value(&parsed, name, &[]);
    assert_eq!(v("upfbench_pfcp_requests_total"), Some(7.0));
    assert_eq!(v("upfbench_pfcp_retransmissions_total"), Some(2.0));
    assert_eq!(v("upfbench_pfcp_timeouts_total"), Some(1.0));
    assert_eq!(v("upfbench_pfcp_sessions_established_total"), Some(4.0));
    assert_eq!(v("upfbench_pfcp_sessions_deleted_total"), Some(1.0));
    assert_eq!(v("upfbench_pfcp_sessions"), Some(3.0));
    assert_eq!(v("upfbench_pfcp_window"), Some(32.0));
    assert_eq!(v("upfbench_pfcp_heartbeats_answered_total"), Some(3.0));
    assert_eq!(v("upfbench_pfcp_lost_sessions_total"), Some(1.0));
    let cause = |c| value(&parsed, "upfbench_pfcp_responses_total", &[("cause", c)]);
    assert_eq!(cause("Request accepted (1)"), Some(4.0));
    assert_eq!(cause("Session context not found (65)"), Some(1.0));
}
