//! CSIT's side: MLRsearch 1.2.1 run by `support/mlrsearch_sim.py` on the same simulated UPF.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use serde_json::{Value, json};
use upfbench_search::{SearchGoal, TrialRequest};

use crate::compare::{Figures, Side};
use crate::upf::{Packets, Upf, counted};
use crate::{MAX_LOAD, MIN_LOAD};

/// Why CSIT's side cannot run here.
pub(crate) struct Unavailable(pub String);

fn repo() -> PathBuf {
    let repo = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    repo.canonicalize().unwrap_or(repo)
}

/// `$UPFBENCH_PYTHON`, else the virtual environment that `make test` makes, else `python3`.
pub(crate) fn python() -> PathBuf {
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

/// MLRsearch's search of `goals` on `upf`.
pub(crate) fn csit(upf: Upf, goals: &[SearchGoal]) -> Result<Side, Unavailable> {
    let v = run_csit_script(&csit_spec(upf, goals))?;
    Ok(csit_side(&v))
}

/// The search's loads, goals and simulated UPF, as the script reads them. A goal's latency
/// bound is not passed: the script tells MLRsearch that a trial over the latency-limited
/// UPF's knee lost everything (every case's bound lies between the UPF's two latencies).
fn csit_spec(upf: Upf, goals: &[SearchGoal]) -> Value {
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
        "goals": goals.iter().map(goal).collect::<Vec<_>>(),
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
    let counts: Vec<(TrialRequest, Packets)> = v["trial_log"]
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
            let p = Packets {
                sent: count(2),
                lost: count(3),
                p99_ns: count(4),
            };
            (r, p)
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
        log: counts.iter().map(|&(r, p)| counted(r, p)).collect(),
        counts,
    }
}
