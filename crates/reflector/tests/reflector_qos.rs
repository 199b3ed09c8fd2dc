//! Several QoS flows and their QERs through the reflector's PFCP side: a session of three
//! flows (QFI 1 and 5 policed at their MBRs, the default flow's QER shared by its uplink and
//! downlink PDRs) established over N4, its packets classified by the table a worker holds,
//! policed, then a flow's gate closed by a Session Modification: its packets are dropped as
//! soon as the answer is in, the other flows pass, and a deletion keeps what the QERs counted.

use std::net::{IpAddr, Ipv4Addr, SocketAddr, UdpSocket};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use upfbench_dpdk::Quiescent;
use upfbench_net::Qfi;
use upfbench_pfcp::driver::recovery_time_stamp_now;
use upfbench_pfcp::ie::{
    BitRate, Cause, CreateFar, CreatePdr, CreateQer, DestinationInterface, ForwardingParameters,
    Fseid, Fteid, GateStatus, NodeId, OuterHeaderCreation, OuterHeaderRemoval, Pdi, SdfFilter,
    SourceInterface, UeIpAddress,
};
use upfbench_pfcp::message::{
    AssociationSetupRequest, SessionDeletionRequest, SessionEstablishmentRequest,
};
use upfbench_pfcp::plan::gate_request;
use upfbench_pfcp::{
    FarId, Message, MessageBody, PdrId, Precedence, QerId, Seid, SequenceNumber, Teid,
};
use upfbench_reflector::datapath::end_marker::end_marker_channel;
use upfbench_reflector::datapath::flows::{Classified, classify};
use upfbench_reflector::datapath::qer::{DOWNLINK, QerBook, QerRow, UPLINK};
use upfbench_reflector::datapath::rules::{DownlinkEntry, ForwardingTable, table_channels};
use upfbench_reflector::upf_side::{UpfSide, UpfThread};
use upfbench_testkit::upf_frames::inner;

#[path = "support/pfcp_pair.rs"]
mod pfcp_pair;

const CP: Ipv4Addr = Ipv4Addr::new(127, 0, 6, 1);
const UP: Ipv4Addr = Ipv4Addr::new(127, 0, 6, 2);
const PORT: u16 = 18806;
const SLOT: u32 = 101;
const UE: Ipv4Addr = Ipv4Addr::new(10, 45, 0, 2);
const DN: Ipv4Addr = Ipv4Addr::new(192, 168, 16, 152);
const GNB: Ipv4Addr = Ipv4Addr::new(192, 168, 13, 131);
const UL_TEID: Teid = Teid(0x100);
const DL_TEID: Teid = Teid(0x200);

fn qfi(v: u8) -> Option<Qfi> {
    Qfi::new(v).ok()
}

/// The N4 peer: a plain socket, one request at a time.
struct Cp {
    socket: UdpSocket,
    sequence: u32,
}

impl Cp {
    fn ask(&mut self, seid: Option<Seid>, body: impl Into<MessageBody>) -> MessageBody {
        self.sequence += 1;
        let sequence = SequenceNumber::new(self.sequence).unwrap();
        let m = match seid {
            Some(s) => Message::session(s, sequence, body),
            None => Message::node(sequence, body),
        };
        let up = SocketAddr::new(UP.into(), PORT);
        self.socket.send_to(&m.to_vec().unwrap(), up).unwrap();
        let mut buf = [0u8; 4096];
        let (n, _) = self.socket.recv_from(&mut buf).expect("an answer");
        Message::parse(&buf[..n]).expect("a PFCP message").body
    }
}

/// The session: per flow (QFI, QER, SDF port, precedence) an uplink PDR on one TEID matching
/// the QFI and a downlink PDR on the UE matching the port; QER 1 at 8 Mbit/s, QER 2 at
/// 800 kbit/s, QER 9 without MBR.
fn establishment() -> SessionEstablishmentRequest {
    let mut r = SessionEstablishmentRequest::new(NodeId::Ipv4(CP), Fseid::ipv4(Seid(7), CP));
    let mut down = ForwardingParameters::new(DestinationInterface::ACCESS);
    down.outer_header_creation = Some(OuterHeaderCreation::gtpu_udp(DL_TEID, GNB.into()));
    r.create_fars.push(CreateFar::forward(FarId(1), down));
    r.create_fars.push(CreateFar::forward(
        FarId(2),
        ForwardingParameters::new(DestinationInterface::CORE),
    ));
    for (id, q, kbps) in [(1, 1, Some(8_000)), (2, 5, Some(800)), (9, 9, None)] {
        let mut c = CreateQer::new(QerId(id), qfi(q).unwrap());
        c.mbr = kbps.map(|k| BitRate {
            ul_kbps: k,
            dl_kbps: k,
        });
        r.create_qers.push(c);
    }
    for (i, (q, qer, port, precedence)) in [
        (Some(1), 1, Some(5001), 10),
        (Some(5), 2, Some(5005), 20),
        (None, 9, None, 255),
    ]
    .into_iter()
    .enumerate()
    {
        let mut pdi = Pdi::new(SourceInterface::ACCESS);
        pdi.local_f_teid = Some(Fteid::ipv4(UL_TEID, Ipv4Addr::new(192, 168, 13, 151)));
        pdi.ue_ip_address = Some(UeIpAddress::ipv4(UE, false));
        pdi.qfi = q.and_then(qfi);
        let mut ul = CreatePdr::new(PdrId(10 + i as u16), Precedence(precedence), pdi);
        ul.far_id = Some(FarId(2));
        ul.outer_header_removal = Some(OuterHeaderRemoval::gtpu_udp_ipv4());
        ul.qer_ids.push(QerId(qer));
        r.create_pdrs.push(ul);
        let mut pdi = Pdi::new(SourceInterface::CORE);
        pdi.ue_ip_address = Some(UeIpAddress::ipv4(UE, true));
        if let Some(p) = port {
            pdi.sdf_filters.push(SdfFilter::flow(&format!(
                "permit out 17 from any {p} to assigned"
            )));
        }
        let mut dl = CreatePdr::new(PdrId(20 + i as u16), Precedence(precedence), pdi);
        dl.far_id = Some(FarId(1));
        dl.qer_ids.push(QerId(qer));
        r.create_pdrs.push(dl);
    }
    r
}

/// The row of QER `id`.
fn row(book: &QerBook, id: u32) -> QerRow {
    *book
        .rows()
        .iter()
        .find(|r| r.qer_id == QerId(id))
        .expect("the QER")
}

#[test]
#[expect(
    clippy::too_many_lines,
    reason = "one N4 conversation, each step asserted where it happens"
)]
fn three_flows_are_classified_policed_and_a_gate_closed_over_n4() {
    let (publisher, mut readers) = table_channels(1, ForwardingTable::empty());
    let mut reader = readers.pop().unwrap();
    let latest = Arc::new(Mutex::new(ForwardingTable::empty()));
    let stop = Arc::new(AtomicBool::new(false));
    let (worker_latest, worker_stop) = (Arc::clone(&latest), Arc::clone(&stop));
    let worker = std::thread::spawn(move || {
        let quiescent = Quiescent::online(SLOT);
        while !worker_stop.load(Ordering::Relaxed) {
            quiescent.pass();
            if reader.refresh() {
                *worker_latest.lock().unwrap() = reader.table().clone();
            }
            std::hint::spin_loop();
        }
    });
    let book = QerBook::default();
    let upf = UpfThread::start(
        Some(UpfSide {
            qers: book.clone(),
            ..pfcp_pair::upf_side(UP, PORT, CP)
        }),
        publisher,
        end_marker_channel().0,
    )
    .expect("the reflector's PFCP side");
    let socket = UdpSocket::bind(SocketAddr::new(IpAddr::V4(CP), 0)).unwrap();
    socket
        .set_read_timeout(Some(Duration::from_secs(5)))
        .unwrap();
    let mut cp = Cp {
        socket,
        sequence: 0,
    };
    let setup = AssociationSetupRequest::new(NodeId::Ipv4(CP), recovery_time_stamp_now());
    assert!(matches!(
        cp.ask(None, setup),
        MessageBody::AssociationSetupResponse(r) if r.cause == Cause::REQUEST_ACCEPTED
    ));
    let up_seid = match cp.ask(Some(Seid(0)), establishment()) {
        MessageBody::SessionEstablishmentResponse(r) => {
            assert_eq!(r.cause, Cause::REQUEST_ACCEPTED, "{r:?}");
            r.up_f_seid.expect("an F-SEID").seid
        }
        other => panic!("{other:?}"),
    };
    let table = |want: &dyn Fn(&ForwardingTable) -> bool| {
        let until = Instant::now() + Duration::from_secs(10);
        loop {
            let t = latest.lock().unwrap().clone();
            if want(&t) {
                return t;
            }
            assert!(Instant::now() < until, "the worker never had the table");
            std::thread::sleep(Duration::from_millis(1));
        }
    };
    let t = table(&|t| t.sessions == 1);
    assert!(t.uplink.get(UL_TEID.get()).is_some_and(|u| u.flows));
    assert_eq!(
        t.downlink.get(u32::from(UE)).copied(),
        Some(DownlinkEntry::FLOWS)
    );
    assert_eq!(&*t.gnbs, &[u32::from(GNB)]);
    let ul = t.uplink_flows.get(&UL_TEID.get()).unwrap().clone();
    let dl = t.downlink_flows.get(&u32::from(UE)).unwrap().clone();
    let up_packet = inner(UE, DN, (4000, 80), &[0; 972]); // 1,000 bytes
    let down = |port| inner(DN, UE, (port, 4000), &[0; 972]);

    // Each QFI to its flow; the downlink by port, with its flow's QFI for the container.
    for (q, want) in [(1, 10), (5, 20), (9, 255)] {
        match classify(&ul, &up_packet, 1_000, qfi(q), true, 0) {
            Classified::Pass(f) => assert_eq!(f.precedence, want),
            other => panic!("QFI {q}: {other:?}"),
        }
    }
    for (port, q) in [(5001, 1), (5005, 5), (80, 9)] {
        match classify(&dl, &down(port), 1_000, None, false, 0) {
            Classified::Pass(f) => {
                assert_eq!(
                    (f.container_qfi, f.tunnel),
                    (qfi(q), Some((DL_TEID, u32::from(GNB))))
                )
            }
            other => panic!("port {port}: {other:?}"),
        }
    }
    // QER 2 at 800 kbit/s: its 1,500-byte burst took the first packet; four more at once are
    // policed, and the default flow's QER has no MBR.
    for _ in 0..4 {
        assert_eq!(
            classify(&ul, &up_packet, 1_000, qfi(5), true, 0),
            Classified::Policed
        );
    }
    let q2 = row(&book, 2);
    assert_eq!((q2.seid, q2.qfi), (up_seid, qfi(5)));
    assert_eq!(
        (q2.counts[UPLINK].passed, q2.counts[UPLINK].policed),
        (1, 4)
    );
    assert_eq!(q2.counts[UPLINK].policed_bytes, 4_000);
    let q9 = row(&book, 9);
    assert_eq!(
        (q9.counts[UPLINK].passed, q9.counts[DOWNLINK].passed),
        (1, 1),
        "one QER for both PDRs"
    );

    // The gate of QER 2 closed: from the answer on, its packets are dropped both ways, with
    // its bucket full again (10 s later); QER 1's pass.
    match cp.ask(Some(up_seid), gate_request([QerId(2)], GateStatus::CLOSED)) {
        MessageBody::SessionModificationResponse(r) => {
            assert_eq!(r.cause, Cause::REQUEST_ACCEPTED)
        }
        other => panic!("{other:?}"),
    }
    let later = 10_000_000_000;
    let t = latest.lock().unwrap().clone();
    let ul = t.uplink_flows.get(&UL_TEID.get()).unwrap().clone();
    let dl = t.downlink_flows.get(&u32::from(UE)).unwrap().clone();
    assert_eq!(
        classify(&ul, &up_packet, 1_000, qfi(5), true, later),
        Classified::Gated
    );
    assert_eq!(
        classify(&dl, &down(5005), 1_000, None, false, later),
        Classified::Gated
    );
    assert!(matches!(
        classify(&ul, &up_packet, 1_000, qfi(1), true, later),
        Classified::Pass(_)
    ));
    let q2 = row(&book, 2);
    assert_eq!((q2.counts[UPLINK].gated, q2.counts[DOWNLINK].gated), (1, 1));
    assert_eq!(
        q2.counts[UPLINK].policed, 4,
        "the modification kept its counts"
    );

    // Deleted: the QERs leave the book's rows, their counts stay per QFI.
    assert!(matches!(
        cp.ask(Some(up_seid), SessionDeletionRequest::default()),
        MessageBody::SessionDeletionResponse(r) if r.cause == Cause::REQUEST_ACCEPTED
    ));
    let t = table(&|t| t.sessions == 0);
    assert!(t.uplink_flows.is_empty() && t.downlink_flows.is_empty());
    assert!(book.rows().is_empty());
    let by_qfi = book.by_qfi();
    let five = by_qfi.iter().find(|(q, _)| *q == qfi(5)).unwrap().1;
    assert_eq!(
        (
            five[UPLINK].passed,
            five[UPLINK].policed,
            five[UPLINK].gated
        ),
        (1, 4, 1)
    );
    stop.store(true, Ordering::Relaxed);
    worker.join().unwrap();
    upf.stop().unwrap();
}
