//! What a search says as it goes (a line per trial, the results of each case) and the goal
//! results of its report.

use upfbench_report::{
    GoalResult, GoalSpec, GoalStatus, LatencyBoundSpec, SearchCase, TrialRecord,
};

use crate::case::CaseRun;
use upfbench_api::v1::SearchProgress;
use upfbench_config::SearchSection;
use upfbench_search::{Ending, GoalOutcome};

/// `1.234 Mpps`, `56.7 kpps`.
pub fn pps(v: f64) -> String {
    if v >= 1e6 {
        format!("{:.3} Mpps", v / 1e6)
    } else if v >= 1e3 {
        format!("{:.1} kpps", v / 1e3)
    } else {
        format!("{v:.0} pps")
    }
}

fn bound(v: Option<f64>) -> String {
    v.map_or_else(|| "?".to_owned(), pps)
}

/// `1m05s`.
fn minutes(s: f64) -> String {
    let s = s.max(0.0).round() as u64;
    format!("{}m{:02}s", s / 60, s % 60)
}

/// A trial's line, and the case's whole time as the model sees it now (s).
pub struct TrialLine {
    /// The line.
    pub text: String,
    /// The case's whole time as the model sees it now (s).
    pub foreseen_s: f64,
}

/// The line of one search trial: its load and loss, each goal's bounds so far, the time left.
/// `taken_s` is the case's time so far.
pub fn trial_line(run: &CaseRun, t: &TrialRecord, names: &[String], taken_s: f64) -> TrialLine {
    let mut line = format!(
        "{} trial {:>3}: {} x {:.2}s  loss {:.4} %",
        run.case.label,
        run.report.trials.len(),
        pps(t.intended_load_pps),
        t.intended_duration_s,
        t.loss_ratio * 100.0
    );
    if let Some(why) = &t.tester_limited {
        line.push_str(&format!("  TESTER-LIMITED ({why})"));
    }
    for (goal, name) in names.iter().enumerate() {
        let b = run.search.bounds_so_far(goal);
        line.push_str(&format!(
            "  {name} [{}, {}]",
            bound(b.lower),
            bound(b.upper)
        ));
    }
    // Each trial costs its duration and what its settling, draining and set-up took.
    let overhead = (t.duration_s - t.intended_duration_s).max(0.0);
    let left = run.search.estimate_left_s(overhead);
    let taken = taken_s;
    line.push_str(&left_text(left, taken, run.foreseen_s));
    TrialLine {
        text: line,
        foreseen_s: taken + left,
    }
}

/// The search's progress for a program that asks (`GET /v1/runs/{id}`): the trials so far
/// over every case, and the goal it works on (the first without both of its bounds, else the
/// last) with its bounds so far.
pub fn search_progress(run: &CaseRun, names: &[String]) -> SearchProgress {
    let bounds: Vec<_> = (0..names.len())
        .map(|g| run.search.bounds_so_far(g))
        .collect();
    let goal = bounds
        .iter()
        .position(|b| b.lower.is_none() || b.upper.is_none())
        .unwrap_or(names.len().saturating_sub(1));
    let b = bounds.get(goal);
    SearchProgress {
        trials: run.report.trials.len() as u32,
        goal: names.get(goal).cloned().unwrap_or_default(),
        lower_pps: b.and_then(|b| b.lower),
        upper_pps: b.and_then(|b| b.upper),
    }
}

/// `~1m05s left`; once the case took longer than the model foresaw after its first trial (a
/// UPF whose losses keep moving the bounds makes the search re-measure, which no model of the
/// goals foresees), the estimate is a floor and the line says so.
fn left_text(left_s: f64, taken_s: f64, foreseen_s: Option<f64>) -> String {
    match foreseen_s {
        Some(f) if taken_s > f => format!(
            "  at least ~{} left ({} taken, {} foreseen: the bounds keep moving)",
            minutes(left_s),
            minutes(taken_s),
            minutes(f)
        ),
        _ => format!("  ~{} left", minutes(left_s)),
    }
}

/// The line of a latency-under-load trial.
pub fn latency_line(run: &CaseRun, fraction: f64, t: &TrialRecord) -> String {
    let mut line = format!(
        "{} latency at {:.0} %: {}  loss {:.4} %",
        run.case.label,
        fraction * 100.0,
        pps(t.intended_load_pps),
        t.loss_ratio * 100.0
    );
    for l in &t.latency {
        let p = &l.latency;
        line.push_str(&format!(
            "  {} p50 {:.1} p90 {:.1} p99 {:.1} p99.9 {:.1} max {:.1} us",
            l.direction.name(),
            p.p50.us(),
            p.p90.us(),
            p.p99.us(),
            p.p99_9.unwrap_or(p.max).us(),
            p.max.us()
        ));
    }
    line
}

/// The lines of a case's results.
pub fn result_lines(case: &SearchCase) -> Vec<String> {
    case.results
        .iter()
        .map(|r| {
            let what = match r.status {
                GoalStatus::TesterLimited => match (r.tester_limited_at_pps, r.lower_bound_pps) {
                    // The bound was measured before the tester fell short twice lower down.
                    (Some(at), Some(lower)) if lower >= at => format!(
                        "tester-limited at {} (it fell short there twice), after the UPF had \
                         carried {} within the goal in trials the tester did send; its own \
                         limit is higher or unknown",
                        pps(at),
                        pps(lower)
                    ),
                    (at, lower) => format!(
                        "tester-limited at {}: the tester sent no more, and the UPF carried all \
                         of {} within the goal; its own limit is higher or unknown",
                        bound(at),
                        bound(lower)
                    ),
                },
                GoalStatus::MinLoadUpperBound => format!(
                    "none above the min load {} (upper bound {})",
                    pps(case.min_load_pps),
                    bound(r.upper_bound_pps)
                ),
                _ => format!(
                    "{} ({:.3} Gbps L1, {:.3} Gbps L2{}), bounds [{}, {}]{}",
                    bound(r.conditional_throughput_pps),
                    r.gbps_l1.unwrap_or(0.0),
                    r.gbps_l2.unwrap_or(0.0),
                    r.line_rate_pct
                        .map_or(String::new(), |p| format!(", {p:.1} % of line rate")),
                    bound(r.lower_bound_pps),
                    bound(r.upper_bound_pps),
                    match r.status {
                        GoalStatus::MaxLoadLowerBound => ": max load reached",
                        GoalStatus::Incomplete => ": INCOMPLETE",
                        _ => "",
                    }
                ),
            };
            format!("search {} {}: {what}", case.label, r.goal)
        })
        .collect()
}

/// Each goal's result of `run` so far.
pub fn case_results(run: &CaseRun, names: &[String]) -> Vec<GoalResult> {
    names
        .iter()
        .zip(run.search.outcomes())
        .map(|(name, o)| goal_result(name, &o, run))
        .collect()
}

fn goal_result(name: &str, o: &GoalOutcome, run: &CaseRun) -> GoalResult {
    let ct = o.conditional_throughput;
    let gbps = ct.map(|c| run.mix.gbps(c));
    GoalResult {
        goal: name.to_owned(),
        status: match o.ending {
            Ending::Regular => GoalStatus::Regular,
            Ending::MaxLoad => GoalStatus::MaxLoadLowerBound,
            Ending::MinLoad => GoalStatus::MinLoadUpperBound,
            Ending::TesterLimited => GoalStatus::TesterLimited,
            Ending::Incomplete => GoalStatus::Incomplete,
        },
        lower_bound_pps: o.bounds.lower,
        upper_bound_pps: o.bounds.upper,
        conditional_throughput_pps: ct,
        gbps_l2: gbps.map(|g| g.0),
        gbps_l1: gbps.map(|g| g.1),
        line_rate_pct: ct.zip(run.mix.line_rate_pps).map(|(c, l)| c / l * 100.0),
        tester_limited_at_pps: (o.ending == Ending::TesterLimited)
            .then_some(o.tester_limit)
            .flatten(),
    }
}

/// The goals as the report states them.
pub fn goal_specs(section: &SearchSection) -> Vec<GoalSpec> {
    section
        .goals
        .iter()
        .map(|g| {
            let s = g.goal();
            GoalSpec {
                name: g.name.clone(),
                loss_ratio: s.loss_ratio,
                exceed_ratio: s.exceed_ratio,
                relative_width: s.relative_width,
                initial_trial_duration_s: s.initial_trial_duration_s,
                final_trial_duration_s: s.final_trial_duration_s,
                duration_sum_s: s.duration_sum_s,
                latency: s.latency.map(|l| LatencyBoundSpec {
                    percentile: l.percentile.value(),
                    max_ns: l.max_ns,
                }),
            }
        })
        .collect()
}

#[cfg(test)]
mod left_tests {
    use super::left_text;

    #[test]
    fn an_estimate_the_search_outran_is_called_a_floor() {
        assert_eq!(left_text(65.0, 10.0, None), "  ~1m05s left");
        assert_eq!(left_text(65.0, 10.0, Some(240.0)), "  ~1m05s left");
        assert_eq!(
            left_text(240.0, 750.0, Some(240.0)),
            "  at least ~4m00s left (12m30s taken, 4m00s foreseen: the bounds keep moving)"
        );
    }
}
