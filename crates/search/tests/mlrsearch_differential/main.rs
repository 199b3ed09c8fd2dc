//! Differential test of the search: our controller (`upfbench_search`) and CSIT's own
//! implementation, the `MLRsearch` package 1.2.1 from PyPI (`support/mlrsearch_sim.py`), run
//! against the same simulated UPF with the same goals, give the same conditional throughput
//! within each goal's width, agree on the irregular endings (no lower bound above Min Load, a
//! lower bound at Max Load), and ours takes no more trials than MLRsearch in any case.
//!
//! The UPFs (`upf`) are deterministic functions of load and duration in whole packets, the same
//! here as in the script (its docstring has the formulas; the test checks that every trial of
//! the script's counts the same here): sharp capacities at several points of the load range and
//! beyond both ends of it, soft knees whose loss grows smoothly above them, knees whose loss
//! also varies from trial to trial (seeded noise, the same sequence on both sides), a constant
//! loss of 1 in 1,000, and UPFs whose latency, not their loss, limits a goal with a latency
//! bound. Most cases search CSIT's NDR and PDR at CSIT's defaults (loss ratio 0 and 0.5 %,
//! exceed ratio 0.5, width 0.5 %, 1 s trials, 21 s duration sum); some search three or four
//! goals at once, of other widths, loss ratios and duration sums.
//!
//! The two searches choose their loads differently (RFC 9971 leaves that to the
//! implementation; MLRsearch also rounds loads to a logarithmic grid), so their bounds differ;
//! both bracket the same limit within the width, so their conditional throughputs may differ
//! by at most the width of the larger upper bound. What does not depend on the loads chosen
//! must be the same: our classification of MLRsearch's own trials (the four duration sums, the
//! relevant bounds, the conditional throughput's quantile) gives MLRsearch's figures.
//! `SEARCH_TRACE=1` prints both sides' trials.
//!
//! The Python interpreter is `$UPFBENCH_PYTHON`, else the virtual environment that `make test`
//! makes (`target/mlrsearch`, deploy/mlrsearch-venv.sh), else `python3`. Without MLRsearch
//! 1.2.1 the test says so and skips, except under CI (`CI` set), where it fails: CI installs
//! it. A `harness = false` binary, so that both sides' figures are printed on every run; its
//! runner is upfbench-testkit's, which prints the outcome the way libtest does.
#![allow(clippy::print_stdout)]

mod compare;
mod csit;
mod upf;

use std::process::ExitCode;

use upfbench_search::{
    Ending, GoalOutcome, LatencyBound, Percentile, Search, SearchConfig, SearchGoal,
};
use upfbench_testkit::runner::{Outcome, Runner};

use compare::{
    Figures, Side, check_same_simulation, compare_goal, print_side, print_trace, replay,
};
use csit::{Unavailable, csit, python};
use upf::{LATENCY_HIGH_NS, LATENCY_LOW_NS, Upf, counted};

const MIN_LOAD: f64 = 10_000.0;
const MAX_LOAD: f64 = 10_000_000.0;

/// One case: a UPF and the goals searched on it.
#[derive(Debug, Clone)]
struct Case {
    upf: Upf,
    goals: Vec<(&'static str, SearchGoal)>,
    /// A noisy UPF's seeds: the case is searched once per seed, and the trials are compared
    /// over them all (which loads land where the goal's loss ratio is crossed now and then,
    /// and so take up to the whole duration sum to decide, is luck for either search at one
    /// seed). Empty: the UPF as it is, compared on its own.
    seeds: Vec<u64>,
}

fn ours(case: &Case) -> (Side, Vec<GoalOutcome>) {
    let goals = case.goals.iter().map(|(_, g)| *g).collect();
    let mut s = Search::new(SearchConfig::new(goals, MIN_LOAD, MAX_LOAD)).expect("valid config");
    let mut upf = case.upf.simulate();
    while let Some(r) = s.poll_trial() {
        assert!(s.trials().len() < 2_000, "our search does not end");
        let packets = upf(r);
        s.handle_trial(counted(r, packets));
    }
    let outcomes = s.outcomes();
    let side = Side {
        goals: outcomes
            .iter()
            .map(|o| Figures {
                lower: o.bounds.lower,
                upper: o.bounds.upper,
                conditional_throughput: o.conditional_throughput,
            })
            .collect(),
        trials: s.trials().len(),
        trial_seconds: s.trials().iter().map(|t| t.duration_s).sum(),
        log: s.trials().to_vec(),
        counts: Vec::new(),
    };
    (side, outcomes)
}

/// Runs `case`, each of its seeds in turn, and compares the trials: ours no more than
/// MLRsearch's. `Ok(false)` when CSIT's side was skipped.
fn run_case(case: &Case) -> Result<bool, String> {
    let runs: Vec<Case> = if case.seeds.is_empty() {
        vec![case.clone()]
    } else {
        case.seeds
            .iter()
            .map(|&seed| Case {
                upf: case.upf.with_seed(seed),
                ..case.clone()
            })
            .collect()
    };
    let (mut mine, mut theirs) = (0, 0);
    let mut errors = Vec::new();
    for run in &runs {
        if runs.len() > 1 {
            println!("  {:?}", run.upf);
        }
        match compare_once(run) {
            Ok(Some((a, b))) => (mine, theirs) = (mine + a, theirs + b),
            Ok(None) => return Ok(false),
            Err(e) => errors.push(e),
        }
    }
    println!(
        "    trials{}: {mine} ours, {theirs} MLRsearch's ({:+})",
        if runs.len() > 1 {
            " over the seeds"
        } else {
            ""
        },
        mine as i64 - theirs as i64
    );
    if mine > theirs {
        errors.push(format!(
            "our search took {mine} trials, MLRsearch's {theirs}"
        ));
    }
    if errors.is_empty() {
        Ok(true)
    } else {
        Err(errors.join("; "))
    }
}

/// Runs both sides on `case` and compares their outcomes; the trials each took, or `None`
/// when CSIT's side was skipped.
fn compare_once(case: &Case) -> Result<Option<(usize, usize)>, String> {
    let (ours, outcomes) = ours(case);
    let our_endings: Vec<Ending> = outcomes.iter().map(|o| o.ending).collect();
    let goals: Vec<SearchGoal> = case.goals.iter().map(|(_, g)| *g).collect();
    let csit = match csit(case.upf, &goals) {
        Ok(side) => side,
        Err(Unavailable(why)) => {
            print_side("upfbench", &case.goals, &ours, &our_endings);
            if std::env::var_os("CI").is_some_and(|v| !v.is_empty()) {
                return Err(format!(
                    "CSIT's MLRsearch 1.2.1 is needed under CI (make test installs it: \
                     deploy/mlrsearch-venv.sh): {why}"
                ));
            }
            println!("    SKIPPED the comparison: CSIT's MLRsearch 1.2.1 is not available: {why}");
            println!("    (install it: bash deploy/mlrsearch-venv.sh)");
            return Ok(None);
        }
    };
    let csit_endings: Vec<Ending> = csit.goals.iter().map(Figures::ending).collect();
    print_side("upfbench", &case.goals, &ours, &our_endings);
    print_side("MLRsearch", &case.goals, &csit, &csit_endings);
    if std::env::var_os("SEARCH_TRACE").is_some() {
        print_trace("upfbench", &ours.log);
        print_trace("MLRsearch", &csit.log);
    }
    check_same_simulation(case.upf, &csit)?;
    let mut errors = replay(&case.goals, &csit);
    for (i, (name, goal)) in case.goals.iter().enumerate() {
        compare_goal(
            name,
            goal,
            (&ours.goals[i], &our_endings[i]),
            (&csit.goals[i], &csit_endings[i]),
            &mut errors,
        );
    }
    if errors.is_empty() {
        Ok(Some((ours.trials, csit.trials)))
    } else {
        Err(errors.join("; "))
    }
}

/// CSIT's NDR and PDR.
fn ndr_pdr() -> Vec<(&'static str, SearchGoal)> {
    vec![("NDR", SearchGoal::NDR), ("PDR", SearchGoal::PDR)]
}

/// Four goals at once: NDR and PDR, a 1 % loss ratio at a 1 % width, and a 0.1 % loss ratio
/// decided by 5 s of trials of which a fifth may exceed it.
fn four_goals() -> Vec<(&'static str, SearchGoal)> {
    let mut goals = ndr_pdr();
    goals.push((
        "1%",
        SearchGoal {
            loss_ratio: 0.01,
            relative_width: 0.01,
            ..SearchGoal::PDR
        },
    ));
    goals.push((
        "0.1%/5s",
        SearchGoal {
            loss_ratio: 0.001,
            exceed_ratio: 0.2,
            duration_sum_s: 5.0,
            ..SearchGoal::PDR
        },
    ));
    goals
}

/// NDR and PDR whose trials must also keep their 99th percentile of latency under 100 µs.
fn latency_bounded() -> Vec<(&'static str, SearchGoal)> {
    let bound = Some(LatencyBound {
        percentile: Percentile::P99,
        max_ns: 100_000,
    });
    const { assert!(LATENCY_LOW_NS < 100_000 && 100_000 < LATENCY_HIGH_NS) };
    vec![
        (
            "NDR+lat",
            SearchGoal {
                latency: bound,
                ..SearchGoal::NDR
            },
        ),
        (
            "PDR+lat",
            SearchGoal {
                latency: bound,
                ..SearchGoal::PDR
            },
        ),
    ]
}

/// NDR and PDR on each kind of UPF.
fn ndr_pdr_cases() -> Vec<(&'static str, Case)> {
    let sharp = |capacity: f64| Upf::Sharp { capacity };
    let soft = |knee: f64, steepness: f64| Upf::Soft { knee, steepness };
    let noisy = |knee: f64, steepness: f64, spread: f64, seed: u64| Upf::Noisy {
        knee,
        steepness,
        spread,
        seed,
    };
    let of = |upf: Upf| Case {
        upf,
        goals: ndr_pdr(),
        seeds: Vec::new(),
    };
    let seeds = |upf: Upf| Case {
        seeds: (0..8).map(|i| 2 * i + 1).collect(),
        ..of(upf)
    };
    vec![
        ("sharp_below_min_load", of(sharp(5_000.0))),
        ("sharp_25_kpps", of(sharp(25_000.0))),
        ("sharp_77_777_pps", of(sharp(77_777.0))),
        ("sharp_333_333_pps", of(sharp(333_333.0))),
        ("sharp_400_060_pps", of(sharp(400_060.0))),
        ("sharp_1_234_567_pps", of(sharp(1_234_567.0))),
        ("sharp_3_456_789_pps", of(sharp(3_456_789.0))),
        ("sharp_5_555_555_pps", of(sharp(5_555_555.0))),
        ("sharp_9_876_543_pps", of(sharp(9_876_543.0))),
        ("sharp_above_max_load", of(sharp(20_000_000.0))),
        ("soft_knee_500_kpps", of(soft(500_000.0, 10.0))),
        ("soft_knee_2_mpps", of(soft(2_000_000.0, 2.0))),
        ("soft_knee_6_mpps_steep", of(soft(6_000_000.0, 50.0))),
        ("soft_knee_8_mpps_gentle", of(soft(8_000_000.0, 1.0))),
        ("noisy_knee_2_mpps", seeds(noisy(2_000_000.0, 2.0, 0.2, 0))),
        ("noisy_knee_700_kpps", seeds(noisy(700_000.0, 5.0, 0.3, 0))),
        (
            "noisy_knee_6_mpps_steep",
            seeds(noisy(6_000_000.0, 50.0, 0.3, 0)),
        ),
        (
            "constant_loss_1_in_1000",
            of(Upf::ConstantLoss { ratio: 0.001 }),
        ),
    ]
}

/// Goals with a latency bound, and four goals at once.
fn other_goals_cases() -> Vec<(&'static str, Case)> {
    let latency = |capacity: f64, latency_knee: f64| Upf::LatencyLimited {
        capacity,
        latency_knee,
    };
    let sharp = |capacity: f64| Upf::Sharp { capacity };
    let soft = |knee: f64, steepness: f64| Upf::Soft { knee, steepness };
    let noisy = |knee: f64, steepness: f64, spread: f64, seed: u64| Upf::Noisy {
        knee,
        steepness,
        spread,
        seed,
    };
    vec![
        (
            "latency_limits_below_loss",
            Case {
                upf: latency(5_000_000.0, 3_000_000.0),
                goals: latency_bounded(),
                seeds: Vec::new(),
            },
        ),
        (
            "loss_limits_below_latency",
            Case {
                upf: latency(2_000_000.0, 4_000_000.0),
                goals: latency_bounded(),
                seeds: Vec::new(),
            },
        ),
        (
            "four_goals_sharp_3_456_789_pps",
            Case {
                upf: sharp(3_456_789.0),
                goals: four_goals(),
                seeds: Vec::new(),
            },
        ),
        (
            "four_goals_soft_knee_2_mpps",
            Case {
                upf: soft(2_000_000.0, 2.0),
                goals: four_goals(),
                seeds: Vec::new(),
            },
        ),
        (
            "four_goals_noisy_knee_2_mpps",
            Case {
                upf: noisy(2_000_000.0, 2.0, 0.2, 0),
                goals: four_goals(),
                seeds: (0..8).map(|i| 2 * i + 1).collect(),
            },
        ),
    ]
}

fn cases() -> Vec<(&'static str, Case)> {
    let mut cases = ndr_pdr_cases();
    cases.extend(other_goals_cases());
    cases
}

fn main() -> ExitCode {
    // Each case prints its name before both sides' figures.
    let runner = Runner::new(cases().into_iter().map(|(name, case)| (name, (name, case))));
    if runner.needs_setup() {
        println!(
            "upfbench's search vs CSIT's MLRsearch 1.2.1 ({}), loads {MIN_LOAD} to {MAX_LOAD} \
             pps; [lower, upper] bounds and conditional throughput (ct) in pps",
            python().display()
        );
    }
    runner.run(|(name, case)| {
        println!("{name}: {:?}", case.upf);
        match run_case(case) {
            Ok(true) => Outcome::Passed,
            Ok(false) => Outcome::Ignored("MLRsearch 1.2.1 is not available".into()),
            Err(e) => Outcome::Failed(e),
        }
    })
}
