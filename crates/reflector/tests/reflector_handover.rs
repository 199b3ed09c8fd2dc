//! A handover against the reflector's PFCP side and a worker thread that polls the forwarding
//! table and the End Marker inbox as the datapath's first worker does: the path switch's
//! Session Modification (Update FAR, SNDEM) moves the UE's downlink tunnel and orders an End
//! Marker on the old one only once every worker left it; with `far_update_delay` the old path
//! stops before the answer and the new one starts that much later.

use std::net::Ipv4Addr;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use upfbench_dpdk::Quiescent;
use upfbench_n4::client_side::{ClientThread, HandoverOrder};
use upfbench_pfcp::Teid;
use upfbench_reflector::datapath::end_marker::{EndMarkerOrder, end_marker_channel};
use upfbench_reflector::datapath::rules::{DownlinkEntry, ForwardingTable, table_channels};
use upfbench_reflector::upf_side::{UpfSide, UpfThread};

#[path = "support/pfcp_pair.rs"]
mod pfcp_pair;

use pfcp_pair::{client_side, session_plans, upf_side};

const CP: Ipv4Addr = Ipv4Addr::new(127, 0, 5, 1);
const UP: Ipv4Addr = Ipv4Addr::new(127, 0, 5, 2);
const UE: Ipv4Addr = Ipv4Addr::new(10, 45, 0, 2);
const SOURCE_GNB: Ipv4Addr = Ipv4Addr::new(192, 168, 13, 131);
const TARGET_GNB: Ipv4Addr = Ipv4Addr::new(192, 168, 13, 132);
const TARGET_TEID: Teid = Teid(0x2000_0002);

/// What the worker saw: each new table's entry for the UE, and each End Marker order with the
/// entry in effect when it came, timed.
#[derive(Default)]
struct Seen {
    /// When, the UE's entry, the TSC then and the entry's release tick.
    tables: Vec<(Instant, Option<DownlinkEntry>, (u64, u64))>,
    orders: Vec<(Instant, EndMarkerOrder, Option<DownlinkEntry>)>,
}

/// What the worker saw, when the answer came and when the request went, and its latency.
fn switch(port: u16, slot: u32, delay: Option<Duration>) -> (Seen, Instant, Instant, Duration) {
    // One case at a time: a grace period waits for every worker thread of the process.
    static SERIAL: Mutex<()> = Mutex::new(());
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let (publisher, mut readers) = table_channels(1, ForwardingTable::empty());
    let (poster, inbox) = end_marker_channel();
    let reader = readers.pop().expect("one reader");
    let seen = Arc::new(Mutex::new(Seen::default()));
    let stop = Arc::new(AtomicBool::new(false));
    let worker = spawn_worker(slot, reader, inbox, Arc::clone(&seen), Arc::clone(&stop));
    let upf = UpfThread::start(
        Some(UpfSide {
            far_update_delay: delay,
            ..upf_side(UP, port, CP)
        }),
        publisher,
        poster,
    )
    .expect("the reflector's PFCP side");
    let client =
        ClientThread::start(Some(client_side(CP, UP, port))).expect("the generator's PFCP side");
    client.associate().wait().unwrap().expect("associated");
    let p = session_plans(CP, UP, 1, "downlink").remove(0);
    let cp_seid = establish(&client, &p);
    let start = Instant::now() + Duration::from_millis(20);
    let outcomes = client
        .handovers(
            start,
            vec![HandoverOrder {
                ue: 0,
                at: Duration::from_millis(5),
                cp_seid,
                request: p.path_switch_request(TARGET_TEID, TARGET_GNB.into(), true),
            }],
        )
        .wait()
        .unwrap();
    let answered = Instant::now();
    assert_eq!(outcomes.len(), 1);
    let o = &outcomes[0];
    let sent = start + o.sent_at;
    assert_eq!((o.ue, &o.error), (0, &None));
    assert!(o.sent_at >= Duration::from_millis(5), "{:?}", o.sent_at);
    // Established, (held,) switched, and the End Marker: until the worker saw them all (the
    // machine may be busy).
    wait_until_seen(&seen, if delay.is_some() { 3 } else { 2 });
    stop.store(true, Ordering::Relaxed);
    worker.join().expect("the worker");
    drop(client);
    upf.stop().expect("the PFCP side stops");
    let seen = Arc::try_unwrap(seen).ok().unwrap().into_inner().unwrap();
    (seen, answered, sent, o.latency)
}

/// The datapath's first worker, as far as the handover goes: on each new table, the UE's entry
/// with the TSC and its release tick; on each End Marker order, the entry then in effect.
fn spawn_worker(
    slot: u32,
    mut reader: upfbench_reflector::datapath::rules::TableReader,
    mut inbox: upfbench_reflector::datapath::end_marker::EndMarkerInbox,
    worker_seen: Arc<Mutex<Seen>>,
    worker_stop: Arc<AtomicBool>,
) -> std::thread::JoinHandle<()> {
    std::thread::spawn(move || {
        let quiescent = Quiescent::online(slot);
        while !worker_stop.load(Ordering::Relaxed) {
            quiescent.pass();
            let entry = |r: &upfbench_reflector::datapath::rules::TableReader| {
                r.table().downlink.get(u32::from(UE)).copied()
            };
            if reader.refresh() {
                let e = entry(&reader);
                let release = reader.table().release_at(u32::from(UE));
                let ticks = (upfbench_dpdk::tsc(), release);
                worker_seen
                    .lock()
                    .unwrap()
                    .tables
                    .push((Instant::now(), e, ticks));
            }
            if inbox.pending() {
                let e = entry(&reader);
                let mut s = worker_seen.lock().unwrap();
                inbox.take(|o| s.orders.push((Instant::now(), o, e)));
            }
            std::hint::spin_loop();
        }
    })
}

/// Establishes the session of plan `p`; returns its CP SEID.
fn establish(client: &ClientThread, p: &upfbench_pfcp::plan::UeSessionPlan) -> upfbench_pfcp::Seid {
    let mut e = client.establish(vec![p.clone()]).expect("a PFCP client");
    let sessions = loop {
        if let Some(r) = e.try_result() {
            break r.expect("established");
        }
        std::thread::sleep(Duration::from_millis(1));
    };
    sessions[0].cp_seid
}

/// Waits until the worker saw `tables` tables and an End Marker order, 5 s at most.
fn wait_until_seen(seen: &Mutex<Seen>, tables: usize) {
    let until = Instant::now() + Duration::from_secs(5);
    let done = |s: &Seen| s.tables.len() >= tables && !s.orders.is_empty();
    while !done(&seen.lock().unwrap()) && Instant::now() < until {
        std::thread::sleep(Duration::from_millis(5));
    }
}

fn tunnel(e: Option<DownlinkEntry>) -> Option<(Teid, Ipv4Addr)> {
    e.filter(|e| e.forward)
        .map(|e| (e.teid, Ipv4Addr::from(e.gnb)))
}

const OLD_END: EndMarkerOrder = EndMarkerOrder {
    teid: Teid(2),
    gnb: SOURCE_GNB,
};

#[test]
fn a_path_switch_moves_the_tunnel_then_orders_the_end_marker() {
    let (seen, answered, _, _) = switch(18806, 101, None);
    // Established on the source gNB, then switched to the target: two tables.
    let tunnels: Vec<_> = seen.tables.iter().map(|(_, e, _)| tunnel(*e)).collect();
    assert_eq!(
        tunnels,
        [Some((Teid(2), SOURCE_GNB)), Some((TARGET_TEID, TARGET_GNB))]
    );
    assert!(seen.tables[1].0 <= answered, "in effect before the answer");
    // One End Marker, on the old tunnel, ordered once the new table was in effect.
    assert_eq!(seen.orders.len(), 1);
    let (at, order, entry) = seen.orders[0];
    assert_eq!(order, OLD_END);
    assert_eq!(tunnel(entry), Some((TARGET_TEID, TARGET_GNB)));
    assert!(at >= seen.tables[1].0);
}

#[test]
fn a_delayed_far_update_breaks_before_it_makes() {
    let d = Duration::from_millis(50);
    let (seen, answered, sent, latency) = switch(18807, 102, Some(d));
    let states: Vec<_> = seen
        .tables
        .iter()
        .map(|(_, e, _)| (tunnel(*e), e.is_some_and(|e| e.held)))
        .collect();
    assert_eq!(
        states,
        [
            (Some((Teid(2), SOURCE_GNB)), false),
            (None, true),
            (Some((TARGET_TEID, TARGET_GNB)), false)
        ]
    );
    // The answer came once the old path stopped (its latency has no part of D in it: the
    // workers start the new path themselves).
    assert!(seen.tables[1].0 <= answered);
    assert!(latency > Duration::ZERO);
    // The held rule starts forwarding D after the hold on the workers' own clock (TSC ticks
    // at the test's 1 GHz): a worker needs no other table for it.
    let (seen_at, release) = seen.tables[1].2;
    let ticks = d.as_nanos() as u64;
    assert!(
        release > seen_at && release - seen_at <= ticks,
        "{release} {seen_at}"
    );
    // (The worker saw the held table a little after the hold: at most half of D on a busy
    // machine.)
    assert!(release - seen_at > ticks / 2, "{release} {seen_at}");
    // Then the plain rule, from the control thread, at least D after the hold (which came
    // after the request went).
    assert!(seen.tables[2].0 >= sent + d);
    assert_eq!(seen.tables[2].2.1, u64::MAX, "no release left");
    // The End Marker was ordered while the UE's downlink was held.
    assert_eq!(seen.orders.len(), 1);
    let (at, order, entry) = seen.orders[0];
    assert_eq!(order, OLD_END);
    assert!(entry.is_some_and(|e| e.held));
    assert!(at >= seen.tables[1].0 && at < seen.tables[2].0);
}
