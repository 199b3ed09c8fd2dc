//! The UPF side alone: association rules, the rules table and its change events, rejections
//! with Cause, Offending IE and Failed Rule ID, the UPF's own TEIDs (CHOOSE). After establishment:
//! `node_upf_sessions.rs`.

mod common;

use std::net::{Ipv4Addr, SocketAddr};
use std::time::Instant;

use common::net::*;
use common::plans::ue_v4;
use common::upf::*;
use upfbench_pfcp::ie::*;
use upfbench_pfcp::message::*;
use upfbench_pfcp::node::{DownlinkRule, RuleChange, Tunnel, Upf, UpfEvent, UplinkRule};
use upfbench_pfcp::plan::UplinkTeid;
use upfbench_pfcp::{
    FarId, Message, MessageBody, PdrId, Precedence, QerId, Qfi, Seid, Teid, TypedIe,
};

#[test]
fn association_only_from_the_configured_peer_with_its_own_address_as_node_id() {
    let mut u = Upf::new(upf_config());
    let now = Instant::now();
    let other: SocketAddr = "10.9.9.9:8805".parse().unwrap();
    let cause = |m: Message| match m.body {
        MessageBody::AssociationSetupResponse(r) => {
            assert_eq!(r.node_id, NodeId::Ipv4(UP));
            assert_eq!(r.recovery_time_stamp, UP_TS);
            r.cause
        }
        b => panic!("{b:?}"),
    };
    // Another address.
    let (m, _) = exchange(
        &mut u,
        now,
        other,
        &setup_request(Ipv4Addr::new(10, 9, 9, 9), CP_TS, 1),
    );
    assert_eq!(cause(m), Cause::REQUEST_REJECTED);
    // The right address, but a Node ID that is not it (Open5GS would not match its requests).
    let (m, _) = exchange(
        &mut u,
        now,
        cp_addr(),
        &setup_request(Ipv4Addr::new(192, 168, 14, 112), CP_TS, 2),
    );
    assert_eq!(cause(m), Cause::REQUEST_REJECTED);
    // No Recovery Time Stamp: Cause 66, as eUPF answers.
    let mut no_ts = vec![0x20, 5, 0, 0, 0, 0, 3, 0];
    no_ts.extend(NodeId::Ipv4(CP).to_ie_bytes().unwrap());
    let len = (no_ts.len() - 4) as u16;
    no_ts[2..4].copy_from_slice(&len.to_be_bytes());
    let (m, _) = exchange(&mut u, now, cp_addr(), &no_ts);
    assert_eq!(m.sequence, seq(3));
    assert_eq!(cause(m), Cause::MANDATORY_IE_MISSING);
    assert_eq!(u.associated_peer(), None);
    assert_eq!(u.poll_event(), None);
    assert_eq!(u.stats().rejected, 3);
    // Accepted: UP Function Features announce FTUP (CH=1 is served).
    let (m, _) = exchange(&mut u, now, cp_addr(), &setup_request(CP, CP_TS, 4));
    let MessageBody::AssociationSetupResponse(r) = &m.body else {
        panic!()
    };
    assert_eq!(r.cause, Cause::REQUEST_ACCEPTED);
    assert!(
        r.up_function_features
            .unwrap()
            .contains(UpFunctionFeatures::FTUP)
    );
    assert_eq!(u.associated_peer(), Some(cp_addr()));
    assert_eq!(
        u.poll_event(),
        Some(UpfEvent::Associated {
            peer: cp_addr(),
            node_id: NodeId::Ipv4(CP),
            recovery_time_stamp: CP_TS
        })
    );
}

#[test]
fn session_messages_from_a_non_associated_node_get_cause_72() {
    let mut u = Upf::new(upf_config());
    let now = Instant::now();
    let (seid, r) = establish(&mut u, now, plan(0).establishment_request(), 1);
    assert_eq!(seid, plan(0).cp_seid());
    assert_eq!(rejection(&r), (72, None, None));
    let del = Message::session(Seid(5), seq(2), SessionDeletionRequest::default())
        .to_vec()
        .unwrap();
    let (m, _) = exchange(&mut u, now, cp_addr(), &del);
    assert_eq!(m.seid, Some(Seid(0)));
    assert!(matches!(m.body, MessageBody::SessionDeletionResponse(r) if r.cause.0 == 72));
    assert!(u.rules().is_empty());
}

#[test]
fn establishment_installs_rules_the_datapath_can_look_up() {
    let (mut u, now) = associated();
    let p = plan(0);
    let (seid, r) = establish(&mut u, now, p.establishment_request(), 2);
    assert_eq!(
        seid,
        p.cp_seid(),
        "the response carries the CP SEID in its header"
    );
    assert_eq!(r.cause, Cause::REQUEST_ACCEPTED);
    let up = r.up_f_seid.unwrap();
    assert_eq!(up.ipv4, Some(UP));
    assert!(
        r.created_pdrs.is_empty(),
        "TEIDs were ours: nothing created"
    );
    let rules = u.rules();
    assert_eq!(
        rules.uplink(Teid(1)),
        Some(&UplinkRule {
            up_seid: up.seid,
            pdr_id: PdrId(2),
            precedence: Precedence(0xffff),
            teid: Teid(1),
            address: UPF_N3.into(),
            ue_address: Some(ue_v4(&p)),
            qfi: None,
            sdf_filters: Vec::new(),
            qer: Some(QerId(1)),
            remove_outer_header: true,
            forward: true,
        })
    );
    assert_eq!(
        rules.downlink(ue_v4(&p)),
        Some(&DownlinkRule {
            up_seid: up.seid,
            pdr_id: PdrId(1),
            precedence: Precedence(0xffff),
            ue_address: Some(ue_v4(&p)),
            ue_prefix: None,
            sdf_filters: Vec::new(),
            tunnel: Some(Tunnel {
                teid: Teid(2),
                address: GNB_N3.into()
            }),
            qfi: Some(Qfi::new(9).unwrap()),
            qer: Some(QerId(1)),
            forward: true,
        })
    );
    assert_eq!(rules.uplink(Teid(2)), None);
    assert_eq!(rules.downlink(Ipv4Addr::new(10, 45, 0, 3)), None);
    let view = rules.session(up.seid).unwrap().clone();
    assert_eq!(view.cp_f_seid, Fseid::ipv4(p.cp_seid(), CP));
    assert_eq!(
        u.poll_event(),
        Some(UpfEvent::Rules(RuleChange::Installed(view)))
    );
    assert_eq!(u.stats().sessions_established, 1);
}

/// A plan's request, edited.
fn edited(i: u32, f: impl FnOnce(&mut SessionEstablishmentRequest)) -> SessionEstablishmentRequest {
    let mut r = plan(i).establishment_request();
    f(&mut r);
    r
}

#[test]
fn rejections_carry_cause_offending_ie_and_failed_rule() {
    let cases: Vec<_> = malformed_ie_cases()
        .into_iter()
        .chain(inconsistent_pdr_cases())
        .chain(inconsistent_far_cases())
        .collect();
    let (mut u, now) = associated();
    for (n, (what, req, expected)) in cases.into_iter().enumerate() {
        let (seid, r) = establish(&mut u, now, req, 10 + n as u32);
        assert_eq!(rejection(&r), expected, "{what}");
        assert_eq!(r.node_id, NodeId::Ipv4(UP), "{what}");
        assert_eq!(seid, Seid(1), "{what}: the header names the CP SEID");
    }
    assert!(u.rules().is_empty());
    assert_eq!(u.poll_event(), None);
    assert_eq!(u.stats().rejected, 16);
    assert_eq!(u.stats().sessions_established, 0);
}

/// Requests whose IEs are missing or malformed: Cause 66, 68 or 69 and the Offending IE, no
/// Failed Rule ID.
fn malformed_ie_cases() -> Vec<(&'static str, SessionEstablishmentRequest, Expected)> {
    let ipv6 = "2001:db8::1".parse().unwrap();
    vec![
        (
            "CP F-SEID without IPv4",
            edited(0, |r| {
                r.cp_f_seid = Fseid {
                    seid: Seid(1),
                    ipv4: None,
                    ipv6: Some(ipv6),
                }
            }),
            (66, Some(IeType::F_SEID), None),
        ),
        (
            "no Create FAR",
            edited(0, |r| r.create_fars.clear()),
            (66, Some(IeType::CREATE_FAR), None),
        ),
        (
            "a truncated PDN Type",
            edited(0, |r| {
                r.pdn_type = None;
                r.other_ies.push(RawIe {
                    ie_type: IeType::PDN_TYPE,
                    enterprise_id: None,
                    value: vec![],
                });
            }),
            (68, Some(IeType::PDN_TYPE), None),
        ),
        (
            "an F-TEID with CHID but not CH",
            edited(0, |r| {
                r.create_pdrs[1].pdi.local_f_teid = None;
                r.create_pdrs[1].pdi.other_ies.push(RawIe {
                    ie_type: IeType::F_TEID,
                    enterprise_id: None,
                    value: vec![0x08],
                });
            }),
            (69, Some(IeType::F_TEID), None),
        ),
        (
            "a UE IP Address with V4 and CHV4 (TS 29.244 §8.2.62)",
            edited(0, |r| {
                r.create_pdrs[0].pdi.ue_ip_address = None;
                r.create_pdrs[0].pdi.other_ies.push(RawIe {
                    ie_type: IeType::UE_IP_ADDRESS,
                    enterprise_id: None,
                    value: vec![0x16, 10, 45, 0, 2],
                });
            }),
            (69, Some(IeType::UE_IP_ADDRESS), None),
        ),
    ]
}

/// Requests with a PDR the UPF cannot install: the Failed Rule ID names the PDR.
fn inconsistent_pdr_cases() -> Vec<(&'static str, SessionEstablishmentRequest, Expected)> {
    use FailedRuleId::Pdr;
    let ipv6 = "2001:db8::1".parse().unwrap();
    vec![
        (
            "a PDR whose FAR is missing",
            edited(0, |r| r.create_pdrs[0].far_id = Some(FarId(9))),
            (73, Some(IeType::FAR_ID), Some(Pdr(PdrId(1)))),
        ),
        (
            "a PDR without FAR ID",
            edited(0, |r| r.create_pdrs[0].far_id = None),
            (67, Some(IeType::FAR_ID), Some(Pdr(PdrId(1)))),
        ),
        (
            "a PDR whose QER is missing",
            edited(0, |r| r.create_qers.clear()),
            (73, Some(IeType::QER_ID), Some(Pdr(PdrId(1)))),
        ),
        (
            "an uplink PDR without F-TEID",
            edited(0, |r| r.create_pdrs[1].pdi.local_f_teid = None),
            (73, Some(IeType::F_TEID), Some(Pdr(PdrId(2)))),
        ),
        (
            "an uplink F-TEID with only IPv6",
            edited(0, |r| {
                r.create_pdrs[1].pdi.local_f_teid = Some(Fteid::Assigned {
                    teid: Teid(1),
                    ipv4: None,
                    ipv6: Some(ipv6),
                })
            }),
            (73, Some(IeType::F_TEID), Some(Pdr(PdrId(2)))),
        ),
        (
            "CH=1 for IPv6 only",
            edited(0, |r| {
                r.create_pdrs[1].pdi.local_f_teid = Some(Fteid::Choose {
                    ipv4: false,
                    ipv6: true,
                    choose_id: None,
                })
            }),
            (71, Some(IeType::F_TEID), Some(Pdr(PdrId(2)))),
        ),
        (
            "a downlink PDR without UE address",
            edited(0, |r| r.create_pdrs[0].pdi.ue_ip_address = None),
            (73, Some(IeType::UE_IP_ADDRESS), Some(Pdr(PdrId(1)))),
        ),
        (
            "a PDR from the CP function",
            edited(0, |r| {
                r.create_pdrs[0].pdi.source_interface = SourceInterface::CP_FUNCTION
            }),
            (73, Some(IeType::SOURCE_INTERFACE), Some(Pdr(PdrId(1)))),
        ),
        (
            "two PDRs with one ID",
            edited(0, |r| r.create_pdrs[1].pdr_id = PdrId(1)),
            (73, Some(IeType::CREATE_PDR), Some(Pdr(PdrId(1)))),
        ),
    ]
}

/// Requests with a FAR the UPF cannot install: the Failed Rule ID names the FAR.
fn inconsistent_far_cases() -> Vec<(&'static str, SessionEstablishmentRequest, Expected)> {
    use FailedRuleId::Far;
    let ipv6 = "2001:db8::1".parse().unwrap();
    vec![
        (
            "a GTP-U/UDP/IPv6 tunnel",
            edited(0, |r| {
                let fp = r.create_fars[0].forwarding_parameters.as_mut().unwrap();
                fp.outer_header_creation = Some(OuterHeaderCreation {
                    description: OuterHeaderCreation::GTPU_UDP_IPV6,
                    teid: Some(Teid(2)),
                    ipv4: None,
                    ipv6: Some(ipv6),
                    port: None,
                    c_tag: None,
                    s_tag: None,
                });
            }),
            (73, Some(IeType::OUTER_HEADER_CREATION), Some(Far(FarId(1)))),
        ),
        (
            "a forwarding FAR without Forwarding Parameters",
            edited(0, |r| r.create_fars[1].forwarding_parameters = None),
            (67, Some(IeType::FORWARDING_PARAMETERS), Some(Far(FarId(2)))),
        ),
    ]
}

/// A UPF that serves only `internet` refuses a PDR naming another network instance, as UPG-VPP
/// refuses one it has no configuration for: Cause 73, Offending IE Network Instance, and the PDR
/// as Failed Rule ID. Names compare without regard to case; a UPF that lists none serves any.
#[test]
fn a_network_instance_the_upf_does_not_serve_is_refused_naming_the_pdr() {
    use FailedRuleId::Pdr;
    let ims = DnsName::from_dotted("ims").unwrap();
    let mut config = upf_config();
    config.network_instances = vec![DnsName::from_dotted("internet").unwrap()];
    let (mut u, now) = associated_with(config);
    let named = |i: u32, pdr: usize, name: &DnsName| {
        edited(i, |r| {
            r.create_pdrs[pdr].pdi.network_instance = Some(name.clone())
        })
    };
    let ni = Some(IeType::NETWORK_INSTANCE);
    let (_, r) = establish(&mut u, now, named(0, 0, &ims), 2);
    assert_eq!(rejection(&r), (73, ni, Some(Pdr(PdrId(1)))), "downlink PDR");
    let (_, r) = establish(&mut u, now, named(0, 1, &ims), 3);
    assert_eq!(rejection(&r), (73, ni, Some(Pdr(PdrId(2)))), "uplink PDR");
    assert!(u.rules().is_empty());
    assert_eq!(u.stats().rejected, 2);
    let upper = DnsName::from_dotted("INTERNET").unwrap();
    let (_, r) = establish(&mut u, now, named(1, 0, &upper), 4);
    assert_eq!(r.cause, Cause::REQUEST_ACCEPTED);
    let (_, r) = establish(&mut u, now, plan(2).establishment_request(), 5);
    assert_eq!(r.cause, Cause::REQUEST_ACCEPTED);
    assert_eq!(u.stats().sessions_established, 2);

    // The default: any network instance.
    let (mut any, now) = associated();
    let (_, r) = establish(&mut any, now, named(0, 0, &ims), 2);
    assert_eq!(r.cause, Cause::REQUEST_ACCEPTED);
}

/// A UPF with a session limit holds exactly that many: the next is refused with Cause 75 "No
/// resources available" and no Offending IE (nothing in the request is at fault), and a
/// deletion makes room for one more.
#[test]
fn past_the_session_limit_an_establishment_gets_cause_75() {
    let mut config = upf_config();
    config.max_sessions = Some(3);
    let (mut u, now) = associated_with(config);
    for i in 0..3 {
        let (_, r) = establish(&mut u, now, plan(i).establishment_request(), 2 + i);
        assert_eq!(r.cause, Cause::REQUEST_ACCEPTED, "session {i}");
    }
    let (seid, r) = establish(&mut u, now, plan(3).establishment_request(), 5);
    assert_eq!(
        (r.cause, r.offending_ie, r.up_f_seid),
        (Cause::NO_RESOURCES_AVAILABLE, None, None)
    );
    assert_eq!(seid, plan(3).cp_seid(), "the header names the CP SEID");
    assert_eq!((u.rules().len(), u.stats().rejected), (3, 1));
    let up = u.rules().sessions().next().map(|s| s.up_seid).unwrap();
    let del = Message::session(up, seq(6), SessionDeletionRequest::default())
        .to_vec()
        .unwrap();
    let (m, _) = exchange(&mut u, now, cp_addr(), &del);
    let MessageBody::SessionDeletionResponse(d) = m.body else {
        panic!("{m:?}")
    };
    assert_eq!(d.cause, Cause::REQUEST_ACCEPTED);
    let (_, r) = establish(&mut u, now, plan(3).establishment_request(), 7);
    assert_eq!(
        r.cause,
        Cause::REQUEST_ACCEPTED,
        "room again after a deletion"
    );
    assert_eq!(u.rules().len(), 3);
}

#[test]
fn teid_and_ue_address_belong_to_one_session() {
    let (mut u, now) = associated();
    establish(&mut u, now, plan(0).establishment_request(), 2);
    // Same uplink TEID (1), other UE and SEID.
    let mut p = plan(1);
    p.ue.uplink_teid = UplinkTeid::Assigned(Teid(1));
    let (_, r) = establish(&mut u, now, p.establishment_request(), 3);
    assert_eq!(
        rejection(&r),
        (73, Some(IeType::F_TEID), Some(FailedRuleId::Pdr(PdrId(2))))
    );
    // Same UE address.
    let mut p = plan(1);
    p.ue.ue_address = plan(0).ue_address();
    let (_, r) = establish(&mut u, now, p.establishment_request(), 4);
    assert_eq!(
        rejection(&r),
        (
            73,
            Some(IeType::UE_IP_ADDRESS),
            Some(FailedRuleId::Pdr(PdrId(1)))
        )
    );
    assert_eq!(u.rules().len(), 1);
    assert_eq!(
        u.rules().uplink(Teid(1)).unwrap().ue_address,
        Some(ue_v4(&plan(0)))
    );
}

#[test]
fn ch1_teids_are_allocated_and_reported_in_created_pdrs() {
    let (mut u, now) = associated();
    let first = upf_config().first_teid;
    // A session that took first + 1 by itself: allocation must skip it.
    let mut p = plan(50);
    p.ue.uplink_teid = UplinkTeid::Assigned(Teid(first.0 + 1));
    establish(&mut u, now, p.establishment_request(), 2);
    let mut teids = Vec::new();
    for i in 0..2 {
        let (_, r) = establish(&mut u, now, chosen(i).establishment_request(), 3 + i);
        assert_eq!(r.cause, Cause::REQUEST_ACCEPTED);
        let [c] = &r.created_pdrs[..] else {
            panic!("{r:?}")
        };
        assert_eq!(c.pdr_id, PdrId(2));
        let f = c.local_f_teid.unwrap();
        let Fteid::Assigned {
            teid,
            ipv4: Some(a),
            ..
        } = f
        else {
            panic!()
        };
        assert_eq!(a, UPF_N3);
        assert_eq!(
            u.rules().uplink(teid).unwrap().up_seid,
            r.up_f_seid.unwrap().seid
        );
        teids.push(teid);
    }
    assert_eq!(teids, [first, Teid(first.0 + 2)]);
    // PDRs with one CHOOSE ID share the F-TEID; another CHOOSE ID gets another.
    let mut req = chosen(10).establishment_request();
    let choose = |id| {
        Some(Fteid::Choose {
            ipv4: true,
            ipv6: false,
            choose_id: Some(id),
        })
    };
    req.create_pdrs[1].pdi.local_f_teid = choose(5);
    let mut second = req.create_pdrs[1].clone();
    second.pdr_id = PdrId(3);
    second.pdi.qfi = Some(Qfi::new(5).unwrap());
    let mut third = second.clone();
    third.pdr_id = PdrId(4);
    third.pdi.local_f_teid = choose(6);
    req.create_pdrs.extend([second, third]);
    let (_, r) = establish(&mut u, now, req, 9);
    let f: Vec<_> = r
        .created_pdrs
        .iter()
        .map(|c| (c.pdr_id.0, c.local_f_teid.unwrap().teid().unwrap().0))
        .collect();
    assert_eq!(f, [(2, first.0 + 3), (3, first.0 + 3), (4, first.0 + 4)]);
}

#[test]
fn qers_and_sdf_filters_reach_the_datapath_and_a_bad_filter_is_refused() {
    let (mut u, now) = associated();
    let p = plan(0);
    // The plan's session with its QER given an MBR and its downlink PDR an SDF filter.
    let mut req = p.establishment_request();
    let mbr = BitRate {
        ul_kbps: 10_000,
        dl_kbps: 20_000,
    };
    req.create_qers[0].mbr = Some(mbr);
    let dl = req
        .create_pdrs
        .iter_mut()
        .find(|c| c.pdi.source_interface == SourceInterface::CORE)
        .unwrap();
    dl.pdi
        .sdf_filters
        .push(SdfFilter::flow("permit out 17 from any 5001 to assigned"));
    let (_, r) = establish(&mut u, now, req.clone(), 2);
    assert_eq!(r.cause, Cause::REQUEST_ACCEPTED);
    let up = r.up_f_seid.unwrap().seid;
    let view = u.rules().session(up).unwrap().clone();
    let q = view.qer(QerId(1)).expect("the QER");
    assert_eq!(
        (q.qfi, q.gate, q.mbr),
        (Some(Qfi::new(9).unwrap()), GateStatus::OPEN, Some(mbr))
    );
    assert_eq!(view.downlink[0].sdf_filters.len(), 1);
    assert_eq!(
        view.downlink[0].sdf_filters[0].to_string(),
        "permit out 17 from any 5001 to assigned"
    );
    assert_eq!(view.downlink[0].qer, Some(QerId(1)));
    // An Update QER closes the gate: the view changes, nothing else does.
    let mut close = SessionModificationRequest::default();
    close
        .update_qers
        .push(UpdateQer::gate(QerId(1), GateStatus::CLOSED));
    let (_, r) = modify(&mut u, now, up, close, 3);
    assert_eq!(r.cause, Cause::REQUEST_ACCEPTED);
    let after = u.rules().session(up).unwrap();
    assert_eq!(after.qer(QerId(1)).unwrap().gate, GateStatus::CLOSED);
    assert_eq!(after.qer(QerId(1)).unwrap().mbr, Some(mbr));
    assert_eq!(after.downlink, view.downlink);

    // A filter that does not parse: Cause 73, SDF Filter, the PDR named.
    let (mut u, now) = associated();
    let mut bad = p.establishment_request();
    let pdr = &mut bad.create_pdrs[0];
    let id = pdr.pdr_id;
    pdr.pdi
        .sdf_filters
        .push(SdfFilter::flow("permit out 17 from any 5001 to nowhere"));
    let (_, r) = establish(&mut u, now, bad, 2);
    assert_eq!(
        rejection(&r),
        (73, Some(IeType::SDF_FILTER), Some(FailedRuleId::Pdr(id)))
    );
    assert!(u.rules().is_empty());
}
