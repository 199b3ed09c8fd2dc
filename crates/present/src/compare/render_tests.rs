//! The comparison of two sweeps and a search, made by hand: its model, its Markdown and its
//! CSV.

use super::*;
use crate::samples::{search, sweep};

fn comparison() -> Comparison {
    let (a, b, s) = (sweep("open5gs", 100), sweep("eupf", 200), search("upg-vpp"));
    Comparison::new(&[
        Labelled {
            label: "open5gs",
            report: &a,
        },
        Labelled {
            label: "eupf",
            report: &b,
        },
        Labelled {
            label: "upg-vpp",
            report: &s,
        },
    ])
}

#[test]
fn runs_by_direction_and_searches_by_direction_set() {
    let c = comparison();
    let titles: Vec<&str> = c.sections.iter().map(|s| s.short.as_str()).collect();
    assert_eq!(titles, ["UL", "DL", "both"]);
    let ul = &c.sections[0];
    let labels: Vec<&str> = ul.groups.iter().map(|g| g.label.as_str()).collect();
    assert_eq!(labels, ["open5gs", "eupf"]);
    let keys: Vec<String> = ul.rows.iter().map(|r| r.key.to_string()).collect();
    assert_eq!(keys, ["10", "300", "1400"]);
    // open5gs at 300 B: 25 of 500,000 uplink packets lost.
    let loss = &ul.rows[1].cells[3];
    assert_eq!((loss.text.as_str(), loss.csv.as_str()), ("0.005", "0.005"));
    // eupf's Rx Kpps at 1400 B (half its rate), then its p50 (2 µs + 1 µs per step).
    assert_eq!(ul.rows[2].cells[6 + 2].text, "100.0");
    assert_eq!(ul.rows[2].cells[6 + 4].text, "3.00");
    let both = &c.sections[2];
    assert_eq!(both.groups.len(), 1);
    let names: Vec<&str> = both.groups[0]
        .columns
        .iter()
        .map(|c| c.name.as_str())
        .collect();
    assert_eq!(
        names,
        [
            "NDR Mpps",
            "NDR Gbps",
            "NDR status",
            "PDR Mpps",
            "PDR Gbps",
            "PDR status"
        ]
    );
    let keys: Vec<String> = both.rows.iter().map(|r| r.key.to_string()).collect();
    assert_eq!(keys, ["10", "1400"]);
    // 10 B: NDR's conditional throughput 2.6 Mpps × 0.999; 1400 B: PDR at Max Load.
    assert_eq!(both.rows[0].cells[0].text, "2.597");
    assert_eq!(both.rows[1].cells[3].text, "≥ 0.839");
    assert_eq!(both.rows[1].cells[3].csv, "0.839");
    assert_eq!(both.rows[1].cells[0].text, "≥ 0.799 (tester-limited)");
    assert_eq!(both.rows[1].cells[2].csv, "tester-limited");
    assert!(c.notes.is_empty(), "{:?}", c.notes);
    assert_eq!(c.reports[0].kind, "sweep");
    assert_eq!(c.reports[2].kind, "search");
}

#[test]
fn the_markdown_has_a_column_per_report_and_figure() {
    let md = markdown::render(&comparison());
    assert!(md.starts_with("## Comparison of 3 reports\n\n- **open5gs**: sweep of profile `published`, started 2026-11-26T00:08:58.586Z\n"), "{md}");
    assert!(md.contains("\n### Uplink (GTP-U on N3 → N6)\n\n| Payload B | open5gs Tx Gbps | open5gs Rx Gbps | open5gs Rx Kpps | open5gs Loss % | open5gs p50 us | open5gs p99 us | eupf Tx Gbps |"), "{md}");
    assert!(md.contains("\n|        10 |           0.090 |           0.090 |           100.0 |          0.000 |           2.00 |          20.00 |        0.179 |"), "{md}");
    // The search's table: no status column, its marks explained under it.
    assert!(md.contains("| Payload B |         upg-vpp NDR Mpps |         upg-vpp NDR Gbps | upg-vpp PDR Mpps | upg-vpp PDR Gbps |\n"), "{md}");
    assert!(
        md.contains(
            "|      1400 | ≥ 0.799 (tester-limited) | ≥ 0.537 (tester-limited) |          ≥ 0.839 |"
        ),
        "{md}"
    );
    assert!(md.contains(markdown::SEARCH_MARKS));
    assert!(!md.contains("status"));
    assert!(!md.contains("Notes:"));
}

#[test]
fn the_csv_is_one_row_per_payload_with_every_column() {
    let csv = csv::render(&comparison());
    let lines: Vec<&str> = csv.lines().collect();
    let header: Vec<&str> = lines[0].split(',').collect();
    // payload, two sweeps × two directions × 6 figures, the search's 2 goals × 3.
    assert_eq!(header.len(), 1 + 2 * 2 * 6 + 2 * 3);
    assert_eq!(
        &header[..3],
        ["payload", "open5gs UL Tx Gbps", "open5gs UL Rx Gbps"]
    );
    assert_eq!(header[header.len() - 1], "upg-vpp both PDR status");
    assert_eq!(lines.len(), 1 + 3);
    let row_1400: Vec<&str> = lines[3].split(',').collect();
    assert_eq!(row_1400.len(), header.len());
    assert_eq!(row_1400[0], "1400");
    assert_eq!(
        &row_1400[25..],
        [
            "0.799",
            "0.537",
            "tester-limited",
            "0.839",
            "0.564",
            "max load"
        ]
    );
    // 300 B: the search has none, its fields are empty.
    let row_300: Vec<&str> = lines[2].split(',').collect();
    assert_eq!(&row_300[25..], ["", "", "", "", "", ""]);
}

#[test]
fn a_label_with_a_comma_is_quoted_and_an_empty_report_noted() {
    let mut empty = sweep("x", 1);
    empty.steps.clear();
    let a = sweep("a", 100);
    let c = Comparison::new(&[
        Labelled {
            label: "open5gs, 2 cores",
            report: &a,
        },
        Labelled {
            label: "crashed",
            report: &empty,
        },
    ]);
    assert_eq!(c.notes, ["crashed: nothing measured to compare"]);
    let csv = csv::render(&c);
    assert!(
        csv.starts_with("payload,\"open5gs, 2 cores UL Tx Gbps\","),
        "{csv}"
    );
    assert!(markdown::render(&c).contains("\nNotes:\n\n- crashed: nothing measured to compare\n"));
}

#[test]
fn a_multiplied_report_says_so_beside_its_profile() {
    use upfbench_report::MultiplierReport;
    let mut a = sweep("eupf", 200);
    a.multiplier = Some(MultiplierReport {
        given: "10Gbps".into(),
        steps: Vec::new(),
    });
    let b = sweep("open5gs", 100);
    let c = Comparison::new(&[
        Labelled {
            label: "eupf",
            report: &a,
        },
        Labelled {
            label: "open5gs",
            report: &b,
        },
    ]);
    let md = markdown::render(&c);
    assert!(
        md.contains("- **eupf**: sweep of profile `published` at -m 10Gbps, started "),
        "{md}"
    );
    assert!(
        md.contains("- **open5gs**: sweep of profile `published`, started "),
        "{md}"
    );
    let html = crate::html::compare_page(&c, &[], "0.1.0");
    assert!(html.contains("published at -m 10Gbps"), "{html}");
}

#[test]
fn markdown_page_and_csv_render_the_same_rows() {
    let c = comparison();
    let md = markdown::render(&c);
    let plots = [];
    let page = crate::html::compare_page(&c, &plots, "0.1.0");
    for s in &c.sections {
        let t = s.table();
        // Markdown: the table's lines, as they are.
        assert!(md.contains(&t.to_markdown()), "{}: {md}", s.title);
        // The page: every row's shown cells, in order, in one line of the table.
        for row in &t.rows {
            let cells: String = t
                .shown()
                .into_iter()
                .map(|i| {
                    let class = if i == 0 || t.columns[i].align == upfbench_report::Align::Right {
                        " class=\"num\""
                    } else {
                        ""
                    };
                    format!("<td{class}>{}</td>", crate::html::escape(&row[i].text))
                })
                .collect();
            assert!(page.contains(&cells), "{cells}\n{page}");
        }
    }
    // CSV: each section's CSV fields, after the payload, in the wide table's row of its key.
    let csv = csv::render(&c);
    assert_eq!(csv, c.csv_table().to_csv());
    let ul = &c.sections[0];
    let line = csv
        .lines()
        .find(|l| l.starts_with("300,"))
        .expect("a 300 B row");
    let fields: Vec<String> = ul.rows[1].cells.iter().map(|c| c.csv.clone()).collect();
    assert!(
        line.starts_with(&format!("300,{}", fields.join(","))),
        "{line}"
    );
}
