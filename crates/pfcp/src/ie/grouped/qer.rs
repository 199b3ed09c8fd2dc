//! The QER IEs: Create QER (§7.5.2.5), Update QER (§7.5.4.5), Remove QER (§7.5.4.9).
//!
//! A session has a QER per QoS flow (its QFI, gate and bit rates); a PDR names the QERs that
//! apply to it in its QER ID list, and several PDRs (the flow's uplink and downlink, or several
//! SDF filters of one flow) may name the same QER (TS 29.244 §5.2.1). Closing a gate is an Update
//! QER with only its Gate Status ([`UpdateQer::gate`]).

use crate::ie::{BitRate, GateStatus, PagingPolicyIndicator, QerCorrelationId, Rqi};
use crate::types::{QerId, Qfi};

ie_group! {
    /// Create QER (TS 29.244 Table 7.5.2.5-1), in the table's order.
    pub struct CreateQer {
        /// QER ID (M).
        qer_id: required(QerId) = QER_ID,
        /// QER Correlation ID (C): QERs of several sessions sharing an aggregate bit rate.
        qer_correlation_id: optional(QerCorrelationId) = QER_CORRELATION_ID,
        /// Gate Status (M).
        gate_status: required(GateStatus) = GATE_STATUS,
        /// Maximum Bit Rate (C), per direction.
        mbr: optional(BitRate) = MBR,
        /// Guaranteed Bit Rate (C), per direction: a GBR QoS flow.
        gbr: optional(BitRate) = GBR,
        /// QoS Flow Identifier (C; eUPF takes the downlink QFI from here).
        qfi: optional(Qfi) = QFI,
        /// Reflective QoS (C).
        rqi: optional(Rqi) = RQI,
        /// Paging Policy Indicator (C).
        paging_policy_indicator: optional(PagingPolicyIndicator) = PAGING_POLICY_INDICATOR,
    }
}
grouped_ie!(CreateQer, CREATE_QER);

impl CreateQer {
    /// An open-gated QER that marks `qfi`.
    pub fn new(qer_id: QerId, qfi: Qfi) -> Self {
        CreateQer {
            qer_id,
            qer_correlation_id: None,
            gate_status: GateStatus::OPEN,
            mbr: None,
            gbr: None,
            qfi: Some(qfi),
            rqi: None,
            paging_policy_indicator: None,
            other_ies: Vec::new(),
        }
    }
}

ie_group! {
    /// Update QER (TS 29.244 Table 7.5.4.5-1), in the table's order: what is present changes.
    #[derive(Default)]
    pub struct UpdateQer {
        /// QER ID (M).
        qer_id: required(QerId) = QER_ID,
        /// QER Correlation ID.
        qer_correlation_id: optional(QerCorrelationId) = QER_CORRELATION_ID,
        /// Gate Status.
        gate_status: optional(GateStatus) = GATE_STATUS,
        /// Maximum Bit Rate.
        mbr: optional(BitRate) = MBR,
        /// Guaranteed Bit Rate.
        gbr: optional(BitRate) = GBR,
        /// QoS Flow Identifier.
        qfi: optional(Qfi) = QFI,
        /// Reflective QoS.
        rqi: optional(Rqi) = RQI,
        /// Paging Policy Indicator.
        paging_policy_indicator: optional(PagingPolicyIndicator) = PAGING_POLICY_INDICATOR,
    }
}
grouped_ie!(UpdateQer, UPDATE_QER);

impl UpdateQer {
    /// An update of `qer_id` that sets its gates and changes nothing else: closing them stops
    /// the QER's flow, opening them lets it pass again.
    pub fn gate(qer_id: QerId, gate_status: GateStatus) -> Self {
        UpdateQer {
            qer_id,
            gate_status: Some(gate_status),
            ..UpdateQer::default()
        }
    }
}

ie_group! {
    /// Remove QER (TS 29.244 Table 7.5.4.9-1).
    pub struct RemoveQer {
        /// QER ID (M).
        qer_id: required(QerId) = QER_ID,
    }
}
grouped_ie!(RemoveQer, REMOVE_QER);
