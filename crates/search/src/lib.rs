//! The throughput search of RFC 9971 (MLRsearch), sans-IO: the goals, what the trials at a
//! load say for a goal (`load_stats`), the relevant bounds over all loads measured
//! ([`relevant_bounds`]), and the controller that chooses the next trial (`controller`).
//! `upfbench search` drives it with trials over the run machine (the generator crate).
#![forbid(unsafe_code)]

mod controller;
mod goal;
mod load_stats;
mod target;

pub use controller::{
    ConfigError, Ending, GoalOutcome, Search, SearchConfig, Strategy, TrialRequest,
};
pub use goal::{GoalError, LatencyBound, Percentile, SearchGoal};
pub use load_stats::{LatencyPoints, LoadClass, LoadSums, TrialResult, conditional_throughput};

/// A goal's relevant bounds among the loads measured (pps).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RelevantBounds {
    /// The largest lower bound below the relevant upper bound, if any.
    pub lower: Option<f64>,
    /// The smallest upper bound, if any.
    pub upper: Option<f64>,
}

/// The relevant bounds of `goal` given every trial measured so far (at any loads): the smallest
/// load classified as an upper bound, and the largest load below it classified as a lower
/// bound.
pub fn relevant_bounds(goal: &SearchGoal, trials: &[TrialResult]) -> RelevantBounds {
    let mut loads: Vec<f64> = trials.iter().map(|t| t.intended_load).collect();
    loads.sort_by(f64::total_cmp);
    loads.dedup();
    let class = |load: f64| {
        LoadSums::of(goal, trials.iter().filter(|t| t.intended_load == load)).classify(goal)
    };
    let upper = loads
        .iter()
        .copied()
        .find(|&l| class(l) == LoadClass::UpperBound);
    let lower = loads
        .iter()
        .rev()
        .copied()
        .filter(|&l| upper.is_none_or(|u| l < u))
        .find(|&l| class(l) == LoadClass::LowerBound);
    RelevantBounds { lower, upper }
}
