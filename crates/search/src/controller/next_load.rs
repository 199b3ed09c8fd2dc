//! How a target chooses its next load once nothing needs measuring again (the module
//! documentation of the controller says why).

use super::{Ending, Need, Search, Side, TESTER_SHORTFALLS, Target};
use crate::goal::SearchGoal;

/// A target's steps away from a bound: a hair under its width, growing by the expansion with
/// each further decision on the same side.
struct Steps {
    width: f64,
    expansion: f64,
    streak: Option<(Side, u32)>,
}

impl Steps {
    fn of(target: &Target, expansion: f64) -> Steps {
        Steps {
            width: target.goal.relative_width,
            expansion,
            streak: target.streak,
        }
    }

    /// The `n`-th step (relative): a hair under the width at first, so that a bound one
    /// step from the other is within the width after rounding too.
    fn step(&self, n: u32) -> f64 {
        self.width * (1.0 - 1e-9) * self.expansion.powi(n as i32)
    }

    /// Decisions on `side` in a row, less one (0 after the first, or when the last decision
    /// was on the other side).
    fn streak(&self, side: Side) -> u32 {
        match self.streak {
            Some((s, n)) if s == side => n,
            _ => 0,
        }
    }

    /// Decisions on `side` in a row.
    fn in_a_row(&self, side: Side) -> u32 {
        match self.streak {
            Some((s, n)) if s == side => n + 1,
            _ => 0,
        }
    }

    /// The step after the streak on `side`.
    fn next(&self, side: Side) -> f64 {
        self.step(self.streak(side))
    }
}

impl Search {
    /// What a target needs next, MLRsearch's way, once nothing needs measuring again.
    pub(super) fn need_mlr(
        &self,
        goal: usize,
        level: usize,
        lower: Option<f64>,
        upper: Option<f64>,
        ceiling: Option<f64>,
    ) -> Need {
        let target = &self.targets[goal][level];
        let g = &target.goal;
        let steps = Steps::of(target, self.config.expansion);
        match (lower, upper) {
            (Some(l), Some(u)) => self.between(g, &steps, l, u),
            (Some(l), None) => self.above(g, &steps, l, ceiling),
            (None, Some(u)) => self.below(g, &steps, u),
            (None, None) => self.under_the_tester(g, ceiling),
        }
    }

    /// Both bounds: done within the width, else a load between them.
    fn between(&self, g: &SearchGoal, steps: &Steps, l: f64, u: f64) -> Need {
        let w = g.relative_width;
        if (u - l) / u <= w {
            return Need::Done(Ending::Regular);
        }
        // The middle on a log scale: the width is relative, and the bounds may be decades
        // apart after a trial at Max Load lost nearly everything.
        let middle = (l * u).sqrt();
        // Where the packets that got through at the upper bound say the goal's load is: there
        // when that is between the bounds (one trial often decides it); when it is at the
        // lower bound (which held), one step above it, once; when at the upper bound, one step
        // below it, likewise. No further than the middle.
        let next = match self.hint(g, u) {
            // Not after two upper bounds in a row: on a soft knee the forwarding rate
            // overestimates, and following it creeps down.
            Some(h)
                if h > l / (1.0 - w / 2.0)
                    && h < u * (1.0 - w / 2.0)
                    && steps.in_a_row(Side::Upper) < 2 =>
            {
                h
            }
            Some(h) if h <= l / (1.0 - w / 2.0) && steps.streak(Side::Lower) == 0 => {
                (l / (1.0 - steps.step(0))).min(middle)
            }
            Some(h) if h >= u * (1.0 - w / 2.0) && steps.streak(Side::Upper) == 0 => {
                (u * (1.0 - steps.step(0))).max(middle)
            }
            _ => middle,
        };
        Need::Measure(next)
    }

    /// A lower bound only: up from it, or towards the tester's limit.
    fn above(&self, g: &SearchGoal, steps: &Steps, l: f64, ceiling: Option<f64>) -> Need {
        let w = g.relative_width;
        let max = self.config.max_load;
        match ceiling {
            Some(c) if (c - l) / c <= w => return Need::Done(Ending::TesterLimited),
            _ if l >= max => return Need::Done(Ending::MaxLoad),
            _ => {}
        }
        if let Some(c) = ceiling {
            // Towards the tester's limit: halfway on a log scale; no further than the tester
            // did send there when that is above the bound (else it was a stall, not a limit),
            // or one width above the bound to find out; and as close under the limit as the
            // width asks at most: a lower bound there ends the goal.
            let sent = self.best_sent_at(c);
            let mut next = (l * c).sqrt();
            if sent > l {
                next = next.min(sent.max(l / (1.0 - w)));
            }
            return Need::Measure(next.min(c * (1.0 - w / 2.0)));
        }
        let step = steps.next(Side::Lower);
        let next = if step < 1.0 {
            (l / (1.0 - step)).min(max)
        } else {
            max
        };
        Need::Measure(next)
    }

    /// An upper bound only: down from it, to where its packets say, or halfway on a log scale
    /// when none got through.
    fn below(&self, g: &SearchGoal, steps: &Steps, u: f64) -> Need {
        let min = self.config.min_load;
        if u <= min {
            return Need::Done(Ending::MinLoad);
        }
        let step = steps.next(Side::Upper);
        let stepped = if step < 1.0 { u * (1.0 - step) } else { min };
        let next = match self.hint(g, u) {
            // Where the packets that got through say the goal's load is, when that is further
            // than the step.
            Some(h) => h.min(stepped),
            // Nothing got through (or the trial failed on latency): the middle on a log scale
            // down to Min Load, not a crawl.
            None => (min * u).sqrt().min(stepped),
        };
        Need::Measure(next.max(min))
    }

    /// Nothing decided: Max Load, or under the tester's limit (the first trial was at it).
    fn under_the_tester(&self, g: &SearchGoal, ceiling: Option<f64>) -> Need {
        let (min, max) = (self.config.min_load, self.config.max_load);
        let Some(c) = ceiling else {
            return Need::Measure(max);
        };
        // Under the tester's limit, further each time the tester falls short again (a host
        // that stalls it now and then does not make the search crawl down).
        let limits = self.trials.iter().filter(|t| t.tester_limited).count() / TESTER_SHORTFALLS;
        let w = g.relative_width;
        let step = w * self
            .config
            .expansion
            .powi(limits.saturating_sub(1).min(30) as i32);
        // And no higher than the best the tester did send at its limit.
        let sent = self.best_sent_at(c);
        let next = if step < 1.0 { c * (1.0 - step) } else { min }
            .min(sent * (1.0 - w))
            .max(min);
        if next >= c {
            // Not even Min Load could be sent.
            return Need::Done(Ending::TesterLimited);
        }
        Need::Measure(next)
    }

    /// The most the tester sent in the trials it fell short in at `load` (pps).
    fn best_sent_at(&self, load: f64) -> f64 {
        self.trials
            .iter()
            .filter(|t| t.tester_limited && t.intended_load == load)
            .map(|t| t.offered_load)
            .fold(0.0, f64::max)
    }

    /// Where the newest trial at upper bound `load` says `goal`'s load is (pps): its
    /// forwarding rate (the load less its loss), raised to the load that would lose the goal's
    /// loss ratio at that rate. `None` when nothing got through, or when the trial failed on
    /// latency rather than loss (its forwarding rate says nothing of that).
    fn hint(&self, goal: &SearchGoal, load: f64) -> Option<f64> {
        let t = self
            .trials
            .iter()
            .rev()
            .find(|t| t.intended_load == load && !t.tester_limited)?;
        if t.goal_loss_ratio(goal) > t.loss_ratio {
            return None;
        }
        let forwarded = load * (1.0 - t.loss_ratio);
        // With a loss ratio above zero, half a width under where the loss would cross it: a
        // load right at the crossing meets the ratio in some trials and misses it in others
        // (deciding it may take the whole duration sum), and one step of the width up from
        // there brackets the crossing from half a width above.
        let below = if goal.loss_ratio > 0.0 {
            1.0 - goal.relative_width / 2.0
        } else {
            1.0
        };
        (forwarded > 0.0).then(|| forwarded / (1.0 - goal.loss_ratio) * below)
    }
}
