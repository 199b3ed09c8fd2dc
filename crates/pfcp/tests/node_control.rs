//! What real UPFs taught the client (docs/pfcp.md), on the sans-IO
//! nodes with a virtual clock: the session window adapts to a UPF whose receive buffer
//! overflows; one heartbeat exchange comes before the first session request; the Association
//! Release is sent once; Causes, latencies and lost sessions are counted.

mod common;

use std::time::Duration;

use common::net::*;
use upfbench_pfcp::ie::Cause;
use upfbench_pfcp::message::SessionDeletionRequest;
use upfbench_pfcp::node::{AssociationState, ClientConfig, Event, NodeError, Procedure};
use upfbench_pfcp::{Message, MessageType, SequenceNumber};

const SESSIONS: u32 = 1000;

/// Establishes `SESSIONS` sessions through a UPF that takes at most `buffer` datagrams at once;
/// returns the network when all are settled.
fn establish_through_a_small_buffer(c: ClientConfig, buffer: usize) -> Net {
    let mut net = Net::new(c, upf_config(), 11);
    net.upf_buffer = Some(buffer);
    net.associate();
    for i in 0..SESSIONS {
        net.client.establish(net.now, &plan(i)).unwrap();
    }
    let done = net.run_until(Duration::from_secs(3600), |n| {
        n.client.in_flight() == 0 && n.client.queued() == 0
    });
    assert!(done, "{:?}", net.client.stats());
    net
}

#[test]
fn the_window_adapts_to_a_upf_whose_receive_buffer_overflows() {
    let mut c = client_config();
    c.initial_window = 16;
    c.window = 256;
    let adaptive = establish_through_a_small_buffer(c, 40);
    let s = adaptive.client.stats();
    // Every session established exactly once, despite the overflow.
    assert_eq!(s.sessions_established, u64::from(SESSIONS));
    assert_eq!(adaptive.upf.rules().len(), SESSIONS as usize);
    assert_eq!(
        adaptive.upf.stats().sessions_established,
        u64::from(SESSIONS)
    );
    // It grew past what the UPF takes, lost some, retransmitted them, and shrank.
    assert!(adaptive.overflowed > 0);
    assert!(s.retransmissions >= adaptive.overflowed, "{s:?}");
    assert_eq!(s.timeouts, 0);
    assert!(s.window_largest > 40, "{s:?}");
    assert!(s.window <= 40, "{s:?}");

    // The same with the old fixed window of 256: every round overflows and waits T1.
    let mut c = client_config();
    c.initial_window = 256;
    c.window = 256;
    let fixed = establish_through_a_small_buffer(c, 40);
    let f = fixed.client.stats();
    assert_eq!(f.sessions_established, u64::from(SESSIONS));
    assert!(
        fixed.overflowed > 4 * adaptive.overflowed,
        "adaptive lost {}, fixed {}",
        adaptive.overflowed,
        fixed.overflowed
    );
    assert!(
        fixed.elapsed() > 2 * adaptive.elapsed(),
        "adaptive {:?}, fixed {:?}",
        adaptive.elapsed(),
        fixed.elapsed()
    );
}

/// Carries the Association Setup Request and its response by hand, leaving whatever the client
/// sends next (its first heartbeat) undelivered.
fn associate_by_hand(net: &mut Net) {
    net.client.associate(net.now).unwrap();
    let req = net.client.poll_transmit().unwrap();
    net.upf.handle_datagram(net.now, cp_addr(), &req.contents);
    let rsp = net.upf.poll_transmit().unwrap();
    net.client
        .handle_datagram(net.now, up_addr(), &rsp.contents);
    assert_eq!(net.client.association_state(), AssociationState::Associated);
}

#[test]
fn a_heartbeat_exchange_comes_before_the_first_session_request() {
    let mut net = Net::new(client_config(), upf_config(), 3);
    associate_by_hand(&mut net);
    assert!(net.client.waiting_for_heartbeat());
    net.capture = true;
    for i in 0..3 {
        net.client.establish(net.now, &plan(i)).unwrap();
    }
    assert_eq!(
        net.client.in_flight(),
        0,
        "nothing goes before the heartbeat is answered"
    );
    net.run_until(Duration::from_secs(60), |n| {
        n.client.session_count() == 3 && n.client.in_flight() == 0
    });
    let order: Vec<(Dir, MessageType)> = net
        .captured
        .iter()
        .filter(|c| !c.dropped)
        .map(|c| (c.dir, Message::parse(&c.bytes).unwrap().message_type()))
        .collect();
    let first_session = order
        .iter()
        .position(|(d, t)| *d == Dir::ToUpf && *t == MessageType::SESSION_ESTABLISHMENT_REQUEST)
        .expect("sessions were sent");
    let answered = order
        .iter()
        .position(|(d, t)| *d == Dir::ToClient && *t == MessageType::HEARTBEAT_RESPONSE)
        .expect("the heartbeat was answered");
    assert!(answered < first_session, "{order:?}");
    assert!(!net.client.waiting_for_heartbeat());
}

#[test]
fn session_requests_wait_for_a_lost_heartbeats_retransmission() {
    let mut net = Net::new(client_config(), upf_config(), 4);
    associate_by_hand(&mut net);
    net.client.establish(net.now, &plan(0)).unwrap();
    assert!(net.client.waiting_for_heartbeat());
    let t0 = net.now;
    net.loss_to_upf = 1.0;
    net.run_for(Duration::from_secs(1));
    net.loss_to_upf = 0.0;
    assert_eq!(net.client.in_flight(), 0);
    assert!(net.client.waiting_for_heartbeat());
    // T1 (3 s) later the heartbeat is sent again, answered, and the session goes.
    net.run_until(Duration::from_secs(60), |n| {
        n.client.stats().sessions_established == 1
    });
    assert!(net.now - t0 >= Duration::from_secs(3));
    assert_eq!(net.client.stats().sessions_established, 1);
}

#[test]
fn the_association_release_is_sent_once_and_ends_after_the_wait() {
    let mut c = client_config();
    c.release_wait = Duration::from_millis(700);
    let mut net = Net::new(c, upf_config(), 5);
    net.associate();
    net.run_until(Duration::from_secs(60), |n| {
        !n.client.waiting_for_heartbeat()
    });
    net.take_client_events();
    // A UPF that never answers the release (neither Open5GS nor eUPF does).
    net.capture = true;
    net.loss_to_upf = 1.0;
    let t0 = net.now;
    net.client.release(net.now).unwrap();
    net.run_until(Duration::from_secs(60), |n| {
        n.client.association_state() == AssociationState::Idle
    });
    assert_eq!(net.now - t0, Duration::from_millis(700));
    let releases = net
        .captured
        .iter()
        .filter(|c| c.bytes[1] == MessageType::ASSOCIATION_RELEASE_REQUEST.0)
        .count();
    assert_eq!(releases, 1, "sent once, never retransmitted");
    assert!(matches!(
        &net.take_client_events()[..],
        [Event::Failed(NodeError::Timeout {
            procedure: Procedure::AssociationRelease,
            attempts: 1,
            ..
        })]
    ));
}

#[test]
fn causes_latencies_and_sessions_lost_behind_our_back_are_counted() {
    let mut net = Net::new(client_config(), upf_config(), 6);
    net.associate();
    for i in 0..10 {
        net.client.establish(net.now, &plan(i)).unwrap();
    }
    net.run_until(Duration::from_secs(60), |n| {
        n.client.session_count() == 10 && n.client.in_flight() == 0
    });
    // The UPF loses session 3 (as Open5GS's "PFCP restoration" does): a deletion reaches it
    // from elsewhere.
    let s = *net.client.session(plan(3).cp_seid()).unwrap();
    let msg = Message::session(
        s.up_seid.unwrap(),
        SequenceNumber::new(9999).unwrap(),
        SessionDeletionRequest::default(),
    );
    net.upf
        .handle_datagram(net.now, cp_addr(), &msg.to_vec().unwrap());
    while net.upf.poll_transmit().is_some() {}
    for i in 0..10 {
        net.client.delete(net.now, plan(i).cp_seid()).unwrap();
    }
    net.run_until(Duration::from_secs(60), |n| n.client.in_flight() == 0);
    let f = net.client.figures();
    assert_eq!(f.lost_sessions, 1);
    assert_eq!(
        f.named_causes(),
        [
            (1, "Request accepted (1)".to_owned(), 19),
            (65, "Session context not found (65)".to_owned(), 1)
        ]
    );
    assert_eq!(f.establishment_us.len(), 10);
    assert_eq!(f.deletion_us.len(), 10);
    // The failed deletion comes back with its Cause.
    assert!(net.client_events.iter().any(|(_, e)| matches!(
        e,
        Event::Failed(NodeError::Rejected {
            cause: Cause::SESSION_CONTEXT_NOT_FOUND,
            ..
        })
    )));
}
