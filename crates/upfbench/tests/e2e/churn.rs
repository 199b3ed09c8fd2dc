//! Session churn under traffic against the reflector over memif: while 20 UEs carry 20 kpps
//! each way, 100 sessions a second beyond theirs are established and deleted (300 ms lives)
//! and their own sessions modified at 50 a second. The step runs first without churn. Nothing
//! of the traffic is lost in either; every procedure is answered and its latency recorded; each
//! churn session's probes that were sent after its Establishment Response all come back (the
//! reflector's rules are in effect before it answers), and the probes it dropped as unknown UE
//! are exactly those the report finds lost before the answers.

use serde_json::Value;

use crate::harness::{num, serial};
use crate::memif::run;

const UES: u64 = 20;
/// Churn sessions: one every 10 ms from 0 while 300 ms of life fit in 3 s.
const CHURN: u64 = 270;
/// Modifications: one every 20 ms over 3 s.
const MODIFIED: u64 = 150;

fn profile() -> String {
    format!(
        "name: churn\n\
         sessions: {{count: {UES}}}\n\
         streams:\n  \
           - {{name: ul, direction: uplink, rate: 20kpps, payload: 100}}\n  \
           - {{name: dl, direction: downlink, rate: 20kpps, payload: 100}}\n\
         duration: 3s\n\
         warmup: 500ms\n\
         drain: 300ms\n\
         churn: {{rate: 100, lifetime: 300ms, modify_rate: 50, probe_interval: 1ms}}\n"
    )
}

fn f(v: &Value) -> f64 {
    v.as_f64().unwrap_or_else(|| panic!("{v} is not a number"))
}

#[test]
fn churn_under_traffic_loses_nothing_and_times_every_procedure() {
    let _serial = serial();
    let o = run("churn", "{}", &profile());
    assert!(o.status.success(), "generator: {}\n{}", o.status, o.stdout);
    let steps = o.report["steps"].as_array().unwrap();
    assert_eq!(steps.len(), 2, "the baseline, then the churn");
    assert_eq!(steps[0]["label"], "run, no churn");
    assert_eq!(steps[1]["label"], "run, churn");
    // Zero loss with and without churn, every packet received.
    for s in steps {
        for d in s["directions"].as_array().unwrap() {
            assert_eq!(num(d, &["loss", "lost"]), 0, "{}: {d}", s["label"]);
            assert!(num(d, &["loss", "sent"]) > 50_000);
        }
    }
    assert_eq!(steps[0]["churn"]["on"], false);
    let c = &steps[1]["churn"];
    assert_eq!(c["on"], true);
    println!(
        "churn: establishment {}; modification {}; deletion {}; lag {}; activation {}",
        c["establishments"]["latency"],
        c["modifications"]["latency"],
        c["deletions"]["latency"],
        c["activation"]["lag"],
        c["activation"]
    );
    // Every procedure asked for was sent, succeeded, and has its latency recorded.
    for (kind, planned) in [
        ("establishments", CHURN),
        ("modifications", MODIFIED),
        ("deletions", CHURN),
    ] {
        let p = &c[kind];
        assert_eq!(num(p, &["planned"]), planned, "{kind}: {p}");
        assert_eq!(num(p, &["sent"]), planned, "{kind}: {p}");
        assert_eq!(num(p, &["succeeded"]), planned, "{kind}: {p}");
        assert_eq!(num(p, &["failed"]), 0, "{kind}: {p}");
        assert_eq!(num(p, &["latency", "samples"]), planned, "{kind}: {p}");
        assert!(f(&p["latency"]["max_ns"]) < 1e9, "{kind}: {p}");
    }
    // Traffic started on the answer never meets a missing rule.
    let a = &c["activation"];
    assert_eq!(num(a, &["established"]), CHURN);
    assert_eq!(num(a, &["never_forwarded"]), 0, "{a}");
    assert_eq!(num(a, &["lost_after_answer"]), 0, "{a}");
    assert_eq!(num(a, &["lag", "samples"]), CHURN);
    assert!(f(&a["lag"]["p50_ns"]) <= 1e6, "{a}");
    // The reflector answers once the rules are in effect: the probe dropped before each
    // session's first forwarded one was always due before the answer (a lower bound of 0),
    // whatever a stalled sender added to the upper bound.
    assert_eq!(f(&a["lag_floor"]["max_ns"]), 0.0, "{a}");
    // The reflector's own count of the probes it had no rule for (before each session's
    // rules were in effect) is what the generator found missing.
    let lost_probes = num(a, &["probes_sent"]) - num(a, &["probes_received"]);
    assert_eq!(
        o.reflector["dropped unknown_ue"], lost_probes,
        "{}",
        o.reflector_out
    );
    // Each session's probes: 300 planned; those received are the rest after the lost ones.
    for s in c["sessions"].as_array().unwrap() {
        assert!((290..=300).contains(&num(s, &["probes_sent"])), "{s}");
    }
    // The control plane second by second on the step's timeline: each N4 procedure once.
    let seconds = c["seconds"].as_array().unwrap();
    assert_eq!(seconds.len(), steps[1]["seconds"].as_array().unwrap().len());
    let asked: u64 = seconds
        .iter()
        .map(|s| {
            (0..3)
                .map(|k| num(s, &["asked", &k.to_string()]))
                .sum::<u64>()
        })
        .sum();
    assert_eq!(asked, 2 * CHURN + MODIFIED);
    // With churn beside without.
    assert_eq!(c["baseline"]["label"], "run, no churn");
    assert_eq!(num(&c["baseline"]["loss"][0], &["lost"]), 0);
    assert!(o.stdout.contains("session churn"), "{}", o.stdout);
    assert!(o.stdout.contains("loss without churn (run, no churn)"));
}
