//! Every figure of each QoS flow (issue 29: "the report gives every figure per QFI as well as
//! per stream"): its streams' packets sent, received and lost, and its latency, per direction.

use std::fmt::Write as _;

use serde::{Deserialize, Serialize};
use upfbench_stats::Direction;

use crate::model::LatencyReport;

/// One QoS flow in one direction, over its streams and sessions.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct QfiFigures {
    /// The QoS Flow Identifier.
    pub qfi: u8,
    /// Its direction.
    pub direction: Direction,
    /// Its streams' names.
    pub streams: Vec<String>,
    /// Packets sent.
    pub sent: u64,
    /// Packets received (unique).
    pub received: u64,
    /// Packets lost.
    pub lost: u64,
    /// `lost / sent`.
    pub loss_ratio: f64,
    /// One-way latency of its packets.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub latency: Option<LatencyReport>,
}

impl QfiFigures {
    /// Its latency's p50, p99, p99.9 (the maximum when too few packets for it) and maximum in
    /// µs with two decimals, or `-` each without a latency: the text and HTML tables' cells.
    pub fn latency_cells(&self) -> [String; 4] {
        let Some(l) = &self.latency else {
            return std::array::from_fn(|_| "-".to_owned());
        };
        let p = &l.percentiles;
        [p.p50, p.p99, p.p99_9.unwrap_or(p.max), p.max].map(|v| format!("{:.2}", v.us()))
    }
}

/// The text report's table of a step's QoS flows' figures.
pub(crate) fn qfi_table(out: &mut String, qfis: &[QfiFigures]) {
    if qfis.is_empty() {
        return;
    }
    let _ = writeln!(
        out,
        "  {:>4} {:<4} {:>10} {:>10} {:>9} {:>8} {:>9} {:>9} {:>9} {:>9}  streams",
        "qfi",
        "dir",
        "sent",
        "received",
        "lost",
        "loss %",
        "p50 us",
        "p99 us",
        "p99.9 us",
        "max us"
    );
    for q in qfis {
        let [p50, p99, p99_9, max] = q.latency_cells();
        let _ = writeln!(
            out,
            "  {:>4} {:<4} {:>10} {:>10} {:>9} {:>8.3} {:>9} {:>9} {:>9} {:>9}  {}",
            q.qfi,
            q.direction.short(),
            q.sent,
            q.received,
            q.lost,
            q.loss_ratio * 100.0,
            p50,
            p99,
            p99_9,
            max,
            q.streams.join(", ")
        );
    }
}
