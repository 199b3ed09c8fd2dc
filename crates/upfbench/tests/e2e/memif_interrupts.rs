//! Ctrl-C over memif: in the measured phase, in the warm-up, during the establishment. Every
//! interrupted run writes the report of what it measured, deletes what it established and exits
//! with success.

use std::time::Duration;

use crate::harness::{Process, assert_sessions, besides_tx_slips, num, serial, total, warnings};
use crate::memif::{Memif, RATE, finish, profile};

/// Sends SIGINT two seconds after the generator resolved the UPF's MACs (its last step before
/// sending).
fn interrupt_after_resolution(generator: &mut Process) {
    generator.wait_until(Duration::from_secs(30), |out, _| {
        out.lines()
            .any(|l| l.starts_with("N6: ") && l.contains(" is at "))
    });
    std::thread::sleep(Duration::from_secs(2));
    generator.interrupt();
}

/// SIGINT during the measured phase: sending stops, what is in flight drains, the report of
/// what was measured is written, the sessions are deleted, the exit is a success (an
/// interruption is what the user asked for) and EAL's runtime files are gone.
#[test]
fn memif_ctrl_c_writes_the_report_and_deletes_the_sessions() {
    let _serial = serial();
    let seconds = 20;
    let bed = Memif::new("ctrlc", "{}", &profile(4, seconds, "0s"));
    let mut reflector = bed.reflector();
    let mut generator = bed.generator();
    // The measured phase (20 s, no warm-up) starts as soon as the MACs are resolved.
    interrupt_after_resolution(&mut generator);
    let status = generator.wait(Duration::from_secs(20));
    let o = finish(&bed, &mut reflector, &generator, status);
    o.print("ctrlc");
    assert!(o.status.success(), "exit status {}", o.status);
    assert!(
        o.stdout
            .lines()
            .any(|l| l == "interrupted: the report holds what was measured"),
        "{}",
        o.stdout
    );
    assert_sessions(&o.stdout, &o.reflector_log, 4);
    assert!(
        warnings(&o.report)
            .iter()
            .any(|w| w.contains("interrupted")),
        "the report says it was interrupted: {:?}",
        warnings(&o.report)
    );
    for (name, f) in o.both() {
        assert!(
            f.sent > RATE / 2 && f.sent < RATE * seconds / 2,
            "{name}: sent {} is not what was sent until the interruption",
            f.sent
        );
        assert_eq!(
            (f.received, f.lost),
            (f.sent, 0),
            "{name}: what was in flight was drained"
        );
        assert_eq!(f.samples, f.received, "{name}");
    }
}

/// SIGINT during the warm-up: nothing was measured, and the report says exactly that (no
/// warm-up packet counted as measured or lost).
#[test]
fn memif_ctrl_c_in_the_warm_up_measures_nothing() {
    let _serial = serial();
    let bed = Memif::new("ctrlc-warmup", "{}", &profile(4, 5, "20s"));
    let mut reflector = bed.reflector();
    let mut generator = bed.generator();
    // The warm-up (20 s) starts as soon as the MACs are resolved.
    interrupt_after_resolution(&mut generator);
    let status = generator.wait(Duration::from_secs(20));
    let o = finish(&bed, &mut reflector, &generator, status);
    o.print("ctrlc-warmup");
    assert!(o.status.success(), "exit status {}", o.status);
    assert_sessions(&o.stdout, &o.reflector_log, 4);
    let w = besides_tx_slips(warnings(&o.report));
    assert!(
        w.len() == 1 && w[0].contains("interrupted"),
        "only the interruption: {w:?}"
    );
    // The warm-up went through the reflector, but none of it is in the report.
    assert!(total(&o.reflector, "uplink forwarded") > RATE / 2);
    for (name, f) in o.both() {
        assert_eq!(
            (f.sent, f.received, f.lost, f.samples),
            (0, 0, 0, 0),
            "{name}: nothing measured"
        );
    }
}

/// SIGINT while 100,000 sessions are being established: the progress line shows it going, the
/// establishment stops sending requests, nothing is measured, exactly the sessions established
/// are deleted (the reflector's table is empty at the release), and the exit is a success.
#[test]
fn memif_ctrl_c_during_establishment_deletes_what_was_established() {
    let _serial = serial();
    let total = 100_000u64;
    let profile = format!(
        "name: e2e\n\
         sessions: {{count: {total}, ue_pool: 10.0.0.0/8}}\n\
         streams:\n  \
           - {{name: ul, direction: uplink, rate: 1000pps, payload: 100}}\n\
         duration: 5s\n\
         drain: 300ms\n"
    );
    let bed = Memif::new("ctrlc-establish", "{}", &profile);
    let mut reflector = bed.reflector();
    let mut generator = bed.generator();
    // Progress lines come once a second while the batch runs.
    generator.wait_until(Duration::from_secs(60), |out, _| {
        out.lines().any(|l| l.starts_with("PFCP: established "))
    });
    generator.interrupt();
    let status = generator.wait(Duration::from_secs(120));
    let o = finish(&bed, &mut reflector, &generator, status);
    o.print("ctrlc-establish");
    assert!(o.status.success(), "exit status {}\n{}", o.status, o.stdout);
    let progress: Vec<u64> = o
        .stdout
        .lines()
        .filter_map(|l| l.strip_prefix("PFCP: established "))
        .filter_map(|l| l.split('/').next()?.parse().ok())
        .collect();
    assert!(!progress.is_empty(), "{}", o.stdout);
    assert!(progress.windows(2).all(|w| w[0] <= w[1]), "{progress:?}");
    assert!(
        o.stdout
            .lines()
            .any(|l| l == "interrupted: establishment stops after the requests in flight"),
        "{}",
        o.stdout
    );
    let c = &o.report["control"];
    let established = num(c, &["established"]);
    assert!(
        established >= *progress.last().unwrap() && established < total,
        "established {established} of {total}, progress {progress:?}"
    );
    assert_eq!(num(c, &["deleted"]), established, "{c}");
    assert!(
        o.stdout.lines().any(|l| l
            == format!(
                "PFCP: {established} of {total} sessions established before the interruption"
            )),
        "{}",
        o.stdout
    );
    assert!(
        o.stdout
            .lines()
            .any(|l| l == format!("PFCP: {established} sessions deleted")),
        "{}",
        o.stdout
    );
    assert!(
        o.reflector_log
            .contains("released the association (0 sessions removed)"),
        "sessions were left on the reflector:\n{}",
        o.reflector_log
    );
    assert_eq!(
        o.report["steps"].as_array().map(Vec::len),
        Some(0),
        "nothing measured"
    );
}
