//! A search goal (RFC 9971): what counts as a lower bound, how long to measure it, and how
//! close the bounds must come.

use thiserror::Error;

/// One search goal. The defaults follow FD.io CSIT's: trials of 1 s at the end, 21 s of them
/// at a load before it is decided, half of that time allowed to exceed the loss ratio, and
/// bounds 0.5 % apart.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SearchGoal {
    /// The highest loss ratio of a low-loss trial (0 for NDR, 0.005 for PDR).
    pub loss_ratio: f64,
    /// The share of the duration sum that may exceed the loss ratio at a lower bound, below 1.
    pub exceed_ratio: f64,
    /// How far apart (relative to the upper bound) the relevant bounds may end.
    pub relative_width: f64,
    /// The duration of the first, shortest trials (s).
    pub initial_trial_duration_s: f64,
    /// Trials at least this long are full-length (s).
    pub final_trial_duration_s: f64,
    /// The time of trials a load needs before it is decided (s).
    pub duration_sum_s: f64,
    /// A latency percentile a low-loss trial must also keep under, if any (TRex's ndr_bench
    /// has it): a trial above it counts as if it had lost everything.
    pub latency: Option<LatencyBound>,
}

/// A bound on one percentile of a trial's one-way latency (the worst direction's).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LatencyBound {
    /// Which percentile.
    pub percentile: Percentile,
    /// Its largest value (ns).
    pub max_ns: u64,
}

/// The latency percentiles a trial reports and a bound may name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Percentile {
    /// 50 %.
    P50,
    /// 90 %.
    P90,
    /// 99 %.
    P99,
    /// 99.9 %.
    P99_9,
    /// 99.99 %.
    P99_99,
    /// The largest.
    Max,
}

impl Percentile {
    /// The percentile as a number (100 for the maximum).
    pub fn value(self) -> f64 {
        match self {
            Percentile::P50 => 50.0,
            Percentile::P90 => 90.0,
            Percentile::P99 => 99.0,
            Percentile::P99_9 => 99.9,
            Percentile::P99_99 => 99.99,
            Percentile::Max => 100.0,
        }
    }

    /// The percentile given as a number, if it is one of those a trial reports.
    pub fn from_value(v: f64) -> Option<Percentile> {
        [
            Percentile::P50,
            Percentile::P90,
            Percentile::P99,
            Percentile::P99_9,
            Percentile::P99_99,
            Percentile::Max,
        ]
        .into_iter()
        .find(|p| (p.value() - v).abs() < 1e-9)
    }
}

impl SearchGoal {
    /// The non-drop rate: no loss at all.
    pub const NDR: SearchGoal = SearchGoal {
        loss_ratio: 0.0,
        exceed_ratio: 0.5,
        relative_width: 0.005,
        initial_trial_duration_s: 1.0,
        final_trial_duration_s: 1.0,
        duration_sum_s: 21.0,
        latency: None,
    };

    /// The partial drop rate: at most 0.5 % lost.
    pub const PDR: SearchGoal = SearchGoal {
        loss_ratio: 0.005,
        ..SearchGoal::NDR
    };

    /// Checks the values against their ranges.
    pub fn check(&self) -> Result<(), GoalError> {
        let in_range = |ok: bool, field: &'static str, value: f64| {
            if ok {
                Ok(())
            } else {
                Err(GoalError { field, value })
            }
        };
        in_range(
            (0.0..1.0).contains(&self.loss_ratio),
            "loss_ratio",
            self.loss_ratio,
        )?;
        in_range(
            (0.0..1.0).contains(&self.exceed_ratio),
            "exceed_ratio",
            self.exceed_ratio,
        )?;
        in_range(
            self.relative_width > 0.0 && self.relative_width < 1.0,
            "relative_width",
            self.relative_width,
        )?;
        in_range(
            self.initial_trial_duration_s > 0.0
                && self.initial_trial_duration_s <= self.final_trial_duration_s,
            "initial_trial_duration",
            self.initial_trial_duration_s,
        )?;
        in_range(
            self.duration_sum_s >= self.final_trial_duration_s,
            "duration_sum",
            self.duration_sum_s,
        )
    }
}

/// A goal's value out of its range.
#[derive(Debug, Clone, Copy, PartialEq, Error)]
#[error("search goal: {field} {value} is out of range")]
pub struct GoalError {
    /// The field.
    pub field: &'static str,
    /// Its value.
    pub value: f64,
}
