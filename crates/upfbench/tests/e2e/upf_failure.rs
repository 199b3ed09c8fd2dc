//! A UPF that fails mid-run, played by the reflector over memif: it restarts (its N4
//! impairment `restart_at`, or SIGUSR1) and the run stops or re-establishes every session; it
//! stops answering on N4 (`silent_after`) and the run stops or goes on; it loses 30 % of N4's
//! datagrams, and every session is still established exactly once.

use std::time::Duration;

use serde_json::Value;

use crate::harness::{assert_sessions, num, patch, serial, total};
use crate::memif::{Memif, Outcome, RATE, finish, profile};

const SESSIONS: u32 = 4;

/// Packets in flight at any moment, at most: 50 ms of both directions (a loaded 2-vCPU machine
/// gives the debug build's packets milliseconds of latency). The split counts them before it.
const IN_FLIGHT: u64 = 2 * RATE / 20;

/// The shipped memif pair with `pfcp` added to the system file's PFCP section (YAML lines) and
/// `n4` as the reflector's N4 impairments.
fn bed(case: &str, pfcp: &str, n4: &str, seconds: u64) -> Memif {
    bed_of(case, SESSIONS, pfcp, n4, seconds)
}

/// [`bed`] with `sessions` sessions.
fn bed_of(case: &str, sessions: u32, pfcp: &str, n4: &str, seconds: u64) -> Memif {
    Memif::shipped(
        case,
        ["memif.yaml", "memif-reflector.yaml"],
        ["upfbench-gen", "upfbench-reflect"],
        &profile(sessions, seconds, "1s"),
        |system, reflector| {
            let system = patch(&system, "pfcp:\n", &format!("pfcp:\n{pfcp}"));
            let reflector = patch(
                &reflector,
                "impairments: {}",
                &format!("impairments: {{n4: {n4}}}"),
            );
            (system, reflector)
        },
    )
}

/// A number of a log line: what follows `key` up to the next non-digit.
fn logged(log: &str, key: &str) -> Option<u64> {
    let at = log.find(key)? + key.len();
    log[at..]
        .chars()
        .take_while(char::is_ascii_digit)
        .collect::<String>()
        .parse()
        .ok()
}

fn fault(o: &Outcome) -> &Value {
    &o.report["control"]["upf_faults"][0]
}

fn secs(v: &Value, key: &str) -> f64 {
    v[key]
        .as_f64()
        .unwrap_or_else(|| panic!("{key} is not a time: {v}"))
}

/// The run's time `t_s` as Unix milliseconds.
fn unix_ms(o: &Outcome, t_s: f64) -> f64 {
    num(&o.report, &["started_unix_ms"]) as f64 + t_s * 1e3
}

/// The step's loss split at the fault adds up to what the step lost over all its traffic.
fn assert_split(o: &Outcome) -> (u64, u64) {
    let split = &o.report["steps"][0]["upf_faults"][0];
    let before = num(split, &["lost_before"]);
    let after = num(split, &["lost_after"]);
    println!("split: {split}");
    assert!(after > 0, "the failure lost nothing: {split}");
    (before, after)
}

#[test]
fn a_restart_with_stop_ends_the_run_with_its_report_naming_it() {
    let _guard = serial();
    let bed = bed("restart-stop", "  heartbeat: 1s\n", "{restart_at: 4s}", 10);
    let mut reflector = bed.reflector();
    let mut generator = bed.generator();
    let status = generator.wait(Duration::from_secs(60));
    let o = finish(&bed, &mut reflector, &generator, status);
    println!("{}", o.stdout);
    assert!(!o.status.success(), "a run the UPF cut short failed");
    let f = fault(&o);
    println!("fault: {f}");
    assert_eq!(f["kind"], "restart");
    assert_eq!(f["action"], "stopped");
    assert_eq!(num(f, &["sessions_lost"]), u64::from(SESSIONS));
    let restarted = logged(&o.reflector_log, "restarted at unix_ms ")
        .unwrap_or_else(|| panic!("no restart logged:\n{}", o.reflector_log))
        as f64;
    assert!(
        o.reflector_log
            .contains(&format!("{SESSIONS} sessions dropped"))
    );
    // Seen within one heartbeat interval (1 s) of the restart, and after it.
    let seen = unix_ms(&o, secs(f, "at_s"));
    let after = unix_ms(&o, secs(f, "after_s"));
    println!("restart at {restarted}, old stamp last seen {after}, restart seen {seen}");
    assert!(after <= restarted + 5.0, "{after} > {restarted}");
    assert!(seen >= restarted && seen - restarted <= 1_100.0, "{seen}");
    // The report names it; the teardown asked the restarted UPF nothing.
    let warnings = o.report["warnings"].to_string();
    assert!(warnings.contains("the UPF restarted"), "{warnings}");
    assert!(
        !o.stdout.contains("PFCP: deleting the sessions"),
        "{}",
        o.stdout
    );
    assert!(
        o.events
            .iter()
            .any(|e| e["name"] == "upf:fault" && e["data"]["what"] == "restart"),
        "no restart on the timeline"
    );
    // Everything the step lost the reflector dropped for want of a session after its restart;
    // the split puts no more than what was in flight at its time before it.
    let (before, after) = assert_split(&o);
    let dropped =
        total(&o.reflector, "dropped unknown_teid") + total(&o.reflector, "dropped unknown_ue");
    println!("the reflector dropped {dropped} without a session");
    assert_eq!(before + after, dropped, "{:?}", o.reflector);
    assert!(before <= IN_FLIGHT, "{before} lost before the restart");
}

#[test]
fn a_restart_with_reestablish_goes_on_and_reports_the_outage() {
    let _guard = serial();
    let bed = bed(
        "restart-again",
        "  heartbeat: 1s\n  on_upf_restart: reestablish\n",
        "{}",
        8,
    );
    let mut reflector = bed.reflector();
    let mut generator = bed.generator();
    generator.wait_until(Duration::from_secs(30), |out, _| {
        out.contains(&format!("PFCP: {SESSIONS} sessions established"))
    });
    // Into the measured phase (after the 1 s warm-up and its settling).
    std::thread::sleep(Duration::from_secs(3));
    reflector.signal("USR1");
    let status = generator.wait(Duration::from_secs(60));
    let o = finish(&bed, &mut reflector, &generator, status);
    println!("{}", o.stdout);
    assert!(o.status.success(), "{}", o.stdout);
    // Every session established twice at the reflector, once before and once after, and all
    // deleted at the end.
    assert_sessions(&o.stdout, &o.reflector_log, SESSIONS);
    assert_eq!(
        logged(&o.reflector_log, "sessions established "),
        Some(2 * u64::from(SESSIONS)),
        "{}",
        o.reflector_log
    );
    let f = fault(&o);
    println!("fault: {f}");
    assert_eq!(f["action"], "reestablished");
    assert_eq!(num(f, &["reestablished"]), u64::from(SESSIONS));
    let restarted =
        logged(&o.reflector_log, "restarted at unix_ms ").expect("restart logged") as f64;
    let seen = unix_ms(&o, secs(f, "at_s"));
    let again = unix_ms(&o, secs(f, "traffic_again_at_s"));
    let outage = secs(f, "outage_s");
    println!(
        "restart {restarted}, seen +{:.0} ms, traffic again +{:.0} ms, outage {outage:.3} s",
        seen - restarted,
        again - restarted
    );
    assert!(seen >= restarted && seen - restarted <= 1_100.0);
    assert!(again > seen);
    // The outage counts from the old stamp's last sighting: at most a heartbeat before the
    // restart, never after it.
    let from_restart = (again - restarted) / 1e3;
    assert!(
        outage >= from_restart - 0.02 && outage <= from_restart + 1.05,
        "outage {outage} s, {from_restart} s from the restart the reflector logged"
    );
    // What the restart lost is exactly what the reflector dropped for want of a session
    // between its restart and the re-establishment; no more than the outage's traffic.
    let (before, lost) = assert_split(&o);
    let dropped =
        total(&o.reflector, "dropped unknown_teid") + total(&o.reflector, "dropped unknown_ue");
    println!("lost {lost} after the restart, the reflector dropped {dropped} without a session");
    assert_eq!(before + lost, dropped);
    assert!(before <= IN_FLIGHT, "{before} lost before the restart");
    assert!(lost as f64 <= from_restart * 2.0 * RATE as f64 * 1.05);
    // The traffic flowed again to the end: the last seconds lost nothing.
    let seconds = o.report["steps"][0]["seconds"].as_array().expect("seconds");
    let last = &seconds[seconds.len() - 2];
    for d in last["directions"].as_array().expect("directions") {
        assert!(num(d, &["rx_packets"]) > 0, "{last}");
    }
}

#[test]
fn a_silent_upf_is_reported_after_n1_tries_and_stops_the_run() {
    let _guard = serial();
    let bed = bed(
        "silent-stop",
        "  heartbeat: 1s\n  t1: 500ms\n  n1: 2\n",
        "{silent_after: 5s}",
        10,
    );
    let mut reflector = bed.reflector();
    let mut generator = bed.generator();
    let status = generator.wait(Duration::from_secs(60));
    let o = finish(&bed, &mut reflector, &generator, status);
    println!("{}", o.stdout);
    assert!(!o.status.success());
    let f = fault(&o);
    println!("fault: {f}");
    assert_eq!(f["kind"], "heartbeat lost");
    assert_eq!(f["action"], "stopped");
    let silent = logged(&o.reflector_log, "from unix_ms ").expect("start logged") as f64 + 5_000.0;
    let seen = unix_ms(&o, secs(f, "at_s"));
    // The first heartbeat after the silence began (within 1 s), given up T1 × (N1 + 1) = 1.5 s
    // after it was sent.
    println!(
        "silent from {silent}, heartbeat loss seen +{:.0} ms",
        seen - silent
    );
    assert!(
        seen - silent >= 1_450.0 && seen - silent <= 2_600.0,
        "{} ms",
        seen - silent
    );
    assert!(!o.stdout.contains("PFCP: deleting the sessions"));
    assert!(
        o.report["warnings"]
            .to_string()
            .contains("stopped answering")
    );
    // The datapath went on forwarding: the split loses nothing either side.
    let split = &o.report["steps"][0]["upf_faults"][0];
    assert_eq!(
        (num(split, &["lost_before"]), num(split, &["lost_after"])),
        (0, 0),
        "{split}"
    );
}

#[test]
fn a_silent_upf_with_continue_is_reported_and_the_step_runs_to_its_end() {
    let _guard = serial();
    let bed = bed(
        "silent-go-on",
        "  heartbeat: 1s\n  t1: 500ms\n  n1: 2\n  on_upf_loss: continue\n",
        "{silent_after: 4s}",
        6,
    );
    let mut reflector = bed.reflector();
    let mut generator = bed.generator();
    let status = generator.wait(Duration::from_secs(90));
    let o = finish(&bed, &mut reflector, &generator, status);
    println!("{}", o.stdout);
    let f = fault(&o);
    println!("fault: {f}");
    assert_eq!(f["kind"], "heartbeat lost");
    assert_eq!(f["action"], "continued");
    // The silence lasted: more heartbeats were lost after the first.
    assert!(num(f, &["heartbeats_lost"]) >= 2, "{f}");
    // The whole measured phase ran (6 s of sending, however fast this machine sent), nothing
    // lost.
    assert_eq!(o.uplink.lost + o.downlink.lost, 0);
    let sending = o.report["steps"][0]["duration_s"]
        .as_f64()
        .expect("duration");
    assert!(sending >= 5.9, "sent for {sending} s");
    // The deletion met the silent UPF: the run says so.
    assert!(o.stdout.contains("PFCP: deleting the sessions"));
}

#[test]
fn a_restart_that_answers_no_heartbeat_is_found_by_reassociating_and_recovered() {
    // As Open5GS does: restarted, it answers no Heartbeat Request of a CP it has no association
    // with. Played by a reflector silent for a while from its restart: the heartbeat sent first
    // after it is lost; the Association Setup Request sent then is answered once the silence
    // ends (T1 0.5 s, N1 4: the silence ends between the heartbeat's last transmission and the
    // association's), with the new Recovery Time Stamp.
    let _guard = serial();
    let bed = bed(
        "reassociate",
        "  heartbeat: 1s\n  t1: 500ms\n  n1: 4\n  on_upf_loss: reassociate\n  \
         on_upf_restart: reestablish\n",
        "{restart_at: 5s, silent_after: 5s, silent_for: 3750ms}",
        10,
    );
    let mut reflector = bed.reflector();
    let mut generator = bed.generator();
    let status = generator.wait(Duration::from_secs(60));
    let o = finish(&bed, &mut reflector, &generator, status);
    println!("{}", o.stdout);
    assert!(o.status.success(), "{}", o.stdout);
    let faults = o.report["control"]["upf_faults"]
        .as_array()
        .expect("faults");
    println!("faults: {faults:?}");
    assert_eq!(faults.len(), 2, "{faults:?}");
    assert_eq!(faults[0]["kind"], "heartbeat lost");
    assert_eq!(faults[0]["action"], "reassociated");
    assert_eq!(faults[1]["kind"], "restart");
    assert_eq!(faults[1]["action"], "reestablished");
    assert_eq!(num(&faults[1], &["reestablished"]), u64::from(SESSIONS));
    assert_eq!(
        logged(&o.reflector_log, "sessions established "),
        Some(2 * u64::from(SESSIONS))
    );
    let restarted = logged(&o.reflector_log, "restarted at unix_ms ").expect("restart") as f64;
    let seen = unix_ms(&o, secs(&faults[1], "at_s"));
    let again = unix_ms(&o, secs(&faults[1], "traffic_again_at_s"));
    println!(
        "restart {restarted}, seen +{:.0} ms, traffic again +{:.0} ms",
        seen - restarted,
        again - restarted
    );
    // Seen once the silence ended (3.75 s), before the association's last try.
    assert!(seen - restarted >= 3_700.0 && seen - restarted <= 6_000.0);
    assert!(again > seen);
    // The restart's split: everything lost from it on is what the reflector dropped.
    let split = &o.report["steps"][0]["upf_faults"][1];
    let dropped =
        total(&o.reflector, "dropped unknown_teid") + total(&o.reflector, "dropped unknown_ue");
    assert_eq!(
        num(split, &["lost_before"]) + num(split, &["lost_after"]),
        dropped,
        "{split}"
    );
}

#[test]
fn n4_losing_30_percent_still_establishes_every_session_exactly_once() {
    let _guard = serial();
    const MANY: u32 = 50;
    let bed = bed_of(
        "n4-loss",
        MANY,
        "  t1: 200ms\n  n1: 10\n",
        "{drop: 30%, delay: 2ms, reorder: 10%, seed: 7}",
        3,
    );
    let mut reflector = bed.reflector();
    let mut generator = bed.generator();
    let status = generator.wait(Duration::from_secs(90));
    let o = finish(&bed, &mut reflector, &generator, status);
    println!("{}", o.stdout);
    let faults = o
        .reflector_log
        .lines()
        .find(|l| l.contains("N4 faults: datagrams dropped"))
        .expect("the faults' counts")
        .to_owned();
    println!("{faults}");
    let established = logged(&o.reflector_log, "sessions established ").expect("totals");
    let from_cache = logged(&o.reflector_log, "answered again from the cache ").expect("totals");
    let dropped_in = logged(&faults, "dropped in ").expect("count");
    let dropped_out = logged(&faults, "out ").expect("count");
    assert!(dropped_in > 0 && dropped_out > 0, "{faults}");
    if o.status.success() {
        // Exactly once each: the retransmissions were answered from the cache. (The release,
        // sent once, may be lost: the deletions are what count.)
        for line in [
            format!("PFCP: {MANY} sessions established"),
            format!("PFCP: {MANY} sessions deleted"),
        ] {
            assert!(o.stdout.lines().any(|l| l == line), "{line}");
        }
        assert_eq!(established, u64::from(MANY));
        assert_eq!(
            logged(&o.reflector_log, "deleted "),
            Some(u64::from(MANY)),
            "{}",
            o.reflector_log
        );
        assert!(from_cache > 0, "{}", o.reflector_log);
        assert!(num(&o.report, &["control", "retransmissions"]) > 0);
        assert_eq!(o.uplink.lost + o.downlink.lost, 0);
    } else {
        // The run stopped after the configured retries, with the cause named.
        assert!(
            o.stdout.contains("timed out") || o.stdout.contains("no response"),
            "{}",
            o.stdout
        );
        assert!(established <= u64::from(MANY));
    }
}
