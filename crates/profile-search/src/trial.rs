//! A trial's step report as the search sees it: its load, loss, latency and duration, and
//! whether the tester itself kept it from sending what was asked (then it is no evidence about
//! the UPF).

use std::time::Duration;

use upfbench_report::{Nanos, StepReport, TrialLatency, TrialRecord};

use upfbench_search::{LatencyPoints, TrialRequest, TrialResult};

/// What makes a trial tester-limited.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Tolerance {
    /// Sending this much (a ratio) under the intended load.
    pub load: f64,
    /// A sender this late on its schedule at any time (us).
    pub late_us: f64,
}

/// The search's view of `step`, a trial asked as `request` that sent `planned` packets in its
/// measured phase and took `wall` from its preparation to its collection; a trial beyond
/// `tolerance` is tester-limited.
pub fn trial_of(
    step: &StepReport,
    index: usize,
    request: TrialRequest,
    planned: u64,
    wall: Duration,
    tolerance: Tolerance,
) -> (TrialResult, TrialRecord) {
    let sent: u64 = step.directions.iter().map(|d| d.loss.sent).sum();
    let received: u64 = step.directions.iter().map(|d| d.loss.unique).sum();
    let loss_ratio = if sent == 0 {
        1.0
    } else {
        sent.saturating_sub(received) as f64 / sent as f64
    };
    let per_s = |packets: u64| {
        if step.duration_s > 0.0 {
            packets as f64 / step.duration_s
        } else {
            0.0
        }
    };
    let offered = per_s(sent);
    let forwarded = per_s(step.directions.iter().map(|d| d.rx.packets).sum());
    let mut latency = Vec::new();
    let mut worst: Option<LatencyPoints> = None;
    for d in &step.directions {
        let Some(l) = &d.latency else { continue };
        let p = l.percentiles;
        let ns = |n: Nanos| u64::try_from(n.0).unwrap_or(0);
        let points = LatencyPoints {
            p50_ns: ns(p.p50),
            p90_ns: ns(p.p90),
            p99_ns: ns(p.p99),
            p99_9_ns: ns(p.p99_9.unwrap_or(p.max)),
            p99_99_ns: ns(p.p99_99.unwrap_or(p.max)),
            max_ns: ns(p.max),
        };
        worst = Some(worst.map_or(points, |w| w.worst(points)));
        latency.push(TrialLatency {
            direction: d.direction,
            latency: p,
        });
    }
    let limited = tester_limits(step, request.load, offered, sent, planned, tolerance);
    let result = TrialResult {
        intended_load: request.load,
        offered_load: offered,
        intended_duration_s: request.duration_s,
        duration_s: wall.as_secs_f64(),
        loss_ratio,
        latency: worst,
        tester_limited: limited.is_some(),
    };
    let record = TrialRecord {
        step: index,
        intended_load_pps: request.load,
        offered_load_pps: offered,
        forwarding_rate_pps: forwarded,
        sent,
        received,
        loss_ratio,
        intended_duration_s: request.duration_s,
        duration_s: wall.as_secs_f64(),
        latency,
        tester_limited: limited,
        wall: None,
    };
    (result, record)
}

/// Why the tester could not send `intended` pps in `step`, if it could not.
fn tester_limits(
    step: &StepReport,
    intended: f64,
    offered: f64,
    sent: u64,
    planned: u64,
    tolerance: Tolerance,
) -> Option<String> {
    let mut why = Vec::new();
    if (sent as f64) < planned as f64 * (1.0 - tolerance.load) {
        why.push(format!("sent {sent} of {planned} packets in time"));
    } else if offered < intended * (1.0 - tolerance.load) {
        why.push(format!(
            "sent at {:.0} pps, {:.2} % under the intended load (its schedule slipped)",
            offered,
            (1.0 - offered / intended) * 100.0
        ));
    }
    let late = step
        .directions
        .iter()
        .filter_map(|d| d.tx_slip)
        .map(|s| s.max_late_us)
        .fold(0.0, f64::max);
    if late > tolerance.late_us {
        why.push(format!(
            "a sender fell {late:.0} us behind its schedule (a burst when it caught up)"
        ));
    }
    for p in &step.ports {
        for (count, what) in [
            (p.oerrors, "TX errors"),
            (p.imissed, "frames its receive queues missed (imissed)"),
            (p.rx_nombuf, "receive buffer shortages (rx_nombuf)"),
        ] {
            if count > 0 {
                why.push(format!("{count} {what} on {}", p.name));
            }
        }
    }
    let kernel: u64 = step.directions.iter().filter_map(|d| d.tester_lost).sum();
    if kernel > 0 {
        why.push(format!(
            "{kernel} frames lost by the tester's own kernel interfaces"
        ));
    }
    (!why.is_empty()).then(|| why.join("; "))
}

#[cfg(test)]
mod tests;
