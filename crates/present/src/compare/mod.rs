//! Several reports side by side, as the published UPF comparisons are: a row per payload size,
//! a column group per report (a UPF, a set-up). Runs and sweeps give their rates, loss and
//! latency per direction; searches their goals' conditional throughput (NDR, PDR).
//!
//! [`Comparison::new`] makes the table's model; [`markdown`] and [`csv`] render it; `series`
//! takes the figures the comparison's plots draw.

pub mod csv;
pub mod markdown;
mod naming;
pub(crate) mod series;
mod table;

use std::fmt;

use upfbench_report::{Report, SearchCase, StepReport};
use upfbench_stats::Direction;

pub use naming::{Named, report_names};
pub use table::{Column, Compared, Comparison, Group, Row, Section};
pub use upfbench_report::Cell;

/// A report and the name of its column group.
#[derive(Debug, Clone, Copy)]
pub struct Labelled<'a> {
    /// The column group's name.
    pub label: &'a str,
    /// The report.
    pub report: &'a Report,
}

/// What a row stands for: a payload size, or the name of a step that has none (an IMIX).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum RowKey {
    /// The inner UDP payload (bytes).
    Payload(u32),
    /// The step's or case's name.
    Named(String),
}

impl fmt::Display for RowKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RowKey::Payload(p) => write!(f, "{p}"),
            RowKey::Named(n) => f.write_str(n),
        }
    }
}

/// The row of a step's direction: the step's payload, or the one its streams of the direction
/// share (a `run`'s step has none of its own), or else the step's name.
pub(crate) fn step_row(step: &StepReport, direction: Direction) -> RowKey {
    if let Some(p) = step.payload_bytes {
        return RowKey::Payload(p);
    }
    let mut sizes = step
        .streams
        .iter()
        .filter(|s| s.direction == direction)
        .map(|s| s.payload_bytes);
    match sizes.next() {
        Some(first) if sizes.all(|p| p == first) => RowKey::Payload(first),
        _ => RowKey::Named(step.label.clone()),
    }
}

/// The row of a search's case: its payload, or its name.
pub(crate) fn case_row(case: &SearchCase) -> RowKey {
    case.payload_bytes
        .map_or_else(|| RowKey::Named(case.label.clone()), RowKey::Payload)
}

/// `labels` made distinct: the second `open5gs` becomes `open5gs (2)`, so that no two column
/// groups read alike.
pub fn distinct_labels(labels: &[String]) -> Vec<String> {
    let mut out: Vec<String> = Vec::with_capacity(labels.len());
    for l in labels {
        let mut candidate = l.clone();
        let mut n = 1;
        while out.contains(&candidate) {
            n += 1;
            candidate = format!("{l} ({n})");
        }
        out.push(candidate);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::samples::step;
    use upfbench_report::StreamSummary;

    fn stream(direction: Direction, payload_bytes: u32) -> StreamSummary {
        StreamSummary {
            name: "s".into(),
            direction,
            payload_bytes,
            family: Default::default(),
            frame: None,
            flows: 1,
            sent: 1,
            received: 1,
            lost: 0,
            loss_pct: 0.0,
            duplicates: 0,
            reordered: 0,
            late: 0,
            jitter_ns: None,
            tx_slip: None,
        }
    }

    #[test]
    fn a_runs_step_takes_its_streams_payload_or_its_name() {
        let mut s = step(300, 100, 0, 1_000);
        assert_eq!(step_row(&s, Direction::Uplink), RowKey::Payload(300));
        s.payload_bytes = None;
        s.label = "run".into();
        s.streams = vec![
            stream(Direction::Uplink, 100),
            stream(Direction::Downlink, 1400),
        ];
        assert_eq!(step_row(&s, Direction::Uplink), RowKey::Payload(100));
        assert_eq!(step_row(&s, Direction::Downlink), RowKey::Payload(1400));
        // An IMIX: its sizes differ.
        s.streams.push(stream(Direction::Uplink, 1400));
        assert_eq!(step_row(&s, Direction::Uplink), RowKey::Named("run".into()));
        s.streams.clear();
        assert_eq!(step_row(&s, Direction::Uplink), RowKey::Named("run".into()));
        // Payloads first, smallest first, then names.
        let mut keys = vec![
            RowKey::Named("imix".into()),
            RowKey::Payload(1400),
            RowKey::Payload(10),
        ];
        keys.sort();
        assert_eq!(
            keys,
            [
                RowKey::Payload(10),
                RowKey::Payload(1400),
                RowKey::Named("imix".into())
            ]
        );
    }

    #[test]
    fn equal_labels_are_numbered() {
        let labels = [
            "upf".to_owned(),
            "upf".to_owned(),
            "eupf".to_owned(),
            "upf".to_owned(),
        ];
        assert_eq!(
            distinct_labels(&labels),
            ["upf", "upf (2)", "eupf", "upf (3)"]
        );
    }
}

#[cfg(test)]
mod render_tests;
