//! The reflector's rules are in effect in its workers before it answers: a worker thread that
//! polls the forwarding table as the datapath workers do (a quiescent state, then a refresh,
//! each loop) holds every session the moment the generator's PFCP client has the Session
//! Establishment Response, so traffic started on the answer never meets an unknown TEID.

use std::net::Ipv4Addr;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use upfbench_dpdk::Quiescent;
use upfbench_n4::client_side::ClientThread;
use upfbench_reflector::datapath::end_marker::end_marker_channel;
use upfbench_reflector::datapath::rules::{ForwardingTable, table_channels};
use upfbench_reflector::upf_side::UpfThread;

#[path = "support/pfcp_pair.rs"]
mod pfcp_pair;

use pfcp_pair::{client_side, session_plans, upf_side};

const CP: Ipv4Addr = Ipv4Addr::new(127, 0, 4, 1);
const UP: Ipv4Addr = Ipv4Addr::new(127, 0, 4, 2);
/// A quiescence slot no DPDK worker uses in this process.
const SLOT: u32 = 100;

#[test]
fn an_answered_establishment_is_already_in_the_workers_table() {
    let (publisher, mut readers) = table_channels(1, ForwardingTable::empty());
    let mut reader = readers.pop().expect("one reader");
    let (seen, rounds, stop) = (
        Arc::new(AtomicUsize::new(0)),
        Arc::new(AtomicUsize::new(0)),
        Arc::new(AtomicBool::new(false)),
    );
    let (worker_seen, worker_rounds, worker_stop) =
        (Arc::clone(&seen), Arc::clone(&rounds), Arc::clone(&stop));
    let worker = std::thread::spawn(move || {
        let quiescent = Quiescent::online(SLOT);
        while !worker_stop.load(Ordering::Relaxed) {
            // As a worker's loop: a quiescent point, then the newest table right there.
            quiescent.pass();
            if reader.refresh() {
                worker_seen.store(reader.table().uplink.len(), Ordering::Release);
            }
            worker_rounds.fetch_add(1, Ordering::Release);
            std::hint::spin_loop();
        }
    });
    let upf = UpfThread::start(
        Some(upf_side(UP, 18805, CP)),
        publisher,
        end_marker_channel().0,
    )
    .expect("the reflector's PFCP side");
    let client =
        ClientThread::start(Some(client_side(CP, UP, 18805))).expect("the generator's PFCP side");
    client.associate().wait().unwrap().expect("associated");

    // One session at a time, then a window of them: each answer finds its rules taken.
    let all = session_plans(CP, UP, 41, "uplink");
    let batches = all
        .iter()
        .take(10)
        .map(|p| vec![p.clone()])
        .chain(std::iter::once(all[10..].to_vec()));
    let mut established = 0;
    for batch in batches {
        let n = batch.len();
        let mut pending = client.establish(batch).expect("a PFCP client");
        let until = Instant::now() + Duration::from_secs(10);
        let sessions = loop {
            if let Some(r) = pending.try_result() {
                break r.expect("established");
            }
            assert!(Instant::now() < until, "no answer");
            std::hint::spin_loop();
        };
        established += sessions.len();
        assert_eq!(sessions.len(), n);
        // No time for a worker to catch up after the answer, but for the end of the round it
        // is in: the answer went out once the worker passed its quiescent point, and the
        // table it takes right after is only counted in `seen` a few instructions later (a
        // loaded machine can preempt it there).
        let round = rounds.load(Ordering::Acquire);
        while rounds.load(Ordering::Acquire) == round {
            std::hint::spin_loop();
        }
        assert_eq!(
            seen.load(Ordering::Acquire),
            established,
            "uplink rules in the worker's table when the answer for session {established} came"
        );
    }
    stop.store(true, Ordering::Relaxed);
    worker.join().expect("the worker");
    drop(client);
    upf.stop().expect("the PFCP side stops");
}
