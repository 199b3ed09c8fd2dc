//! The search controller, sans-IO: it asks for trials ([`Search::poll_trial`]), is told their
//! results ([`Search::handle_trial`]), and says what it found ([`Search::outcomes`]) — at the
//! end, or at any time before it (an interrupted search reports its bounds so far, marked
//! incomplete). It never measures anything itself, so it is tested against simulated UPFs.
//!
//! How it chooses loads (RFC 9971 leaves this to the implementation; docs/search.md has the
//! whole story with a trace). A load a goal's own target must decide costs its duration sum (11
//! trials at CSIT's defaults), so single trials find two loads within the goal's width first:
//!
//! * The first trial is at Max Load, as short as the shortest goal allows.
//! * Each goal is reached through coarse targets ([`super::target`]) decided by one trial at a
//!   load, the finest at the goal's own width and final trial duration; all goals' coarsest
//!   first.
//! * For a target, a load it measured or the previous target's bound that is still undecided
//!   for it and inside its bounds is measured again, the smallest first: the goal's own target
//!   measures the two loads the finest coarse target found, and nothing else when they hold.
//! * Otherwise (`controller/next_load.rs`): from an upper bound to where its packets went
//!   (its forwarding rate, as the load that would lose the goal's ratio there, less half a
//!   width), or halfway on a log scale when nothing got through; between two bounds to that
//!   hint when it lies between them, one step from the bound it points at, or their middle on
//!   a log scale.
//! * A trial the tester could not send (its load marked `tester_limited`) counts for no goal.
//!   Its load is measured again; once the tester fell short there twice, and in as many trials
//!   as it sent it, no load at or above it is asked for again: the search does not climb past
//!   the tester's limit, and a goal whose lower bound reaches it within the width ends as
//!   tester-limited, not with the UPF's throughput.

use super::goal::SearchGoal;
use super::load_stats::{LoadClass, LoadSums, TrialResult, conditional_throughput};
use super::target::targets;
use super::{RelevantBounds, relevant_bounds};

/// What a search looks for, and within which loads.
#[derive(Debug, Clone, PartialEq)]
pub struct SearchConfig {
    /// The goals, searched together.
    pub goals: Vec<SearchGoal>,
    /// Min Load (pps): no trial below it.
    pub min_load: f64,
    /// Max Load (pps): no trial above it.
    pub max_load: f64,
    /// Coarse targets before each goal's own.
    pub(crate) preceding_targets: u32,
    /// How much each further step away from a bound grows (2: doubles).
    pub expansion: f64,
    /// Most trials before the search stops, incomplete.
    pub(crate) max_trials: usize,
    /// How loads are chosen.
    pub strategy: Strategy,
}

/// How the controller chooses loads.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Strategy {
    /// MLRsearch's way (see the module documentation).
    #[default]
    MlrSearch,
    /// RFC 2544's binary search, for comparison: no coarse targets, no hints, no steps; from
    /// Max Load, always the middle of the bounds (Min Load the lowest).
    Bisection,
}

impl SearchConfig {
    /// `goals` between the loads, with two coarse targets per goal, doubling steps, and at most
    /// 10,000 trials.
    pub fn new(goals: Vec<SearchGoal>, min_load: f64, max_load: f64) -> SearchConfig {
        SearchConfig {
            goals,
            min_load,
            max_load,
            preceding_targets: 2,
            expansion: 2.0,
            max_trials: 10_000,
            strategy: Strategy::MlrSearch,
        }
    }
}

/// A configuration the search cannot run.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ConfigError {
    /// A goal out of range.
    #[error("goal {index}: {source}")]
    Goal {
        /// The goal's index.
        index: usize,
        /// What is wrong.
        source: super::GoalError,
    },
    /// No goal.
    #[error("a search needs at least one goal")]
    NoGoal,
    /// The loads are not `0 < min_load <= max_load`.
    #[error("min load {min} and max load {max} (pps): need 0 < min <= max")]
    Loads {
        /// Min Load.
        min: f64,
        /// Max Load.
        max: f64,
    },
    /// The expansion does not grow.
    #[error("expansion {0}: must be above 1")]
    Expansion(f64),
}

/// Shortfalls of the tester at one load that make it the tester's limit.
const TESTER_SHORTFALLS: usize = 2;

/// One trial to measure.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TrialRequest {
    /// Intended load (pps).
    pub load: f64,
    /// Intended trial duration (s).
    pub duration_s: f64,
}

/// How a goal's search ended, or that it has not.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ending {
    /// Both relevant bounds within the width.
    Regular,
    /// Max Load is a lower bound.
    MaxLoad,
    /// Min Load is an upper bound.
    MinLoad,
    /// The lower bound is within the width of a load the tester could not send.
    TesterLimited,
    /// Not reached (yet, or ever: the search was stopped).
    Incomplete,
}

/// What the search found for one goal.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct GoalOutcome {
    /// How it ended.
    pub ending: Ending,
    /// Its relevant bounds (pps).
    pub bounds: RelevantBounds,
    /// The conditional throughput at the relevant lower bound (pps).
    pub conditional_throughput: Option<f64>,
    /// The smallest load the tester could not send, if any (pps).
    pub tester_limit: Option<f64>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Side {
    Lower,
    Upper,
}

/// What a target needs next.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Need {
    Done(Ending),
    Measure(f64),
}

#[derive(Debug, Clone)]
struct Target {
    goal: SearchGoal,
    /// The side its last decided trial fell on, and how many decided trials in a row fell
    /// there before it.
    streak: Option<(Side, u32)>,
    /// The loads it asked for.
    asked: Vec<f64>,
}

/// The search. See the module documentation.
#[derive(Debug, Clone)]
pub struct Search {
    config: SearchConfig,
    /// Per goal, coarsest first.
    targets: Vec<Vec<Target>>,
    trials: Vec<TrialResult>,
    /// The trial asked for and not yet answered, and the target (goal, level) that asked.
    pending: Option<(TrialRequest, Option<(usize, usize)>)>,
    stopped: bool,
}

impl Search {
    /// A search of `config`.
    pub fn new(config: SearchConfig) -> Result<Search, ConfigError> {
        if config.goals.is_empty() {
            return Err(ConfigError::NoGoal);
        }
        for (index, g) in config.goals.iter().enumerate() {
            g.check()
                .map_err(|source| ConfigError::Goal { index, source })?;
        }
        if !(config.min_load > 0.0 && config.min_load <= config.max_load) {
            return Err(ConfigError::Loads {
                min: config.min_load,
                max: config.max_load,
            });
        }
        if config.expansion.partial_cmp(&1.0) != Some(std::cmp::Ordering::Greater) {
            return Err(ConfigError::Expansion(config.expansion));
        }
        let preceding = match config.strategy {
            Strategy::MlrSearch => config.preceding_targets,
            Strategy::Bisection => 0,
        };
        let targets = config
            .goals
            .iter()
            .map(|g| {
                targets(g, preceding)
                    .into_iter()
                    .map(|goal| Target {
                        goal,
                        streak: None,
                        asked: Vec::new(),
                    })
                    .collect()
            })
            .collect();
        Ok(Search {
            config,
            targets,
            trials: Vec::new(),
            pending: None,
            stopped: false,
        })
    }

    /// The configuration.
    pub fn config(&self) -> &SearchConfig {
        &self.config
    }

    /// Every trial so far, in order.
    pub fn trials(&self) -> &[TrialResult] {
        &self.trials
    }

    /// The next trial to measure, or `None` when the search is over. Asking again before the
    /// result came gives the same trial.
    pub fn poll_trial(&mut self) -> Option<TrialRequest> {
        if let Some((r, _)) = self.pending {
            return Some(r);
        }
        if self.stopped || self.trials.len() >= self.config.max_trials {
            return None;
        }
        if self.trials.is_empty() {
            let duration_s = self
                .targets
                .iter()
                .map(|t| t[0].goal.final_trial_duration_s)
                .fold(f64::INFINITY, f64::min);
            let r = TrialRequest {
                load: self.config.max_load,
                duration_s,
            };
            self.pending = Some((r, None));
            return Some(r);
        }
        let levels = self.targets[0].len();
        for level in 0..levels {
            for goal in 0..self.targets.len() {
                if let Need::Measure(load) = self.need(goal, level) {
                    let t = &mut self.targets[goal][level];
                    t.asked.push(load);
                    let r = TrialRequest {
                        load,
                        duration_s: t.goal.final_trial_duration_s,
                    };
                    self.pending = Some((r, Some((goal, level))));
                    return Some(r);
                }
            }
        }
        None
    }

    /// The result of the trial [`poll_trial`](Self::poll_trial) asked for.
    pub fn handle_trial(&mut self, result: TrialResult) {
        let owner = self.pending.take().and_then(|(_, owner)| owner);
        self.trials.push(result);
        let Some((goal, level)) = owner else { return };
        let target = &self.targets[goal][level].goal;
        let load = result.intended_load;
        let class = LoadSums::of(
            target,
            self.trials.iter().filter(|t| t.intended_load == load),
        )
        .classify(target);
        let side = match class {
            _ if result.tester_limited => return,
            LoadClass::LowerBound => Side::Lower,
            LoadClass::UpperBound => Side::Upper,
            LoadClass::Undecided => return,
        };
        let t = &mut self.targets[goal][level];
        t.streak = Some(match t.streak {
            Some((s, n)) if s == side => (side, n + 1),
            _ => (side, 0),
        });
    }

    /// Asks for no more trials (an interruption, a time limit): the outcomes are what the
    /// trials so far say, incomplete where a goal was not reached.
    pub fn stop(&mut self) {
        self.stopped = true;
        self.pending = None;
    }

    /// Whether every goal ended.
    pub fn is_done(&self) -> bool {
        (0..self.targets.len()).all(|g| self.outcome(g).ending != Ending::Incomplete)
    }

    /// Each goal's outcome, in the configuration's order.
    pub fn outcomes(&self) -> Vec<GoalOutcome> {
        (0..self.targets.len()).map(|g| self.outcome(g)).collect()
    }

    fn outcome(&self, goal: usize) -> GoalOutcome {
        let last = self.targets[goal].len() - 1;
        let target = &self.targets[goal][last].goal;
        let bounds = relevant_bounds(target, &self.trials);
        let ending = match self.need(goal, last) {
            Need::Done(e) => e,
            Need::Measure(_) => Ending::Incomplete,
        };
        let conditional_throughput = bounds.lower.and_then(|l| {
            let at: Vec<TrialResult> = self
                .trials
                .iter()
                .filter(|t| t.intended_load == l)
                .copied()
                .collect();
            conditional_throughput(target, &at)
        });
        GoalOutcome {
            ending,
            bounds,
            conditional_throughput,
            tester_limit: self.ceiling(),
        }
    }

    /// The smallest load the tester could not send.
    ///
    /// A load is the tester's limit once it fell short there twice, and in at least as many
    /// trials as it sent the load: one shortfall may be a stall of its host (the load is
    /// measured again: nothing decided it), and a host that stalls now and then still sends
    /// the load in most of the trials a goal's duration sum takes there.
    fn ceiling(&self) -> Option<f64> {
        let limited = |load: f64| {
            let (short, sent) = self.trials.iter().filter(|t| t.intended_load == load).fold(
                (0, 0),
                |(short, sent), t| {
                    if t.tester_limited {
                        (short + 1, sent)
                    } else {
                        (short, sent + 1)
                    }
                },
            );
            short >= TESTER_SHORTFALLS && short >= sent
        };
        self.trials
            .iter()
            .filter(|t| t.tester_limited && limited(t.intended_load))
            .map(|t| t.intended_load)
            .min_by(f64::total_cmp)
    }

    fn class(&self, goal: &SearchGoal, load: f64) -> LoadClass {
        LoadSums::of(goal, self.trials.iter().filter(|t| t.intended_load == load)).classify(goal)
    }

    /// What target `level` of `goal` needs next.
    fn need(&self, goal: usize, level: usize) -> Need {
        let target = &self.targets[goal][level];
        let g = &target.goal;
        let ceiling = self.ceiling();
        let below = |l: f64| ceiling.is_none_or(|c| l < c);
        // The bounds among the loads the tester can send: a bound at or above its limit is out
        // of reach, and the next one below it is what the search can still refine.
        let b = match ceiling {
            None => relevant_bounds(g, &self.trials),
            Some(_) => {
                let reachable: Vec<TrialResult> = self
                    .trials
                    .iter()
                    .filter(|t| below(t.intended_load))
                    .copied()
                    .collect();
                relevant_bounds(g, &reachable)
            }
        };
        let (lower, upper) = (b.lower, b.upper);
        let inside =
            |l: f64| below(l) && lower.is_none_or(|lo| l > lo) && upper.is_none_or(|up| l < up);
        // Loads that matter and are not decided yet: measured again, the smallest first.
        let mut refine: Vec<f64> = target.asked.clone();
        if level > 0 {
            let previous = relevant_bounds(&self.targets[goal][level - 1].goal, &self.trials);
            refine.extend(previous.lower);
            refine.extend(previous.upper);
        }
        refine.retain(|&l| inside(l) && self.class(g, l) == LoadClass::Undecided);
        refine.sort_by(f64::total_cmp);
        refine.dedup();
        if let Some(&l) = refine.first() {
            return Need::Measure(l);
        }
        let (min, max) = (self.config.min_load, self.config.max_load);
        let w = g.relative_width;
        if self.config.strategy == Strategy::Bisection {
            return match (lower, upper) {
                (Some(l), Some(u)) if (u - l) / u <= w => Need::Done(Ending::Regular),
                (Some(l), Some(u)) => Need::Measure((l + u) / 2.0),
                (Some(l), None) if l >= max => Need::Done(Ending::MaxLoad),
                (None, Some(u)) if u <= min => Need::Done(Ending::MinLoad),
                // Min Load itself once the middle would be within the width of it.
                (None, Some(u)) if (u - min) / u <= 2.0 * w => Need::Measure(min),
                (None, Some(u)) => Need::Measure((min + u) / 2.0),
                (None, None) if ceiling.is_none() => Need::Measure(max),
                // The tester's limit: as MLRsearch does.
                _ => self.need_mlr(goal, level, lower, upper, ceiling),
            };
        }
        self.need_mlr(goal, level, lower, upper, ceiling)
    }

    /// The bounds of `goal` so far: its own target's, or while it has none, those of the
    /// finest coarse target that has any (for progress lines).
    pub fn bounds_so_far(&self, goal: usize) -> RelevantBounds {
        let levels = &self.targets[goal];
        levels
            .iter()
            .rev()
            .map(|t| relevant_bounds(&t.goal, &self.trials))
            .find(|b| b.lower.is_some() || b.upper.is_some())
            .unwrap_or(RelevantBounds {
                lower: None,
                upper: None,
            })
    }

    /// A rough estimate of the time the search still needs (s), each trial costing
    /// `overhead_s` beyond its duration: per unfinished target, a bisection per halving of
    /// its bounds' width to its own, and the time its loads take to be decided.
    pub fn estimate_left_s(&self, overhead_s: f64) -> f64 {
        let mut left = 0.0;
        for (goal, levels) in self.targets.iter().enumerate() {
            for (level, t) in levels.iter().enumerate() {
                if matches!(self.need(goal, level), Need::Done(_)) {
                    continue;
                }
                let g = &t.goal;
                let b = relevant_bounds(g, &self.trials);
                let width = match (b.lower, b.upper) {
                    (Some(l), Some(u)) => (u - l) / u,
                    _ => 0.5,
                };
                let halvings = (width / g.relative_width).log2().ceil().max(1.0);
                let trials_per_load =
                    (g.duration_sum_s / g.final_trial_duration_s) * (1.0 - g.exceed_ratio) + 1.0;
                let per_load = trials_per_load.ceil() * (g.final_trial_duration_s + overhead_s);
                // The goal's own target decides its two bounds again, and its new loads.
                let loads = if level + 1 == levels.len() {
                    halvings + 2.0
                } else {
                    halvings
                };
                left += loads * per_load;
            }
        }
        left
    }
}

mod next_load;
#[cfg(test)]
mod tests;
