//! What tshark reads in the messages the codec emits: the fields compared, the values each
//! message should show in them, and the check that dissects a batch of messages (no malformed
//! packet, no expert warning, no octet left undecoded, every field equal).

use std::collections::BTreeMap;

use super::pcap;
use upfbench_pfcp::ie::*;
use upfbench_pfcp::message::*;
use upfbench_pfcp::{Message, MessageBody, UrrId};

/// The fields compared, in the order of `tshark -e`.
pub const FIELDS: &[&str] = &[
    "pfcp.msg_type",
    "pfcp.seqno",
    "pfcp.seid",
    "pfcp.node_id_ipv4",
    "pfcp.node_id_ipv6",
    "pfcp.f_seid.ipv4",
    "pfcp.f_seid.ipv6",
    "pfcp.cause",
    "pfcp.offending_ie",
    "pfcp.pdr_id",
    "pfcp.precedence",
    "pfcp.source_interface",
    "pfcp.f_teid.teid",
    "pfcp.f_teid_flags.ch",
    "pfcp.f_teid.ipv4_addr",
    "pfcp.f_teid.ipv6_addr",
    "pfcp.f_teid.choose_id",
    "pfcp.network_instance",
    "pfcp.ue_ip_address_flag.sd",
    "pfcp.ue_ip_address_flag.chv4",
    "pfcp.ue_ip_address_flag.chv6",
    "pfcp.ue_ip_addr_ipv4",
    "pfcp.ue_ip_addr_ipv6",
    "pfcp.ue_ip_addr_ipv6_prefix",
    "pfcp.ue_ip_addr_ipv6_prefix_length",
    "pfcp.flow_desc",
    "pfcp.qfi_value",
    "pfcp.tgpp_interface_type",
    "pfcp.far_id",
    "pfcp.out_hdr_desc",
    "pfcp.urr_id",
    "pfcp.qer_id",
    "pfcp.dst_interface",
    "pfcp.outer_hdr_desc",
    "pfcp.outer_hdr_creation.teid",
    "pfcp.outer_hdr_creation.ipv4",
    "pfcp.outer_hdr_creation.ipv6",
    "pfcp.outer_hdr_creation.port",
    "pfcp.qer_correlation_id",
    "pfcp.gate_status.ulgate",
    "pfcp.gate_status.dlgate",
    "pfcp.ul_mbr",
    "pfcp.dl_mbr",
    "pfcp.ul_gbr",
    "pfcp.dl_gbr",
    "pfcp.rqi_flag",
    "pfcp.ppi",
    "pfcp.pdn_type",
    "pfcp.apn_dnn",
    "pfcp.failed_rule_id_type",
    "pfcp.bar_id",
    "pfcp.srr_id_value",
    "pfcp.mar_id",
    "pfcp.smreq_flags.sndem",
];

/// Values we put into a message, per tshark field, in wire order.
#[derive(Default, Debug)]
pub struct Expect(BTreeMap<&'static str, Vec<String>>);

impl Expect {
    fn put(&mut self, f: &'static str, v: impl ToString) {
        assert!(FIELDS.contains(&f), "{f} is not compared");
        self.0.entry(f).or_default().push(v.to_string());
    }

    fn row(&self) -> Vec<String> {
        FIELDS
            .iter()
            .map(|f| self.0.get(f).map(|v| v.join(",")).unwrap_or_default())
            .collect()
    }

    fn node_id(&mut self, n: &NodeId) {
        match n {
            NodeId::Ipv4(a) => self.put("pfcp.node_id_ipv4", a),
            NodeId::Ipv6(a) => self.put("pfcp.node_id_ipv6", a),
            NodeId::Fqdn(_) => {}
        }
    }

    fn fseid(&mut self, f: &Fseid) {
        self.put("pfcp.seid", format!("{:#018x}", f.seid.0));
        if let Some(a) = f.ipv4 {
            self.put("pfcp.f_seid.ipv4", a);
        }
        if let Some(a) = f.ipv6 {
            self.put("pfcp.f_seid.ipv6", a);
        }
    }

    fn fteid(&mut self, f: &Fteid) {
        match *f {
            Fteid::Assigned { teid, ipv4, ipv6 } => {
                self.put("pfcp.f_teid_flags.ch", 0);
                self.put("pfcp.f_teid.teid", format!("{:#010x}", teid.0));
                if let Some(a) = ipv4 {
                    self.put("pfcp.f_teid.ipv4_addr", a);
                }
                if let Some(a) = ipv6 {
                    self.put("pfcp.f_teid.ipv6_addr", a);
                }
            }
            Fteid::Choose { choose_id, .. } => {
                self.put("pfcp.f_teid_flags.ch", 1);
                if let Some(id) = choose_id {
                    self.put("pfcp.f_teid.choose_id", format!("{id:02x}"));
                }
            }
        }
    }

    fn ue(&mut self, u: &UeIpAddress) {
        self.put("pfcp.ue_ip_address_flag.sd", u8::from(u.is_destination));
        self.put("pfcp.ue_ip_address_flag.chv4", u8::from(u.choose_ipv4));
        self.put("pfcp.ue_ip_address_flag.chv6", u8::from(u.choose_ipv6));
        if let Some(a) = u.ipv4 {
            self.put("pfcp.ue_ip_addr_ipv4", a);
        }
        if let Some(a) = u.ipv6 {
            self.put("pfcp.ue_ip_addr_ipv6", a);
        }
        if let Some(b) = u.ipv6_prefix_delegation_bits {
            self.put("pfcp.ue_ip_addr_ipv6_prefix", b);
        }
        if let Some(l) = u.ipv6_prefix_length {
            self.put("pfcp.ue_ip_addr_ipv6_prefix_length", l);
        }
    }

    fn rule_id(&mut self, f: &'static str, id: u32) {
        // Bit 32 flags a predefined rule; tshark shows the rest.
        self.put(f, id & 0x7fff_ffff);
    }

    fn pdi(&mut self, p: &Pdi) {
        self.put("pfcp.source_interface", p.source_interface.get());
        if let Some(f) = &p.local_f_teid {
            self.fteid(f);
        }
        if let Some(n) = &p.network_instance {
            self.put("pfcp.network_instance", n);
        }
        if let Some(u) = &p.ue_ip_address {
            self.ue(u);
        }
        for f in &p.sdf_filters {
            if let Some(d) = &f.flow_description {
                self.put("pfcp.flow_desc", String::from_utf8(d.clone()).unwrap());
            }
        }
        if let Some(q) = p.qfi {
            self.put("pfcp.qfi_value", format!("{:#04x}", q.get()));
        }
        if let Some(t) = p.source_interface_type {
            self.put("pfcp.tgpp_interface_type", t.get());
        }
    }

    fn pdr_tail(
        &mut self,
        far: Option<upfbench_pfcp::FarId>,
        ohr: Option<OuterHeaderRemoval>,
        urrs: &[UrrId],
        qers: &[upfbench_pfcp::QerId],
    ) {
        if let Some(f) = far {
            self.rule_id("pfcp.far_id", f.0);
        }
        if let Some(o) = ohr {
            self.put("pfcp.out_hdr_desc", o.description);
        }
        for u in urrs {
            self.rule_id("pfcp.urr_id", u.0);
        }
        for q in qers {
            self.rule_id("pfcp.qer_id", q.0);
        }
    }

    fn create_pdr(&mut self, p: &CreatePdr) {
        self.put("pfcp.pdr_id", p.pdr_id.0);
        self.put("pfcp.precedence", p.precedence.0);
        self.pdi(&p.pdi);
        self.pdr_tail(p.far_id, p.outer_header_removal, &p.urr_ids, &p.qer_ids);
    }

    fn update_pdr(&mut self, p: &UpdatePdr) {
        self.put("pfcp.pdr_id", p.pdr_id.0);
        if let Some(o) = p.outer_header_removal {
            self.put("pfcp.out_hdr_desc", o.description);
        }
        if let Some(x) = p.precedence {
            self.put("pfcp.precedence", x.0);
        }
        if let Some(pdi) = &p.pdi {
            self.pdi(pdi);
        }
        self.pdr_tail(p.far_id, None, &p.urr_ids, &p.qer_ids);
    }

    fn created_pdr(&mut self, c: &CreatedPdr) {
        self.put("pfcp.pdr_id", c.pdr_id.0);
        if let Some(f) = &c.local_f_teid {
            self.fteid(f);
        }
        if let Some(u) = &c.ue_ip_address {
            self.ue(u);
        }
    }

    fn forwarding(
        &mut self,
        di: Option<DestinationInterface>,
        ni: Option<&DnsName>,
        ohc: Option<&OuterHeaderCreation>,
        it: Option<InterfaceType>,
    ) {
        if let Some(d) = di {
            self.put("pfcp.dst_interface", d.get());
        }
        if let Some(n) = ni {
            self.put("pfcp.network_instance", n);
        }
        if let Some(o) = ohc {
            self.put("pfcp.outer_hdr_desc", o.description);
            if let Some(t) = o.teid {
                self.put("pfcp.outer_hdr_creation.teid", format!("{:#010x}", t.0));
            }
            if let Some(a) = o.ipv4 {
                self.put("pfcp.outer_hdr_creation.ipv4", a);
            }
            if let Some(a) = o.ipv6 {
                self.put("pfcp.outer_hdr_creation.ipv6", a);
            }
            if let Some(p) = o.port {
                self.put("pfcp.outer_hdr_creation.port", p);
            }
        }
        if let Some(t) = it {
            self.put("pfcp.tgpp_interface_type", t.get());
        }
    }

    fn create_far(&mut self, f: &CreateFar) {
        self.rule_id("pfcp.far_id", f.far_id.0);
        if let Some(p) = &f.forwarding_parameters {
            self.forwarding(
                Some(p.destination_interface),
                p.network_instance.as_ref(),
                p.outer_header_creation.as_ref(),
                p.destination_interface_type,
            );
        }
    }

    fn update_far(&mut self, f: &UpdateFar) {
        self.rule_id("pfcp.far_id", f.far_id.0);
        if let Some(p) = &f.update_forwarding_parameters {
            self.forwarding(
                p.destination_interface,
                p.network_instance.as_ref(),
                p.outer_header_creation.as_ref(),
                p.destination_interface_type,
            );
            if let Some(flags) = p.pfcpsm_req_flags {
                let sndem = flags.contains(PfcpsmReqFlags::SNDEM);
                self.put("pfcp.smreq_flags.sndem", u8::from(sndem));
            }
        }
    }

    fn qer(&mut self, q: &UpdateQer) {
        self.rule_id("pfcp.qer_id", q.qer_id.0);
        if let Some(c) = q.qer_correlation_id {
            self.put("pfcp.qer_correlation_id", c.0);
        }
        if let Some(g) = q.gate_status {
            self.put("pfcp.gate_status.ulgate", g.ul.get());
            self.put("pfcp.gate_status.dlgate", g.dl.get());
        }
        if let Some(b) = q.mbr {
            self.put("pfcp.ul_mbr", b.ul_kbps);
            self.put("pfcp.dl_mbr", b.dl_kbps);
        }
        if let Some(b) = q.gbr {
            self.put("pfcp.ul_gbr", b.ul_kbps);
            self.put("pfcp.dl_gbr", b.dl_kbps);
        }
        if let Some(q) = q.qfi {
            self.put("pfcp.qfi_value", format!("{:#04x}", q.get()));
        }
        if let Some(r) = q.rqi {
            self.put("pfcp.rqi_flag", u8::from(r.0));
        }
        if let Some(p) = q.paging_policy_indicator {
            self.put("pfcp.ppi", p.get());
        }
    }

    /// A Create QER: the same fields as an Update QER with every mandatory one present.
    fn create_qer(&mut self, q: &CreateQer) {
        self.qer(&UpdateQer {
            qer_id: q.qer_id,
            qer_correlation_id: q.qer_correlation_id,
            gate_status: Some(q.gate_status),
            mbr: q.mbr,
            gbr: q.gbr,
            qfi: q.qfi,
            rqi: q.rqi,
            paging_policy_indicator: q.paging_policy_indicator,
            other_ies: Vec::new(),
        });
    }

    fn usage_reports(&mut self, urs: &[UsageReport]) {
        for u in urs {
            self.rule_id("pfcp.urr_id", u.urr_id.0);
        }
    }

    fn cause(&mut self, c: Cause, off: Option<OffendingIe>) {
        self.put("pfcp.cause", c.0);
        if let Some(o) = off {
            self.put("pfcp.offending_ie", o.0.0);
        }
    }

    fn failed_rule(&mut self, f: Option<FailedRuleId>) {
        let Some(f) = f else { return };
        let t = match f {
            FailedRuleId::Pdr(id) => {
                self.put("pfcp.pdr_id", id.0);
                0
            }
            FailedRuleId::Far(id) => {
                self.rule_id("pfcp.far_id", id.0);
                1
            }
            FailedRuleId::Qer(id) => {
                self.rule_id("pfcp.qer_id", id.0);
                2
            }
            FailedRuleId::Urr(id) => {
                self.rule_id("pfcp.urr_id", id.0);
                3
            }
            FailedRuleId::Bar(id) => {
                self.put("pfcp.bar_id", id);
                4
            }
            FailedRuleId::Mar(id) => {
                self.put("pfcp.mar_id", id);
                5
            }
            FailedRuleId::Srr(id) => {
                self.put("pfcp.srr_id_value", id);
                6
            }
        };
        self.put("pfcp.failed_rule_id_type", t);
    }

    fn establishment_request(&mut self, b: &SessionEstablishmentRequest) {
        self.node_id(&b.node_id);
        self.fseid(&b.cp_f_seid);
        b.create_pdrs.iter().for_each(|p| self.create_pdr(p));
        b.create_fars.iter().for_each(|f| self.create_far(f));
        for u in &b.create_urrs {
            self.rule_id("pfcp.urr_id", u.urr_id.0);
        }
        if let Some(p) = b.pdn_type {
            self.put("pfcp.pdn_type", p.get());
        }
        if let Some(d) = &b.apn_dnn {
            self.put("pfcp.apn_dnn", d);
        }
        b.create_qers.iter().for_each(|q| self.create_qer(q));
    }

    fn modification_request(&mut self, b: &SessionModificationRequest) {
        if let Some(f) = &b.cp_f_seid {
            self.fseid(f);
        }
        for r in &b.remove_pdrs {
            self.put("pfcp.pdr_id", r.pdr_id.0);
        }
        for r in &b.remove_fars {
            self.rule_id("pfcp.far_id", r.far_id.0);
        }
        for r in &b.remove_urrs {
            self.rule_id("pfcp.urr_id", r.urr_id.0);
        }
        for r in &b.remove_qers {
            self.rule_id("pfcp.qer_id", r.qer_id.0);
        }
        b.create_pdrs.iter().for_each(|p| self.create_pdr(p));
        b.create_fars.iter().for_each(|f| self.create_far(f));
        for u in &b.create_urrs {
            self.rule_id("pfcp.urr_id", u.urr_id.0);
        }
        b.create_qers.iter().for_each(|q| self.create_qer(q));
        b.update_pdrs.iter().for_each(|p| self.update_pdr(p));
        b.update_fars.iter().for_each(|f| self.update_far(f));
        for u in &b.update_urrs {
            self.rule_id("pfcp.urr_id", u.urr_id.0);
        }
        b.update_qers.iter().for_each(|q| self.qer(q));
        if let Some(n) = &b.node_id {
            self.node_id(n);
        }
    }

    pub fn message(m: &Message) -> Expect {
        let mut e = Expect::default();
        e.put("pfcp.msg_type", m.message_type().0);
        e.put("pfcp.seqno", m.sequence.get());
        if let Some(s) = m.seid {
            e.put("pfcp.seid", format!("{:#018x}", s.0));
        }
        match &m.body {
            MessageBody::HeartbeatRequest(_)
            | MessageBody::HeartbeatResponse(_)
            | MessageBody::VersionNotSupportedResponse(_)
            | MessageBody::SessionDeletionRequest(_) => {}
            MessageBody::AssociationSetupRequest(b) => e.node_id(&b.node_id),
            MessageBody::AssociationUpdateRequest(b) => e.node_id(&b.node_id),
            MessageBody::AssociationReleaseRequest(b) => e.node_id(&b.node_id),
            MessageBody::AssociationSetupResponse(b) => {
                e.node_id(&b.node_id);
                e.cause(b.cause, None);
            }
            MessageBody::AssociationUpdateResponse(b) => {
                e.node_id(&b.node_id);
                e.cause(b.cause, None);
            }
            MessageBody::AssociationReleaseResponse(b) => {
                e.node_id(&b.node_id);
                e.cause(b.cause, None);
            }
            MessageBody::SessionEstablishmentRequest(b) => e.establishment_request(b),
            MessageBody::SessionEstablishmentResponse(b) => {
                e.node_id(&b.node_id);
                e.cause(b.cause, b.offending_ie);
                if let Some(f) = &b.up_f_seid {
                    e.fseid(f);
                }
                b.created_pdrs.iter().for_each(|c| e.created_pdr(c));
                e.failed_rule(b.failed_rule_id);
            }
            MessageBody::SessionModificationRequest(b) => e.modification_request(b),
            MessageBody::SessionModificationResponse(b) => {
                e.cause(b.cause, b.offending_ie);
                b.created_pdrs.iter().for_each(|c| e.created_pdr(c));
                e.usage_reports(&b.usage_reports);
                e.failed_rule(b.failed_rule_id);
            }
            MessageBody::SessionDeletionResponse(b) => {
                e.cause(b.cause, b.offending_ie);
                e.usage_reports(&b.usage_reports);
            }
            MessageBody::SessionReportRequest(b) => e.usage_reports(&b.usage_reports),
            MessageBody::SessionReportResponse(b) => e.cause(b.cause, b.offending_ie),
        }
        e
    }
}

/// Writes the messages, one per frame, and checks tshark's dissection of each against them.
pub fn check(name: &str, messages: &[Message]) {
    let payloads: Vec<Vec<u8>> = messages.iter().map(|m| m.to_vec().unwrap()).collect();
    let path = pcap::temp_pcap(name);
    pcap::write_pcap(&path, &payloads);
    let verbose = pcap::assert_clean_dissection(&path, messages.len());
    let undecoded: Vec<String> = verbose
        .lines()
        .collect::<Vec<_>>()
        .windows(4)
        .filter(|w| w[3].contains("IE data not decoded"))
        .map(|w| w.join(" / "))
        .collect();
    assert!(
        undecoded.is_empty(),
        "we emitted octets tshark does not know: {undecoded:#?}"
    );
    let rows = pcap::fields(&path, FIELDS);
    assert_eq!(rows.len(), messages.len());
    for (i, (m, row)) in messages.iter().zip(&rows).enumerate() {
        let want = Expect::message(m).row();
        for ((f, w), g) in FIELDS.iter().zip(&want).zip(row) {
            assert_eq!(g, w, "frame {}: {f} differs for {m:?}", i + 1);
        }
    }
    std::fs::remove_file(&path).ok();
}
