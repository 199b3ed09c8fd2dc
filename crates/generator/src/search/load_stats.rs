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

use super::goal::SearchGoal;

/// One trial's result, as the search sees it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TrialResult {
    /// The load asked for (packets per second, both directions together when both run).
    pub intended_load: f64,
    /// The trial duration asked for (s): it decides full-length or short.
    pub intended_duration_s: f64,
    /// The time the trial took, overheads included (s): what the duration sums add.
    pub duration_s: f64,
    /// Packets lost over packets sent, 0 to 1.
    pub loss_ratio: f64,
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
    pub good_long: f64,
    /// Full-length high-loss trials (s).
    pub bad_long: f64,
    /// Short low-loss trials (s).
    pub good_short: f64,
    /// Short high-loss trials (s).
    pub bad_short: f64,
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

    /// Adds one trial.
    pub fn add(&mut self, goal: &SearchGoal, t: &TrialResult) {
        let long = t.intended_duration_s >= goal.final_trial_duration_s;
        let good = t.loss_ratio <= goal.loss_ratio;
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
/// full-length trial. `trials` are that load's trials, short ones included (they are skipped).
pub fn conditional_throughput(goal: &SearchGoal, trials: &[TrialResult]) -> Option<f64> {
    let mut long: Vec<&TrialResult> = trials
        .iter()
        .filter(|t| t.intended_duration_s >= goal.final_trial_duration_s)
        .collect();
    let load = long.first()?.intended_load;
    long.sort_by(|a, b| a.loss_ratio.total_cmp(&b.loss_ratio));
    let long_sum: f64 = long.iter().map(|t| t.duration_s).sum();
    let mut remaining = long_sum.max(goal.duration_sum_s) * (1.0 - goal.exceed_ratio);
    let mut quantile = None;
    for t in &long {
        if quantile.is_some() && remaining <= 0.0 {
            break;
        }
        quantile = Some(t.loss_ratio);
        remaining -= t.duration_s;
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
