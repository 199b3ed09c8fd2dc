//! The search of a profile as a state machine: its cases one after the other, each searched by
//! the RFC 9971 controller and then measured for latency under load, with no IO and no clock
//! read of its own (the caller gives `now`). `upfbench search` puts its trials on the local
//! ports; a coordinator puts them on its agents (docs/scale.md §3 "The search across agents").
//! Both get the same trial lines and the same report section.

use std::time::{Duration, Instant};

use thiserror::Error;
use upfbench_api::v1::SearchProgress;
use upfbench_config::{DirectionSet, SearchSection};
use upfbench_report::{
    LoadLatency, Report, SearchCase, SearchDirections, SearchReport, TrialRecord,
};
use upfbench_search::{Search, SearchConfig, SearchGoal, TrialRequest, TrialResult};

use crate::case::{Case, CaseRun, Mix};
use crate::progress::{
    case_results, goal_specs, latency_line, result_lines, search_progress, trial_line,
};
use crate::trial::Tolerance;

/// Min Load when the profile gives none, unless Max Load is lower.
pub const DEFAULT_MIN_LOAD: f64 = 10_000.0;

/// Why a search cannot begin.
#[derive(Debug, Error)]
pub enum SetupError {
    /// No case.
    #[error("nothing to search")]
    NoCase,
    /// Neither `search.max_load` nor a line rate.
    #[error(
        "search {case}: the ports report no line rate: give search.max_load in the profile (or \
         `speed` of both ports in the system file)"
    )]
    NoMaxLoad {
        /// The case's label.
        case: String,
    },
    /// The controller refused the goals or loads.
    #[error("search {case}: {source}")]
    Config {
        /// The case's label.
        case: String,
        /// Why.
        source: upfbench_search::ConfigError,
    },
}

/// What a trial is for.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Purpose {
    /// Evidence for the search's goals.
    Search,
    /// Latency at this fraction of the latency goal's conditional throughput.
    Latency(f64),
}

/// The trial to measure next.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct NextTrial {
    /// Its case's index.
    pub case: usize,
    /// Its load (pps, the case's directions together) and duration.
    pub request: TrialRequest,
    /// What it is for.
    pub purpose: Purpose,
    /// Its warm-up: the profile's before a case's first trial, else none.
    pub warmup: Duration,
}

/// A search's goals from its profile section.
pub fn goals(section: &SearchSection) -> Vec<SearchGoal> {
    section.goals.iter().map(|g| g.goal()).collect()
}

/// See the module documentation.
pub struct ProfileSearch {
    section: SearchSection,
    goal_names: Vec<String>,
    cases: Vec<CaseRun>,
    /// The warm-up of a case's first trial.
    warmup: Duration,
    /// What it said, for the caller to print.
    lines: Vec<String>,
}

impl ProfileSearch {
    /// The search of `cases` (each with its mix) by `section`, a case's first trial after
    /// `warmup`.
    pub fn new(
        section: &SearchSection,
        cases: Vec<(Case, Mix)>,
        warmup: Duration,
    ) -> Result<ProfileSearch, SetupError> {
        if cases.is_empty() {
            return Err(SetupError::NoCase);
        }
        let goals = goals(section);
        let mut runs = Vec::new();
        for (case, mix) in cases {
            let max_load =
                section
                    .max_load
                    .or(mix.line_rate_pps)
                    .ok_or_else(|| SetupError::NoMaxLoad {
                        case: case.label.clone(),
                    })?;
            let min_load = section.min_load.unwrap_or(DEFAULT_MIN_LOAD).min(max_load);
            let mut config = SearchConfig::new(goals.clone(), min_load, max_load);
            config.strategy = section.strategy.strategy();
            let search = Search::new(config).map_err(|source| SetupError::Config {
                case: case.label.clone(),
                source,
            })?;
            let report = SearchCase {
                label: case.label.clone(),
                payload_bytes: case.payload.map(u32::from),
                directions: search_directions(case.set),
                min_load_pps: min_load,
                max_load_pps: max_load,
                line_rate_pps: mix.line_rate_pps,
                frame_bytes_l2: mix.frame_bytes_l2,
                results: Vec::new(),
                trials: Vec::new(),
                latency_under_load: Vec::new(),
            };
            runs.push(CaseRun {
                case,
                mix,
                search,
                report,
                started: None,
                foreseen_s: None,
                latency_left: None,
                finished: false,
            });
        }
        Ok(ProfileSearch {
            section: section.clone(),
            goal_names: section.goals.iter().map(|g| g.name.clone()).collect(),
            cases: runs,
            warmup,
            lines: Vec::new(),
        })
    }

    /// The profile's search section.
    pub fn section(&self) -> &SearchSection {
        &self.section
    }

    /// Case `i`.
    pub fn case(&self, i: usize) -> &CaseRun {
        &self.cases[i]
    }

    /// What makes a trial tester-limited: the section's `tx_tolerance` and `max_tx_late`.
    pub fn tolerance(&self) -> Tolerance {
        Tolerance {
            load: self.section.tx_tolerance / 100.0,
            late_us: self
                .section
                .max_tx_late
                .map_or(f64::INFINITY, |d| d.as_secs_f64() * 1e6),
        }
    }

    /// Case `case`'s trials sent `bytes_l2` in `packets`: its mix's mean frame from now on
    /// (for a mix of rates alone, whose frames were foreseen without the ports).
    pub fn measured_frame(&mut self, case: usize, bytes_l2: u64, packets: u64) {
        let run = &mut self.cases[case];
        run.mix.measured_frame(bytes_l2, packets);
        run.report.frame_bytes_l2 = run.mix.frame_bytes_l2;
    }

    /// The next line said (a case begun or stopped, a trial, a result), oldest first.
    pub fn poll_line(&mut self) -> Option<String> {
        (!self.lines.is_empty()).then(|| self.lines.remove(0))
    }

    /// The next trial: of the case being searched, its latency trials once its search ended,
    /// or the next case's; `None` when every case is done.
    pub fn next_trial(&mut self, now: Instant) -> Option<NextTrial> {
        while let Some(index) = self.cases.iter().position(|c| !c.finished) {
            let run = &mut self.cases[index];
            let started = *run.started.get_or_insert_with(|| {
                self.lines
                    .push(format!("search {}: started", run.case.label));
                now
            });
            if run.latency_left.is_none() {
                let first = run.report.trials.is_empty();
                if now.duration_since(started) >= self.section.max_duration {
                    run.search.stop();
                    self.lines.push(format!(
                        "search {}: stopped after {:?} (search.max_duration): its bounds are \
                         not final",
                        run.case.label, self.section.max_duration
                    ));
                }
                if let Some(request) = run.search.poll_trial() {
                    return Some(NextTrial {
                        case: index,
                        request,
                        purpose: Purpose::Search,
                        warmup: if first { self.warmup } else { Duration::ZERO },
                    });
                }
                self.end_search(index);
            }
            if let Some(next) = self.latency_trial(index) {
                return Some(next);
            }
            self.cases[index].finished = true;
        }
        None
    }

    /// Case `index`'s search has ended: its results, and the latency trials it leads to.
    fn end_search(&mut self, index: usize) {
        let latency_goal = self.section.latency_goal_index();
        let run = &mut self.cases[index];
        run.report.results = case_results(run, &self.goal_names);
        self.lines.extend(result_lines(&run.report));
        let ct = latency_goal
            .and_then(|g| run.search.outcomes().get(g).copied())
            .and_then(|o| o.conditional_throughput);
        let mut fractions: Vec<f64> = self
            .section
            .latency_loads
            .iter()
            .map(|p| p.0 / 100.0)
            .collect();
        if ct.is_none() && !fractions.is_empty() {
            self.lines.push(format!(
                "search {}: no conditional throughput for latency under load",
                run.case.label
            ));
            fractions.clear();
        }
        fractions.reverse();
        run.latency_left = Some(fractions);
    }

    /// Case `index`'s next latency trial, if one is left.
    fn latency_trial(&mut self, index: usize) -> Option<NextTrial> {
        let goal = self.section.latency_goal_index().unwrap_or(0);
        let duration_s = self.section.latency_duration.as_secs_f64();
        let run = &mut self.cases[index];
        let ct = run
            .report
            .results
            .get(goal)
            .and_then(|r| r.conditional_throughput_pps)?;
        let fraction = run.latency_left.as_mut()?.pop()?;
        Some(NextTrial {
            case: index,
            request: TrialRequest {
                load: (ct * fraction).max(1.0),
                duration_s,
            },
            purpose: Purpose::Latency(fraction),
            warmup: Duration::ZERO,
        })
    }

    /// `trial` was measured at `now` as `result` (what the controller takes) and `record`
    /// (what the report keeps); the label of its step.
    pub fn handle_trial(
        &mut self,
        now: Instant,
        trial: &NextTrial,
        result: TrialResult,
        record: TrialRecord,
    ) -> String {
        let latency_goal = self
            .section
            .latency_goal_index()
            .and_then(|g| self.goal_names.get(g))
            .map_or("", String::as_str);
        let run = &mut self.cases[trial.case];
        match trial.purpose {
            Purpose::Search => {
                let label = format!(
                    "{}: trial {} at {:.0} pps",
                    run.case.label,
                    run.report.trials.len() + 1,
                    trial.request.load
                );
                run.search.handle_trial(result);
                run.report.trials.push(record.clone());
                let taken = run
                    .started
                    .map_or(0.0, |s| now.duration_since(s).as_secs_f64());
                let line = trial_line(run, &record, &self.goal_names, taken);
                self.lines.push(line.text);
                run.foreseen_s.get_or_insert(line.foreseen_s);
                label
            }
            Purpose::Latency(fraction) => {
                let label = format!(
                    "{}: latency at {:.0}% of {latency_goal}",
                    run.case.label,
                    fraction * 100.0,
                );
                self.lines.push(latency_line(run, fraction, &record));
                run.report.latency_under_load.push(LoadLatency {
                    fraction,
                    trial: record,
                });
                label
            }
        }
    }

    /// The label of `trial`'s step when it was cut short (no evidence, and no trial follows).
    pub fn interrupted_label(&self, trial: &NextTrial) -> String {
        format!("{}: interrupted trial", self.cases[trial.case].case.label)
    }

    /// The search's progress in case `case` (`GET /v1/runs/{id}`).
    pub fn progress(&self, case: usize) -> SearchProgress {
        search_progress(&self.cases[case], &self.goal_names)
    }

    /// Puts the search's section in `report`: every case begun, a warning when it did not
    /// finish, and the strategy in its configuration.
    pub fn finish(&self, report: &mut Report) {
        let search = self.report();
        if !search.complete {
            report
                .warnings
                .push("the search did not finish: bounds marked incomplete are not final".into());
        }
        report.search = Some(search);
        report.config.insert(
            "search.strategy".into(),
            self.section.strategy.name().into(),
        );
    }

    /// The search report of every case begun.
    pub fn report(&self) -> SearchReport {
        let mut cases = Vec::new();
        for run in self.cases.iter().filter(|c| c.started.is_some()) {
            let mut report = run.report.clone();
            if report.results.is_empty() {
                report.results = case_results(run, &self.goal_names);
            }
            cases.push(report);
        }
        SearchReport {
            goals: goal_specs(&self.section),
            complete: self.cases.iter().all(|c| c.finished)
                && self.cases.iter().all(|c| c.search.is_done()),
            cases,
        }
    }
}

/// The report's name of the directions a case loads.
fn search_directions(set: DirectionSet) -> SearchDirections {
    match set {
        DirectionSet::Uplink => SearchDirections::Uplink,
        DirectionSet::Downlink => SearchDirections::Downlink,
        DirectionSet::Both => SearchDirections::Both,
    }
}

#[cfg(test)]
mod tests;
