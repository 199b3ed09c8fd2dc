//! A comparison's page: the reports compared, a table per section with a column group per
//! report, the plots, and the notes.

use std::fmt::Write as _;

use super::{escape, figures, page, render_table, table};
use crate::compare::markdown::SEARCH_MARKS;
use crate::compare::{Comparison, Section};
use crate::figures::Figure;

fn section(out: &mut String, s: &Section) {
    let _ = writeln!(out, "<h3>{}</h3>", escape(&s.title));
    render_table(out, &s.table());
    if s.rows
        .iter()
        .flat_map(|r| &r.cells)
        .any(|c| c.text != c.csv && c.text != "-")
    {
        let _ = writeln!(out, "<p class=\"note\">{}</p>", escape(SEARCH_MARKS));
    }
}

/// The page of comparison `c` with its `plots` (see [`crate::figures::compare_figures`]),
/// written by upfbench `tool_version`.
pub fn compare_page(c: &Comparison, plots: &[Figure], tool_version: &str) -> String {
    let mut body = String::new();
    let _ = writeln!(
        body,
        "<header>\n<h1>upfbench comparison of {} reports</h1>\n</header>",
        c.reports.len()
    );
    let rows: Vec<Vec<String>> = c
        .reports
        .iter()
        .map(|r| {
            vec![
                r.label.clone(),
                r.kind.to_owned(),
                match &r.multiplier {
                    Some(m) => format!("{} at -m {m}", r.profile),
                    None => r.profile.clone(),
                },
                r.started.clone(),
            ]
        })
        .collect();
    let header = ["Report", "Kind", "Profile", "Started"].map(str::to_owned);
    table(&mut body, None, &header, &rows);
    body.push_str("<section>\n<h2>Tables</h2>\n");
    for s in &c.sections {
        section(&mut body, s);
    }
    body.push_str("</section>\n<section>\n<h2>Plots</h2>\n");
    figures(&mut body, plots);
    body.push_str("</section>\n");
    if !c.notes.is_empty() {
        body.push_str("<section>\n<h2>Notes</h2>\n<ul>\n");
        for n in &c.notes {
            let _ = writeln!(body, "<li>{}</li>", escape(n));
        }
        body.push_str("</ul>\n</section>\n");
    }
    let _ = writeln!(
        body,
        "<footer>Written by upfbench {} compare (compare.md and compare.csv hold the same \
         tables).</footer>",
        escape(tool_version)
    );
    page(
        &format!("upfbench comparison of {} reports", c.reports.len()),
        &body,
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::compare::Labelled;
    use crate::figures::compare_figures;
    use crate::samples::{search, sweep};

    #[test]
    fn groups_span_their_reports_columns() {
        let (a, b, s) = (sweep("a", 100), sweep("b", 200), search("s"));
        let reports = [
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
        ];
        let c = Comparison::new(&reports);
        let html = compare_page(&c, &compare_figures(&reports), "0.1.0");
        // Uplink and downlink: two run groups of six; the search: one of four (no status).
        assert_eq!(
            html.matches("<th class=\"group\" colspan=\"6\">open5gs</th>")
                .count(),
            2
        );
        assert_eq!(
            html.matches("<th class=\"group\" colspan=\"4\">upg-vpp</th>")
                .count(),
            1
        );
        assert!(html.contains("<td class=\"num\">≥ 0.839</td>"), "{html}");
        assert_eq!(html.matches("<svg ").count(), 3);
        assert!(
            html.contains("<tr><td>upg-vpp</td><td>search</td><td>search</td>"),
            "{html}"
        );
        assert!(!html.contains("http"));
    }
}
