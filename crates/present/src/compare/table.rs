//! The comparison's model: sections (a direction of the runs and sweeps, a direction set of
//! the searches), each with a column group per report that has figures there and a row per
//! payload; each cell as the table shows it and as CSV holds it ([`Cell`]). A section's rows
//! are built once, as the report crate's rows model ([`Section::table`]), which Markdown and
//! the page render; the CSV joins the sections' rows by payload ([`Comparison::csv_table`]).

use std::collections::{BTreeMap, BTreeSet};

use upfbench_report::{
    Cell, Column as TableColumn, DirectionReport, GoalResult, GoalStatus, Nanos, SearchDirections,
    Table,
};
use upfbench_stats::Direction;

use super::{Labelled, RowKey, case_row, step_row};

/// One column of a group.
#[derive(Debug, Clone, PartialEq)]
pub struct Column {
    /// Its heading within the group (`Tx Gbps`, `NDR Mpps`).
    pub name: String,
    /// Only in CSV (a search's status, which the table writes into the figure's cell).
    pub csv_only: bool,
}

/// A report's columns in a section.
#[derive(Debug, Clone, PartialEq)]
pub struct Group {
    /// The report's label.
    pub label: String,
    /// Its columns.
    pub columns: Vec<Column>,
}

/// A row: its payload, and its cells, the groups' columns one after the other.
#[derive(Debug, Clone, PartialEq)]
pub struct Row {
    /// What the row stands for.
    pub key: RowKey,
    /// The cells, one per column of every group in order.
    pub cells: Vec<Cell>,
}

/// One table of the comparison.
#[derive(Debug, Clone, PartialEq)]
pub struct Section {
    /// Its heading (`Uplink`, `Throughput search, both directions at once`).
    pub title: String,
    /// Its short name, which CSV puts before each column's (`UL`, `both`).
    pub short: String,
    /// The column groups, one per report with figures here.
    pub groups: Vec<Group>,
    /// The rows, by payload.
    pub rows: Vec<Row>,
}

/// A report compared: what the comparison's heading says of it.
#[derive(Debug, Clone, PartialEq)]
pub struct Compared {
    /// Its label.
    pub label: String,
    /// `run`, `sweep` or `search`.
    pub kind: &'static str,
    /// Its profile.
    pub profile: String,
    /// When it started (RFC 3339).
    pub started: String,
    /// The `-m` multiplier its rates were scaled by, as given.
    pub multiplier: Option<String>,
}

impl Section {
    /// The section as a table: `Payload B`, then each report's columns under its label.
    pub fn table(&self) -> Table {
        let mut t = Table::new(vec![TableColumn::right("Payload B")]);
        for g in &self.groups {
            let i = t.group(g.label.clone());
            t.columns.extend(g.columns.iter().map(|c| {
                let col = TableColumn::right(c.name.clone()).in_group(i);
                if c.csv_only { col.csv_only() } else { col }
            }));
        }
        for r in &self.rows {
            let mut cells = vec![Cell::text(r.key.to_string())];
            cells.extend(r.cells.iter().cloned());
            t.push(cells);
        }
        t
    }
}

impl Compared {
    fn of(r: &Labelled<'_>) -> Compared {
        let report = r.report;
        let kind = if report.search.is_some() {
            "search"
        } else if report.steps.iter().any(|s| s.payload_bytes.is_some()) {
            "sweep"
        } else {
            "run"
        };
        Compared {
            label: r.label.to_owned(),
            kind,
            profile: report.config.get("profile").cloned().unwrap_or_default(),
            started: report.started.clone(),
            multiplier: report.multiplier.as_ref().map(|m| m.given.clone()),
        }
    }
}

/// The whole comparison.
#[derive(Debug, Clone, PartialEq)]
pub struct Comparison {
    /// The reports, in the order given.
    pub reports: Vec<Compared>,
    /// The sections: the runs' uplink and downlink, then the searches by direction set.
    pub sections: Vec<Section>,
    /// What the reader should know (a report with nothing to compare, a row given twice).
    pub notes: Vec<String>,
}

/// The figures of a run's direction, in µs for latency.
const RUN_COLUMNS: [(&str, usize); 6] = [
    ("Tx Gbps", 3),
    ("Rx Gbps", 3),
    ("Rx Kpps", 1),
    ("Loss %", 3),
    ("p50 us", 2),
    ("p99 us", 2),
];

fn run_cells(d: &DirectionReport) -> Vec<Cell> {
    let l = d.latency.as_ref().map(|l| &l.percentiles);
    let us = |ns: Option<Nanos>| ns.map_or_else(Cell::missing, |n| Cell::number(n.us(), 2));
    vec![
        Cell::number(d.tx.gbps_l1, 3),
        Cell::number(d.rx.gbps_l1, 3),
        Cell::number(d.rx.kpps, 1),
        Cell::number(d.loss.loss_pct, 3),
        us(l.map(|l| l.p50)),
        us(l.map(|l| l.p99)),
    ]
}

/// A goal's throughput as the table shows it: the figure, marked when it is not a plain
/// measurement (`≥` for a lower bound only, `<` under Min Load, the tester's limit named).
fn goal_cells(r: Option<&GoalResult>) -> [Cell; 3] {
    let Some(r) = r else {
        return [Cell::missing(), Cell::missing(), Cell::missing()];
    };
    let figure = |v: Option<f64>, decimals: usize| {
        let Some(v) = v else {
            return Cell::missing();
        };
        let n = format!("{v:.decimals$}");
        let text = match r.status {
            GoalStatus::Regular => n.clone(),
            GoalStatus::MaxLoadLowerBound => format!("≥ {n}"),
            GoalStatus::TesterLimited => format!("≥ {n} (tester-limited)"),
            GoalStatus::MinLoadUpperBound => format!("< {n}"),
            GoalStatus::Incomplete => format!("{n} (incomplete)"),
        };
        Cell { text, csv: n }
    };
    // Under Min Load there is no lower bound: the upper bound is the figure.
    let pps = r.conditional_throughput_pps.or(match r.status {
        GoalStatus::MinLoadUpperBound => r.upper_bound_pps,
        _ => None,
    });
    let status = Cell {
        text: r.status.name().to_owned(),
        csv: r.status.name().to_owned(),
    };
    [
        figure(pps.map(|p| p / 1e6), 3),
        figure(r.gbps_l1, 3),
        status,
    ]
}

/// Rows of `groups`' cells by key, each group's cells `width` wide, missing ones filled in.
fn rows(groups: &[(usize, BTreeMap<RowKey, Vec<Cell>>)]) -> Vec<Row> {
    let keys: BTreeSet<&RowKey> = groups.iter().flat_map(|(_, m)| m.keys()).collect();
    keys.into_iter()
        .map(|k| Row {
            key: k.clone(),
            cells: groups
                .iter()
                .flat_map(|(width, m)| {
                    m.get(k)
                        .cloned()
                        .unwrap_or_else(|| vec![Cell::missing(); *width])
                })
                .collect(),
        })
        .collect()
}

fn direction_section(reports: &[Labelled<'_>], d: Direction, notes: &mut Vec<String>) -> Section {
    let mut groups = Vec::new();
    let mut cells = Vec::new();
    for r in reports.iter().filter(|r| r.report.search.is_none()) {
        let mut by_row: BTreeMap<RowKey, Vec<Cell>> = BTreeMap::new();
        for step in &r.report.steps {
            for dir in step.directions.iter().filter(|x| x.direction == d) {
                let key = step_row(step, d);
                if by_row.contains_key(&key) {
                    notes.push(format!(
                        "{}: more than one {} step at {key}; the first is shown",
                        r.label,
                        d.name()
                    ));
                    continue;
                }
                by_row.insert(key, run_cells(dir));
            }
        }
        if by_row.is_empty() {
            continue;
        }
        groups.push(Group {
            label: r.label.to_owned(),
            columns: RUN_COLUMNS
                .iter()
                .map(|(name, _)| Column {
                    name: (*name).to_owned(),
                    csv_only: false,
                })
                .collect(),
        });
        cells.push((RUN_COLUMNS.len(), by_row));
    }
    Section {
        title: match d {
            Direction::Uplink => "Uplink (GTP-U on N3 → N6)".to_owned(),
            Direction::Downlink => "Downlink (N6 → GTP-U on N3)".to_owned(),
        },
        short: d.short().to_owned(),
        groups,
        rows: rows(&cells),
    }
}

fn search_section(
    reports: &[Labelled<'_>],
    set: SearchDirections,
    notes: &mut Vec<String>,
) -> Section {
    let mut groups = Vec::new();
    let mut cells = Vec::new();
    for r in reports {
        let Some(search) = &r.report.search else {
            continue;
        };
        let mut by_row: BTreeMap<RowKey, Vec<Cell>> = BTreeMap::new();
        for case in search.cases.iter().filter(|c| c.directions == set) {
            let key = case_row(case);
            if by_row.contains_key(&key) {
                notes.push(format!(
                    "{}: more than one case at {key} {set}; the first is shown",
                    r.label
                ));
                continue;
            }
            let row = search
                .goals
                .iter()
                .flat_map(|g| goal_cells(case.results.iter().find(|x| x.goal == g.name)))
                .collect();
            by_row.insert(key, row);
        }
        if by_row.is_empty() {
            continue;
        }
        if !search.complete {
            notes.push(format!(
                "{}: the search did not finish; its bounds are not final",
                r.label
            ));
        }
        groups.push(Group {
            label: r.label.to_owned(),
            columns: search
                .goals
                .iter()
                .flat_map(|g| {
                    [("Mpps", false), ("Gbps", false), ("status", true)].map(|(what, csv_only)| {
                        Column {
                            name: format!("{} {what}", g.name),
                            csv_only,
                        }
                    })
                })
                .collect(),
        });
        cells.push((3 * search.goals.len(), by_row));
    }
    let title = match set {
        SearchDirections::Both => {
            "Throughput search, both directions at once (their Mpps and Gbps L1 added)".to_owned()
        }
        other => format!("Throughput search, {other}"),
    };
    Section {
        title,
        short: set.name().to_owned(),
        groups,
        rows: rows(&cells),
    }
}

impl Comparison {
    /// The comparison as one wide table, for CSV: `payload`, then a column per report, section
    /// and figure, headed `<label> <section> <figure>`; a row per payload of any section, empty
    /// fields where a report has no figure.
    pub fn csv_table(&self) -> Table {
        let mut t = Table::new(vec![TableColumn::right("payload")]);
        for s in &self.sections {
            for g in &s.groups {
                let i = t.group(format!("{} {}", g.label, s.short));
                t.columns.extend(
                    g.columns
                        .iter()
                        .map(|c| TableColumn::right(c.name.clone()).in_group(i)),
                );
            }
        }
        let keys: BTreeSet<&RowKey> = self
            .sections
            .iter()
            .flat_map(|s| &s.rows)
            .map(|r| &r.key)
            .collect();
        for key in keys {
            let mut cells = vec![Cell::text(key.to_string())];
            for s in &self.sections {
                let width: usize = s.groups.iter().map(|g| g.columns.len()).sum();
                match s.rows.iter().find(|r| &r.key == key) {
                    Some(r) => cells.extend(r.cells.iter().cloned()),
                    None => cells.extend(std::iter::repeat_n(Cell::missing(), width)),
                }
            }
            t.push(cells);
        }
        t
    }

    /// The comparison of `reports`, in their order (labels as given: see
    /// [`super::distinct_labels`]).
    pub fn new(reports: &[Labelled<'_>]) -> Comparison {
        let mut notes = Vec::new();
        let mut sections: Vec<Section> = Direction::ALL
            .into_iter()
            .map(|d| direction_section(reports, d, &mut notes))
            .collect();
        let mut sets: Vec<SearchDirections> = Vec::new();
        for r in reports {
            for c in r.report.search.iter().flat_map(|s| &s.cases) {
                if !sets.contains(&c.directions) {
                    sets.push(c.directions);
                }
            }
        }
        sections.extend(
            sets.into_iter()
                .map(|set| search_section(reports, set, &mut notes)),
        );
        sections.retain(|s| !s.groups.is_empty());
        for r in reports {
            if !sections
                .iter()
                .any(|s| s.groups.iter().any(|g| g.label == r.label))
            {
                notes.push(format!("{}: nothing measured to compare", r.label));
            }
        }
        Comparison {
            reports: reports.iter().map(Compared::of).collect(),
            sections,
            notes,
        }
    }
}
