//! The sessions of issue 29's traffic shapes, as their Session Establishment Requests come back
//! from the wire: IPv6 and dual-stack UEs, an IPv6 N3, several QoS flows and shared QERs.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

use upfbench_pfcp::ie::{
    BitRate, FlowDescription, Fteid, OuterHeaderCreation, OuterHeaderRemoval, PdnType,
    SourceInterface,
};
use upfbench_pfcp::message::{MessageBody, SessionEstablishmentRequest};
use upfbench_pfcp::plan::{QerRule, UeSessionPlan, flow_rule_ids, qer_id};
use upfbench_pfcp::types::{FarId, PdrId, Precedence, QerId};
use upfbench_pfcp::{Message, Qfi, SequenceNumber, Teid};

use super::*;

const SYSTEM: &str = "n3: {device: net_null0, address: 192.168.13.131/24, peer: 192.168.13.151}\n\
                      n6: {device: net_null1, address: 192.168.16.152/24, peer: 192.168.16.151}\n\
                      pfcp: {local: 192.168.14.111, peer: 192.168.14.151}\n";

const SYSTEM_V6: &str = "n3: {device: net_null0, address: '2001:db8:13::131/64', \
                         peer: '2001:db8:13::151', vlan: {id: 13}}\n\
                         n6: {device: net_null1, address: 192.168.16.152/24, \
                         peer: 192.168.16.151}\n\
                         pfcp: {local: 192.168.14.111, peer: 192.168.14.151}\n";

fn shipped(name: &str) -> String {
    let path = format!("{}/../../profiles/{name}.yaml", env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(path).expect("a shipped profile")
}

/// The run's plan and session plans of `profile` on `system`.
fn plans(system: &str, profile: &str) -> (crate::plan::Plan, Vec<UeSessionPlan>) {
    let (system, profile) =
        upfbench_config::run_from_str(system, "s.yaml", profile, "p.yaml").expect("valid");
    let plan = crate::plan::build(&system, &profile, None, [Some(10e9), Some(10e9)]).unwrap();
    let sessions = session_plans(&system, &profile, &plan.ues).unwrap();
    (plan, sessions)
}

/// A plan's Session Establishment Request, encoded and parsed back.
fn wire(p: &UeSessionPlan) -> SessionEstablishmentRequest {
    let m = Message::session(
        Seid(0),
        SequenceNumber::new(1).unwrap(),
        p.establishment_request(),
    );
    let MessageBody::SessionEstablishmentRequest(r) =
        Message::parse(&m.to_vec().unwrap()).unwrap().body
    else {
        panic!("not a Session Establishment Request")
    };
    r
}

fn v6(text: &str) -> Ipv6Addr {
    text.parse().unwrap()
}

#[test]
fn ipv6_ues_get_their_64_in_the_ue_ip_address_and_pdn_type_ipv6() {
    let (plan, sessions) = plans(SYSTEM, &shipped("ipv6"));
    assert_eq!(sessions.len(), 4);
    assert_eq!(plan.ues.address(3), IpAddr::V6(v6("2001:db8:45:3::2")));
    let r = wire(&sessions[3]);
    assert_eq!(r.pdn_type, Some(PdnType::IPV6));
    for pdr in &r.create_pdrs {
        let ue = pdr.pdi.ue_ip_address.expect("a UE IP Address");
        assert_eq!((ue.ipv4, ue.ipv6), (None, Some(v6("2001:db8:45:3::"))));
        assert_eq!(ue.ipv6_prefix_len(), Some(64));
        assert_eq!(
            ue.ipv6_prefix_length, None,
            "/64 is the default, sent without IP6PL"
        );
        assert_eq!(
            ue.is_destination,
            pdr.pdi.source_interface == SourceInterface::CORE
        );
    }
    // The streams know their family, and size their frames for it: 14 + 20 + 8 + 8 + 8 + 40 +
    // 8 + 300 uplink (IPv6 in IPv4), 14 + 40 + 8 + 300 downlink.
    let ul = &plan.streams[0];
    assert_eq!(ul.family(), upfbench_net::IpFamily::Ipv6);
    assert_eq!(
        (ul.tx_frame_len(), plan.streams[1].tx_frame_len()),
        (406, 362)
    );
}

#[test]
fn a_128_per_ue_goes_in_ip6pl() {
    let profile = "name: p\nsessions: {count: 2, pdn_type: ipv6, ue_prefix_len: 128}\n\
                   streams: [{name: a, direction: uplink, rate: 1kpps, payload: 100}]\n";
    let (_, sessions) = plans(SYSTEM, profile);
    let ue = wire(&sessions[1]).create_pdrs[0].pdi.ue_ip_address.unwrap();
    assert_eq!(ue.ipv6, Some(v6("2001:db8:45::3")));
    assert_eq!(ue.ipv6_prefix_length, Some(128));
}

#[test]
fn a_dual_stack_session_has_both_ue_addresses() {
    let (plan, sessions) = plans(SYSTEM, &shipped("dual-stack"));
    assert_eq!(plan.ues.address(1), IpAddr::V4(Ipv4Addr::new(10, 45, 0, 3)));
    assert_eq!(plan.ues.address_v6(1), Some(v6("2001:db8:45:1::2")));
    let r = wire(&sessions[1]);
    assert_eq!(r.pdn_type, Some(PdnType::IPV4V6));
    for pdr in &r.create_pdrs {
        let ue = pdr.pdi.ue_ip_address.unwrap();
        assert_eq!(
            (ue.ipv4, ue.ipv6),
            (
                Some(Ipv4Addr::new(10, 45, 0, 3)),
                Some(v6("2001:db8:45:1::"))
            )
        );
    }
    let families: Vec<_> = plan.streams.iter().map(|s| s.family()).collect();
    use upfbench_net::IpFamily::{Ipv4, Ipv6};
    assert_eq!(families, [Ipv4, Ipv4, Ipv6, Ipv6]);
}

#[test]
fn an_ipv6_n3_puts_its_family_in_the_f_teid_and_the_outer_headers() {
    let (plan, sessions) = plans(SYSTEM_V6, &shipped("quickstart"));
    let r = wire(&sessions[0]);
    let upf = v6("2001:db8:13::151");
    let ul = r.create_pdrs.iter().find(|p| p.pdr_id == PdrId(2)).unwrap();
    assert_eq!(
        ul.pdi.local_f_teid,
        Some(Fteid::assigned(Teid(1), upf.into()))
    );
    assert_eq!(
        ul.outer_header_removal.map(|o| o.description),
        Some(OuterHeaderRemoval::GTPU_UDP_IPV6)
    );
    let dl_far = r.create_fars.iter().find(|f| f.far_id == FarId(1)).unwrap();
    let ohc = dl_far
        .forwarding_parameters
        .as_ref()
        .and_then(|f| f.outer_header_creation)
        .unwrap();
    assert_eq!(ohc.description, OuterHeaderCreation::GTPU_UDP_IPV6);
    assert_eq!(ohc.ipv6, Some(v6("2001:db8:13::131")));
    // The UE is still IPv4, the frames on N3 IPv6 and tagged: 14 + 4 + 40 + 8 + 8 + 8 + 20 + 8
    // + 300.
    assert_eq!(r.pdn_type, Some(PdnType::IPV4));
    assert_eq!(plan.streams[0].tx_frame_len(), 410);
}

#[test]
fn three_flows_make_three_pdrs_each_way_and_three_qers() {
    let (plan, sessions) = plans(SYSTEM, &shipped("qos"));
    let r = wire(&sessions[0]);
    assert_eq!((r.create_pdrs.len(), r.create_fars.len()), (6, 6));
    assert_eq!(r.create_qers.len(), 3);
    let qfi = |q| Qfi::new(q).unwrap();
    for (k, (q, sdf, mbr, gbr)) in [
        (1, Some(5001), (5_000, 10_000), Some((5_000, 10_000))),
        (5, Some(5005), (20_000, 20_000), None),
        (9, None, (50_000, 50_000), None),
    ]
    .into_iter()
    .enumerate()
    {
        let (dl, ul, dl_far, ul_far) = flow_rule_ids(k);
        let pdr = |id| r.create_pdrs.iter().find(|p| p.pdr_id == id).unwrap();
        let (dl, ul) = (pdr(dl), pdr(ul));
        assert_eq!((dl.far_id, ul.far_id), (Some(dl_far), Some(ul_far)));
        assert_eq!(
            ul.pdi.qfi,
            Some(qfi(q)),
            "flow {k}: the uplink PDR matches its QFI"
        );
        assert_eq!(dl.pdi.qfi, None);
        for p in [dl, ul] {
            assert_eq!(p.qer_ids, [qer_id(k)], "flow {k}: its own QER");
            let ports: Option<u16> = p.pdi.sdf_filters.first().map(|f| {
                let text = f.flow_description.as_deref().unwrap();
                FlowDescription::from_bytes(text).unwrap().source.ports[0].first
            });
            assert_eq!(ports, sdf, "flow {k}: its SDF filter in both PDRs");
            let expect = if sdf.is_some() {
                Precedence(100 + k as u32)
            } else {
                Precedence(0xffff)
            };
            assert_eq!(p.precedence, expect, "SDF flows precede the catch-all");
        }
        let qer = r
            .create_qers
            .iter()
            .find(|c| c.qer_id == qer_id(k))
            .unwrap();
        assert_eq!(qer.qfi, Some(qfi(q)));
        assert_eq!(
            qer.mbr,
            Some(BitRate {
                ul_kbps: mbr.0,
                dl_kbps: mbr.1
            })
        );
        assert_eq!(
            qer.gbr,
            gbr.map(|(ul_kbps, dl_kbps)| BitRate { ul_kbps, dl_kbps })
        );
    }
    // Each flow's QER on its own, to close one gate alone.
    assert_eq!(sessions[0].qer_of(qfi(5)), Some(QerId(2)));
    assert_eq!(sessions[0].qer_ids(), [QerId(1), QerId(2), QerId(3)]);
    let close = sessions[0]
        .gate_request(upfbench_pfcp::ie::GateStatus::CLOSED)
        .unwrap();
    assert_eq!(close.update_qers.len(), 3);
    // A handover moves every flow's downlink.
    let switch =
        sessions[0].path_switch_request(Teid(99), Ipv4Addr::new(192, 168, 13, 132).into(), true);
    let fars: Vec<FarId> = switch.update_fars.iter().map(|f| f.far_id).collect();
    assert_eq!(fars, [FarId(1), FarId(3), FarId(5)]);
    // The streams: their QFIs, and 150% of their flow's MBR each way in 328-byte IPv4 packets,
    // for each of the 2 sessions (each has its own QER).
    let s = &plan.streams;
    let qfis: Vec<_> = s.iter().map(|s| s.qfi.map(Qfi::get)).collect();
    assert_eq!(qfis, [Some(1), Some(1), Some(5), Some(5), Some(9), Some(9)]);
    let want = |mbr: f64| 2.0 * 1.5 * mbr / (328.0 * 8.0);
    for (stream, mbr) in s.iter().zip([5e6, 10e6, 20e6, 20e6, 50e6, 50e6]) {
        assert!(
            (stream.rate_pps - want(mbr)).abs() < 1e-9,
            "{}",
            stream.name
        );
    }
}

#[test]
fn flows_that_share_a_qer_make_fewer_qers() {
    let profile = "name: p\nsessions:\n  qos_flows:\n\
        \x20   - {qfi: 1, sdf: 'permit out 17 from any 5001 to assigned', mbr: {uplink: 10Mbps}}\n\
        \x20   - {qfi: 5, sdf: 'permit out 17 from any 5005 to assigned', mbr: {uplink: 50Mbps}, qer: agg}\n\
        \x20   - {qfi: 9, mbr: {uplink: 50Mbps}, qer: agg}\n\
        streams: [{name: a, direction: uplink, qfi: 9, rate: 1kpps, payload: 100}]\n";
    let (_, sessions) = plans(SYSTEM, profile);
    let t = &sessions[0].template;
    assert_eq!(t.flows.len(), 3);
    let shared = QerRule {
        qfi: None,
        mbr: Some(BitRate {
            ul_kbps: 50_000,
            dl_kbps: 0,
        }),
        gbr: None,
    };
    assert_eq!(t.qers.len(), 2);
    assert_eq!(
        t.qers[1], shared,
        "one QER for two flows, marking neither QFI"
    );
    let r = wire(&sessions[0]);
    assert_eq!(r.create_qers.len(), 2);
    assert_eq!(r.create_qers[1].qfi, None);
    let qers: Vec<Vec<QerId>> = r.create_pdrs.iter().map(|p| p.qer_ids.clone()).collect();
    assert_eq!(
        qers,
        [
            vec![QerId(1)],
            vec![QerId(1)],
            vec![QerId(2)],
            vec![QerId(2)],
            vec![QerId(2)],
            vec![QerId(2)]
        ]
    );
}

#[test]
fn one_flow_sessions_keep_their_rules() {
    // No qos_flows: PDRs 1 and 2, FARs 1 and 2, QER 1, as before.
    let (_, sessions) = plans(SYSTEM, &shipped("quickstart"));
    assert!(sessions[0].template.flows.is_empty());
    let r = wire(&sessions[0]);
    let pdrs: Vec<PdrId> = r.create_pdrs.iter().map(|p| p.pdr_id).collect();
    assert_eq!(pdrs, [PdrId(1), PdrId(2)]);
    assert_eq!(r.create_qers.len(), 1);
    assert_eq!(r.pdn_type, Some(PdnType::IPV4));
    assert_eq!(sessions[0].qer_ids(), [QerId(1)]);
}

fn shipped_system(name: &str) -> String {
    let path = format!(
        "{}/../../deploy/systems/{name}.yaml",
        env!("CARGO_MANIFEST_DIR")
    );
    std::fs::read_to_string(path).expect("a shipped system file")
}

#[test]
fn memif_v6_puts_the_f_teid_and_the_tunnel_in_ipv6_for_ipv6_ues() {
    let (plan, sessions) = plans(&shipped_system("memif-v6"), &shipped("ipv6"));
    let r = wire(&sessions[1]);
    let ul = r.create_pdrs.iter().find(|p| p.pdr_id == PdrId(2)).unwrap();
    assert_eq!(
        ul.pdi.local_f_teid.map(|f| match f {
            Fteid::Assigned { ipv4, ipv6, .. } => (ipv4, ipv6),
            Fteid::Choose { .. } => (None, None),
        }),
        Some((None, Some(v6("2001:db8:13::151"))))
    );
    let ohc = r
        .create_fars
        .iter()
        .find_map(|f| f.forwarding_parameters.as_ref()?.outer_header_creation)
        .unwrap();
    assert_eq!(
        (ohc.description, ohc.ipv4, ohc.ipv6),
        (
            OuterHeaderCreation::GTPU_UDP_IPV6,
            None,
            Some(v6("2001:db8:13::131"))
        )
    );
    // IPv6 in IPv6 on N3, with the container: 14 + 40 + 8 + 8 + 8 + 40 + 8 + 300; IPv6 on
    // N6: 14 + 40 + 8 + 300.
    let len = |d| plan.streams.iter().find(|s| s.direction == d).unwrap();
    assert_eq!(len(upfbench_stats::Direction::Uplink).tx_frame_len(), 426);
    assert_eq!(len(upfbench_stats::Direction::Downlink).tx_frame_len(), 362);
}

#[test]
fn an_ipv6_n3_with_an_ipv4_n6_carries_both_families_of_ues() {
    // (IPv4 UEs over an IPv6 N6 are refused when the files load: config's cross checks.)
    let (plan, sessions) = plans(SYSTEM_V6, &shipped("dual-stack"));
    assert_eq!(plan.streams.len(), 4);
    let r = wire(&sessions[0]);
    assert_eq!(r.pdn_type, Some(PdnType::IPV4V6));
    let ul = r.create_pdrs.iter().find(|p| p.pdr_id == PdrId(2)).unwrap();
    assert!(matches!(
        ul.pdi.local_f_teid,
        Some(Fteid::Assigned {
            ipv6: Some(_),
            ipv4: None,
            ..
        })
    ));
}
