//! What the workers see of the QoS flows (issue 29): the bytes of the UE packets each QER passed,
//! in 10 ms windows of their arrival ([`RateWindows`]), and each QoS flow's latency. A
//! conformance group per QER and direction: the streams one QER polices are counted together,
//! as the QER meters them; a QFI group per QoS flow and direction. Each worker has its own
//! tables, merged after the step and read by the step's report (`report::qos`): the windows
//! against each QER's MBR, the latency per QFI.
//!
//! A step has them when its streams belong to several QoS flows or a QER with an MBR polices
//! them; otherwise the RX path pays one `Option` test a packet.

use std::sync::Arc;

use std::collections::HashSet;
use upfbench_net::Qfi;
use upfbench_run::plan::Plan;

use upfbench_stats::{
    DEFAULT_WINDOW_NS, Direction, LatencyConfig, LatencyConfigError, LatencyRecorder, RateWindows,
    WindowsConfigError,
};

/// Why a worker's QoS tables cannot be made.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum QosRxError {
    /// The rate windows.
    #[error(transparent)]
    Windows(#[from] WindowsConfigError),
    /// The latency histograms.
    #[error(transparent)]
    Latency(#[from] LatencyConfigError),
}

/// A flow that no QER with an MBR polices.
const NO_GROUP: u32 = u32::MAX;

/// How long after the measured phase's planned end the windows go on: the drain's late
/// packets still land in a window (they are not in the conformance span, but not lost either).
const TAIL_NS: u64 = 100_000_000;

/// The sending-time windows of a gated flow's packets: what passed after the gate closed is
/// told to within this.
pub const GATE_WINDOW_NS: u64 = 1_000_000;

/// One QER in one direction, and the streams it polices there.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct QosGroup {
    /// Which QER: the QFI of the first QoS flow it polices.
    pub key: Qfi,
    /// The direction.
    pub direction: Direction,
    /// Its MBR in that direction, per session (bit/s).
    pub mbr_bps: u64,
    /// Its GBR there, per session, for a GBR flow.
    pub gbr_bps: Option<u64>,
    /// The streams it polices (ids).
    pub streams: Vec<u16>,
}

/// One QoS flow in one direction, and its streams.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct QfiGroup {
    /// The flow.
    pub qfi: Qfi,
    /// The direction.
    pub direction: Direction,
    /// Its streams (ids).
    pub streams: Vec<u16>,
    /// Whether the step closes its QER's gates (`qos_gate`).
    pub gated: bool,
}

/// Where a flow counts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct FlowSlot {
    /// Its conformance group ([`NO_GROUP`]: none).
    group: u32,
    /// The length of its UE packets (the inner IP packet: what a QER meters).
    ip_len: u32,
    /// Its QFI group ([`NO_GROUP`]: none).
    qfi: u32,
}

const NO_SLOT: FlowSlot = FlowSlot {
    group: NO_GROUP,
    ip_len: 0,
    qfi: NO_GROUP,
};

/// The groups of a step and which flow counts in which.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct QosLayout {
    /// The conformance groups, by number.
    pub groups: Vec<QosGroup>,
    /// The QFI groups, by number.
    pub qfis: Vec<QfiGroup>,
    /// For each flow (the statistics' stream id).
    of_flow: Box<[FlowSlot]>,
}

impl QosLayout {
    /// The groups of `plan`'s streams; `None` when they belong to one QoS flow (or none) and no
    /// QER with an MBR polices them.
    pub fn of(plan: &Plan) -> Option<QosLayout> {
        let mut of_flow = vec![NO_SLOT; plan.flows as usize];
        let qfis = qfi_groups(plan, &mut of_flow);
        let groups = conformance_groups(plan, &mut of_flow);
        let several = qfis.iter().map(|q| q.qfi).collect::<HashSet<_>>().len() > 1;
        (several || !groups.is_empty()).then(|| QosLayout {
            groups,
            qfis,
            of_flow: of_flow.into_boxed_slice(),
        })
    }
}

/// A group per QoS flow and direction of the streams that name one.
fn qfi_groups(plan: &Plan, of_flow: &mut [FlowSlot]) -> Vec<QfiGroup> {
    let mut qfis: Vec<QfiGroup> = Vec::new();
    for s in &plan.streams {
        let Some(qfi) = s.qfi else { continue };
        let g = match qfis
            .iter()
            .position(|g| g.qfi == qfi && g.direction == s.direction)
        {
            Some(g) => g,
            None => {
                qfis.push(QfiGroup {
                    qfi,
                    direction: s.direction,
                    streams: Vec::new(),
                    gated: plan
                        .qos_gate
                        .as_ref()
                        .is_some_and(|g| g.qfis.contains(&qfi)),
                });
                qfis.len() - 1
            }
        };
        qfis[g].streams.push(s.id);
        for flow in s.flows() {
            if let Some(slot) = of_flow.get_mut(flow as usize) {
                slot.qfi = g as u32;
            }
        }
    }
    qfis
}

/// A group per QER with an MBR and direction of the streams it polices.
fn conformance_groups(plan: &Plan, of_flow: &mut [FlowSlot]) -> Vec<QosGroup> {
    let mut groups: Vec<QosGroup> = Vec::new();
    for s in &plan.streams {
        let Some(qer) = s.qer else { continue };
        let g = match groups
            .iter()
            .position(|g| g.key == qer.key && g.direction == s.direction)
        {
            Some(g) => g,
            None => {
                groups.push(QosGroup {
                    key: qer.key,
                    direction: s.direction,
                    mbr_bps: qer.mbr_bps,
                    gbr_bps: qer.gbr_bps,
                    streams: Vec::new(),
                });
                groups.len() - 1
            }
        };
        groups[g].streams.push(s.id);
        let ip_len = s.shape.inner_ip_len(usize::from(s.payload_len)) as u32;
        for flow in s.flows() {
            if let Some(slot) = of_flow.get_mut(flow as usize) {
                slot.group = g as u32;
                slot.ip_len = ip_len;
            }
        }
    }
    groups
}

/// A worker's windows of the step's QoS groups.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct QosRx {
    /// The groups.
    pub layout: Arc<QosLayout>,
    /// Bytes per group per window, from the measured phase's start.
    pub windows: RateWindows,
    /// Packets of each QFI group per [`GATE_WINDOW_NS`] of their sending time, from the
    /// measured phase's start, in a step that closes a gate (only the gated groups count).
    pub gate_tx: Option<RateWindows>,
    /// Each QFI group's latency.
    pub latency: Vec<LatencyRecorder>,
    /// Other workers' tables that could not be added to this one (of another start: a worker
    /// stopped before the measured phase began); the report says so.
    pub unmerged: u32,
}

impl QosRx {
    /// The tables of `layout` for a measured phase of `span_ns` (and the drain's tail), the
    /// latency histograms as `latency` says.
    pub fn new(
        layout: Arc<QosLayout>,
        span_ns: u64,
        latency: &LatencyConfig,
    ) -> Result<QosRx, QosRxError> {
        // A table of no conformance group still needs one to be made; it stays empty.
        let groups = (layout.groups.len() as u32).max(1);
        let windows = RateWindows::windows_for(span_ns + TAIL_NS, DEFAULT_WINDOW_NS);
        let gate_tx = layout
            .qfis
            .iter()
            .any(|g| g.gated)
            .then(|| {
                let windows = RateWindows::windows_for(span_ns + TAIL_NS, GATE_WINDOW_NS);
                RateWindows::new(layout.qfis.len() as u32, GATE_WINDOW_NS, windows)
            })
            .transpose()?;
        let latency = layout
            .qfis
            .iter()
            .map(|_| LatencyRecorder::new(latency))
            .collect::<Result<_, _>>()?;
        Ok(QosRx {
            windows: RateWindows::new(groups, DEFAULT_WINDOW_NS, windows)?,
            gate_tx,
            latency,
            layout,
            unmerged: 0,
        })
    }

    /// Starts the windows at the measured phase's start (run clock, ns).
    pub fn start(&mut self, start_ns: u64) {
        self.windows.start(start_ns);
        if let Some(g) = &mut self.gate_tx {
            g.start(start_ns);
        }
    }

    /// Counts a measured packet of `flow` received at `rx_ns` after `transit_ns`.
    #[inline(always)]
    pub fn record(&mut self, flow: u32, rx_ns: u64, transit_ns: i64) {
        let Some(slot) = self.layout.of_flow.get(flow as usize) else {
            return;
        };
        if let Some(l) = self.latency.get_mut(slot.qfi as usize) {
            l.record(transit_ns);
            if let Some(g) = &mut self.gate_tx
                && self
                    .layout
                    .qfis
                    .get(slot.qfi as usize)
                    .is_some_and(|q| q.gated)
            {
                g.record(slot.qfi, rx_ns.wrapping_sub(transit_ns as u64), 1);
            }
        }
        if slot.group != NO_GROUP {
            self.windows.record(slot.group, rx_ns, slot.ip_len);
        }
    }

    /// Adds another worker's table.
    pub fn merge(&mut self, other: &QosRx) {
        let gate = match (&mut self.gate_tx, &other.gate_tx) {
            (Some(a), Some(b)) => a.merge(b).is_ok(),
            (a, b) => a.is_none() && b.is_none(),
        };
        if self.windows.merge(&other.windows).is_err() || !gate {
            self.unmerged += 1;
        }
        for (a, b) in self.latency.iter_mut().zip(&other.latency) {
            a.merge(b);
        }
        self.unmerged += other.unmerged;
    }
}

#[cfg(test)]
mod tests;
