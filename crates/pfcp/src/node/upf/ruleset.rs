//! One session's rules as the UPF side keeps them, built from Create/Update/Remove IEs, checked
//! for what the reflector can honour, and turned into the datapath's view.
//!
//! Honoured: uplink PDRs (Source Interface Access) matching a local IPv4 F-TEID, given or
//! chosen here (CH=1, with CHOOSE ID sharing); downlink PDRs (Source Interface Core) matching a
//! UE IPv4 address, a UE IPv6 prefix, or both as destination; FARs forwarding, dropping or buffering, with Outer Header
//! Creation GTP-U/UDP/IPv4 or none; QERs (their QFI marks the downlink, their gates and MBRs
//! are handed to the datapath with the PDRs that name them); URRs (kept, not measured). SDF
//! filters are parsed and handed to the datapath with their PDR's precedence; one that does not
//! parse is refused (Cause 73, Offending IE SDF Filter). A PDR whose PDI names a network
//! instance the UPF does not serve is refused.
//! Anything else is refused with Cause 73 and the Failed Rule ID (TS 29.244 §7.5.3.1), or with
//! the Cause the spec gives for it.

use core::net::{IpAddr, Ipv4Addr, Ipv6Addr};

use super::rules::{DownlinkRule, QerRule, SessionRules, Tunnel, UplinkRule};
use crate::ie::{
    ApplyAction, BitRate, Cause, CreateFar, CreatePdr, CreateQer, CreateUrr, CreatedPdr,
    DestinationInterface, DnsName, FailedRuleId, FlowDescription, Fseid, Fteid, GateStatus, IeType,
    OuterHeaderCreation, Pdi, SdfFilter, SourceInterface, UeIpAddress, UpdateFar, UpdatePdr,
    UpdateQer, UpdateUrr,
};
use crate::message::SessionModificationRequest;
use crate::plan::UeIpv6Prefix;
use crate::types::{FarId, PdrId, Precedence, QerId, Qfi, Seid, Teid, UrrId};

/// Why a request cannot be honoured: the Cause, the Offending IE and the Failed Rule ID to
/// answer with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Rejection {
    pub(crate) cause: Cause,
    pub(crate) offending_ie: Option<IeType>,
    pub(crate) failed_rule: Option<FailedRuleId>,
}

impl Rejection {
    pub(crate) fn new(cause: Cause, offending_ie: Option<IeType>) -> Self {
        Rejection {
            cause,
            offending_ie,
            failed_rule: None,
        }
    }

    fn rule(rule: FailedRuleId, offending_ie: IeType) -> Self {
        Rejection {
            cause: Cause::RULE_CREATION_MODIFICATION_FAILURE,
            offending_ie: Some(offending_ie),
            failed_rule: Some(rule),
        }
    }

    fn conditional(rule: FailedRuleId, missing: IeType) -> Self {
        Rejection {
            cause: Cause::CONDITIONAL_IE_MISSING,
            offending_ie: Some(missing),
            failed_rule: Some(rule),
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
struct Pdr {
    id: PdrId,
    precedence: Precedence,
    source: SourceInterface,
    f_teid: Option<Fteid>,
    ue: Option<UeIpAddress>,
    qfi: Option<Qfi>,
    sdf_filters: Vec<SdfFilter>,
    network_instance: Option<DnsName>,
    far: Option<FarId>,
    qers: Vec<QerId>,
    urrs: Vec<UrrId>,
    remove_outer_header: bool,
}

impl Pdr {
    fn set_pdi(&mut self, pdi: &Pdi) {
        self.source = pdi.source_interface;
        self.f_teid = pdi.local_f_teid;
        self.ue = pdi.ue_ip_address;
        self.qfi = pdi.qfi;
        self.sdf_filters.clone_from(&pdi.sdf_filters);
        self.network_instance.clone_from(&pdi.network_instance);
    }

    /// The uplink F-TEID when it is settled (assigned, with an address: its IPv4 one when it
    /// gives both).
    fn uplink_endpoint(&self) -> Option<(Teid, IpAddr)> {
        match self.f_teid? {
            Fteid::Assigned {
                teid,
                ipv4: Some(a),
                ..
            } => Some((teid, a.into())),
            Fteid::Assigned {
                teid,
                ipv6: Some(a),
                ..
            } => Some((teid, a.into())),
            _ => None,
        }
    }

    /// Whether the F-TEID is assigned with an address of `n3`'s family (ours, which a G-PDU
    /// reaches us at).
    fn f_teid_in_family_of(&self, n3: IpAddr) -> bool {
        match self.f_teid {
            Some(Fteid::Assigned { ipv4, ipv6, .. }) => match n3 {
                IpAddr::V4(_) => ipv4.is_some(),
                IpAddr::V6(_) => ipv6.is_some(),
            },
            _ => false,
        }
    }

    /// The UE the PDI names as destination: its IPv4 address, its IPv6 prefix (host bits
    /// cleared), or both; None when it names neither, or a prefix longer than 128 bits.
    fn downlink_ue(&self) -> Option<(Option<Ipv4Addr>, Option<UeIpv6Prefix>)> {
        let u = self.ue.filter(|u| u.is_destination)?;
        let v6 = match (u.ipv6, u.ipv6_prefix_len()) {
            (Some(a), Some(len)) if len <= 128 => Some(UeIpv6Prefix {
                prefix: masked(a, len),
                len,
            }),
            (Some(_), _) => return None,
            (None, _) => None,
        };
        (u.ipv4.is_some() || v6.is_some()).then_some((u.ipv4, v6))
    }

    /// The SDF filters' Flow Descriptions parsed (a filter without one, e.g. a bare SPI, is
    /// left out), or None when one does not parse.
    fn flows(&self) -> Option<Vec<FlowDescription>> {
        self.sdf_filters
            .iter()
            .filter_map(SdfFilter::parse_flow)
            .collect::<Result<_, _>>()
            .ok()
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
struct Far {
    id: FarId,
    action: ApplyAction,
    destination: Option<DestinationInterface>,
    outer_header_creation: Option<OuterHeaderCreation>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Qer {
    id: QerId,
    qfi: Option<Qfi>,
    gate: GateStatus,
    mbr: Option<BitRate>,
    gbr: Option<BitRate>,
}

/// The rules of one session.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct RuleSet {
    pdrs: Vec<Pdr>,
    fars: Vec<Far>,
    qers: Vec<Qer>,
    urrs: Vec<UrrId>,
}

/// A kind of rule a session keeps, found by its ID; a missing or repeated one is refused with
/// Cause 73 and its Failed Rule ID.
trait Rule {
    type Id: Copy + PartialEq;
    fn id(&self) -> Self::Id;
    fn failed(id: Self::Id) -> FailedRuleId;
}

macro_rules! rule {
    ($t:ty, $id:ty, |$s:ident| $get:expr, $failed:path) => {
        impl Rule for $t {
            type Id = $id;
            fn id(&self) -> $id {
                let $s = self;
                $get
            }
            fn failed(id: $id) -> FailedRuleId {
                $failed(id)
            }
        }
    };
}

rule!(Pdr, PdrId, |p| p.id, FailedRuleId::Pdr);
rule!(Far, FarId, |f| f.id, FailedRuleId::Far);
rule!(Qer, QerId, |q| q.id, FailedRuleId::Qer);
rule!(UrrId, UrrId, |u| *u, FailedRuleId::Urr);

/// Where the rule with `id` is, or the rejection naming it in the IE `ie`.
fn index<R: Rule>(rules: &[R], id: R::Id, ie: IeType) -> Result<usize, Rejection> {
    rules
        .iter()
        .position(|r| r.id() == id)
        .ok_or(Rejection::rule(R::failed(id), ie))
}

/// Refuses a second rule with `id` (created in the IE `ie`).
fn absent<R: Rule>(rules: &[R], id: R::Id, ie: IeType) -> Result<(), Rejection> {
    match index(rules, id, ie) {
        Ok(_) => Err(Rejection::rule(R::failed(id), ie)),
        Err(_) => Ok(()),
    }
}

/// Removes the rule with `id` (named in the IE `ie`).
fn remove<R: Rule>(rules: &mut Vec<R>, id: R::Id, ie: IeType) -> Result<(), Rejection> {
    rules.remove(index(rules, id, ie)?);
    Ok(())
}

impl RuleSet {
    fn far(&self, id: FarId) -> Option<&Far> {
        self.fars.iter().find(|f| f.id == id)
    }

    fn qer(&self, id: QerId) -> Option<&Qer> {
        self.qers.iter().find(|q| q.id == id)
    }

    pub(crate) fn create_pdr(&mut self, c: &CreatePdr) -> Result<(), Rejection> {
        absent(&self.pdrs, c.pdr_id, IeType::CREATE_PDR)?;
        let mut p = Pdr {
            id: c.pdr_id,
            precedence: c.precedence,
            source: c.pdi.source_interface,
            f_teid: None,
            ue: None,
            qfi: None,
            sdf_filters: Vec::new(),
            network_instance: None,
            far: c.far_id,
            qers: c.qer_ids.clone(),
            urrs: c.urr_ids.clone(),
            remove_outer_header: c.outer_header_removal.is_some(),
        };
        p.set_pdi(&c.pdi);
        self.pdrs.push(p);
        Ok(())
    }

    pub(crate) fn create_far(&mut self, c: &CreateFar) -> Result<(), Rejection> {
        absent(&self.fars, c.far_id, IeType::CREATE_FAR)?;
        let fp = c.forwarding_parameters.as_ref();
        self.fars.push(Far {
            id: c.far_id,
            action: c.apply_action,
            destination: fp.map(|f| f.destination_interface),
            outer_header_creation: fp.and_then(|f| f.outer_header_creation),
        });
        Ok(())
    }

    pub(crate) fn create_qer(&mut self, c: &CreateQer) -> Result<(), Rejection> {
        absent(&self.qers, c.qer_id, IeType::CREATE_QER)?;
        self.qers.push(Qer {
            id: c.qer_id,
            qfi: c.qfi,
            gate: c.gate_status,
            mbr: c.mbr,
            gbr: c.gbr,
        });
        Ok(())
    }

    pub(crate) fn create_urr(&mut self, c: &CreateUrr) -> Result<(), Rejection> {
        absent(&self.urrs, c.urr_id, IeType::CREATE_URR)?;
        self.urrs.push(c.urr_id);
        Ok(())
    }

    fn update_pdr(&mut self, u: &UpdatePdr) -> Result<(), Rejection> {
        let i = index(&self.pdrs, u.pdr_id, IeType::UPDATE_PDR)?;
        let p = &mut self.pdrs[i];
        if let Some(pdi) = &u.pdi {
            p.set_pdi(pdi);
        }
        if let Some(precedence) = u.precedence {
            p.precedence = precedence;
        }
        if u.outer_header_removal.is_some() {
            p.remove_outer_header = true;
        }
        if u.far_id.is_some() {
            p.far = u.far_id;
        }
        if !u.qer_ids.is_empty() {
            p.qers.clone_from(&u.qer_ids);
        }
        if !u.urr_ids.is_empty() {
            p.urrs.clone_from(&u.urr_ids);
        }
        Ok(())
    }

    fn update_far(&mut self, u: &UpdateFar) -> Result<(), Rejection> {
        let i = index(&self.fars, u.far_id, IeType::UPDATE_FAR)?;
        let f = &mut self.fars[i];
        if let Some(a) = u.apply_action {
            f.action = a;
        }
        if let Some(fp) = &u.update_forwarding_parameters {
            if fp.destination_interface.is_some() {
                f.destination = fp.destination_interface;
            }
            if fp.outer_header_creation.is_some() {
                f.outer_header_creation = fp.outer_header_creation;
            }
        }
        Ok(())
    }

    fn update_qer(&mut self, u: &UpdateQer) -> Result<(), Rejection> {
        let i = index(&self.qers, u.qer_id, IeType::UPDATE_QER)?;
        let q = &mut self.qers[i];
        if u.qfi.is_some() {
            q.qfi = u.qfi;
        }
        if let Some(g) = u.gate_status {
            q.gate = g;
        }
        if u.mbr.is_some() {
            q.mbr = u.mbr;
        }
        if u.gbr.is_some() {
            q.gbr = u.gbr;
        }
        Ok(())
    }

    fn update_urr(&mut self, u: &UpdateUrr) -> Result<(), Rejection> {
        index(&self.urrs, u.urr_id, IeType::UPDATE_URR).map(|_| ())
    }

    /// Applies a Session Modification Request's removals, creations and updates, in that order.
    pub(crate) fn modify(&mut self, r: &SessionModificationRequest) -> Result<(), Rejection> {
        for x in &r.remove_pdrs {
            remove(&mut self.pdrs, x.pdr_id, IeType::REMOVE_PDR)?;
        }
        for x in &r.remove_fars {
            remove(&mut self.fars, x.far_id, IeType::REMOVE_FAR)?;
        }
        for x in &r.remove_qers {
            remove(&mut self.qers, x.qer_id, IeType::REMOVE_QER)?;
        }
        for x in &r.remove_urrs {
            remove(&mut self.urrs, x.urr_id, IeType::REMOVE_URR)?;
        }
        r.create_fars.iter().try_for_each(|c| self.create_far(c))?;
        r.create_qers.iter().try_for_each(|c| self.create_qer(c))?;
        r.create_urrs.iter().try_for_each(|c| self.create_urr(c))?;
        r.create_pdrs.iter().try_for_each(|c| self.create_pdr(c))?;
        r.update_pdrs.iter().try_for_each(|u| self.update_pdr(u))?;
        r.update_fars.iter().try_for_each(|u| self.update_far(u))?;
        r.update_qers.iter().try_for_each(|u| self.update_qer(u))?;
        r.update_urrs.iter().try_for_each(|u| self.update_urr(u))
    }

    /// Gives every F-TEID with CH=1 a TEID from `allocate` at our N3 address, of its family
    /// (PDRs with the same CHOOSE ID share one); returns the Created PDRs to report. A CHOOSE
    /// that does not ask for our N3 address's family (V4 on an IPv4 N3, V6 on an IPv6 one) is
    /// refused: Cause 'Invalid F-TEID allocation option'.
    pub(crate) fn choose_f_teids(
        &mut self,
        n3: IpAddr,
        mut allocate: impl FnMut(&dyn Fn(Teid) -> bool) -> Teid,
    ) -> Result<Vec<CreatedPdr>, Rejection> {
        let mut created = Vec::new();
        let mut chosen: Vec<(u8, Fteid)> = Vec::new();
        for i in 0..self.pdrs.len() {
            let Some(Fteid::Choose {
                ipv4,
                ipv6,
                choose_id,
            }) = self.pdrs[i].f_teid
            else {
                continue;
            };
            if !(if n3.is_ipv4() { ipv4 } else { ipv6 }) {
                // Only endpoints of our N3 address's family are allocated here.
                let mut r = Rejection::new(
                    Cause::INVALID_F_TEID_ALLOCATION_OPTION,
                    Some(IeType::F_TEID),
                );
                r.failed_rule = Some(FailedRuleId::Pdr(self.pdrs[i].id));
                return Err(r);
            }
            let shared = choose_id.and_then(|c| chosen.iter().find(|(id, _)| *id == c));
            let f = match shared {
                Some(&(_, f)) => f,
                None => {
                    let pdrs = &self.pdrs;
                    let in_use = |t: Teid| {
                        pdrs.iter()
                            .any(|p| p.uplink_endpoint().map(|e| e.0) == Some(t))
                    };
                    let f = Fteid::assigned(allocate(&in_use), n3);
                    if let Some(c) = choose_id {
                        chosen.push((c, f));
                    }
                    f
                }
            };
            self.pdrs[i].f_teid = Some(f);
            created.push(CreatedPdr::new(self.pdrs[i].id, Some(f)));
        }
        Ok(created)
    }

    /// Checks that every rule can be honoured, that its PDRs' network instances are among
    /// `served` (any when empty), and that its TEIDs and UE addresses belong to no other
    /// session: `teid_owner`, `ue_owner` and `prefix_owner` name the session that holds one in
    /// the rules table, if any (`own` is this session's UP SEID when it is already there), and
    /// that every uplink F-TEID and every Outer Header Creation has an address of our N3
    /// address `n3`'s family.
    pub(crate) fn validate(
        &self,
        (own, n3): (Option<Seid>, IpAddr),
        teid_owner: impl Fn(Teid) -> Option<Seid>,
        ue_owner: impl Fn(Ipv4Addr) -> Option<Seid>,
        prefix_owner: impl Fn(UeIpv6Prefix) -> Option<Seid>,
        served: &[DnsName],
    ) -> Result<(), Rejection> {
        let foreign = |owner: Option<Seid>| owner.is_some_and(|o| Some(o) != own);
        for p in &self.pdrs {
            let rule = FailedRuleId::Pdr(p.id);
            if let Some(ni) = &p.network_instance
                && !served.is_empty()
                && !served.iter().any(|s| same_name(s, ni))
            {
                return Err(Rejection::rule(rule, IeType::NETWORK_INSTANCE));
            }
            let Some(far) = p.far else {
                return Err(Rejection::conditional(rule, IeType::FAR_ID));
            };
            if self.far(far).is_none() {
                return Err(Rejection::rule(rule, IeType::FAR_ID));
            }
            if p.qers.iter().any(|q| self.qer(*q).is_none()) {
                return Err(Rejection::rule(rule, IeType::QER_ID));
            }
            if p.urrs.iter().any(|u| !self.urrs.contains(u)) {
                return Err(Rejection::rule(rule, IeType::URR_ID));
            }
            if p.flows().is_none() {
                return Err(Rejection::rule(rule, IeType::SDF_FILTER));
            }
            match p.source {
                SourceInterface::ACCESS => {
                    let Some((teid, _)) = p.uplink_endpoint() else {
                        return Err(Rejection::rule(rule, IeType::F_TEID));
                    };
                    if !p.f_teid_in_family_of(n3) {
                        return Err(Rejection::rule(rule, IeType::F_TEID));
                    }
                    if foreign(teid_owner(teid)) {
                        return Err(Rejection::rule(rule, IeType::F_TEID));
                    }
                }
                SourceInterface::CORE => {
                    let Some((v4, v6)) = p.downlink_ue() else {
                        return Err(Rejection::rule(rule, IeType::UE_IP_ADDRESS));
                    };
                    if foreign(v4.and_then(&ue_owner)) || foreign(v6.and_then(&prefix_owner)) {
                        return Err(Rejection::rule(rule, IeType::UE_IP_ADDRESS));
                    }
                }
                _ => return Err(Rejection::rule(rule, IeType::SOURCE_INTERFACE)),
            }
        }
        for f in &self.fars {
            let rule = FailedRuleId::Far(f.id);
            if f.action.contains(ApplyAction::FORW) && f.destination.is_none() {
                return Err(Rejection::conditional(rule, IeType::FORWARDING_PARAMETERS));
            }
            // A tunnel of the other family than our N3 address's cannot leave by it.
            if let Some(ohc) = f.outer_header_creation
                && tunnel(&ohc).is_none_or(|t| t.address.is_ipv6() != n3.is_ipv6())
            {
                return Err(Rejection::rule(rule, IeType::OUTER_HEADER_CREATION));
            }
        }
        Ok(())
    }

    /// The datapath's view of the rules.
    pub(crate) fn view(&self, up_seid: Seid, cp_f_seid: Fseid) -> SessionRules {
        let mut uplink = Vec::new();
        let mut downlink = Vec::new();
        for p in &self.pdrs {
            let far = p.far.and_then(|id| self.far(id));
            let forward = far.is_some_and(|f| f.action.contains(ApplyAction::FORW));
            if p.source == SourceInterface::ACCESS {
                if let Some((teid, address)) = p.uplink_endpoint() {
                    uplink.push(UplinkRule {
                        up_seid,
                        pdr_id: p.id,
                        precedence: p.precedence,
                        teid,
                        address,
                        ue_address: p.ue.and_then(|u| u.ipv4),
                        qfi: p.qfi,
                        sdf_filters: p.flows().unwrap_or_default(),
                        qer: p.qers.first().copied(),
                        remove_outer_header: p.remove_outer_header,
                        forward,
                    });
                }
            } else if let Some((ue_address, ue_prefix)) = p.downlink_ue() {
                downlink.push(DownlinkRule {
                    up_seid,
                    pdr_id: p.id,
                    precedence: p.precedence,
                    ue_address,
                    ue_prefix,
                    sdf_filters: p.flows().unwrap_or_default(),
                    tunnel: far
                        .and_then(|f| f.outer_header_creation)
                        .and_then(|o| tunnel(&o)),
                    qfi: p.qers.iter().find_map(|q| self.qer(*q).and_then(|q| q.qfi)),
                    qer: p.qers.first().copied(),
                    forward,
                });
            }
        }
        let qers = self
            .qers
            .iter()
            .map(|q| QerRule {
                qer_id: q.id,
                qfi: q.qfi,
                gate: q.gate,
                mbr: q.mbr,
                gbr: q.gbr,
            })
            .collect();
        SessionRules {
            up_seid,
            cp_f_seid,
            uplink,
            downlink,
            qers,
        }
    }
}

/// `a` with the bits past the first `len` cleared.
fn masked(a: Ipv6Addr, len: u8) -> Ipv6Addr {
    let mask = u128::MAX.checked_shl(128 - u32::from(len)).unwrap_or(0);
    Ipv6Addr::from_bits(a.to_bits() & mask)
}

/// DNS names compare without regard to ASCII case (RFC 4343).
fn same_name(a: &DnsName, b: &DnsName) -> bool {
    a.0.eq_ignore_ascii_case(&b.0)
}

/// The GTP-U/UDP/IPv4 or GTP-U/UDP/IPv6 tunnel an Outer Header Creation asks for, if that is
/// what it asks for (with the address of its family).
fn tunnel(o: &OuterHeaderCreation) -> Option<Tunnel> {
    const TRANSPORT: u16 = 0xff00;
    let address = match o.description & TRANSPORT {
        OuterHeaderCreation::GTPU_UDP_IPV4 => IpAddr::V4(o.ipv4?),
        OuterHeaderCreation::GTPU_UDP_IPV6 => IpAddr::V6(o.ipv6?),
        _ => return None,
    };
    Some(Tunnel {
        teid: o.teid?,
        address,
    })
}
