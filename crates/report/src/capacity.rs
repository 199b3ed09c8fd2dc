//! `upfbench capacity`: how many sessions the UPF held, and what forwarding did along the
//! climb.

use std::fmt::Write;

use serde::{Deserialize, Serialize};

/// The climb to the UPF's session limit.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CapacityReport {
    /// The most sessions asked for (the profile's `sessions.count`).
    pub limit: u64,
    /// Sessions per batch.
    pub batch: u64,
    /// Sessions established when the climb ended: at the first refusal, or at the limit.
    pub established: u64,
    /// The UPF's first refusal; `None`: it took every session up to the limit.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub refusal: Option<CapacityRefusal>,
    /// The batches, in order; batch `i` was followed by step `i` of the report.
    pub batches: Vec<CapacityBatch>,
    /// The tester's peak resident memory over the run (bytes).
    pub tester_peak_rss_bytes: u64,
}

/// How the UPF refused the session past its capacity.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CapacityRefusal {
    /// Sessions it held when it refused (the capacity found).
    pub at: u64,
    /// The Cause's value (TS 29.244 §8.2.1), when it answered.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cause: Option<u8>,
    /// The Cause's name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cause_name: Option<String>,
    /// The Offending IE's type, when it named one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub offending_ie: Option<u16>,
    /// What the run said of it.
    pub detail: String,
    /// Sessions of the same batch it accepted after refusing one (requests in flight).
    pub accepted_after: u64,
}

/// One batch of the climb and the traffic after it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CapacityBatch {
    /// Sessions asked for in this batch.
    pub asked: u64,
    /// Of those, established (up to the first refusal).
    pub established: u64,
    /// Sessions established in all, after it: the traffic's sessions.
    pub total: u64,
    /// Establishment rate of this batch (sessions per second).
    pub rate_per_s: f64,
    /// The tester's resident memory after the step that followed (bytes).
    pub tester_rss_bytes: u64,
}

/// The section of the text report.
pub(super) fn capacity_section(out: &mut String, c: &CapacityReport) {
    let _ = writeln!(out, "Capacity");
    let _ = match &c.refusal {
        Some(r) => writeln!(
            out,
            "  the UPF refused a session at {} sessions: {}",
            r.at, r.detail
        ),
        None => writeln!(
            out,
            "  the UPF took every session asked for: {} (the limit of the climb, sessions.count)",
            c.established
        ),
    };
    if let Some(r) = c.refusal.as_ref().filter(|r| r.accepted_after > 0) {
        let _ = writeln!(
            out,
            "  {} more sessions of that batch were accepted after the refusal (in flight)",
            r.accepted_after
        );
    }
    let _ = writeln!(
        out,
        "  {:>6} {:>10} {:>12} {:>10} {:>12}",
        "batch", "sessions", "established", "per s", "tester MB"
    );
    for (i, b) in c.batches.iter().enumerate() {
        let _ = writeln!(
            out,
            "  {:>6} {:>10} {:>12} {:>10.0} {:>12.1}",
            i + 1,
            b.total,
            format!("{}/{}", b.established, b.asked),
            b.rate_per_s,
            b.tester_rss_bytes as f64 / 1e6
        );
    }
    let _ = writeln!(
        out,
        "  tester's peak memory {:.1} MB; loss and latency after each batch: the steps below, \
         one per batch\n",
        c.tester_peak_rss_bytes as f64 / 1e6
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_section_names_the_refusal_and_every_batch() {
        let c = CapacityReport {
            limit: 1000,
            batch: 300,
            established: 512,
            refusal: Some(CapacityRefusal {
                at: 512,
                cause: Some(75),
                cause_name: Some("No resources available".into()),
                offending_ie: None,
                detail: "No resources available (75)".into(),
                accepted_after: 0,
            }),
            batches: vec![
                CapacityBatch {
                    asked: 300,
                    established: 300,
                    total: 300,
                    rate_per_s: 25_000.0,
                    tester_rss_bytes: 40_000_000,
                },
                CapacityBatch {
                    asked: 300,
                    established: 212,
                    total: 512,
                    rate_per_s: 20_000.0,
                    tester_rss_bytes: 41_000_000,
                },
            ],
            tester_peak_rss_bytes: 42_000_000,
        };
        let mut out = String::new();
        capacity_section(&mut out, &c);
        assert!(
            out.contains("refused a session at 512 sessions: No resources available (75)"),
            "{out}"
        );
        assert!(
            out.contains("     2        512      212/300      20000         41.0"),
            "{out}"
        );
        let json = serde_json::to_string(&c).unwrap();
        assert_eq!(serde_json::from_str::<CapacityReport>(&json).unwrap(), c);
    }
}
