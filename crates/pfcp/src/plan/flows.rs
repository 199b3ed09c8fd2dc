//! Several QoS flows per session ([`SessionTemplate::flows`](super::SessionTemplate::flows)):
//! each flow its two PDRs (downlink and uplink, its SDF filter in both, the uplink one matching
//! its QFI), its two FARs, and the QER it names; several flows may name one QER, which then
//! polices them together (TS 29.244 §5.2.1).
//!
//! Flow `k` (from 0) has PDRs `2k + 1` (downlink) and `2k + 2` (uplink), and FARs of the same
//! numbers, so that a one-flow session's rules keep the numbers they have without `flows`; QER
//! `i + 1` is [`SessionTemplate::qers`](super::SessionTemplate::qers)`[i]`. A flow with an SDF
//! filter precedes the catch-all flow (the one without), which has the one-flow session's
//! precedence.

use super::{PRECEDENCE, UeSessionPlan};
use crate::ie::{BitRate, CreateFar, CreatePdr, CreateQer, SdfFilter};
use crate::types::{FarId, PdrId, Precedence, QerId, Qfi};

/// One QoS flow of every session of a run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FlowPlan {
    /// The QFI the uplink PDR matches, when it matches one.
    pub uplink_qfi: Option<Qfi>,
    /// The SDF filter of both PDRs; none for the catch-all flow.
    pub sdf_filter: Option<SdfFilter>,
    /// The QER it names: an index into [`SessionTemplate::qers`](super::SessionTemplate::qers).
    pub qer: usize,
}

/// A QER of a session with several flows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct QerRule {
    /// The QFI it marks (eUPF takes the downlink QFI from here); none for a QER shared by flows
    /// of different QFIs.
    pub qfi: Option<Qfi>,
    /// Maximum bit rate.
    pub mbr: Option<BitRate>,
    /// Guaranteed bit rate.
    pub gbr: Option<BitRate>,
}

/// The rule numbers of flow `k`: (downlink PDR, uplink PDR, downlink FAR, uplink FAR).
pub fn flow_rule_ids(k: usize) -> (PdrId, PdrId, FarId, FarId) {
    let base = 2 * k as u32;
    (
        PdrId((base + 1) as u16),
        PdrId((base + 2) as u16),
        FarId(base + 1),
        FarId(base + 2),
    )
}

/// The id of the QER at `index` of [`SessionTemplate::qers`](super::SessionTemplate::qers).
pub fn qer_id(index: usize) -> QerId {
    QerId(index as u32 + 1)
}

/// The most flows a session has: the PDR IDs of 16 bits hold two per flow.
pub const MAX_FLOWS: usize = (u16::MAX as usize) / 2;

/// A flow's precedence: those with an SDF filter first, in their order, the catch-all last.
fn precedence(k: usize, flow: &FlowPlan) -> Precedence {
    match flow.sdf_filter {
        Some(_) => Precedence(100 + k as u32),
        None => PRECEDENCE,
    }
}

impl UeSessionPlan {
    /// The Create PDRs, FARs and QERs of the session's flows, in flow order.
    pub(super) fn flow_rules(&self) -> (Vec<CreatePdr>, Vec<CreateFar>, Vec<CreateQer>) {
        let t = &self.template;
        let mut pdrs = Vec::with_capacity(2 * t.flows.len());
        let mut fars = Vec::with_capacity(2 * t.flows.len());
        for (k, flow) in t.flows.iter().enumerate() {
            let (dl_pdr, ul_pdr, dl_far, ul_far) = flow_rule_ids(k);
            let qers = [qer_id(flow.qer)];
            let p = precedence(k, flow);
            let sdf = flow.sdf_filter.clone();
            pdrs.push(self.downlink_pdr_of(dl_pdr, dl_far, p, sdf.clone(), &qers));
            pdrs.push(self.uplink_pdr_of(ul_pdr, ul_far, p, flow.uplink_qfi, sdf, &qers));
            fars.push(CreateFar::forward(
                dl_far,
                self.downlink_forwarding(self.ue.downlink_teid, t.gnb_n3_address),
            ));
            fars.push(self.uplink_far_of(ul_far));
        }
        let qers = t
            .qers
            .iter()
            .enumerate()
            .map(|(i, q)| {
                let mut c = CreateQer::new(qer_id(i), Qfi::default());
                c.qfi = q.qfi;
                c.mbr = q.mbr;
                c.gbr = q.gbr;
                c
            })
            .collect();
        (pdrs, fars, qers)
    }

    /// The downlink FARs: one per flow, or the one-flow session's.
    pub(super) fn downlink_fars(&self) -> Vec<FarId> {
        if self.template.flows.is_empty() {
            return vec![super::DOWNLINK_FAR];
        }
        (0..self.template.flows.len())
            .map(|k| flow_rule_ids(k).2)
            .collect()
    }

    /// Every QER of the session.
    pub fn qer_ids(&self) -> Vec<QerId> {
        if self.template.flows.is_empty() {
            return self.template.qer.map(|_| super::QER).into_iter().collect();
        }
        (0..self.template.qers.len()).map(qer_id).collect()
    }

    /// The QER of the flow whose uplink PDR matches `qfi` (or whose QER marks it), to close its
    /// gate alone ([`gate_request`](super::gate_request)).
    pub fn qer_of(&self, qfi: Qfi) -> Option<QerId> {
        let t = &self.template;
        if t.flows.is_empty() {
            return t.qer.filter(|q| q.qfi == qfi).map(|_| super::QER);
        }
        t.flows
            .iter()
            .find(|f| {
                f.uplink_qfi == Some(qfi) || t.qers.get(f.qer).and_then(|q| q.qfi) == Some(qfi)
            })
            .map(|f| qer_id(f.qer))
    }
}
