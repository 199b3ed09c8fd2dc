//! The comparison as one wide CSV table (`compare.csv`, `upfbench compare --csv`): a row per
//! payload of any section, a column per report, section and figure, headed
//! `<label> <section> <figure>` (`open5gs UL Tx Gbps`, `eupf both NDR Mpps`); figures as
//! plain numbers (a search's marks are in its `status` columns); an empty field where a
//! report has no figure. Fields are quoted per RFC 4180 when needed.

use std::collections::BTreeSet;
use std::fmt::Write as _;

use super::{Comparison, RowKey};

fn field(s: &str) -> String {
    if s.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_owned()
    }
}

/// The comparison as CSV.
pub fn render(c: &Comparison) -> String {
    let mut header = vec!["payload".to_owned()];
    for s in &c.sections {
        for g in &s.groups {
            for col in &g.columns {
                header.push(format!("{} {} {}", g.label, s.short, col.name));
            }
        }
    }
    let keys: BTreeSet<&RowKey> = c
        .sections
        .iter()
        .flat_map(|s| &s.rows)
        .map(|r| &r.key)
        .collect();
    let mut out = String::new();
    let _ = writeln!(
        out,
        "{}",
        header
            .iter()
            .map(|h| field(h))
            .collect::<Vec<_>>()
            .join(",")
    );
    for key in keys {
        let mut fields = vec![field(&key.to_string())];
        for s in &c.sections {
            let width: usize = s.groups.iter().map(|g| g.columns.len()).sum();
            match s.rows.iter().find(|r| &r.key == key) {
                Some(r) => fields.extend(r.cells.iter().map(|c| field(&c.csv))),
                None => fields.extend(std::iter::repeat_n(String::new(), width)),
            }
        }
        let _ = writeln!(out, "{}", fields.join(","));
    }
    out
}
