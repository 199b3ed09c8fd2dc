//! `upfbench search` as a program of steps: each step is a trial the search of the profile
//! ([`ProfileSearch`]) chose from the trials before it: of a case's search, then its
//! latency-under-load trials; then the next case, on the same sessions.

use std::time::{Duration, Instant};

use upfbench_profile_search::case::{Case, Mix, trial_profile};
use upfbench_profile_search::trial::trial_of;
use upfbench_profile_search::{NextTrial, ProfileSearch, Purpose};
use upfbench_report::{Report, TrialWall};

use crate::commands::generate::program::{Program, StepWall};
use crate::commands::generate::step::StepResult;
use crate::commands::live::LiveBoard;
use crate::datapath::classify::RxRules;
use upfbench_cli::out;
use upfbench_config::{SearchSection, System};
use upfbench_run::lifecycle::Timing;
use upfbench_run::plan::{self, Plan};

/// Longest a trial waits after sending for its packets to be accounted for, or to stop
/// arriving.
const QUIET_LIMIT: Duration = Duration::from_secs(5);

/// The trial being measured, and its plan.
struct Pending {
    trial: NextTrial,
    plan: Plan,
}

/// The search's steps. See the module documentation.
pub(crate) struct SearchProgram<'a, 'p> {
    system: &'a System,
    section: &'a SearchSection,
    /// Each pair's ports' line rates.
    links: Vec<[Option<f64>; 2]>,
    /// Each case's receive rules, one per port pair.
    rules: &'p [Vec<RxRules>],
    search: ProfileSearch,
    pending: Option<Pending>,
    /// Where each trial's progress goes for a program that asks (an agent's API).
    board: Option<&'a LiveBoard>,
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
        let first_links = links.first().copied().unwrap_or_default();
        let mixed = cases
            .into_iter()
            .zip(bases)
            .map(|(case, base)| {
                let mix = Mix::of(&case, base, first_links);
                (case, mix)
            })
            .collect();
        let warmup = bases.first().map_or(Duration::ZERO, |b| b.warmup);
        let search = ProfileSearch::new(section, mixed, warmup)?;
        let mut program = SearchProgram {
            system,
            section,
            links,
            rules,
            search,
            pending: None,
            board: None,
        };
        program.choose()?;
        Ok(program)
    }

    fn timing(&self) -> Timing {
        let (duration, warmup) = self.pending.as_ref().map_or((1.0, Duration::ZERO), |p| {
            (p.trial.request.duration_s, p.plan.warmup)
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

    /// Says what the search said.
    fn say(&mut self) {
        while let Some(line) = self.search.poll_line() {
            out::line(&line);
        }
    }

    /// Chooses and plans the next trial; `false` when none is left.
    fn choose(&mut self) -> anyhow::Result<bool> {
        self.pending = None;
        let next = self.search.next_trial(Instant::now());
        self.say();
        let Some(trial) = next else {
            return Ok(false);
        };
        let run = self.search.case(trial.case);
        let profile = trial_profile(
            &run.case,
            &run.mix,
            trial.request.load,
            Duration::from_secs_f64(trial.request.duration_s),
            trial.warmup,
        );
        let plan = plan::build_pairs(self.system, &profile, run.case.payload, &self.links)?;
        self.pending = Some(Pending { trial, plan });
        Ok(true)
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
        (&p.plan, &self.rules[p.trial.case])
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
            result.report.label = self.search.interrupted_label(&p.trial);
            result.hlog = None;
            return None;
        }
        let (trial, mut record) = trial_of(
            &result.report,
            step,
            p.trial.request,
            p.plan.packets(),
            wall.since_prepared,
            self.search.tolerance(),
        );
        record.wall = Some(trial_wall(wall));
        result.report.label = self
            .search
            .handle_trial(Instant::now(), &p.trial, trial, record);
        if p.trial.purpose == Purpose::Search {
            // The interval log is kept for the latency trials alone.
            result.hlog = None;
            if let Some(board) = self.board {
                board.post_search(self.search.progress(p.trial.case));
            }
        }
        self.say();
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
        self.search.finish(report);
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
