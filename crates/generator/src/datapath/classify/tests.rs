use std::net::Ipv4Addr;

use upfbench_net::{Qfi, Teid};
use upfbench_stats::Direction;

use super::*;
use upfbench_net::tag::Tag;
use upfbench_run::plan::{Schedule, Spread, StreamPlan, TeidSequence, UeTable, UplinkTeids};
use upfbench_testkit::upf_frames::{gpdu, inner, plain};

/// A measurement tag's bytes.
fn tag(stream: u16, sequence: u32, tx_time: u32) -> Vec<u8> {
    Tag {
        stream,
        sequence,
        tx_time,
    }
    .to_bytes()
    .to_vec()
}

const UL: u16 = 0;
const DL: u16 = 1;

fn ues() -> UeTable {
    UeTable::new(
        100,
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

fn stream(id: u16, direction: Direction, ues: core::ops::Range<u32>, flow_base: u32) -> StreamPlan {
    StreamPlan {
        id,
        name: format!("s{id}"),
        direction,
        payload_len: 10,
        pdu_session_container: true,
        source_port: 10_000 + id,
        destination_port: 20_000 + id,
        ues,
        flow_base,
        rate_pps: 1.0,
        schedule: Schedule::Continuous { packets: 1 },
        spread: Spread::RoundRobin,
        shape: Default::default(),
        qfi: None,
        qer: None,
    }
}

/// Uplink over UEs 0..100 (flows 0..100), downlink over UEs 10..20 (flows 100..110).
fn qfi(v: u8) -> Option<Qfi> {
    Some(Qfi::new(v).unwrap())
}

fn rules(qfi: Option<Qfi>) -> RxRules {
    RxRules::new(
        ues(),
        qfi,
        &[
            stream(UL, Direction::Uplink, 0..100, 0),
            stream(DL, Direction::Downlink, 10..20, 100),
        ],
    )
}

fn ue(i: u32) -> Ipv4Addr {
    ues().address_v4(i)
}

const DN: Ipv4Addr = Ipv4Addr::new(192, 168, 16, 152);

fn downlink(ue_index: u32, teid: Teid, qfi: Option<Qfi>, seq: u32) -> Vec<u8> {
    gpdu(
        teid,
        qfi,
        &inner(DN, ue(ue_index), (10_001, 20_001), &tag(DL, seq, 77)),
    )
}

#[test]
fn downlink_g_pdus_are_measured_by_ue_and_tag() {
    let r = rules(qfi(9));
    assert_eq!(
        r.classify_n3(&downlink(12, Teid(2 + 12 * 2), qfi(9), 41)),
        Classified::Measured {
            flow: 102,
            sequence: 41,
            tx_time: 77,
            no_container: false,
            leg: Leg::Fixed,
        }
    );
}

/// UPG-VPP sends its downlink G-PDUs from an ephemeral UDP source port (33670 in the lab), not
/// 2152 (TS 29.281 §4.4.2.0 allows any): only the destination port makes a G-PDU.
#[test]
fn a_downlink_g_pdu_from_an_ephemeral_source_port_is_measured() {
    let r = rules(qfi(9));
    let want = r.classify_n3(&downlink(12, Teid(2 + 12 * 2), qfi(9), 41));
    assert!(matches!(want, Classified::Measured { flow: 102, .. }));
    // The outer UDP source port, after Ethernet (14) and the outer IPv4 header (20); the outer
    // UDP checksum is zero, so nothing else changes.
    const OUTER_SOURCE_PORT: core::ops::Range<usize> = 34..36;
    for port in [33_670u16, 49_152, 1, 65_535] {
        let mut f = downlink(12, Teid(2 + 12 * 2), qfi(9), 41);
        assert_eq!(f[OUTER_SOURCE_PORT], 2152u16.to_be_bytes());
        f[OUTER_SOURCE_PORT].copy_from_slice(&port.to_be_bytes());
        assert_eq!(r.classify_n3(&f), want, "outer source port {port}");
    }
    // A G-PDU to another destination port is not GTP-U.
    let mut f = downlink(12, Teid(2 + 12 * 2), qfi(9), 41);
    f[36..38].copy_from_slice(&33_670u16.to_be_bytes());
    assert_eq!(r.classify_n3(&f), Classified::Rejected(Reject::NotGtpu));
}

#[test]
fn a_downlink_g_pdu_without_container_is_measured_and_noted() {
    let r = rules(qfi(9));
    assert_eq!(
        r.classify_n3(&downlink(10, Teid(22), None, 5)),
        Classified::Measured {
            flow: 100,
            sequence: 5,
            tx_time: 77,
            no_container: true,
            leg: Leg::Fixed,
        }
    );
    // Without a QFI in the run, nothing is noted.
    assert!(matches!(
        rules(None).classify_n3(&downlink(10, Teid(22), None, 5)),
        Classified::Measured {
            no_container: false,
            leg: Leg::Fixed,
            ..
        }
    ));
}

#[test]
fn the_tunnel_and_qfi_must_be_the_ues() {
    let r = rules(qfi(9));
    assert_eq!(
        r.classify_n3(&downlink(12, Teid(28), qfi(9), 0)),
        Classified::Rejected(Reject::WrongTeid)
    );
    assert_eq!(
        r.classify_n3(&downlink(12, Teid(26), qfi(8), 0)),
        Classified::Rejected(Reject::WrongQfi)
    );
}

#[test]
fn the_ue_must_be_one_of_the_streams() {
    let r = rules(None);
    // UE 9 exists but is not in the downlink stream (10..20); UE 100 does not exist.
    assert_eq!(
        r.classify_n3(&downlink(9, Teid(20), None, 0)),
        Classified::Rejected(Reject::UnknownUe)
    );
    assert_eq!(
        r.classify_n3(&downlink(100, Teid(202), None, 0)),
        Classified::Rejected(Reject::UnknownUe)
    );
}

#[test]
fn tags_must_name_a_stream_of_the_right_direction_and_ports() {
    let r = rules(None);
    let g = |stream, ports| {
        gpdu(
            Teid(22),
            None,
            &inner(DN, ue(10), ports, &tag(stream, 0, 0)),
        )
    };
    assert_eq!(
        r.classify_n3(&g(7, (10_001, 20_001))),
        Classified::Rejected(Reject::UnknownStream)
    );
    assert_eq!(
        r.classify_n3(&g(UL, (10_000, 20_000))),
        Classified::Rejected(Reject::WrongPort)
    );
    assert_eq!(
        r.classify_n3(&g(DL, (10_001, 20_002))),
        Classified::Rejected(Reject::WrongUdpPorts)
    );
    let short = gpdu(
        Teid(22),
        None,
        &inner(DN, ue(10), (10_001, 20_001), &[0; 9]),
    );
    assert_eq!(
        r.classify_n3(&short),
        Classified::Rejected(Reject::Untagged)
    );
}

#[test]
fn uplink_on_n6_is_measured_by_its_source() {
    let r = rules(None);
    let f = plain(&inner(ue(99), DN, (10_000, 20_000), &tag(UL, 3, 4)));
    assert_eq!(
        r.classify_n6(&f),
        Classified::Measured {
            flow: 99,
            sequence: 3,
            tx_time: 4,
            no_container: false,
            leg: Leg::Fixed,
        }
    );
    let f = plain(&inner(DN, ue(5), (10_000, 20_000), &tag(UL, 3, 4)));
    assert_eq!(r.classify_n6(&f), Classified::Rejected(Reject::UnknownUe));
    let f = plain(&inner(DN, ue(12), (10_001, 20_001), &tag(DL, 3, 4)));
    assert_eq!(r.classify_n6(&f), Classified::Rejected(Reject::WrongPort));
}

#[test]
fn service_traffic_goes_to_the_service_plane() {
    let r = rules(None);
    let mut arp = vec![0xff; 6];
    arp.extend_from_slice(&[2, 0, 0, 0, 0, 1, 0x08, 0x06]);
    arp.extend_from_slice(&[0; 28]);
    assert_eq!(r.classify_n3(&arp), Classified::Service(Service::Arp));
    assert_eq!(r.classify_n6(&arp), Classified::Service(Service::Arp));

    let mut icmp = inner(DN, ue(0), (0, 0), &[0; 8]);
    icmp[9] = 1; // protocol ICMP
    assert_eq!(
        r.classify_n6(&plain(&icmp)),
        Classified::Service(Service::Icmp)
    );
    assert_eq!(
        r.classify_n3(&plain(&icmp)),
        Classified::Service(Service::Icmp)
    );

    // GTP-U Echo Request: flags 0x32, type 1, length 4, TEID 0, sequence number.
    let echo = inner(
        DN,
        ue(0),
        (2152, 2152),
        &[0x32, 1, 0, 4, 0, 0, 0, 0, 0, 7, 0, 0],
    );
    assert_eq!(
        r.classify_n3(&plain(&echo)),
        Classified::Service(Service::Gtpu(1))
    );
}

#[test]
fn foreign_frames_are_rejected_by_kind() {
    let r = rules(None);
    let other_port = plain(&inner(DN, ue(0), (53, 53), &[0; 20]));
    assert_eq!(
        r.classify_n3(&other_port),
        Classified::Rejected(Reject::NotGtpu)
    );
    // IPv6 whose next header (0x60) is neither UDP nor ICMPv6.
    let mut ipv6 = plain(&[0x60; 60]);
    ipv6[12..14].copy_from_slice(&[0x86, 0xdd]);
    assert_eq!(
        r.classify_n3(&ipv6),
        Classified::Rejected(Reject::Malformed)
    );
    assert_eq!(
        r.classify_n6(&ipv6),
        Classified::Rejected(Reject::Malformed)
    );
    let mut other = ipv6.clone();
    other[12..14].copy_from_slice(&[0x88, 0xcc]);
    assert_eq!(r.classify_n3(&other), Classified::Rejected(Reject::NotIpv4));
    let mut tcp = inner(DN, ue(0), (1, 2), &[0; 20]);
    tcp[9] = 6;
    assert_eq!(
        r.classify_n6(&plain(&tcp)),
        Classified::Rejected(Reject::Malformed)
    );
    // A G-PDU whose inner packet is not IPv4.
    assert_eq!(
        r.classify_n3(&gpdu(Teid(22), None, &[0x60; 48])),
        Classified::Rejected(Reject::InnerNotIpv4Udp)
    );
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(4000))]

    #[test]
    fn any_bytes_classify_without_panic(frame in proptest::collection::vec(proptest::prelude::any::<u8>(), 0..200)) {
        let r = rules(qfi(9));
        let _ = r.classify_n3(&frame);
        let _ = r.classify_n6(&frame);
    }

    #[test]
    fn damaged_measured_frames_classify_without_panic(
        at in 0usize..120, value: u8, cut in 0usize..120,
    ) {
        let r = rules(qfi(9));
        let mut f = downlink(12, Teid(26), qfi(9), 1);
        if at < f.len() { f[at] = value; }
        f.truncate(cut.max(1));
        let _ = r.classify_n3(&f);
        let mut f = plain(&inner(ue(99), DN, (10_000, 20_000), &tag(UL, 3, 4)));
        if at < f.len() { f[at] = value; }
        f.truncate(cut.max(1));
        let _ = r.classify_n6(&f);
    }
}

/// UEs 12 and 15 move (slots in the plan's order), to TEIDs 0x2000_0002 + 2i.
fn with_handovers() -> RxRules {
    use upfbench_config::{Arrivals, Handovers, Mobility, MovingUes, TargetGnb, TeidRange};
    let m = Mobility {
        ues: MovingUes::All,
        handovers: Handovers {
            at: Some(std::time::Duration::from_secs(1)),
            rate: None,
            arrivals: Arrivals::Uniform,
            start: std::time::Duration::ZERO,
        },
        target: TargetGnb {
            address: Ipv4Addr::new(192, 168, 13, 132),
            downlink_teid: TeidRange {
                first: Teid(0x2000_0002),
                step: 2,
            },
        },
        end_marker: true,
        seed: 1,
    };
    let plan = HandoverPlan::new(&m, 100);
    rules(qfi(9)).with_handovers(Some(Arc::new(plan)))
}

#[test]
fn a_moving_ue_is_measured_through_both_tunnels_and_told_apart() {
    let r = with_handovers();
    let h = r.handovers.clone().unwrap();
    let slot = h.slot(12).unwrap();
    let leg = |teid| match r.classify_n3(&downlink(12, teid, qfi(9), 5)) {
        Classified::Measured { flow, leg, .. } => {
            assert_eq!(flow, 102, "one flow, whichever tunnel");
            Some(leg)
        }
        Classified::Rejected(Reject::WrongTeid) => None,
        other => panic!("{other:?}"),
    };
    // One downlink stream: the flow slot is the UE's.
    assert_eq!(leg(Teid(2 + 12 * 2)), Some(Leg::Old(slot)));
    assert_eq!(leg(Teid(0x2000_0002 + 12 * 2)), Some(Leg::New(slot)));
    assert_eq!(
        leg(Teid(0x2000_0002 + 13 * 2)),
        None,
        "another UE's target TEID"
    );
    assert_eq!(leg(Teid(99)), None);
    // The End Marker on UE 12's old tunnel names its slot; on an unknown TEID, none.
    let em = |teid: Teid| {
        let repr = upfbench_gtpu::GtpuRepr {
            teid,
            sequence_number: None,
            npdu_number: None,
            pdu_session_container: None,
            udp_port: None,
            message: upfbench_gtpu::Message::EndMarker,
        };
        let mut g = vec![0u8; repr.buffer_len()];
        repr.emit(&mut g).unwrap();
        let mut f = gpdu(teid, None, &inner(DN, ue(0), (1, 2), &[0; 10]));
        // The G-PDU's outer headers around the End Marker's GTP-U message.
        f.truncate(14 + 20 + 8);
        f.extend_from_slice(&g);
        f
    };
    assert_eq!(r.end_marker_slot(&em(Teid(2 + 12 * 2))), Some(slot));
    assert_eq!(r.end_marker_slot(&em(Teid(3))), None);
    assert_eq!(rules(qfi(9)).end_marker_slot(&em(Teid(26))), None);
    assert_eq!(r.handover_record().flows.len(), 100);
}

mod ipv6;
