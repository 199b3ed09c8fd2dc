//! What the workers see of the QERs that police the streams (issue 29's QER conformance): the
//! bytes of the UE packets each QER passed, in 10 ms windows of their arrival
//! ([`RateWindows`]). A group per QER and direction: the streams one QER polices are counted
//! together, as the QER meters them. Each worker has its own table, merged after the step and
//! read against each QER's MBR by the step's report (`report::qos`).

use std::sync::Arc;

use upfbench_net::Qfi;
use upfbench_run::plan::Plan;
use upfbench_stats::{DEFAULT_WINDOW_NS, Direction, RateWindows, WindowsConfigError};

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
    /// Whether the step closes its gates (`qos_gate`).
    pub gated: bool,
}

/// The groups of a step and which flow counts in which.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct QosLayout {
    /// The groups, by number.
    pub groups: Vec<QosGroup>,
    /// For each flow (the statistics' stream id): its group and the length of its UE packets
    /// (the inner IP packet: what a QER meters).
    of_flow: Box<[(u32, u32)]>,
}

impl QosLayout {
    /// The groups of `plan`'s streams that a QER with an MBR polices; `None` when none is.
    pub fn of(plan: &Plan) -> Option<QosLayout> {
        let mut groups: Vec<QosGroup> = Vec::new();
        let mut of_flow = vec![(NO_GROUP, 0); plan.flows as usize];
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
                        gated: plan.qos_gate.is_some_and(|g| g.qer == qer.key),
                    });
                    groups.len() - 1
                }
            };
            groups[g].streams.push(s.id);
            let ip_len = s.shape.inner_ip_len(usize::from(s.payload_len)) as u32;
            for flow in s.flows() {
                if let Some(slot) = of_flow.get_mut(flow as usize) {
                    *slot = (g as u32, ip_len);
                }
            }
        }
        (!groups.is_empty()).then(|| QosLayout {
            groups,
            of_flow: of_flow.into_boxed_slice(),
        })
    }
}

/// A worker's windows of the step's QoS groups.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct QosRx {
    /// The groups.
    pub layout: Arc<QosLayout>,
    /// Bytes per group per window, from the measured phase's start.
    pub windows: RateWindows,
    /// Packets of the gated groups per [`GATE_WINDOW_NS`] of their sending time, from the
    /// measured phase's start, in a step that closes a gate.
    pub gate_tx: Option<RateWindows>,
    /// Other workers' tables that could not be added to this one (of another start: a worker
    /// stopped before the measured phase began); the report says so.
    pub unmerged: u32,
}

impl QosRx {
    /// The windows of `layout` for a measured phase of `span_ns` (and the drain's tail).
    pub fn new(layout: Arc<QosLayout>, span_ns: u64) -> Result<QosRx, WindowsConfigError> {
        let groups = layout.groups.len() as u32;
        let windows = RateWindows::windows_for(span_ns + TAIL_NS, DEFAULT_WINDOW_NS);
        let gate_tx = layout
            .groups
            .iter()
            .any(|g| g.gated)
            .then(|| {
                let windows = RateWindows::windows_for(span_ns + TAIL_NS, GATE_WINDOW_NS);
                RateWindows::new(groups, GATE_WINDOW_NS, windows)
            })
            .transpose()?;
        Ok(QosRx {
            windows: RateWindows::new(groups, DEFAULT_WINDOW_NS, windows)?,
            gate_tx,
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

    /// Counts a measured packet of `flow` sent at `tx_ns` and received at `rx_ns`.
    #[inline(always)]
    pub fn record(&mut self, flow: u32, rx_ns: u64, tx_ns: u64) {
        if let Some(&(group, len)) = self.layout.of_flow.get(flow as usize)
            && group != NO_GROUP
        {
            self.windows.record(group, rx_ns, len);
            if let Some(g) = &mut self.gate_tx {
                g.record(group, tx_ns, 1);
            }
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
        self.unmerged += other.unmerged;
    }
}

#[cfg(test)]
mod tests;
