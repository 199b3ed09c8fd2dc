//! The modifications of a step's `qos_gate`: in every session, an Update QER that closes the
//! gates of the QER policing the flow, both ways (TS 29.244 §7.5.4.5, Gate Status §8.2.7).

use upfbench_pfcp::ie::GateStatus;
use upfbench_pfcp::plan::{UeSessionPlan, gate_request};
use upfbench_run::plan::GatePlan;

use upfbench_n4::client_side::HandoverOrder;

/// Each session's modification, due at the gate's time from the measured phase's start.
pub(super) fn gate_orders(sessions: &[UeSessionPlan], gate: &GatePlan) -> Vec<HandoverOrder> {
    sessions
        .iter()
        .enumerate()
        .filter_map(|(ue, s)| {
            let qer = s.qer_of(gate.qfi)?;
            Some(HandoverOrder {
                ue: ue as u32,
                at: gate.close_at,
                cp_seid: s.cp_seid(),
                request: gate_request([qer], GateStatus::CLOSED),
            })
        })
        .collect()
}
