//! IPv6 UEs: downlink G-PDUs over either transport on N3, uplink plain on N6, and the IPv6
//! signalling that goes to the service plane. Frames are built with the codecs, as a UPF sends
//! them.

use std::net::Ipv6Addr;

use upfbench_gtpu::{
    Encapsulator, Ipv6Repr, OuterHeaders, PduSessionContainer, UdpChecksum, UdpRepr, emit_ip_udp,
};
use upfbench_net::{Icmpv6Repr, MacAddr, NeighborSolicit};

use super::*;

const UE0: Ipv6Addr = Ipv6Addr::new(0x2001, 0xdb8, 0x45, 0, 0, 0, 0, 2);
const DN6: Ipv6Addr = Ipv6Addr::new(0x2001, 0xdb8, 0x16, 0, 0, 0, 0, 0x152);

/// UE `i` has the /64 `2001:db8:45:i::/64`, its address `::2` in it.
fn map() -> Ue6Map {
    Ue6Map::new(UE0, 64)
}

/// Stream `id` of IPv6 UEs.
fn stream6(
    id: u16,
    direction: Direction,
    ues: core::ops::Range<u32>,
    flow_base: u32,
) -> StreamPlan {
    let mut s = stream(id, direction, ues, flow_base);
    s.shape.inner = IpFamily::Ipv6;
    s
}

/// [`rules`] with IPv6 streams.
fn rules6() -> RxRules {
    RxRules::new(
        ues(),
        qfi(9),
        &[
            stream6(UL, Direction::Uplink, 0..100, 0),
            stream6(DL, Direction::Downlink, 10..20, 100),
        ],
    )
    .with_ipv6_ues(map())
}

/// An IPv6/UDP packet with the tag.
fn inner6(src: Ipv6Addr, dst: Ipv6Addr, ports: (u16, u16), tag: &[u8]) -> Vec<u8> {
    let mut b = vec![0u8; 40 + 8 + tag.len()];
    let udp = UdpRepr {
        source_port: ports.0,
        destination_port: ports.1,
    };
    emit_ip_udp(
        &mut b,
        &Ipv6Repr::udp(src, dst),
        &udp,
        tag,
        UdpChecksum::Compute,
    )
    .unwrap();
    b
}

/// A G-PDU from the UPF over IPv6 around `inner`.
fn gpdu6(teid: Teid, qfi: Option<Qfi>, inner: &[u8]) -> Vec<u8> {
    let mut outer = OuterHeaders::new(
        MacAddr([2, 0, 0, 0, 0, 1]),
        MacAddr([2, 0, 0, 0, 0, 2]),
        "2001:db8:13::151".parse::<Ipv6Addr>().unwrap(),
        "2001:db8:13::131".parse::<Ipv6Addr>().unwrap(),
        teid,
    );
    outer.pdu_session_container = qfi.map(PduSessionContainer::downlink);
    let e = Encapsulator::new(&outer).unwrap();
    let at = e.outer_len();
    let mut buf = vec![0u8; at + inner.len()];
    buf[at..].copy_from_slice(inner);
    let end = buf.len();
    let range = e.encapsulate(&mut buf, at..end).unwrap();
    buf[range].to_vec()
}

fn plain6(inner: &[u8]) -> Vec<u8> {
    let mut f = vec![2, 0, 0, 0, 0, 3, 2, 0, 0, 0, 0, 4, 0x86, 0xdd];
    f.extend_from_slice(inner);
    f
}

#[test]
fn ue_prefixes_map_back_to_their_ue() {
    let m = map();
    for i in [0u32, 1, 99, 65_535, 1 << 20] {
        assert_eq!(m.offset_of(u128::from(m.address(i))), i);
    }
    assert_eq!(
        m.address(3),
        "2001:db8:45:3::2".parse::<Ipv6Addr>().unwrap()
    );
    // Another interface id in a UE's prefix is no UE's address.
    let other: Ipv6Addr = "2001:db8:45:3::3".parse().unwrap();
    assert_eq!(m.offset_of(u128::from(other)), u32::MAX);
    let per_address = Ue6Map::new(UE0, 128);
    assert_eq!(per_address.offset_of(u128::from(UE0) + 7), 7);
    assert_eq!(per_address.offset_of(u128::from(UE0) - 1), u32::MAX);
}

#[test]
fn downlink_ipv6_g_pdus_are_measured_over_either_transport() {
    let r = rules6();
    let packet = inner6(DN6, map().address(12), (10_001, 20_001), &tag(DL, 41, 77));
    let want = Classified::Measured {
        flow: 102,
        sequence: 41,
        tx_time: 77,
        no_container: false,
        leg: Leg::Fixed,
    };
    let teid = Teid(2 + 12 * 2);
    assert_eq!(
        r.classify_n3(&gpdu6(teid, qfi(9), &packet)),
        want,
        "over IPv6"
    );
    assert_eq!(
        r.classify_n3(&gpdu(teid, qfi(9), &packet)),
        want,
        "over IPv4"
    );
    assert_eq!(
        r.classify_n3(&gpdu6(Teid(3), qfi(9), &packet)),
        Classified::Rejected(Reject::WrongTeid)
    );
    assert_eq!(
        r.classify_n3(&gpdu6(teid, qfi(5), &packet)),
        Classified::Rejected(Reject::WrongQfi)
    );
    let elsewhere = inner6(DN6, map().address(50), (10_001, 20_001), &tag(DL, 41, 77));
    assert_eq!(
        r.classify_n3(&gpdu6(Teid(2 + 50 * 2), qfi(9), &elsewhere)),
        Classified::Rejected(Reject::UnknownUe),
        "UE 50 is not the downlink stream's"
    );
}

#[test]
fn uplink_ipv6_packets_are_measured_on_n6() {
    let r = rules6();
    let f = plain6(&inner6(
        map().address(7),
        DN6,
        (10_000, 20_000),
        &tag(UL, 3, 9),
    ));
    assert_eq!(
        r.classify_n6(&f),
        Classified::Measured {
            flow: 7,
            sequence: 3,
            tx_time: 9,
            no_container: false,
            leg: Leg::Fixed,
        }
    );
    let ports = plain6(&inner6(map().address(7), DN6, (1, 2), &tag(UL, 3, 9)));
    assert_eq!(
        r.classify_n6(&ports),
        Classified::Rejected(Reject::WrongUdpPorts)
    );
    let short = plain6(&inner6(map().address(7), DN6, (10_000, 20_000), &[0; 4]));
    assert_eq!(
        r.classify_n6(&short),
        Classified::Rejected(Reject::Untagged)
    );
    // An IPv4 stream's tag in an IPv6 packet is counted as the wrong family.
    assert_eq!(
        rules(qfi(9)).classify_n6(&f),
        Classified::Rejected(Reject::WrongFamily)
    );
}

#[test]
fn a_packet_of_the_other_family_than_its_streams_is_counted_as_such() {
    // Dual stack: an IPv4 stream and an IPv6 one each way, over the same UEs.
    const UL6: u16 = 2;
    const DL6: u16 = 3;
    let r = RxRules::new(
        ues(),
        qfi(9),
        &[
            stream(UL, Direction::Uplink, 0..100, 0),
            stream(DL, Direction::Downlink, 10..20, 100),
            stream6(UL6, Direction::Uplink, 0..100, 110),
            stream6(DL6, Direction::Downlink, 10..20, 210),
        ],
    )
    .with_ipv6_ues(map());
    let measured = |flow| Classified::Measured {
        flow,
        sequence: 3,
        tx_time: 9,
        no_container: false,
        leg: Leg::Fixed,
    };
    // Each family's packet with its own stream's tag is measured.
    let up6 = |id| {
        plain6(&inner6(
            map().address(7),
            DN6,
            (10_000 + id, 20_000 + id),
            &tag(id, 3, 9),
        ))
    };
    let up4 = |id| {
        plain(&inner(
            ue(7),
            DN,
            (10_000 + id, 20_000 + id),
            &tag(id, 3, 9),
        ))
    };
    assert_eq!(r.classify_n6(&up6(UL6)), measured(117));
    assert_eq!(r.classify_n6(&up4(UL)), measured(7));
    // With the other family's tag, counted as such on N6.
    let wrong = Classified::Rejected(Reject::WrongFamily);
    assert_eq!(r.classify_n6(&up6(UL)), wrong);
    assert_eq!(r.classify_n6(&up4(UL6)), wrong);
    // And on N3, inside the G-PDU.
    let teid = Teid(2 + 12 * 2);
    let down6 = |id| {
        inner6(
            DN6,
            map().address(12),
            (10_000 + id, 20_000 + id),
            &tag(id, 3, 9),
        )
    };
    let down4 = |id| inner(DN, ue(12), (10_000 + id, 20_000 + id), &tag(id, 3, 9));
    assert_eq!(
        r.classify_n3(&gpdu(teid, qfi(9), &down6(DL6))),
        measured(212)
    );
    assert_eq!(
        r.classify_n3(&gpdu(teid, qfi(9), &down4(DL))),
        measured(102)
    );
    assert_eq!(r.classify_n3(&gpdu(teid, qfi(9), &down6(DL))), wrong);
    assert_eq!(r.classify_n3(&gpdu6(teid, qfi(9), &down4(DL6))), wrong);
}

#[test]
fn neighbor_discovery_goes_to_the_service_plane_on_both_ports() {
    let us: Ipv6Addr = "2001:db8:13::131".parse().unwrap();
    let peer: Ipv6Addr = "2001:db8:13::151".parse().unwrap();
    let ns = Icmpv6Repr::NeighborSolicit(NeighborSolicit::new(us, MacAddr([2, 0, 0, 0, 0, 1])));
    let mut icmp = vec![0u8; 40 + ns.buffer_len()];
    Ipv6Repr {
        next_header: 58,
        payload_len: ns.buffer_len(),
        hop_limit: 255,
        ..Ipv6Repr::udp(peer, us)
    }
    .emit(&mut icmp)
    .unwrap();
    ns.emit(&mut icmp[40..], &peer, &us).unwrap();
    let f = plain6(&icmp);
    let r = rules6();
    assert_eq!(r.classify_n3(&f), Classified::Service(Service::Icmpv6));
    assert_eq!(r.classify_n6(&f), Classified::Service(Service::Icmpv6));
}
