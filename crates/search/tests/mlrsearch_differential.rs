//! Differential test of the search (issue 17): our controller (`upfbench_search`)
//! and CSIT's own implementation, the `MLRsearch` package 1.2.1 from PyPI
//! (`support/mlrsearch_sim.py`), run against the same simulated UPF, give the same conditional
//! throughput within the goal's width, for NDR and PDR at CSIT's defaults (loss ratio 0 and
//! 0.5 %, exceed ratio 0.5, width 0.5 %, 1 s trials, 21 s duration sum), and agree on the
//! irregular endings: no lower bound above Min Load, a lower bound at Max Load.
//!
//! The UPFs are deterministic functions of load and duration in whole packets, the same here
//! as in the script (its docstring has the formulas; the test checks that every trial of the
//! script's counts the same here): a sharp capacity at several points of the load range and
//! beyond both ends of it, two soft knees whose loss grows smoothly above them, one whose loss
//! also varies from trial to trial (seeded noise, the same sequence on both sides), and a
//! constant loss of 1 in 1,000.
//!
//! The two searches choose their loads differently (RFC 9971 leaves that to the
//! implementation; MLRsearch also rounds loads to a logarithmic grid), so their bounds differ;
//! both bracket the same limit within the width, so their conditional throughputs may differ
//! by at most the width of the larger upper bound. What does not depend on the loads chosen
//! must be the same: our classification of MLRsearch's own trials (the four duration sums, the
//! relevant bounds, the conditional throughput's quantile) gives MLRsearch's figures.
//!
//! The Python interpreter is `$UPFBENCH_PYTHON`, else the virtual environment that `make test`
//! makes (`target/mlrsearch`, deploy/mlrsearch-venv.sh), else `python3`. Without MLRsearch
//! 1.2.1 the test says so and skips, except under CI (`CI` set), where it fails: CI installs
//! it. A `harness = false` binary, so that both sides' figures are printed on every run; its
//! runner is upfbench-testkit's, which prints the outcome the way libtest does.
#![allow(clippy::print_stdout)]

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode, Stdio};

use serde_json::{Value, json};
use upfbench_search::{
    Ending, GoalOutcome, Search, SearchConfig, SearchGoal, TrialRequest, TrialResult,
    conditional_throughput, relevant_bounds,
};
use upfbench_testkit::runner::{Outcome, Runner};

const MIN_LOAD: f64 = 10_000.0;
const MAX_LOAD: f64 = 10_000_000.0;
const GOALS: [(&str, SearchGoal); 2] = [("NDR", SearchGoal::NDR), ("PDR", SearchGoal::PDR)];

/// A simulated UPF: what it loses of a trial, in whole packets.
#[derive(Debug, Clone, Copy)]
enum Upf {
    /// Forwards up to `capacity` pps, drops the rest.
    Sharp { capacity: f64 },
    /// Loses `steepness × (load / knee − 1)²` of the packets above the knee (at most all).
    Soft { knee: f64, steepness: f64 },
    /// As `Soft`, the loss times `1 + spread × (u − 0.5)`, u drawn for each trial in turn:
    /// the trials at one load differ, so a load's class and its conditional throughput's
    /// quantile depend on the mix.
    Noisy {
        knee: f64,
        steepness: f64,
        spread: f64,
        seed: u64,
    },
    /// Loses `ratio` of the packets at any load.
    ConstantLoss { ratio: f64 },
}

/// xorshift64*, the script's `Noise`: units in [0, 1).
struct Noise(u64);

impl Noise {
    fn unit(&mut self) -> f64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        (self.0.wrapping_mul(0x2545_f491_4f6c_dd1d) >> 11) as f64 / (1u64 << 53) as f64
    }
}

impl Upf {
    fn spec(self) -> Value {
        match self {
            Upf::Sharp { capacity } => json!({"kind": "sharp", "capacity": capacity}),
            Upf::Soft { knee, steepness } => {
                json!({"kind": "soft", "knee": knee, "steepness": steepness})
            }
            Upf::Noisy {
                knee,
                steepness,
                spread,
                seed,
            } => json!({
                "kind": "noisy", "knee": knee, "steepness": steepness, "spread": spread,
                "seed": seed,
            }),
            Upf::ConstantLoss { ratio } => json!({"kind": "constant_loss", "ratio": ratio}),
        }
    }

    /// The UPF over a search: each trial's packets sent and lost, as the script's measurer
    /// computes them (same operations in the same order, the same noise sequence).
    fn simulate(self) -> impl FnMut(TrialRequest) -> (u64, u64) {
        let mut noise = Noise(match self {
            Upf::Noisy { seed, .. } => seed | 1,
            _ => 1,
        });
        move |r| {
            let sent = (r.load * r.duration_s + 0.5).floor() as u64;
            let soft = |knee: f64, steepness: f64, factor: f64| {
                let excess = r.load / knee - 1.0;
                let ratio = if excess > 0.0 {
                    (steepness * excess * excess * factor).min(1.0)
                } else {
                    0.0
                };
                (sent as f64 * ratio).ceil() as u64
            };
            let lost = match self {
                Upf::Sharp { capacity } => {
                    sent.saturating_sub((capacity * r.duration_s).floor() as u64)
                }
                Upf::Soft { knee, steepness } => soft(knee, steepness, 1.0),
                Upf::Noisy {
                    knee,
                    steepness,
                    spread,
                    ..
                } => soft(knee, steepness, 1.0 + spread * (noise.unit() - 0.5)),
                Upf::ConstantLoss { ratio } => (sent as f64 * ratio + 0.5).floor() as u64,
            };
            (sent, lost)
        }
    }
}

/// A trial of `sent` packets of which `lost` were lost; the loss ratio as MLRsearch computes
/// it from the counts.
fn counted(r: TrialRequest, sent: u64, lost: u64) -> TrialResult {
    let loss_ratio = if sent == 0 {
        0.0
    } else {
        lost as f64 / sent as f64
    };
    TrialResult::lossy(r.load, r.duration_s, loss_ratio)
}

/// One goal's outcome, as either side reports it.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Figures {
    lower: Option<f64>,
    upper: Option<f64>,
    conditional_throughput: Option<f64>,
}

impl Figures {
    /// How the goal ended, read from the bounds the way RFC 9971 states the irregular
    /// outcomes: no lower bound (Min Load is an upper bound), or Max Load a lower bound.
    fn ending(&self) -> Ending {
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
struct Side {
    goals: Vec<Figures>,
    trials: usize,
    trial_seconds: f64,
    /// Every trial, in order.
    log: Vec<TrialResult>,
    /// Every trial's request and packets sent and lost (MLRsearch's side only).
    counts: Vec<(TrialRequest, u64, u64)>,
}

fn ours(upf: Upf) -> (Side, Vec<GoalOutcome>) {
    let goals = GOALS.iter().map(|(_, g)| *g).collect();
    let mut s = Search::new(SearchConfig::new(goals, MIN_LOAD, MAX_LOAD)).expect("valid config");
    let mut upf = upf.simulate();
    while let Some(r) = s.poll_trial() {
        assert!(s.trials().len() < 2_000, "our search does not end");
        let (sent, lost) = upf(r);
        s.handle_trial(counted(r, sent, lost));
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

fn repo() -> PathBuf {
    let repo = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    repo.canonicalize().unwrap_or(repo)
}

fn python() -> PathBuf {
    if let Some(p) = std::env::var_os("UPFBENCH_PYTHON") {
        return p.into();
    }
    let venv = repo().join("target/mlrsearch/bin/python3");
    if venv.exists() {
        venv
    } else {
        "python3".into()
    }
}

/// Why CSIT's side cannot run here.
struct Unavailable(String);

fn csit(upf: Upf) -> Result<Side, Unavailable> {
    let v = run_csit_script(&csit_spec(upf))?;
    Ok(csit_side(&v))
}

/// The search's loads, goals and simulated UPF, as the script reads them.
fn csit_spec(upf: Upf) -> Value {
    let goal = |g: &SearchGoal| {
        json!({
            "loss_ratio": g.loss_ratio,
            "exceed_ratio": g.exceed_ratio,
            "relative_width": g.relative_width,
            "initial_trial_duration": g.initial_trial_duration_s,
            "final_trial_duration": g.final_trial_duration_s,
            "duration_sum": g.duration_sum_s,
        })
    };
    json!({
        "min_load": MIN_LOAD,
        "max_load": MAX_LOAD,
        "goals": GOALS.iter().map(|(_, g)| goal(g)).collect::<Vec<_>>(),
        "upf": upf.spec(),
    })
}

/// Runs CSIT's MLRsearch on `spec` and returns its JSON; unavailable when the script exits 3.
fn run_csit_script(spec: &Value) -> Result<Value, Unavailable> {
    let python = python();
    let script = repo().join("crates/search/tests/support/mlrsearch_sim.py");
    let mut child = Command::new(&python)
        .arg(&script)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| Unavailable(format!("{}: {e}", python.display())))?;
    child
        .stdin
        .take()
        .expect("piped")
        .write_all(spec.to_string().as_bytes())
        .expect("write the spec");
    let out = child.wait_with_output().expect("the script's output");
    let stderr = String::from_utf8_lossy(&out.stderr);
    if out.status.code() == Some(3) {
        return Err(Unavailable(format!(
            "{}: {}",
            python.display(),
            stderr.trim()
        )));
    }
    assert!(
        out.status.success(),
        "{} failed ({}):\n{stderr}",
        script.display(),
        out.status
    );
    Ok(serde_json::from_slice(&out.stdout).expect("the script's JSON"))
}

/// CSIT's figures, trial count and time, and trial log, from the script's JSON.
fn csit_side(v: &Value) -> Side {
    let number = |v: &Value| v.as_f64();
    let counts: Vec<(TrialRequest, u64, u64)> = v["trial_log"]
        .as_array()
        .expect("trial_log")
        .iter()
        .map(|t| {
            let f = |i: usize| t[i].as_f64().expect("a number");
            let count = |i: usize| t[i].as_u64().expect("a count");
            let r = TrialRequest {
                load: f(0),
                duration_s: f(1),
            };
            (r, count(2), count(3))
        })
        .collect();
    Side {
        goals: v["goals"]
            .as_array()
            .expect("goals")
            .iter()
            .map(|g| Figures {
                lower: number(&g["lower_bound"]),
                upper: number(&g["upper_bound"]),
                conditional_throughput: number(&g["conditional_throughput"]),
            })
            .collect(),
        trials: v["trials"].as_u64().expect("trials") as usize,
        trial_seconds: v["trial_seconds"].as_f64().expect("trial_seconds"),
        log: counts
            .iter()
            .map(|&(r, sent, lost)| counted(r, sent, lost))
            .collect(),
        counts,
    }
}

fn pps(v: Option<f64>) -> String {
    v.map_or_else(|| "-".to_string(), |v| format!("{v:.1}"))
}

fn print_side(name: &str, side: &Side, endings: &[Ending]) {
    let goals: Vec<String> = GOALS
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

/// Our arithmetic of RFC 9971 (load classification, relevant bounds, conditional throughput)
/// on MLRsearch's own trials gives MLRsearch's figures: the differences between the two
/// searches are then only in the loads they chose. The errors, if any.
fn replay(csit: &Side) -> Vec<String> {
    let mut errors = Vec::new();
    let close = |a: Option<f64>, b: Option<f64>| match (a, b) {
        (None, None) => true,
        (Some(a), Some(b)) => (a - b).abs() <= 1e-9 * a.abs().max(b.abs()),
        _ => false,
    };
    for ((name, goal), theirs) in GOALS.iter().zip(&csit.goals) {
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
fn check_same_simulation(upf: Upf, csit: &Side) -> Result<(), String> {
    let mut same = upf.simulate();
    for (i, &(r, sent, lost)) in csit.counts.iter().enumerate() {
        let here = same(r);
        if here != (sent, lost) {
            return Err(format!(
                "the simulations differ at trial {i} ({r:?}): sent and lost {here:?} here, \
                 ({sent}, {lost}) in the script"
            ));
        }
    }
    Ok(())
}

/// One goal's comparison: our ending against our bounds, the two endings, each side's bounds
/// within the goal's width, and the conditional throughputs within the width of each other.
fn compare_goal(
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

/// Runs both sides on `upf` and compares them; `Ok(false)` when CSIT's side was skipped.
fn case(upf: Upf) -> Result<bool, String> {
    let (ours, outcomes) = ours(upf);
    let our_endings: Vec<Ending> = outcomes.iter().map(|o| o.ending).collect();
    let csit = match csit(upf) {
        Ok(side) => side,
        Err(Unavailable(why)) => {
            print_side("upfbench", &ours, &our_endings);
            if std::env::var_os("CI").is_some_and(|v| !v.is_empty()) {
                return Err(format!(
                    "CSIT's MLRsearch 1.2.1 is needed under CI (make test installs it: \
                     deploy/mlrsearch-venv.sh): {why}"
                ));
            }
            println!("    SKIPPED the comparison: CSIT's MLRsearch 1.2.1 is not available: {why}");
            println!("    (install it: bash deploy/mlrsearch-venv.sh)");
            return Ok(false);
        }
    };
    let csit_endings: Vec<Ending> = csit.goals.iter().map(Figures::ending).collect();
    print_side("upfbench", &ours, &our_endings);
    print_side("MLRsearch", &csit, &csit_endings);
    check_same_simulation(upf, &csit)?;
    let mut errors = replay(&csit);
    for (i, (name, goal)) in GOALS.iter().enumerate() {
        compare_goal(
            name,
            goal,
            (&ours.goals[i], &our_endings[i]),
            (&csit.goals[i], &csit_endings[i]),
            &mut errors,
        );
    }
    if errors.is_empty() {
        Ok(true)
    } else {
        Err(errors.join("; "))
    }
}

fn main() -> ExitCode {
    let cases: Vec<(&str, Upf)> = vec![
        ("sharp_below_min_load", Upf::Sharp { capacity: 5_000.0 }),
        ("sharp_25_kpps", Upf::Sharp { capacity: 25_000.0 }),
        (
            "sharp_1_234_567_pps",
            Upf::Sharp {
                capacity: 1_234_567.0,
            },
        ),
        (
            "sharp_3_456_789_pps",
            Upf::Sharp {
                capacity: 3_456_789.0,
            },
        ),
        (
            "sharp_9_876_543_pps",
            Upf::Sharp {
                capacity: 9_876_543.0,
            },
        ),
        (
            "sharp_above_max_load",
            Upf::Sharp {
                capacity: 20_000_000.0,
            },
        ),
        (
            "soft_knee_2_mpps",
            Upf::Soft {
                knee: 2_000_000.0,
                steepness: 2.0,
            },
        ),
        (
            "soft_knee_6_mpps_steep",
            Upf::Soft {
                knee: 6_000_000.0,
                steepness: 50.0,
            },
        ),
        (
            "noisy_knee_2_mpps",
            Upf::Noisy {
                knee: 2_000_000.0,
                steepness: 2.0,
                spread: 0.2,
                seed: 7,
            },
        ),
        (
            "constant_loss_1_in_1000",
            Upf::ConstantLoss { ratio: 0.001 },
        ),
    ];
    // Each case prints its name before both sides' figures.
    let runner = Runner::new(cases.into_iter().map(|(name, upf)| (name, (name, upf))));
    if runner.needs_setup() {
        println!(
            "upfbench's search vs CSIT's MLRsearch 1.2.1 ({}), NDR and PDR at CSIT's defaults, \
             loads {MIN_LOAD} to {MAX_LOAD} pps; [lower, upper] bounds and conditional \
             throughput (ct) in pps",
            python().display()
        );
    }
    runner.run(|&(name, upf)| {
        println!("{name}: {upf:?}");
        match case(upf) {
            Ok(true) => Outcome::Passed,
            Ok(false) => Outcome::Ignored("MLRsearch 1.2.1 is not available".into()),
            Err(e) => Outcome::Failed(e),
        }
    })
}
