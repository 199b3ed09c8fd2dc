//! The one model of a table's rows, built once and rendered many ways: as aligned Markdown (the
//! text report and `upfbench compare`'s tables, which read in a terminal and paste into a
//! README), as CSV (RFC 4180) and, in the present crate, as HTML. Each cell holds what a table
//! shows (`1.234`, `≥ 0.840`, `-`) and what CSV holds (the plain number, or nothing); a column
//! knows its alignment, the group it belongs to (a report's columns in a comparison) and
//! whether only CSV has it.

use std::fmt::Write as _;

/// How a column's cells are set: names left, figures right.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Align {
    /// Names.
    Left,
    /// Figures.
    Right,
}

/// One column.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Column {
    /// Its heading (within its group, if it has one).
    pub name: String,
    /// How its cells are set.
    pub align: Align,
    /// The group it belongs to, an index into [`Table::groups`].
    pub group: Option<usize>,
    /// Only in CSV (a search's status, which the shown tables write into the figure's cell).
    pub csv_only: bool,
}

impl Column {
    /// A column of names.
    pub fn left(name: impl Into<String>) -> Column {
        Column {
            name: name.into(),
            align: Align::Left,
            group: None,
            csv_only: false,
        }
    }

    /// A column of figures.
    pub fn right(name: impl Into<String>) -> Column {
        Column {
            align: Align::Right,
            ..Column::left(name)
        }
    }

    /// The same column in group `g`.
    pub fn in_group(self, g: usize) -> Column {
        Column {
            group: Some(g),
            ..self
        }
    }

    /// The same column, in CSV only.
    pub fn csv_only(self) -> Column {
        Column {
            csv_only: true,
            ..self
        }
    }
}

/// One cell: as tables show it, and as CSV holds it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Cell {
    /// What a table shows.
    pub text: String,
    /// The CSV field (unquoted).
    pub csv: String,
}

impl Cell {
    /// A cell that reads the same everywhere (a name, a count, a formatted figure).
    pub fn text(s: impl Into<String>) -> Cell {
        let s = s.into();
        Cell {
            csv: s.clone(),
            text: s,
        }
    }

    /// A figure shown with `decimals` decimals.
    pub fn number(v: f64, decimals: usize) -> Cell {
        Cell::text(format!("{v:.decimals$}"))
    }

    /// No figure: `-` in a table, empty in CSV.
    pub fn missing() -> Cell {
        Cell {
            text: "-".to_owned(),
            csv: String::new(),
        }
    }

    /// `v` as [`Cell::text`] of its `Display`, or [`Cell::missing`].
    pub fn opt<T: ToString>(v: Option<T>) -> Cell {
        v.map_or_else(Cell::missing, |v| Cell::text(v.to_string()))
    }
}

/// A table: its columns, the names of its column groups, its rows.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Table {
    /// The columns, in order.
    pub columns: Vec<Column>,
    /// The groups' names ([`Column::group`] indexes them).
    pub groups: Vec<String>,
    /// The rows, each a cell per column.
    pub rows: Vec<Vec<Cell>>,
}

impl Table {
    /// An empty table of `columns`.
    pub fn new(columns: Vec<Column>) -> Table {
        Table {
            columns,
            groups: Vec::new(),
            rows: Vec::new(),
        }
    }

    /// Adds group `name`; its index, for [`Column::in_group`].
    pub fn group(&mut self, name: impl Into<String>) -> usize {
        self.groups.push(name.into());
        self.groups.len() - 1
    }

    /// Adds a row: a cell per column.
    pub fn push(&mut self, row: Vec<Cell>) {
        assert_eq!(
            row.len(),
            self.columns.len(),
            "a cell per column: {row:?} for {:?}",
            self.columns
        );
        self.rows.push(row);
    }

    /// Whether it has no row.
    pub fn is_empty(&self) -> bool {
        self.rows.is_empty()
    }

    /// Column `i`'s heading with its group's name before it (`open5gs Tx Gbps`): where a
    /// format has no column groups (Markdown, CSV).
    pub fn heading(&self, i: usize) -> String {
        let c = &self.columns[i];
        match c.group.and_then(|g| self.groups.get(g)) {
            Some(g) => format!("{g} {}", c.name),
            None => c.name.clone(),
        }
    }

    /// The columns tables show (all but the CSV-only ones), by index.
    pub fn shown(&self) -> Vec<usize> {
        (0..self.columns.len())
            .filter(|&i| !self.columns[i].csv_only)
            .collect()
    }

    /// Aligned Markdown: a header, a rule saying each column's alignment, a line per row;
    /// padded by characters (`≥` and `µ` are one each), CSV-only columns left out.
    pub fn to_markdown(&self) -> String {
        let shown = self.shown();
        let header: Vec<String> = shown.iter().map(|&i| self.heading(i)).collect();
        let widths: Vec<usize> = shown
            .iter()
            .zip(&header)
            .map(|(&i, h)| {
                self.rows
                    .iter()
                    .map(|r| r[i].text.chars().count())
                    .fold(h.chars().count(), usize::max)
            })
            .collect();
        let line = |cells: &mut dyn Iterator<Item = &str>| {
            let mut l = String::from("|");
            for ((c, w), &i) in cells.zip(&widths).zip(&shown) {
                let _ = match self.columns[i].align {
                    Align::Left => write!(l, " {c:<w$} |"),
                    Align::Right => write!(l, " {c:>w$} |"),
                };
            }
            l
        };
        let mut out = String::new();
        let _ = writeln!(out, "{}", line(&mut header.iter().map(String::as_str)));
        let mut rule = String::from("|");
        for (w, &i) in widths.iter().zip(&shown) {
            let dashes = "-".repeat(*w);
            let _ = match self.columns[i].align {
                Align::Left => write!(rule, ":{dashes}-|"),
                Align::Right => write!(rule, "-{dashes}:|"),
            };
        }
        let _ = writeln!(out, "{rule}");
        for r in &self.rows {
            let _ = writeln!(
                out,
                "{}",
                line(&mut shown.iter().map(|&i| r[i].text.as_str()))
            );
        }
        out
    }

    /// CSV: a header row of every column's heading, then the rows' CSV fields, quoted per
    /// RFC 4180 when needed.
    pub fn to_csv(&self) -> String {
        let mut out = String::new();
        let header: Vec<String> = (0..self.columns.len())
            .map(|i| csv_field(&self.heading(i)))
            .collect();
        let _ = writeln!(out, "{}", header.join(","));
        for r in &self.rows {
            let fields: Vec<String> = r.iter().map(|c| csv_field(&c.csv)).collect();
            let _ = writeln!(out, "{}", fields.join(","));
        }
        out
    }
}

/// `s` as a CSV field: quoted when it holds a comma, a quote or a line break.
pub(crate) fn csv_field(s: &str) -> String {
    if s.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_owned()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> Table {
        let mut t = Table::new(vec![Column::right("Payload B")]);
        let g = t.group("open5gs");
        t.columns.extend([
            Column::right("Mpps").in_group(g),
            Column::left("status").in_group(g).csv_only(),
        ]);
        t.push(vec![
            Cell::text("300"),
            Cell {
                text: "≥ 0.840".into(),
                csv: "0.840".into(),
            },
            Cell::text("max load"),
        ]);
        t.push(vec![
            Cell::text("1400"),
            Cell::missing(),
            Cell::text("a, \"b\""),
        ]);
        t
    }

    #[test]
    fn markdown_shows_the_text_aligned_and_leaves_csv_only_columns_out() {
        assert_eq!(
            sample().to_markdown(),
            "| Payload B | open5gs Mpps |\n\
             |----------:|-------------:|\n\
             |       300 |      ≥ 0.840 |\n\
             |      1400 |            - |\n"
        );
        let mut left = Table::new(vec![Column::left("Step"), Column::right("n")]);
        left.push(vec![Cell::text("a"), Cell::text("10")]);
        assert_eq!(
            left.to_markdown(),
            "| Step |  n |\n|:-----|---:|\n| a    | 10 |\n"
        );
    }

    #[test]
    fn csv_holds_every_column_plain_and_quoted() {
        assert_eq!(
            sample().to_csv(),
            "Payload B,open5gs Mpps,open5gs status\n300,0.840,max load\n1400,,\"a, \"\"b\"\"\"\n"
        );
        assert_eq!(csv_field("10 B"), "10 B");
    }

    #[test]
    #[should_panic(expected = "a cell per column")]
    fn a_row_has_a_cell_per_column() {
        sample().push(vec![Cell::text("1")]);
    }
}
