//! Everything the codec emits in these tests is dissected by tshark: no malformed packet, no
//! expert warning or error, and the fields tshark decodes equal the values we encoded.
//! tshark must be installed (CI installs it); without it these tests fail, they do not skip.

mod common;

use std::collections::BTreeMap;
use std::net::Ipv4Addr;

use common::message_strategies as msgs;
use common::pcap;
use common::plans::reference_plan;
use common::vectors::{hex, vectors};
use proptest::strategy::{Strategy, ValueTree};
use proptest::test_runner::{Config, RngAlgorithm, TestRng, TestRunner};
use upfbench_pfcp::ie::*;
use upfbench_pfcp::message::*;
use upfbench_pfcp::plan::{QerPlan, UeSessionPlan, UplinkTeid, UrrPlan};
use upfbench_pfcp::{Message, MessageBody, PdrId, Qfi, Seid, SequenceNumber, Teid, UrrId};

/// The fields compared, in the order of `tshark -e`.
const FIELDS: &[&str] = &[
    "pfcp.msg_type",
    "pfcp.seqno",
    "pfcp.seid",
    "pfcp.node_id_ipv4",
    "pfcp.f_seid.ipv4",
    "pfcp.cause",
    "pfcp.offending_ie",
    "pfcp.pdr_id",
    "pfcp.precedence",
    "pfcp.source_interface",
    "pfcp.f_teid.teid",
    "pfcp.f_teid.ipv4_addr",
    "pfcp.network_instance",
    "pfcp.ue_ip_addr_ipv4",
    "pfcp.flow_desc",
    "pfcp.qfi_value",
    "pfcp.tgpp_interface_type",
    "pfcp.far_id",
    "pfcp.out_hdr_desc",
    "pfcp.urr_id",
    "pfcp.qer_id",
    "pfcp.dst_interface",
    "pfcp.outer_hdr_creation.teid",
    "pfcp.outer_hdr_creation.ipv4",
    "pfcp.ul_mbr",
    "pfcp.dl_mbr",
    "pfcp.ul_gbr",
    "pfcp.dl_gbr",
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
struct Expect(BTreeMap<&'static str, Vec<String>>);

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
        if let NodeId::Ipv4(a) = n {
            self.put("pfcp.node_id_ipv4", a);
        }
    }

    fn fseid(&mut self, f: &Fseid) {
        self.put("pfcp.seid", format!("{:#018x}", f.seid.0));
        if let Some(a) = f.ipv4 {
            self.put("pfcp.f_seid.ipv4", a);
        }
    }

    fn fteid(&mut self, f: &Fteid) {
        if let Fteid::Assigned { teid, ipv4, .. } = f {
            self.put("pfcp.f_teid.teid", format!("{:#010x}", teid.0));
            if let Some(a) = ipv4 {
                self.put("pfcp.f_teid.ipv4_addr", a);
            }
        }
    }

    fn ue(&mut self, u: &UeIpAddress) {
        if let Some(a) = u.ipv4 {
            self.put("pfcp.ue_ip_addr_ipv4", a);
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
            if let Some(t) = o.teid {
                self.put("pfcp.outer_hdr_creation.teid", format!("{:#010x}", t.0));
            }
            if let Some(a) = o.ipv4 {
                self.put("pfcp.outer_hdr_creation.ipv4", a);
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

    fn qer(&mut self, id: u32, mbr: Option<BitRate>, gbr: Option<BitRate>, qfi: Option<Qfi>) {
        self.rule_id("pfcp.qer_id", id);
        if let Some(b) = mbr {
            self.put("pfcp.ul_mbr", b.ul_kbps);
            self.put("pfcp.dl_mbr", b.dl_kbps);
        }
        if let Some(b) = gbr {
            self.put("pfcp.ul_gbr", b.ul_kbps);
            self.put("pfcp.dl_gbr", b.dl_kbps);
        }
        if let Some(q) = qfi {
            self.put("pfcp.qfi_value", format!("{:#04x}", q.get()));
        }
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
        for q in &b.create_qers {
            self.qer(q.qer_id.0, q.mbr, q.gbr, q.qfi);
        }
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
        for q in &b.create_qers {
            self.qer(q.qer_id.0, q.mbr, q.gbr, q.qfi);
        }
        b.update_pdrs.iter().for_each(|p| self.update_pdr(p));
        b.update_fars.iter().for_each(|f| self.update_far(f));
        for u in &b.update_urrs {
            self.rule_id("pfcp.urr_id", u.urr_id.0);
        }
        for q in &b.update_qers {
            self.qer(q.qer_id.0, q.mbr, q.gbr, q.qfi);
        }
        if let Some(n) = &b.node_id {
            self.node_id(n);
        }
    }

    fn message(m: &Message) -> Expect {
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
fn check(name: &str, messages: &[Message]) {
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

fn seq(n: u32) -> SequenceNumber {
    SequenceNumber::new(n).unwrap()
}

/// The reference UE with a QER (MBR, GBR) and a URR.
fn plan() -> UeSessionPlan {
    let mut p = reference_plan();
    let t = p.template_mut();
    t.qer = Some(QerPlan {
        qfi: Qfi::new(1).unwrap(),
        mbr: Some(BitRate {
            ul_kbps: 200_000_000,
            dl_kbps: 100_000,
        }),
        gbr: Some(BitRate {
            ul_kbps: 1_000,
            dl_kbps: 2_000,
        }),
    });
    t.urr = Some(UrrPlan {
        measurement_period_s: Some(10),
        volume_threshold_octets: Some(1 << 30),
    });
    p
}

/// The messages the codec builds in the tests and that the node will send or answer with.
fn built_messages() -> Vec<Message> {
    let p = plan();
    let upf = NodeId::Ipv4(Ipv4Addr::new(192, 168, 14, 151));
    let ts = NtpTimestamp::from_unix_secs(1_768_620_000);
    let mut chosen = p.clone();
    chosen.ue.uplink_teid = UplinkTeid::ChosenByUpf;
    chosen.template_mut().qer = None;
    chosen.template_mut().urr = None;
    chosen.template_mut().interface_types = false;
    let created = CreatedPdr::new(
        PdrId(2),
        Some(Fteid::ipv4(
            Teid(0x1234_5678),
            Ipv4Addr::new(192, 168, 13, 151),
        )),
    );
    let up_fseid = Fseid::ipv4(Seid(1), Ipv4Addr::new(192, 168, 14, 151));
    let rejected = rejection_of_a_decoding_error(&p, &upf);
    let usage = usage_report(ts);
    let mut mod_rsp = SessionModificationResponse::new(Cause::REQUEST_ACCEPTED);
    mod_rsp.usage_reports.push(usage.clone());
    let mut del_rsp = SessionDeletionResponse::new(Cause::REQUEST_ACCEPTED);
    del_rsp.usage_reports.push(usage.clone());
    let report = SessionReportRequest {
        report_type: ReportType::new(ReportType::USAR),
        usage_reports: vec![usage],
        other_ies: vec![],
    };
    let hb_vendor = heartbeat_with_unknown_ies(ts);

    vec![
        Message::node(seq(1), HeartbeatRequest::new(ts)),
        Message::node(seq(1), HeartbeatResponse::new(ts)),
        Message::node(seq(2), setup_request(&p, ts)),
        Message::node(seq(2), setup_response(&upf, ts)),
        Message::session(Seid(0), seq(3), p.establishment_request()),
        Message::session(Seid(0), seq(4), chosen.establishment_request()),
        Message::session(
            p.cp_seid(),
            seq(3),
            SessionEstablishmentResponse::accepted(upf.clone(), up_fseid, vec![created]),
        ),
        Message::session(p.cp_seid(), seq(9), rejected),
        Message::session(p.cp_seid(), seq(10), {
            let mut r = SessionEstablishmentResponse::rejected(
                upf.clone(),
                Cause::RULE_CREATION_MODIFICATION_FAILURE,
                Some(OffendingIe(IeType::F_TEID)),
            );
            r.failed_rule_id = Some(FailedRuleId::Pdr(PdrId(2)));
            r
        }),
        Message::session(p.cp_seid(), seq(11), {
            let mut r = SessionModificationResponse::new(Cause::RULE_CREATION_MODIFICATION_FAILURE);
            r.failed_rule_id = Some(FailedRuleId::Far(upfbench_pfcp::FarId(1)));
            r
        }),
        Message::session(
            Seid(1),
            seq(5),
            p.path_switch_request(Teid(3), Ipv4Addr::new(192, 168, 13, 132).into(), true),
        ),
        Message::session(p.cp_seid(), seq(5), mod_rsp),
        Message::session(Seid(1), seq(6), SessionDeletionRequest::default()),
        Message::session(p.cp_seid(), seq(6), del_rsp),
        Message::session(p.cp_seid(), seq(7), report),
        Message::session(
            Seid(1),
            seq(7),
            SessionReportResponse::new(Cause::REQUEST_ACCEPTED),
        ),
        Message::node(
            seq(8),
            AssociationReleaseRequest::new(p.template.node_id.clone()),
        ),
        Message::node(
            seq(8),
            AssociationReleaseResponse::new(upf, Cause::REQUEST_ACCEPTED),
        ),
        Message::node(seq(10), VersionNotSupportedResponse::default()),
        Message::node(seq(11), hb_vendor),
    ]
}

/// The CP function's Association Setup Request, with CP features.
fn setup_request(p: &UeSessionPlan, ts: NtpTimestamp) -> AssociationSetupRequest {
    let mut setup_req = AssociationSetupRequest::new(p.template.node_id.clone(), ts);
    setup_req.cp_function_features = Some(CpFunctionFeatures::new(0));
    setup_req
}

/// The UPF's Association Setup Response, with FTUP and EMPU.
fn setup_response(upf: &NodeId, ts: NtpTimestamp) -> AssociationSetupResponse {
    let mut setup_rsp = AssociationSetupResponse::new(upf.clone(), Cause::REQUEST_ACCEPTED, ts);
    setup_rsp.up_function_features = Some(UpFunctionFeatures::new(
        UpFunctionFeatures::FTUP | UpFunctionFeatures::EMPU,
    ));
    setup_rsp
}

/// A decoding error turned into the rejection the UPF side sends: the CP F-SEID's type (after
/// the 16-octet header and the 9-octet Node ID) becomes an unknown one.
fn rejection_of_a_decoding_error(p: &UeSessionPlan, upf: &NodeId) -> SessionEstablishmentResponse {
    let mut bytes = Message::session(Seid(0), seq(9), p.establishment_request())
        .to_vec()
        .unwrap();
    assert_eq!(&bytes[25..27], &[0, 57]);
    bytes[25..27].copy_from_slice(&1000u16.to_be_bytes());
    let err = Message::parse(&bytes).unwrap_err();
    assert_eq!(err.cause(), Some(Cause::MANDATORY_IE_MISSING));
    SessionEstablishmentResponse::for_error(upf.clone(), &err).unwrap()
}

/// A periodic usage report of URR 1: 1000 octets up, 2000 down, over 10 s.
fn usage_report(ts: NtpTimestamp) -> UsageReport {
    UsageReport {
        urr_id: UrrId(1),
        ur_seqn: 3,
        usage_report_trigger: UsageReportTrigger::new(UsageReportTrigger::PERIO),
        start_time: Some(ts),
        end_time: Some(NtpTimestamp(ts.0 + 10)),
        volume_measurement: Some(VolumeMeasurement {
            total: Some(3000),
            uplink: Some(1000),
            downlink: Some(2000),
            ..Default::default()
        }),
        duration_measurement: Some(10),
        time_of_first_packet: None,
        time_of_last_packet: None,
        usage_information: None,
        other_ies: vec![],
    }
}

/// A Heartbeat Request with a vendor IE and an unknown IE.
fn heartbeat_with_unknown_ies(ts: NtpTimestamp) -> HeartbeatRequest {
    let mut hb = HeartbeatRequest::new(ts);
    hb.other_ies.push(RawIe {
        ie_type: IeType(0x8001),
        enterprise_id: Some(99),
        value: vec![1, 2, 3],
    });
    hb.other_ies.push(RawIe {
        ie_type: IeType(1000),
        enterprise_id: None,
        value: vec![7],
    });
    hb
}

#[test]
fn vectors_as_reencoded_dissect_cleanly_and_match() {
    let msgs: Vec<Message> = vectors()
        .iter()
        .map(|v| Message::parse(&hex(v["hex"].as_str().unwrap())).unwrap())
        .collect();
    // All of pfcp.json's vectors, or an emptied file would pass with nothing dissected.
    assert_eq!(msgs.len(), 14, "pfcp.json changed: review this test");
    check("vectors", &msgs);
}

#[test]
fn built_messages_dissect_cleanly_and_match() {
    check("built", &built_messages());
}

#[test]
fn random_messages_dissect_cleanly_and_match() {
    let mut runner = TestRunner::new_with_rng(
        Config::default(),
        TestRng::from_seed(RngAlgorithm::ChaCha, &[7; 32]),
    );
    let strategy = msgs::message();
    let msgs: Vec<Message> = (0..400)
        .map(|_| strategy.new_tree(&mut runner).unwrap().current())
        .collect();
    check("random", &msgs);
}

#[test]
fn follow_on_datagram_dissects_as_two_messages() {
    let ts = NtpTimestamp(3_977_608_738);
    let mut a = Message::node(seq(1), HeartbeatRequest::new(ts));
    a.follow_on = true;
    let b = Message::node(seq(2), HeartbeatResponse::new(ts));
    let mut dgram = a.to_vec().unwrap();
    b.emit_to_vec(&mut dgram).unwrap();
    let path = pcap::temp_pcap("fo");
    pcap::write_pcap(&path, &[dgram]);
    pcap::assert_clean_dissection(&path, 2);
    let rows = pcap::fields(&path, &["pfcp.msg_type", "pfcp.seqno"]);
    assert_eq!(rows, vec![vec!["1,2".to_owned(), "1,2".to_owned()]]);
    std::fs::remove_file(&path).ok();
}

/// The reference UE over IPv6: an IPv6 UE (UE IP Address with V6, PDN Type IPv6) behind an IPv6
/// N3 (F-TEID and Outer Header Creation GTP-U/UDP/IPv6, Outer Header Removal GTP-U/UDP/IPv6) and
/// an IPv6 CP F-SEID.
#[test]
fn an_ipv6_session_plan_dissects_cleanly_and_matches() {
    let mut p = plan();
    p.ue.ue_address = "2001:db8:45::2".parse().unwrap();
    let t = p.template_mut();
    t.cp_address = "2001:db8:14::111".parse().unwrap();
    t.upf_n3_address = "2001:db8:13::151".parse().unwrap();
    t.gnb_n3_address = "2001:db8:13::131".parse().unwrap();
    let mut chosen = p.clone();
    chosen.ue.uplink_teid = UplinkTeid::ChosenByUpf;
    check(
        "ipv6",
        &[
            Message::session(Seid(0), seq(3), p.establishment_request()),
            Message::session(Seid(0), seq(4), chosen.establishment_request()),
            Message::session(
                Seid(1),
                seq(5),
                p.path_switch_request(Teid(3), "2001:db8:13::132".parse().unwrap(), true),
            ),
        ],
    );
}
