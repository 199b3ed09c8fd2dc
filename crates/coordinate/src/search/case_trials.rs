//! One case's trials on one [`Coordinator`](upfbench_cluster::Coordinator): each trial the
//! search chose asked of the agents as a step at its share of the load, and its merged step
//! handed back to the search as `upfbench search` would hand its own.

use std::time::Instant;

use upfbench_api::v1::StepRequest;
use upfbench_cluster::coordinator::StepOutcome;
use upfbench_cluster::trial::{agent_limits, step_request};
use upfbench_config::DirectionSet;
use upfbench_profile_search::trial::trial_of;
use upfbench_profile_search::{NextTrial, ProfileSearch, Purpose};
use upfbench_report::StepReport;

use crate::step_report::step_report;

/// The profile's JSON with the streams of `set` alone, as `upfbench_profile_search::case`
/// makes a case's profile (a `both` stream keeps its half of the set), and `set` the only
/// direction set of its search (so that an agent's checks find a stream for each).
pub fn case_json(json: &serde_json::Value, set: DirectionSet) -> serde_json::Value {
    let mut out = json.clone();
    if let Some(search) = out.get_mut("search").and_then(|s| s.as_object_mut()) {
        search.insert("directions".into(), serde_json::json!([set.name()]));
    }
    let keep = match set {
        DirectionSet::Both => return out,
        DirectionSet::Uplink => "uplink",
        DirectionSet::Downlink => "downlink",
    };
    if let Some(streams) = out.get_mut("streams").and_then(|s| s.as_array_mut()) {
        streams.retain(|s| {
            let d = s
                .get("direction")
                .and_then(|d| d.as_str())
                .unwrap_or("both");
            d == keep || d == "both"
        });
        for s in streams {
            s["direction"] = serde_json::Value::from(keep);
        }
    }
    out
}

/// The trials of one case on one [`Coordinator`], as `drive` asks for them.
pub(super) struct CaseTrials<'s> {
    pub(super) search: &'s mut ProfileSearch,
    pub(super) case: usize,
    pub(super) profile_pps: f64,
    /// Each agent's name and share of the UEs.
    pub(super) shares: &'s [(String, f64)],
    /// The trial asked for, its step and when it was asked.
    pub(super) pending: Option<(NextTrial, u32, Instant)>,
    /// The trial chosen for another case: the next coordinator's first.
    pub(super) carry: Option<NextTrial>,
    /// Every trial's merged step, in order: the report's steps.
    pub(super) steps: &'s mut Vec<StepReport>,
    pub(super) say: &'s (dyn Fn(&str) + Sync),
    /// Why the search cannot go on (a step without a merged result).
    pub(super) failed: Option<String>,
}

impl CaseTrials<'_> {
    /// Asks for `trial` as the next step.
    pub(super) fn ask(&mut self, trial: NextTrial) -> StepRequest {
        let number = self.steps.len() as u32 + 1;
        self.pending = Some((trial, number, Instant::now()));
        step_request(
            number,
            self.search.case(trial.case).case.payload,
            trial.request.load,
            self.profile_pps,
            (trial.request.duration_s * 1e3).round() as u64,
            trial.warmup.as_millis() as u64,
        )
    }

    /// The next step, given the outcomes so far: the one of the trial asked for is handed to
    /// the search first. `None` at the end of the case (its trials and latency trials done).
    pub(super) fn next(&mut self, outcomes: &[StepOutcome]) -> Option<StepRequest> {
        self.take(outcomes);
        if self.failed.is_some() {
            return None;
        }
        let next = self.search.next_trial(Instant::now());
        self.say_lines();
        let next = next?;
        if next.case != self.case {
            self.carry = Some(next);
            return None;
        }
        Some(self.ask(next))
    }

    fn say_lines(&mut self) {
        while let Some(line) = self.search.poll_line() {
            (self.say)(&line);
        }
    }

    /// The pending trial's outcome, if it is among `outcomes`: its merged step in the report,
    /// and, when every agent was counted, its figures to the search.
    pub(super) fn take(&mut self, outcomes: &[StepOutcome]) {
        let Some((trial, number, asked)) = self.pending else {
            return;
        };
        let Some(outcome) = outcomes.iter().rev().find(|o| o.step == number) else {
            return;
        };
        self.pending = None;
        let label = &self.search.case(trial.case).case.label;
        let payload = self.search.case(trial.case).case.payload.map(u32::from);
        let merged = match &outcome.merged {
            Some(Ok(merged)) => merged,
            Some(Err(e)) => {
                self.failed = Some(format!(
                    "search {label}: step {number}'s results could not be merged ({e}): the \
                     search ends"
                ));
                return;
            }
            None => {
                self.failed = Some(format!(
                    "search {label}: step {number} brought no result: the search ends"
                ));
                return;
            }
        };
        let mut step = step_report(String::new(), payload, merged);
        let (counted, agents) = outcome.counted;
        if counted < agents {
            step.label = format!(
                "{label}: trial at {:.0} pps, {counted} of {agents} agents: no evidence",
                trial.request.load
            );
            self.steps.push(step);
            return;
        }
        let tolerance = self.search.tolerance();
        let planned = (trial.request.load * trial.request.duration_s).round() as u64;
        let (mut result, mut record) = trial_of(
            &step,
            self.steps.len(),
            trial.request,
            planned,
            asked.elapsed(),
            tolerance,
        );
        let limits: Vec<String> = outcome
            .results
            .iter()
            .flat_map(|r| {
                let share = self
                    .shares
                    .iter()
                    .find(|(name, _)| *name == r.agent)
                    .map_or(0.0, |(_, s)| *s);
                agent_limits(r, trial.request.load * share, tolerance)
            })
            .collect();
        if !limits.is_empty() {
            result.tester_limited = true;
            record.tester_limited = Some(limits.join("; "));
        }
        let (bytes, packets) = step
            .directions
            .iter()
            .fold((0, 0), |(b, p), d| (b + d.tx.bytes_l2, p + d.tx.packets));
        if trial.purpose == Purpose::Search {
            self.search.measured_frame(trial.case, bytes, packets);
        }
        step.label = self
            .search
            .handle_trial(Instant::now(), &trial, result, record);
        self.steps.push(step);
    }
}
