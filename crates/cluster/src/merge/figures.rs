//! What the merge makes: an agent's figures, or every agent's, added up exactly, the latency
//! histograms decoded into recorders so that the report takes its percentiles from them as the
//! single box does.

use std::collections::BTreeMap;

use upfbench_report::{PortFrames, PortReport, StepPhase, TxSlip};
use upfbench_stats::{Direction, LatencyConfig, LatencyRecorder, SeqCounters, TrafficCounters};

/// One direction over the step, summed over every pair (and agent) merged.
#[derive(Debug, Clone, PartialEq)]
pub struct MergedDirection {
    /// The direction.
    pub direction: Direction,
    /// Frames sent.
    pub tx: TrafficCounters,
    /// Tagged frames received.
    pub rx: TrafficCounters,
    /// Sequence accounting.
    pub seq: SeqCounters,
    /// One-way latency, bucket by bucket the sum of the parts'.
    pub latency: LatencyRecorder,
}

/// One stream of the profile, summed over its flows everywhere.
#[derive(Debug, Clone, PartialEq)]
pub struct MergedStream {
    /// Its index in the profile's streams.
    pub stream: u32,
    /// Its name.
    pub name: String,
    /// Its direction.
    pub direction: Direction,
    /// Its flows (UEs), every part's.
    pub flows: u32,
    /// Sequence accounting.
    pub seq: SeqCounters,
    /// The mean of the parts' jitter means weighted by their flows with an estimate: the one
    /// figure of the merge that is defined rather than exact (as `stats::merge` does over
    /// cores).
    pub jitter_mean_ns: Option<f64>,
    /// The flows with a jitter estimate.
    pub jitter_flows: u32,
    /// One-way latency.
    pub latency: LatencyRecorder,
    /// The senders' slips: counts add, times take the longest.
    pub tx_slip: Option<TxSlip>,
}

/// One QoS flow in one direction.
#[derive(Debug, Clone, PartialEq)]
pub struct MergedQfi {
    /// The QFI.
    pub qfi: u8,
    /// Its direction.
    pub direction: Direction,
    /// Its sequence accounting.
    pub seq: SeqCounters,
    /// Its one-way latency.
    pub latency: LatencyRecorder,
}

/// One direction over one second.
#[derive(Debug, Clone, PartialEq)]
pub struct MergedSecondDirection {
    /// The direction.
    pub direction: Direction,
    /// Frames sent in the second.
    pub tx: TrafficCounters,
    /// Frames received in the second.
    pub rx: TrafficCounters,
    /// Losses confirmed in the second.
    pub lost: u64,
    /// The second's latencies.
    pub latency: LatencyRecorder,
}

/// Second `index` from the step's common start: every part's second `index` added.
#[derive(Debug, Clone, PartialEq)]
pub struct MergedSecond {
    /// k, from 0 at the common start.
    pub index: u32,
    /// The longest of the parts' (ns).
    pub duration_ns: u64,
    /// The phase furthest along among the parts' at the second's end.
    pub phase: StepPhase,
    /// The directions, uplink first.
    pub directions: Vec<MergedSecondDirection>,
}

/// A step's figures merged over results (one agent's pairs, or every agent's).
#[derive(Debug, Clone, PartialEq)]
pub struct MergedStep {
    /// The step's number.
    pub step: u32,
    /// The agents merged, in the order given.
    pub agents: Vec<String>,
    /// The histograms' configuration, every part's.
    pub latency: LatencyConfig,
    /// The earliest of the parts' start lateness (ns; negative: early).
    pub start_late_min_ns: i64,
    /// The latest of the parts' start lateness (ns).
    pub start_late_max_ns: i64,
    /// The longest measured sending time (ns).
    pub duration_ns: u64,
    /// The parts' warnings, each after its agent's name.
    pub warnings: Vec<String>,
    /// Per direction, uplink first.
    pub directions: Vec<MergedDirection>,
    /// Per stream, in the profile's order.
    pub streams: Vec<MergedStream>,
    /// Per QoS flow and direction.
    pub qfis: Vec<MergedQfi>,
    /// Per port name, N3 first: the counters of every agent's port of that name added.
    pub ports: Vec<PortReport>,
    /// Per port name, N3 first.
    pub frames: Vec<PortFrames>,
    /// Frames received that were not measured traffic, by port and kind.
    pub rx_rejected: BTreeMap<String, u64>,
    /// Frames without a valid measurement tag.
    pub rx_untagged: u64,
    /// Tagged frames of no stream.
    pub rx_unknown_stream: u64,
    /// The seconds from the common start, by index; an index no part has is absent.
    pub seconds: Vec<MergedSecond>,
}

impl MergedStep {
    /// The direction `d`'s figures, if it carried traffic.
    pub fn direction(&self, d: Direction) -> Option<&MergedDirection> {
        self.directions.iter().find(|m| m.direction == d)
    }

    /// Packets sent and lost over every direction: (Σ sent, Σ lost).
    pub fn sent_and_lost(&self) -> (u64, u64) {
        self.directions
            .iter()
            .fold((0, 0), |(s, l), d| (s + d.seq.sent, l + d.seq.lost))
    }
}
