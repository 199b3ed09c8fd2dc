//! The UPF side alone, after establishment: modification (path switch, rules replaced, failures
//! that leave the session as it was), deletion, the response cache, release, heartbeats, other
//! versions and messages it does not serve.

mod common;

use std::net::Ipv4Addr;
use std::time::{Duration, Instant};

use common::net::*;
use common::plans::ue_v4;
use common::upf::*;
use upfbench_pfcp::ie::*;
use upfbench_pfcp::message::*;
use upfbench_pfcp::node::{RuleChange, Tunnel, Upf, UpfEvent};
use upfbench_pfcp::{FarId, Message, MessageBody, MessageType, PdrId, QerId, Qfi, Seid, Teid};

#[test]
fn path_switch_moves_the_downlink_tunnel_and_reports_both_sides() {
    for end_marker in [false, true] {
        path_switch(end_marker);
    }
}

/// A path switch, with or without SNDEM: an End Marker event for the old tunnel follows the
/// modification's only when it was asked for.
fn path_switch(end_marker: bool) {
    let (mut u, now) = associated();
    let p = plan(0);
    let (_, r) = establish(&mut u, now, p.establishment_request(), 2);
    let up = r.up_f_seid.unwrap().seid;
    let before = u.rules().session(up).unwrap().clone();
    while u.poll_event().is_some() {}
    let gnb2 = Ipv4Addr::new(192, 168, 13, 132);
    let (seid, r) = modify(
        &mut u,
        now,
        up,
        p.path_switch_request(Teid(77), gnb2.into(), end_marker),
        3,
    );
    assert_eq!(seid, p.cp_seid());
    assert_eq!(r.cause, Cause::REQUEST_ACCEPTED);
    let dl = u.rules().downlink(ue_v4(&p)).unwrap();
    assert_eq!(
        dl.tunnel,
        Some(Tunnel {
            teid: Teid(77),
            address: gnb2.into()
        })
    );
    assert_eq!(dl.qfi, Some(Qfi::new(9).unwrap()), "the QER still applies");
    let after = u.rules().session(up).unwrap().clone();
    assert_eq!(
        u.poll_event(),
        Some(UpfEvent::Rules(RuleChange::Modified {
            previous: before.clone(),
            current: after
        }))
    );
    let old_tunnel = before.downlink[0].tunnel.unwrap();
    assert_ne!(old_tunnel.address, gnb2);
    let expected = end_marker.then_some(UpfEvent::Rules(RuleChange::EndMarker {
        ue_address: Some(ue_v4(&p)),
        previous: old_tunnel,
    }));
    assert_eq!(u.poll_event(), expected);
    assert_eq!(u.stats().sessions_modified, 1);
}

#[test]
fn modification_replaces_rules_and_reindexes_them() {
    let (mut u, now) = associated();
    let p = plan(0);
    let (_, r) = establish(&mut u, now, p.establishment_request(), 2);
    let up = r.up_f_seid.unwrap().seid;
    // Replace the uplink PDR by one on a UPF-chosen TEID, and change the QER's QFI.
    let mut new_ul = chosen(0).uplink_pdr();
    new_ul.pdr_id = PdrId(7);
    let req = SessionModificationRequest {
        remove_pdrs: vec![RemovePdr {
            pdr_id: PdrId(2),
            other_ies: vec![],
        }],
        create_pdrs: vec![new_ul],
        update_qers: vec![UpdateQer {
            qer_id: QerId(1),
            qfi: Some(Qfi::new(3).unwrap()),
            ..Default::default()
        }],
        ..Default::default()
    };
    let (_, r) = modify(&mut u, now, up, req, 3);
    assert_eq!(r.cause, Cause::REQUEST_ACCEPTED);
    let [c] = &r.created_pdrs[..] else { panic!() };
    assert_eq!(c.pdr_id, PdrId(7));
    let teid = c.local_f_teid.unwrap().teid().unwrap();
    assert_eq!(
        u.rules().uplink(Teid(1)),
        None,
        "the old TEID left the index"
    );
    assert_eq!(u.rules().uplink(teid).unwrap().pdr_id, PdrId(7));
    assert_eq!(
        u.rules().downlink(ue_v4(&p)).unwrap().qfi,
        Some(Qfi::new(3).unwrap())
    );
    assert_eq!(u.rules().uplink_count(), 1);
}

#[test]
fn modification_failures_leave_the_session_as_it_was() {
    let (mut u, now) = associated();
    let (_, r0) = establish(&mut u, now, plan(0).establishment_request(), 2);
    let (_, r1) = establish(&mut u, now, plan(1).establishment_request(), 3);
    let (up0, up1) = (r0.up_f_seid.unwrap().seid, r1.up_f_seid.unwrap().seid);
    let before = u.rules().session(up1).unwrap().clone();
    // Unknown SEID: Cause 65 with SEID 0 in the header.
    let (seid, r) = modify(
        &mut u,
        now,
        Seid(999),
        SessionModificationRequest::default(),
        4,
    );
    assert_eq!((seid, r.cause), (Seid(0), Cause::SESSION_CONTEXT_NOT_FOUND));
    // Removing a PDR that does not exist.
    let req = SessionModificationRequest {
        remove_pdrs: vec![RemovePdr {
            pdr_id: PdrId(9),
            other_ies: vec![],
        }],
        ..Default::default()
    };
    let (seid, r) = modify(&mut u, now, up1, req, 5);
    assert_eq!(seid, plan(1).cp_seid());
    assert_eq!(
        (r.cause.0, r.offending_ie.map(|o| o.0), r.failed_rule_id),
        (
            73,
            Some(IeType::REMOVE_PDR),
            Some(FailedRuleId::Pdr(PdrId(9)))
        )
    );
    // Updating a FAR that does not exist.
    let req = plan(1).path_switch_request(Teid(5), GNB_N3.into(), true);
    let mut req2 = req.clone();
    req2.update_fars[0].far_id = FarId(8);
    let (_, r) = modify(&mut u, now, up1, req2, 6);
    assert_eq!(r.failed_rule_id, Some(FailedRuleId::Far(FarId(8))));
    // Moving session 1's uplink onto session 0's TEID: refused as a whole, even though the
    // same request also switches the downlink path.
    let mut steal = req.clone();
    let mut pdi = plan(1).uplink_pdr().pdi;
    pdi.local_f_teid = Some(Fteid::ipv4(Teid(1), UPF_N3));
    steal.update_pdrs.push(UpdatePdr {
        pdr_id: PdrId(2),
        outer_header_removal: None,
        precedence: None,
        pdi: Some(pdi),
        far_id: None,
        urr_ids: vec![],
        qer_ids: vec![],
        other_ies: vec![],
    });
    let (_, r) = modify(&mut u, now, up1, steal, 7);
    assert_eq!(
        (r.cause.0, r.offending_ie.map(|o| o.0)),
        (73, Some(IeType::F_TEID))
    );
    assert_eq!(u.rules().session(up1), Some(&before));
    assert_eq!(u.rules().uplink(Teid(1)).unwrap().up_seid, up0);
    assert_eq!(u.stats().sessions_modified, 0);
}

#[test]
fn deletion_removes_the_session_and_its_lookups() {
    let (mut u, now) = associated();
    let p = plan(0);
    let (_, r) = establish(&mut u, now, p.establishment_request(), 2);
    let up = r.up_f_seid.unwrap().seid;
    let view = u.rules().session(up).unwrap().clone();
    while u.poll_event().is_some() {}
    let del = Message::session(up, seq(3), SessionDeletionRequest::default())
        .to_vec()
        .unwrap();
    let (m, _) = exchange(&mut u, now, cp_addr(), &del);
    assert_eq!(m.seid, Some(p.cp_seid()));
    assert!(
        matches!(m.body, MessageBody::SessionDeletionResponse(ref r) if r.cause == Cause::REQUEST_ACCEPTED)
    );
    assert!(u.rules().is_empty());
    assert_eq!(
        (u.rules().uplink_count(), u.rules().downlink_count()),
        (0, 0)
    );
    assert_eq!(
        u.poll_event(),
        Some(UpfEvent::Rules(RuleChange::Removed(view)))
    );
    // Again with a new sequence number: the session is gone.
    let del = Message::session(up, seq(4), SessionDeletionRequest::default())
        .to_vec()
        .unwrap();
    let (m, _) = exchange(&mut u, now, cp_addr(), &del);
    assert_eq!(m.seid, Some(Seid(0)));
    assert!(
        matches!(m.body, MessageBody::SessionDeletionResponse(ref r) if r.cause == Cause::SESSION_CONTEXT_NOT_FOUND)
    );
}

#[test]
fn retransmitted_requests_are_answered_from_the_cache_and_applied_once() {
    let (mut u, now) = associated();
    let bytes = establishment(plan(0).establishment_request(), 2);
    let (_, first) = exchange(&mut u, now, cp_addr(), &bytes);
    let (_, again) = exchange(&mut u, now + Duration::from_secs(3), cp_addr(), &bytes);
    assert_eq!(first, again, "the same response, byte for byte");
    assert_eq!(u.stats().sessions_established, 1);
    assert_eq!(u.stats().answered_from_cache, 1);
    assert_eq!(u.rules().len(), 1);
    // A deletion retransmitted after it was applied still gets "accepted", not 65.
    let up = u.rules().sessions().next().unwrap().up_seid;
    let del = Message::session(up, seq(3), SessionDeletionRequest::default())
        .to_vec()
        .unwrap();
    let (_, d1) = exchange(&mut u, now, cp_addr(), &del);
    let (_, d2) = exchange(&mut u, now, cp_addr(), &del);
    assert_eq!(d1, d2);
    assert_eq!(u.stats().sessions_deleted, 1);
    // The same sequence number with other content is a new request.
    let other = establishment(plan(1).establishment_request(), 2);
    let (m, _) = exchange(&mut u, now, cp_addr(), &other);
    assert!(
        matches!(m.body, MessageBody::SessionEstablishmentResponse(ref r) if r.cause == Cause::REQUEST_ACCEPTED)
    );
    assert_eq!(u.stats().sessions_established, 2);
    // After the cache lifetime ((N1 + 1) × T1 = 12 s), a retransmission is a new request.
    let late = now + Duration::from_secs(13);
    let (m, _) = exchange(&mut u, late, cp_addr(), &bytes);
    assert!(
        matches!(m.body, MessageBody::SessionEstablishmentResponse(ref r) if r.cause == Cause::REQUEST_ACCEPTED)
    );
    assert_eq!(u.stats().sessions_established, 3);
    assert_eq!(u.cached_responses(), 1);
}

#[test]
fn release_removes_every_session() {
    let (mut u, now) = associated();
    for i in 0..3 {
        establish(&mut u, now, plan(i).establishment_request(), 2 + i);
    }
    while u.poll_event().is_some() {}
    let rel = Message::node(seq(9), AssociationReleaseRequest::new(NodeId::Ipv4(CP)))
        .to_vec()
        .unwrap();
    let (m, _) = exchange(&mut u, now, cp_addr(), &rel);
    assert!(
        matches!(m.body, MessageBody::AssociationReleaseResponse(ref r) if r.cause == Cause::REQUEST_ACCEPTED && r.node_id == NodeId::Ipv4(UP))
    );
    let ev: Vec<_> = std::iter::from_fn(|| u.poll_event()).collect();
    assert_eq!(ev.len(), 4);
    assert!(
        ev[..3]
            .iter()
            .all(|e| matches!(e, UpfEvent::Rules(RuleChange::Removed(_))))
    );
    assert_eq!(
        ev[3],
        UpfEvent::Released {
            peer: cp_addr(),
            sessions_removed: 3
        }
    );
    assert!(u.rules().is_empty());
    assert_eq!(u.associated_peer(), None);
    let (_, r) = establish(&mut u, now, plan(5).establishment_request(), 10);
    assert_eq!(r.cause, Cause::NO_ESTABLISHED_PFCP_ASSOCIATION);
    // No heartbeats after the release.
    assert_eq!(u.poll_timeout(), None);
}

#[test]
fn heartbeat_requests_are_answered_whatever_the_state() {
    let mut u = Upf::new(upf_config());
    let now = Instant::now();
    let hb = Message::node(seq(0x12_3456), HeartbeatRequest::new(CP_TS))
        .to_vec()
        .unwrap();
    let (m, _) = exchange(&mut u, now, cp_addr(), &hb);
    assert_eq!(m.sequence, seq(0x12_3456));
    assert_eq!(
        m.body,
        MessageBody::HeartbeatResponse(HeartbeatResponse::new(UP_TS))
    );
    // One without its mandatory Recovery Time Stamp (eUPF exits on it): answered all the same.
    let (m, _) = exchange(&mut u, now, cp_addr(), &[0x20, 1, 0, 4, 0, 0, 9, 0]);
    assert_eq!(m.sequence, seq(9));
    assert_eq!(
        m.body,
        MessageBody::HeartbeatResponse(HeartbeatResponse::new(UP_TS))
    );
    assert_eq!(u.stats().heartbeats_answered, 2);
}

#[test]
fn the_upf_side_sends_its_own_heartbeats_once_associated() {
    let (mut u, now) = associated();
    let due = u.poll_timeout().unwrap();
    assert_eq!(due - now, Duration::from_secs(10));
    u.handle_timeout(due);
    let t = u.poll_transmit().unwrap();
    assert_eq!(t.destination, cp_addr());
    let m = Message::parse(&t.contents).unwrap();
    assert_eq!(
        m.body,
        MessageBody::HeartbeatRequest(HeartbeatRequest::new(UP_TS))
    );
    let rsp = Message::node(m.sequence, HeartbeatResponse::new(CP_TS))
        .to_vec()
        .unwrap();
    u.handle_datagram(due, cp_addr(), &rsp);
    assert_eq!(u.poll_transmit(), None);
    assert_eq!(u.poll_event(), None);
    assert_eq!(
        u.poll_timeout().unwrap() - due,
        Duration::from_secs(10),
        "answered: only the next heartbeat is pending"
    );
    // A changed CP Recovery Time Stamp in a Heartbeat Response: the CP function restarted.
    u.handle_timeout(due + Duration::from_secs(10));
    let m = Message::parse(&u.poll_transmit().unwrap().contents).unwrap();
    let rsp = Message::node(
        m.sequence,
        HeartbeatResponse::new(NtpTimestamp(CP_TS.0 + 1)),
    )
    .to_vec()
    .unwrap();
    u.handle_datagram(due, cp_addr(), &rsp);
    assert!(matches!(
        u.poll_event(),
        Some(UpfEvent::PeerRestarted {
            sessions_removed: 0,
            ..
        })
    ));
    assert_eq!(u.associated_peer(), None);
}

#[test]
fn other_versions_and_unserved_messages() {
    let mut u = Upf::new(upf_config());
    let now = Instant::now();
    // Version 2: Version Not Supported Response with the request's sequence number.
    let (m, _) = exchange(&mut u, now, cp_addr(), &[0x40, 5, 0, 4, 0, 0, 7, 0]);
    assert_eq!(
        (m.message_type(), m.sequence),
        (MessageType::VERSION_NOT_SUPPORTED_RESPONSE, seq(7))
    );
    // PFD Management Request: not served, not answered.
    u.handle_datagram(now, cp_addr(), &[0x20, 3, 0, 4, 0, 0, 8, 0]);
    assert_eq!(u.poll_transmit(), None);
    // A stray response.
    u.handle_datagram(
        now,
        cp_addr(),
        &Message::node(seq(5), HeartbeatResponse::new(CP_TS))
            .to_vec()
            .unwrap(),
    );
    assert_eq!(u.poll_transmit(), None);
    assert_eq!(u.stats().unmatched_responses, 1);
    // Garbage.
    u.handle_datagram(now, cp_addr(), &[1, 2, 3]);
    assert_eq!(u.poll_transmit(), None);
    assert_eq!(u.stats().invalid, 3);
}
