//! A run's or sweep's tables on its page: a table per direction with a row per step, the
//! published comparisons' columns first, then the percentiles and the sequence counts.

use std::fmt::Write as _;

use upfbench_report::{DirectionReport, Report, StepReport, direction_title};
use upfbench_stats::Direction;

use super::{escape, table};

const COLUMNS: [&str; 16] = [
    "Step",
    "Payload B",
    "Tx Gbps",
    "Rx Gbps",
    "Tx Kpps",
    "Rx Kpps",
    "Loss %",
    "Lost",
    "Late",
    "Min us",
    "Avg us",
    "p50 us",
    "p99 us",
    "p99.9 us",
    "Max us",
    "Jitter us",
];

fn us(ns: f64) -> String {
    format!("{:.2}", ns / 1e3)
}

fn row(s: &StepReport, d: &DirectionReport) -> Vec<String> {
    let mut r = vec![
        s.label.clone(),
        s.payload_bytes
            .map_or_else(|| "-".to_owned(), |p| p.to_string()),
        format!("{:.3}", d.tx.gbps_l1),
        format!("{:.3}", d.rx.gbps_l1),
        format!("{:.1}", d.tx.kpps),
        format!("{:.1}", d.rx.kpps),
        format!("{:.3}", d.loss.loss_pct),
        d.loss.lost.to_string(),
        d.loss.late.to_string(),
    ];
    match &d.latency {
        Some(l) => r.extend([
            us(l.percentiles.min.ns()),
            us(l.avg_ns),
            us(l.percentiles.p50.ns()),
            us(l.percentiles.p99.ns()),
            us(l.percentiles.p99_9.map_or(f64::NAN, |n| n.ns())),
            us(l.percentiles.max.ns()),
            l.jitter_ns.map_or_else(|| "-".to_owned(), us),
        ]),
        None => r.extend(std::iter::repeat_n("-".to_owned(), 7)),
    }
    r
}

/// The per-direction tables of `report`'s steps.
pub(crate) fn direction_tables(out: &mut String, report: &Report) {
    let header: Vec<String> = COLUMNS.iter().map(|c| (*c).to_owned()).collect();
    for dir in Direction::ALL {
        let rows: Vec<Vec<String>> = report
            .steps
            .iter()
            .flat_map(|s| {
                s.directions
                    .iter()
                    .filter(move |d| d.direction == dir)
                    .map(move |d| row(s, d))
            })
            .collect();
        if rows.is_empty() {
            continue;
        }
        let _ = writeln!(out, "<h3>{}</h3>", escape(direction_title(dir)));
        table(out, None, &header, &rows);
    }
    out.push_str(
        "<p class=\"note\">Gbps at L1 (the frame with its FCS, padded to 64 bytes, and 20 bytes \
         of preamble and gap); latency one-way, of every packet; a late packet arrived after \
         its flow's reorder window and is counted lost.</p>\n",
    );
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::samples::sweep;

    #[test]
    fn a_row_per_step_in_each_directions_table() {
        let mut out = String::new();
        direction_tables(&mut out, &sweep("x", 100));
        assert_eq!(out.matches("<table>").count(), 2);
        assert_eq!(out.matches("<tr><td>300 B</td>").count(), 2);
        // 300 B uplink: 25 lost of 500,000; p50 2.5 µs.
        assert!(
            out.contains("<tr><td>300 B</td><td class=\"num\">300</td>"),
            "{out}"
        );
        assert!(
            out.contains("<td class=\"num\">0.005</td><td class=\"num\">25</td>"),
            "{out}"
        );
        assert!(out.contains("<td class=\"num\">2.50</td>"), "{out}");
    }
}
