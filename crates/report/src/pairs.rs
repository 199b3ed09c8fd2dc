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
