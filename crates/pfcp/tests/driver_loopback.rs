//! The tokio drivers over loopback UDP: client and UPF side in one process, each on its own
//! address of 127/8 and port 8805.
#![cfg(feature = "tokio")]

mod common;

use std::collections::HashSet;
use std::net::{Ipv4Addr, SocketAddr};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use common::net::plan;
use common::plans::{GNB_N3, UPF_N3, ue_plan as plan_for, ue_v4};
use tokio::net::UdpSocket;
use upfbench_pfcp::driver::{self, PfcpClient, UpfChannels, UpfServer};
use upfbench_pfcp::ie::{Cause, NtpTimestamp};
use upfbench_pfcp::message::SessionDeletionRequest;
use upfbench_pfcp::node::{
    ClientConfig, Event, NodeError, Procedure, RuleChange, SessionState, Tunnel, Upf, UpfConfig,
    UpfEvent,
};
use upfbench_pfcp::plan::UplinkTeid;
use upfbench_pfcp::{Header, Message, MessageBody, MessageType, Seid, SequenceNumber, Teid};

async fn upf(up: Ipv4Addr, cp: Ipv4Addr, ts: NtpTimestamp) -> (UpfServer, UpfChannels) {
    // The address may still be held by a UPF side that was just dropped.
    for _ in 0..100 {
        match driver::serve(driver::n4(up), UpfConfig::new(up, UPF_N3, ts, cp.into())).await {
            Ok(s) => return s,
            Err(e) if e.kind() == std::io::ErrorKind::AddrInUse => {
                tokio::time::sleep(Duration::from_millis(20)).await
            }
            Err(e) => panic!("bind {up}:8805: {e}"),
        }
    }
    panic!("{up}:8805 stays in use")
}

async fn client(
    cp: Ipv4Addr,
    up: Ipv4Addr,
    f: impl FnOnce(&mut ClientConfig),
) -> (PfcpClient, tokio::sync::mpsc::UnboundedReceiver<Event>) {
    let mut c = ClientConfig::new(cp, NtpTimestamp(1_000), driver::n4(up));
    f(&mut c);
    PfcpClient::start(driver::n4(cp), c)
        .await
        .expect("bind the client's 8805")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn loopback_establishes_and_deletes_10000_sessions() {
    let (cp, up) = (Ipv4Addr::new(127, 0, 0, 1), Ipv4Addr::new(127, 0, 0, 2));
    let (server, mut ch) = upf(up, cp, NtpTimestamp(2_000)).await;
    let (client, _events) = client(cp, up, |_| {}).await;
    assert_eq!(client.local_addr(), SocketAddr::from((cp, 8805)));
    assert_eq!(server.local_addr(), SocketAddr::from((up, 8805)));
    let a = client.associate().await.unwrap();
    assert_eq!(a.peer, driver::n4(up));
    assert_eq!(a.recovery_time_stamp, NtpTimestamp(2_000));

    let plans: Vec<_> = (0..10_000).map(|i| plan_for(i, cp)).collect();
    let sessions = client.establish_all(plans.clone()).await.unwrap();
    assert_eq!(sessions.len(), 10_000);
    let table = server.rules().await.unwrap();
    assert_eq!(table.len(), 10_000);
    for (p, s) in plans.iter().zip(&sessions) {
        assert_eq!(s.cp_seid, p.cp_seid());
        let r = table.session(s.up_seid.unwrap()).unwrap();
        assert_eq!(r.cp_f_seid.seid, p.cp_seid());
        let UplinkTeid::Assigned(teid) = p.ue.uplink_teid else {
            unreachable!()
        };
        assert_eq!(table.uplink(teid).unwrap().up_seid, r.up_seid);
        assert_eq!(
            table.downlink(ue_v4(p)).unwrap().tunnel,
            Some(Tunnel {
                teid: p.ue.downlink_teid,
                address: GNB_N3.into()
            })
        );
    }
    let mut installed = 0;
    while let Ok(c) = ch.changes.try_recv() {
        assert!(matches!(c, RuleChange::Installed(_)));
        installed += 1;
    }
    assert_eq!(installed, 10_000);
    let st = server.stats().await.unwrap();
    assert_eq!(st.sessions_established, 10_000);

    assert_eq!(client.delete_all().await.unwrap(), 10_000);
    assert!(server.rules().await.unwrap().is_empty());
    assert!(client.sessions().await.unwrap().is_empty());
    assert_eq!(server.stats().await.unwrap().sessions_deleted, 10_000);
    client.release().await.unwrap();
    assert!(matches!(
        ch.events.recv().await,
        Some(UpfEvent::Associated { .. })
    ));
    assert!(matches!(
        ch.events.recv().await,
        Some(UpfEvent::Released {
            sessions_removed: 0,
            ..
        })
    ));
}

#[tokio::test]
async fn modify_and_rejections_through_the_driver() {
    let (cp, up) = (Ipv4Addr::new(127, 0, 0, 21), Ipv4Addr::new(127, 0, 0, 22));
    let (server, _ch) = upf(up, cp, NtpTimestamp(5)).await;
    let (client, _events) = client(cp, up, |c| c.window = 2).await;
    // Before association the client refuses at once.
    let e = client
        .establish_all(vec![plan_for(0, cp)])
        .await
        .unwrap_err();
    assert!(matches!(e.error, NodeError::NotAssociated { .. }));
    assert_eq!((e.established, e.total, e.plan), (0, 1, Some(0)));
    client.associate().await.unwrap();
    let mut s = client
        .establish_all((0..3).map(|i| plan_for(i, cp)).collect())
        .await
        .unwrap();
    let gnb2 = Ipv4Addr::new(192, 168, 13, 140);
    let m = client
        .modify(
            s[0].cp_seid,
            plan_for(0, cp).path_switch_request(Teid(4242), gnb2.into(), true),
        )
        .await
        .unwrap();
    assert_eq!(m.up_seid, s[0].up_seid);
    let t = server.rules().await.unwrap();
    assert_eq!(
        t.downlink(ue_v4(&plan(0))).unwrap().tunnel,
        Some(Tunnel {
            teid: Teid(4242),
            address: gnb2.into()
        })
    );
    // A batch where one plan collides with an established TEID: the first failure comes back,
    // and stops the batch; plan 3 (sent with it) is established, plan 4 too if it was sent
    // before the refusal came back; they are left for delete_all.
    let mut bad = plan_for(10, cp);
    bad.ue.uplink_teid = UplinkTeid::Assigned(Teid(1));
    let batch = vec![plan_for(3, cp), bad, plan_for(4, cp)];
    let e = client.establish_all(batch).await.unwrap_err();
    assert_eq!((e.total, e.plan), (3, Some(1)));
    assert!((1..=2).contains(&e.established), "{e}");
    assert!(matches!(
        e.error,
        NodeError::Rejected {
            procedure: Procedure::SessionEstablishment(Seid(11)),
            cause: Cause::RULE_CREATION_MODIFICATION_FAILURE,
            ..
        }
    ));
    let established = 3 + e.established;
    assert_eq!(server.rules().await.unwrap().len(), established);
    s.sort_by_key(|s| s.cp_seid);
    assert_eq!(client.delete_all().await.unwrap(), established);
    assert!(server.rules().await.unwrap().is_empty());
    // Modify of a deleted session.
    let e = client
        .modify(s[0].cp_seid, Default::default())
        .await
        .unwrap_err();
    assert!(matches!(e, NodeError::UnknownSession { .. }));
    client.release().await.unwrap();
}

/// One session at a time, as a churn runs them: established, refreshed, deleted, each answered
/// on its own while a batch's sessions stay.
#[tokio::test]
async fn one_session_established_refreshed_and_deleted_alone() {
    let (cp, up) = (Ipv4Addr::new(127, 0, 0, 23), Ipv4Addr::new(127, 0, 0, 24));
    let (server, _ch) = upf(up, cp, NtpTimestamp(6)).await;
    let (client, _events) = client(cp, up, |_| {}).await;
    client.associate().await.unwrap();
    client
        .establish_all((0..2).map(|i| plan_for(i, cp)).collect())
        .await
        .unwrap();
    let churn = plan_for(7, cp);
    let s = client.establish(churn.clone()).await.unwrap();
    assert_eq!(
        (s.cp_seid, s.state),
        (churn.cp_seid(), SessionState::Established)
    );
    let table = server.rules().await.unwrap();
    assert_eq!(table.len(), 3);
    let want = Some(Tunnel {
        teid: churn.ue.downlink_teid,
        address: GNB_N3.into(),
    });
    assert_eq!(table.downlink(ue_v4(&churn)).unwrap().tunnel, want);
    // The same session again: refused by the client before any request.
    let e = client.establish(churn.clone()).await.unwrap_err();
    assert!(matches!(e, NodeError::DuplicateSession { .. }), "{e}");
    // A refresh changes nothing the datapath sees.
    client
        .modify(churn.cp_seid(), churn.refresh_request())
        .await
        .unwrap();
    let table = server.rules().await.unwrap();
    assert_eq!(table.downlink(ue_v4(&churn)).unwrap().tunnel, want);
    let d = client.delete(churn.cp_seid()).await.unwrap();
    assert_eq!(d.cp_seid, churn.cp_seid());
    let table = server.rules().await.unwrap();
    assert_eq!(table.len(), 2);
    assert!(table.downlink(ue_v4(&churn)).is_none());
    // Deleted: another deletion is refused without a request.
    let e = client.delete(churn.cp_seid()).await.unwrap_err();
    assert!(matches!(e, NodeError::UnknownSession { .. }), "{e}");
    assert_eq!(client.delete_all().await.unwrap(), 2);
}

#[tokio::test]
async fn a_failing_batch_says_how_many_were_established_and_which_plan_failed() {
    let (cp, up) = (Ipv4Addr::new(127, 0, 0, 61), Ipv4Addr::new(127, 0, 0, 62));
    let (server, _ch) = upf(up, cp, NtpTimestamp(7)).await;
    let (client, _events) = client(cp, up, |c| c.window = 2).await;
    client.associate().await.unwrap();
    // Plans 5 and 17 reuse the uplink TEIDs of plans 0 and 1: the UPF rejects both (Cause 73).
    let mut plans: Vec<_> = (0..20).map(|i| plan_for(i, cp)).collect();
    plans[5].ue.uplink_teid = plans[0].ue.uplink_teid;
    plans[17].ue.uplink_teid = plans[1].ue.uplink_teid;
    let e = client.establish_all(plans.clone()).await.unwrap_err();
    // With a window of 2, plan 5 is answered before plan 17 is sent: it is the first failure,
    // and the last: the batch stops at it. Plan 6 is established if it was sent before the
    // refusal came back; nothing after it is sent.
    assert_eq!((e.total, e.plan), (20, Some(5)));
    assert!((5..=6).contains(&e.established), "{e}");
    assert_eq!(e.failed(), 20 - e.established);
    assert!(matches!(
        e.error,
        NodeError::Rejected {
            procedure: Procedure::SessionEstablishment(s),
            cause: Cause::RULE_CREATION_MODIFICATION_FAILURE,
            ..
        } if s == plans[5].cp_seid()
    ));
    let text = e.to_string();
    assert!(
        text.starts_with(&format!(
            "established {} of 20 sessions; plan 5: Session Establishment (CP SEID 0x6) \
             rejected by 127.0.0.62:8805",
            e.established
        )),
        "{text}"
    );
    // Those established stay so until deleted.
    assert_eq!(server.rules().await.unwrap().len(), e.established);
    assert_eq!(client.sessions().await.unwrap().len(), e.established);
    assert_eq!(client.delete_all().await.unwrap(), e.established);
    client.release().await.unwrap();
}

#[tokio::test]
async fn a_silent_peer_times_out_after_n1_retransmissions() {
    let (cp, up) = (Ipv4Addr::new(127, 0, 0, 31), Ipv4Addr::new(127, 0, 0, 32));
    let (client, _events) = client(cp, up, |c| {
        c.node.t1 = Duration::from_millis(50);
        c.node.n1 = 2;
    })
    .await;
    let t0 = std::time::Instant::now();
    let e = client.associate().await.unwrap_err();
    let took = t0.elapsed();
    assert!(matches!(
        e,
        NodeError::Timeout {
            procedure: Procedure::AssociationSetup,
            attempts: 3,
            ..
        }
    ));
    assert!(took >= Duration::from_millis(150), "{took:?}");
    assert_eq!(client.stats().await.unwrap().retransmissions, 2);
}

#[tokio::test]
async fn events_report_lost_heartbeats_and_a_restarted_upf() {
    let (cp, up) = (Ipv4Addr::new(127, 0, 0, 41), Ipv4Addr::new(127, 0, 0, 42));
    let (server, ch) = upf(up, cp, NtpTimestamp(100)).await;
    let (client, mut events) = client(cp, up, |c| {
        c.node.t1 = Duration::from_millis(50);
        c.node.n1 = 1;
        c.node.heartbeat_interval = Some(Duration::from_millis(100));
    })
    .await;
    client.associate().await.unwrap();
    client.establish_all(vec![plan_for(0, cp)]).await.unwrap();
    // The UPF goes away: heartbeats go unanswered.
    drop((server, ch));
    let e = tokio::time::timeout(Duration::from_secs(5), events.recv())
        .await
        .unwrap()
        .unwrap();
    assert!(matches!(e, Event::HeartbeatLost { peer, .. } if peer == driver::n4(up)));
    // It comes back with a new Recovery Time Stamp: the next heartbeat finds out.
    let (_server, _ch) = upf(up, cp, NtpTimestamp(200)).await;
    let restarted = tokio::time::timeout(Duration::from_secs(5), async {
        loop {
            match events.recv().await.unwrap() {
                Event::PeerRestarted {
                    previous,
                    current,
                    sessions_lost,
                    ..
                } => break (previous, current, sessions_lost),
                Event::HeartbeatLost { .. } => continue,
                other => panic!("{other:?}"),
            }
        }
    })
    .await
    .unwrap();
    assert_eq!(restarted, (NtpTimestamp(100), NtpTimestamp(200), 1));
    assert!(client.sessions().await.unwrap().is_empty());
    // Associate again with the new UPF.
    client.associate().await.unwrap();
}

/// Another process on the CP function's address deletes `up_seid` at the UPF side, behind the
/// client's back (the UPF matches its peer by IP address); returns the UPF's Cause.
async fn delete_behind_the_clients_back(cp: Ipv4Addr, up: Ipv4Addr, up_seid: Seid) -> Cause {
    let sock = UdpSocket::bind((cp, 0)).await.unwrap();
    let request = Message::session(
        up_seid,
        SequenceNumber::new(0x7000).unwrap(),
        SessionDeletionRequest::default(),
    );
    sock.send_to(&request.to_vec().unwrap(), driver::n4(up))
        .await
        .unwrap();
    let mut buf = vec![0; 65_535];
    let (n, _) = tokio::time::timeout(Duration::from_secs(5), sock.recv_from(&mut buf))
        .await
        .unwrap()
        .unwrap();
    match Message::parse(&buf[..n]).unwrap().body {
        MessageBody::SessionDeletionResponse(r) => r.cause,
        other => panic!("{other:?}"),
    }
}

#[tokio::test]
async fn delete_all_says_how_many_were_deleted_and_which_session_the_upf_did_not_know() {
    let (cp, up) = (Ipv4Addr::new(127, 0, 0, 71), Ipv4Addr::new(127, 0, 0, 72));
    let (server, _ch) = upf(up, cp, NtpTimestamp(9)).await;
    let (client, _events) = client(cp, up, |c| c.window = 2).await;
    client.associate().await.unwrap();
    let sessions = client
        .establish_all((0..20).map(|i| plan_for(i, cp)).collect())
        .await
        .unwrap();
    // Sessions 3 and 11 disappear from the UPF: their deletions get Cause 65.
    let gone = [sessions[3], sessions[11]];
    for s in gone {
        let cause = delete_behind_the_clients_back(cp, up, s.up_seid.unwrap()).await;
        assert_eq!(cause, Cause::REQUEST_ACCEPTED);
    }
    assert_eq!(server.rules().await.unwrap().len(), 18);

    let e = client.delete_all().await.unwrap_err();
    // Both failures are counted and the 18 others deleted, whichever failure came first
    // (the batch goes through the table in its own order).
    assert_eq!((e.deleted, e.total, e.failed()), (18, 20, 2));
    let failed = e.cp_seid.unwrap();
    assert!(gone.iter().any(|s| s.cp_seid == failed), "{failed:?}");
    assert!(matches!(
        e.error,
        NodeError::Rejected {
            procedure: Procedure::SessionDeletion(s),
            cause: Cause::SESSION_CONTEXT_NOT_FOUND,
            ..
        } if s == failed
    ));
    let text = e.to_string();
    let expected = format!(
        "deleted 18 of 20 sessions; session {:#x}: Session Deletion (CP SEID {:#x}) rejected by 127.0.0.72:8805",
        failed.0, failed.0
    );
    assert!(text.starts_with(&expected), "{text}");
    assert!(text.ends_with(": Session context not found (65)"), "{text}");
    // A session the UPF did not know leaves the table: nothing is left to delete.
    assert!(server.rules().await.unwrap().is_empty());
    assert!(client.sessions().await.unwrap().is_empty());
    assert_eq!(client.delete_all().await.unwrap(), 0);
    client.release().await.unwrap();
}

/// A UPF side that never answers the Session Deletion Requests of the UP SEIDs in `silenced`:
/// the sans-IO node on a socket, with a filter in front.
fn silencing_upf(
    socket: UdpSocket,
    node: Arc<Mutex<Upf>>,
    silenced: Arc<Mutex<HashSet<Seid>>>,
) -> tokio::task::JoinHandle<()> {
    tokio::spawn(async move {
        let mut buf = vec![0; 65_535];
        loop {
            let (n, from) = socket.recv_from(&mut buf).await.unwrap();
            let bytes = &buf[..n];
            let silent = Header::new_checked(bytes).is_ok_and(|h| {
                h.message_type() == MessageType::SESSION_DELETION_REQUEST
                    && h.seid()
                        .is_some_and(|s| silenced.lock().unwrap().contains(&s))
            });
            let out: Vec<_> = {
                let mut node = node.lock().unwrap();
                if !silent {
                    node.handle_datagram(std::time::Instant::now(), from, bytes);
                }
                while node.poll_event().is_some() {}
                std::iter::from_fn(|| node.poll_transmit()).collect()
            };
            for t in out {
                socket.send_to(&t.contents, t.destination).await.unwrap();
            }
        }
    })
}

#[tokio::test]
async fn delete_all_says_which_session_a_silent_upf_never_deleted_and_keeps_it() {
    let (cp, up) = (Ipv4Addr::new(127, 0, 0, 81), Ipv4Addr::new(127, 0, 0, 82));
    let socket = UdpSocket::bind(driver::n4(up)).await.unwrap();
    let node = Arc::new(Mutex::new(Upf::new(UpfConfig::new(
        up,
        UPF_N3,
        NtpTimestamp(11),
        cp.into(),
    ))));
    let silenced = Arc::new(Mutex::new(HashSet::new()));
    let upf_task = silencing_upf(socket, node.clone(), silenced.clone());
    let (client, _events) = client(cp, up, |c| {
        c.window = 4;
        // Long enough that a loaded machine does not lose the answered ones too.
        c.node.t1 = Duration::from_millis(200);
        c.node.n1 = 2;
    })
    .await;
    client.associate().await.unwrap();
    let sessions = client
        .establish_all((0..10).map(|i| plan_for(i, cp)).collect())
        .await
        .unwrap();
    // The UPF never answers the deletion of session 6.
    let stuck = sessions[6];
    silenced.lock().unwrap().insert(stuck.up_seid.unwrap());

    let e = client.delete_all().await.unwrap_err();
    assert_eq!(
        (e.deleted, e.total, e.cp_seid),
        (9, 10, Some(stuck.cp_seid))
    );
    assert!(matches!(
        e.error,
        NodeError::Timeout {
            procedure: Procedure::SessionDeletion(s),
            attempts: 3,
            ..
        } if s == stuck.cp_seid
    ));
    let text = e.to_string();
    assert!(
        text.starts_with("deleted 9 of 10 sessions; session 0x7: Session Deletion (CP SEID 0x7)"),
        "{text}"
    );
    // Unconfirmed, the session stays established at both ends; once the UPF answers, the next
    // delete_all removes it.
    let left = client.sessions().await.unwrap();
    assert_eq!(left.len(), 1);
    assert_eq!(left[0].cp_seid, stuck.cp_seid);
    assert_eq!(left[0].state, SessionState::Established);
    assert_eq!(node.lock().unwrap().rules().len(), 1);
    silenced.lock().unwrap().clear();
    assert_eq!(client.delete_all().await.unwrap(), 1);
    assert!(client.sessions().await.unwrap().is_empty());
    assert!(node.lock().unwrap().rules().is_empty());
    upf_task.abort();
}

#[test]
fn delete_all_through_a_stopped_driver_says_nothing_was_deleted() {
    // A handle whose task has gone (its runtime was shut down) cannot even count the sessions.
    let (cp, up) = (Ipv4Addr::new(127, 0, 0, 91), Ipv4Addr::new(127, 0, 0, 92));
    let runtime = || {
        tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap()
    };
    let first = runtime();
    let (client, _events) = first.block_on(client(cp, up, |_| {}));
    drop(first);
    let e = runtime().block_on(client.delete_all()).unwrap_err();
    assert_eq!((e.deleted, e.total, e.cp_seid), (0, 0, None));
    assert!(matches!(
        e.error,
        NodeError::Aborted {
            procedure: Procedure::SessionDeletion(Seid(0)),
            ..
        }
    ));
    assert!(
        e.to_string().starts_with("deleted 0 of 0 sessions; "),
        "{e}"
    );
}

/// With `serve_applying`, a request's answer leaves only once the datapath took its rules: a
/// datapath that takes 50 ms has every established session applied by the time the client has
/// the answer, one request or a window of them.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn answers_wait_until_the_rules_are_applied() {
    use std::sync::atomic::{AtomicUsize, Ordering};
    let (cp, up) = (Ipv4Addr::new(127, 0, 0, 5), Ipv4Addr::new(127, 0, 0, 6));
    let applied = Arc::new(AtomicUsize::new(0));
    let batches = Arc::new(AtomicUsize::new(0));
    let (a, b) = (Arc::clone(&applied), Arc::clone(&batches));
    let apply: driver::ApplyRules = Box::new(move |changes: &[RuleChange]| {
        std::thread::sleep(Duration::from_millis(50));
        a.fetch_add(
            changes
                .iter()
                .filter(|c| matches!(c, RuleChange::Installed(_)))
                .count(),
            Ordering::SeqCst,
        );
        b.fetch_add(1, Ordering::SeqCst);
    });
    let config = UpfConfig::new(up, UPF_N3, NtpTimestamp(2_000), cp.into());
    let (_server, mut ch) = driver::serve_applying(driver::n4(up), config, apply)
        .await
        .expect("bind the UPF side");
    let (client, _events) = client(cp, up, |_| {}).await;
    client.associate().await.unwrap();

    let started = std::time::Instant::now();
    let one = client.establish_all(vec![plan_for(0, cp)]).await.unwrap();
    assert_eq!(one.len(), 1);
    assert_eq!(
        applied.load(Ordering::SeqCst),
        1,
        "applied before the answer"
    );
    assert!(started.elapsed() >= Duration::from_millis(50));

    let plans: Vec<_> = (1..65).map(|i| plan_for(i, cp)).collect();
    let more = client.establish_all(plans).await.unwrap();
    assert_eq!(more.len(), 64);
    assert_eq!(applied.load(Ordering::SeqCst), 65);
    // Requests that arrive together are applied together: far fewer batches than requests.
    let n = batches.load(Ordering::SeqCst);
    assert!(n < 65, "{n} batches for 65 sessions");
    // The changes went to `apply`, not to the channel.
    assert!(ch.changes.try_recv().is_err());
}
