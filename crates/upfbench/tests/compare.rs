//! `upfbench compare` on hand-made reports (`crates/present/tests/fixtures`): two runs of two
//! UPFs at 300 B (one labelled in its system file, one named by its folder) and a search at
//! 300 and 1400 B. No port, no UPF: the command only reads reports.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../present/tests/fixtures")
}

fn upfbench(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_upfbench"))
        .current_dir(fixtures())
        .args(args)
        .output()
        .expect("run upfbench")
}

fn stdout(out: &Output) -> String {
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout.clone()).expect("UTF-8")
}

const REPORTS: [&str; 3] = ["open5gs-run", "eupf-run", "upg-vpp-search/report.json"];

#[test]
fn the_markdown_has_a_row_per_payload_and_a_column_group_per_report() {
    let md = stdout(&upfbench(&[&["compare"][..], &REPORTS].concat()));
    assert!(md.starts_with("## Comparison of 3 reports\n"), "{md}");
    // The labels: the system file's, else the folder's name.
    assert!(
        md.contains("- **open5gs 2.7.7**: run of profile `published-300`"),
        "{md}"
    );
    assert!(
        md.contains("- **eupf-run**: run of profile `published-300`"),
        "{md}"
    );
    assert!(
        md.contains("- **upg-vpp 1.13**: search of profile `search`"),
        "{md}"
    );
    // A run's row comes from its streams' payload (the step has none of its own).
    let uplink = "| Payload B | open5gs 2.7.7 Tx Gbps | open5gs 2.7.7 Rx Gbps | open5gs 2.7.7 Rx Kpps \
                  | open5gs 2.7.7 Loss % | open5gs 2.7.7 p50 us | open5gs 2.7.7 p99 us | eupf-run \
                  Tx Gbps |";
    assert!(md.contains(uplink), "{md}");
    // open5gs lost 1,234 of 4,000,000 uplink packets; p50 8.2 µs, p99 32.8 µs.
    assert!(
        md.contains("|       300 |                 1.299 |                 1.184 |                 399.9 |                0.031 |                 8.20 |                32.80 |            1.299 |"),
        "{md}"
    );
    // The search: NDR and PDR per payload, PDR at 1400 B only a lower bound (Max Load).
    assert!(md.contains("| Payload B | upg-vpp 1.13 NDR Mpps | upg-vpp 1.13 NDR Gbps | upg-vpp 1.13 PDR Mpps | upg-vpp 1.13 PDR Gbps |"), "{md}");
    assert!(md.contains("|       300 |                 2.099 |                 6.515 |                 2.319 |                 7.198 |"), "{md}");
    assert!(md.contains("|      1400 |                 0.700 |                 8.329 |               ≥ 0.840 |               ≥ 9.994 |"), "{md}");
    assert!(md.contains("≥: a lower bound only"));
}

#[test]
fn csv_is_one_wide_table_of_plain_numbers() {
    let csv = stdout(&upfbench(&[&["compare", "--csv"][..], &REPORTS].concat()));
    let lines: Vec<&str> = csv.lines().collect();
    assert_eq!(lines.len(), 3, "{csv}");
    let header: Vec<&str> = lines[0].split(',').collect();
    // Two runs × two directions × 6 figures, the search's two goals × (Mpps, Gbps, status).
    assert_eq!(header.len(), 1 + 24 + 6);
    assert_eq!(header[1], "open5gs 2.7.7 UL Tx Gbps");
    assert_eq!(header[30], "upg-vpp 1.13 both PDR status");
    let row_1400: Vec<&str> = lines[2].split(',').collect();
    assert_eq!(row_1400[0], "1400");
    // No run at 1400 B: empty fields; the search's figures without their marks.
    assert!(row_1400[1..25].iter().all(|f| f.is_empty()), "{row_1400:?}");
    assert_eq!(
        &row_1400[25..],
        ["0.700", "8.329", "regular", "0.840", "9.994", "max load"]
    );
}

#[test]
fn out_writes_the_tables_the_plots_and_a_self_contained_page() {
    let dir = std::env::temp_dir().join(format!("upfbench-compare-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let out = upfbench(&[&["compare", "--out", dir.to_str().unwrap()][..], &REPORTS].concat());
    let md = stdout(&out);
    let read = |name: &str| {
        std::fs::read_to_string(dir.join(name)).unwrap_or_else(|e| panic!("{name}: {e}"))
    };
    assert_eq!(read("compare.md"), md);
    assert!(read("compare.csv").starts_with("payload,open5gs 2.7.7 UL Tx Gbps,"));
    for svg in [
        "compare-throughput-gbps.svg",
        "compare-throughput-mpps.svg",
        "compare-latency.svg",
    ] {
        assert!(read(svg).starts_with("<svg "), "{svg}");
    }
    let html = read("report.html");
    assert_eq!(html.matches("<svg ").count(), 3);
    assert!(html.contains("<th class=\"group\" colspan=\"6\">open5gs 2.7.7</th>"));
    assert!(html.contains("<td class=\"num\">≥ 0.840</td>"));
    assert!(!html.contains("http"), "a URL in the page");
    // Where it went, on standard error: standard output is the table alone.
    assert!(String::from_utf8_lossy(&out.stderr).contains("compare: wrote"));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn the_same_report_twice_gets_two_names() {
    let md = stdout(&upfbench(&[
        "compare",
        "open5gs-run",
        "open5gs-run/report.json",
    ]));
    assert!(md.contains("- **open5gs 2.7.7 (2)**: run"), "{md}");
    assert!(md.contains("| open5gs 2.7.7 (2) Tx Gbps |"), "{md}");
}

#[test]
fn what_is_not_a_report_is_named_and_refused() {
    let out = upfbench(&["compare", "open5gs-run", "."]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(out.stdout.is_empty());
    assert!(
        err.contains("reading the reports to compare: .: no report.json in this folder"),
        "{err}"
    );
    let out = upfbench(&["compare", "../fixtures/missing/report.json"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(
        err.contains("missing/report.json: No such file or directory"),
        "{err}"
    );
    assert!(!err.contains("EAL"));
    // A report's own folder is not a comparison's: its report.html would be replaced.
    let out = upfbench(&["compare", "open5gs-run", "--out", "eupf-run"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(
        err.contains("--out eupf-run: that folder holds a report"),
        "{err}"
    );
    assert!(!fixtures().join("eupf-run/report.html").exists());
}
