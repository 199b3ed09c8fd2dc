//! PDI and the PDR IEs: Create PDR (§7.5.2.2), Created PDR (§7.5.3.2), Update PDR (§7.5.4.2),
//! Remove PDR (§7.5.4.6).

use crate::ie::{
    DnsName, Fteid, InterfaceType, OuterHeaderRemoval, SdfFilter, SourceInterface, UeIpAddress,
};
use crate::types::{FarId, PdrId, Precedence, QerId, Qfi, UrrId};

ie_group! {
    /// PDI (TS 29.244 Table 7.5.2.2-2): what packets a PDR matches.
    pub struct Pdi {
        /// Source Interface (M).
        source_interface: required(SourceInterface) = SOURCE_INTERFACE,
        /// Local F-TEID (uplink PDR: the UPF's N3 endpoint, or CH=1).
        local_f_teid: optional(Fteid) = F_TEID,
        /// Network Instance.
        network_instance: optional(DnsName) = NETWORK_INSTANCE,
        /// UE IP Address.
        ue_ip_address: optional(UeIpAddress) = UE_IP_ADDRESS,
        /// SDF Filters.
        sdf_filters: any(SdfFilter) = SDF_FILTER,
        /// QFI.
        qfi: optional(Qfi) = QFI,
        /// Source Interface Type (3GPP Interface Type).
        source_interface_type: optional(InterfaceType) = INTERFACE_TYPE,
    }
}
grouped_ie!(Pdi, PDI);

impl Pdi {
    /// A PDI with only its Source Interface.
    pub fn new(source_interface: SourceInterface) -> Self {
        Pdi {
            source_interface,
            local_f_teid: None,
            network_instance: None,
            ue_ip_address: None,
            sdf_filters: Vec::new(),
            qfi: None,
            source_interface_type: None,
            other_ies: Vec::new(),
        }
    }
}

ie_group! {
    /// Create PDR (TS 29.244 Table 7.5.2.2-1).
    pub struct CreatePdr {
        /// PDR ID (M).
        pdr_id: required(PdrId) = PDR_ID,
        /// Precedence (M).
        precedence: required(Precedence) = PRECEDENCE,
        /// PDI (M).
        pdi: required(Pdi) = PDI,
        /// FAR ID.
        far_id: optional(FarId) = FAR_ID,
        /// Outer Header Removal.
        outer_header_removal: optional(OuterHeaderRemoval) = OUTER_HEADER_REMOVAL,
        /// URR IDs.
        urr_ids: any(UrrId) = URR_ID,
        /// QER IDs.
        qer_ids: any(QerId) = QER_ID,
    }
}
grouped_ie!(CreatePdr, CREATE_PDR);

impl CreatePdr {
    /// A PDR with its three mandatory IEs.
    pub fn new(pdr_id: PdrId, precedence: Precedence, pdi: Pdi) -> Self {
        CreatePdr {
            pdr_id,
            precedence,
            pdi,
            far_id: None,
            outer_header_removal: None,
            urr_ids: Vec::new(),
            qer_ids: Vec::new(),
            other_ies: Vec::new(),
        }
    }
}

ie_group! {
    /// Created PDR (TS 29.244 Table 7.5.3.2-1): the F-TEID or UE address the UPF allocated.
    pub struct CreatedPdr {
        /// PDR ID (M).
        pdr_id: required(PdrId) = PDR_ID,
        /// Local F-TEID allocated by the UP function.
        local_f_teid: optional(Fteid) = F_TEID,
        /// UE IP Address allocated by the UP function.
        ue_ip_address: optional(UeIpAddress) = UE_IP_ADDRESS,
    }
}
grouped_ie!(CreatedPdr, CREATED_PDR);

impl CreatedPdr {
    /// A Created PDR reporting an allocated F-TEID.
    pub fn new(pdr_id: PdrId, local_f_teid: Option<Fteid>) -> Self {
        CreatedPdr {
            pdr_id,
            local_f_teid,
            ue_ip_address: None,
            other_ies: Vec::new(),
        }
    }
}

ie_group! {
    /// Update PDR (TS 29.244 Table 7.5.4.2-1).
    pub struct UpdatePdr {
        /// PDR ID (M).
        pdr_id: required(PdrId) = PDR_ID,
        /// Outer Header Removal.
        outer_header_removal: optional(OuterHeaderRemoval) = OUTER_HEADER_REMOVAL,
        /// Precedence.
        precedence: optional(Precedence) = PRECEDENCE,
        /// PDI (replaces the whole PDI).
        pdi: optional(Pdi) = PDI,
        /// FAR ID.
        far_id: optional(FarId) = FAR_ID,
        /// URR IDs.
        urr_ids: any(UrrId) = URR_ID,
        /// QER IDs.
        qer_ids: any(QerId) = QER_ID,
    }
}
grouped_ie!(UpdatePdr, UPDATE_PDR);

ie_group! {
    /// Remove PDR (TS 29.244 Table 7.5.4.6-1).
    pub struct RemovePdr {
        /// PDR ID (M).
        pdr_id: required(PdrId) = PDR_ID,
    }
}
grouped_ie!(RemovePdr, REMOVE_PDR);
