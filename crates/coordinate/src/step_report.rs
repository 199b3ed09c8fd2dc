//! A step merged over agents as the single box reports a step (docs/scale.md §3 "The exact
//! merge": "the merged report has every figure the single-box report has"): the
//! [`MergedStep`] that `cluster::merge` made of the agents' raw results turned into a
//! [`StepReport`], its rates over the longest measured sending time, its percentiles from the
//! merged histograms. What the merge does not carry is left out rather than made up: the QoS
//! conformance windows, the receive queues and the per-pair sections (each agent's own figures
//! are in the report's `agents`).

use std::collections::BTreeMap;

use upfbench_cluster::merge::{MergedSecond, MergedStep, MergedStream};
use upfbench_report::{
    DirectionReport, Nanos, Rejected, SecondDirection, StepReport, StepSecond, StreamSummary,
    ThroughputReport,
};
use upfbench_stats::DirectionResult;

/// The single-box report of `merged`, labelled `label`, of `payload_bytes` (the step's
/// payload, when it has one). Its warnings are the parts', each after its agent's name, and a
/// line for any `rx_rejected` key this build does not know.
pub fn step_report(
    label: impl Into<String>,
    payload_bytes: Option<u32>,
    merged: &MergedStep,
) -> StepReport {
    let duration_ns = merged.duration_ns;
    let mut report = StepReport {
        label: label.into(),
        payload_bytes,
        duration_s: duration_ns as f64 / 1e9,
        tsc_hz: None,
        directions: Vec::new(),
        rx_untagged: merged.rx_untagged,
        rx_unknown_stream: merged.rx_unknown_stream,
        warnings: merged.warnings.clone(),
        ports: merged.ports.clone(),
        rx_rejected: BTreeMap::new(),
        streams: merged
            .streams
            .iter()
            .map(|s| stream(s, payload_bytes))
            .collect(),
        frames: merged.frames.clone(),
        seconds: seconds(&merged.seconds),
        rx_queues: Vec::new(),
        upf_faults: Vec::new(),
        handover: None,
        churn: None,
        qos: None,
        pairs: Vec::new(),
    };
    for d in &merged.directions {
        let streams: Vec<&MergedStream> = merged
            .streams
            .iter()
            .filter(|s| s.direction == d.direction)
            .collect();
        if streams.is_empty() {
            continue;
        }
        let result = DirectionResult {
            direction: d.direction,
            streams: streams.len() as u32,
            tx: d.tx,
            rx: d.rx,
            seq: d.seq,
            latency: d.latency.clone(),
            jitter_mean_ns: jitter_mean(&streams),
            jitter_max_ns: streams
                .iter()
                .filter_map(|s| s.jitter_mean_ns)
                .reduce(f64::max),
        };
        report
            .directions
            .push(DirectionReport::from_result(&result, duration_ns));
    }
    for (key, &n) in &merged.rx_rejected {
        match Rejected::parse(key) {
            Some(k) => *report.rx_rejected.entry(k).or_default() += n,
            None => report.warnings.push(format!(
                "rx_rejected: {n} frames of a kind this build does not know ({key:?})"
            )),
        }
    }
    report.attribute_tester_losses();
    report
}

/// The streams' jitter: their means weighted by the flows that had an estimate, as the single
/// box's direction takes the mean over its flows.
fn jitter_mean(streams: &[&MergedStream]) -> Option<f64> {
    let (sum, flows) = streams
        .iter()
        .filter_map(|s| Some((s.jitter_mean_ns?, s.jitter_flows)))
        .fold((0.0, 0u32), |(sum, n), (mean, flows)| {
            (sum + mean * f64::from(flows), n + flows)
        });
    (flows > 0).then(|| sum / f64::from(flows))
}

fn stream(s: &MergedStream, payload_bytes: Option<u32>) -> StreamSummary {
    StreamSummary {
        name: s.name.clone(),
        direction: s.direction,
        payload_bytes: payload_bytes.unwrap_or(0),
        family: Default::default(),
        frame: None,
        flows: s.flows,
        sent: s.seq.sent,
        received: s.seq.received,
        lost: s.seq.lost,
        loss_pct: if s.seq.sent > 0 {
            s.seq.lost as f64 * 100.0 / s.seq.sent as f64
        } else {
            0.0
        },
        duplicates: s.seq.duplicates,
        reordered: s.seq.reordered,
        late: s.seq.late,
        jitter_ns: s.jitter_mean_ns,
        tx_slip: s.tx_slip,
    }
}

/// The merged seconds as the step's per-second lines: second k ends at the sum of the first
/// k + 1 seconds' lengths from the common start.
fn seconds(merged: &[MergedSecond]) -> Vec<StepSecond> {
    let mut end_ns = 0u64;
    merged
        .iter()
        .map(|s| {
            end_ns += s.duration_ns;
            StepSecond {
                t_s: end_ns as f64 / 1e9,
                interval_s: s.duration_ns as f64 / 1e9,
                phase: s.phase,
                directions: s
                    .directions
                    .iter()
                    .map(|d| {
                        let tx = ThroughputReport::from_counters(&d.tx, s.duration_ns);
                        let rx = ThroughputReport::from_counters(&d.rx, s.duration_ns);
                        let q = |x: f64| d.latency.quantile_ns(x).map(Nanos::from_ns);
                        SecondDirection {
                            direction: d.direction,
                            tx_packets: d.tx.packets,
                            rx_packets: d.rx.packets,
                            tx_gbps_l1: tx.gbps_l1,
                            tx_kpps: tx.kpps,
                            rx_gbps_l1: rx.gbps_l1,
                            rx_kpps: rx.kpps,
                            lost: d.lost,
                            lat_p50_ns: q(0.5),
                            lat_p99_ns: q(0.99),
                            lat_max_ns: d.latency.max_ns().map(Nanos::from_ns),
                        }
                    })
                    .collect(),
            }
        })
        .collect()
}
