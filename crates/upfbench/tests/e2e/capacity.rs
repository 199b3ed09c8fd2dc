//! `upfbench capacity` against the reflector over memif: a reflector that holds N sessions is
//! found to hold exactly N, named by its Cause; after every batch the traffic over all the
//! sessions so far is received whole; every session established is deleted.

use std::time::Duration;

use crate::harness::{num, serial, total};
use crate::memif::{Memif, finish};

/// A climb to 2,000 in batches of 300 against a reflector that holds 1,000.
fn climb_profile() -> String {
    "name: e2e-capacity\n\
     sessions: {count: 2000, uplink_teid: {first: 1, step: 2}, downlink_teid: {first: 2, step: 2}}\n\
     capacity: {batch: 300, step: 500ms}\n\
     streams:\n  \
       - {name: ul, direction: uplink, rate: 20kpps, payload: 100}\n  \
       - {name: dl, direction: downlink, rate: 20kpps, payload: 100}\n\
     warmup: 200ms\n\
     drain: 200ms\n"
        .to_owned()
}

#[test]
fn capacity_finds_the_reflectors_session_limit_exactly() {
    let _serial = serial();
    let bed = Memif::shipped(
        "capacity",
        ["memif.yaml", "memif-reflector.yaml"],
        ["upfbench-gen", "upfbench-reflect"],
        &climb_profile(),
        |system, reflector| {
            let reflector = reflector.replace(
                "  first_seid: 1\n",
                "  first_seid: 1\n  max_sessions: 1000\n",
            );
            assert!(reflector.contains("max_sessions: 1000"), "{reflector}");
            (system, reflector)
        },
    );
    let mut reflector = bed.reflector();
    let mut generator = bed.command("capacity");
    let status = generator.wait(Duration::from_secs(120));
    let o = finish(&bed, &mut reflector, &generator, status);
    println!("{}", o.stdout);
    assert!(o.status.success(), "{}\n{}", o.status, o.stdout);

    let c = &o.report["capacity"];
    assert_eq!(num(c, &["established"]), 1000, "{c}");
    assert_eq!(num(c, &["refusal", "at"]), 1000, "{c}");
    assert_eq!(num(c, &["refusal", "cause"]), 75, "{c}");
    assert!(c["refusal"]["offending_ie"].is_null(), "{c}");
    assert_eq!(num(c, &["refusal", "accepted_after"]), 0, "{c}");
    // Batches of 300: 300, 600, 900, then 100 of the fourth before the refusal.
    let batches = c["batches"].as_array().expect("batches");
    let totals: Vec<u64> = batches.iter().map(|b| num(b, &["total"])).collect();
    assert_eq!(totals, [300, 600, 900, 1000], "{c}");
    assert_eq!(num(&batches[3], &["established"]), 100, "{c}");
    for b in batches {
        assert!(b["rate_per_s"].as_f64().expect("rate") > 0.0, "{b}");
        assert!(num(b, &["tester_rss_bytes"]) > 0, "{b}");
    }
    assert!(num(c, &["tester_peak_rss_bytes"]) >= num(&batches[0], &["tester_rss_bytes"]));
    assert!(
        o.stdout
            .contains("the UPF refused a session at 1000 sessions"),
        "{}",
        o.stdout
    );
    assert!(
        o.stdout.contains("No resources available (75)"),
        "{}",
        o.stdout
    );

    // A step per batch, over every session so far, each received whole.
    let steps = o.report["steps"].as_array().expect("steps");
    assert_eq!(steps.len(), 4);
    for (step, total) in steps.iter().zip(totals) {
        assert_eq!(step["label"], format!("{total} sessions"), "{step}");
        for d in step["directions"].as_array().expect("directions") {
            assert!(num(d, &["loss", "sent"]) > 5_000, "{d}");
            assert_eq!(num(d, &["loss", "lost"]), 0, "{}: {d}", step["label"]);
            assert_eq!(num(d, &["rx", "packets"]), num(d, &["loss", "sent"]), "{d}");
            assert_eq!(num(d, &["streams"]), total, "a flow per session: {d}");
        }
    }
    // The reflector established 1,000, refused the rest of the batch in flight, and the
    // teardown deleted all 1,000.
    assert!(
        o.reflector_log
            .contains("sessions established 1000, modified 0, deleted 1000"),
        "{}",
        o.reflector_log
    );
    let c = &o.report["control"];
    assert_eq!(
        (num(c, &["established"]), num(c, &["deleted"])),
        (1000, 1000),
        "{c}"
    );
}

/// 100,000 sessions established in four batches and deleted against a reflector without a
/// limit: every batch whole, the traffic over all of them after each, and both processes' peak
/// memory reported and within bounds (measured 2026-11-26, debug build: see the output).
#[test]
fn capacity_establishes_and_deletes_100k_sessions_within_a_memory_bound() {
    const SESSIONS: u64 = 100_000;
    let _serial = serial();
    let profile = "name: e2e-capacity-100k\n\
         sessions: {count: 100000, ue_pool: 10.64.0.0/15, uplink_teid: {first: 1, step: 2}, \
         downlink_teid: {first: 2, step: 2}}\n\
         capacity: {batch: 25000, step: 300ms}\n\
         streams:\n  \
           - {name: ul, direction: uplink, rate: 20kpps, payload: 100, spread: round_robin}\n  \
           - {name: dl, direction: downlink, rate: 20kpps, payload: 100, spread: round_robin}\n\
         warmup: 200ms\n\
         drain: 200ms\n";
    let bed = Memif::shipped(
        "capacity-100k",
        ["memif.yaml", "memif-reflector.yaml"],
        ["upfbench-gen", "upfbench-reflect"],
        profile,
        |system, reflector| (system, reflector),
    );
    let mut reflector = bed.reflector();
    let mut generator = bed.command("capacity");
    let status = generator.wait(Duration::from_secs(300));
    let o = finish(&bed, &mut reflector, &generator, status);
    assert!(o.status.success(), "{}\n{}", o.status, o.stdout);
    let c = &o.report["capacity"];
    assert_eq!(num(c, &["established"]), SESSIONS, "{c}");
    assert!(c["refusal"].is_null(), "no refusal below the limit: {c}");
    let batches = c["batches"].as_array().expect("batches");
    let totals: Vec<u64> = batches.iter().map(|b| num(b, &["total"])).collect();
    assert_eq!(totals, [25_000, 50_000, 75_000, 100_000], "{c}");
    for step in o.report["steps"].as_array().expect("steps") {
        for d in step["directions"].as_array().expect("directions") {
            assert_eq!(num(d, &["loss", "lost"]), 0, "{}: {d}", step["label"]);
        }
    }
    assert!(
        o.reflector_log.contains(&format!(
            "sessions established {SESSIONS}, modified 0, deleted {SESSIONS}"
        )),
        "{}",
        o.reflector_log
    );
    let rates: Vec<f64> = batches
        .iter()
        .map(|b| b["rate_per_s"].as_f64().expect("rate"))
        .collect();
    let tester_mb = num(c, &["tester_peak_rss_bytes"]) / 1_000_000;
    let reflector_mb = total(&o.reflector, "peak resident memory kB") / 1000;
    println!(
        "100k: establishment per batch {rates:?} sessions/s; peak memory: tester {tester_mb} MB, \
         reflector {reflector_mb} MB"
    );
    assert!(reflector_mb > 0 && tester_mb > 0);
    assert!(
        tester_mb < 400,
        "tester {tester_mb} MB for 100,000 sessions"
    );
    assert!(
        reflector_mb < 500,
        "reflector {reflector_mb} MB for 100,000 sessions"
    );
}

/// `capacity -m 10kpps -d 700ms`: every batch's traffic at 10 kpps in all (the profile's 20
/// kpps each way times 0.25) for 700 ms instead of the profile's `capacity.step`.
#[test]
fn capacity_takes_a_multiplier_and_a_duration_for_every_batch() {
    let _serial = serial();
    let profile = "name: e2e-capacity-m\n\
         sessions: {count: 20}\n\
         capacity: {batch: 10, step: 300ms}\n\
         streams:\n  \
           - {name: ul, direction: uplink, rate: 20kpps, payload: 100}\n  \
           - {name: dl, direction: downlink, rate: 20kpps, payload: 100}\n\
         warmup: 0s\n\
         drain: 200ms\n";
    let bed = Memif::shipped(
        "capacity-m",
        ["memif.yaml", "memif-reflector.yaml"],
        ["upfbench-gen", "upfbench-reflect"],
        profile,
        |system, reflector| (system, reflector),
    );
    let mut reflector = bed.reflector();
    let mut generator = bed.command_with("capacity", &["-m", "10kpps", "-d", "700ms"]);
    let status = generator.wait(Duration::from_secs(120));
    let o = finish(&bed, &mut reflector, &generator, status);
    assert!(o.status.success(), "{}\n{}", o.status, o.stdout);
    let m = &o.report["multiplier"];
    assert_eq!(m["given"], "10kpps", "{m}");
    let planned = m["steps"].as_array().expect("steps");
    assert_eq!(planned.len(), 1, "one row for every batch: {m}");
    assert_eq!(planned[0]["step"], "every batch");
    assert_eq!(planned[0]["factor"].as_f64(), Some(0.25), "{m}");
    assert_eq!(planned[0]["pps"].as_f64(), Some(10_000.0), "{m}");
    let steps = o.report["steps"].as_array().expect("steps");
    assert_eq!(steps.len(), 2, "two batches of 10");
    for step in steps {
        for d in step["directions"].as_array().expect("directions") {
            let sent = num(d, &["loss", "sent"]);
            println!(
                "capacity -m 10kpps -d 700ms: {} {}: sent {sent} over {:.4} s",
                step["label"], d["direction"], step["duration_s"]
            );
            // 5 kpps a direction for 700 ms.
            assert_eq!(sent, 3_500, "{}: {d}", step["label"]);
            assert_eq!(num(d, &["rx", "packets"]), sent, "{d}");
        }
        assert!(
            step["duration_s"].as_f64().expect("duration") > 0.68,
            "{step}"
        );
    }
}
