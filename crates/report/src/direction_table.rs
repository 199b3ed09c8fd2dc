//! A direction's table of a run or sweep, a row per step: the published comparisons' columns
//! first (Tx/Rx Gbps at L1, Kpps, loss), then the latency (min, avg, max, p50, p99, p99.9,
//! jitter) and the sequence counts (lost, late, duplicated, reordered). Built once here; the
//! text report renders it as Markdown, the page as HTML.

use upfbench_stats::direction::Direction;

use super::model::{DirectionReport, Report, StepReport};
use super::percentiles::Nanos;
use super::rows::{Cell, Column, Table};

/// The columns: the step's name, then figures.
const COLUMNS: [&str; 18] = [
    "Step",
    "Payload B",
    "Tx Gbps",
    "Rx Gbps",
    "Tx Kpps",
    "Rx Kpps",
    "Loss %",
    "Min us",
    "Avg us",
    "Max us",
    "p50 us",
    "p99 us",
    "p99.9 us",
    "Jitter us",
    "Lost",
    "Late",
    "Dup",
    "Reord",
];

/// `ns` in µs, two decimals.
fn us(ns: f64) -> Cell {
    Cell::number(ns / 1e3, 2)
}

fn row(s: &StepReport, d: &DirectionReport) -> Vec<Cell> {
    let mut r = vec![
        Cell::text(s.label.clone()),
        Cell::opt(s.payload_bytes),
        Cell::number(d.tx.gbps_l1, 3),
        Cell::number(d.rx.gbps_l1, 3),
        Cell::number(d.tx.kpps, 1),
        Cell::number(d.rx.kpps, 1),
        Cell::number(d.loss.loss_pct, 3),
    ];
    match &d.latency {
        Some(l) => {
            let p = &l.percentiles;
            let ns = |n: Option<Nanos>| n.map_or_else(Cell::missing, |n| us(n.ns()));
            r.extend([
                us(p.min.ns()),
                us(l.avg_ns),
                us(p.max.ns()),
                us(p.p50.ns()),
                us(p.p99.ns()),
                ns(p.p99_9),
                l.jitter_ns.map_or_else(Cell::missing, us),
            ]);
        }
        None => r.extend(std::iter::repeat_n(Cell::missing(), 7)),
    }
    r.extend(
        [
            d.loss.lost,
            d.loss.late,
            d.loss.duplicates,
            d.loss.reordered,
        ]
        .map(|n| Cell::text(n.to_string())),
    );
    r
}

/// The table of `report`'s steps in direction `dir`; `None` when no step carried it.
pub fn direction_table(report: &Report, dir: Direction) -> Option<Table> {
    let mut t = Table::new(
        COLUMNS
            .iter()
            .enumerate()
            .map(|(i, name)| {
                if i == 0 {
                    Column::left(*name)
                } else {
                    Column::right(*name)
                }
            })
            .collect(),
    );
    for s in &report.steps {
        for d in s.directions.iter().filter(|d| d.direction == dir) {
            t.push(row(s, d));
        }
    }
    (!t.is_empty()).then_some(t)
}

/// The title of a direction's table: what is sent where, and how it comes back.
pub fn direction_title(d: Direction) -> &'static str {
    match d {
        Direction::Uplink => "Uplink: GTP-U sent on N3, received plain on N6",
        Direction::Downlink => "Downlink: plain sent on N6, received as GTP-U on N3",
    }
}
