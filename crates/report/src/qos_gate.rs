//! A QoS flow's gates closed by a Session Modification in the measured phase (issue 29): when
//! the modifications went and were answered, and the flow's packets the UPF passed that were
//! sent after the last answer. The target is none: TS 29.244 §5.4.4's closed gate drops the
//! flow's packets.

use std::fmt::Write as _;

use serde::{Deserialize, Serialize};

/// The gate part of a step's QoS section.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GateReport {
    /// The flow whose gates were closed.
    pub qfi: u8,
    /// When the modifications were due, from the measured phase's start (s).
    pub close_at_s: f64,
    /// Sessions whose modification the UPF accepted.
    pub answered: u32,
    /// Sessions whose modification it refused or never answered, and the first reason.
    pub refused: u32,
    /// The first refusal's reason.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub first_error: Option<String>,
    /// The last answer, from the measured phase's start (s).
    pub last_answer_s: f64,
    /// The slowest modification, from its request to its answer (ms).
    pub slowest_ms: f64,
    /// The flow's packets received before the last answer (by their sending time).
    pub passed_before: u64,
    /// The flow's packets sent after the last answer (from the next whole `resolution_ms`) that
    /// the UPF passed: 0 for a gate that closed.
    pub passed_after: u64,
    /// The sending-time windows the packets are counted in (ms).
    pub resolution_ms: f64,
}

impl GateReport {
    /// Whether the gate held: every modification answered, nothing passed after.
    pub fn closed(&self) -> bool {
        self.refused == 0 && self.answered > 0 && self.passed_after == 0
    }
}

/// The text report's line of a step's gate.
pub(crate) fn gate_line(out: &mut String, g: &GateReport) {
    let _ = writeln!(out, "  {}", g.summary());
}

impl GateReport {
    /// What came of the gate, in a sentence.
    pub fn summary(&self) -> String {
        let g = self;
        let verdict = if g.closed() {
            "closed: nothing passed after the answers".to_owned()
        } else if g.passed_after > 0 {
            format!(
                "NOT closed: {} packets sent after the last answer passed",
                g.passed_after
            )
        } else {
            format!(
                "not closed: {} modifications refused or unanswered ({})",
                g.refused,
                g.first_error.as_deref().unwrap_or("no reason")
            )
        };
        format!(
            "gate of QFI {} closed at {:.3} s: {} sessions answered, the last at {:.3} s \
             (slowest {:.2} ms); {} packets passed before; {verdict}",
            g.qfi, g.close_at_s, g.answered, g.last_answer_s, g.slowest_ms, g.passed_before
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn gate(answered: u32, refused: u32, after: u64) -> GateReport {
        GateReport {
            qfi: 5,
            close_at_s: 2.0,
            answered,
            refused,
            first_error: (refused > 0).then(|| "Cause 65".to_owned()),
            last_answer_s: 2.0012,
            slowest_ms: 1.2,
            passed_before: 1000,
            passed_after: after,
            resolution_ms: 1.0,
        }
    }

    #[test]
    fn a_gate_holds_only_answered_and_with_nothing_after() {
        assert!(gate(2, 0, 0).closed());
        assert!(!gate(2, 0, 3).closed());
        assert!(!gate(1, 1, 0).closed());
        assert!(!gate(0, 0, 0).closed());
        let mut out = String::new();
        gate_line(&mut out, &gate(2, 0, 3));
        assert!(out.contains("NOT closed: 3 packets sent after"), "{out}");
        let mut out = String::new();
        gate_line(&mut out, &gate(1, 1, 0));
        assert!(
            out.contains("1 modifications refused or unanswered (Cause 65)"),
            "{out}"
        );
    }
}
