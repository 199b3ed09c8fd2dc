//! The command line's overrides of a profile, over memif against one reflector: `-m 50%`
//! halves what a run sends; `-m 50Mbps` gives each step of a sweep that total at layer 1
//! whatever its payload; `-d 2s` doubles the profile's 1-second measured phase; `--label`
//! names each run in report.json, report.txt, report.html and `upfbench compare`.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use serde_json::Value;

use crate::harness::{UPFBENCH, num, read_report, report_folder, runtime_dir, serial};
use crate::memif::{Memif, RATE, profile};

/// The run's report folder, moved out of the reports' directory (so that the next run's is
/// the only one there) to `to`.
fn keep(bed: &Memif, to: &Path) -> (Value, PathBuf) {
    let report = read_report(&bed.reports());
    std::fs::create_dir_all(to.parent().expect("a parent")).expect("mkdir");
    std::fs::rename(report_folder(&bed.reports()), to).expect("move the report");
    (report, to.to_owned())
}

fn float(v: &Value, path: &[&str]) -> f64 {
    let mut at = v;
    for k in path {
        at = match k.parse::<usize>() {
            Ok(i) => &at[i],
            Err(_) => &at[*k],
        };
    }
    at.as_f64()
        .unwrap_or_else(|| panic!("{path:?} is not a number: {at}"))
}

/// `a` within `tolerance` (a fraction) of `b`.
fn near(a: f64, b: f64, tolerance: f64) -> bool {
    (a - b).abs() <= tolerance * b.abs()
}

/// Whether every sender of `step` kept its schedule (the report has no `tx_slip` then); else
/// says so.
fn kept_schedule(step: &Value) -> bool {
    let slipped = step["directions"]
        .as_array()
        .expect("directions")
        .iter()
        .any(|d| !d["tx_slip"].is_null());
    if slipped {
        println!(
            "overrides: {}: a sender fell behind its schedule (a shared core): its rate is not \
             checked",
            step["label"]
        );
    }
    !slipped
}

/// `step` sent for `seconds`: a little longer when a sender fell behind, never shorter.
fn check_duration(step: &Value, seconds: f64) {
    let measured = float(step, &["duration_s"]);
    println!("overrides: {}: sent for {measured:.4} s", step["label"]);
    assert!(measured > seconds * 0.98, "{measured} s for {seconds} s");
    if kept_schedule(step) {
        assert!(
            near(measured, seconds, 0.05),
            "{measured} s for {seconds} s"
        );
    }
}

#[test]
fn memif_multiplier_duration_and_label_change_the_run_and_its_report() {
    let _serial = serial();
    // 50 kpps each way for 1 s, 100-byte payloads, one UE.
    let bed = Memif::new("overrides", "{}", &profile(1, 1, "0s"));
    let mut reflector = bed.reflector();

    let (half, half_dir) = run_at_half_rate(&bed);
    check_half_rate(&half, &half_dir);
    let (bits, bits_dir) = sweep_at_50_mbps_for_2_s(&bed);
    let refl = reflector.stop(Duration::from_secs(15));
    assert!(refl.success(), "reflector: {refl}\n{}", reflector.logs());
    assert!(!runtime_dir(&bed.gen_prefix).exists());
    check_50_mbps_sweep(&bits);
    check_compare_names_each_run(&half_dir, &bits_dir);
}

/// -m 50%: half the profile's packets, at half its rate.
fn run_at_half_rate(bed: &Memif) -> (Value, PathBuf) {
    let mut run = bed.command_with("run", &["-m", "50%", "--label", "half rate"]);
    let status = run.wait(Duration::from_secs(60));
    assert!(status.success(), "run -m 50%: {status}\n{}", run.logs());
    keep(bed, &bed.scratch.path().join("kept/half/run"))
}

/// The half-rate run's label, multiplier, packets, rate and duration, in report.json, report.txt
/// and report.html.
fn check_half_rate(half: &Value, half_dir: &Path) {
    assert_eq!(half["config"]["label"], "half rate");
    let m = &half["multiplier"];
    assert_eq!(m["given"], "50%", "{m}");
    assert_eq!(float(m, &["steps", "0", "factor"]), 0.5);
    let m0 = &m["steps"][0];
    assert_eq!(m0["step"], "run");
    assert_eq!(float(m0, &["pps"]), RATE as f64, "half of 2 × {RATE} pps");
    let step = &half["steps"][0];
    let seconds = float(step, &["duration_s"]);
    for d in step["directions"].as_array().expect("directions") {
        let name = d["direction"].as_str().expect("direction");
        let sent = num(d, &["loss", "sent"]);
        let kpps = float(d, &["tx", "kpps"]);
        println!(
            "overrides: -m 50% {name}: sent {sent} (profile: {RATE} in 1 s) at {kpps:.2} kpps \
             over {seconds:.4} s, received {}",
            num(d, &["rx", "packets"])
        );
        assert_eq!(sent, RATE / 2, "{name}: half the profile's packets");
        assert_eq!(num(d, &["rx", "packets"]), sent, "{name}: zero loss");
        // The rate it kept, unless the report says that the sender fell behind (a shared
        // core): then the rate is what it achieved.
        if kept_schedule(step) {
            assert!(near(kpps, RATE as f64 / 2e3, 0.02), "{name}: {kpps} kpps");
        }
    }
    check_duration(step, 1.0);
    let text = std::fs::read_to_string(half_dir.join("report.txt")).expect("report.txt");
    assert_eq!(text.lines().nth(1), Some("label: half rate"), "{text}");
    assert!(
        text.contains("Rates multiplied by -m 50%: ") && text.contains("\n  run: x0.5, 50.0 Kpps"),
        "{text}"
    );
    let html = std::fs::read_to_string(half_dir.join("report.html")).expect("report.html");
    assert!(html.contains("<h1>upfbench run: half rate</h1>"), "{html}");
}

/// -m 50Mbps on a sweep: 50 Mbps at L1 in all at each payload; -d 2s: each step 2 s.
fn sweep_at_50_mbps_for_2_s(bed: &Memif) -> (Value, PathBuf) {
    let mut sweep = bed.command_with(
        "sweep",
        &[
            "--payloads",
            "10,1400",
            "-m",
            "50Mbps",
            "-d",
            "2s",
            "--label",
            "50 Mbps",
        ],
    );
    let status = sweep.wait(Duration::from_secs(60));
    assert!(
        status.success(),
        "sweep -m 50Mbps: {status}\n{}",
        sweep.logs()
    );
    keep(bed, &bed.scratch.path().join("kept/bits/sweep"))
}

/// The sweep's label, and each step's factor, packets, L1 rate and duration.
fn check_50_mbps_sweep(bits: &Value) {
    assert_eq!(bits["config"]["label"], "50 Mbps");
    let planned = bits["multiplier"]["steps"]
        .as_array()
        .expect("a row per step");
    let steps = bits["steps"].as_array().expect("steps");
    assert_eq!((planned.len(), steps.len()), (2, 2));
    for (p, s) in planned.iter().zip(steps) {
        let factor = float(p, &["factor"]);
        assert!(near(float(p, &["gbps_l1"]), 0.05, 1e-9), "{p}");
        let seconds = float(s, &["duration_s"]);
        let mut gbps = 0.0;
        for d in s["directions"].as_array().expect("directions") {
            let sent = num(d, &["loss", "sent"]);
            // Each stream at the profile's rate times the step's factor, for 2 s.
            let want = (RATE as f64 * factor * 2.0).round() as u64;
            println!(
                "overrides: -m 50Mbps -d 2s {} {}: factor {factor:.5}, sent {sent} (planned \
                 {want}), {:.4} Gbps L1 over {seconds:.4} s",
                s["label"],
                d["direction"],
                float(d, &["tx", "gbps_l1"])
            );
            assert_eq!(sent, want, "{}", s["label"]);
            assert_eq!(num(d, &["rx", "packets"]), sent, "zero loss");
            gbps += float(d, &["tx", "gbps_l1"]);
        }
        if kept_schedule(s) {
            assert!(
                near(gbps, 0.05, 0.02),
                "{}: {gbps} Gbps L1 in all",
                s["label"]
            );
        }
        check_duration(s, 2.0);
    }
    // The larger payload needs fewer packets for the same bits.
    assert!(float(&planned[0], &["factor"]) > 10.0 * float(&planned[1], &["factor"]));
}

/// compare names each run by its label.
fn check_compare_names_each_run(half_dir: &Path, bits_dir: &Path) {
    let out = Command::new(UPFBENCH)
        .arg("compare")
        .args([half_dir, bits_dir])
        .output()
        .expect("upfbench compare");
    let md = String::from_utf8_lossy(&out.stdout);
    println!("{md}");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        md.contains("- **half rate**: run of profile `e2e` at -m 50%, started "),
        "{md}"
    );
    assert!(
        md.contains("- **50 Mbps**: sweep of profile `e2e` at -m 50Mbps, started "),
        "{md}"
    );
    assert!(md.contains("| half rate Tx Gbps |"), "{md}");
    assert!(md.contains("| 50 Mbps Tx Gbps |"), "{md}");
}
