//! `upfbench sweep` against the reflector over memif: the profile's payloads one after the
//! other, each step measured exactly and reported on its own (a row of the comparison table,
//! a step of report.json with its timeline, an interval log, two plots on report.html), with
//! the system file's initial PFCP window.

use std::path::Path;
use std::time::Duration;

use serde_json::Value;

use crate::harness::{
    assert_sessions, besides_tx_slips, num, patch, read_report, report_folder, runtime_dir, serial,
    warnings,
};
use crate::memif::{Memif, hlog_intervals};

/// Packets per second each way: modest, as in the memif cases.
const RATE: u64 = 50_000;
const PAYLOADS: [u64; 3] = [10, 300, 1400];

/// The comparison table's rows in report.txt: the first cell of each.
fn comparison_rows(table: &str) -> Vec<String> {
    let (_, tail) = table
        .split_once("Comparison: a row per step")
        .unwrap_or_else(|| panic!("no comparison table in:\n{table}"));
    tail.lines()
        .skip_while(|l| !l.starts_with('|'))
        .take_while(|l| l.starts_with('|'))
        // The header and the alignment row.
        .skip(2)
        .map(|l| {
            l.trim_matches('|')
                .split('|')
                .next()
                .unwrap_or_default()
                .trim()
                .to_owned()
        })
        .collect()
}

#[test]
fn memif_sweep_measures_every_payload_exactly_and_reports_each_step() {
    let _serial = serial();
    let bed = sweep_bed();
    let stdout = run_sweep(&bed);
    check_step_lines(&stdout);
    let report = read_report(&bed.reports());
    assert_eq!(besides_tx_slips(warnings(&report)), Vec::<String>::new());
    let steps = report["steps"].as_array().expect("steps");
    assert_eq!(steps.len(), PAYLOADS.len(), "one step per payload");
    let folder = report_folder(&bed.reports());
    assert!(
        folder.to_string_lossy().ends_with("-e2e-sweep"),
        "{}",
        folder.display()
    );
    for (step, &p) in steps.iter().zip(&PAYLOADS) {
        check_step(step, p, &folder);
    }
    check_report_html(&folder);
    check_comparison_and_control(&folder, &report);
}

/// A bed for the three payloads at RATE each way for 1 s, with the system file's initial PFCP
/// window at 8.
fn sweep_bed() -> Memif {
    let profile = format!(
        "name: e2e\n\
         streams:\n  \
           - {{name: ul, direction: uplink, rate: {RATE}pps, payload: 100}}\n  \
           - {{name: dl, direction: downlink, rate: {RATE}pps, payload: 100}}\n\
         duration: 1s\n\
         warmup: 0s\n\
         drain: 300ms\n\
         sweep: {{payloads: [10, 300, 1400]}}\n"
    );
    let bed = Memif::new("sweep", "{}", &profile);
    // An initial window other than the default (16): the control report's largest window
    // shows it (one session, two answers, so the window does not grow past it).
    let system = std::fs::read_to_string(&bed.system).expect("system file");
    let system = patch(
        &system,
        "\nreports: reports",
        "\n  window: {initial: 8, max: 32}\nreports: reports",
    );
    std::fs::write(&bed.system, system).expect("write the system file");
    upfbench_config::load_run(&bed.system, &bed.profile).unwrap_or_else(|e| panic!("{e}"));
    bed
}

/// The sweep against the reflector: both exit cleanly, leaving no runtime files, with one
/// session; returns the generator's output.
fn run_sweep(bed: &Memif) -> String {
    let mut reflector = bed.reflector();
    let mut generator = bed.command("sweep");
    let status = generator.wait(Duration::from_secs(60));
    assert!(
        !runtime_dir(&bed.gen_prefix).exists(),
        "the generator left its runtime files"
    );
    let refl_status = reflector.stop(Duration::from_secs(15));
    assert!(refl_status.success(), "reflector: {refl_status}");
    assert!(!runtime_dir(&bed.refl_prefix).exists());
    let stdout = generator.stdout();
    assert!(
        status.success(),
        "generator: {status}\n{}",
        generator.logs()
    );
    assert_sessions(&stdout, &reflector.stderr(), 1);
    stdout
}

/// A line per step, with its payload.
fn check_step_lines(stdout: &str) {
    for (i, p) in PAYLOADS.iter().enumerate() {
        let line = format!("step {}: payload {p} B", i + 1);
        assert!(
            stdout.lines().any(|l| l == line),
            "no {line:?} in:\n{stdout}"
        );
    }
}

/// One step: its payload and label, and for each direction exact counts, a latency sample per
/// packet in the report and in the interval log, and the timeline's packets.
fn check_step(step: &Value, p: u64, folder: &Path) {
    assert_eq!(num(step, &["payload_bytes"]), p, "{step}");
    assert_eq!(step["label"], format!("{p} B"));
    let hlog = std::fs::read(folder.join(format!("latency-{p}B.hlog")))
        .unwrap_or_else(|e| panic!("latency-{p}B.hlog: {e}"));
    let intervals = hlog_intervals(&hlog);
    for d in step["directions"].as_array().expect("directions") {
        let name = d["direction"].as_str().expect("a direction");
        let sent = num(d, &["loss", "sent"]);
        let received = num(d, &["rx", "packets"]);
        let samples = num(d, &["latency", "samples"]);
        println!(
            "sweep: {p} B {name}: sent {sent} received {received} lost {} samples {samples}",
            num(d, &["loss", "lost"])
        );
        assert_eq!(sent, RATE, "{p} B {name}: sent exactly 1 s of {RATE} pps");
        assert_eq!(received, sent, "{p} B {name}: zero loss");
        assert_eq!(num(d, &["loss", "lost"]), 0, "{p} B {name}");
        assert_eq!(samples, received, "{p} B {name}: a sample per packet");
        let logged: u64 = intervals
            .iter()
            .filter(|(tag, _)| tag == name)
            .map(|(_, n)| n)
            .sum();
        assert_eq!(
            logged, samples,
            "{p} B {name}: the interval log holds every sample"
        );
        // The step's timeline: the live lines' packets add up to what it sent.
        let seconds = step["seconds"].as_array().expect("the step's seconds");
        let timeline_sent: u64 = seconds
            .iter()
            .flat_map(|s| s["directions"].as_array().expect("directions"))
            .filter(|d| d["direction"] == name)
            .map(|d| num(d, &["tx_packets"]))
            .sum();
        assert_eq!(timeline_sent, sent, "{p} B {name}: the seconds' packets");
    }
    assert_eq!(
        step["seconds"].as_array().unwrap().last().unwrap()["phase"],
        "end"
    );
}

/// The page beside the report: its tables and a latency distribution and a timeline per
/// step, each also an SVG file.
fn check_report_html(folder: &Path) {
    let html = std::fs::read_to_string(folder.join("report.html")).expect("report.html");
    assert_eq!(
        html.matches("<svg ").count(),
        2 * PAYLOADS.len(),
        "plots in report.html"
    );
    assert!(html.contains("<h1>upfbench sweep: e2e</h1>"), "{html}");
    assert!(!html.contains("http"), "a URL in report.html");
    for p in PAYLOADS {
        for kind in ["latency", "timeline"] {
            let svg = folder.join(format!("{kind}-{p}B.svg"));
            assert!(svg.is_file(), "{}", svg.display());
        }
    }
}

/// report.txt's comparison table, a row per payload, and the control report's window.
fn check_comparison_and_control(folder: &Path, report: &Value) {
    let table = std::fs::read_to_string(folder.join("report.txt")).expect("report.txt");
    assert_eq!(
        comparison_rows(&table),
        PAYLOADS.map(|p| p.to_string()),
        "one comparison row per payload:\n{table}"
    );
    let c = &report["control"];
    assert_eq!(num(c, &["window_largest"]), 8, "{c}");
    assert_eq!(num(c, &["established"]), 1, "{c}");
    assert_eq!(num(c, &["deleted"]), 1, "{c}");
}
