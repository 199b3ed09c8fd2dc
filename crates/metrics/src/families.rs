//! Every metric family the endpoint exposes: its name, type, help and labels, in one table that
//! the exposition, the documentation's list (docs/operations.md) and the dashboard's test
//! (every name its queries use is one of these) all read.
//!
//! Names follow Prometheus' conventions: the `upfbench_` prefix, base units (seconds, bytes) in
//! the name, `_total` on counters (added by the encoder: the table holds the name without it).
//! Labels are bounded: `direction` (uplink, downlink), `step` (1, 2, ...: a run's steps, a
//! sweep's payloads, a search's trials), `port` (n3, n6), `kind` (the reflector's drop and
//! impairment kinds), `cause` (PFCP Causes), `phase` and `role`, `version`, `name` (a step's
//! label). None is per UE, per flow or per worker.

use Kind::{Counter, Gauge, Histogram};

/// A family's type.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// Only goes up (within a series); exposed as `NAME_total`.
    Counter,
    /// Goes up and down.
    Gauge,
    /// Buckets, sum and count: `NAME_bucket{le}`, `NAME_sum`, `NAME_count`.
    Histogram,
}

/// Which process exposes a family.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    /// `upfbench run`, `sweep`, `search`.
    Generator,
    /// `upfbench reflect`.
    Reflector,
}

impl Role {
    /// Its name in `upfbench_build_info` and `/health`.
    pub fn name(self) -> &'static str {
        match self {
            Role::Generator => "generator",
            Role::Reflector => "reflector",
        }
    }
}

/// One metric family.
#[derive(Debug, PartialEq, Eq)]
pub struct Family {
    /// The name, without a counter's `_total`.
    pub name: &'static str,
    /// The type.
    pub kind: Kind,
    /// What it counts (`# HELP`).
    pub help: &'static str,
    /// Its labels, in order (a histogram's `le` aside).
    pub labels: &'static [&'static str],
}

impl Family {
    /// The names of its samples as a scrape shows them.
    pub fn sample_names(&self) -> Vec<String> {
        match self.kind {
            Counter => vec![format!("{}_total", self.name)],
            Gauge => vec![self.name.to_owned()],
            Histogram => ["_bucket", "_sum", "_count"]
                .iter()
                .map(|s| format!("{}{s}", self.name))
                .collect(),
        }
    }
}

const fn family(
    name: &'static str,
    kind: Kind,
    help: &'static str,
    labels: &'static [&'static str],
) -> Family {
    Family {
        name,
        kind,
        help,
        labels,
    }
}

const STEP: &[&str] = &["direction", "step"];

/// The build: always 1.
pub(crate) const BUILD_INFO: Family = family(
    "upfbench_build_info",
    Gauge,
    "The upfbench version and the role of this process (always 1).",
    &["version", "role"],
);
/// The phase, as a state set.
pub(crate) const PHASE: Family = family(
    "upfbench_phase",
    Gauge,
    "1 for the phase the process is in (as /health says it), 0 for the others.",
    &["phase"],
);

/// The step running or last run.
pub const STEP_NOW: Family = family(
    "upfbench_step",
    Gauge,
    "The step running or last run (1-based; 0 before the first).",
    &[],
);
/// Each step's label.
pub const STEP_INFO: Family = family(
    "upfbench_step_info",
    Gauge,
    "Each step started so far with its label as the report names it (always 1).",
    &["step", "name"],
);
/// Measured packets sent.
pub const SENT_PACKETS: Family = family(
    "upfbench_sent_packets",
    Counter,
    "Measured packets the ports took (warm-up excluded).",
    STEP,
);
/// Their bytes.
pub const SENT_BYTES: Family = family(
    "upfbench_sent_bytes",
    Counter,
    "L2 bytes on the wire (FCS included, padded to 64 B) of the measured packets sent.",
    STEP,
);
/// Measured packets received.
pub const RECEIVED_PACKETS: Family = family(
    "upfbench_received_packets",
    Counter,
    "Tagged packets of the run's streams received (duplicates and late ones included).",
    STEP,
);
/// Their bytes.
pub const RECEIVED_BYTES: Family = family(
    "upfbench_received_bytes",
    Counter,
    "L2 bytes on the wire (FCS included, padded to 64 B) of the packets received.",
    STEP,
);
/// Lost.
pub const LOST_PACKETS: Family = family(
    "upfbench_lost_packets",
    Counter,
    "Packets lost: while a step runs, those whose place left their flow's reorder window \
     unreceived; at its end, the report's sent minus received once.",
    STEP,
);
/// Late.
pub const LATE_PACKETS: Family = family(
    "upfbench_late_packets",
    Counter,
    "Packets that arrived after their place left the reorder window (counted lost too).",
    STEP,
);
/// Duplicated.
pub const DUPLICATED_PACKETS: Family = family(
    "upfbench_duplicated_packets",
    Counter,
    "Packets received again.",
    STEP,
);
/// Reordered.
pub const REORDERED_PACKETS: Family = family(
    "upfbench_reordered_packets",
    Counter,
    "Packets received after a later one of their flow (within the reorder window).",
    STEP,
);
/// One-way latency.
pub const LATENCY: Family = family(
    "upfbench_latency_seconds",
    Histogram,
    "One-way latency of every measured packet received (buckets from the HDR histograms).",
    STEP,
);
/// How far behind its schedule the sending is now.
pub const TX_BEHIND: Family = family(
    "upfbench_tx_behind_seconds",
    Gauge,
    "How far behind its schedule the running step's sending is now (the latest worker's; \
     the live line's 'tx behind').",
    STEP,
);
/// Slips of a step's sending.
pub const TX_SLIPS: Family = family(
    "upfbench_tx_slips",
    Counter,
    "Times a sender fell behind its schedule in a finished step (the report's tx_slip count).",
    STEP,
);
/// Lateness not made up at a step's end.
pub const TX_SLIPPED: Family = family(
    "upfbench_tx_slipped_seconds",
    Gauge,
    "How much later a finished step's last packet was due than planned (not made up).",
    STEP,
);
/// The most a sender was late.
pub const TX_MAX_LATE: Family = family(
    "upfbench_tx_max_late_seconds",
    Gauge,
    "The most a sender of a finished step was ever behind its schedule.",
    STEP,
);
/// PFCP requests.
pub const PFCP_REQUESTS: Family = family(
    "upfbench_pfcp_requests",
    Counter,
    "PFCP requests sent for the first time.",
    &[],
);
/// PFCP retransmissions.
pub const PFCP_RETRANSMISSIONS: Family = family(
    "upfbench_pfcp_retransmissions",
    Counter,
    "PFCP requests sent again (T1 expired).",
    &[],
);
/// PFCP timeouts.
pub const PFCP_TIMEOUTS: Family = family(
    "upfbench_pfcp_timeouts",
    Counter,
    "PFCP requests given up after N1 retransmissions.",
    &[],
);
/// PFCP responses by Cause.
pub const PFCP_RESPONSES: Family = family(
    "upfbench_pfcp_responses",
    Counter,
    "Responses to our session requests by Cause, named as the report names it.",
    &["cause"],
);
/// Sessions established.
pub const PFCP_ESTABLISHED: Family = family(
    "upfbench_pfcp_sessions_established",
    Counter,
    "Sessions the UPF established.",
    &[],
);
/// Sessions deleted.
pub const PFCP_DELETED: Family = family(
    "upfbench_pfcp_sessions_deleted",
    Counter,
    "Sessions the UPF deleted.",
    &[],
);
/// Sessions now.
pub const PFCP_SESSIONS: Family = family(
    "upfbench_pfcp_sessions",
    Gauge,
    "Sessions established and not deleted.",
    &[],
);
/// Sessions lost behind the run's back.
pub const PFCP_LOST_SESSIONS: Family = family(
    "upfbench_pfcp_lost_sessions",
    Counter,
    "Sessions the UPF no longer knew when asked (Cause 65): removed behind the run's back.",
    &[],
);
/// The request window.
pub const PFCP_WINDOW: Family = family(
    "upfbench_pfcp_window",
    Gauge,
    "Session requests that may be in flight now (the adaptive window).",
    &[],
);
/// Heartbeats answered.
pub const PFCP_HEARTBEATS: Family = family(
    "upfbench_pfcp_heartbeats_answered",
    Counter,
    "Heartbeat Requests of the UPF answered.",
    &[],
);

/// Frames the reflector received.
pub const REFLECTOR_RECEIVED: Family = family(
    "upfbench_reflector_received_packets",
    Counter,
    "Frames the reflector received, per port.",
    &["port"],
);
/// Packets it forwarded.
pub const REFLECTOR_FORWARDED: Family = family(
    "upfbench_reflector_forwarded_packets",
    Counter,
    "Packets the reflector forwarded: uplink N3 to N6 (decapsulated), downlink N6 to N3 \
     (encapsulated).",
    &["direction"],
);
/// Packets it echoed.
pub const REFLECTOR_ECHOED: Family = family(
    "upfbench_reflector_echoed_packets",
    Counter,
    "Packets the reflector sent back in echo mode.",
    &[],
);
/// Its drops.
pub const REFLECTOR_DROPPED: Family = family(
    "upfbench_reflector_dropped_packets",
    Counter,
    "Packets the reflector dropped itself, by kind.",
    &["kind"],
);
/// Its impairments.
pub const REFLECTOR_IMPAIRED: Family = family(
    "upfbench_reflector_impaired_packets",
    Counter,
    "Packets the reflector's impairments acted on, by kind (dropped, rate_capped, \
     duplicated, reordered, delayed).",
    &["kind"],
);
/// What its QERs did, in packets.
pub const REFLECTOR_QER_PACKETS: Family = family(
    "upfbench_reflector_qer_packets",
    Counter,
    "Packets of the reflector's enforced QERs, per QFI (none: QERs that set none), direction \
     and verdict: passed, policed (over the MBR) or gated (gate closed).",
    &["qfi", "direction", "verdict"],
);
/// What its QERs did, in bytes.
pub const REFLECTOR_QER_BYTES: Family = family(
    "upfbench_reflector_qer_bytes",
    Counter,
    "IP bytes of the reflector's enforced QERs, per QFI, direction and verdict: passed or \
     policed.",
    &["qfi", "direction", "verdict"],
);
/// Service frames.
pub const REFLECTOR_SERVICE: Family = family(
    "upfbench_reflector_service_frames",
    Counter,
    "Frames for the reflector's service plane (ARP, ICMP, GTP-U signalling), per port.",
    &["port"],
);
/// Error Indications sent.
pub const REFLECTOR_ERROR_INDICATIONS: Family = family(
    "upfbench_reflector_error_indications",
    Counter,
    "GTP-U Error Indications sent for G-PDUs to unknown TEIDs.",
    &[],
);
/// Error Indications suppressed.
pub const REFLECTOR_ERROR_INDICATIONS_SUPPRESSED: Family = family(
    "upfbench_reflector_error_indications_suppressed",
    Counter,
    "Error Indications not sent: over the rate limit.",
    &[],
);

/// The generator's families (run, sweep, search), those of both roles first.
pub(crate) const GENERATOR: &[&Family] = &[
    &BUILD_INFO,
    &PHASE,
    &STEP_NOW,
    &STEP_INFO,
    &SENT_PACKETS,
    &SENT_BYTES,
    &RECEIVED_PACKETS,
    &RECEIVED_BYTES,
    &LOST_PACKETS,
    &LATE_PACKETS,
    &DUPLICATED_PACKETS,
    &REORDERED_PACKETS,
    &LATENCY,
    &TX_BEHIND,
    &TX_SLIPS,
    &TX_SLIPPED,
    &TX_MAX_LATE,
    &PFCP_REQUESTS,
    &PFCP_RETRANSMISSIONS,
    &PFCP_TIMEOUTS,
    &PFCP_RESPONSES,
    &PFCP_ESTABLISHED,
    &PFCP_DELETED,
    &PFCP_SESSIONS,
    &PFCP_LOST_SESSIONS,
    &PFCP_WINDOW,
    &PFCP_HEARTBEATS,
];

/// The reflector's families, those of both roles first.
pub(crate) const REFLECTOR: &[&Family] = &[
    &BUILD_INFO,
    &PHASE,
    &REFLECTOR_RECEIVED,
    &REFLECTOR_FORWARDED,
    &REFLECTOR_ECHOED,
    &REFLECTOR_DROPPED,
    &REFLECTOR_IMPAIRED,
    &REFLECTOR_SERVICE,
    &REFLECTOR_ERROR_INDICATIONS,
    &REFLECTOR_ERROR_INDICATIONS_SUPPRESSED,
    &REFLECTOR_QER_PACKETS,
    &REFLECTOR_QER_BYTES,
];

/// The families of `role`, in the order a scrape shows them.
pub fn of(role: Role) -> &'static [&'static Family] {
    match role {
        Role::Generator => GENERATOR,
        Role::Reflector => REFLECTOR,
    }
}

/// Every sample name either role exposes (`upfbench_received_packets_total`,
/// `upfbench_latency_seconds_bucket`, ...).
pub fn sample_names() -> std::collections::BTreeSet<String> {
    GENERATOR
        .iter()
        .chain(REFLECTOR)
        .flat_map(|f| f.sample_names())
        .collect()
}

#[cfg(test)]
mod tests;
