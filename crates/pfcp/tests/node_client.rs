//! The client's procedures: the window, modify/delete/release, CH=1, command errors,
//! rejections, retransmission rules, and what the UPF sends it unasked.

mod common;

use std::net::Ipv4Addr;
use std::time::Duration;

use common::net::*;
use common::plans::ue_v4;
use upfbench_pfcp::header::Header;
use upfbench_pfcp::ie::*;
use upfbench_pfcp::message::*;
use upfbench_pfcp::node::{
    AssociationState, Client, Event, NodeError, Procedure, SessionState, Tunnel, UpfEvent,
};
use upfbench_pfcp::plan::UplinkTeid;
use upfbench_pfcp::{Message, MessageBody, PdrId, Seid, SequenceNumber, Teid, UrrId};

fn associated_net(seed: u64) -> Net {
    let mut net = Net::new(client_config(), upf_config(), seed);
    net.associate();
    net.take_client_events();
    net.take_upf_events();
    net
}

#[test]
fn the_window_bounds_requests_in_flight_and_refills_as_responses_arrive() {
    let mut c = client_config();
    c.window = 4;
    let mut net = Net::new(c, upf_config(), 1);
    net.associate();
    for i in 0..10 {
        net.client.establish(net.now, &plan(i)).unwrap();
    }
    assert_eq!((net.client.in_flight(), net.client.queued()), (4, 6));
    let first: Vec<_> = std::iter::from_fn(|| net.client.poll_transmit()).collect();
    assert_eq!(first.len(), 4);
    // One response lets exactly one more request go.
    net.upf
        .handle_datagram(net.now, cp_addr(), &first[0].contents);
    let rsp = net.upf.poll_transmit().unwrap();
    net.client
        .handle_datagram(net.now, up_addr(), &rsp.contents);
    let next: Vec<_> = std::iter::from_fn(|| net.client.poll_transmit()).collect();
    assert_eq!(next.len(), 1);
    assert_eq!((net.client.in_flight(), net.client.queued()), (4, 5));
    // Sequence numbers are fresh per request (1 was the Association Setup, 2 the heartbeat
    // exchanged before any session request).
    let seqs: Vec<u32> = first
        .iter()
        .chain(&next)
        .map(|t| {
            Header::new_checked(&t.contents[..])
                .unwrap()
                .sequence()
                .get()
        })
        .collect();
    assert_eq!(seqs, [3, 4, 5, 6, 7]);
    for t in &first[1..] {
        net.upf.handle_datagram(net.now, cp_addr(), &t.contents);
    }
    net.upf
        .handle_datagram(net.now, cp_addr(), &next[0].contents);
    net.settle();
    assert_eq!(net.client.session_count(), 10);
    assert!(
        net.client
            .sessions()
            .all(|s| s.state == SessionState::Established)
    );
    assert_eq!(net.upf.rules().len(), 10);
}

#[test]
fn establish_modify_delete_release() {
    let mut net = associated_net(2);
    let p = plan(0);
    let cp = net.client.establish(net.now, &p).unwrap();
    assert_eq!(
        net.client.session(cp).unwrap().state,
        SessionState::Establishing
    );
    net.settle();
    let s = *net.client.session(cp).unwrap();
    assert_eq!(s.state, SessionState::Established);
    let up = s.up_seid.unwrap();
    assert_eq!(s.up_address, Some(UP.into()));
    assert_eq!(s.uplink_endpoint(), Some((Teid(1), UPF_N3.into())));
    assert_eq!(net.take_client_events(), [Event::Established(s)]);

    let gnb2 = Ipv4Addr::new(192, 168, 13, 132);
    net.client
        .modify(
            net.now,
            cp,
            p.path_switch_request(Teid(99), gnb2.into(), true),
        )
        .unwrap();
    assert_eq!(
        net.client.session(cp).unwrap().state,
        SessionState::Modifying
    );
    net.settle();
    assert_eq!(net.take_client_events(), [Event::Modified(s)]);
    assert_eq!(
        net.upf.rules().downlink(ue_v4(&p)).unwrap().tunnel,
        Some(Tunnel {
            teid: Teid(99),
            address: gnb2.into()
        })
    );

    net.client.establish(net.now, &plan(1)).unwrap();
    net.client.delete(net.now, cp).unwrap();
    net.settle();
    let ev = net.take_client_events();
    assert!(ev.contains(&Event::Deleted(Session {
        state: SessionState::Deleting,
        ..s
    })));
    assert!(net.client.session(cp).is_none());
    assert!(net.upf.rules().session(up).is_none());
    assert_eq!(net.upf.rules().len(), 1);

    net.client.release(net.now).unwrap();
    assert_eq!(net.client.association_state(), AssociationState::Releasing);
    net.settle();
    assert_eq!(net.take_client_events(), [Event::Released]);
    assert_eq!(net.client.association_state(), AssociationState::Idle);
    assert_eq!(net.client.session_count(), 0);
    assert!(net.upf.rules().is_empty());
    assert!(matches!(
        net.take_upf_events().last(),
        Some(UpfEvent::Released {
            sessions_removed: 1,
            ..
        })
    ));
    // Released: no more heartbeats from us.
    let sent = net.client.stats().requests_sent;
    net.run_for(Duration::from_secs(60));
    assert_eq!(net.client.stats().requests_sent, sent);
}

use upfbench_pfcp::node::Session;

#[test]
fn a_upf_chosen_uplink_teid_is_read_back_from_the_created_pdr() {
    let mut net = associated_net(3);
    let mut p = plan(0);
    p.ue.uplink_teid = UplinkTeid::ChosenByUpf;
    let cp = net.client.establish(net.now, &p).unwrap();
    assert!(matches!(
        net.client.session(cp).unwrap().uplink_f_teid,
        Some(Fteid::Choose { .. })
    ));
    assert_eq!(net.client.session(cp).unwrap().uplink_endpoint(), None);
    net.settle();
    let first = upf_config().first_teid;
    assert_eq!(
        net.client.session(cp).unwrap().uplink_endpoint(),
        Some((first, UPF_N3.into()))
    );
    assert_eq!(
        net.upf.rules().uplink(first).unwrap().ue_address,
        Some(ue_v4(&p))
    );
}

#[test]
fn commands_that_cannot_run_say_why() {
    let mut net = Net::new(client_config(), upf_config(), 4);
    let now = net.now;
    let p = plan(0);
    assert_eq!(
        net.client.establish(now, &p),
        Err(NodeError::NotAssociated {
            procedure: Procedure::SessionEstablishment(p.cp_seid()),
            peer: up_addr()
        })
    );
    assert!(matches!(
        net.client.release(now),
        Err(NodeError::NotAssociated { .. })
    ));
    net.client.associate(now).unwrap();
    assert!(matches!(
        net.client.associate(now),
        Err(NodeError::Busy {
            procedure: Procedure::AssociationSetup,
            ..
        })
    ));
    net.settle();
    let cp = net.client.establish(now, &p).unwrap();
    assert_eq!(
        net.client.establish(now, &p),
        Err(NodeError::DuplicateSession {
            procedure: Procedure::SessionEstablishment(cp)
        })
    );
    let busy = net.client.delete(now, cp).unwrap_err();
    assert_eq!(
        busy.to_string(),
        "Session Deletion (CP SEID 0x1): not possible while the session is being established"
    );
    assert_eq!(
        net.client.delete(now, Seid(77)),
        Err(NodeError::UnknownSession {
            procedure: Procedure::SessionDeletion(Seid(77))
        })
    );
    net.settle();
    net.client.delete(now, cp).unwrap();
    assert!(matches!(
        net.client
            .modify(now, cp, SessionModificationRequest::default()),
        Err(NodeError::Busy { .. })
    ));
}

#[test]
fn rejections_reach_the_caller_with_cause_offending_ie_and_failed_rule() {
    let mut net = associated_net(5);
    net.client.establish(net.now, &plan(0)).unwrap();
    net.settle();
    net.take_client_events();
    let mut p = plan(1);
    p.ue.uplink_teid = UplinkTeid::Assigned(Teid(1));
    let cp = net.client.establish(net.now, &p).unwrap();
    net.settle();
    let ev = net.take_client_events();
    let [Event::Failed(e)] = &ev[..] else {
        panic!("{ev:?}")
    };
    assert!(matches!(
        e,
        NodeError::Rejected {
            procedure: Procedure::SessionEstablishment(s),
            cause: Cause::RULE_CREATION_MODIFICATION_FAILURE,
            offending_ie: Some(IeType::F_TEID),
            failed_rule: Some(FailedRuleId::Pdr(PdrId(2))),
            ..
        } if *s == cp
    ));
    assert_eq!(
        e.to_string(),
        "Session Establishment (CP SEID 0x2) rejected by 192.168.14.151:8805 (sequence number 4): \
         Rule creation/modification Failure (73), offending IE F-TEID (21), failed rule PDR 2"
    );
    assert!(net.client.session(cp).is_none());
    // An association the UPF side refuses (it serves another CP function).
    let mut u = upf_config();
    u.peer = "10.1.1.1".parse().unwrap();
    let mut net = Net::new(client_config(), u, 6);
    net.client.associate(net.now).unwrap();
    net.settle();
    assert!(matches!(
        &net.take_client_events()[..],
        [Event::Failed(NodeError::Rejected {
            procedure: Procedure::AssociationSetup,
            cause: Cause::REQUEST_REJECTED,
            ..
        })]
    ));
    assert_eq!(net.client.association_state(), AssociationState::Idle);
}

#[test]
fn retransmissions_reuse_the_request_and_stop_once_answered() {
    let mut net = associated_net(7);
    net.capture = true;
    net.loss_to_client = 1.0;
    let t0 = net.now;
    net.client.establish(t0, &plan(0)).unwrap();
    net.run_for(Duration::from_secs(4));
    // Sent at 0 s and 3 s, the UPF side answered both (the second from its cache).
    let sent: Vec<_> = net
        .captured
        .iter()
        .filter(|c| c.dir == Dir::ToUpf)
        .collect();
    assert_eq!(sent.len(), 2);
    assert_eq!(sent[0].bytes, sent[1].bytes);
    assert_eq!(net.upf.stats().answered_from_cache, 1);
    // Now the responses get through: the next retransmission (6 s) is answered, and nothing
    // more is sent for that request however long we wait.
    net.loss_to_client = 0.0;
    net.run_for(Duration::from_secs(300));
    let requests: Vec<_> = net
        .captured
        .iter()
        .filter(|c| c.dir == Dir::ToUpf && c.bytes[1] == 50)
        .map(|c| (c.at - t0).as_secs())
        .collect();
    assert_eq!(requests, [0, 3, 6]);
    assert_eq!(net.upf.stats().sessions_established, 1);
    assert_eq!(net.client.stats().sessions_established, 1);
    // A late duplicate of the response changes nothing.
    let rsp = net
        .captured
        .iter()
        .rev()
        .find(|c| c.dir == Dir::ToClient && c.bytes[1] == 51)
        .unwrap()
        .bytes
        .clone();
    net.take_client_events();
    net.client.handle_datagram(net.now, up_addr(), &rsp);
    assert_eq!(net.client.poll_event(), None);
    assert_eq!(net.client.stats().unmatched_responses, 1);
}

fn report(cp: Seid, n: u32) -> Vec<u8> {
    let usage = UsageReport {
        urr_id: UrrId(1),
        ur_seqn: n,
        usage_report_trigger: UsageReportTrigger::new(UsageReportTrigger::PERIO),
        start_time: None,
        end_time: None,
        volume_measurement: None,
        duration_measurement: Some(10),
        time_of_first_packet: None,
        time_of_last_packet: None,
        usage_information: None,
        other_ies: vec![],
    };
    let req = SessionReportRequest {
        report_type: ReportType::new(ReportType::USAR),
        usage_reports: vec![usage],
        other_ies: vec![],
    };
    Message::session(cp, SequenceNumber::new(n).unwrap(), req)
        .to_vec()
        .unwrap()
}

#[test]
fn session_reports_are_answered_once_and_reported_once() {
    let mut net = associated_net(8);
    let cp = net.client.establish(net.now, &plan(0)).unwrap();
    net.settle();
    net.take_client_events();
    let up = net.client.session(cp).unwrap().up_seid.unwrap();
    let bytes = report(cp, 40);
    net.client.handle_datagram(net.now, up_addr(), &bytes);
    let first = net.client.poll_transmit().unwrap();
    let m = Message::parse(&first.contents).unwrap();
    assert_eq!((m.seid, m.sequence.get()), (Some(up), 40));
    assert!(
        matches!(m.body, MessageBody::SessionReportResponse(ref r) if r.cause == Cause::REQUEST_ACCEPTED)
    );
    assert!(
        matches!(net.client.poll_event(), Some(Event::SessionReport { cp_seid, ref request }) if cp_seid == cp && request.usage_reports[0].ur_seqn == 40)
    );
    // The UPF retransmits (our response was lost): same answer, no second event.
    net.client.handle_datagram(net.now, up_addr(), &bytes);
    assert_eq!(net.client.poll_transmit().unwrap(), first);
    assert_eq!(net.client.poll_event(), None);
    assert_eq!(net.client.stats().answered_from_cache, 1);
    // A report for a session we do not have.
    net.client
        .handle_datagram(net.now, up_addr(), &report(Seid(999), 41));
    let m = Message::parse(&net.client.poll_transmit().unwrap().contents).unwrap();
    assert_eq!(m.seid, Some(Seid(0)));
    assert!(
        matches!(m.body, MessageBody::SessionReportResponse(ref r) if r.cause == Cause::SESSION_CONTEXT_NOT_FOUND)
    );
}

#[test]
fn the_upf_releasing_the_association_empties_the_table() {
    let mut net = associated_net(9);
    for i in 0..3 {
        net.client.establish(net.now, &plan(i)).unwrap();
    }
    net.settle();
    net.take_client_events();
    let rel = Message::node(
        SequenceNumber::new(500).unwrap(),
        AssociationReleaseRequest::new(NodeId::Ipv4(UP)),
    )
    .to_vec()
    .unwrap();
    net.client.handle_datagram(net.now, up_addr(), &rel);
    let m = Message::parse(&net.client.poll_transmit().unwrap().contents).unwrap();
    assert!(
        matches!(m.body, MessageBody::AssociationReleaseResponse(ref r) if r.cause == Cause::REQUEST_ACCEPTED && r.node_id == NodeId::Ipv4(CP))
    );
    assert_eq!(
        net.client.poll_event(),
        Some(Event::PeerReleased {
            peer: up_addr(),
            sessions_lost: 3
        })
    );
    assert_eq!(net.client.association_state(), AssociationState::Idle);
    assert_eq!(net.client.session_count(), 0);
}

#[test]
fn in_flight_procedures_of_a_forgotten_session_end_as_aborted() {
    let mut c = client_config();
    c.window = 1;
    c.node.heartbeat_interval = Some(Duration::from_secs(5));
    let mut net = Net::new(c, upf_config(), 10);
    net.associate();
    net.take_client_events();
    // Two establishments: one in flight, one queued; the UPF restarts before answering.
    net.client.establish(net.now, &plan(0)).unwrap();
    net.client.establish(net.now, &plan(1)).unwrap();
    let req = net.client.poll_transmit().unwrap();
    let hb = Message::node(
        SequenceNumber::new(1).unwrap(),
        HeartbeatRequest::new(NtpTimestamp(UP_TS.0 + 1)),
    )
    .to_vec()
    .unwrap();
    net.client.handle_datagram(net.now, up_addr(), &hb);
    let ev: Vec<_> = std::iter::from_fn(|| net.client.poll_event()).collect();
    assert!(matches!(
        &ev[..],
        [
            Event::Failed(NodeError::Aborted { procedure: Procedure::SessionEstablishment(s), .. }),
            Event::PeerRestarted { sessions_lost: 2, .. },
        ] if *s == plan(1).cp_seid()
    ));
    // The old UPF's late answer to the first request does not resurrect it.
    net.upf.handle_datagram(net.now, cp_addr(), &req.contents);
    let rsp = net.upf.poll_transmit().unwrap();
    net.client
        .handle_datagram(net.now, up_addr(), &rsp.contents);
    assert!(matches!(
        net.client.poll_event(),
        Some(Event::Failed(NodeError::Aborted { procedure: Procedure::SessionEstablishment(s), .. })) if s == plan(0).cp_seid()
    ));
    assert_eq!(net.client.session_count(), 0);
    assert_eq!(net.client.in_flight(), 0);
    let _ = Client::new(client_config());
}

#[test]
fn session_requests_carry_our_node_id_whatever_the_plan_says() {
    let mut net = associated_net(12);
    net.capture = true;
    let mut p = plan(0);
    p.template_mut().node_id = NodeId::Ipv4(Ipv4Addr::new(10, 1, 2, 3));
    net.client.establish(net.now, &p).unwrap();
    net.settle();
    let req = Message::parse(&net.captured[0].bytes).unwrap();
    let MessageBody::SessionEstablishmentRequest(r) = req.body else {
        panic!("{req:?}")
    };
    assert_eq!(r.node_id, NodeId::Ipv4(CP));
    assert_eq!(req.seid, Some(Seid(0)));
}

/// The sequence number of a request the client sent.
fn sequence_of(t: &upfbench_pfcp::node::Transmit) -> SequenceNumber {
    Header::new_checked(&t.contents[..]).unwrap().sequence()
}

#[test]
fn a_version_not_supported_response_fails_the_request_at_once() {
    let mut net = associated_net(12);
    let cp = net.client.establish(net.now, &plan(0)).unwrap();
    let req = net.client.poll_transmit().unwrap();
    let seq = sequence_of(&req);
    // The UPF answers in our version's header (as our own UPF side does).
    let vns = Message::node(seq, VersionNotSupportedResponse::default())
        .to_vec()
        .unwrap();
    net.client.handle_datagram(net.now, up_addr(), &vns);
    let e = NodeError::VersionNotSupported {
        procedure: Procedure::SessionEstablishment(cp),
        peer: up_addr(),
        seq,
        version: 1,
    };
    assert_eq!(net.client.poll_event(), Some(Event::Failed(e.clone())));
    assert_eq!(
        e.to_string(),
        format!(
            "Session Establishment (CP SEID 0x1) with {}: Version Not Supported Response to \
             sequence number {seq} (we speak PFCP version 1, the peer version 1)",
            up_addr()
        )
    );
    assert!(net.client.session(cp).is_none());
    assert_eq!(
        (net.client.in_flight(), net.client.pending_requests()),
        (0, 0)
    );
    // Nothing is retransmitted and nothing times out later (past N1 × T1 = 9 s, and T1 more).
    for ms in (500..=12_500).step_by(500) {
        net.client
            .handle_timeout(net.now + Duration::from_millis(ms));
        while let Some(t) = net.client.poll_transmit() {
            // Only our own heartbeat (due at 10 s) goes out.
            assert_ne!(t.contents, req.contents);
            assert_eq!(t.contents[1], MessageType::HEARTBEAT_REQUEST.0);
        }
        assert_eq!(net.client.poll_event(), None);
    }
    assert_eq!(net.client.stats().timeouts, 0);
    // A second one, now unmatched, is only counted.
    net.client.handle_datagram(net.now, up_addr(), &vns);
    assert_eq!(net.client.poll_event(), None);
    assert_eq!(net.client.stats().unmatched_responses, 1);
}

#[test]
fn a_version_not_supported_response_in_the_peers_version_ends_the_association_setup() {
    let mut client = Client::new(client_config());
    let now = std::time::Instant::now();
    client.associate(now).unwrap();
    let req = client.poll_transmit().unwrap();
    let s = sequence_of(&req).get().to_be_bytes();
    // A PFCP version 2 peer: header version 2, message type 11, our sequence number.
    let vns = [0x40, 11, 0, 4, s[1], s[2], s[3], 0];
    // From another address it answers nothing of ours.
    let elsewhere = std::net::SocketAddr::new(Ipv4Addr::new(192, 168, 14, 152).into(), 8805);
    client.handle_datagram(now, elsewhere, &vns);
    assert_eq!(client.poll_event(), None);
    assert_eq!(client.stats().invalid, 1);
    client.handle_datagram(now, up_addr(), &vns);
    assert!(matches!(
        client.poll_event(),
        Some(Event::Failed(NodeError::VersionNotSupported {
            procedure: Procedure::AssociationSetup,
            version: 2,
            ..
        }))
    ));
    assert_eq!(client.association_state(), AssociationState::Idle);
    assert_eq!(client.pending_requests(), 0);
    assert_eq!(client.stats().invalid, 1);
    // It may be tried again.
    client.associate(now).unwrap();
}

#[test]
fn a_version_not_supported_response_to_the_upf_sides_heartbeat_is_reported() {
    let mut net = associated_net(13);
    // The UPF side's heartbeat comes due; the client's answer is replaced by a VNS.
    let due = net.upf.poll_timeout().unwrap();
    net.upf.handle_timeout(due);
    let hb = net.upf.poll_transmit().unwrap();
    let seq = sequence_of(&hb);
    let vns = Message::node(seq, VersionNotSupportedResponse::default())
        .to_vec()
        .unwrap();
    net.upf.handle_datagram(due, cp_addr(), &vns);
    assert_eq!(
        net.upf.poll_event(),
        Some(UpfEvent::HeartbeatFailed(NodeError::VersionNotSupported {
            procedure: Procedure::Heartbeat,
            peer: cp_addr(),
            seq,
            version: 1,
        }))
    );
    // Settled: the next turn sends a new heartbeat rather than waiting for this one.
    let next = net.upf.poll_timeout().unwrap();
    net.upf.handle_timeout(next);
    let hb2 = net.upf.poll_transmit().unwrap();
    assert_ne!(sequence_of(&hb2), seq);
    assert_eq!(net.upf.stats().retransmissions, 0);
}

/// A response that does not decode whole still says why when its Cause can be read: Open5GS
/// 2.7.7 refuses a session past its pool with Cause 66 and SEID 0 in an Establishment Response
/// without its mandatory Node ID. The error is an invalid response that carries the Cause.
#[test]
fn an_invalid_response_keeps_the_cause_it_carried() {
    let mut net = associated_net(13);
    let cp = net.client.establish(net.now, &plan(0)).unwrap();
    let req = net.client.poll_transmit().unwrap();
    let seq = sequence_of(&req);
    // Header: version 1 with S, Session Establishment Response, SEID 0, then Cause 66 alone.
    let mut open5gs = vec![0x21, MessageType::SESSION_ESTABLISHMENT_RESPONSE.0, 0, 17];
    open5gs.extend_from_slice(&[0; 8]);
    open5gs.extend_from_slice(&seq.get().to_be_bytes()[1..]);
    open5gs.extend_from_slice(&[0, 0, 19, 0, 1, 66]);
    net.client.handle_datagram(net.now, up_addr(), &open5gs);
    let Some(Event::Failed(e)) = net.client.poll_event() else {
        panic!("the request did not fail")
    };
    let NodeError::InvalidResponse {
        procedure, cause, ..
    } = &e
    else {
        panic!("{e:?}")
    };
    assert_eq!(
        (*procedure, *cause),
        (
            Procedure::SessionEstablishment(cp),
            Some(Cause::MANDATORY_IE_MISSING)
        )
    );
    let said = e.to_string();
    assert!(said.contains("IE Node ID (60)"), "{said}");
    assert!(
        said.ends_with(", which says Mandatory IE missing (66)"),
        "{said}"
    );
    assert!(net.client.session(cp).is_none());
}
