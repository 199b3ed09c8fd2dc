//! One UE's session as the tester programs it, turned into PFCP requests.
//!
//! The rules follow the interoperability rules learned from the UPFs users measure
//! (docs/pfcp.md):
//! - PDR 1, downlink: Source Interface Core, UE IP Address as destination, Network Instance, no
//!   SDF filter (Open5GS needs exactly this default PDR); FAR 1 forwards to Access with Outer
//!   Header Creation GTP-U/UDP/IPv4 towards the gNB.
//! - PDR 2, uplink: Source Interface Access, local F-TEID (ours by default, or CH=1), UE IP Address
//!   as source, optional SDF filter and QFI, Outer Header Removal GTP-U/UDP/IPv4; FAR 2 forwards
//!   to Core.
//! - PDN Type (of the UE address's family) and a CP F-SEID with our N4 address always; Apply
//!   Action on 2 octets.
//!
//! Every address may be IPv4 or IPv6: each IE is built for its address's family (UE IP Address
//! V4 or V6, F-TEID, F-SEID, Outer Header Creation GTP-U/UDP/IPv4 or IPv6, Outer Header Removal
//! of the N3 transport's family).
//! - Optional QER 1 carrying the QFI (and MBR/GBR), referenced by both PDRs; optional URR 1.
//!
//! The modifications a run sends later: a handover's path switch, a refresh of the downlink
//! FAR, and the gate of QERs closed or opened again ([`gate_request`]).

use core::net::IpAddr;
use std::sync::Arc;

use crate::ie::{
    BitRate, CreateFar, CreatePdr, CreateQer, CreateUrr, DestinationInterface, DnsName,
    ForwardingParameters, Fseid, Fteid, GateStatus, InterfaceType, MeasurementMethod, NodeId,
    OuterHeaderCreation, OuterHeaderRemoval, Pdi, PdnType, PfcpsmReqFlags, ReportingTriggers,
    SdfFilter, SourceInterface, UeIpAddress, UpdateFar, UpdateForwardingParameters, UpdateQer,
    Volume,
};
use crate::message::{SessionEstablishmentRequest, SessionModificationRequest};
use crate::types::{FarId, PdrId, Precedence, QerId, Qfi, Seid, Teid, UrrId};

/// The downlink PDR.
pub(crate) const DOWNLINK_PDR: PdrId = PdrId(1);
/// The uplink PDR.
pub(crate) const UPLINK_PDR: PdrId = PdrId(2);
/// The downlink FAR (to Access).
pub(crate) const DOWNLINK_FAR: FarId = FarId(1);
/// The uplink FAR (to Core).
pub(crate) const UPLINK_FAR: FarId = FarId(2);
/// The QER.
pub const QER: QerId = QerId(1);
/// The URR.
pub const URR: UrrId = UrrId(1);
/// Precedence of both PDRs (what the reference client sends).
pub(crate) const PRECEDENCE: Precedence = Precedence(0xffff);

/// Who picks the uplink TEID.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum UplinkTeid {
    /// We do (the default: go-upf offers no FTUP).
    Assigned(Teid),
    /// The UPF does (CH=1); it is read back from the Created PDR.
    ChosenByUpf,
}

/// The optional QER.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct QerPlan {
    /// QFI the QER sets (eUPF takes the downlink QFI from here).
    pub qfi: Qfi,
    /// Maximum bit rate.
    pub mbr: Option<BitRate>,
    /// Guaranteed bit rate.
    pub gbr: Option<BitRate>,
}

/// The optional URR: volume and duration measurement.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct UrrPlan {
    /// Report every this many seconds (trigger PERIO).
    pub measurement_period_s: Option<u32>,
    /// Report when this many octets passed (trigger VOLTH).
    pub volume_threshold_octets: Option<u64>,
}

/// What every session of a run shares: the tester's identity and addresses, the network
/// instance, DNN, QFI, QER and URR settings. Built once per run and shared (`Arc`), so that a
/// million UEs do not carry a million copies of it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SessionTemplate {
    /// Our Node ID (Open5GS wants our N4 source address).
    pub node_id: NodeId,
    /// Our N4 address, for the CP F-SEID.
    pub cp_address: IpAddr,
    /// The UPF's N3 address (the uplink F-TEID's address).
    pub upf_n3_address: IpAddr,
    /// Our N3 address (the gNB side), target of the downlink tunnel.
    pub gnb_n3_address: IpAddr,
    /// Network Instance.
    pub network_instance: DnsName,
    /// DNN, when sent.
    pub dnn: Option<DnsName>,
    /// QFI the uplink PDR matches (Open5GS then drops uplink without a PDU Session Container).
    pub uplink_qfi: Option<Qfi>,
    /// SDF filter of the uplink PDR (the downlink PDR never has one).
    pub uplink_sdf_filter: Option<SdfFilter>,
    /// Whether to send the Source/Destination Interface Types (N3, N6).
    pub interface_types: bool,
    /// QER, on by default.
    pub qer: Option<QerPlan>,
    /// URR.
    pub urr: Option<UrrPlan>,
}

/// One UE's part of its session: 40 bytes (the address holds either family), so 1,000,000 UEs
/// take 40 MB here (38 MiB), plus one [`SessionTemplate`] shared by all through an `Arc`.
///
/// An IPv6 UE gets PDN Type IPv6 and UE IP Addresses with V6; a dual-stack UE (IPv4v6, both
/// addresses) is a later addition.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct UeSession {
    /// Our SEID for this session.
    pub cp_seid: Seid,
    /// The UE's address.
    pub ue_address: IpAddr,
    /// The uplink TEID.
    pub uplink_teid: UplinkTeid,
    /// The downlink TEID (ours, at the gNB side).
    pub downlink_teid: Teid,
}

/// One UE's session to program: the run's shared template and the UE's own part.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UeSessionPlan {
    /// What every session of the run shares.
    pub template: Arc<SessionTemplate>,
    /// This UE's part.
    pub ue: UeSession,
}

impl UeSessionPlan {
    /// The plan of `ue` with `template`.
    pub fn new(template: Arc<SessionTemplate>, ue: UeSession) -> Self {
        UeSessionPlan { template, ue }
    }

    /// The template, to change for this plan alone (copied first if shared).
    pub fn template_mut(&mut self) -> &mut SessionTemplate {
        Arc::make_mut(&mut self.template)
    }

    /// Our SEID for this session.
    pub fn cp_seid(&self) -> Seid {
        self.ue.cp_seid
    }

    /// The UE's address.
    pub fn ue_address(&self) -> IpAddr {
        self.ue.ue_address
    }

    /// The downlink PDR (1).
    pub(crate) fn downlink_pdr(&self) -> CreatePdr {
        let mut pdi = Pdi::new(SourceInterface::CORE);
        pdi.network_instance = Some(self.template.network_instance.clone());
        pdi.ue_ip_address = Some(UeIpAddress::new(self.ue.ue_address, true));
        pdi.source_interface_type = self.template.interface_types.then_some(InterfaceType::N6);
        let mut pdr = CreatePdr::new(DOWNLINK_PDR, PRECEDENCE, pdi);
        pdr.far_id = Some(DOWNLINK_FAR);
        self.attach_rules(&mut pdr);
        pdr
    }

    /// The uplink PDR (2).
    pub fn uplink_pdr(&self) -> CreatePdr {
        let mut pdi = Pdi::new(SourceInterface::ACCESS);
        pdi.local_f_teid = Some(match self.ue.uplink_teid {
            UplinkTeid::Assigned(teid) => Fteid::assigned(teid, self.template.upf_n3_address),
            UplinkTeid::ChosenByUpf => Fteid::Choose {
                ipv4: self.template.upf_n3_address.is_ipv4(),
                ipv6: self.template.upf_n3_address.is_ipv6(),
                choose_id: None,
            },
        });
        pdi.network_instance = Some(self.template.network_instance.clone());
        pdi.ue_ip_address = Some(UeIpAddress::new(self.ue.ue_address, false));
        pdi.sdf_filters
            .extend(self.template.uplink_sdf_filter.clone());
        pdi.qfi = self.template.uplink_qfi;
        pdi.source_interface_type = self
            .template
            .interface_types
            .then_some(InterfaceType::N3_3GPP_ACCESS);
        let mut pdr = CreatePdr::new(UPLINK_PDR, PRECEDENCE, pdi);
        pdr.far_id = Some(UPLINK_FAR);
        pdr.outer_header_removal = Some(OuterHeaderRemoval::gtpu_udp(
            self.template.upf_n3_address.is_ipv6(),
        ));
        self.attach_rules(&mut pdr);
        pdr
    }

    fn attach_rules(&self, pdr: &mut CreatePdr) {
        if self.template.urr.is_some() {
            pdr.urr_ids.push(URR);
        }
        if self.template.qer.is_some() {
            pdr.qer_ids.push(QER);
        }
    }

    /// Forwarding Parameters of the downlink FAR for a gNB endpoint.
    pub(crate) fn downlink_forwarding(&self, teid: Teid, gnb: IpAddr) -> ForwardingParameters {
        let mut fp = ForwardingParameters::new(DestinationInterface::ACCESS);
        fp.network_instance = Some(self.template.network_instance.clone());
        fp.outer_header_creation = Some(OuterHeaderCreation::gtpu_udp(teid, gnb));
        fp.destination_interface_type = self
            .template
            .interface_types
            .then_some(InterfaceType::N3_3GPP_ACCESS);
        fp
    }

    /// The downlink FAR (1): forward to Access through a GTP-U tunnel to the gNB.
    pub(crate) fn downlink_far(&self) -> CreateFar {
        CreateFar::forward(
            DOWNLINK_FAR,
            self.downlink_forwarding(self.ue.downlink_teid, self.template.gnb_n3_address),
        )
    }

    /// The uplink FAR (2): forward to Core.
    pub(crate) fn uplink_far(&self) -> CreateFar {
        let mut fp = ForwardingParameters::new(DestinationInterface::CORE);
        fp.network_instance = Some(self.template.network_instance.clone());
        fp.destination_interface_type = self.template.interface_types.then_some(InterfaceType::N6);
        CreateFar::forward(UPLINK_FAR, fp)
    }

    /// The QER, if planned.
    pub fn create_qer(&self) -> Option<CreateQer> {
        self.template.qer.map(|q| {
            let mut c = CreateQer::new(QER, q.qfi);
            c.mbr = q.mbr;
            c.gbr = q.gbr;
            c
        })
    }

    /// The URR, if planned.
    pub fn create_urr(&self) -> Option<CreateUrr> {
        self.template.urr.map(|u| {
            let mut triggers = 0;
            if u.measurement_period_s.is_some() {
                triggers |= ReportingTriggers::PERIO;
            }
            if u.volume_threshold_octets.is_some() {
                triggers |= ReportingTriggers::VOLTH;
            }
            let mut c = CreateUrr::new(
                URR,
                MeasurementMethod::new(MeasurementMethod::VOLUM | MeasurementMethod::DURAT),
                ReportingTriggers::new(triggers),
            );
            c.measurement_period = u.measurement_period_s;
            c.volume_threshold = u.volume_threshold_octets.map(|t| Volume {
                total: Some(t),
                uplink: None,
                downlink: None,
            });
            c
        })
    }

    /// The Session Establishment Request (send with SEID 0 in the header).
    pub fn establishment_request(&self) -> SessionEstablishmentRequest {
        let mut r = SessionEstablishmentRequest::new(
            self.template.node_id.clone(),
            Fseid::new(self.ue.cp_seid, self.template.cp_address),
        );
        r.create_pdrs = vec![self.downlink_pdr(), self.uplink_pdr()];
        r.create_fars = vec![self.downlink_far(), self.uplink_far()];
        r.create_urrs.extend(self.create_urr());
        r.pdn_type = Some(if self.ue.ue_address.is_ipv6() {
            PdnType::IPV6
        } else {
            PdnType::IPV4
        });
        r.apn_dnn = self.template.dnn.clone();
        r.create_qers.extend(self.create_qer());
        r
    }

    /// A Session Modification Request that moves the downlink tunnel to another gNB endpoint,
    /// as an SMF sends it in a handover (TS 23.502 §4.9.1.2.2, step 6): Update FAR 1 with
    /// Update Forwarding Parameters carrying the new Outer Header Creation and, with
    /// `end_marker`, PFCPSMReq-Flags SNDEM (TS 29.244 §8.2.69): the UPF then sends an End
    /// Marker on the old path after its last G-PDU there.
    pub fn path_switch_request(
        &self,
        teid: Teid,
        gnb: IpAddr,
        end_marker: bool,
    ) -> SessionModificationRequest {
        let ufp = UpdateForwardingParameters {
            destination_interface: Some(DestinationInterface::ACCESS),
            outer_header_creation: Some(OuterHeaderCreation::gtpu_udp(teid, gnb)),
            pfcpsm_req_flags: end_marker.then(|| PfcpsmReqFlags::new(PfcpsmReqFlags::SNDEM)),
            ..Default::default()
        };
        let far = UpdateFar {
            far_id: DOWNLINK_FAR,
            apply_action: Some(crate::ie::ApplyAction::new(crate::ie::ApplyAction::FORW)),
            update_forwarding_parameters: Some(ufp),
            other_ies: Vec::new(),
        };
        SessionModificationRequest {
            update_fars: vec![far],
            ..Default::default()
        }
    }

    /// A Session Modification Request that re-sends the downlink FAR's forwarding parameters
    /// unchanged (Update FAR 1 to the session's own gNB endpoint, no End Marker): a change an
    /// SMF may send at any time, which must not disturb the session's forwarding.
    pub fn refresh_request(&self) -> SessionModificationRequest {
        self.path_switch_request(self.ue.downlink_teid, self.template.gnb_n3_address, false)
    }

    /// A Session Modification Request that sets the gates of the session's QER ([`QER`]), or
    /// `None` when the plan has no QER: [`gate_request`] for it.
    pub fn gate_request(&self, gate: GateStatus) -> Option<SessionModificationRequest> {
        self.template.qer.map(|_| gate_request([QER], gate))
    }
}

/// A Session Modification Request that sets the gates of the QERs `qers` of a session and
/// changes nothing else: an Update QER with only QER ID and Gate Status for each (TS 29.244
/// §7.5.4.5, §8.2.7). With [`GateStatus::CLOSED`] the UP function drops the QERs' packets both
/// ways from the moment it answers (a QoS flow's gate closed by the SMF, TS 23.501 §5.7.2.6); a
/// later request with [`GateStatus::OPEN`] lets them pass again. A QER that several PDRs share
/// closes for all of them.
pub fn gate_request(
    qers: impl IntoIterator<Item = QerId>,
    gate: GateStatus,
) -> SessionModificationRequest {
    SessionModificationRequest {
        update_qers: qers.into_iter().map(|q| UpdateQer::gate(q, gate)).collect(),
        ..Default::default()
    }
}
