//! The session plan builds the reference client's requests (which the UPFs accept), with the
//! interoperability fixes: 2-octet Apply Action and QER IDs referenced by the PDRs.

mod common;

use std::net::Ipv4Addr;

use common::plans::reference_plan;
use common::vectors::vector_bytes;
use upfbench_pfcp::ie::*;
use upfbench_pfcp::message::*;
use upfbench_pfcp::plan::{QerPlan, UplinkTeid, UrrPlan};
use upfbench_pfcp::{Message, MessageBody, QerId, Qfi, Seid, SequenceNumber, Teid};

fn vector(name: &str) -> Message {
    Message::parse(&vector_bytes(name)).unwrap()
}

fn two_octet_apply_actions(r: &mut SessionEstablishmentRequest) {
    for f in &mut r.create_fars {
        assert_eq!(
            f.apply_action.octets(),
            1,
            "the vector's Apply Action is 1 octet"
        );
        f.apply_action = ApplyAction::new(f.apply_action.bits());
    }
}

#[test]
fn plan_builds_the_reference_request_with_two_octet_apply_action() {
    let MessageBody::SessionEstablishmentRequest(mut want) =
        vector("session_establishment_request").body
    else {
        panic!()
    };
    two_octet_apply_actions(&mut want);
    assert_eq!(reference_plan().establishment_request(), want);
}

#[test]
fn plan_with_qer_references_it_from_both_pdrs() {
    let MessageBody::SessionEstablishmentRequest(mut want) =
        vector("session_establishment_request_qer").body
    else {
        panic!()
    };
    two_octet_apply_actions(&mut want);
    let rate = BitRate {
        ul_kbps: 200_000_000,
        dl_kbps: 200_000_000,
    };
    let mut p = reference_plan();
    p.template_mut().qer = Some(QerPlan {
        qfi: Qfi::new(1).unwrap(),
        mbr: Some(rate),
        gbr: Some(rate),
    });
    let mut got = p.establishment_request();
    // The reference client leaves its QER unreferenced; the plan links it to both PDRs.
    for pdr in &mut got.create_pdrs {
        assert_eq!(pdr.qer_ids, vec![QerId(1)]);
        pdr.qer_ids.clear();
    }
    assert_eq!(got, want);
}

#[test]
fn path_switch_is_the_reference_modification() {
    let MessageBody::SessionModificationRequest(mut want) =
        vector("session_modification_request").body
    else {
        panic!()
    };
    let aa = &mut want.update_fars[0].apply_action;
    *aa = Some(ApplyAction::new(aa.unwrap().bits()));
    let got = reference_plan().path_switch_request(
        Teid(3),
        Ipv4Addr::new(192, 168, 13, 131).into(),
        false,
    );
    assert_eq!(got, want);
}

#[test]
fn interoperability_rules_hold_in_a_default_plan() {
    let mut p = reference_plan();
    p.template_mut().uplink_sdf_filter = None;
    p.template_mut().interface_types = false;
    p.template_mut().qer = Some(QerPlan {
        qfi: Qfi::new(9).unwrap(),
        mbr: None,
        gbr: None,
    });
    p.template_mut().urr = Some(UrrPlan {
        measurement_period_s: Some(10),
        volume_threshold_octets: None,
    });
    let r = p.establishment_request();
    assert!(r.cp_f_seid.ipv4.is_some());
    assert_eq!(r.pdn_type, Some(PdnType::IPV4));
    let dl = &r.create_pdrs[0];
    assert_eq!(dl.pdi.source_interface, SourceInterface::CORE);
    assert!(
        dl.pdi.sdf_filters.is_empty(),
        "Open5GS needs a downlink PDR without SDF filter"
    );
    assert!(dl.pdi.network_instance.is_some());
    assert!(dl.pdi.ue_ip_address.unwrap().is_destination);
    let ul = &r.create_pdrs[1];
    assert_eq!(
        ul.pdi.local_f_teid,
        Some(Fteid::assigned(Teid(1), p.template.upf_n3_address))
    );
    assert_eq!(
        ul.outer_header_removal,
        Some(OuterHeaderRemoval::gtpu_udp_ipv4())
    );
    assert!(r.create_fars.iter().all(|f| f.apply_action.octets() == 2));
    assert_eq!(r.create_qers[0].qfi, Some(Qfi::new(9).unwrap()));
    let urr = &r.create_urrs[0];
    assert!(urr.reporting_triggers.contains(ReportingTriggers::PERIO));
    assert_eq!(urr.measurement_period, Some(10));
    // The whole request survives the wire.
    let m = Message::session(Seid(0), SequenceNumber::new(1).unwrap(), r.clone());
    let MessageBody::SessionEstablishmentRequest(back) =
        Message::parse(&m.to_vec().unwrap()).unwrap().body
    else {
        panic!()
    };
    assert_eq!(back, r);
}

#[test]
fn upf_chosen_teid_and_reading_it_back() {
    let mut p = reference_plan();
    p.ue.uplink_teid = UplinkTeid::ChosenByUpf;
    let r = p.establishment_request();
    assert_eq!(
        r.create_pdrs[1].pdi.local_f_teid,
        Some(Fteid::Choose {
            ipv4: true,
            ipv6: false,
            choose_id: None
        })
    );
    // The UPF's answer, as in the reference vector: Created PDR 2 with the F-TEID it chose.
    let MessageBody::SessionEstablishmentResponse(rsp) =
        vector("session_establishment_response").body
    else {
        panic!()
    };
    assert!(rsp.cause.is_accepted());
    assert_eq!(rsp.up_f_seid.unwrap().seid, Seid(1));
    let created = rsp
        .created_pdrs
        .iter()
        .find(|c| c.pdr_id == r.create_pdrs[1].pdr_id)
        .unwrap();
    assert_eq!(created.local_f_teid.unwrap().teid(), Some(Teid(1)));
}

#[test]
fn an_ipv6_ue_behind_an_ipv6_n3_gets_the_ipv6_forms() {
    let ue: std::net::Ipv6Addr = "2001:db8:45::2".parse().unwrap();
    let gnb: std::net::Ipv6Addr = "2001:db8:13::131".parse().unwrap();
    let upf: std::net::Ipv6Addr = "2001:db8:13::151".parse().unwrap();
    let cp: std::net::Ipv6Addr = "2001:db8:14::111".parse().unwrap();
    let mut p = reference_plan();
    p.ue.ue_address = ue.into();
    let t = p.template_mut();
    t.cp_address = cp.into();
    t.upf_n3_address = upf.into();
    t.gnb_n3_address = gnb.into();
    let r = p.establishment_request();
    assert_eq!(r.pdn_type, Some(PdnType::IPV6));
    assert_eq!(r.cp_f_seid.ipv6, Some(cp));
    assert_eq!(r.cp_f_seid.ipv4, None);
    let (dl, ul) = (&r.create_pdrs[0].pdi, &r.create_pdrs[1].pdi);
    let v6 = |u: Option<UeIpAddress>| u.map(|u| (u.ipv4, u.ipv6, u.is_destination));
    assert_eq!(v6(dl.ue_ip_address), Some((None, Some(ue), true)));
    assert_eq!(v6(ul.ue_ip_address), Some((None, Some(ue), false)));
    assert_eq!(
        ul.local_f_teid,
        Some(Fteid::Assigned {
            teid: Teid(1),
            ipv4: None,
            ipv6: Some(upf)
        })
    );
    assert_eq!(
        r.create_pdrs[1].outer_header_removal.map(|o| o.description),
        Some(OuterHeaderRemoval::GTPU_UDP_IPV6)
    );
    let ohc = r.create_fars[0]
        .forwarding_parameters
        .as_ref()
        .and_then(|f| f.outer_header_creation)
        .unwrap();
    assert_eq!(
        (ohc.description, ohc.teid, ohc.ipv4, ohc.ipv6),
        (
            OuterHeaderCreation::GTPU_UDP_IPV6,
            Some(p.ue.downlink_teid),
            None,
            Some(gnb)
        )
    );
    // Encoded and read back, byte for byte what was built.
    let m = Message::session(Seid(0), SequenceNumber::new(1).unwrap(), r.clone());
    assert_eq!(Message::parse(&m.to_vec().unwrap()).unwrap(), m);
}

#[test]
fn a_ue_session_is_56_bytes_as_documented() {
    // 1,000,000 UEs: 56 MB of UeSession (an address of either family and an IPv6 prefix), the
    // rest shared through one Arc<SessionTemplate>.
    assert_eq!(size_of::<upfbench_pfcp::plan::UeSession>(), 56);
}
