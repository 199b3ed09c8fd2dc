//! A throughput search's part of the report (RFC 9971, MLRsearch): per case (a payload size and
//! the directions loaded together), each goal's relevant bounds and conditional throughput, and
//! every trial measured. The trials' full figures are the report's steps
//! ([`TrialRecord::step`]); this section is what the search made of them.

use serde::{Deserialize, Serialize};
use upfbench_stats::Direction;

use super::percentiles::Percentiles;

/// The search of a run: its goals, and what it found per case.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SearchReport {
    /// The goals, as configured.
    pub goals: Vec<GoalSpec>,
    /// One per payload size and direction set searched, in the order searched.
    pub cases: Vec<SearchCase>,
    /// False when the search was interrupted or ran out of time: some bounds are not final.
    pub complete: bool,
}

/// One search goal (RFC 9971 §4.6.2 Search Goal), as the search used it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GoalSpec {
    /// Its name ("NDR", "PDR", or the profile's).
    pub name: String,
    /// Goal Loss Ratio.
    pub loss_ratio: f64,
    /// Goal Exceed Ratio.
    pub exceed_ratio: f64,
    /// Goal Width, relative to the upper bound.
    pub relative_width: f64,
    /// Goal Initial Trial Duration (s).
    pub initial_trial_duration_s: f64,
    /// Goal Final Trial Duration (s).
    pub final_trial_duration_s: f64,
    /// Goal Duration Sum (s).
    pub duration_sum_s: f64,
    /// A latency bound a low-loss trial must also meet, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub latency: Option<LatencyBoundSpec>,
}

/// A percentile of one-way latency that must not exceed a bound.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct LatencyBoundSpec {
    /// The percentile (50, 90, 99, 99.9, 99.99, or 100 for the maximum).
    pub percentile: f64,
    /// The bound (ns).
    pub max_ns: u64,
}

/// The directions a search case loads together, in JSON `"uplink"`, `"downlink"` or `"both"`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum SearchDirections {
    /// Uplink alone.
    Uplink,
    /// Downlink alone.
    Downlink,
    /// Both at once (their loads added).
    Both,
}

impl SearchDirections {
    /// Its word (`both`).
    pub const fn name(self) -> &'static str {
        match self {
            SearchDirections::Uplink => "uplink",
            SearchDirections::Downlink => "downlink",
            SearchDirections::Both => "both",
        }
    }
}

impl std::fmt::Display for SearchDirections {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.pad(self.name())
    }
}

/// The search at one payload size and direction set.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SearchCase {
    /// Its name ("300 B both", "1400 B uplink").
    pub label: String,
    /// The inner payload of every stream (bytes), when the sweep set it.
    pub payload_bytes: Option<u32>,
    /// The directions loaded together.
    pub directions: SearchDirections,
    /// Min Load and Max Load (packets per second, the directions together).
    pub min_load_pps: f64,
    /// See [`Self::min_load_pps`].
    pub max_load_pps: f64,
    /// What the ports carry at this mix of frames (pps), when their line rates are known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub line_rate_pps: Option<f64>,
    /// Mean bytes per packet on the wire at layer 2 (frame with FCS, padded to 64 B) over the
    /// mix: pps times this is the L2 bit rate / 8; add 20 for L1.
    pub frame_bytes_l2: f64,
    /// Each goal's result, in the order of [`SearchReport::goals`].
    pub results: Vec<GoalResult>,
    /// Every trial, in the order measured.
    pub trials: Vec<TrialRecord>,
    /// Trials after the search at fractions of the PDR's conditional throughput.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub latency_under_load: Vec<LoadLatency>,
}

/// How a goal's search ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum GoalStatus {
    /// Both relevant bounds found, within the goal's width.
    Regular,
    /// Max Load is a lower bound: the UPF carried all the search could offer.
    MaxLoadLowerBound,
    /// Min Load is an upper bound: no lower bound exists above it.
    MinLoadUpperBound,
    /// The tester could not send more than this: the lower bound is as close to it as the
    /// width allows, and the UPF's own limit is higher or unknown.
    TesterLimited,
    /// The search ended (interrupted, out of time) before the width was reached.
    Incomplete,
}

impl GoalStatus {
    /// The word for tables.
    pub fn name(self) -> &'static str {
        match self {
            GoalStatus::Regular => "regular",
            GoalStatus::MaxLoadLowerBound => "max load",
            GoalStatus::MinLoadUpperBound => "below min load",
            GoalStatus::TesterLimited => "tester-limited",
            GoalStatus::Incomplete => "incomplete",
        }
    }
}

/// One goal's result (RFC 9971 §4.8 Goal Results).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GoalResult {
    /// The goal's name.
    pub goal: String,
    /// How the search ended for this goal.
    pub status: GoalStatus,
    /// The Relevant Lower Bound (pps), if any.
    pub lower_bound_pps: Option<f64>,
    /// The Relevant Upper Bound (pps), if any.
    pub upper_bound_pps: Option<f64>,
    /// The Conditional Throughput at the relevant lower bound (pps), if any.
    pub conditional_throughput_pps: Option<f64>,
    /// The conditional throughput at layer 1 (Gbit/s).
    pub gbps_l1: Option<f64>,
    /// The conditional throughput at layer 2 (Gbit/s).
    pub gbps_l2: Option<f64>,
    /// The conditional throughput as a per cent of [`SearchCase::line_rate_pps`].
    pub line_rate_pct: Option<f64>,
    /// With [`GoalStatus::TesterLimited`], the smallest load the tester could not send (pps).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tester_limited_at_pps: Option<f64>,
}

/// Latency percentiles of one direction of a trial: its step's direction's.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TrialLatency {
    /// The direction.
    pub direction: Direction,
    /// Its percentiles (in JSON beside `direction`: `samples`, `min_ns`, `p50_ns`, ...).
    #[serde(flatten)]
    pub latency: Percentiles,
}

/// One trial of a search.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TrialRecord {
    /// The index of the trial's step in the report's steps.
    pub step: usize,
    /// Intended Load (pps, the directions together).
    pub intended_load_pps: f64,
    /// Offered Load: packets sent over the measured sending time (pps).
    pub offered_load_pps: f64,
    /// Forwarding rate: packets received over the same time (pps).
    pub forwarding_rate_pps: f64,
    /// Packets sent.
    pub sent: u64,
    /// Packets received once each.
    pub received: u64,
    /// Trial Loss Ratio: `(sent − received) / sent`.
    pub loss_ratio: f64,
    /// Trial Duration asked for (s).
    pub intended_duration_s: f64,
    /// Trial Effective Duration: the trial's wall time, its overheads included (s).
    pub duration_s: f64,
    /// Latency per direction that had samples.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub latency: Vec<TrialLatency>,
    /// Why the tester could not send the intended load, when it could not: such a trial is no
    /// evidence about the UPF.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tester_limited: Option<String>,
    /// Where the trial's wall time went (absent in reports written before it was recorded).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub wall: Option<TrialWall>,
}

/// Where a trial's wall time went, in seconds: its traffic and what it cost beyond it, for
/// those who tune `search.settle` and `search.quiet` for a UPF. The parts add up to `total_s`.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
pub struct TrialWall {
    /// From the end of the trial before (the first trial: its preparation) to this one's
    /// collection.
    pub total_s: f64,
    /// Choosing and preparing the trial (its plan, templates, the workers' launch) and
    /// collecting it (joining the workers, the step's figures).
    pub setup_s: f64,
    /// The warm-up (a case's first trial, when the profile has one).
    pub warmup_s: f64,
    /// Silence before the traffic (`search.settle`).
    pub settle_s: f64,
    /// Sending the trial's packets.
    pub traffic_s: f64,
    /// From the last packet sent until every packet was accounted for (received, or lost
    /// beyond the reorder window), or until the last arrival when some never were.
    pub drain_s: f64,
    /// Then the wait for `search.quiet` of silence (packets lost near the end leave nothing
    /// else to wait for), or to the quiet limit.
    pub quiet_s: f64,
}

/// A trial at a fraction of the PDR's conditional throughput, for latency.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LoadLatency {
    /// The fraction (0.1, 0.5, 0.9).
    pub fraction: f64,
    /// The trial (its figures, its step and so its `.hlog`).
    pub trial: TrialRecord,
}
