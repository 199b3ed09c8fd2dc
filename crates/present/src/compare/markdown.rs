//! The comparison as Markdown: what `upfbench compare` prints and writes to `compare.md`. A
//! table per section ([`Section::table`](super::Section::table), rendered aligned so that it
//! reads in a terminal and pastes into a README); each column's heading names its report
//! (Markdown has no column groups).

use std::fmt::Write as _;

use super::Comparison;

/// Why some figures of a search are marked, under the tables that have them.
pub(crate) const SEARCH_MARKS: &str = "≥: a lower bound only (the UPF carried Max Load, or the \
    tester could send no more: tester-limited); <: no lower bound above Min Load; \
    (incomplete): the search stopped before the goal's width.";

/// The comparison as Markdown.
pub fn render(c: &Comparison) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "## Comparison of {} reports\n", c.reports.len());
    for r in &c.reports {
        let _ = writeln!(
            out,
            "- **{}**: {} of profile `{}`{}, started {}",
            r.label,
            r.kind,
            r.profile,
            r.multiplier
                .as_ref()
                .map_or_else(String::new, |m| format!(" at -m {m}")),
            r.started
        );
    }
    for s in &c.sections {
        let _ = writeln!(out, "\n### {}\n", s.title);
        out.push_str(&s.table().to_markdown());
        if s.rows
            .iter()
            .flat_map(|r| &r.cells)
            .any(|c| c.text != c.csv && c.text != "-")
        {
            let _ = writeln!(out, "\n{SEARCH_MARKS}");
        }
    }
    if !c.notes.is_empty() {
        let _ = writeln!(out, "\nNotes:\n");
        for n in &c.notes {
            let _ = writeln!(out, "- {n}");
        }
    }
    out
}
