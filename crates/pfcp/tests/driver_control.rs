//! What issue 9 asks of the control plane, through the real drivers over loopback UDP, against
//! the crate's UPF side behind a filter that loses, delays, withholds or refuses datagrams: the
//! adaptive window under loss, the heartbeat before the first session, the best-effort release,
//! cancelling part-way through an establishment (then deleting what was established), and an
//! establishment that stops at the UPF's first refusal but not at a timeout.
#![cfg(feature = "tokio")]
// The refusal case prints what it measured (requests, window, time) for the test log.
#![allow(clippy::print_stdout)]

mod common;

use std::net::Ipv4Addr;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use common::plans::{UPF_N3, ue_plan as plan_for};
use tokio::net::UdpSocket;
use upfbench_pfcp::driver::{self, BatchProgress, PfcpClient, Release};
use upfbench_pfcp::ie::{Cause, NodeId, NtpTimestamp};
use upfbench_pfcp::message::SessionEstablishmentResponse;
use upfbench_pfcp::node::{ClientConfig, Event, NodeError, Procedure, Upf, UpfConfig};
use upfbench_pfcp::{Header, Message, MessageBody, MessageType};

/// What the filter does with one datagram from the CP.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Verdict {
    Pass,
    Drop,
    /// A Session Establishment Request answered with this Cause by the filter instead of the
    /// UPF (as a UPF whose rule tables are full answers).
    Reject(Cause),
}

/// The filter's answer to a Session Establishment Request: `cause`, no UP F-SEID.
fn rejection(up: Ipv4Addr, request: &[u8], cause: Cause) -> Vec<u8> {
    let msg = Message::parse(request).expect("a request the client encoded");
    let MessageBody::SessionEstablishmentRequest(req) = &msg.body else {
        panic!(
            "only establishments are rejected, not {:?}",
            msg.message_type()
        );
    };
    let response = SessionEstablishmentResponse::rejected(NodeId::Ipv4(up), cause, None);
    Message::session(req.cp_f_seid.seid, msg.sequence, response)
        .to_vec()
        .expect("encode the rejection")
}

/// The sans-IO UPF on `up`:8805 behind `filter` (given each datagram's message type and its
/// number among all datagrams received), answering after `delay`. Every message type the UPF
/// receives and sends is logged in order, tagged with its direction.
struct FilteredUpf {
    node: Arc<Mutex<Upf>>,
    log: Arc<Mutex<Vec<(bool, MessageType)>>>,
    task: tokio::task::JoinHandle<()>,
}

impl Drop for FilteredUpf {
    fn drop(&mut self) {
        self.task.abort();
    }
}

async fn filtered_upf(
    up: Ipv4Addr,
    cp: Ipv4Addr,
    delay: Duration,
    filter: impl Fn(MessageType, u64) -> Verdict + Send + 'static,
) -> FilteredUpf {
    let socket = UdpSocket::bind(driver::n4(up)).await.unwrap();
    let node = Arc::new(Mutex::new(Upf::new(UpfConfig::new(
        up,
        UPF_N3,
        NtpTimestamp(7),
        cp.into(),
    ))));
    let log = Arc::new(Mutex::new(Vec::new()));
    let (n, l) = (node.clone(), log.clone());
    let task = tokio::spawn(async move {
        let mut buf = vec![0; 65_535];
        let mut count = 0u64;
        loop {
            let (len, from) = socket.recv_from(&mut buf).await.unwrap();
            let bytes = &buf[..len];
            let Ok(t) = Header::new_checked(bytes).map(|h| h.message_type()) else {
                continue;
            };
            count += 1;
            let verdict = filter(t, count);
            if verdict == Verdict::Drop {
                continue;
            }
            l.lock().unwrap().push((true, t));
            if let Verdict::Reject(cause) = verdict {
                let answer = rejection(up, bytes, cause);
                l.lock()
                    .unwrap()
                    .push((false, MessageType::SESSION_ESTABLISHMENT_RESPONSE));
                socket.send_to(&answer, from).await.unwrap();
                continue;
            }
            if !delay.is_zero() {
                tokio::time::sleep(delay).await;
            }
            let out: Vec<_> = {
                let mut node = n.lock().unwrap();
                node.handle_datagram(Instant::now(), from, bytes);
                while node.poll_event().is_some() {}
                std::iter::from_fn(|| node.poll_transmit()).collect()
            };
            for t in out {
                if let Ok(h) = Header::new_checked(&t.contents) {
                    l.lock().unwrap().push((false, h.message_type()));
                }
                socket.send_to(&t.contents, t.destination).await.unwrap();
            }
        }
    });
    FilteredUpf { node, log, task }
}

async fn start_client(
    cp: Ipv4Addr,
    up: Ipv4Addr,
    f: impl FnOnce(&mut ClientConfig),
) -> (PfcpClient, tokio::sync::mpsc::UnboundedReceiver<Event>) {
    let mut c = ClientConfig::new(cp, NtpTimestamp(1_000), driver::n4(up));
    f(&mut c);
    PfcpClient::start(driver::n4(cp), c).await.unwrap()
}

#[tokio::test]
async fn the_window_grows_without_loss_and_progress_climbs_to_the_total_through_lost_datagrams() {
    let (cp, up) = (Ipv4Addr::new(127, 0, 2, 11), Ipv4Addr::new(127, 0, 2, 12));
    // One establishment request in 40 is lost on its way to the UPF.
    let upf = filtered_upf(up, cp, Duration::ZERO, |t, n| {
        if t == MessageType::SESSION_ESTABLISHMENT_REQUEST && n % 40 == 0 {
            Verdict::Drop
        } else {
            Verdict::Pass
        }
    })
    .await;
    let (client, _events) = start_client(cp, up, |c| {
        c.node.t1 = Duration::from_millis(100);
        c.initial_window = 4;
        c.window = 64;
    })
    .await;
    client.associate().await.unwrap();
    let batch = client.start_establish((0..2_000).map(|i| plan_for(i, cp)).collect());
    let mut watch = batch.watch();
    let mut seen = vec![*watch.borrow()];
    let reader = tokio::spawn(async move {
        while watch.changed().await.is_ok() {
            seen.push(*watch.borrow());
        }
        seen
    });
    let sessions = batch.finish().await.unwrap();
    assert_eq!(sessions.len(), 2_000);
    let seen = reader.await.unwrap();
    assert!(seen.len() > 10, "{} progress updates", seen.len());
    assert!(
        seen.windows(2).all(|w| w[0].done <= w[1].done),
        "done went back"
    );
    assert_eq!(
        *seen.last().unwrap(),
        BatchProgress {
            total: 2_000,
            done: 2_000,
            failed: 0,
            cancelled: 0
        }
    );
    let stats = client.stats().await.unwrap();
    assert!(stats.retransmissions >= 40, "{stats:?}");
    assert_eq!(stats.timeouts, 0);
    assert!(
        stats.window_largest > 4 && stats.window_largest <= 64,
        "{stats:?}"
    );
    assert_eq!(upf.node.lock().unwrap().rules().len(), 2_000);
    assert_eq!(client.delete_all().await.unwrap(), 2_000);
    assert!(upf.node.lock().unwrap().rules().is_empty());
}

#[tokio::test]
async fn one_heartbeat_is_exchanged_after_the_association_and_before_the_first_session() {
    let (cp, up) = (Ipv4Addr::new(127, 0, 2, 21), Ipv4Addr::new(127, 0, 2, 22));
    // The first heartbeat request is lost: the sessions wait for its retransmission's answer.
    let upf = filtered_upf(up, cp, Duration::ZERO, |t, n| {
        if t == MessageType::HEARTBEAT_REQUEST && n == 2 {
            Verdict::Drop
        } else {
            Verdict::Pass
        }
    })
    .await;
    let (client, _events) = start_client(cp, up, |c| c.node.t1 = Duration::from_millis(100)).await;
    client.associate().await.unwrap();
    client
        .establish_all((0..5).map(|i| plan_for(i, cp)).collect())
        .await
        .unwrap();
    let log = upf.log.lock().unwrap().clone();
    let first_session = log
        .iter()
        .position(|&(rx, t)| rx && t == MessageType::SESSION_ESTABLISHMENT_REQUEST)
        .unwrap();
    let heartbeat_answer = log
        .iter()
        .position(|&(rx, t)| !rx && t == MessageType::HEARTBEAT_RESPONSE)
        .unwrap();
    let associated = log
        .iter()
        .position(|&(rx, t)| !rx && t == MessageType::ASSOCIATION_SETUP_RESPONSE)
        .unwrap();
    assert!(associated < heartbeat_answer, "{log:?}");
    assert!(heartbeat_answer < first_session, "{log:?}");
    assert_eq!(client.stats().await.unwrap().retransmissions, 1);
}

#[tokio::test]
async fn the_release_is_sent_once_and_an_unanswered_one_is_not_a_failure() {
    let (cp, up) = (Ipv4Addr::new(127, 0, 2, 31), Ipv4Addr::new(127, 0, 2, 32));
    // Like Open5GS and eUPF: the Association Release Request is never answered.
    let upf = filtered_upf(up, cp, Duration::ZERO, |t, _| {
        if t == MessageType::ASSOCIATION_RELEASE_REQUEST {
            Verdict::Drop
        } else {
            Verdict::Pass
        }
    })
    .await;
    let release_wait = Duration::from_millis(300);
    let (client, _events) = start_client(cp, up, |c| {
        c.node.t1 = Duration::from_millis(500);
        c.node.n1 = 3;
        c.release_wait = release_wait;
    })
    .await;
    client.associate().await.unwrap();
    let started = Instant::now();
    assert_eq!(client.release().await.unwrap(), Release::Unanswered);
    // Given up after the release wait, not after T1 * (N1 + 1) = 2 s of retransmissions.
    let took = started.elapsed();
    assert!(
        took >= release_wait && took < Duration::from_millis(1_500),
        "{took:?}"
    );
    let stats = client.stats().await.unwrap();
    assert_eq!(stats.retransmissions, 0, "{stats:?}");
    // Not a timeout of the run: counted apart.
    assert_eq!(
        (stats.timeouts, stats.releases_unanswered),
        (0, 1),
        "{stats:?}"
    );
    drop(upf);

    // A UPF that answers: Answered.
    let (cp, up) = (Ipv4Addr::new(127, 0, 2, 33), Ipv4Addr::new(127, 0, 2, 34));
    let _upf = filtered_upf(up, cp, Duration::ZERO, |_, _| Verdict::Pass).await;
    let (client, _events) = start_client(cp, up, |_| {}).await;
    client.associate().await.unwrap();
    assert_eq!(client.release().await.unwrap(), Release::Answered);
}

#[tokio::test]
async fn cancelling_part_way_stops_the_establishment_and_what_was_established_is_deleted() {
    let (cp, up) = (Ipv4Addr::new(127, 0, 2, 41), Ipv4Addr::new(127, 0, 2, 42));
    // A slow UPF (1 ms a request, one at a time) that loses one request in 25.
    let upf = filtered_upf(up, cp, Duration::from_millis(1), |t, n| {
        if t == MessageType::SESSION_ESTABLISHMENT_REQUEST && n % 25 == 0 {
            Verdict::Drop
        } else {
            Verdict::Pass
        }
    })
    .await;
    let (client, _events) = start_client(cp, up, |c| {
        c.node.t1 = Duration::from_millis(100);
        c.window = 16;
    })
    .await;
    client.associate().await.unwrap();
    let batch = client.start_establish((0..5_000).map(|i| plan_for(i, cp)).collect());
    let mut watch = batch.watch();
    while watch.borrow().done < 200 {
        watch.changed().await.unwrap();
    }
    batch.cancel();
    let mut batch = batch;
    let result = loop {
        if let Some(r) = batch.try_result() {
            break r;
        }
        tokio::time::sleep(Duration::from_millis(5)).await;
    };
    let e = result.unwrap_err();
    let p = batch.progress();
    assert!(p.finished(), "{p:?}");
    assert!(p.cancelled > 0 && p.cancelled < 5_000 - 200, "{p:?}");
    assert_eq!(e.total, 5_000);
    assert_eq!(e.established, p.done);
    assert!(e.established >= 200, "{e}");
    assert!(
        matches!(
            e.error,
            NodeError::Aborted {
                reason: "cancelled",
                ..
            }
        ),
        "{e}"
    );
    // What was established is in the UPF's table, and delete_all removes exactly that.
    assert_eq!(upf.node.lock().unwrap().rules().len(), e.established);
    assert_eq!(client.sessions().await.unwrap().len(), e.established);
    assert_eq!(client.delete_all().await.unwrap(), e.established);
    assert!(upf.node.lock().unwrap().rules().is_empty());
    assert!(client.sessions().await.unwrap().is_empty());
}

/// Establishment requests received so far, counted by a filter.
fn counter() -> Arc<AtomicU64> {
    Arc::new(AtomicU64::new(0))
}

#[tokio::test]
async fn an_establishment_stops_sending_at_the_first_refusal_and_lets_the_requests_in_flight_end() {
    let (cp, up) = (Ipv4Addr::new(127, 0, 2, 51), Ipv4Addr::new(127, 0, 2, 52));
    // Like eUPF 0.7.1 as released after 512 sessions: the 101st establishment and every one
    // after it get Cause 73.
    let accepted = 100;
    let seen = counter();
    let s = seen.clone();
    let upf = filtered_upf(up, cp, Duration::ZERO, move |t, _| {
        if t != MessageType::SESSION_ESTABLISHMENT_REQUEST {
            return Verdict::Pass;
        }
        if s.fetch_add(1, Ordering::Relaxed) < accepted {
            Verdict::Pass
        } else {
            Verdict::Reject(Cause::RULE_CREATION_MODIFICATION_FAILURE)
        }
    })
    .await;
    let (client, _events) = start_client(cp, up, |c| {
        c.initial_window = 16;
        c.window = 64;
    })
    .await;
    client.associate().await.unwrap();
    let total = 5_000;
    let started = Instant::now();
    let batch = client.start_establish((0..total).map(|i| plan_for(i, cp)).collect());
    let mut watch = batch.watch();
    let e = batch.finish().await.unwrap_err();
    let took = started.elapsed();
    let p = *watch.borrow_and_update();
    let requests = seen.load(Ordering::Relaxed);
    let stats = client.stats().await.unwrap();
    println!(
        "refused from {}: {requests} establishment requests of {total} sent, {p:?}, largest \
         window {}, {took:?}",
        accepted + 1,
        stats.window_largest
    );
    // The first refusal is the answer, named after its plan.
    assert_eq!((e.established, e.total, e.plan), (100, 5_000, Some(100)));
    assert!(
        matches!(
            e.error,
            NodeError::Rejected {
                procedure: Procedure::SessionEstablishment(s),
                cause: Cause::RULE_CREATION_MODIFICATION_FAILURE,
                ..
            } if s == plan_for(100, cp).cp_seid()
        ),
        "{e}"
    );
    // After the first refusal no more than what was in flight reached the UPF: at most a
    // window (the largest it has been), not the 4,899 plans left.
    let after_first_refusal = requests - (accepted + 1);
    assert!(
        after_first_refusal <= stats.window_largest,
        "{after_first_refusal} requests after the first refusal, window at most {}",
        stats.window_largest
    );
    // Those in flight were answered (refused), the rest never sent.
    assert!(p.finished(), "{p:?}");
    assert_eq!(p.done, 100);
    assert_eq!(p.failed as u64, requests - accepted);
    assert_eq!(p.cancelled as u64, u64::from(total) - requests);
    assert_eq!(stats.retransmissions, 0, "{stats:?}");
    // What was established is deleted as usual.
    assert_eq!(upf.node.lock().unwrap().rules().len(), 100);
    assert_eq!(client.delete_all().await.unwrap(), 100);
    assert!(upf.node.lock().unwrap().rules().is_empty());
}

#[tokio::test]
async fn a_timeout_does_not_stop_an_establishment() {
    let (cp, up) = (Ipv4Addr::new(127, 0, 2, 61), Ipv4Addr::new(127, 0, 2, 62));
    // The 10th establishment request is lost, and with N1 = 0 never sent again: it times out.
    let seen = counter();
    let s = seen.clone();
    let _upf = filtered_upf(up, cp, Duration::ZERO, move |t, _| {
        if t == MessageType::SESSION_ESTABLISHMENT_REQUEST && s.fetch_add(1, Ordering::Relaxed) == 9
        {
            Verdict::Drop
        } else {
            Verdict::Pass
        }
    })
    .await;
    // One request at a time: when it times out, 40 plans are still to be sent.
    let (client, _events) = start_client(cp, up, |c| {
        c.node.t1 = Duration::from_millis(200);
        c.node.n1 = 0;
        c.initial_window = 1;
        c.window = 1;
    })
    .await;
    client.associate().await.unwrap();
    let batch = client.start_establish((0..50).map(|i| plan_for(i, cp)).collect());
    let watch = batch.watch();
    let e = batch.finish().await.unwrap_err();
    let p = *watch.borrow();
    assert!(matches!(e.error, NodeError::Timeout { .. }), "{e}");
    assert_eq!((e.established, e.plan), (49, Some(9)), "{e}");
    assert_eq!(
        p,
        BatchProgress {
            total: 50,
            done: 49,
            failed: 1,
            cancelled: 0
        }
    );
    assert_eq!(seen.load(Ordering::Relaxed), 50);
    assert_eq!(client.delete_all().await.unwrap(), 49);
}
