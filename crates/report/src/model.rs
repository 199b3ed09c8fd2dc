//! The report model: what a run writes, as versioned JSON, and what the table and CSV show.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use thiserror::Error;

use upfbench_pfcp::ie::Cause;
use upfbench_stats::PortName;
use upfbench_stats::direction::Direction;
use upfbench_stats::latency::LatencyRecorder;
use upfbench_stats::merge::{DirectionResult, RunResult, StreamResult};
use upfbench_stats::rate::{TrafficCounters, gbps, kpps, percent};

use super::clock::ClockReport;
use super::frames::PortFrames;
use super::percentiles::{Nanos, Percentiles};
use super::port::PortReport;
use super::queues::RxQueues;
use super::search::SearchReport;
use super::seconds::StepSecond;
use super::slip::TxSlip;
use super::stream_shape::{Family, FrameSize};
use super::time::rfc3339_utc;
use super::upf_faults::{FaultLoss, UpfFault};

/// The JSON schema version this crate writes and reads. Raised on any change that renames,
/// removes or changes the meaning of a field (adding a field keeps the version). Reports of an
/// earlier version are read through `super::migrate` (2: every percentile summary is a
/// [`Percentiles`] in ns; the release is one word).
pub const SCHEMA_VERSION: u32 = 3;

/// The tool's name in reports.
pub const TOOL_NAME: &str = "upfbench";

/// A whole run: one or more steps (payload sizes, rates) with both directions each.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Report {
    /// [`SCHEMA_VERSION`] of the writer.
    pub schema_version: u32,
    /// Which tool and version wrote it.
    pub tool: ToolInfo,
    /// Start of the run, Unix time in milliseconds.
    pub started_unix_ms: u64,
    /// Start of the run, RFC 3339 UTC (derived from `started_unix_ms`).
    pub started: String,
    /// Wall time of the whole run (s).
    pub duration_s: f64,
    /// Free-form summary of the configuration (profile, UPF, ports, cores, ...), sorted by key.
    pub config: BTreeMap<String, String>,
    /// The measured steps, in the order they ran.
    pub steps: Vec<StepReport>,
    /// Run-wide findings that make some figure less than exact.
    pub warnings: Vec<String>,
    /// The control plane's own figures (PFCP), when the run programmed the UPF.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub control: Option<ControlReport>,
    /// The TSC frequency the run's times were converted with, when it was measured.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub clock: Option<ClockReport>,
    /// The throughput search's findings, when the run was a search (`upfbench search`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub search: Option<SearchReport>,
    /// The climb to the UPF's session limit, when the run was one (`upfbench capacity`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub capacity: Option<super::CapacityReport>,
    /// The command line's `-m/--multiplier` and the rates it came to, when it had one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub multiplier: Option<super::MultiplierReport>,
    /// Each agent of a run over agents (`run --cluster`), in the cluster file's order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub agents: Vec<super::AgentSection>,
    /// What a run over agents leaves out when it lost one (the exit status is 3 then).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub incomplete: Option<super::Incomplete>,
}

/// What the PFCP client saw: how fast the UPF took the sessions, how often it had to be asked
/// again, and what it answered.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ControlReport {
    /// The UPF's N4 address.
    pub upf: String,
    /// Sessions the run asked for.
    pub sessions: u64,
    /// Sessions the UPF confirmed.
    pub established: u64,
    /// Sessions whose deletion the UPF confirmed.
    pub deleted: u64,
    /// Wall time from the first establishment request to the last answer (s).
    pub establish_s: Option<f64>,
    /// `established / establish_s` (the churn's left out).
    pub established_per_s: Option<f64>,
    /// Wall time of the deletions (s).
    pub delete_s: Option<f64>,
    /// `deleted / delete_s` (the churn's left out).
    pub deleted_per_s: Option<f64>,
    /// Of the sessions established, those the steps' churn established (their procedures are
    /// in the latencies, not in the batches' rates).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub churn_established: u64,
    /// Of the sessions deleted, those the churn deleted.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub churn_deleted: u64,
    /// Latency of one establishment, request to answer, retransmissions included (within the
    /// PFCP client's histogram's precision: 1 µs, 3 significant digits).
    pub establishment_latency: Option<Percentiles>,
    /// Latency of one deletion.
    pub deletion_latency: Option<Percentiles>,
    /// Requests sent for the first time (all procedures).
    pub requests_sent: u64,
    /// Requests sent again after T1.
    pub retransmissions: u64,
    /// Requests given up after N1 retransmissions.
    pub timeouts: u64,
    /// The largest number of session requests in flight at once.
    pub window_largest: u64,
    /// The UPF's Heartbeat Requests answered.
    pub heartbeats_answered: u64,
    /// The UPF's answers to session requests by Cause (in JSON by its name and value:
    /// `"Request accepted (1)": 8`).
    pub causes: BTreeMap<Cause, u64>,
    /// Sessions the UPF no longer knew when asked (Cause 65): deleted behind the run's back.
    pub lost_sessions: u64,
    /// How the Association Release ended.
    pub release: Release,
    /// The UPF's failures seen during the run (restarts, heartbeats lost), in order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub upf_faults: Vec<UpfFault>,
}

/// How the run's Association Release ended. In JSON by the words of the table:
/// `"answered"`, `"not answered"`, `"failed"`, `"not sent"` (reports of schema 1 wrote more
/// after some of them, `"not answered (Open5GS, ...)"`, `"failed: <why>"`: read as the same).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Release {
    /// The UPF answered it.
    Answered,
    /// The UPF did not answer it within the wait: what Open5GS, eUPF and UPG-VPP do; not a
    /// failure.
    NotAnswered,
    /// It could not be sent, or failed otherwise (the timeline says why).
    Failed,
    /// The run did not send one (no association, or it stopped short).
    NotSent,
}

impl Release {
    /// Every value, in the order above.
    pub const ALL: [Release; 4] = [
        Release::Answered,
        Release::NotAnswered,
        Release::Failed,
        Release::NotSent,
    ];

    /// Its JSON and CSV word.
    pub const fn name(self) -> &'static str {
        match self {
            Release::Answered => "answered",
            Release::NotAnswered => "not answered",
            Release::Failed => "failed",
            Release::NotSent => "not sent",
        }
    }

    /// What the human table says of it.
    pub const fn describe(self) -> &'static str {
        match self {
            Release::NotAnswered => {
                "not answered (not a failure: Open5GS, eUPF and UPG-VPP never answer it)"
            }
            other => other.name(),
        }
    }

    /// The value a word names, the words of schema 1 included (`not answered (...)`,
    /// `failed: ...`).
    pub fn from_name(text: &str) -> Option<Release> {
        Release::ALL
            .into_iter()
            .find(|r| text == r.name())
            .or_else(|| {
                [Release::NotAnswered, Release::Failed]
                    .into_iter()
                    .find(|r| text.starts_with(r.name()))
            })
    }
}

impl std::fmt::Display for Release {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

impl Serialize for Release {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.name())
    }
}

impl<'de> Deserialize<'de> for Release {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let text = String::deserialize(d)?;
        Release::from_name(&text).ok_or_else(|| {
            serde::de::Error::custom(format!(
                "unknown release {text:?}: expected answered, not answered, failed or not sent"
            ))
        })
    }
}

/// Tool identification.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ToolInfo {
    /// Always [`TOOL_NAME`].
    pub name: String,
    /// The writer's version.
    pub version: String,
}

/// One measured step: a payload size (the published sweeps use 10, 300 and 1400 B) or a rate.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StepReport {
    /// Name of the step ("10 B", "1400 B @ 5 Gbps", ...).
    pub label: String,
    /// Inner UDP payload size of the step, if it has one.
    pub payload_bytes: Option<u32>,
    /// Sending time the rates are computed over (s).
    pub duration_s: f64,
    /// The TSC frequency (ticks per kernel second, measured at the step's start) that its
    /// latencies and pacing used; its duration uses the run's at its end ([`ClockReport`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tsc_hz: Option<f64>,
    /// Directions that carried streams, uplink first.
    pub directions: Vec<DirectionReport>,
    /// Received packets without a valid measurement tag.
    pub rx_untagged: u64,
    /// Received tagged packets whose stream id belongs to no stream of the step.
    pub rx_unknown_stream: u64,
    /// Findings of this step that make some figure less than exact.
    pub warnings: Vec<String>,
    /// The tester's ports over the step (counter differences), N3 first.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub ports: Vec<PortReport>,
    /// Packets received that were not measured traffic, by port and kind (`"N3 not_gtpu": 2`):
    /// counted and dropped.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub rx_rejected: BTreeMap<super::Rejected, u64>,
    /// The profile's streams, each summed over its flows (one per UE).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub streams: Vec<StreamSummary>,
    /// Every frame the workers sent and received on each port over the step, by kind (N3
    /// first): with [`Self::ports`], what lets counters outside the tester be reconciled.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub frames: Vec<PortFrames>,
    /// What the live line showed each second of the step, warm-up and drain included: the
    /// step's timeline (rates, losses and latency per second). Empty in reports written before
    /// it existed.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub seconds: Vec<StepSecond>,
    /// How each port's receive was spread over its queues (N3 first); empty with one queue
    /// per port.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub rx_queues: Vec<RxQueues>,
    /// The step's loss split at each failure of the UPF during it.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub upf_faults: Vec<FaultLoss>,
    /// The step's handovers (profile `mobility`), if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub handover: Option<super::handover::HandoverReport>,
    /// The step's session churn (profile `churn`), if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub churn: Option<super::churn::ChurnReport>,
    /// The step's QoS flows and what the UPF enforced of their QERs (profile
    /// `sessions.qos_flows`), if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub qos: Option<super::qos::QosReport>,
    /// Each port pair's figures, when the run had several (the fields above are their totals);
    /// empty, and not written, with one pair.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub pairs: Vec<super::PairSection>,
}

/// One stream of the profile (e.g. "ul", or one size of an IMIX), summed over its flows.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StreamSummary {
    /// The profile's name of the stream.
    pub name: String,
    /// Its direction.
    pub direction: Direction,
    /// Inner UDP payload (bytes).
    pub payload_bytes: u32,
    /// The IP family of its UE packets.
    #[serde(default)]
    pub family: Family,
    /// The size of its frames as sent, with the headers they carried.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub frame: Option<FrameSize>,
    /// Flows (UEs) in the stream.
    pub flows: u32,
    /// Packets sent.
    pub sent: u64,
    /// Packets received (duplicates and late ones included).
    pub received: u64,
    /// Positions never received in time.
    pub lost: u64,
    /// `lost / sent` in percent.
    pub loss_pct: f64,
    /// Receptions of a position already received.
    pub duplicates: u64,
    /// Unique receptions after a higher position of their flow.
    pub reordered: u64,
    /// Receptions older than the reorder window.
    pub late: u64,
    /// Mean of the flows' RFC 3550 jitter (ns).
    pub jitter_ns: Option<f64>,
    /// How far its senders fell behind their schedule, if they did.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tx_slip: Option<TxSlip>,
}

impl StreamSummary {
    /// The summary of `flows` (the stream's flows of a merged run) under `name`.
    pub fn from_flows(
        name: impl Into<String>,
        direction: Direction,
        payload_bytes: u32,
        flows: &[StreamResult],
    ) -> StreamSummary {
        let sum = |f: fn(&StreamResult) -> u64| flows.iter().map(f).sum::<u64>();
        let sent = sum(|r| r.seq.sent);
        let lost = sum(|r| r.seq.lost);
        let jitters: Vec<f64> = flows.iter().filter_map(|r| r.jitter_ns).collect();
        StreamSummary {
            name: name.into(),
            direction,
            payload_bytes,
            family: Family::Ipv4,
            frame: None,
            flows: flows.len() as u32,
            sent,
            received: sum(|r| r.seq.received),
            lost,
            loss_pct: percent(lost, sent),
            duplicates: sum(|r| r.seq.duplicates),
            reordered: sum(|r| r.seq.reordered),
            late: sum(|r| r.seq.late),
            jitter_ns: (!jitters.is_empty())
                .then(|| jitters.iter().sum::<f64>() / jitters.len() as f64),
            tx_slip: None,
        }
    }
}

/// Figures of one direction in one step.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DirectionReport {
    /// The direction.
    pub direction: Direction,
    /// Streams in this direction.
    pub streams: u32,
    /// What was sent.
    pub tx: ThroughputReport,
    /// What came back (every tagged packet of a known stream, duplicates and late ones too).
    pub rx: ThroughputReport,
    /// Sequence accounting.
    pub loss: LossReport,
    /// One-way latency, if any packet arrived.
    pub latency: Option<LatencyReport>,
    /// How far the senders fell behind their schedule, if they did.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tx_slip: Option<TxSlip>,
    /// Frames of this direction the tester's own kernel interfaces lost (see
    /// [`StepReport::tester_lost`]): part of `loss.lost` that is not the UPF's. `None` when
    /// its ports have no kernel interface.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tester_lost: Option<u64>,
}

/// Counters and rates of one side. L2 counts each frame with its FCS, padded to 64 B; L1 adds
/// 20 B per frame (see [`upfbench_stats::rate`]).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ThroughputReport {
    /// Frames.
    pub packets: u64,
    /// L2 bytes (frames without FCS).
    pub bytes_l2: u64,
    /// L1 bytes (with FCS, preamble, SFD, inter-frame gap).
    pub bytes_l1: u64,
    /// L2 rate (Gbit/s).
    pub gbps_l2: f64,
    /// L1 rate (Gbit/s).
    pub gbps_l1: f64,
    /// Packet rate (thousands per second).
    pub kpps: f64,
}

impl ThroughputReport {
    /// Rates of `c` over `duration_ns`.
    pub fn from_counters(c: &TrafficCounters, duration_ns: u64) -> ThroughputReport {
        ThroughputReport {
            packets: c.packets,
            bytes_l2: c.bytes_l2,
            bytes_l1: c.bytes_l1(),
            gbps_l2: gbps(c.bytes_l2, duration_ns),
            gbps_l1: gbps(c.bytes_l1(), duration_ns),
            kpps: kpps(c.packets, duration_ns),
        }
    }
}

/// Loss, reordering and duplicates from the sequence numbers (see [`upfbench_stats::seq`]).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LossReport {
    /// Packets sent (sequence positions).
    pub sent: u64,
    /// Positions received.
    pub unique: u64,
    /// Positions not received in time: `sent - unique`.
    pub lost: u64,
    /// `lost / sent` in percent.
    pub loss_pct: f64,
    /// Packets received again.
    pub duplicates: u64,
    /// Packets received after a higher sequence number (within the reorder window).
    pub reordered: u64,
    /// Packets received after their position left the reorder window (counted lost too).
    pub late: u64,
}

/// One-way latency summary. Min, avg and max are exact; percentiles are within the
/// histogram's precision (3 significant digits by default); jitter per RFC 3550 (ns).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LatencyReport {
    /// Samples, min, p50 to p99.99 and max (in JSON beside the other fields: `samples`,
    /// `min_ns`, `p50_ns`, ...).
    #[serde(flatten)]
    pub percentiles: Percentiles,
    /// Mean (exact, but samples above the histogram's maximum enter it at the maximum; ns).
    pub avg_ns: f64,
    /// Mean of the streams' RFC 3550 interarrival jitter.
    pub jitter_ns: Option<f64>,
    /// Largest stream jitter.
    pub jitter_max_ns: Option<f64>,
    /// Packets left out because they arrived before they were sent (clocks disagree).
    pub negative: u64,
    /// Samples beyond the histogram's range (clamped to it).
    pub over_range: u64,
}

impl LatencyReport {
    /// Summary of `l` with the given jitter figures; `None` if `l` holds no sample.
    pub fn from_recorder(
        l: &LatencyRecorder,
        jitter_ns: Option<f64>,
        jitter_max_ns: Option<f64>,
    ) -> Option<LatencyReport> {
        let q = |x: f64| Nanos::from_ns(l.quantile_ns(x).unwrap_or(0));
        Some(LatencyReport {
            percentiles: Percentiles {
                samples: l.count(),
                min: Nanos::from_ns(l.min_ns()?),
                p50: q(0.5),
                p90: q(0.9),
                p99: q(0.99),
                p99_9: Some(q(0.999)),
                p99_99: Some(q(0.9999)),
                max: Nanos::from_ns(l.max_ns()?),
            },
            avg_ns: l.mean_ns()?,
            jitter_ns,
            jitter_max_ns,
            negative: l.negative(),
            over_range: l.over_range(),
        })
    }
}

impl DirectionReport {
    /// The report of one merged direction, rates over `duration_ns`.
    pub fn from_result(d: &DirectionResult, duration_ns: u64) -> DirectionReport {
        DirectionReport {
            direction: d.direction,
            streams: d.streams,
            tx: ThroughputReport::from_counters(&d.tx, duration_ns),
            rx: ThroughputReport::from_counters(&d.rx, duration_ns),
            loss: LossReport {
                sent: d.seq.sent,
                unique: d.seq.unique,
                lost: d.seq.lost,
                loss_pct: percent(d.seq.lost, d.seq.sent),
                duplicates: d.seq.duplicates,
                reordered: d.seq.reordered,
                late: d.seq.late,
            },
            latency: LatencyReport::from_recorder(&d.latency, d.jitter_mean_ns, d.jitter_max_ns),
            tx_slip: None,
            tester_lost: None,
        }
    }
}

impl StepReport {
    /// The report of a merged run: rates over `duration_ns` (the time the transmitters sent),
    /// the directions that had streams, and the run's warnings.
    pub fn from_run(
        label: impl Into<String>,
        payload_bytes: Option<u32>,
        duration_ns: u64,
        run: &RunResult,
    ) -> StepReport {
        StepReport {
            label: label.into(),
            payload_bytes,
            duration_s: duration_ns as f64 / 1e9,
            tsc_hz: None,
            directions: run
                .directions
                .iter()
                .filter(|d| d.streams > 0)
                .map(|d| DirectionReport::from_result(d, duration_ns))
                .collect(),
            rx_untagged: run.untagged_rx,
            rx_unknown_stream: run.unknown_stream_rx,
            warnings: run.warnings.clone(),
            ports: Vec::new(),
            rx_rejected: BTreeMap::new(),
            streams: Vec::new(),
            frames: Vec::new(),
            seconds: Vec::new(),
            rx_queues: Vec::new(),
            upf_faults: Vec::new(),
            handover: None,
            churn: None,
            qos: None,
            pairs: Vec::new(),
        }
    }

    /// Frames the tester's kernel interfaces lost on `direction`'s ports over the step: sending
    /// on the port it leaves by, receiving on the port it comes back on (uplink: N3's TX and
    /// N6's RX). Warm-up and service frames on those ports are included, so it can exceed the
    /// measured loss. `None` when neither port has a kernel interface.
    pub fn tester_lost(&self, direction: Direction) -> Option<u64> {
        let port = |name: PortName| {
            self.ports
                .iter()
                .find(|p| p.name == name)
                .and_then(|p| p.interface.as_ref())
        };
        let tx = port(direction.sent_on()).map(|i| i.tx_lost);
        let rx = port(direction.received_on()).map(|i| i.rx_lost);
        match (tx, rx) {
            (None, None) => None,
            (a, b) => Some(a.unwrap_or(0) + b.unwrap_or(0)),
        }
    }

    /// Sets each direction's [`tester_lost`](DirectionReport::tester_lost) from the
    /// step's ports.
    pub fn attribute_tester_losses(&mut self) {
        let lost: Vec<Option<u64>> = self
            .directions
            .iter()
            .map(|d| self.tester_lost(d.direction))
            .collect();
        for (d, l) in self.directions.iter_mut().zip(lost) {
            d.tester_lost = l;
        }
    }
}

/// A report that cannot be read.
#[derive(Debug, Error)]
pub enum ReportError {
    /// Not JSON, or not a report.
    #[error("report JSON is malformed: {0}")]
    Json(#[from] serde_json::Error),
    /// No `schema_version` number at the top level.
    #[error("report has no numeric schema_version field")]
    MissingSchemaVersion,
    /// Written by an incompatible version.
    #[error("report schema version {found} is not supported (this build reads 1 to {supported})")]
    UnsupportedSchema {
        /// The file's version.
        found: u64,
        /// The version this build reads.
        supported: u32,
    },
}

impl Report {
    /// An empty report of `tool_version` for a run that started at `started_unix_ms`.
    pub fn new(tool_version: impl Into<String>, started_unix_ms: u64) -> Report {
        Report {
            schema_version: SCHEMA_VERSION,
            tool: ToolInfo {
                name: TOOL_NAME.to_owned(),
                version: tool_version.into(),
            },
            started_unix_ms,
            started: rfc3339_utc(started_unix_ms),
            duration_s: 0.0,
            config: BTreeMap::new(),
            steps: Vec::new(),
            warnings: Vec::new(),
            control: None,
            clock: None,
            search: None,
            capacity: None,
            multiplier: None,
            agents: Vec::new(),
            incomplete: None,
        }
    }

    /// Pretty-printed JSON.
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self)
            .expect("a report always serialises: no map has non-string keys")
    }

    /// Reads a report, refusing other schema versions by name before looking at the fields; a
    /// report of an earlier version is brought to this one first (`super::migrate`).
    pub fn from_json(text: &str) -> Result<Report, ReportError> {
        let mut value: serde_json::Value = serde_json::from_str(text)?;
        let found = value
            .get("schema_version")
            .and_then(serde_json::Value::as_u64)
            .ok_or(ReportError::MissingSchemaVersion)?;
        match found {
            1 => {
                super::migrate::v1_to_v2(&mut value);
                super::migrate::v2_to_v3(&mut value);
            }
            2 => super::migrate::v2_to_v3(&mut value),
            v if v == u64::from(SCHEMA_VERSION) => {}
            _ => {
                return Err(ReportError::UnsupportedSchema {
                    found,
                    supported: SCHEMA_VERSION,
                });
            }
        }
        Ok(serde_json::from_value(value)?)
    }
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::port::KernelInterface;

    fn step(directions: &[Direction]) -> StepReport {
        let none = ThroughputReport {
            packets: 0,
            bytes_l2: 0,
            bytes_l1: 0,
            gbps_l2: 0.0,
            gbps_l1: 0.0,
            kpps: 0.0,
        };
        StepReport {
            label: "run".into(),
            payload_bytes: None,
            duration_s: 1.0,
            tsc_hz: None,
            directions: directions
                .iter()
                .map(|&direction| DirectionReport {
                    direction,
                    streams: 1,
                    tx: none.clone(),
                    rx: none.clone(),
                    loss: LossReport {
                        sent: 0,
                        unique: 0,
                        lost: 0,
                        loss_pct: 0.0,
                        duplicates: 0,
                        reordered: 0,
                        late: 0,
                    },
                    latency: None,
                    tx_slip: None,
                    tester_lost: None,
                })
                .collect(),
            rx_untagged: 0,
            rx_unknown_stream: 0,
            warnings: Vec::new(),
            ports: Vec::new(),
            rx_rejected: Default::default(),
            streams: Vec::new(),
            frames: Vec::new(),
            seconds: Vec::new(),
            rx_queues: Vec::new(),
            upf_faults: Vec::new(),
            handover: None,
            churn: None,
            qos: None,
            pairs: Vec::new(),
        }
    }

    fn port(name: PortName, ipackets: u64, opackets: u64) -> PortReport {
        PortReport {
            ipackets,
            opackets,
            ..PortReport::zero(name)
        }
    }

    #[test]
    fn a_directions_tester_loss_is_its_sending_ports_tx_and_receiving_ports_rx() {
        let mut step = step(&Direction::ALL);
        assert_eq!(step.tester_lost(Direction::Uplink), None);
        step.attribute_tester_losses();
        assert_eq!(
            step.directions[0].tester_lost, None,
            "no interface: unknown"
        );
        let mut n3 = port(PortName::N3, 50_000, 100_000);
        n3.interface = Some(KernelInterface::beside("n3", 50_007, 99_684, &n3));
        let mut n6 = port(PortName::N6, 99_000, 50_000);
        n6.interface = Some(KernelInterface::beside("n6", 99_020, 50_000, &n6));
        step.ports = vec![n3, n6];
        // Uplink leaves by N3 (316 never sent) and comes back on N6 (20 never delivered).
        assert_eq!(step.tester_lost(Direction::Uplink), Some(316 + 20));
        // Downlink leaves by N6 (all sent) and comes back on N3 (7 never delivered).
        assert_eq!(step.tester_lost(Direction::Downlink), Some(7));
        step.attribute_tester_losses();
        let lost: Vec<_> = step.directions.iter().map(|d| d.tester_lost).collect();
        assert_eq!(lost, [Some(336), Some(7)]);
        // One port without an interface (memif on N6): the other's part still counts.
        step.ports[1].interface = None;
        assert_eq!(step.tester_lost(Direction::Uplink), Some(316));
    }

    #[test]
    fn the_release_is_a_word_and_schema_1_words_read_back() {
        for r in Release::ALL {
            let json = serde_json::to_string(&r).unwrap();
            assert_eq!(json, format!("\"{}\"", r.name()));
            assert_eq!(serde_json::from_str::<Release>(&json).unwrap(), r);
        }
        let old = |s: &str| serde_json::from_str::<Release>(&format!("{s:?}")).ok();
        assert_eq!(
            old("not answered (Open5GS, eUPF and UPG-VPP never answer it)"),
            Some(Release::NotAnswered)
        );
        assert_eq!(old("failed: timed out"), Some(Release::Failed));
        assert_eq!(old("maybe"), None);
    }

    #[test]
    fn causes_are_keyed_by_their_name_and_value() {
        let causes: BTreeMap<Cause, u64> = [(Cause::REQUEST_ACCEPTED, 8), (Cause(73), 1)].into();
        let json = serde_json::to_string(&causes).unwrap();
        assert_eq!(
            json,
            r#"{"Request accepted (1)":8,"Rule creation/modification Failure (73)":1}"#
        );
        assert_eq!(
            serde_json::from_str::<BTreeMap<Cause, u64>>(&json).unwrap(),
            causes
        );
    }
}
