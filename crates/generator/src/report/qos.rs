//! A step's QoS section: each QER's passed bytes (the workers' windows, added up) read against
//! its MBR over the measured phase (issue 29's QER conformance; `report::qos`).

use std::time::Duration;

use upfbench_report::qos::DEFAULT_TOLERANCE;
use upfbench_report::{LatencyReport, QfiFigures, QosFlowReport, QosFlowSpec, QosReport, TxSlip};
use upfbench_run::plan::Plan;
use upfbench_stats::{Conformance, RunResult};

use crate::datapath::qos_rx::{QosGroup, QosRx};

/// The QoS section of a step of `plan` that sent for `duration`, from the workers' windows
/// `qos` and the flows' sent counts in `merged`; warnings for what it cannot say.
pub(crate) fn qos_report(
    plan: &Plan,
    qos: &QosRx,
    merged: &RunResult,
    slips: &[Option<TxSlip>],
    duration: Duration,
) -> (QosReport, Vec<String>) {
    let mut warnings = Vec::new();
    let windows = &qos.windows;
    // Whole windows of the measured phase only: the drain's tail is not at the offered rate.
    let span = 0..(duration.as_nanos() as u64 / windows.window_ns()) as usize;
    let mut flows = Vec::new();
    for (g, group) in qos.layout.groups.iter().enumerate() {
        let sessions = sessions(plan, group);
        let limit = group.mbr_bps as f64 * f64::from(sessions);
        let Some(c) = Conformance::of(
            windows.group(g as u32),
            windows.window_ns(),
            span.clone(),
            limit,
        ) else {
            warnings.push(format!(
                "QFI {} {}: no conformance figures (the measured phase is shorter than a window, \
                 or the MBR is 0)",
                group.key.get(),
                group.direction.name()
            ));
            continue;
        };
        let spec = QosFlowSpec {
            qfi: group.key.get(),
            direction: group.direction,
            sessions,
            mbr_bps: limit,
            gbr_bps: group.gbr_bps.map(|g| g as f64 * f64::from(sessions)),
            offered_bps: offered_bps(plan, group, merged, duration),
            measured_s: duration.as_secs_f64(),
            tester_late_s: late_s(group, slips),
        };
        flows.push(QosFlowReport::new(spec, &c, DEFAULT_TOLERANCE));
    }
    let (early, late, unknown) = windows.outside();
    if qos.unmerged > 0 || unknown > 0 {
        warnings.push(format!(
            "QoS windows: {} workers' tables of another start, {unknown} packets of no group: \
             the conformance figures miss them",
            qos.unmerged
        ));
    }
    if early + late > 0 {
        tracing::debug!(early, late, "QoS windows: packets outside the windows");
    }
    let mut report = QosReport::new(flows, DEFAULT_TOLERANCE, duration.as_secs_f64());
    report.qfis = qfi_figures(plan, qos, merged);
    (report, warnings)
}

/// Every figure of each QoS flow and direction: its streams' counts, its latency.
fn qfi_figures(plan: &Plan, qos: &QosRx, merged: &RunResult) -> Vec<QfiFigures> {
    qos.layout
        .qfis
        .iter()
        .zip(&qos.latency)
        .map(|(g, latency)| {
            let (mut sent, mut received, mut lost) = (0, 0, 0);
            for &id in &g.streams {
                for f in plan.stream(id).flows() {
                    if let Some(r) = merged.streams.get(f as usize) {
                        sent += r.seq.sent;
                        received += r.seq.unique;
                        lost += r.seq.lost;
                    }
                }
            }
            QfiFigures {
                qfi: g.qfi.get(),
                direction: g.direction,
                streams: g
                    .streams
                    .iter()
                    .map(|&id| plan.stream(id).name.clone())
                    .collect(),
                sent,
                received,
                lost,
                loss_ratio: if sent > 0 {
                    lost as f64 / sent as f64
                } else {
                    0.0
                },
                latency: LatencyReport::from_recorder(latency, None, None),
            }
        })
        .collect()
}

/// The most a group's streams were late (s), from their slips (indexed by stream).
fn late_s(group: &QosGroup, slips: &[Option<TxSlip>]) -> f64 {
    group
        .streams
        .iter()
        .filter_map(|&id| slips.get(usize::from(id)).copied().flatten())
        .map(|s| s.max_late_us / 1e6)
        .fold(0.0, f64::max)
}

/// The sessions a group's streams send in (the union of their UEs).
fn sessions(plan: &Plan, group: &QosGroup) -> u32 {
    let mut ranges: Vec<_> = group
        .streams
        .iter()
        .map(|&id| plan.stream(id).ues.clone())
        .collect();
    ranges.sort_by_key(|r| r.start);
    let (mut count, mut end) = (0u32, 0u32);
    for r in ranges {
        let from = r.start.max(end);
        if r.end > from {
            count += r.end - from;
        }
        end = end.max(r.end);
    }
    count
}

/// The rate a group's streams were sent at over `duration`, counted on the UE packets (bit/s).
fn offered_bps(plan: &Plan, group: &QosGroup, merged: &RunResult, duration: Duration) -> f64 {
    let seconds = duration.as_secs_f64();
    if seconds <= 0.0 {
        return 0.0;
    }
    let bytes: f64 = group
        .streams
        .iter()
        .map(|&id| {
            let s = plan.stream(id);
            let sent: u64 = s
                .flows()
                .filter_map(|f| merged.streams.get(f as usize))
                .map(|r| r.seq.sent)
                .sum();
            sent as f64 * s.shape.inner_ip_len(usize::from(s.payload_len)) as f64
        })
        .sum();
    bytes * 8.0 / seconds
}
