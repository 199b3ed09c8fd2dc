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
        let us = |f: fn(&LatencyReport) -> f64| {
            q.latency
                .as_ref()
                .map_or_else(|| "-".to_owned(), |l| format!("{:.2}", f(l)))
        };
        let _ = writeln!(
            out,
            "  {:>4} {:<4} {:>10} {:>10} {:>9} {:>8.3} {:>9} {:>9} {:>9} {:>9}  {}",
            q.qfi,
            q.direction.short(),
            q.sent,
            q.received,
            q.lost,
            q.loss_ratio * 100.0,
            us(|l| l.percentiles.p50.us()),
            us(|l| l.percentiles.p99.us()),
            us(|l| l.percentiles.p99_9.unwrap_or(l.percentiles.max).us()),
            us(|l| l.percentiles.max.us()),
            q.streams.join(", ")
        );
    }
}
