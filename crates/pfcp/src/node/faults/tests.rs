use core::net::{Ipv4Addr, SocketAddr};
use core::time::Duration;
use std::time::Instant;

use super::*;
use crate::message::HeartbeatRequest;
use crate::node::UpfConfig;
use crate::types::SequenceNumber;
use crate::{Message, MessageBody};

const CP: SocketAddr = SocketAddr::new(core::net::IpAddr::V4(Ipv4Addr::new(10, 0, 0, 1)), 8805);

fn upf() -> Upf {
    let mut c = UpfConfig::new(
        Ipv4Addr::new(10, 0, 0, 2),
        Ipv4Addr::new(10, 0, 3, 2),
        NtpTimestamp(100),
        CP.ip(),
    );
    c.node.heartbeat_interval = None;
    Upf::new(c)
}

fn heartbeat(seq: u32) -> Vec<u8> {
    Message::node(
        SequenceNumber::from_masked(seq),
        HeartbeatRequest::new(NtpTimestamp(7)),
    )
    .to_vec()
    .unwrap()
}

/// The sequence numbers and Recovery Time Stamps of the Heartbeat Responses sent.
fn answers(f: &mut FaultyUpf) -> Vec<(u32, NtpTimestamp)> {
    let mut v = Vec::new();
    while let Some(t) = f.poll_transmit() {
        if let Ok(m) = Message::parse(&t.contents)
            && let MessageBody::HeartbeatResponse(r) = m.body
        {
            v.push((m.sequence.get(), r.recovery_time_stamp));
        }
    }
    v
}

fn faulty(faults: N4Faults, t0: Instant) -> FaultyUpf {
    FaultyUpf::new(upf(), faults, t0)
}

#[test]
fn without_faults_every_request_is_answered_at_once() {
    let t0 = Instant::now();
    let mut f = faulty(N4Faults::default(), t0);
    assert!(!N4Faults::default().is_active());
    for s in 1..=10 {
        f.handle_datagram(t0, CP, &heartbeat(s));
    }
    assert_eq!(answers(&mut f).len(), 10);
    assert_eq!(f.counters(), FaultCounters::default());
}

#[test]
fn a_share_is_lost_each_way_and_the_same_seed_loses_the_same() {
    let run = |seed| {
        let t0 = Instant::now();
        let faults = N4Faults {
            drop: 0.3,
            seed,
            ..N4Faults::default()
        };
        let mut f = faulty(faults, t0);
        let mut got = Vec::new();
        for s in 1..=10_000 {
            f.handle_datagram(t0, CP, &heartbeat(s));
            got.extend(answers(&mut f).into_iter().map(|(s, _)| s));
        }
        (got, f.counters())
    };
    let (a, ca) = run(7);
    let (b, cb) = run(7);
    let (c, _) = run(8);
    assert_eq!(a, b);
    assert_ne!(a, c);
    assert_eq!(ca, cb);
    // 30 % of 10,000 in, 30 % of the 7,000 answers out: within 4 standard deviations.
    assert!((2_820..=3_180).contains(&ca.dropped_in), "{ca:?}");
    assert!((1_940..=2_260).contains(&ca.dropped_out), "{ca:?}");
    assert_eq!(a.len() as u64, 10_000 - ca.dropped_in - ca.dropped_out);
}

#[test]
fn a_delayed_datagram_is_read_when_due_and_reordered_ones_are_overtaken() {
    let t0 = Instant::now();
    let faults = N4Faults {
        delay: Duration::from_millis(5),
        reorder: 1.0,
        reorder_by: Duration::from_millis(10),
        ..N4Faults::default()
    };
    let mut f = faulty(faults, t0);
    f.handle_datagram(t0, CP, &heartbeat(1));
    assert!(answers(&mut f).is_empty());
    assert_eq!(f.poll_timeout(), Some(t0 + Duration::from_millis(15)));
    f.handle_timeout(t0 + Duration::from_millis(14));
    assert!(answers(&mut f).is_empty());
    f.handle_timeout(t0 + Duration::from_millis(15));
    assert_eq!(answers(&mut f).len(), 1);

    // Half reordered: a later datagram that is not overtakes an earlier one that is.
    let faults = N4Faults {
        delay: Duration::from_millis(5),
        reorder: 0.5,
        reorder_by: Duration::from_millis(10),
        seed: 3,
        ..N4Faults::default()
    };
    let mut f = faulty(faults, t0);
    for s in 1..=40 {
        f.handle_datagram(t0 + Duration::from_millis(u64::from(s)), CP, &heartbeat(s));
    }
    f.handle_timeout(t0 + Duration::from_secs(1));
    let order: Vec<u32> = answers(&mut f).into_iter().map(|(s, _)| s).collect();
    assert_eq!(order.len(), 40);
    assert!(order.windows(2).any(|w| w[0] > w[1]), "{order:?}");
    let mut sorted = order.clone();
    sorted.sort_unstable();
    assert_eq!(sorted, (1..=40).collect::<Vec<_>>(), "none lost");
    assert!((5..=35).contains(&f.counters().reordered));
}

#[test]
fn a_silent_upf_answers_nothing_from_its_time_on() {
    let t0 = Instant::now();
    let faults = N4Faults {
        silent_after: Some(Duration::from_secs(2)),
        ..N4Faults::default()
    };
    let mut f = faulty(faults, t0);
    f.handle_datagram(t0 + Duration::from_secs(1), CP, &heartbeat(1));
    assert_eq!(answers(&mut f).len(), 1);
    f.handle_datagram(t0 + Duration::from_secs(2), CP, &heartbeat(2));
    f.handle_datagram(t0 + Duration::from_secs(3), CP, &heartbeat(3));
    assert!(answers(&mut f).is_empty());
    assert_eq!(f.counters().silenced, 2);
}

#[test]
fn a_silence_of_a_given_length_ends() {
    let t0 = Instant::now();
    let faults = N4Faults {
        silent_after: Some(Duration::from_secs(2)),
        silent_for: Some(Duration::from_secs(3)),
        ..N4Faults::default()
    };
    let mut f = faulty(faults, t0);
    for (s, at) in [(1, 1), (2, 2), (3, 4), (4, 5), (5, 6)] {
        f.handle_datagram(t0 + Duration::from_secs(at), CP, &heartbeat(s));
    }
    let answered: Vec<u32> = answers(&mut f).into_iter().map(|(s, _)| s).collect();
    assert_eq!(answered, [1, 4, 5]);
    assert_eq!(f.counters().silenced, 2);
}

#[test]
fn a_restart_at_its_time_drops_everything_and_takes_a_new_recovery_time_stamp() {
    let t0 = Instant::now();
    let faults = N4Faults {
        restart_at: Some(Duration::from_secs(5)),
        ..N4Faults::default()
    };
    let mut f = faulty(faults, t0);
    f.handle_datagram(t0, CP, &heartbeat(1));
    assert_eq!(answers(&mut f), vec![(1, NtpTimestamp(100))]);
    assert_eq!(f.poll_timeout(), Some(t0 + Duration::from_secs(5)));
    f.handle_timeout(t0 + Duration::from_secs(5));
    assert_eq!(
        f.poll_event(),
        Some(UpfEvent::Restarted {
            recovery_time_stamp: NtpTimestamp(101),
            sessions_removed: 0
        })
    );
    assert_eq!(f.poll_timeout(), None, "the restart happens once");
    f.handle_datagram(t0 + Duration::from_secs(6), CP, &heartbeat(2));
    assert_eq!(answers(&mut f), vec![(2, NtpTimestamp(101))]);
    assert_eq!(f.counters().restarts, 1);
}
