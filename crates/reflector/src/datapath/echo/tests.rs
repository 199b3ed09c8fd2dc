use std::net::Ipv4Addr;

use upfbench_net::{Ipv4Packet, UdpPacket, checksum};

use super::*;
use upfbench_testkit::upf_frames::{inner, plain};

const GEN: Ipv4Addr = Ipv4Addr::new(192, 168, 16, 152);
const US: Ipv4Addr = Ipv4Addr::new(192, 168, 16, 151);

/// The IPv4 and UDP checksums of an Ethernet/IPv4/UDP frame verify (and the UDP one is set).
fn checksums_valid(frame: &[u8]) -> bool {
    let ip = Ipv4Packet::new_checked(&frame[14..]).unwrap();
    let udp = UdpPacket::new_checked(ip.payload_slice()).unwrap();
    ip.verify_checksum()
        && udp.checksum() != 0
        && udp.verify_checksum(ip.source(), ip.destination())
}

fn echoed(frame: &[u8]) -> Vec<u8> {
    let mut f = frame.to_vec();
    match decide(&f) {
        EchoVerdict::Echo { udp_at } => swap(&mut f, udp_at),
        other => panic!("not echoed: {other:?}"),
    }
    f
}

#[test]
fn udp_comes_back_with_every_address_swapped_and_valid_checksums() {
    let payload: Vec<u8> = (0..300u16).map(|i| i as u8).collect();
    let sent = plain(&inner(GEN, US, (40000, 7), &payload));
    assert!(checksums_valid(&sent));
    let back = echoed(&sent);
    assert_eq!(
        (&back[0..6], &back[6..12]),
        (&sent[6..12], &sent[0..6]),
        "MACs"
    );
    let (ip, ip_sent) = (
        Ipv4Packet::new_checked(&back[14..]).unwrap(),
        Ipv4Packet::new_checked(&sent[14..]).unwrap(),
    );
    assert_eq!((ip.source(), ip.destination()), (US, GEN));
    assert_eq!(ip.payload_slice().len(), ip_sent.payload_slice().len());
    let udp = UdpPacket::new_checked(ip.payload_slice()).unwrap();
    assert_eq!((udp.source_port(), udp.destination_port()), (7, 40000));
    assert_eq!(udp.payload(), &payload[..], "the payload untouched");
    assert!(checksums_valid(&back), "a swap keeps both checksums");
    // Everything but the swapped fields is as it came.
    let mut twice = back.clone();
    let EchoVerdict::Echo { udp_at } = decide(&twice) else {
        panic!()
    };
    swap(&mut twice, udp_at);
    assert_eq!(twice, sent, "swapping twice gives the frame back");
}

#[test]
fn ip_options_move_the_udp_header() {
    // IHL 6: one word of options (four NOPs) before the UDP header.
    let udp_packet = inner(GEN, US, (1111, 2222), &[9; 20]);
    let mut ip = udp_packet[..20].to_vec();
    ip[0] = 0x46;
    ip.extend_from_slice(&[1, 1, 1, 1]);
    let total = (ip.len() + udp_packet.len() - 20) as u16;
    ip[2..4].copy_from_slice(&total.to_be_bytes());
    ip[10..12].fill(0);
    let c = checksum::ipv4_header(&ip);
    ip[10..12].copy_from_slice(&c.to_be_bytes());
    ip.extend_from_slice(&udp_packet[20..]);
    let sent = plain(&ip);
    assert_eq!(decide(&sent), EchoVerdict::Echo { udp_at: 14 + 24 });
    let back = echoed(&sent);
    assert_eq!(&back[38..40], &2222u16.to_be_bytes());
    assert_eq!(&back[40..42], &1111u16.to_be_bytes());
    assert_eq!(
        &back[42..],
        &sent[42..],
        "the UDP length and checksum unchanged"
    );
    assert!(checksums_valid(&back));
}

#[test]
fn arp_and_icmp_go_to_the_service_plane() {
    let mut arp = vec![0xff; 12];
    arp.extend_from_slice(&[0x08, 0x06]);
    arp.extend_from_slice(&[0; 28]);
    assert_eq!(decide(&arp), EchoVerdict::Service);
    let mut icmp = inner(GEN, US, (0, 0), &[0; 8]);
    icmp[9] = 1;
    assert_eq!(decide(&plain(&icmp)), EchoVerdict::Service);
    assert_eq!(decide_other_port(&plain(&icmp)), EchoVerdict::Service);
    // ICMPv6 (Neighbor Discovery on an IPv6 port): next header 58 at 14 + 6.
    let mut icmpv6 = vec![0u8; 14 + 40 + 24];
    icmpv6[12..14].copy_from_slice(&[0x86, 0xdd]);
    icmpv6[14] = 0x60;
    icmpv6[14 + 6] = 58;
    assert_eq!(decide(&icmpv6), EchoVerdict::Service);
    assert_eq!(decide_other_port(&icmpv6), EchoVerdict::Service);
    icmpv6[14 + 6] = 17;
    assert_eq!(decide(&icmpv6), EchoVerdict::Drop(Drop::NotUserTraffic));
}

#[test]
fn other_traffic_is_counted_by_kind() {
    let udp = inner(GEN, US, (1, 2), &[0; 10]);
    // TCP, or any protocol but UDP and ICMP.
    let mut tcp = udp.clone();
    tcp[9] = 6;
    assert_eq!(
        decide(&plain(&tcp)),
        EchoVerdict::Drop(Drop::NotUserTraffic)
    );
    // A fragment (More Fragments set; or a later one, offset not 0).
    for flags in [0x2000u16, 0x0001] {
        let mut frag = udp.clone();
        frag[6..8].copy_from_slice(&flags.to_be_bytes());
        assert_eq!(
            decide(&plain(&frag)),
            EchoVerdict::Drop(Drop::NotUserTraffic),
            "{flags:#x}"
        );
    }
    // IPv6, or anything that is neither IPv4 nor ARP.
    let mut v6 = plain(&udp);
    v6[12..14].copy_from_slice(&[0x86, 0xdd]);
    assert_eq!(decide(&v6), EchoVerdict::Drop(Drop::NotUserTraffic));
    // UDP on the other port is not echoed.
    assert_eq!(
        decide_other_port(&plain(&udp)),
        EchoVerdict::Drop(Drop::NotUserTraffic)
    );
}

#[test]
fn broken_headers_are_malformed() {
    let udp = inner(GEN, US, (1, 2), &[0; 10]);
    let frame = plain(&udp);
    assert_eq!(decide(&frame[..10]), EchoVerdict::Drop(Drop::Malformed));
    assert_eq!(
        decide(&frame[..30]),
        EchoVerdict::Drop(Drop::Malformed),
        "short IPv4 header"
    );
    // Total length beyond the frame; a header length below 20; not version 4.
    for (at, v) in [(16usize, 0xffu8), (14, 0x44), (14, 0x65)] {
        let mut f = frame.clone();
        f[at] = v;
        assert_eq!(
            decide(&f),
            EchoVerdict::Drop(Drop::Malformed),
            "{at}: {v:#x}"
        );
    }
    // An IPv4 packet too short for its UDP header.
    let mut short = frame[..14 + 24].to_vec();
    short[16..18].copy_from_slice(&24u16.to_be_bytes());
    assert_eq!(decide(&short), EchoVerdict::Drop(Drop::Malformed));
    // Ethernet padding after the packet is fine.
    let mut padded = frame.clone();
    padded.extend_from_slice(&[0; 8]);
    assert!(matches!(decide(&padded), EchoVerdict::Echo { .. }));
}

proptest::proptest! {
    #[test]
    fn any_bytes_decide_and_swap_without_panic(
        mut frame in proptest::collection::vec(proptest::prelude::any::<u8>(), 0..120),
        at in 0usize..130,
    ) {
        if let EchoVerdict::Echo { udp_at } = decide(&frame) {
            swap(&mut frame, udp_at);
        }
        let _ = decide_other_port(&frame);
        swap(&mut frame, at);
    }
}
