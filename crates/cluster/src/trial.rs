//! A search's trial across agents (docs/scale.md §3 "The search across agents"): a trial at
//! total load L is a step whose `load` is L over the profile's rate, so that each agent sends
//! L × its share (its UEs over all UEs). The merged step is read as one box's step
//! (`upfbench_profile_search::trial::trial_of`); beside that, the trial is tester-limited when
//! any agent is, each such agent named ("tester-limited: gnb-b sent 91.2 % of its share").

use upfbench_api::v1::{StepRequest, StepResult};
use upfbench_profile_search::trial::Tolerance;

/// The step of trial `step` at `load_pps` over a profile whose streams add up to
/// `profile_pps`: its `load` the multiplier of every rate.
pub fn step_request(
    step: u32,
    payload: Option<u16>,
    load_pps: f64,
    profile_pps: f64,
    duration_ms: u64,
    warmup_ms: u64,
) -> StepRequest {
    StepRequest {
        step,
        payload,
        load: if profile_pps > 0.0 {
            load_pps / profile_pps
        } else {
            0.0
        },
        duration_ms,
        warmup_ms,
    }
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
