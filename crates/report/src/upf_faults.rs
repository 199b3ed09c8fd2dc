//! The UPF's failures during a run: when each was seen and what the run did (the control
//! section), and the loss of each step split at the failure (the step's section).

use std::fmt::Write as _;

use serde::{Deserialize, Serialize};

/// A failure of the UPF that the PFCP client saw.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct UpfFault {
    /// `restart` (a new Recovery Time Stamp), `heartbeat lost` (no answer after N1
    /// retransmissions) or `released` (the UPF released the association).
    pub kind: String,
    /// When the client saw it, since the run started (s).
    pub at_s: f64,
    /// A restart: when the UPF's previous Recovery Time Stamp was last seen (s since the run
    /// started); the restart happened after this and before `at_s`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub after_s: Option<f64>,
    /// The step running then (0-based), if one was.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub step: Option<usize>,
    /// Sessions the UPF lost (all it held for the run).
    pub sessions_lost: u64,
    /// What was seen (the Recovery Time Stamps, the heartbeat).
    pub detail: String,
    /// What the run did: `stopped`, `reestablished`, `reestablishment failed`, `continued`.
    pub action: String,
    /// Sessions established again.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reestablished: Option<u64>,
    /// When the last of them was (s since the run started).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reestablished_at_s: Option<f64>,
    /// When the first packet after the re-establishment was received (s since the run
    /// started; to the run loop's 10 ms).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub traffic_again_at_s: Option<f64>,
    /// The outage: from `after_s` (the restart's earliest time) to `traffic_again_at_s` (s).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub outage_s: Option<f64>,
    /// Heartbeats lost in all (`heartbeat lost`: the UPF may go on not answering).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub heartbeats_lost: Option<u64>,
}

impl UpfFault {
    /// One line for the table.
    pub fn line(&self) -> String {
        let mut s = format!("  {} at {:.3} s", self.kind, self.at_s);
        if let Some(a) = self.after_s {
            let _ = write!(s, " (after {a:.3} s)");
        }
        if let Some(step) = self.step {
            let _ = write!(s, " in step {}", step + 1);
        }
        let _ = write!(
            s,
            ": {}; {} sessions lost; {}",
            self.detail, self.sessions_lost, self.action
        );
        if let Some(n) = self.reestablished {
            let _ = write!(s, " ({n} sessions)");
        }
        if let Some(o) = self.outage_s {
            let _ = write!(s, "; outage {o:.3} s");
        }
        if let Some(n) = self.heartbeats_lost {
            let _ = write!(s, "; heartbeats lost {n}");
        }
        s
    }
}

/// One step's loss split at a failure of the UPF: counted over all the step's packets (warm-up
/// and drain included) from the workers' counters, at the last sign of the UPF's health
/// before the failure (a restart: when the old Recovery Time Stamp was last seen; a heartbeat
/// loss: when the lost heartbeat was first sent).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FaultLoss {
    /// The failure, as [`UpfFault::kind`] names it.
    pub kind: String,
    /// Where the split is, since the step's workers started (s); 0 when before.
    pub split_s: f64,
    /// Packets sent before the split.
    pub sent_before: u64,
    /// Packets lost before the split (sent then and not received by then; those in flight at
    /// the split, microseconds of traffic, count here).
    pub lost_before: u64,
    /// Packets sent after the split.
    pub sent_after: u64,
    /// Packets lost from the split on: the failure's.
    pub lost_after: u64,
}

impl FaultLoss {
    /// One line for the table.
    pub fn line(&self) -> String {
        format!(
            "  {} at {:.3} s into the step: lost {} of {} sent before, {} of {} sent after",
            self.kind,
            self.split_s,
            self.lost_before,
            self.sent_before,
            self.lost_after,
            self.sent_after
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_lines_name_the_times_the_counts_and_the_action() {
        let f = UpfFault {
            kind: "restart".into(),
            at_s: 12.5,
            after_s: Some(11.75),
            step: Some(0),
            sessions_lost: 8,
            detail: "Recovery Time Stamp 100 -> 101".into(),
            action: "reestablished".into(),
            reestablished: Some(8),
            reestablished_at_s: Some(12.6),
            traffic_again_at_s: Some(12.61),
            outage_s: Some(0.86),
            heartbeats_lost: None,
        };
        assert_eq!(
            f.line(),
            "  restart at 12.500 s (after 11.750 s) in step 1: Recovery Time Stamp 100 -> 101; \
             8 sessions lost; reestablished (8 sessions); outage 0.860 s"
        );
        let l = FaultLoss {
            kind: "restart".into(),
            split_s: 3.25,
            sent_before: 1000,
            lost_before: 0,
            sent_after: 500,
            lost_after: 120,
        };
        assert_eq!(
            l.line(),
            "  restart at 3.250 s into the step: lost 0 of 1000 sent before, 120 of 500 sent after"
        );
    }
}
