use std::net::Ipv4Addr;

use upfbench_net::tag::Tag;
use upfbench_net::{Qfi, Teid};
use upfbench_run::plan::{Schedule, Spread, StreamPlan, TeidSequence, UeTable, UplinkTeids};
use upfbench_stats::{Direction, RxConfig, StreamSpec};
use upfbench_testkit::upf_frames::{gpdu, inner};

use super::*;

const QFI: Qfi = Qfi::from_bits(9);
const DN: Ipv4Addr = Ipv4Addr::new(192, 168, 16, 152);

fn ues() -> UeTable {
    UeTable::new(
        1,
        Ipv4Addr::new(10, 45, 0, 2).into(),
        UplinkTeids::Sequence(TeidSequence {
            first: Teid(1),
            step: 2,
        }),
        TeidSequence {
            first: Teid(2),
            step: 2,
        },
    )
}

/// One UE's downlink: stream 0, flow 0.
fn rules() -> RxRules {
    let stream = StreamPlan {
        id: 0,
        name: "dl".into(),
        direction: Direction::Downlink,
        payload_len: 10,
        pdu_session_container: true,
        source_port: 10_000,
        destination_port: 20_000,
        ues: 0..1,
        flow_base: 0,
        rate_pps: 1.0,
        schedule: Schedule::Continuous { packets: 1 },
        spread: Spread::RoundRobin,
        shape: Default::default(),
        qfi: None,
        qer: None,
    };
    RxRules::new(ues(), Some(QFI), &[stream])
}

/// The UE's downlink G-PDU with sequence number `sequence`, sent at `tx_ns` on the run clock.
fn downlink(sequence: u32, tx_ns: u32) -> Vec<u8> {
    let tag = Tag {
        stream: 0,
        sequence,
        tx_time: tx_ns,
    };
    let packet = inner(DN, ues().address_v4(0), (10_000, 20_000), &tag.to_bytes());
    gpdu(Teid(2), Some(QFI), &packet)
}

/// The measured phase began at 1 ms: what was sent before (an earlier step's packets, or the
/// warm-up's, whose numbers the phase reuses) is counted, never measured, however late it comes.
#[test]
fn a_packet_sent_before_the_measured_phase_is_counted_not_measured() {
    let rules = rules();
    let specs = [StreamSpec {
        direction: Direction::Downlink,
        first_seq: 0,
    }];
    let (mut rx, _handle) = RxStats::new(0, &specs, &RxConfig::default()).expect("stats");
    let mut c = WorkerCounters::default();
    let from = 1_000_000;
    let mut receive = |frame: Vec<u8>, now_ns: u64, rx: &mut RxStats| {
        receive_frame::<false>(Side::N3, &frame, &rules, Some(rx), &mut c, now_ns, from);
    };
    // Sent at the epoch and after it: measured.
    receive(downlink(0, 1_000_000), 1_500_000, &mut rx);
    receive(downlink(1, 1_200_000), 1_500_000, &mut rx);
    // Sequence 0 of the step before, sent 1 ns before the epoch, arriving after this step's
    // own 0 and 1: not a duplicate of this step's 0, not measured at all.
    receive(downlink(0, 999_999), 1_600_000, &mut rx);
    // Received before the epoch (the phase was set, its first packets not yet due).
    receive(downlink(5, 800_000), 900_000, &mut rx);
    let n3 = Side::N3.index();
    assert_eq!((c.rx_measured[n3], c.unmeasured[n3]), (2, 2));
    let d = rx.counters().directions[Direction::Downlink.index()];
    assert_eq!((d.unique, d.duplicates, d.traffic.packets), (2, 0, 2));
}
