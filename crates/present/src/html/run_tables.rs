//! A run's or sweep's tables on its page: a table per direction with a row per step, the
//! published comparisons' columns first, then the latency and the sequence counts: the rows
//! the text report shows, rendered as HTML.

use std::fmt::Write as _;

use upfbench_report::{Report, direction_table, direction_title};
use upfbench_stats::Direction;

use super::{escape, render_table};

/// The per-direction tables of `report`'s steps: the report crate's rows
/// ([`direction_table`]), the same the text report shows.
pub(crate) fn direction_tables(out: &mut String, report: &Report) {
    for dir in Direction::ALL {
        let Some(t) = direction_table(report, dir) else {
            continue;
        };
        let _ = writeln!(out, "<h3>{}</h3>", escape(direction_title(dir)));
        render_table(out, &t);
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

    /// The headings of the first direction table of `report`'s text.
    fn report_table_header(report: &Report) -> Vec<String> {
        let text = report.to_table();
        let line = text
            .lines()
            .find(|l| l.starts_with("| Step"))
            .expect("a direction table");
        line.split('|')
            .map(str::trim)
            .filter(|c| !c.is_empty())
            .map(str::to_owned)
            .collect()
    }

    #[test]
    fn a_row_per_step_in_each_directions_table() {
        let mut out = String::new();
        direction_tables(&mut out, &sweep("x", 100));
        assert_eq!(out.matches("<table>").count(), 2);
        assert_eq!(out.matches("<tr><td>300 B</td>").count(), 2);
        // 300 B uplink: 25 lost of 500,000; p50 2.5 µs; no duplicate or reordered packet.
        assert!(
            out.contains("<tr><td>300 B</td><td class=\"num\">300</td>"),
            "{out}"
        );
        assert!(out.contains("<td class=\"num\">0.005</td>"), "{out}");
        assert!(out.contains("<td class=\"num\">2.50</td>"), "{out}");
        assert!(
            out.contains(
                "<td class=\"num\">25</td><td class=\"num\">0</td><td class=\"num\">0</td>\
                 <td class=\"num\">0</td></tr>"
            ),
            "{out}"
        );
        // The text report's columns, in its order.
        let text = report_table_header(&sweep("x", 100));
        for (i, name) in text.iter().enumerate() {
            assert!(
                out.contains(&format!("<th>{name}</th>")),
                "column {i} {name}: {out}"
            );
        }
    }
}
