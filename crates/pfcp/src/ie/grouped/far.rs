//! The FAR IEs: Create FAR (§7.5.2.3), Forwarding Parameters, Update FAR (§7.5.4.3), Update
//! Forwarding Parameters, Remove FAR (§7.5.4.7).

use crate::ie::{
    ApplyAction, DestinationInterface, DnsName, InterfaceType, OuterHeaderCreation, PfcpsmReqFlags,
};
use crate::types::FarId;

ie_group! {
    /// Forwarding Parameters (TS 29.244 Table 7.5.2.3-2).
    pub struct ForwardingParameters {
        /// Destination Interface (M).
        destination_interface: required(DestinationInterface) = DESTINATION_INTERFACE,
        /// Network Instance.
        network_instance: optional(DnsName) = NETWORK_INSTANCE,
        /// Outer Header Creation.
        outer_header_creation: optional(OuterHeaderCreation) = OUTER_HEADER_CREATION,
        /// Destination Interface Type (3GPP Interface Type).
        destination_interface_type: optional(InterfaceType) = INTERFACE_TYPE,
    }
}
grouped_ie!(ForwardingParameters, FORWARDING_PARAMETERS);

impl ForwardingParameters {
    /// Forwarding to an interface, nothing else.
    pub fn new(destination_interface: DestinationInterface) -> Self {
        ForwardingParameters {
            destination_interface,
            network_instance: None,
            outer_header_creation: None,
            destination_interface_type: None,
            other_ies: Vec::new(),
        }
    }
}

ie_group! {
    /// Create FAR (TS 29.244 Table 7.5.2.3-1).
    pub struct CreateFar {
        /// FAR ID (M).
        far_id: required(FarId) = FAR_ID,
        /// Apply Action (M).
        apply_action: required(ApplyAction) = APPLY_ACTION,
        /// Forwarding Parameters (when forwarding).
        forwarding_parameters: optional(ForwardingParameters) = FORWARDING_PARAMETERS,
    }
}
grouped_ie!(CreateFar, CREATE_FAR);

impl CreateFar {
    /// A FAR that forwards with the given parameters (Apply Action FORW, 2 octets).
    pub fn forward(far_id: FarId, parameters: ForwardingParameters) -> Self {
        CreateFar {
            far_id,
            apply_action: ApplyAction::new(ApplyAction::FORW),
            forwarding_parameters: Some(parameters),
            other_ies: Vec::new(),
        }
    }
}

ie_group! {
    /// Update Forwarding Parameters (TS 29.244 Table 7.5.4.3-2).
    #[derive(Default)]
    pub struct UpdateForwardingParameters {
        /// Destination Interface.
        destination_interface: optional(DestinationInterface) = DESTINATION_INTERFACE,
        /// Network Instance.
        network_instance: optional(DnsName) = NETWORK_INSTANCE,
        /// Outer Header Creation.
        outer_header_creation: optional(OuterHeaderCreation) = OUTER_HEADER_CREATION,
        /// Destination Interface Type (3GPP Interface Type).
        destination_interface_type: optional(InterfaceType) = INTERFACE_TYPE,
        /// PFCPSMReq-Flags: SNDEM asks for an End Marker on the previous path.
        pfcpsm_req_flags: optional(PfcpsmReqFlags) = PFCPSMREQ_FLAGS,
    }
}
grouped_ie!(UpdateForwardingParameters, UPDATE_FORWARDING_PARAMETERS);

ie_group! {
    /// Update FAR (TS 29.244 Table 7.5.4.3-1).
    pub struct UpdateFar {
        /// FAR ID (M).
        far_id: required(FarId) = FAR_ID,
        /// Apply Action.
        apply_action: optional(ApplyAction) = APPLY_ACTION,
        /// Update Forwarding Parameters.
        update_forwarding_parameters: optional(UpdateForwardingParameters) = UPDATE_FORWARDING_PARAMETERS,
    }
}
grouped_ie!(UpdateFar, UPDATE_FAR);

ie_group! {
    /// Remove FAR (TS 29.244 Table 7.5.4.7-1).
    pub struct RemoveFar {
        /// FAR ID (M).
        far_id: required(FarId) = FAR_ID,
    }
}
grouped_ie!(RemoveFar, REMOVE_FAR);
