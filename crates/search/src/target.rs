//! The targets a goal is reached through: coarse ones first, each twice as wide as the next and
//! decided by shorter trials, then the goal itself (RFC 9971 leaves the way to the bounds to
//! the implementation; CSIT's MLRsearch calls these preceding targets).
//!
//! A coarse target is decided by one trial at a load (its duration sum is its trial duration),
//! so it moves fast; the goal's own target needs the goal's whole duration sum at its two
//! bounds, and starts from the coarse target's bounds, so that it measures long only near the
//! answer.

use super::goal::SearchGoal;

/// The targets of `goal`, coarsest first, the goal itself last: `preceding` coarse targets of
/// width `2^k × goal width` (at most 0.5) whose trial durations go geometrically from the
/// goal's initial trial duration to its final one.
pub(crate) fn targets(goal: &SearchGoal, preceding: u32) -> Vec<SearchGoal> {
    let mut out = Vec::new();
    for k in (1..=preceding).rev() {
        let width = (goal.relative_width * f64::from(1u32 << (k - 1).min(16))).min(0.5);
        // k = preceding: the initial duration; k = 1: the final one.
        let share = if preceding > 1 {
            f64::from(preceding - k) / f64::from(preceding - 1)
        } else {
            1.0
        };
        let duration = goal.initial_trial_duration_s
            * (goal.final_trial_duration_s / goal.initial_trial_duration_s).powf(share);
        out.push(SearchGoal {
            relative_width: width,
            initial_trial_duration_s: duration,
            final_trial_duration_s: duration,
            duration_sum_s: duration,
            ..*goal
        });
    }
    out.push(*goal);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn coarse_targets_widen_and_shorten_towards_the_start() {
        let goal = SearchGoal {
            initial_trial_duration_s: 0.25,
            final_trial_duration_s: 4.0,
            ..SearchGoal::PDR
        };
        let t = targets(&goal, 2);
        assert_eq!(t.len(), 3);
        assert_eq!(t[2], goal);
        // The finest coarse target has the goal's width and final trial duration: its single
        // trials count towards the goal's own sums, at the loads it will decide.
        assert_eq!(
            t.iter().map(|t| t.relative_width).collect::<Vec<_>>(),
            [0.01, 0.005, 0.005]
        );
        assert_eq!(
            t.iter()
                .map(|t| t.final_trial_duration_s)
                .collect::<Vec<_>>(),
            [0.25, 4.0, 4.0]
        );
        let three = targets(&goal, 3);
        assert_eq!(
            three.iter().map(|t| t.relative_width).collect::<Vec<_>>(),
            [0.02, 0.01, 0.005, 0.005]
        );
        assert_eq!(
            three
                .iter()
                .map(|t| t.final_trial_duration_s)
                .collect::<Vec<_>>(),
            [0.25, 1.0, 4.0, 4.0]
        );
        // One trial decides a coarse target.
        assert_eq!(t[0].duration_sum_s, 0.25);
        assert_eq!(t[0].loss_ratio, goal.loss_ratio);
        assert_eq!(targets(&goal, 0), [goal]);
    }
}
