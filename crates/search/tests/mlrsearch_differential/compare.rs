//! Both sides' outcomes and their comparison.

use upfbench_search::{
    Ending, SearchGoal, TrialRequest, TrialResult, conditional_throughput, relevant_bounds,
};

use crate::upf::{Packets, Upf};
use crate::{MAX_LOAD, MIN_LOAD};

/// One goal's outcome, as either side reports it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Figures {
    pub(crate) lower: Option<f64>,
    pub(crate) upper: Option<f64>,
    pub(crate) conditional_throughput: Option<f64>,
}

impl Figures {
    /// How the goal ended, read from the bounds the way RFC 9971 states the irregular
    /// outcomes: no lower bound (Min Load is an upper bound), or Max Load a lower bound.
    pub(crate) fn ending(&self) -> Ending {
        match (self.lower, self.upper) {
            (None, Some(u)) if u <= MIN_LOAD => Ending::MinLoad,
            (Some(l), None) if l >= MAX_LOAD => Ending::MaxLoad,
            (Some(_), Some(_)) => Ending::Regular,
            _ => Ending::Incomplete,
        }
    }
}

/// A whole search's outcome.
#[derive(Debug)]
pub(crate) struct Side {
    /// Each goal's figures, in the case's order.
    pub(crate) goals: Vec<Figures>,
    /// How many trials.
    pub(crate) trials: usize,
    /// Their durations added.
    pub(crate) trial_seconds: f64,
    /// Every trial, in order.
    pub(crate) log: Vec<TrialResult>,
    /// Every trial's request and packets (MLRsearch's side only).
    pub(crate) counts: Vec<(TrialRequest, Packets)>,
}

fn pps(v: Option<f64>) -> String {
    v.map_or_else(|| "-".to_string(), |v| format!("{v:.1}"))
}

pub(crate) fn print_side(
    name: &str,
    goals: &[(&str, SearchGoal)],
    side: &Side,
    endings: &[Ending],
) {
    let goals: Vec<String> = goals
        .iter()
        .zip(&side.goals)
        .zip(endings)
        .map(|(((goal, _), f), e)| {
            format!(
                "{goal} {e:?} [{}, {}] ct {}",
                pps(f.lower),
                pps(f.upper),
                pps(f.conditional_throughput)
            )
        })
        .collect();
    println!(
        "    {name:<10} {} | {} trials, {} s",
        goals.join(" | "),
        side.trials,
        side.trial_seconds
    );
}

/// Each trial's load and loss, and how many trials its load had by then (`SEARCH_TRACE=1`).
pub(crate) fn print_trace(name: &str, log: &[TrialResult]) {
    println!("    {name} trials:");
    for (i, t) in log.iter().enumerate() {
        let at = log[..=i]
            .iter()
            .filter(|u| u.intended_load == t.intended_load)
            .count();
        println!(
            "      {:>3} {:>12.1} pps  loss {:.6}  (#{at} there)",
            i + 1,
            t.intended_load,
            t.loss_ratio
        );
    }
}

/// Our arithmetic of RFC 9971 (load classification, relevant bounds, conditional throughput)
/// on MLRsearch's own trials gives MLRsearch's figures: the differences between the two
/// searches are then only in the loads they chose. The errors, if any.
pub(crate) fn replay(goals: &[(&str, SearchGoal)], csit: &Side) -> Vec<String> {
    let mut errors = Vec::new();
    let close = |a: Option<f64>, b: Option<f64>| match (a, b) {
        (None, None) => true,
        (Some(a), Some(b)) => (a - b).abs() <= 1e-9 * a.abs().max(b.abs()),
        _ => false,
    };
    for ((name, goal), theirs) in goals.iter().zip(&csit.goals) {
        let b = relevant_bounds(goal, &csit.log);
        let at: Vec<TrialResult> = csit
            .log
            .iter()
            .filter(|t| Some(t.intended_load) == b.lower)
            .copied()
            .collect();
        let ct = b.lower.and_then(|_| conditional_throughput(goal, &at));
        let mine = Figures {
            lower: b.lower,
            upper: b.upper,
            conditional_throughput: ct,
        };
        if !(close(mine.lower, theirs.lower)
            && close(mine.upper, theirs.upper)
            && close(mine.conditional_throughput, theirs.conditional_throughput))
        {
            errors.push(format!(
                "{name}: our arithmetic on MLRsearch's {} trials gives {mine:?}, \
                 MLRsearch {theirs:?}",
                csit.log.len()
            ));
        }
    }
    if errors.is_empty() {
        println!(
            "    replay: our classification of MLRsearch's {} trials gives its bounds and \
             conditional throughputs",
            csit.log.len()
        );
    }
    errors
}

/// The script's UPF is ours: the same counts for each of its trials.
pub(crate) fn check_same_simulation(upf: Upf, csit: &Side) -> Result<(), String> {
    let mut same = upf.simulate();
    for (i, &(r, theirs)) in csit.counts.iter().enumerate() {
        let here = same(r);
        if here != theirs {
            return Err(format!(
                "the simulations differ at trial {i} ({r:?}): {here:?} here, {theirs:?} in \
                 the script"
            ));
        }
    }
    Ok(())
}

/// One goal's comparison: our ending against our bounds, the two endings, each side's bounds
/// within the goal's width, and the conditional throughputs within the width of each other.
pub(crate) fn compare_goal(
    name: &str,
    goal: &SearchGoal,
    (a, our_ending): (&Figures, &Ending),
    (b, csit_ending): (&Figures, &Ending),
    errors: &mut Vec<String>,
) {
    let w = goal.relative_width;
    // What our controller says of itself matches what its bounds say.
    if a.ending() != *our_ending {
        errors.push(format!(
            "{name}: our ending {:?}, our bounds say {:?}",
            our_ending,
            a.ending()
        ));
    }
    if our_ending != csit_ending {
        errors.push(format!(
            "{name}: ours ended {:?}, MLRsearch's {:?}",
            our_ending, csit_ending
        ));
        return;
    }
    for (side, f) in [("ours", a), ("MLRsearch's", b)] {
        if let (Some(l), Some(u)) = (f.lower, f.upper)
            && (u - l) / u > w
        {
            errors.push(format!(
                "{name}: {side} bounds [{l}, {u}] are wider than {w}"
            ));
        }
    }
    match (a.conditional_throughput, b.conditional_throughput) {
        (None, None) => {}
        (Some(x), Some(y)) => {
            let scale = match (a.upper, b.upper) {
                (Some(p), Some(q)) => p.max(q),
                _ => x.max(y),
            };
            let relative = (x - y).abs() / scale;
            println!(
                "    {name}: conditional throughputs differ by {:.4} % (width {} %)",
                relative * 100.0,
                w * 100.0
            );
            if relative > w {
                errors.push(format!(
                    "{name}: conditional throughput {x} (ours) vs {y} (MLRsearch): \
                     {relative:.5} of the upper bound apart, more than the width {w}"
                ));
            }
        }
        (x, y) => errors.push(format!(
            "{name}: conditional throughput {x:?} (ours) vs {y:?} (MLRsearch)"
        )),
    }
}
