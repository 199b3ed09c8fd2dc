//! Session-related messages (TS 29.244 §7.5).

use crate::error::DecodeError;
use crate::ie::{
    Cause, CreateFar, CreatePdr, CreateQer, CreateUrr, CreatedPdr, DnsName, FailedRuleId, Fseid,
    NodeId, OffendingIe, PdnType, RemoveFar, RemovePdr, RemoveQer, RemoveUrr, ReportType,
    UpdateFar, UpdatePdr, UpdateQer, UpdateUrr, UsageReport,
};

ie_group! {
    /// Session Establishment Request (TS 29.244 §7.5.2).
    ///
    /// Emission order is the spec table's except that Create QER follows APN/DNN, as the
    /// reference client sends it.
    pub struct SessionEstablishmentRequest {
        /// Node ID (M): the CP function's; Open5GS needs it to equal the request's source address.
        node_id: required(NodeId) = NODE_ID,
        /// CP F-SEID (M; UPFs require an IPv4 address in it).
        cp_f_seid: required(Fseid) = F_SEID,
        /// Create PDR (M, one or more).
        create_pdrs: one_or_more(CreatePdr) = CREATE_PDR,
        /// Create FAR (M, one or more).
        create_fars: one_or_more(CreateFar) = CREATE_FAR,
        /// Create URR.
        create_urrs: any(CreateUrr) = CREATE_URR,
        /// PDN Type (Open5GS installs the UE address only with it).
        pdn_type: optional(PdnType) = PDN_TYPE,
        /// APN/DNN.
        apn_dnn: optional(DnsName) = APN_DNN,
        /// Create QER.
        create_qers: any(CreateQer) = CREATE_QER,
    }
}

impl SessionEstablishmentRequest {
    /// A request with no rules yet (add at least one PDR and one FAR before sending).
    pub fn new(node_id: NodeId, cp_f_seid: Fseid) -> Self {
        SessionEstablishmentRequest {
            node_id,
            cp_f_seid,
            create_pdrs: Vec::new(),
            create_fars: Vec::new(),
            create_urrs: Vec::new(),
            pdn_type: None,
            apn_dnn: None,
            create_qers: Vec::new(),
            other_ies: Vec::new(),
        }
    }
}

ie_group! {
    /// Session Establishment Response (TS 29.244 §7.5.3).
    pub struct SessionEstablishmentResponse {
        /// Node ID (M).
        node_id: required(NodeId) = NODE_ID,
        /// Cause (M).
        cause: required(Cause) = CAUSE,
        /// Offending IE (when the cause is about an IE).
        offending_ie: optional(OffendingIe) = OFFENDING_IE,
        /// UP F-SEID (when accepted): the SEID to put in later requests' headers.
        up_f_seid: optional(Fseid) = F_SEID,
        /// Created PDR (for PDRs whose F-TEID the UP function chose).
        created_pdrs: any(CreatedPdr) = CREATED_PDR,
        /// Failed Rule ID (with Cause 73).
        failed_rule_id: optional(FailedRuleId) = FAILED_RULE_ID,
    }
}

impl SessionEstablishmentResponse {
    /// An acceptance with the UP F-SEID and the PDRs whose F-TEID the UP function allocated.
    pub fn accepted(node_id: NodeId, up_f_seid: Fseid, created_pdrs: Vec<CreatedPdr>) -> Self {
        SessionEstablishmentResponse {
            node_id,
            cause: Cause::REQUEST_ACCEPTED,
            offending_ie: None,
            up_f_seid: Some(up_f_seid),
            created_pdrs,
            failed_rule_id: None,
            other_ies: Vec::new(),
        }
    }

    /// A rejection with a Cause and, when known, the Offending IE.
    pub fn rejected(node_id: NodeId, cause: Cause, offending_ie: Option<OffendingIe>) -> Self {
        SessionEstablishmentResponse {
            node_id,
            cause,
            offending_ie,
            up_f_seid: None,
            created_pdrs: Vec::new(),
            failed_rule_id: None,
            other_ies: Vec::new(),
        }
    }

    /// The rejection a decoding error calls for (`None` for errors that are not answered).
    pub fn for_error(node_id: NodeId, error: &DecodeError) -> Option<Self> {
        Some(Self::rejected(
            node_id,
            error.cause()?,
            error.offending_ie().map(OffendingIe),
        ))
    }
}

ie_group! {
    /// Session Modification Request (TS 29.244 §7.5.4).
    #[derive(Default)]
    pub struct SessionModificationRequest {
        /// CP F-SEID (when the CP function changes its F-SEID).
        cp_f_seid: optional(Fseid) = F_SEID,
        /// Remove PDR.
        remove_pdrs: any(RemovePdr) = REMOVE_PDR,
        /// Remove FAR.
        remove_fars: any(RemoveFar) = REMOVE_FAR,
        /// Remove URR.
        remove_urrs: any(RemoveUrr) = REMOVE_URR,
        /// Remove QER.
        remove_qers: any(RemoveQer) = REMOVE_QER,
        /// Create PDR.
        create_pdrs: any(CreatePdr) = CREATE_PDR,
        /// Create FAR.
        create_fars: any(CreateFar) = CREATE_FAR,
        /// Create URR.
        create_urrs: any(CreateUrr) = CREATE_URR,
        /// Create QER.
        create_qers: any(CreateQer) = CREATE_QER,
        /// Update PDR.
        update_pdrs: any(UpdatePdr) = UPDATE_PDR,
        /// Update FAR.
        update_fars: any(UpdateFar) = UPDATE_FAR,
        /// Update URR.
        update_urrs: any(UpdateUrr) = UPDATE_URR,
        /// Update QER.
        update_qers: any(UpdateQer) = UPDATE_QER,
        /// Node ID (when another SMF of the set takes over).
        node_id: optional(NodeId) = NODE_ID,
    }
}

ie_group! {
    /// Session Modification Response (TS 29.244 §7.5.5).
    pub struct SessionModificationResponse {
        /// Cause (M).
        cause: required(Cause) = CAUSE,
        /// Offending IE.
        offending_ie: optional(OffendingIe) = OFFENDING_IE,
        /// Created PDR.
        created_pdrs: any(CreatedPdr) = CREATED_PDR,
        /// Usage Report (IE type 78).
        usage_reports: any(UsageReport) = USAGE_REPORT_SESSION_MODIFICATION_RESPONSE,
        /// Failed Rule ID (with Cause 73).
        failed_rule_id: optional(FailedRuleId) = FAILED_RULE_ID,
    }
}

impl SessionModificationResponse {
    /// A response with only a Cause.
    pub fn new(cause: Cause) -> Self {
        SessionModificationResponse {
            cause,
            offending_ie: None,
            created_pdrs: Vec::new(),
            usage_reports: Vec::new(),
            failed_rule_id: None,
            other_ies: Vec::new(),
        }
    }
}

ie_group! {
    /// Session Deletion Request (TS 29.244 §7.5.6): no IEs needed; the header's SEID names the
    /// session.
    #[derive(Default)]
    pub struct SessionDeletionRequest {
    }
}

ie_group! {
    /// Session Deletion Response (TS 29.244 §7.5.7).
    pub struct SessionDeletionResponse {
        /// Cause (M).
        cause: required(Cause) = CAUSE,
        /// Offending IE.
        offending_ie: optional(OffendingIe) = OFFENDING_IE,
        /// Usage Report (IE type 79): the final counts.
        usage_reports: any(UsageReport) = USAGE_REPORT_SESSION_DELETION_RESPONSE,
    }
}

impl SessionDeletionResponse {
    /// A response with only a Cause.
    pub fn new(cause: Cause) -> Self {
        SessionDeletionResponse {
            cause,
            offending_ie: None,
            usage_reports: Vec::new(),
            other_ies: Vec::new(),
        }
    }
}

ie_group! {
    /// Session Report Request (TS 29.244 §7.5.8), sent by the UP function.
    pub struct SessionReportRequest {
        /// Report Type (M).
        report_type: required(ReportType) = REPORT_TYPE,
        /// Usage Report (IE type 80).
        usage_reports: any(UsageReport) = USAGE_REPORT_SESSION_REPORT_REQUEST,
    }
}

ie_group! {
    /// Session Report Response (TS 29.244 §7.5.9).
    pub struct SessionReportResponse {
        /// Cause (M).
        cause: required(Cause) = CAUSE,
        /// Offending IE.
        offending_ie: optional(OffendingIe) = OFFENDING_IE,
    }
}

impl SessionReportResponse {
    /// A response with only a Cause.
    pub fn new(cause: Cause) -> Self {
        SessionReportResponse {
            cause,
            offending_ie: None,
            other_ies: Vec::new(),
        }
    }
}
