//! A search across two agents (`upfbench search --cluster`) against one box's search at the
//! same total load (docs/scale.md §3 "The search across agents"): one reflector of two pairs
//! whose rate cap is shared by its pairs' workers, searched first by one `upfbench search` on
//! both pairs, then by two agents, one on each pair, under one coordinator. Each goal's
//! conditional throughput agrees within its width (and the tester's timing on this 2-vCPU
//! machine), both near the cap; every trial's merged step is the sum of the agents' parts.

use std::time::Duration;

use serde_json::Value;

use crate::agents::{Bed, one_box_yaml};
use crate::harness::{Process, UPFBENCH, read_report, serial, unique};

/// The reflector's cap per direction (both pairs together).
const CAP: f64 = 5_000.0;

/// The goals' width.
const WIDTH: f64 = 0.01;

/// What the tester's timing on this 2-vCPU VM adds, either way (as e2e/search.rs finds).
const HOST: f64 = 0.03;

/// 4 UEs (2 on each pair), both directions at once shared evenly, 500 ms trials summed to 1 s,
/// no latency trials.
const PROFILE: &str = "name: e2e-agents-search
sessions: {count: 4}
streams:
  - {name: ul, direction: uplink, rate: 10kpps, payload: 100}
  - {name: dl, direction: downlink, rate: 10kpps, payload: 100}
warmup: 0s
drain: 200ms
catch_up: 0%
sweep: {payloads: [100]}
search:
  min_load: 2kpps
  max_load: 20kpps
  tx_tolerance: 3%
  latency_loads: []
  goals:
    - {name: NDR, loss_ratio: 0%, width: 1%, initial_trial_duration: 500ms, final_trial_duration: 500ms, duration_sum: 1s}
    - {name: PDR, loss_ratio: 0.5%, width: 1%, initial_trial_duration: 500ms, final_trial_duration: 500ms, duration_sum: 1s}
";

/// Each goal's (name, conditional throughput) of the report's one case.
fn throughputs(report: &Value) -> Vec<(String, f64)> {
    let case = &report["search"]["cases"][0];
    assert_eq!(case["label"], "100 B both", "{case}");
    case["results"]
        .as_array()
        .expect("results")
        .iter()
        .map(|r| {
            assert_eq!(r["status"], "regular", "{r}");
            let ct = r["conditional_throughput_pps"]
                .as_f64()
                .expect("a throughput");
            (r["goal"].as_str().expect("goal").to_owned(), ct)
        })
        .collect()
}

/// Every trial's merged step sent what the agents' sections say they sent, together.
fn trials_are_the_agents_sums(report: &Value) {
    let trials = report["search"]["cases"][0]["trials"]
        .as_array()
        .expect("trials");
    assert!(!trials.is_empty());
    for t in trials {
        let step = t["step"].as_u64().expect("step") as usize;
        let parts: u64 = report["agents"]
            .as_array()
            .expect("agents")
            .iter()
            .map(|a| {
                let s = &a["steps"][step];
                assert_eq!(s["step"].as_u64(), Some(step as u64 + 1), "{s}");
                s["figures"]
                    .as_array()
                    .expect("figures")
                    .iter()
                    .map(|f| f["sent"].as_u64().expect("sent"))
                    .sum::<u64>()
            })
            .sum();
        assert_eq!(t["sent"].as_u64(), Some(parts), "trial {t}");
    }
}

#[test]
fn a_search_over_two_agents_agrees_with_one_box_on_their_pairs() {
    let _serial = serial();
    let mut bed = Bed::reflector("agents-search", 2, &format!("{{rate_cap: {CAP}pps}}"));
    let dir = bed.scratch.path().to_str().expect("utf-8").to_owned();
    let prefix = unique("agents-search-box");
    let system = bed.scratch.write(
        "one-box.yaml",
        &one_box_yaml(2, &dir, &prefix, bed.n4.clone()),
    );
    let profile = bed.scratch.write("profile.yaml", PROFILE);
    let reports = bed.scratch.path().join("one-box-reports");
    let mut one = Process::spawn(
        "one-box",
        &bed.scratch,
        None,
        &[
            UPFBENCH,
            "search",
            "--reports",
            reports.to_str().expect("utf-8"),
            system.to_str().expect("utf-8"),
            profile.to_str().expect("utf-8"),
        ],
        Some(&prefix),
    );
    let status = one.wait(Duration::from_secs(300));
    assert!(status.success(), "one box: {status}\n{}", one.logs());
    let one_report = read_report(&reports);
    let one_box = throughputs(&one_report);

    bed.add_agents(2);
    let mut coordinator = bed.coordinator_of("search", PROFILE, &[]);
    let status = coordinator.wait(Duration::from_secs(300));
    assert!(
        status.success(),
        "coordinator: {status}\n{}",
        coordinator.logs()
    );
    let report = read_report(&bed.reports());
    let agents = throughputs(&report);
    trials_are_the_agents_sums(&report);
    let trials = |r: &Value| {
        r["search"]["cases"][0]["trials"]
            .as_array()
            .map_or(0, Vec::len)
    };
    println!(
        "one box: {one_box:?} in {} trials, {:.1} s; two agents: {agents:?} in {} trials, \
         {:.1} s",
        trials(&one_report),
        one_report["duration_s"].as_f64().unwrap_or(0.0),
        trials(&report),
        report["duration_s"].as_f64().unwrap_or(0.0)
    );
    for s in report["steps"].as_array().into_iter().flatten() {
        if let Some(w) = s["warnings"].as_array().filter(|w| !w.is_empty()) {
            println!("{}: {w:?}", s["label"]);
        }
    }
    assert_eq!(one_box.len(), agents.len());
    for ((goal, a), (_, b)) in agents.iter().zip(&one_box) {
        // Both near the cap of both directions together, and within the width of each other.
        let cap = 2.0 * CAP;
        assert!(
            (cap * (1.0 - WIDTH - HOST)..=cap * (1.0 + WIDTH + HOST)).contains(a),
            "{goal}: two agents {a}, cap {cap}"
        );
        assert!(
            (a - b).abs() <= b * (WIDTH + HOST),
            "{goal}: two agents {a}, one box {b}"
        );
    }
    assert!(report.get("incomplete").is_none(), "{report}");
    bed.down();
}
