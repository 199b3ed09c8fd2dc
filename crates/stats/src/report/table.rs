//! The human table: one row per step and direction with the columns of the published UPF
//! comparisons (Tx/Rx Gbps, Kpps, loss, latency min/avg/max) and percentiles and jitter beside
//! them, as an aligned Markdown table that reads in a terminal and pastes into a README.

use std::fmt::Write as _;

use super::model::{DirectionReport, Report};

#[derive(Clone, Copy, PartialEq, Eq)]
enum Align {
    Left,
    Right,
}

const COLUMNS: [(&str, Align); 15] = [
    ("Step", Align::Left),
    ("Payload B", Align::Right),
    ("Dir", Align::Left),
    ("Tx Gbps", Align::Right),
    ("Rx Gbps", Align::Right),
    ("Tx Kpps", Align::Right),
    ("Rx Kpps", Align::Right),
    ("Loss %", Align::Right),
    ("Min us", Align::Right),
    ("Avg us", Align::Right),
    ("Max us", Align::Right),
    ("p50 us", Align::Right),
    ("p99 us", Align::Right),
    ("p99.9 us", Align::Right),
    ("Jitter us", Align::Right),
];

fn us(ns: f64) -> String {
    format!("{:.2}", ns / 1000.0)
}

fn row(step: &str, payload: Option<u32>, d: &DirectionReport) -> Vec<String> {
    let mut r = vec![
        step.to_owned(),
        payload.map_or_else(|| "-".to_owned(), |p| p.to_string()),
        d.direction.short().to_owned(),
        format!("{:.3}", d.tx.gbps_l1),
        format!("{:.3}", d.rx.gbps_l1),
        format!("{:.1}", d.tx.kpps),
        format!("{:.1}", d.rx.kpps),
        format!("{:.3}", d.loss.loss_pct),
    ];
    match &d.latency {
        Some(l) => r.extend([
            us(l.min_ns as f64),
            us(l.avg_ns),
            us(l.max_ns as f64),
            us(l.p50_ns as f64),
            us(l.p99_ns as f64),
            us(l.p99_9_ns as f64),
            l.jitter_ns.map_or_else(|| "-".to_owned(), us),
        ]),
        None => r.extend(std::iter::repeat_n("-".to_owned(), 7)),
    }
    r
}

/// Renders `report` as a header, the aligned table and the warnings.
pub fn render_table(report: &Report) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "{} {} report (schema {}), started {}, {:.3} s",
        report.tool.name,
        report.tool.version,
        report.schema_version,
        report.started,
        report.duration_s
    );
    if !report.config.is_empty() {
        let cfg: Vec<String> = report
            .config
            .iter()
            .map(|(k, v)| format!("{k}={v}"))
            .collect();
        let _ = writeln!(out, "config: {}", cfg.join(", "));
    }
    let _ = writeln!(
        out,
        "Gbps at L1 (frame + 24 B of FCS, preamble, IFG); loss from sequence numbers; \
         latency one-way in us\n"
    );

    let rows: Vec<Vec<String>> = report
        .steps
        .iter()
        .flat_map(|s| {
            s.directions
                .iter()
                .map(move |d| row(&s.label, s.payload_bytes, d))
        })
        .collect();
    let widths: Vec<usize> = COLUMNS
        .iter()
        .enumerate()
        .map(|(i, (h, _))| rows.iter().map(|r| r[i].len()).fold(h.len(), usize::max))
        .collect();

    let line = |cells: &[String]| {
        let mut l = String::from("|");
        for (i, c) in cells.iter().enumerate() {
            let w = widths[i];
            let _ = match COLUMNS[i].1 {
                Align::Left => write!(l, " {c:<w$} |"),
                Align::Right => write!(l, " {c:>w$} |"),
            };
        }
        l
    };
    let header: Vec<String> = COLUMNS.iter().map(|(h, _)| (*h).to_owned()).collect();
    let _ = writeln!(out, "{}", line(&header));
    let mut rule = String::from("|");
    for (i, (_, a)) in COLUMNS.iter().enumerate() {
        let dashes = "-".repeat(widths[i]);
        let _ = match a {
            Align::Left => write!(rule, ":{dashes}-|"),
            Align::Right => write!(rule, "-{dashes}:|"),
        };
    }
    let _ = writeln!(out, "{rule}");
    for r in &rows {
        let _ = writeln!(out, "{}", line(r));
    }

    let warnings: Vec<String> = report
        .warnings
        .iter()
        .cloned()
        .chain(
            report
                .steps
                .iter()
                .flat_map(|s| s.warnings.iter().map(move |w| format!("{}: {w}", s.label))),
        )
        .collect();
    if !warnings.is_empty() {
        out.push('\n');
        for w in warnings {
            let _ = writeln!(out, "warning: {w}");
        }
    }
    out
}
