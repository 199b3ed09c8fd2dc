//! The QER IEs: Create QER (§7.5.2.5), Update QER (§7.5.4.5), Remove QER (§7.5.4.9).

use crate::ie::{BitRate, GateStatus};
use crate::types::{QerId, Qfi};

ie_group! {
    /// Create QER (TS 29.244 Table 7.5.2.5-1).
    pub struct CreateQer {
        /// QER ID (M).
        qer_id: required(QerId) = QER_ID,
        /// Gate Status (M).
        gate_status: required(GateStatus) = GATE_STATUS,
        /// Maximum Bit Rate.
        mbr: optional(BitRate) = MBR,
        /// Guaranteed Bit Rate.
        gbr: optional(BitRate) = GBR,
        /// QoS Flow Identifier (eUPF takes the downlink QFI from here).
        qfi: optional(Qfi) = QFI,
    }
}
grouped_ie!(CreateQer, CREATE_QER);

impl CreateQer {
    /// An open-gated QER that marks `qfi`.
    pub fn new(qer_id: QerId, qfi: Qfi) -> Self {
        CreateQer {
            qer_id,
            gate_status: GateStatus::OPEN,
            mbr: None,
            gbr: None,
            qfi: Some(qfi),
            other_ies: Vec::new(),
        }
    }
}

ie_group! {
    /// Update QER (TS 29.244 Table 7.5.4.5-1).
    pub struct UpdateQer {
        /// QER ID (M).
        qer_id: required(QerId) = QER_ID,
        /// Gate Status.
        gate_status: optional(GateStatus) = GATE_STATUS,
        /// Maximum Bit Rate.
        mbr: optional(BitRate) = MBR,
        /// Guaranteed Bit Rate.
        gbr: optional(BitRate) = GBR,
        /// QoS Flow Identifier.
        qfi: optional(Qfi) = QFI,
    }
}
grouped_ie!(UpdateQer, UPDATE_QER);

ie_group! {
    /// Remove QER (TS 29.244 Table 7.5.4.9-1).
    pub struct RemoveQer {
        /// QER ID (M).
        qer_id: required(QerId) = QER_ID,
    }
}
grouped_ie!(RemoveQer, REMOVE_QER);
