//! The UPF's failures during a run: when each was seen and what the run did (the control
//! section), and the loss of each step split at the failure (the step's section).

use std::fmt::Write as _;

use serde::{Deserialize, Serialize};

/// What failed, in JSON by the words of the table (`"heartbeat lost"`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum UpfFaultKind {
    /// A new Recovery Time Stamp: the UPF restarted, its sessions gone.
    #[serde(rename = "restart")]
    Restart,
    /// No answer to a heartbeat after N1 retransmissions.
    #[serde(rename = "heartbeat lost")]
    HeartbeatLost,
    /// The UPF released the association.
    #[serde(rename = "released")]
    Released,
}

/// What the run did about a failure (`"reestablishment failed"`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum UpfAction {
    /// It stopped.
    #[serde(rename = "stopped")]
    Stopped,
    /// It is establishing the sessions again (until it is done or fails).
    #[serde(rename = "reestablishing")]
    Reestablishing,
    /// It established the sessions again.
    #[serde(rename = "reestablished")]
    Reestablished,
    /// Establishing them again failed.
    #[serde(rename = "reestablishment failed")]
    ReestablishmentFailed,
    /// It went on.
    #[serde(rename = "continued")]
    Continued,
    /// It set the association up again.
    #[serde(rename = "reassociated")]
    Reassociated,
}

/// The word of `v` in JSON: what tables print.
fn word<T: Serialize>(v: &T) -> String {
    serde_json::to_value(v)
        .ok()
        .and_then(|v| v.as_str().map(str::to_owned))
        .unwrap_or_default()
}

impl std::fmt::Display for UpfFaultKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&word(self))
    }
}

impl std::fmt::Display for UpfAction {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&word(self))
    }
}

/// A failure of the UPF that the PFCP client saw.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct UpfFault {
    /// What failed.
    pub kind: UpfFaultKind,
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
    /// What the run did.
    pub action: UpfAction,
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
    /// The failure.
    pub kind: UpfFaultKind,
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
            kind: UpfFaultKind::Restart,
            at_s: 12.5,
            after_s: Some(11.75),
            step: Some(0),
            sessions_lost: 8,
            detail: "Recovery Time Stamp 100 -> 101".into(),
            action: UpfAction::Reestablished,
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
            kind: UpfFaultKind::Restart,
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

#[cfg(test)]
mod words {
    use super::*;

    #[test]
    fn kinds_and_actions_keep_their_words() {
        for (k, w) in [
            (UpfFaultKind::Restart, "restart"),
            (UpfFaultKind::HeartbeatLost, "heartbeat lost"),
            (UpfFaultKind::Released, "released"),
        ] {
            assert_eq!(serde_json::to_value(k).unwrap(), w);
            assert_eq!(k.to_string(), w);
        }
        let a: UpfAction = serde_json::from_str("\"reestablishment failed\"").unwrap();
        assert_eq!(a, UpfAction::ReestablishmentFailed);
        assert_eq!(a.to_string(), "reestablishment failed");
    }
}
