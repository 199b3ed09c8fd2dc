//! Node-related messages (TS 29.244 §7.4): heartbeat and association procedures.

use crate::ie::{Cause, CpFunctionFeatures, NodeId, NtpTimestamp, UpFunctionFeatures};

ie_group! {
    /// Heartbeat Request (TS 29.244 §7.4.2.1).
    pub struct HeartbeatRequest {
        /// Recovery Time Stamp (M).
        recovery_time_stamp: required(NtpTimestamp) = RECOVERY_TIME_STAMP,
    }
}

ie_group! {
    /// Heartbeat Response (TS 29.244 §7.4.2.2).
    pub struct HeartbeatResponse {
        /// Recovery Time Stamp (M).
        recovery_time_stamp: required(NtpTimestamp) = RECOVERY_TIME_STAMP,
    }
}

impl HeartbeatRequest {
    /// A request carrying our start time.
    pub fn new(recovery_time_stamp: NtpTimestamp) -> Self {
        HeartbeatRequest {
            recovery_time_stamp,
            other_ies: Vec::new(),
        }
    }
}

impl HeartbeatResponse {
    /// A response carrying our start time.
    pub fn new(recovery_time_stamp: NtpTimestamp) -> Self {
        HeartbeatResponse {
            recovery_time_stamp,
            other_ies: Vec::new(),
        }
    }
}

ie_group! {
    /// Association Setup Request (TS 29.244 §7.4.4.1).
    pub struct AssociationSetupRequest {
        /// Node ID (M).
        node_id: required(NodeId) = NODE_ID,
        /// Recovery Time Stamp (M; eUPF rejects the request without it).
        recovery_time_stamp: required(NtpTimestamp) = RECOVERY_TIME_STAMP,
        /// UP Function Features (sent by a UP function).
        up_function_features: optional(UpFunctionFeatures) = UP_FUNCTION_FEATURES,
        /// CP Function Features (sent by a CP function).
        cp_function_features: optional(CpFunctionFeatures) = CP_FUNCTION_FEATURES,
    }
}

impl AssociationSetupRequest {
    /// A request with the mandatory IEs.
    pub fn new(node_id: NodeId, recovery_time_stamp: NtpTimestamp) -> Self {
        AssociationSetupRequest {
            node_id,
            recovery_time_stamp,
            up_function_features: None,
            cp_function_features: None,
            other_ies: Vec::new(),
        }
    }
}

ie_group! {
    /// Association Setup Response (TS 29.244 §7.4.4.2).
    pub struct AssociationSetupResponse {
        /// Node ID (M).
        node_id: required(NodeId) = NODE_ID,
        /// Cause (M).
        cause: required(Cause) = CAUSE,
        /// Recovery Time Stamp (M).
        recovery_time_stamp: required(NtpTimestamp) = RECOVERY_TIME_STAMP,
        /// UP Function Features (sent by a UP function).
        up_function_features: optional(UpFunctionFeatures) = UP_FUNCTION_FEATURES,
        /// CP Function Features (sent by a CP function).
        cp_function_features: optional(CpFunctionFeatures) = CP_FUNCTION_FEATURES,
    }
}

impl AssociationSetupResponse {
    /// A response with the mandatory IEs.
    pub fn new(node_id: NodeId, cause: Cause, recovery_time_stamp: NtpTimestamp) -> Self {
        AssociationSetupResponse {
            node_id,
            cause,
            recovery_time_stamp,
            up_function_features: None,
            cp_function_features: None,
            other_ies: Vec::new(),
        }
    }
}

ie_group! {
    /// Association Update Request (TS 29.244 §7.4.4.3).
    pub struct AssociationUpdateRequest {
        /// Node ID (M).
        node_id: required(NodeId) = NODE_ID,
        /// UP Function Features.
        up_function_features: optional(UpFunctionFeatures) = UP_FUNCTION_FEATURES,
        /// CP Function Features.
        cp_function_features: optional(CpFunctionFeatures) = CP_FUNCTION_FEATURES,
    }
}

ie_group! {
    /// Association Update Response (TS 29.244 §7.4.4.4).
    pub struct AssociationUpdateResponse {
        /// Node ID (M).
        node_id: required(NodeId) = NODE_ID,
        /// Cause (M).
        cause: required(Cause) = CAUSE,
        /// UP Function Features.
        up_function_features: optional(UpFunctionFeatures) = UP_FUNCTION_FEATURES,
        /// CP Function Features.
        cp_function_features: optional(CpFunctionFeatures) = CP_FUNCTION_FEATURES,
    }
}

ie_group! {
    /// Association Release Request (TS 29.244 §7.4.4.5).
    pub struct AssociationReleaseRequest {
        /// Node ID (M).
        node_id: required(NodeId) = NODE_ID,
    }
}

impl AssociationReleaseRequest {
    /// A request from `node_id`.
    pub fn new(node_id: NodeId) -> Self {
        AssociationReleaseRequest {
            node_id,
            other_ies: Vec::new(),
        }
    }
}

ie_group! {
    /// Association Release Response (TS 29.244 §7.4.4.6).
    pub struct AssociationReleaseResponse {
        /// Node ID (M).
        node_id: required(NodeId) = NODE_ID,
        /// Cause (M).
        cause: required(Cause) = CAUSE,
    }
}

impl AssociationReleaseResponse {
    /// A response from `node_id`.
    pub fn new(node_id: NodeId, cause: Cause) -> Self {
        AssociationReleaseResponse {
            node_id,
            cause,
            other_ies: Vec::new(),
        }
    }
}

ie_group! {
    /// Version Not Supported Response (TS 29.244 §7.4.4.7): no IEs; the answer to a request
    /// whose header version this node does not speak.
    #[derive(Default)]
    pub struct VersionNotSupportedResponse {
    }
}
