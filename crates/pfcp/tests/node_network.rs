//! Client against UPF side over the in-memory network with a virtual clock: loss, silence,
//! restarts, and long runs of heartbeats.

mod common;

use std::collections::HashSet;
use std::time::Duration;

use common::net::*;
use upfbench_pfcp::header::Header;
use upfbench_pfcp::ie::NtpTimestamp;
use upfbench_pfcp::node::{
    AssociationState, Event, NodeError, Procedure, RuleChange, SessionState, Upf, UpfEvent,
};
use upfbench_pfcp::{Message, MessageBody, MessageType, SequenceNumber};

const SESSIONS: u32 = 10_000;

#[test]
fn lossy_network_establishes_10000_sessions_exactly_once_and_deletes_them() {
    let mut net = lossy_associated_net();
    establish_all(&mut net);
    check_established_exactly_once_at_the_upf(&net);
    check_sessions_match_the_upf_rules(&net);
    delete_all(&mut net);
}

/// 30% of datagrams lost each way, 5% duplicated, batches reordered, associated and past the
/// first heartbeat exchange. With N1 = 20 a request fails only if 21 exchanges in a row lose the
/// request or the response (0.51^21 ≈ 7e-7).
fn lossy_associated_net() -> Net {
    let mut c = client_config();
    c.node.n1 = 20;
    // A fixed window: this test is about loss, not about finding the UPF's capacity.
    c.window = 256;
    c.initial_window = 256;
    let mut u = upf_config();
    u.node.n1 = 20;
    let mut net = Net::new(c, u, 0x5eed);
    net.loss_to_upf = 0.3;
    net.loss_to_client = 0.3;
    net.duplicate = 0.05;
    net.reorder = true;
    net.associate();
    // Session requests wait for the first heartbeat exchange (which may need retransmissions).
    assert!(net.run_until(Duration::from_secs(600), |n| {
        !n.client.waiting_for_heartbeat()
    }));
    net.take_client_events();
    net
}

/// Establishes the 10,000 sessions through the window of 256 and waits for them: none fails.
fn establish_all(net: &mut Net) {
    for i in 0..SESSIONS {
        net.client.establish(net.now, &plan(i)).unwrap();
    }
    assert_eq!(net.client.in_flight(), 256);
    assert_eq!(net.client.queued(), SESSIONS as usize - 256);
    let established = |n: &Net| {
        n.client_events
            .iter()
            .filter(|(_, e)| matches!(e, Event::Established(_)))
            .count()
    };
    let done = net.run_until(Duration::from_secs(24 * 3600), |n| {
        n.client.in_flight() == 0 && n.client.queued() == 0
    });
    assert!(done);
    let failures: Vec<_> = net
        .client_events
        .iter()
        .filter(|(_, e)| matches!(e, Event::Failed(_)))
        .collect();
    assert!(
        failures.is_empty(),
        "{} failures, first {:?}",
        failures.len(),
        failures.first()
    );
    assert_eq!(established(net), SESSIONS as usize);
}

/// Exactly once at the UPF side: 10,000 applied, 10,000 in the table, and the retransmitted
/// requests it did see were answered from the cache.
fn check_established_exactly_once_at_the_upf(net: &Net) {
    let up = net.upf.stats();
    assert_eq!(up.sessions_established, u64::from(SESSIONS));
    assert_eq!(net.upf.rules().len(), SESSIONS as usize);
    assert_eq!(net.upf.rules().uplink_count(), SESSIONS as usize);
    assert_eq!(net.upf.rules().downlink_count(), SESSIONS as usize);
    assert!(up.answered_from_cache > 1000, "{up:?}");
    let cs = net.client.stats();
    assert!(cs.retransmissions > 3000, "{cs:?}");
    assert_eq!(cs.sessions_established, u64::from(SESSIONS));
}

/// Every client session holds the UP SEID of the UPF session made from its request.
fn check_sessions_match_the_upf_rules(net: &Net) {
    let mut up_seids = HashSet::new();
    for i in 0..SESSIONS {
        let p = plan(i);
        let s = net.client.session(p.cp_seid()).unwrap();
        assert_eq!(s.state, SessionState::Established);
        let up_seid = s.up_seid.unwrap();
        assert!(up_seids.insert(up_seid));
        let r = net.upf.rules().session(up_seid).unwrap();
        assert_eq!(r.cp_f_seid.seid, p.cp_seid());
        let upfbench_pfcp::plan::UplinkTeid::Assigned(teid) = p.ue.uplink_teid else {
            unreachable!()
        };
        assert_eq!(net.upf.rules().uplink(teid).unwrap().up_seid, up_seid);
        let std::net::IpAddr::V4(ue) = p.ue_address() else {
            panic!("IPv4 plans")
        };
        let dl = net.upf.rules().downlink(ue).unwrap();
        assert_eq!(dl.up_seid, up_seid);
        assert_eq!(dl.tunnel.unwrap().teid, p.ue.downlink_teid);
    }
    let installed = net
        .upf_events
        .iter()
        .filter(|(_, e)| matches!(e, UpfEvent::Rules(RuleChange::Installed(_))))
        .count();
    assert_eq!(installed, SESSIONS as usize);
}

/// Deletes every session: both sides end empty, with no failure and no lost heartbeat.
fn delete_all(net: &mut Net) {
    for i in 0..SESSIONS {
        net.client.delete(net.now, plan(i).cp_seid()).unwrap();
    }
    assert!(net.run_until(Duration::from_secs(24 * 3600), |n| {
        n.client.in_flight() == 0 && n.client.queued() == 0
    }));
    let deleted = net
        .client_events
        .iter()
        .filter(|(_, e)| matches!(e, Event::Deleted(_)))
        .count();
    assert_eq!(deleted, SESSIONS as usize);
    assert_eq!(net.client.session_count(), 0);
    assert!(net.upf.rules().is_empty());
    assert_eq!(net.upf.rules().uplink_count(), 0);
    assert_eq!(net.upf.stats().sessions_deleted, u64::from(SESSIONS));
    assert!(
        !net.client_events
            .iter()
            .any(|(_, e)| matches!(e, Event::Failed(_) | Event::HeartbeatLost { .. }))
    );
}

#[test]
fn silent_peer_times_out_after_n1_retransmissions_at_t1_spacing() {
    let mut net = Net::new(client_config(), upf_config(), 1);
    net.loss_to_upf = 1.0;
    net.capture = true;
    let t0 = net.now;
    net.client.associate(t0).unwrap();
    assert!(net.run_until(Duration::from_secs(60), |n| !n.client_events.is_empty()));
    // N1 = 3: the request at 0 s, retransmissions at 3, 6, 9 s, all with the same sequence
    // number and bytes; the give-up at 12 s.
    let sent: Vec<_> = net
        .captured
        .iter()
        .filter(|c| c.dir == Dir::ToUpf)
        .collect();
    let times: Vec<u64> = sent.iter().map(|c| (c.at - t0).as_secs()).collect();
    assert_eq!(times, [0, 3, 6, 9]);
    assert!(sent.iter().all(|c| c.bytes == sent[0].bytes));
    let seq = Header::new_checked(&sent[0].bytes[..]).unwrap().sequence();
    let (at, e) = &net.client_events[0];
    assert_eq!(*at - t0, Duration::from_secs(12));
    assert_eq!(
        *e,
        Event::Failed(NodeError::Timeout {
            procedure: Procedure::AssociationSetup,
            peer: up_addr(),
            seq,
            attempts: 4,
        })
    );
    assert_eq!(
        e_to_string(e),
        "Association Setup with 192.168.14.151:8805: no response to sequence number 1 after 4 transmissions"
    );
    assert_eq!(net.client.association_state(), AssociationState::Idle);
    assert_eq!(net.client.stats().retransmissions, 3);
    assert_eq!(net.client.stats().timeouts, 1);
    // Nothing more is sent, and no timer is left.
    net.run_for(Duration::from_secs(100));
    assert_eq!(net.captured.len(), 4);
    assert_eq!(net.client.poll_timeout(), None);
}

fn e_to_string(e: &Event) -> String {
    match e {
        Event::Failed(err) => err.to_string(),
        other => format!("{other:?}"),
    }
}

#[test]
fn silent_peer_fails_session_establishment_with_a_timeout() {
    let mut net = Net::new(client_config(), upf_config(), 2);
    net.associate();
    net.take_client_events();
    net.loss_to_upf = 1.0;
    let t0 = net.now;
    let cp = net.client.establish(t0, &plan(0)).unwrap();
    assert!(net.run_until(Duration::from_secs(60), |n| {
        n.client_events
            .iter()
            .any(|(_, e)| matches!(e, Event::Failed(_)))
    }));
    let (at, Event::Failed(err)) = &net.client_events[0] else {
        panic!("{:?}", net.client_events)
    };
    assert_eq!(*at - t0, Duration::from_secs(12));
    assert!(matches!(
        err,
        NodeError::Timeout { procedure: Procedure::SessionEstablishment(s), attempts: 4, .. } if *s == cp
    ));
    assert!(net.client.session(cp).is_none());
    assert_eq!(net.client.in_flight(), 0);
}

#[test]
fn unanswered_heartbeats_are_reported_lost() {
    let mut net = Net::new(client_config(), upf_config(), 3);
    net.associate();
    net.take_client_events();
    let t0 = net.now;
    net.loss_to_upf = 1.0;
    net.capture = true;
    assert!(net.run_until(Duration::from_secs(60), |n| !n.client_events.is_empty()));
    // First heartbeat at 10 s, retransmitted at 13, 16, 19 s, lost at 22 s.
    let hb: Vec<u64> = net
        .captured
        .iter()
        .filter(|c| c.dir == Dir::ToUpf && c.bytes[1] == MessageType::HEARTBEAT_REQUEST.0)
        .map(|c| (c.at - t0).as_secs())
        .collect();
    assert_eq!(hb, [10, 13, 16, 19]);
    let (at, e) = &net.client_events[0];
    assert_eq!(*at - t0, Duration::from_secs(22));
    assert!(matches!(e, Event::HeartbeatLost { peer, .. } if *peer == up_addr()));
    // The UPF side's own heartbeats still reach the client and are answered (the answers are
    // lost on the cut direction, so the UPF side reports its heartbeats lost too).
    assert!(net.client.stats().heartbeats_answered >= 2);
    assert!(
        net.upf_events
            .iter()
            .any(|(_, e)| matches!(e, UpfEvent::HeartbeatLost { .. }))
    );
}

#[test]
fn upf_restart_is_detected_by_the_client() {
    let mut c = client_config();
    c.node.heartbeat_interval = Some(Duration::from_secs(5));
    let mut net = Net::new(c, upf_config(), 4);
    net.associate();
    for i in 0..10 {
        net.client.establish(net.now, &plan(i)).unwrap();
    }
    net.settle();
    assert_eq!(net.client.session_count(), 10);
    net.take_client_events();

    // The UPF restarts: a new process, a new Recovery Time Stamp, no state.
    let mut u = upf_config();
    u.node.recovery_time_stamp = NtpTimestamp(UP_TS.0 + 100);
    net.upf = Upf::new(u);
    let restarted = net.now;
    assert!(net.run_until(Duration::from_secs(30), |n| !n.client_events.is_empty()));
    let (at, e) = net.client_events[0].clone();
    let Event::PeerRestarted { previous_seen, .. } = e else {
        panic!("{e:?}")
    };
    // The old value was last seen before the restart: the restart lies between the two.
    assert!(previous_seen <= restarted && previous_seen >= net.start);
    assert_eq!(
        e,
        Event::PeerRestarted {
            peer: up_addr(),
            previous: UP_TS,
            current: NtpTimestamp(UP_TS.0 + 100),
            previous_seen,
            sessions_lost: 10,
        }
    );
    // Found by the first heartbeat after the restart.
    assert!(at - net.start <= Duration::from_secs(6));
    assert_eq!(net.client.association_state(), AssociationState::Idle);
    assert_eq!(net.client.session_count(), 0);
    assert_eq!(
        net.client.peer_recovery_time_stamp(),
        Some(NtpTimestamp(UP_TS.0 + 100))
    );
    // Set up again, the sessions can be established again.
    net.take_client_events();
    net.associate();
    net.client.establish(net.now, &plan(0)).unwrap();
    net.settle();
    assert_eq!(net.upf.rules().len(), 1);
}

#[test]
fn restart_seen_in_the_upf_heartbeat_request_too() {
    // The client sends no heartbeats here; the restarted UPF's own heartbeat reveals it.
    let mut c = client_config();
    c.node.heartbeat_interval = None;
    let mut net = Net::new(c, upf_config(), 5);
    net.associate();
    net.take_client_events();
    // The restarted UPF's Heartbeat Request (real UPFs keep sending them to the CP address
    // they knew) carries its new Recovery Time Stamp.
    let hb = Message::node(
        SequenceNumber::new(77).unwrap(),
        upfbench_pfcp::message::HeartbeatRequest::new(NtpTimestamp(UP_TS.0 + 7)),
    )
    .to_vec()
    .unwrap();
    net.client.handle_datagram(net.now, up_addr(), &hb);
    let rsp = net.client.poll_transmit().unwrap();
    let m = Message::parse(&rsp.contents).unwrap();
    assert_eq!(m.sequence.get(), 77);
    assert_eq!(
        m.body,
        MessageBody::HeartbeatResponse(upfbench_pfcp::message::HeartbeatResponse::new(CP_TS))
    );
    assert!(matches!(
        net.client.poll_event(),
        Some(Event::PeerRestarted { previous, .. }) if previous == UP_TS
    ));
}

#[test]
fn cp_restart_is_detected_by_the_upf_side_which_drops_its_sessions() {
    let mut net = Net::new(client_config(), upf_config(), 6);
    net.associate();
    for i in 0..5 {
        net.client.establish(net.now, &plan(i)).unwrap();
    }
    net.settle();
    assert_eq!(net.upf.rules().len(), 5);
    net.take_upf_events();
    // The tester restarts: a new client, a new Recovery Time Stamp, sequence numbers from 1
    // again (the UPF's cache must not mistake its requests for retransmissions).
    let mut c = client_config();
    c.node.recovery_time_stamp = NtpTimestamp(CP_TS.0 + 60);
    net.client = upfbench_pfcp::node::Client::new(c);
    net.associate();
    let ev = net.take_upf_events();
    let removed = ev
        .iter()
        .filter(|e| matches!(e, UpfEvent::Rules(RuleChange::Removed(_))))
        .count();
    assert_eq!(removed, 5);
    assert!(ev.iter().any(|e| matches!(
        e,
        UpfEvent::PeerRestarted { previous, current, sessions_removed: 5, .. }
            if *previous == CP_TS && current.0 == CP_TS.0 + 60
    )));
    assert!(matches!(ev.last(), Some(UpfEvent::Associated { .. })));
    assert!(net.upf.rules().is_empty());
    // The new client can use the same CP SEIDs and TEIDs again.
    net.client.establish(net.now, &plan(0)).unwrap();
    net.settle();
    assert_eq!(net.upf.rules().len(), 1);
}

#[test]
fn heartbeats_answered_for_ten_virtual_minutes_with_a_fixed_recovery_time_stamp() {
    let mut c = client_config();
    c.node.heartbeat_interval = Some(Duration::from_secs(5));
    let mut net = Net::new(c, upf_config(), 7);
    net.capture = true;
    net.associate();
    let t0 = net.now;
    net.run_for(Duration::from_secs(600));
    let mut requests = std::collections::HashMap::new();
    let mut answered = 0;
    for c in &net.captured {
        let m = Message::parse(&c.bytes).unwrap();
        match (c.dir, &m.body) {
            (Dir::ToClient, MessageBody::HeartbeatRequest(r)) => {
                assert_eq!(r.recovery_time_stamp, UP_TS);
                requests.insert(m.sequence, c.at);
            }
            (Dir::ToUpf, MessageBody::HeartbeatResponse(r)) => {
                // Same sequence number as the request, sent when it arrived, our fixed stamp.
                assert_eq!(r.recovery_time_stamp, CP_TS);
                assert_eq!(requests.get(&m.sequence), Some(&c.at));
                answered += 1;
            }
            (Dir::ToUpf, MessageBody::HeartbeatRequest(r)) => {
                assert_eq!(r.recovery_time_stamp, CP_TS)
            }
            (Dir::ToClient, MessageBody::HeartbeatResponse(r)) => {
                assert_eq!(r.recovery_time_stamp, UP_TS)
            }
            _ => {}
        }
    }
    // The UPF side heartbeats every 10 s; the client once right after associating (before any
    // session request), then every 5 s.
    assert_eq!(answered, 60);
    assert_eq!(net.client.stats().heartbeats_answered, 60);
    assert_eq!(net.upf.stats().heartbeats_answered, 1 + 120);
    assert_eq!(net.client.stats().requests_sent, 1 + 1 + 120);
    assert_eq!(net.client.stats().retransmissions, 0);
    assert_eq!(net.now - t0, Duration::from_secs(600));
    assert_eq!(net.client.association_state(), AssociationState::Associated);
    assert_eq!(net.upf.associated_peer(), Some(cp_addr()));
    assert!(
        net.client_events
            .iter()
            .all(|(_, e)| matches!(e, Event::Associated { .. }))
    );
    // Fresh sequence numbers for each of our requests.
    let seqs: HashSet<SequenceNumber> = net
        .captured
        .iter()
        .filter(|c| c.dir == Dir::ToUpf && c.bytes[1] % 2 == 1)
        .map(|c| Message::parse(&c.bytes).unwrap().sequence)
        .collect();
    assert_eq!(seqs.len(), 122);
}
