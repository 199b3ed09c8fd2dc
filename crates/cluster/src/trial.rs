//! A search's trial across agents (docs/scale.md §3 "The search across agents"): a trial at
//! total load L is a step whose `load` is L over the profile's rate, so that each agent sends
//! L × its share (its UEs over all UEs); the merged trial's loss is Σ lost / Σ sent, its
//! latency the merged histograms', and it is tester-limited when any agent is, each such agent
//! named ("tester-limited: gnb-b sent 91.2 % of its share").

use thiserror::Error;
use upfbench_api::v1::{StepRequest, StepResult};
use upfbench_search::{LatencyPoints, TrialRequest, TrialResult};

use crate::coordinator::StepOutcome;
use crate::merge::{MergeError, MergedStep};

/// What makes an agent's part of a trial tester-limited (the profile's `search.tx_tolerance`
/// and `max_tx_late`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Tolerance {
    /// Sending this much (a ratio) under its share of the load.
    pub load: f64,
    /// A sender this late on its schedule at any time (us).
    pub late_us: f64,
}

/// A trial that says nothing to the search.
#[derive(Debug, Clone, PartialEq, Error)]
pub enum TrialError {
    /// An agent was lost: the loads measured are no longer the totals asked for.
    #[error("{counted} of {agents} agents counted: the trial is not the load asked for")]
    Incomplete {
        /// Agents counted.
        counted: usize,
        /// All agents.
        agents: usize,
    },
    /// The results did not merge.
    #[error(transparent)]
    Merge(#[from] MergeError),
}

/// The step of trial `step` at `load_pps` over a profile whose streams add up to
/// `profile_pps`: its `load` the multiplier of every rate.
pub fn step_request(
    step: u32,
    payload: u16,
    load_pps: f64,
    profile_pps: f64,
    duration_ms: u64,
    warmup_ms: u64,
) -> StepRequest {
    StepRequest {
        step,
        payload: Some(payload),
        load: if profile_pps > 0.0 {
            load_pps / profile_pps
        } else {
            0.0
        },
        duration_ms,
        warmup_ms,
    }
}

/// The trial `request` as the search sees it, from the step's outcome; `shares` gives each
/// agent's name and share of the UEs, `wall_s` the time the trial took. Also the reasons any
/// agent was tester-limited, one line each.
pub fn trial(
    request: TrialRequest,
    outcome: &StepOutcome,
    shares: &[(String, f64)],
    tolerance: Tolerance,
    wall_s: f64,
) -> Result<(TrialResult, Vec<String>), TrialError> {
    let (counted, agents) = outcome.counted;
    let incomplete = TrialError::Incomplete { counted, agents };
    if counted < agents {
        return Err(incomplete);
    }
    let merged = match &outcome.merged {
        Some(Ok(m)) => m,
        Some(Err(e)) => return Err(e.clone().into()),
        None => return Err(incomplete),
    };
    let (sent, lost) = merged.sent_and_lost();
    let duration_s = merged.duration_ns as f64 / 1e9;
    let mut limits = Vec::new();
    for r in &outcome.results {
        let share = shares
            .iter()
            .find(|(name, _)| *name == r.agent)
            .map_or(0.0, |(_, s)| *s);
        limits.extend(agent_limits(r, request.load * share, tolerance));
    }
    let result = TrialResult {
        intended_load: request.load,
        offered_load: if duration_s > 0.0 {
            sent as f64 / duration_s
        } else {
            0.0
        },
        intended_duration_s: request.duration_s,
        duration_s: wall_s,
        loss_ratio: if sent == 0 {
            1.0
        } else {
            lost as f64 / sent as f64
        },
        latency: latency(merged),
        tester_limited: !limits.is_empty(),
    };
    Ok((result, limits))
}

/// The worst direction's latency percentiles of the merged histograms.
fn latency(m: &MergedStep) -> Option<LatencyPoints> {
    m.directions
        .iter()
        .filter_map(|d| {
            let q = |p: f64| d.latency.quantile_ns(p);
            Some(LatencyPoints {
                p50_ns: q(0.5)?,
                p90_ns: q(0.9)?,
                p99_ns: q(0.99)?,
                p99_9_ns: q(0.999)?,
                p99_99_ns: q(0.9999)?,
                max_ns: d.latency.max_ns()?,
            })
        })
        .reduce(LatencyPoints::worst)
}

/// Why agent `r` could not send its share `intended_pps`, if it could not: a line each.
pub fn agent_limits(r: &StepResult, intended_pps: f64, tolerance: Tolerance) -> Vec<String> {
    let agent = &r.agent;
    let mut why = Vec::new();
    let sent: u64 = r
        .pairs
        .iter()
        .flat_map(|p| &p.directions)
        .map(|d| d.seq.sent)
        .sum();
    let duration_s = r.duration_ns as f64 / 1e9;
    let offered = if duration_s > 0.0 {
        sent as f64 / duration_s
    } else {
        0.0
    };
    if intended_pps > 0.0 && offered < intended_pps * (1.0 - tolerance.load) {
        why.push(format!(
            "tester-limited: {agent} sent {:.1} % of its share",
            offered / intended_pps * 100.0
        ));
    }
    let late = r
        .pairs
        .iter()
        .flat_map(|p| &p.streams)
        .filter_map(|s| s.tx_slip)
        .map(|s| s.max_late_us)
        .fold(0.0, f64::max);
    if late > tolerance.late_us {
        why.push(format!(
            "tester-limited: a sender of {agent} fell {late:.0} us behind its schedule"
        ));
    }
    for p in r.pairs.iter().flat_map(|p| &p.ports) {
        for (count, what) in [
            (p.oerrors, "TX errors"),
            (p.imissed, "frames missed (imissed)"),
            (p.rx_nombuf, "receive buffer shortages (rx_nombuf)"),
        ] {
            if count > 0 {
                why.push(format!(
                    "tester-limited: {agent} had {count} {what} on {}",
                    p.name
                ));
            }
        }
    }
    why
}

#[cfg(test)]
mod tests;
