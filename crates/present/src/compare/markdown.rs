//! The comparison as Markdown: what `upfbench compare` prints and writes to `compare.md`. A
//! table per section, aligned so that it reads in a terminal and pastes into a README; each
//! column's heading names its report (Markdown has no column groups).

use std::fmt::Write as _;

use super::Comparison;

/// Why some figures of a search are marked, under the tables that have them.
pub const SEARCH_MARKS: &str = "≥: a lower bound only (the UPF carried Max Load, or the \
    tester could send no more: tester-limited); <: no lower bound above Min Load; \
    (incomplete): the search stopped before the goal's width.";

/// An aligned Markdown table: every column right-aligned (figures), the first one too
/// (payload sizes).
pub(crate) fn grid(out: &mut String, header: &[String], rows: &[Vec<String>]) {
    let widths: Vec<usize> = header
        .iter()
        .enumerate()
        .map(|(i, h)| {
            rows.iter()
                .map(|r| r[i].chars().count())
                .fold(h.chars().count(), usize::max)
        })
        .collect();
    let line = |cells: &[String]| {
        let mut l = String::from("|");
        for (c, w) in cells.iter().zip(&widths) {
            // Pad by characters, not bytes: `≥` and `µ` are one character each.
            let pad = w - c.chars().count();
            let _ = write!(l, " {}{c} |", " ".repeat(pad));
        }
        l
    };
    let _ = writeln!(out, "{}", line(header));
    let mut rule = String::from("|");
    for w in &widths {
        let _ = write!(rule, "-{}:|", "-".repeat(*w));
    }
    let _ = writeln!(out, "{rule}");
    for r in rows {
        let _ = writeln!(out, "{}", line(r));
    }
}

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
        let mut header = vec!["Payload B".to_owned()];
        let mut shown = Vec::new();
        for g in &s.groups {
            for col in &g.columns {
                shown.push(!col.csv_only);
                if !col.csv_only {
                    header.push(format!("{} {}", g.label, col.name));
                }
            }
        }
        let rows: Vec<Vec<String>> = s
            .rows
            .iter()
            .map(|r| {
                std::iter::once(r.key.to_string())
                    .chain(
                        r.cells
                            .iter()
                            .zip(&shown)
                            .filter(|(_, s)| **s)
                            .map(|(c, _)| c.text.clone()),
                    )
                    .collect()
            })
            .collect();
        grid(&mut out, &header, &rows);
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
