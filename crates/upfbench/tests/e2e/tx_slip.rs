//! A TX worker asked for more than it can send (400 Mpps on `net_null`): it does not catch up at
//! line rate, its schedule slips, and the report says by how much — in report.json per
//! direction and per stream, in report.csv, in report.txt's TX schedule section, and as a
//! warning; while it runs, the live line says how far behind it is.

use std::time::Duration;

use upfbench_testkit::eal::process_args_yaml;

use crate::harness::{
    Process, Scratch, UPFBENCH, num, read_report, report_folder, serial, unique, warnings,
};
use serde_json::Value;
use std::path::Path;

#[test]
fn a_tx_that_cannot_keep_up_slips_and_the_report_says_so() {
    let _serial = serial();
    let scratch = Scratch::new("txslip");
    let prefix = unique("txslip");
    let reports = scratch.path().join("reports");
    let generator = run_at_400_mpps(&scratch, &prefix, &reports);
    let report = read_report(&reports);
    let slip = check_report_json(&report);
    check_warning_and_report_txt(&report, &reports);
    check_report_csv(&reports, &slip);
    check_live_line(&generator);
}

/// Runs the generator without PFCP on `net_null`, asked for 400 Mpps for 500 ms; it exits
/// cleanly within 30 s.
fn run_at_400_mpps(scratch: &Scratch, prefix: &str, reports: &Path) -> Process {
    let system = scratch.write(
        "system.yaml",
        &format!(
            "kind: system\n\
             eal:\n  args: {eal_args}\n  file_prefix: {prefix}\n\
             cores: {{main: 0, workers: [1]}}\n\
             n3: {{device: net_null0, devargs: no-rx=1, address: 192.168.13.131/24, peer: 192.168.13.151, peer_mac: \"02:00:00:00:00:01\"}}\n\
             n6: {{device: net_null1, devargs: no-rx=1, address: 192.168.16.152/24, peer: 192.168.16.151, peer_mac: \"02:00:00:00:00:02\"}}\n\
             reports: {}\n",
            reports.display(),
            eal_args = process_args_yaml(512),
        ),
    );
    let profile = scratch.write(
        "profile.yaml",
        "name: slip\nsessions: {count: 16}\nstreams:\n  - {name: ul, direction: uplink, rate: 400Mpps, payload: 10}\nduration: 500ms\nwarmup: 0s\ndrain: 100ms\n",
    );
    let mut generator = Process::spawn(
        "generator",
        scratch,
        None,
        &[
            UPFBENCH,
            "run",
            &system.to_string_lossy(),
            &profile.to_string_lossy(),
            "--no-pfcp",
        ],
        Some(prefix),
    );
    let status = generator.wait(Duration::from_secs(30));
    assert!(status.success(), "{status}\n{}", generator.logs());
    generator
}

/// report.json: exact sent counts, and a slip of all the time the sender took beyond its
/// schedule, in the direction and in its stream; returns the direction's slip.
fn check_report_json(report: &Value) -> Value {
    let step = &report["steps"][0];
    let d = &step["directions"][0];
    assert_eq!(d["direction"], "uplink");
    let sent = num(d, &["loss", "sent"]);
    assert_eq!(sent, num(d, &["tx", "packets"]), "sent counts are exact");
    // 200 M packets asked in 500 ms: whatever it sent took it longer, all of it a slip (it
    // sends for the measured phase's limit, 2.75 s, or, at 100 Mpps, 2 s: the live line at 1 s
    // is in it).
    let duration_us = step["duration_s"].as_f64().expect("duration") * 1e6;
    let planned_us = sent as f64 / 400.0;
    let slip = &d["tx_slip"];
    let slipped_us = slip["slipped_us"].as_f64().expect("a slip in report.json");
    assert!(num(slip, &["count"]) >= 1, "{slip}");
    // Catching up (10% by default) cannot help a sender at its limit: it stays late.
    let max_late_us = slip["max_late_us"].as_f64().expect("max_late_us");
    assert!(max_late_us >= slipped_us, "{slip}");
    assert!(
        (slipped_us - (duration_us - planned_us)).abs() < 0.01 * duration_us,
        "slipped {slipped_us} us: it sent {sent} in {duration_us} us, {planned_us} us of schedule"
    );
    assert_eq!(
        step["streams"][0]["tx_slip"], *slip,
        "the stream's is its direction's"
    );
    slip.clone()
}

/// The warning and report.txt's TX schedule section.
fn check_warning_and_report_txt(report: &Value, reports: &Path) {
    let w = warnings(report);
    assert!(
        w.iter()
            .any(|w| w.contains("uplink TX fell behind its schedule")),
        "{w:?}"
    );
    let folder = report_folder(reports);
    let text = std::fs::read_to_string(folder.join("report.txt")).expect("report.txt");
    assert!(
        text.contains("TX schedule:") && text.contains("run uplink: fell behind its schedule"),
        "{text}"
    );
}

/// report.csv: the same figures in the uplink's row.
fn check_report_csv(reports: &Path, slip: &Value) {
    let slipped_us = slip["slipped_us"].as_f64().expect("a slip in report.json");
    let max_late_us = slip["max_late_us"].as_f64().expect("max_late_us");
    let folder = report_folder(reports);
    let csv = std::fs::read_to_string(folder.join("report.csv")).expect("report.csv");
    let mut lines = csv.lines();
    let header: Vec<&str> = lines.next().expect("header").split(',').collect();
    let row: Vec<&str> = lines.next().expect("the uplink's row").split(',').collect();
    let col = |name: &str| {
        let i = header
            .iter()
            .position(|h| *h == name)
            .unwrap_or_else(|| panic!("{name}"));
        row[i]
            .parse::<f64>()
            .unwrap_or_else(|e| panic!("{name}: {e}"))
    };
    assert_eq!(col("tx_slip_count"), num(slip, &["count"]) as f64, "{csv}");
    assert!((col("tx_slipped_us") - slipped_us).abs() < 0.001, "{csv}");
    assert!((col("tx_max_late_us") - max_late_us).abs() < 0.001, "{csv}");
}

/// The live line during the measured phase: the uplink's sender behind its schedule.
fn check_live_line(generator: &Process) {
    let stdout = generator.stdout();
    let live: Vec<&str> = stdout
        .lines()
        .filter(|l| l.trim_start().starts_with("Measure") && l.contains(" UL tx "))
        .collect();
    println!("txslip live: {live:?}");
    assert!(
        live.iter()
            .any(|l| l.contains(" tx behind ") && l.ends_with(" ms")),
        "no live line with the lateness:\n{stdout}"
    );
}
