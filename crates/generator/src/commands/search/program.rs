//! `upfbench search` as a program of steps: each step is a trial the search controller chose
//! from the trials before it; after a case's search, its latency-under-load trials; then the
//! next case, on the same sessions.

use std::time::{Duration, Instant};

use upfbench_config::DirectionSet;
use upfbench_report::{LoadLatency, Report, SearchCase, SearchDirections, SearchReport, TrialWall};

use super::cases::{Case, CaseRun, Mix, trial_profile};
use super::progress::{case_results, search_progress, trial_line};
use super::trial::{Tolerance, trial_of};
use crate::commands::generate::program::{Program, StepWall};
use crate::commands::generate::step::StepResult;
use crate::commands::live::LiveBoard;
use crate::datapath::classify::RxRules;
use upfbench_cli::out;
use upfbench_config::{SearchSection, System};
use upfbench_run::lifecycle::Timing;
use upfbench_run::plan::{self, Plan};
use upfbench_search::{Search, SearchConfig, SearchGoal, TrialRequest};

/// Min Load when the profile gives none, unless Max Load is lower.
const DEFAULT_MIN_LOAD: f64 = 10_000.0;

/// Longest a trial waits after sending for its packets to be accounted for, or to stop
/// arriving.
const QUIET_LIMIT: Duration = Duration::from_secs(5);

/// What a trial is for.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Purpose {
    Search,
    /// Latency at this fraction of the latency goal's conditional throughput.
    Latency(f64),
}

/// The trial being measured.
struct Pending {
    case: usize,
    request: TrialRequest,
    purpose: Purpose,
    plan: Plan,
}

/// The search's steps. See the module documentation.
pub(crate) struct SearchProgram<'a, 'p> {
    system: &'a System,
    section: &'a SearchSection,
    goal_names: Vec<String>,
    /// Each pair's ports' line rates.
    links: Vec<[Option<f64>; 2]>,
    /// Each case's receive rules, one per port pair.
    rules: &'p [Vec<RxRules>],
    cases: Vec<CaseRun>,
    pending: Option<Pending>,
    /// The warm-up of a case's first trial.
    warmup: Duration,
    trials: usize,
    /// Where each trial's progress goes for a program that asks (an agent's API).
    board: Option<&'a LiveBoard>,
}

/// A search's goals from its profile section.
pub(crate) fn goals(section: &SearchSection) -> Vec<SearchGoal> {
    section.goals.iter().map(|g| g.goal()).collect()
}

impl<'a, 'p> SearchProgram<'a, 'p> {
    /// With each trial's progress posted on `board`.
    pub(crate) fn with_board(mut self, board: Option<&'a LiveBoard>) -> Self {
        self.board = board;
        self
    }

    /// The search of `cases`, whose base plans are `bases` and receive rules `rules` (one
    /// each, per port pair), on ports of line rates `links` (bit/s, each pair's N3 then N6; a
    /// case's line rate is the first pair's).
    pub(crate) fn new(
        system: &'a System,
        section: &'a SearchSection,
        cases: Vec<Case>,
        bases: &[Plan],
        rules: &'p [Vec<RxRules>],
        links: Vec<[Option<f64>; 2]>,
    ) -> anyhow::Result<Self> {
        let goals = goals(section);
        let mut runs = Vec::new();
        for (case, base) in cases.into_iter().zip(bases) {
            let mix = Mix::of(&case, base, links.first().copied().unwrap_or_default());
            let max_load = section.max_load.or(mix.line_rate_pps).ok_or_else(|| {
                anyhow::anyhow!(
                    "search {}: the ports report no line rate: give search.max_load in the \
                     profile (or `speed` of both ports in the system file)",
                    case.label
                )
            })?;
            let min_load = section.min_load.unwrap_or(DEFAULT_MIN_LOAD).min(max_load);
            let mut config = SearchConfig::new(goals.clone(), min_load, max_load);
            config.strategy = section.strategy.strategy();
            let search =
                Search::new(config).map_err(|e| anyhow::anyhow!("search {}: {e}", case.label))?;
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
        let first = bases
            .first()
            .ok_or_else(|| anyhow::anyhow!("nothing to search"))?;
        let mut program = SearchProgram {
            system,
            section,
            goal_names: section.goals.iter().map(|g| g.name.clone()).collect(),
            links,
            rules,
            cases: runs,
            pending: None,
            warmup: first.warmup,
            trials: 0,
            board: None,
        };
        program.choose()?;
        Ok(program)
    }

    fn timing(&self) -> Timing {
        let (duration, warmup) = self.pending.as_ref().map_or((1.0, Duration::ZERO), |p| {
            (p.request.duration_s, p.plan.warmup)
        });
        // No fixed drain: a trial ends as soon as every packet it sent is accounted for, or
        // once nothing arrived for `search.quiet` (at most QUIET_LIMIT after sending).
        Timing {
            warmup,
            settle: self.section.settle,
            measure_limit: Duration::from_secs_f64(duration * 1.5) + Duration::from_secs(2),
            drain: Duration::ZERO,
            quiet_limit: Some(QUIET_LIMIT),
        }
    }

    /// Chooses the next trial (of this case, its latency trials, or the next case's); `false`
    /// when none is left.
    fn choose(&mut self) -> anyhow::Result<bool> {
        self.pending = None;
        while let Some(index) = self.cases.iter().position(|c| !c.finished) {
            let run = &mut self.cases[index];
            let started = *run.started.get_or_insert_with(|| {
                out::line(&format!("search {}: started", run.case.label));
                Instant::now()
            });
            let first = run.report.trials.is_empty();
            if run.latency_left.is_none() {
                if started.elapsed() >= self.section.max_duration {
                    run.search.stop();
                    out::line(&format!(
                        "search {}: stopped after {:?} (search.max_duration): its bounds are \
                         not final",
                        run.case.label, self.section.max_duration
                    ));
                }
                if let Some(request) = run.search.poll_trial() {
                    let warmup = if first { self.warmup } else { Duration::ZERO };
                    self.pending =
                        Some(self.plan_trial(index, request, Purpose::Search, warmup)?);
                    return Ok(true);
                }
                run.report.results = case_results(run, &self.goal_names);
                for line in super::progress::result_lines(&run.report) {
                    out::line(&line);
                }
                let ct = self
                    .section
                    .latency_goal_index()
                    .and_then(|g| run.search.outcomes().get(g).copied())
                    .and_then(|o| o.conditional_throughput);
                let mut fractions: Vec<f64> = self
                    .section
                    .latency_loads
                    .iter()
                    .map(|p| p.0 / 100.0)
                    .collect();
                if ct.is_none() && !fractions.is_empty() {
                    out::line(&format!(
                        "search {}: no conditional throughput for latency under load",
                        run.case.label
                    ));
                    fractions.clear();
                }
                fractions.reverse();
                run.latency_left = Some(fractions);
            }
            let run = &mut self.cases[index];
            let ct = run
                .report
                .results
                .get(self.section.latency_goal_index().unwrap_or(0))
                .and_then(|r| r.conditional_throughput_pps);
            if let (Some(left), Some(ct)) = (run.latency_left.as_mut(), ct)
                && let Some(fraction) = left.pop()
            {
                let request = TrialRequest {
                    load: (ct * fraction).max(1.0),
                    duration_s: self.section.latency_duration.as_secs_f64(),
                };
                self.pending = Some(self.plan_trial(
                    index,
                    request,
                    Purpose::Latency(fraction),
                    Duration::ZERO,
                )?);
                return Ok(true);
            }
            self.cases[index].finished = true;
        }
        Ok(false)
    }

    fn plan_trial(
        &self,
        case: usize,
        request: TrialRequest,
        purpose: Purpose,
        warmup: Duration,
    ) -> anyhow::Result<Pending> {
        let run = &self.cases[case];
        let profile = trial_profile(
            &run.case,
            &run.mix,
            request.load,
            Duration::from_secs_f64(request.duration_s),
            warmup,
        );
        let plan = plan::build_pairs(self.system, &profile, run.case.payload, &self.links)?;
        Ok(Pending {
            case,
            request,
            purpose,
            plan,
        })
    }

    /// The search report of every case begun.
    fn search_report(&self) -> SearchReport {
        let mut cases = Vec::new();
        for run in self.cases.iter().filter(|c| c.started.is_some()) {
            let mut report = run.report.clone();
            if report.results.is_empty() {
                report.results = case_results(run, &self.goal_names);
            }
            cases.push(report);
        }
        SearchReport {
            goals: super::progress::goal_specs(self.section),
            complete: self.cases.iter().all(|c| c.finished)
                && self.cases.iter().all(|c| c.search.is_done()),
            cases,
        }
    }
}

impl<'p> Program<'p> for SearchProgram<'_, 'p> {
    fn first_timing(&self) -> Timing {
        self.timing()
    }
    fn plan(&mut self, _step: usize) -> (&Plan, &'p [RxRules]) {
        let p = self
            .pending
            .as_ref()
            .expect("a trial was chosen before it is prepared");
        (&p.plan, &self.rules[p.case])
    }

    fn collected(
        &mut self,
        step: usize,
        result: &mut StepResult,
        wall: &StepWall,
        stopping: bool,
    ) -> Option<Timing> {
        let p = self.pending.take()?;
        if stopping {
            // Cut short: no evidence for the search, and no trial follows.
            result.report.label = format!("{}: interrupted trial", self.cases[p.case].case.label);
            result.hlog = None;
            return None;
        }
        self.trials += 1;
        let (trial, mut record) = trial_of(
            &result.report,
            step,
            p.request,
            p.plan.packets(),
            wall.since_prepared,
            Tolerance {
                load: self.section.tx_tolerance / 100.0,
                late_us: self
                    .section
                    .max_tx_late
                    .map_or(f64::INFINITY, |d| d.as_secs_f64() * 1e6),
            },
        );
        record.wall = Some(trial_wall(wall));
        let run = &mut self.cases[p.case];
        match p.purpose {
            Purpose::Search => {
                result.report.label = format!(
                    "{}: trial {} at {:.0} pps",
                    run.case.label,
                    run.report.trials.len() + 1,
                    p.request.load
                );
                // The interval log is kept for the latency trials alone.
                result.hlog = None;
                run.search.handle_trial(trial);
                run.report.trials.push(record.clone());
                let line = trial_line(run, &record, &self.goal_names);
                out::line(&line.text);
                if let Some(board) = self.board {
                    board.post_search(search_progress(run, &self.goal_names));
                }
                run.foreseen_s.get_or_insert(line.foreseen_s);
            }
            Purpose::Latency(fraction) => {
                result.report.label = format!(
                    "{}: latency at {:.0}% of {}",
                    run.case.label,
                    fraction * 100.0,
                    self.section
                        .latency_goal_index()
                        .and_then(|g| self.goal_names.get(g))
                        .map_or("", String::as_str)
                );
                out::line(&super::progress::latency_line(run, fraction, &record));
                run.report.latency_under_load.push(LoadLatency {
                    fraction,
                    trial: record,
                });
            }
        }
        match self.choose() {
            Ok(true) => Some(self.timing()),
            Ok(false) => None,
            Err(e) => {
                out::line(&format!("search: cannot plan the next trial: {e:#}"));
                None
            }
        }
    }

    fn show_steps(&self) -> bool {
        false
    }

    fn quiet_window(&self) -> Duration {
        self.section.quiet
    }

    fn finish(&mut self, report: &mut Report) {
        let search = self.search_report();
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
}

/// The report's record of where a trial's wall time went.
fn trial_wall(w: &StepWall) -> TrialWall {
    TrialWall {
        total_s: w.total.as_secs_f64(),
        setup_s: w.setup().as_secs_f64(),
        warmup_s: w.warmup.as_secs_f64(),
        settle_s: w.settle.as_secs_f64(),
        traffic_s: w.traffic.as_secs_f64(),
        drain_s: w.drain.as_secs_f64(),
        quiet_s: w.quiet.as_secs_f64(),
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
