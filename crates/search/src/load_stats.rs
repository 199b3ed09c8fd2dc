//! What the trials at one intended load say for one search goal (RFC 9971, MLRsearch): the
//! load's classification as a lower bound, an upper bound or undecided, and its conditional
//! throughput. Pure arithmetic on trial results, the same for any measurer.
//!
//! Trials are split four ways by the goal: *full-length* (intended duration at least the goal's
//! final trial duration) or *short*, and *low-loss* (loss ratio not above the goal's) or
//! *high-loss*. The classification needs only the four duration sums:
//!
//! * short high-loss time counts against the load only beyond what its short low-loss time
//!   balances, in the proportion the exceed ratio allows (`ER / (1 − ER)` of low-loss time);
//! * the *effective whole sum* is at least the goal's duration sum: missing trials are assumed;
//! * *optimistic*: the load could still be a lower bound if every missing trial were low-loss
//!   (effective high-loss time ≤ ER × whole); *pessimistic*: it is one even if every missing
//!   trial were high-loss (whole − full-length low-loss time ≤ ER × whole);
//! * both: a lower bound; neither: an upper bound; only the optimistic one: undecided.
//!
//! The conditional throughput of a load is its intended load times one minus a quantile of its
//! full-length trials' loss ratios: sorted by loss ratio, the loss ratio of the trial at which
//! `(1 − ER)` of the full-length duration sum (at least the goal's duration sum) is used up.
//! Too little full-length time to reach that point counts as total loss.

use super::goal::{Percentile, SearchGoal};

/// One trial's result, as the search sees it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TrialResult {
    /// The load asked for (packets per second, both directions together when both run).
    pub intended_load: f64,
    /// The load the tester sent (pps): below the intended load when it could not keep up.
    pub offered_load: f64,
    /// The trial duration asked for (s): it decides full-length or short.
    pub intended_duration_s: f64,
    /// The time the trial took, overheads included (s): what the duration sums add.
    pub duration_s: f64,
    /// Packets lost over packets sent, 0 to 1.
    pub loss_ratio: f64,
    /// The worst direction's latency percentiles, when any packet came back.
    pub latency: Option<LatencyPoints>,
    /// The tester could not send the intended load (TX slip, TX errors, its own receive
    /// drops): the trial says nothing about the UPF, and no goal counts it.
    pub tester_limited: bool,
}

/// A trial's latency percentiles (ns).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct LatencyPoints {
    /// 50 %.
    pub p50_ns: u64,
    /// 90 %.
    pub p90_ns: u64,
    /// 99 %.
    pub p99_ns: u64,
    /// 99.9 %.
    pub p99_9_ns: u64,
    /// 99.99 %.
    pub p99_99_ns: u64,
    /// The largest.
    pub max_ns: u64,
}

impl LatencyPoints {
    /// The value of `p`.
    pub fn get(&self, p: Percentile) -> u64 {
        match p {
            Percentile::P50 => self.p50_ns,
            Percentile::P90 => self.p90_ns,
            Percentile::P99 => self.p99_ns,
            Percentile::P99_9 => self.p99_9_ns,
            Percentile::P99_99 => self.p99_99_ns,
            Percentile::Max => self.max_ns,
        }
    }

    /// The larger of each percentile of `self` and `other` (the worse direction's).
    pub fn worst(self, other: LatencyPoints) -> LatencyPoints {
        LatencyPoints {
            p50_ns: self.p50_ns.max(other.p50_ns),
            p90_ns: self.p90_ns.max(other.p90_ns),
            p99_ns: self.p99_ns.max(other.p99_ns),
            p99_9_ns: self.p99_9_ns.max(other.p99_9_ns),
            p99_99_ns: self.p99_99_ns.max(other.p99_99_ns),
            max_ns: self.max_ns.max(other.max_ns),
        }
    }
}

impl TrialResult {
    /// A trial that sent what it was asked to, without latency figures.
    pub fn lossy(intended_load: f64, duration_s: f64, loss_ratio: f64) -> TrialResult {
        TrialResult {
            intended_load,
            offered_load: intended_load,
            intended_duration_s: duration_s,
            duration_s,
            loss_ratio,
            latency: None,
            tester_limited: false,
        }
    }

    /// The loss ratio `goal` sees: the trial's, or total loss when the goal bounds latency and
    /// the trial's percentile is over the bound (or it has no latency at all).
    pub(crate) fn goal_loss_ratio(&self, goal: &SearchGoal) -> f64 {
        match (goal.latency, self.latency) {
            (None, _) => self.loss_ratio,
            (Some(b), Some(l)) if l.get(b.percentile) <= b.max_ns => self.loss_ratio,
            (Some(_), _) => 1.0,
        }
    }
}

/// How a load stands for a goal.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LoadClass {
    /// The goal is met at this load whatever further trials would show.
    LowerBound,
    /// The goal is missed at this load whatever further trials would show.
    UpperBound,
    /// More trials are needed.
    Undecided,
}

/// The four duration sums of the trials at one load, for one goal.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct LoadSums {
    /// Full-length low-loss trials (s).
    pub(crate) good_long: f64,
    /// Full-length high-loss trials (s).
    pub(crate) bad_long: f64,
    /// Short low-loss trials (s).
    pub(crate) good_short: f64,
    /// Short high-loss trials (s).
    pub(crate) bad_short: f64,
}

impl LoadSums {
    /// The sums of `trials` for `goal`.
    pub fn of<'t>(goal: &SearchGoal, trials: impl IntoIterator<Item = &'t TrialResult>) -> Self {
        let mut s = LoadSums::default();
        for t in trials {
            s.add(goal, t);
        }
        s
    }

    /// Adds one trial (none if the tester limited it).
    pub fn add(&mut self, goal: &SearchGoal, t: &TrialResult) {
        if t.tester_limited {
            return;
        }
        let long = t.intended_duration_s >= goal.final_trial_duration_s;
        let good = t.goal_loss_ratio(goal) <= goal.loss_ratio;
        let sum = match (long, good) {
            (true, true) => &mut self.good_long,
            (true, false) => &mut self.bad_long,
            (false, true) => &mut self.good_short,
            (false, false) => &mut self.bad_short,
        };
        *sum += t.duration_s;
    }

    /// The load's class for `goal` (see the module's documentation).
    pub fn classify(&self, goal: &SearchGoal) -> LoadClass {
        let er = goal.exceed_ratio;
        let balanced = self.good_short * er / (1.0 - er);
        let effective_bad = self.bad_long + (self.bad_short - balanced).max(0.0);
        let whole = (self.good_long + effective_bad).max(goal.duration_sum_s);
        let allowed = whole * er;
        let optimistic = effective_bad <= allowed;
        let pessimistic = whole - self.good_long <= allowed;
        match (optimistic, pessimistic) {
            (true, true) => LoadClass::LowerBound,
            (false, _) => LoadClass::UpperBound,
            (true, false) => LoadClass::Undecided,
        }
    }
}

/// The conditional throughput (pps) of the trials at one load for `goal`, or `None` without any
/// full-length trial. `trials` are that load's trials, short ones included (they are skipped,
/// as are those the tester limited). A trial over the goal's latency bound counts as total loss.
pub fn conditional_throughput(goal: &SearchGoal, trials: &[TrialResult]) -> Option<f64> {
    let mut long: Vec<(f64, f64)> = trials
        .iter()
        .filter(|t| !t.tester_limited && t.intended_duration_s >= goal.final_trial_duration_s)
        .map(|t| (t.goal_loss_ratio(goal), t.duration_s))
        .collect();
    let load = trials
        .iter()
        .find(|t| !t.tester_limited && t.intended_duration_s >= goal.final_trial_duration_s)?
        .intended_load;
    long.sort_by(|a, b| a.0.total_cmp(&b.0));
    let long_sum: f64 = long.iter().map(|t| t.1).sum();
    let mut remaining = long_sum.max(goal.duration_sum_s) * (1.0 - goal.exceed_ratio);
    let mut quantile = None;
    for &(loss, duration) in &long {
        if quantile.is_some() && remaining <= 0.0 {
            break;
        }
        quantile = Some(loss);
        remaining -= duration;
    }
    // Not enough full-length time to reach the quantile: the missing time counts as lost.
    let quantile = if remaining > 0.0 {
        1.0
    } else {
        quantile.unwrap_or(1.0)
    };
    Some(load * (1.0 - quantile))
}

#[cfg(test)]
mod tests;
