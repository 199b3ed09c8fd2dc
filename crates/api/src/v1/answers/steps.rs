//! The answers of a segment's cycle: `PUT /v1/segment`, `POST /v1/steps` and `GET /v1/status`.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use upfbench_report::StepPhase;
use upfbench_stats::Direction;

use super::agent::AgentState;
use crate::v1::bodies::UeBlock;

/// One stream's share on one pair: its UEs there and its rate.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct StreamShare {
    /// The profile's name of the stream.
    pub name: String,
    /// Its direction.
    pub direction: Direction,
    /// Its UEs on this pair.
    pub ues: u32,
    /// Its packet rate on this pair (packets per second, before a step's load).
    pub rate_pps: f64,
}

/// One pair's part of a segment.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct PairShare {
    /// The pair.
    pub pair: String,
    /// Its UEs (global indices).
    pub ues: UeBlock,
    /// Each stream's share, in the profile's order.
    pub streams: Vec<StreamShare>,
}

/// `PUT /v1/segment`: the plan the agent made of its segment.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct SegmentSummary {
    /// The run's name, as the segment gave it.
    pub run: String,
    /// The segment's UEs.
    pub ues: UeBlock,
    /// How they are cut over the agent's pairs.
    pub pairs: Vec<PairShare>,
}

/// `POST /v1/steps`: the step is armed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Armed {
    /// The step's number.
    pub step: u32,
    /// Its workers are launched and wait for the start time.
    pub armed: bool,
    /// How long preparing took (ms).
    pub prepare_ms: u64,
}

/// One direction over the last second, as the live line shows it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct LiveDirection {
    /// The direction.
    pub direction: Direction,
    /// Packets sent over the interval.
    pub tx_packets: u64,
    /// Packets received over the interval (duplicates and late ones included).
    pub rx_packets: u64,
    /// Sent L1 rate (Gbit/s).
    pub tx_gbps_l1: f64,
    /// Sent packet rate (thousands per second).
    pub tx_kpps: f64,
    /// Received L1 rate (Gbit/s).
    pub rx_gbps_l1: f64,
    /// Received packet rate (thousands per second).
    pub rx_kpps: f64,
    /// Losses confirmed over the interval.
    pub lost: u64,
    /// Losses confirmed since the step's start.
    pub lost_total: u64,
    /// Latency median of the interval (ns).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lat_p50_ns: Option<u64>,
    /// Latency 99th percentile of the interval (ns).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lat_p99_ns: Option<u64>,
    /// Largest latency of the interval (ns).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lat_max_ns: Option<u64>,
}

/// One pair's live figures.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct LivePair {
    /// The pair.
    pub pair: String,
    /// Its directions that carried traffic, uplink first.
    pub directions: Vec<LiveDirection>,
}

/// The live line's figures: per pair and in total.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct LiveFigures {
    /// Time since the step's workers were launched (ns).
    pub elapsed_ns: u64,
    /// The interval the figures are of (ns).
    pub interval_ns: u64,
    /// Over every pair.
    pub total: Vec<LiveDirection>,
    /// Per pair (empty with one pair: `total` is its figures).
    pub pairs: Vec<LivePair>,
}

/// `GET /v1/status`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Status {
    /// The agent's state.
    pub state: AgentState,
    /// The step armed, running or collected, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub step: Option<u32>,
    /// The running step's phase.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub phase: Option<StepPhase>,
    /// The last second's figures, while a step runs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub live: Option<LiveFigures>,
}
