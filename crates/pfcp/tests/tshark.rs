//! Everything the codec emits in these tests is dissected by tshark: no malformed packet, no
//! expert warning or error, and the fields tshark decodes equal the values we encoded.
//! tshark must be installed (CI installs it); without it these tests fail, they do not skip.

mod common;

use std::net::Ipv4Addr;

use common::message_strategies as msgs;
use common::pcap;
use common::plans::reference_plan;
use common::tshark_expect::check;
use common::vectors::{hex, vectors};
use proptest::strategy::{Strategy, ValueTree};
use proptest::test_runner::{Config, RngAlgorithm, TestRng, TestRunner};
use upfbench_pfcp::ie::*;
use upfbench_pfcp::message::*;
use upfbench_pfcp::plan::{QerPlan, UeSessionPlan, UplinkTeid, UrrPlan};
use upfbench_pfcp::{Message, PdrId, Qfi, Seid, SequenceNumber, Teid, UrrId};

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

/// The IPv6 and QoS vectors (pfcp_v6_qos.json), as they re-encode: the UE IP Address flags and
/// prefixes, F-TEID CHOOSE, dual-stack Outer Header Creation, the QERs' gates, rates, RQI, PPI
/// and correlation IDs, Cause and Offending IE, each field as tshark reads it.
#[test]
fn ipv6_and_qos_vectors_dissect_cleanly_and_match() {
    let v: serde_json::Value =
        serde_json::from_str(include_str!("../testdata/pfcp_v6_qos.json")).unwrap();
    let msgs: Vec<Message> = v["vectors"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| Message::parse(&hex(v["hex"].as_str().unwrap())).unwrap())
        .collect();
    assert_eq!(msgs.len(), 8, "pfcp_v6_qos.json changed: review this test");
    check("v6-qos", &msgs);
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

/// The sessions of issue 29's traffic shapes as the run plans them: an IPv6 UE with its /64
/// (UE IP Address V6 with the prefix, PDN Type IPv6), a dual-stack UE (V4 and V6, PDN Type
/// IPv4v6), a /128 UE (IP6PL), and three QoS flows (six PDRs with their SDF filters and QFIs,
/// six FARs, two QERs of their own and one shared), with the gate of every QER closed.
#[test]
fn ipv6_prefix_and_three_qfi_session_plans_dissect_cleanly_and_match() {
    use upfbench_pfcp::plan::{FlowPlan, QerRule, UeIpv6Prefix};
    let prefix: std::net::Ipv6Addr = "2001:db8:45:3::".parse().unwrap();
    let mut v6 = plan();
    v6.ue.ue_address = "2001:db8:45:3::2".parse().unwrap();
    v6.ue.ue_ipv6 = Some(UeIpv6Prefix { prefix, len: 64 });
    let mut dual = plan();
    dual.ue.ue_ipv6 = Some(UeIpv6Prefix { prefix, len: 64 });
    let mut single = v6.clone();
    single.ue.ue_ipv6 = Some(UeIpv6Prefix {
        prefix: "2001:db8:45::12e".parse().unwrap(),
        len: 128,
    });
    let mut qos = reference_plan();
    let t = qos.template_mut();
    let rate = |ul_kbps, dl_kbps| Some(BitRate { ul_kbps, dl_kbps });
    t.qers = vec![
        QerRule {
            qfi: Some(Qfi::new(1).unwrap()),
            mbr: rate(10_000, 20_000),
            gbr: rate(10_000, 20_000),
        },
        QerRule {
            qfi: None,
            mbr: rate(50_000, 50_000),
            gbr: None,
        },
    ];
    t.flows = [
        (1, Some("permit out 17 from any 5001 to assigned"), 0),
        (5, Some("permit out 17 from any 5005 to assigned"), 1),
        (9, None, 1),
    ]
    .into_iter()
    .map(|(q, sdf, qer)| FlowPlan {
        uplink_qfi: Some(Qfi::new(q).unwrap()),
        sdf_filter: sdf.map(SdfFilter::flow),
        qer,
    })
    .collect();
    let establishment = qos.establishment_request();
    assert_eq!(
        (
            establishment.create_pdrs.len(),
            establishment.create_fars.len(),
            establishment.create_qers.len()
        ),
        (6, 6, 2)
    );
    check(
        "shapes",
        &[
            Message::session(Seid(0), seq(3), v6.establishment_request()),
            Message::session(Seid(0), seq(4), dual.establishment_request()),
            Message::session(Seid(0), seq(5), single.establishment_request()),
            Message::session(Seid(0), seq(6), establishment),
            Message::session(
                Seid(1),
                seq(7),
                qos.gate_request(GateStatus::CLOSED).unwrap(),
            ),
            Message::session(
                Seid(1),
                seq(8),
                qos.path_switch_request(Teid(3), Ipv4Addr::new(192, 168, 13, 132).into(), true),
            ),
        ],
    );
}
