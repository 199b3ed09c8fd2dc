//! `GET /v1/steps/{n}/result`: what an agent measured over a step, raw, never percentiles, so
//! that a coordinator adds the agents' figures exactly (docs/scale.md §3 "The exact merge"):
//! counts add, histograms add bucket by bucket, minima and maxima take the extreme, sums add,
//! and second k of every agent adds to second k of the run.

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use upfbench_report::{PortFrames, PortReport, StepPhase, TxSlip};
use upfbench_stats::{Direction, SeqCounters, TrafficCounters};

use crate::v1::histogram::LatencyHistogram;

/// The latency histograms' configuration: the profile's `latency`, the same on every agent (a
/// result of another one cannot be merged).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct LatencySettings {
    /// The highest latency tracked (ns).
    pub max_ns: u64,
    /// Significant decimal digits, 3 to 5.
    pub significant_digits: u8,
}

/// One direction over the step, summed over a pair's streams.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct DirectionFigures {
    /// The direction.
    pub direction: Direction,
    /// Frames sent.
    pub tx: TrafficCounters,
    /// Tagged frames received for known streams (duplicates and late ones included).
    pub rx: TrafficCounters,
    /// Sequence accounting summed over the direction's flows.
    pub seq: SeqCounters,
    /// One-way latency of every packet received.
    pub latency: LatencyHistogram,
}

/// One stream of the profile, summed over its flows on the pair.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct StreamFigures {
    /// The stream's index in the profile's `streams` (each size of an IMIX its own).
    pub stream: u32,
    /// The profile's name of it.
    pub name: String,
    /// Its direction.
    pub direction: Direction,
    /// Its flows (UEs) on the pair.
    pub flows: u32,
    /// Sequence accounting summed over its flows: sent, received, unique, lost, duplicates,
    /// reordered, late.
    pub seq: SeqCounters,
    /// The mean of its flows' RFC 3550 jitter (ns), over `jitter_flows` flows.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub jitter_mean_ns: Option<f64>,
    /// The flows that had a jitter estimate (two arrivals or more): the mean's weight.
    pub jitter_flows: u32,
    /// Its one-way latency.
    pub latency: LatencyHistogram,
    /// How far its senders fell behind their schedule, if they did.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tx_slip: Option<TxSlip>,
}

/// The packets of one QoS flow (profile `sessions.qos_flows`) in one direction.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct QfiFigures {
    /// The QoS Flow Identifier.
    pub qfi: u8,
    /// Its direction.
    pub direction: Direction,
    /// Its sequence accounting.
    pub seq: SeqCounters,
    /// Its one-way latency.
    pub latency: LatencyHistogram,
}

/// One direction over one second of the step.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct SecondDirection {
    /// The direction.
    pub direction: Direction,
    /// Frames sent in the second.
    pub tx: TrafficCounters,
    /// Tagged frames received in the second.
    pub rx: TrafficCounters,
    /// Losses confirmed in the second (positions that left their flow's reorder window).
    pub lost: u64,
    /// The latencies of the second's arrivals.
    pub latency: LatencyHistogram,
}

/// Second `index` of the step: `[T + index s, T + index s + 1 s)` on the agent's clock, T the
/// step's common start, so that every agent's second k is the same second.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct SecondFigures {
    /// k, from 0 at the start time (the warm-up's seconds included).
    pub index: u32,
    /// Its length (ns): 10⁹ but for the last.
    pub duration_ns: u64,
    /// What the workers were doing at its end.
    pub phase: StepPhase,
    /// The directions that carried traffic, uplink first.
    pub directions: Vec<SecondDirection>,
}

/// One pair's figures over the step.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct PairResult {
    /// The pair.
    pub pair: String,
    /// The directions that carried streams, uplink first.
    pub directions: Vec<DirectionFigures>,
    /// The profile's streams, in its order.
    pub streams: Vec<StreamFigures>,
    /// The QoS flows, if the profile has any.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub qfis: Vec<QfiFigures>,
    /// The pair's ports over the step (counter differences), N3 first.
    pub ports: Vec<PortReport>,
    /// Every frame the workers sent and received on each port, by kind, the service plane's
    /// included, N3 first.
    pub frames: Vec<PortFrames>,
    /// Frames received that were not measured traffic, by port and kind (`"N3 not_gtpu"`):
    /// counted and dropped.
    pub rx_rejected: BTreeMap<String, u64>,
    /// Frames received without a valid measurement tag.
    pub rx_untagged: u64,
    /// Tagged frames whose stream id is no stream's.
    pub rx_unknown_stream: u64,
    /// The step's seconds.
    pub seconds: Vec<SecondFigures>,
}

/// `GET /v1/steps/{n}/result`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct StepResult {
    /// The step's number.
    pub step: u32,
    /// The agent's name.
    pub agent: String,
    /// The histograms' configuration.
    pub latency: LatencySettings,
    /// How late the first packet was due against the common start time (ns; negative:
    /// early).
    pub start_late_ns: i64,
    /// The measured phase's sending time (ns), what the rates are over.
    pub duration_ns: u64,
    /// The TSC frequency the step's latencies and pacing used (ticks per second).
    pub tsc_hz: f64,
    /// Findings that make some figure less than exact.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<String>,
    /// Per pair.
    pub pairs: Vec<PairResult>,
}
