//! A step's figures per port pair (docs/scale.md §2): with several pairs, the step's own fields
//! are the totals over every worker and [`StepReport::pairs`] holds each pair's, measured by its
//! workers on its ports. One pair writes none (the report stays as a one-pair run's).

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::model::{DirectionReport, StepReport, StreamSummary};
use super::{PortFrames, PortReport, QosReport, Rejected, RxQueues};

/// The part of a [`StepReport`] that is measured per set of workers: what one pair's workers
/// sent and received, on its ports.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StepFigures {
    /// Sending time the rates are computed over (s): the pair's workers'.
    pub duration_s: f64,
    /// Directions that carried streams, uplink first.
    pub directions: Vec<DirectionReport>,
    /// Received packets without a valid measurement tag.
    pub rx_untagged: u64,
    /// Received tagged packets whose stream id belongs to no stream of the step.
    pub rx_unknown_stream: u64,
    /// The pair's ports over the step (counter differences), N3 first.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub ports: Vec<PortReport>,
    /// Packets received on the pair's ports that were not measured traffic, by port and kind.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub rx_rejected: BTreeMap<Rejected, u64>,
    /// The profile's streams, each summed over the pair's flows (its UEs).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub streams: Vec<StreamSummary>,
    /// Every frame the pair's workers sent and received on each of its ports, by kind.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub frames: Vec<PortFrames>,
    /// How each of the pair's ports spread its receive over its queues (N3 first).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub rx_queues: Vec<RxQueues>,
    /// The pair's QoS flows, if the step has any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub qos: Option<QosReport>,
    /// What makes some of the pair's figures less than exact.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<String>,
}

impl StepFigures {
    /// The figures of `step`, a step's report made of one pair's workers and ports.
    pub fn of(step: StepReport) -> StepFigures {
        StepFigures {
            duration_s: step.duration_s,
            directions: step.directions,
            rx_untagged: step.rx_untagged,
            rx_unknown_stream: step.rx_unknown_stream,
            ports: step.ports,
            rx_rejected: step.rx_rejected,
            streams: step.streams,
            frames: step.frames,
            rx_queues: step.rx_queues,
            qos: step.qos,
            warnings: step.warnings,
        }
    }
}

/// One port pair's part of a step.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PairSection {
    /// The pair's name in the system file (`p0`, `p1`, ... when it gives none).
    pub name: String,
    /// What its workers measured on its ports.
    pub figures: StepFigures,
}

impl StepReport {
    /// The step as pair `name` measured it: its label and payload, the pair's figures; `None`
    /// when the step has no such pair.
    pub fn of_pair(&self, name: &str) -> Option<StepReport> {
        let f = &self.pairs.iter().find(|p| p.name == name)?.figures;
        let mut step = StepReport::from_figures(self.label.clone(), self.payload_bytes, f);
        step.tsc_hz = self.tsc_hz;
        Some(step)
    }

    /// A step of `label` and `payload_bytes` holding `figures` alone.
    pub(crate) fn from_figures(
        label: String,
        payload_bytes: Option<u32>,
        f: &StepFigures,
    ) -> StepReport {
        StepReport {
            label,
            payload_bytes,
            duration_s: f.duration_s,
            tsc_hz: None,
            directions: f.directions.clone(),
            rx_untagged: f.rx_untagged,
            rx_unknown_stream: f.rx_unknown_stream,
            warnings: f.warnings.clone(),
            ports: f.ports.clone(),
            rx_rejected: f.rx_rejected.clone(),
            streams: f.streams.clone(),
            frames: f.frames.clone(),
            seconds: Vec::new(),
            rx_queues: f.rx_queues.clone(),
            upf_faults: Vec::new(),
            handover: None,
            churn: None,
            qos: f.qos.clone(),
            pairs: Vec::new(),
        }
    }
}

impl super::Report {
    /// The port pairs the steps were measured on, in the system file's order, when there were
    /// several (none with one).
    pub fn pair_names(&self) -> Vec<String> {
        let mut names: Vec<String> = Vec::new();
        for p in self.steps.iter().flat_map(|s| &s.pairs) {
            if !names.contains(&p.name) {
                names.push(p.name.clone());
            }
        }
        names
    }

    /// The run's steps as pair `name` measured them (see [`StepReport::of_pair`]): what its
    /// tables and pages show of that pair.
    pub fn of_pair(&self, name: &str) -> Vec<StepReport> {
        self.steps.iter().filter_map(|s| s.of_pair(name)).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::super::Report;
    use super::*;

    /// The golden report with its first step's figures as pair `a`'s and, its uplink's sent
    /// packets changed, as pair `b`'s.
    fn with_pairs() -> Report {
        let mut r = Report::from_json(include_str!("../testdata/report.json")).unwrap();
        let step = r.steps[0].clone();
        let a = StepFigures::of(step.clone());
        let mut b = StepFigures::of(step);
        b.directions[0].tx.kpps = 4321.5;
        b.ports.clear();
        r.steps[0].pairs = vec![
            PairSection {
                name: "a".into(),
                figures: a,
            },
            PairSection {
                name: "b".into(),
                figures: b,
            },
        ];
        r
    }

    #[test]
    fn a_report_of_two_pairs_reads_back_and_prints_a_table_per_pair() {
        let r = with_pairs();
        assert_eq!(r.pair_names(), ["a", "b"]);
        let back = Report::from_json(&r.to_json()).unwrap();
        assert_eq!(back, r);
        let b = &back.of_pair("b")[0];
        assert_eq!(b.directions[0].tx.kpps, 4321.5);
        assert_eq!(b.label, r.steps[0].label);
        let text = r.to_table();
        let (totals, pairs) = text.split_once("Pair a: ").expect("pair a's section");
        let (a, b) = pairs
            .split_once("Pair b: ")
            .expect("pair b's section after a's");
        assert!(totals.contains("Uplink: GTP-U sent on N3"));
        assert!(
            a.contains("Uplink: GTP-U sent on N3") && a.contains("1488.1"),
            "{a}"
        );
        assert!(b.contains("4321.5") && !a.contains("4321.5"), "{b}");
        // Pair a has the ports' table, b none.
        assert!(a.contains("The tester's ports"));
        assert!(!b.contains("The tester's ports"));
    }

    #[test]
    fn a_report_of_one_pair_writes_no_pairs() {
        let r = Report::from_json(include_str!("../testdata/report.json")).unwrap();
        assert!(r.pair_names().is_empty());
        assert!(!r.to_json().contains("\"pairs\""));
        assert!(!r.to_table().contains("Pair "));
    }
}
