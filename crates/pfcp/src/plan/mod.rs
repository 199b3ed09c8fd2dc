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
//! - Several QoS flows instead ([`FlowPlan`]): each flow two PDRs with its SDF filter, two FARs
//!   and a QER, which flows may share.
//! - A UE of either family or both ([`UeSession`]): its IPv6 prefix in the UE IP Address (V6,
//!   IP6PL unless /64), PDN Type IPv4, IPv6 or IPv4v6.
//!
//! The modifications a run sends later: a handover's path switch, a refresh of the downlink
//! FAR, and the gate of QERs closed or opened again ([`gate_request`]).

use core::net::{IpAddr, Ipv6Addr};
use std::sync::Arc;

mod flows;

pub use flows::{FlowPlan, MAX_FLOWS, QerRule, flow_rule_ids, qer_id};

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
    /// Several QoS flows, each its PDRs, FARs and a QER of `qers` ([`FlowPlan`]); they replace
    /// `uplink_qfi`, `uplink_sdf_filter` and `qer`. Empty: one flow, as those say.
    pub flows: Vec<FlowPlan>,
    /// The QERs `flows` name (QER `i + 1` is `qers[i]`).
    pub qers: Vec<QerRule>,
}

/// A UE's IPv6 prefix (TS 23.501 §5.8.2.2.2: a /64 each, or another length; 128 for an
/// address).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct UeIpv6Prefix {
    /// The prefix (host bits clear), or the address of a /128.
    pub prefix: Ipv6Addr,
    /// Its length: 64 is sent as the UE IP Address's default, others in IP6PL.
    pub len: u8,
}

/// One UE's part of its session: 56 bytes (an address of either family and an IPv6 prefix), so
/// 1,000,000 UEs take 56 MB here (53 MiB), plus one [`SessionTemplate`] shared by all through an
/// `Arc`.
///
/// An IPv4 UE: `ue_address` IPv4, no `ue_ipv6`: PDN Type IPv4. An IPv6 UE: `ue_address` its IPv6
/// address (`::2` in its prefix), `ue_ipv6` its prefix: PDN Type IPv6, the UE IP Addresses carry
/// the prefix (V6, and IP6PL unless /64). A dual-stack UE: `ue_address` IPv4 and `ue_ipv6`:
/// PDN Type IPv4v6, the UE IP Addresses carry both (V4 and V6).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct UeSession {
    /// Our SEID for this session.
    pub cp_seid: Seid,
    /// The UE's address: its IPv4 one if it has one, else its IPv6 one.
    pub ue_address: IpAddr,
    /// The UE's IPv6 prefix, if it has one.
    pub ue_ipv6: Option<UeIpv6Prefix>,
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

    /// The UE IP Address of its PDIs: as the destination (downlink) or the source (uplink).
    pub fn ue_ip_address(&self, is_destination: bool) -> UeIpAddress {
        match (self.ue.ue_address, self.ue.ue_ipv6) {
            (address, None) => UeIpAddress::new(address, is_destination),
            (IpAddr::V6(_), Some(p)) => UeIpAddress::ipv6_prefix(p.prefix, p.len, is_destination),
            (IpAddr::V4(v4), Some(p)) => UeIpAddress {
                ipv4: Some(v4),
                ..UeIpAddress::ipv6_prefix(p.prefix, p.len, is_destination)
            },
        }
    }

    /// The PDN Type of the UE's addresses.
    pub fn pdn_type(&self) -> PdnType {
        match (self.ue.ue_address, self.ue.ue_ipv6) {
            (IpAddr::V4(_), Some(_)) => PdnType::IPV4V6,
            (IpAddr::V4(_), None) => PdnType::IPV4,
            (IpAddr::V6(_), _) => PdnType::IPV6,
        }
    }

    /// The downlink PDR (1).
    pub(crate) fn downlink_pdr(&self) -> CreatePdr {
        let qers: Vec<QerId> = self.template.qer.map(|_| QER).into_iter().collect();
        self.downlink_pdr_of(DOWNLINK_PDR, DOWNLINK_FAR, PRECEDENCE, None, &qers)
    }

    /// A downlink PDR `id` to FAR `far`, with an SDF filter if given, naming `qers`.
    pub(crate) fn downlink_pdr_of(
        &self,
        id: PdrId,
        far: FarId,
        precedence: Precedence,
        sdf: Option<SdfFilter>,
        qers: &[QerId],
    ) -> CreatePdr {
        let mut pdi = Pdi::new(SourceInterface::CORE);
        pdi.network_instance = Some(self.template.network_instance.clone());
        pdi.ue_ip_address = Some(self.ue_ip_address(true));
        pdi.sdf_filters.extend(sdf);
        pdi.source_interface_type = self.template.interface_types.then_some(InterfaceType::N6);
        let mut pdr = CreatePdr::new(id, precedence, pdi);
        pdr.far_id = Some(far);
        self.attach_rules(&mut pdr, qers);
        pdr
    }

    /// The uplink PDR (2).
    pub fn uplink_pdr(&self) -> CreatePdr {
        let t = &self.template;
        let qers: Vec<QerId> = t.qer.map(|_| QER).into_iter().collect();
        self.uplink_pdr_of(
            UPLINK_PDR,
            UPLINK_FAR,
            PRECEDENCE,
            t.uplink_qfi,
            t.uplink_sdf_filter.clone(),
            &qers,
        )
    }

    /// An uplink PDR `id` to FAR `far`, matching `qfi` and an SDF filter if given, naming
    /// `qers`.
    pub(crate) fn uplink_pdr_of(
        &self,
        id: PdrId,
        far: FarId,
        precedence: Precedence,
        qfi: Option<Qfi>,
        sdf: Option<SdfFilter>,
        qers: &[QerId],
    ) -> CreatePdr {
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
        pdi.ue_ip_address = Some(self.ue_ip_address(false));
        pdi.sdf_filters.extend(sdf);
        pdi.qfi = qfi;
        pdi.source_interface_type = self
            .template
            .interface_types
            .then_some(InterfaceType::N3_3GPP_ACCESS);
        let mut pdr = CreatePdr::new(id, precedence, pdi);
        pdr.far_id = Some(far);
        pdr.outer_header_removal = Some(OuterHeaderRemoval::gtpu_udp(
            self.template.upf_n3_address.is_ipv6(),
        ));
        self.attach_rules(&mut pdr, qers);
        pdr
    }

    fn attach_rules(&self, pdr: &mut CreatePdr, qers: &[QerId]) {
        if self.template.urr.is_some() {
            pdr.urr_ids.push(URR);
        }
        pdr.qer_ids.extend_from_slice(qers);
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
        self.uplink_far_of(UPLINK_FAR)
    }

    /// An uplink FAR `id`: forward to Core.
    pub(crate) fn uplink_far_of(&self, id: FarId) -> CreateFar {
        let mut fp = ForwardingParameters::new(DestinationInterface::CORE);
        fp.network_instance = Some(self.template.network_instance.clone());
        fp.destination_interface_type = self.template.interface_types.then_some(InterfaceType::N6);
        CreateFar::forward(id, fp)
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
        if self.template.flows.is_empty() {
            r.create_pdrs = vec![self.downlink_pdr(), self.uplink_pdr()];
            r.create_fars = vec![self.downlink_far(), self.uplink_far()];
        } else {
            let (pdrs, fars, qers) = self.flow_rules();
            r.create_pdrs = pdrs;
            r.create_fars = fars;
            r.create_qers = qers;
        }
        r.create_urrs.extend(self.create_urr());
        r.pdn_type = Some(self.pdn_type());
        r.apn_dnn = self.template.dnn.clone();
        if self.template.flows.is_empty() {
            r.create_qers.extend(self.create_qer());
        }
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
        let update_fars = self
            .downlink_fars()
            .into_iter()
            .map(|far_id| UpdateFar {
                far_id,
                apply_action: Some(crate::ie::ApplyAction::new(crate::ie::ApplyAction::FORW)),
                update_forwarding_parameters: Some(ufp.clone()),
                other_ies: Vec::new(),
            })
            .collect();
        SessionModificationRequest {
            update_fars,
            ..Default::default()
        }
    }

    /// A Session Modification Request that re-sends the downlink FAR's forwarding parameters
    /// unchanged (Update FAR 1 to the session's own gNB endpoint, no End Marker): a change an
    /// SMF may send at any time, which must not disturb the session's forwarding.
    pub fn refresh_request(&self) -> SessionModificationRequest {
        self.path_switch_request(self.ue.downlink_teid, self.template.gnb_n3_address, false)
    }

    /// A Session Modification Request that sets the gates of every QER of the session ([`QER`],
    /// or each flow's), or `None` when the plan has no QER: [`gate_request`] for them.
    pub fn gate_request(&self, gate: GateStatus) -> Option<SessionModificationRequest> {
        let qers = self.qer_ids();
        (!qers.is_empty()).then(|| gate_request(qers, gate))
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
