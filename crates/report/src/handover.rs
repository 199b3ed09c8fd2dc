//! Handovers under traffic in a step's report: per moving UE, the downlink's interruption
//! across its path switch (the first packet through the new tunnel after the last through the
//! old one), what was lost, duplicated or reordered across it, whether the End Marker came and
//! came after the last old-path G-PDU, and the modification's latency; summarised as
//! percentiles and counts, with its lines in the human report.

use std::fmt::Write as _;

use serde::{Deserialize, Serialize};

use super::percentiles::Percentiles;

/// What came of the End Marker a UE's handover asked for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum EndMarkerVerdict {
    /// Not asked for (no SNDEM).
    NotAsked,
    /// None came on the old tunnel.
    Missing,
    /// It came after the last G-PDU of the old tunnel.
    InOrder,
    /// It came before a G-PDU of the old tunnel.
    Early,
}

/// One moving UE's handover.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct UeHandover {
    /// The UE (index).
    pub ue: u32,
    /// When it was planned, from the measured phase's start (ms).
    pub planned_ms: f64,
    /// When the modification went out, from the same start (ms).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sent_ms: Option<f64>,
    /// From the modification's request to its response (ms).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub modification_ms: Option<f64>,
    /// Why the modification failed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// Downlink packets through the old tunnel.
    pub old_path_packets: u64,
    /// Through the new tunnel.
    pub new_path_packets: u64,
    /// First new-path arrival minus last old-path arrival (ms; negative when they overlap);
    /// none without both.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub interruption_ms: Option<f64>,
    /// Sequence numbers between the last old-path packet and the first new-path one that never
    /// came, over the UE's downlink flows.
    pub lost: u64,
    /// Packets of its downlink flows received twice.
    pub duplicates: u64,
    /// Packets of its downlink flows that came behind a later one (old-path ones after the
    /// first new-path one among them).
    pub reordered: u64,
    /// End Markers received on its old tunnel.
    pub end_markers: u64,
    /// The End Marker's verdict.
    pub end_marker: EndMarkerVerdict,
    /// First End Marker minus last old-path G-PDU (ms; negative: early).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub end_marker_after_ms: Option<f64>,
}

/// A step's handovers.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct HandoverReport {
    /// Handovers planned.
    pub handovers: u64,
    /// Modifications the UPF accepted.
    pub modified: u64,
    /// Modifications that failed (refused or unanswered).
    pub failed: u64,
    /// Moving UEs whose downlink came through the new tunnel.
    pub switched: u64,
    /// The modifications asked for End Markers (SNDEM).
    pub end_marker_asked: bool,
    /// UEs whose End Marker came.
    pub end_markers_received: u64,
    /// UEs whose End Marker came after the old path's last G-PDU.
    pub end_markers_in_order: u64,
    /// UEs whose End Marker never came (when asked for).
    pub end_markers_missing: u64,
    /// Lost across the switches.
    pub lost: u64,
    /// Duplicated packets of the moving UEs' downlink.
    pub duplicates: u64,
    /// Reordered packets of the moving UEs' downlink.
    pub reordered: u64,
    /// Interruption over the switched UEs (nearest rank).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub interruption: Option<Percentiles>,
    /// Modification latency over the answered modifications (nearest rank).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub modification: Option<Percentiles>,
    /// Per moving UE, in the order they moved.
    pub ues: Vec<UeHandover>,
}

impl HandoverReport {
    /// The summary of `ues`' handovers; `end_marker_asked` as the modifications said.
    pub fn from_ues(ues: Vec<UeHandover>, end_marker_asked: bool) -> HandoverReport {
        let count = |f: &dyn Fn(&UeHandover) -> bool| ues.iter().filter(|u| f(u)).count() as u64;
        HandoverReport {
            handovers: ues.len() as u64,
            modified: count(&|u| u.modification_ms.is_some() && u.error.is_none()),
            failed: count(&|u| u.error.is_some()),
            switched: count(&|u| u.new_path_packets > 0),
            end_marker_asked,
            end_markers_received: count(&|u| u.end_markers > 0),
            end_markers_in_order: count(&|u| u.end_marker == EndMarkerVerdict::InOrder),
            end_markers_missing: count(&|u| u.end_marker == EndMarkerVerdict::Missing),
            lost: ues.iter().map(|u| u.lost).sum(),
            duplicates: ues.iter().map(|u| u.duplicates).sum(),
            reordered: ues.iter().map(|u| u.reordered).sum(),
            interruption: Percentiles::of_ms(ues.iter().filter_map(|u| u.interruption_ms)),
            modification: Percentiles::of_ms(ues.iter().filter_map(|u| u.modification_ms)),
            ues,
        }
    }
}

fn spread(p: &Percentiles) -> String {
    format!(
        "p50 {:.3}  p90 {:.3}  p99 {:.3}  max {:.3}  (min {:.3}, {} UEs)",
        p.p50.ms(),
        p.p90.ms(),
        p.p99.ms(),
        p.max.ms(),
        p.min.ms(),
        p.samples
    )
}

/// The handover lines of one step, `label`.
pub(super) fn handover_section(out: &mut String, label: &str, h: &HandoverReport) {
    let _ = writeln!(
        out,
        "Handovers, {}: {} planned, {} modified ({} failed), {} switched to the new path",
        label, h.handovers, h.modified, h.failed, h.switched
    );
    if let Some(p) = &h.interruption {
        let _ = writeln!(out, "  interruption ms:          {}", spread(p));
    }
    if let Some(p) = &h.modification {
        let _ = writeln!(out, "  modification latency ms:  {}", spread(p));
    }
    if h.end_marker_asked {
        let _ = writeln!(
            out,
            "  End Markers: {} received, {} after the last old-path G-PDU, {} missing",
            h.end_markers_received, h.end_markers_in_order, h.end_markers_missing
        );
    } else {
        let _ = writeln!(out, "  End Markers: not asked for (end_marker: false)");
    }
    let _ = writeln!(
        out,
        "  across the switches: {} lost, {} duplicated, {} reordered\n",
        h.lost, h.duplicates, h.reordered
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ue(i: u32, interruption: Option<f64>, end_marker: EndMarkerVerdict) -> UeHandover {
        UeHandover {
            ue: i,
            planned_ms: 100.0,
            sent_ms: Some(100.2),
            modification_ms: Some(0.5 + f64::from(i)),
            error: None,
            old_path_packets: 10,
            new_path_packets: u64::from(interruption.is_some()) * 10,
            interruption_ms: interruption,
            lost: 3,
            duplicates: 0,
            reordered: 1,
            end_markers: u64::from(end_marker != EndMarkerVerdict::Missing),
            end_marker,
            end_marker_after_ms: None,
        }
    }

    #[test]
    fn the_summary_counts_each_kind() {
        let h = HandoverReport::from_ues(
            vec![
                ue(0, Some(50.0), EndMarkerVerdict::InOrder),
                ue(1, Some(52.0), EndMarkerVerdict::Early),
                ue(2, None, EndMarkerVerdict::Missing),
            ],
            true,
        );
        assert_eq!(
            (h.handovers, h.modified, h.failed, h.switched),
            (3, 3, 0, 2)
        );
        assert_eq!(
            (
                h.end_markers_received,
                h.end_markers_in_order,
                h.end_markers_missing
            ),
            (2, 1, 1)
        );
        assert_eq!((h.lost, h.duplicates, h.reordered), (9, 0, 3));
        let i = h.interruption.unwrap();
        assert_eq!((i.samples, i.p50.ms(), i.max.ms()), (2, 50.0, 52.0));
        assert_eq!(h.modification.unwrap().max.ms(), 2.5);
        let json = serde_json::to_string(&h).unwrap();
        assert_eq!(serde_json::from_str::<HandoverReport>(&json).unwrap(), h);
    }
}
