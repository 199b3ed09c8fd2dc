use super::*;
use std::net::Ipv4Addr;
use upfbench_gtpu::{GtpuRepr, Message};
use upfbench_net::NeighborAdvert;
use upfbench_net::Teid;
use upfbench_net::ndp::NeighborSolicit;

use crate::service::respond::respond_port;

const US: Interface = Interface {
    mac: MacAddr([2, 0, 0, 0, 0x13, 0x31]),
    address: Ipv4Addr::UNSPECIFIED,
    prefix_len: 0,
    secondary: None,
};
const US6: Interface6 = Interface6 {
    address: Ipv6Addr::new(0x2001, 0xdb8, 0x13, 0, 0, 0, 0, 0x131),
    prefix_len: 64,
    secondary: None,
};
const PEER_MAC: MacAddr = MacAddr([2, 0, 0, 0, 0x13, 0x51]);
const PEER: Ipv6Addr = Ipv6Addr::new(0x2001, 0xdb8, 0x13, 0, 0, 0, 0, 0x151);

/// An Ethernet/IPv6/ICMPv6 frame from the peer, built by the net crate.
fn icmpv6(
    dst_mac: MacAddr,
    (src, dst): (Ipv6Addr, Ipv6Addr),
    hop: u8,
    m: &Icmpv6Repr<'_>,
) -> Vec<u8> {
    let mut f = vec![0u8; 14 + 40 + m.buffer_len()];
    let n = icmpv6_frame(PEER_MAC, dst_mac, (src, dst), hop, m, &mut f).unwrap();
    assert_eq!(n, f.len());
    f
}

/// The ICMPv6 message of a frame we sent, its checksum verified.
fn read(frame: &[u8]) -> (EthernetFrame<&[u8]>, Ipv6Repr, Icmpv6Repr<'_>) {
    let eth = EthernetFrame::new_checked(frame).unwrap();
    assert_eq!(eth.ethertype(), ETHERTYPE_IPV6);
    let ip = Ipv6Packet::new_checked(&frame[14..]).unwrap();
    let h = Ipv6Repr::parse(&ip).unwrap();
    let m = Icmpv6Packet::new_checked(&frame[54..]).unwrap();
    let m = Icmpv6Repr::parse(&m, &h.source, &h.destination).expect("a valid checksum");
    (eth, h, m)
}

fn solicit(target: Ipv6Addr, hop: u8) -> Vec<u8> {
    let group = solicited_node(target);
    icmpv6(
        MacAddr::ipv6_multicast(group),
        (PEER, group),
        hop,
        &Icmpv6Repr::NeighborSolicit(NeighborSolicit::new(target, PEER_MAC)),
    )
}

#[test]
fn a_solicitation_for_us_is_answered_with_a_solicited_advert() {
    let mut out = [0u8; 256];
    let o = respond_port(&US, Some(&US6), &solicit(US6.address, 255), &mut out);
    assert_eq!(o.seen, Seen::NdpSolicit);
    assert_eq!(o.learned, Some((IpAddr::V6(PEER), PEER_MAC)));
    let (eth, h, m) = read(&out[..o.reply.expect("an advert")]);
    assert_eq!((eth.source(), eth.destination()), (US.mac, PEER_MAC));
    assert_eq!(
        (h.source, h.destination, h.hop_limit),
        (US6.address, PEER, 255)
    );
    assert_eq!(
        m,
        Icmpv6Repr::NeighborAdvert(NeighborAdvert {
            router: false,
            solicited: true,
            override_flag: true,
            target: US6.address,
            target_link_layer: Some(US.mac),
        })
    );
}

#[test]
fn solicitations_for_others_or_through_a_router_are_not_answered() {
    let mut out = [0u8; 256];
    let other = "2001:db8:13::7".parse().unwrap();
    let o = respond_port(&US, Some(&US6), &solicit(other, 255), &mut out);
    assert_eq!((o.seen, o.reply), (Seen::NdpOther, None));
    assert_eq!(
        o.learned,
        Some((IpAddr::V6(PEER), PEER_MAC)),
        "its sender is on the link"
    );
    let routed = respond_port(&US, Some(&US6), &solicit(US6.address, 64), &mut out);
    assert_eq!(
        (routed.seen, routed.reply, routed.learned),
        (Seen::NdpOther, None, None)
    );
    // A port without an IPv6 address does not answer IPv6.
    let o = respond_port(&US, None, &solicit(US6.address, 255), &mut out);
    assert_eq!((o.seen, o.reply), (Seen::Ignored, None));
}

#[test]
fn our_solicitation_goes_to_the_solicited_node_group_and_its_advert_teaches_us() {
    let mut out = [0u8; 256];
    let n = neighbor_solicitation(US.mac, &US6, PEER, &mut out).unwrap();
    let (eth, h, m) = read(&out[..n]);
    let group: Ipv6Addr = "ff02::1:ff00:151".parse().unwrap();
    assert_eq!(
        eth.destination(),
        MacAddr([0x33, 0x33, 0xff, 0, 0x01, 0x51])
    );
    assert_eq!(
        (h.source, h.destination, h.hop_limit),
        (US6.address, group, 255)
    );
    assert_eq!(
        m,
        Icmpv6Repr::NeighborSolicit(NeighborSolicit::new(PEER, US.mac))
    );
    // The peer answers as RFC 4861 §7.2.4 says.
    let (to, advert) = NeighborSolicit::new(PEER, US.mac).advert(US6.address, PEER_MAC);
    let answer = icmpv6(US.mac, (PEER, to), 255, &Icmpv6Repr::NeighborAdvert(advert));
    let o = respond_port(&US, Some(&US6), &answer, &mut out);
    assert_eq!(
        (o.seen, o.reply, o.learned),
        (Seen::NdpAdvert, None, Some((IpAddr::V6(PEER), PEER_MAC)))
    );
}

#[test]
fn a_ping6_to_us_is_answered_and_others_are_not() {
    let data = b"upfbench ping6";
    let request = Icmpv6Repr::EchoRequest {
        identifier: 0x1234,
        sequence: 7,
        data,
    };
    let mut out = [0u8; 256];
    let f = icmpv6(US.mac, (PEER, US6.address), 64, &request);
    let o = respond_port(&US, Some(&US6), &f, &mut out);
    assert_eq!(o.seen, Seen::Icmpv6EchoRequest);
    let (eth, h, m) = read(&out[..o.reply.unwrap()]);
    assert_eq!(eth.destination(), PEER_MAC);
    assert_eq!((h.source, h.destination), (US6.address, PEER));
    assert_eq!(
        m,
        Icmpv6Repr::EchoReply {
            identifier: 0x1234,
            sequence: 7,
            data
        }
    );
    let elsewhere = icmpv6(US.mac, (PEER, "2001:db8::9".parse().unwrap()), 64, &request);
    let o = respond_port(&US, Some(&US6), &elsewhere, &mut out);
    assert_eq!((o.seen, o.reply), (Seen::Icmpv6Other, None));
    // A bad checksum is not answered.
    let mut bad = f.clone();
    *bad.last_mut().unwrap() ^= 1;
    let o = respond_port(&US, Some(&US6), &bad, &mut out);
    assert_eq!((o.seen, o.reply), (Seen::Icmpv6Other, None));
}

#[test]
fn a_gtpu_echo_request_over_ipv6_is_answered() {
    let req = GtpuRepr {
        teid: Teid(0),
        sequence_number: Some(77),
        npdu_number: None,
        pdu_session_container: None,
        udp_port: None,
        message: Message::EchoRequest,
    };
    let mut body = vec![0u8; req.buffer_len()];
    req.emit(&mut body).unwrap();
    let mut f = vec![0u8; 14 + 40 + 8 + body.len()];
    EthernetRepr {
        source: PEER_MAC,
        destination: US.mac,
        ethertype: ETHERTYPE_IPV6,
    }
    .emit(&mut f)
    .unwrap();
    let udp = UdpRepr {
        source_port: 40000,
        destination_port: GTPU_PORT,
    };
    emit_ipv6_udp(&mut f[14..], &Ipv6Repr::udp(PEER, US6.address), &udp, &body).unwrap();
    let mut out = [0u8; 256];
    let o = respond_port(&US, Some(&US6), &f, &mut out);
    assert_eq!(o.seen, Seen::GtpuEchoRequest);
    let r = &out[..o.reply.unwrap()];
    let ip = Ipv6Packet::new_checked(&r[14..]).unwrap();
    assert_eq!((ip.source(), ip.destination()), (US6.address, PEER));
    let u = UdpPacket::new_checked(ip.payload_slice()).unwrap();
    let parsed = UdpRepr::parse_ipv6(&u, &US6.address, &PEER).expect("a valid UDP checksum");
    assert_eq!((parsed.source_port, parsed.destination_port), (2152, 40000));
    let rsp = GtpuRepr::parse_bytes(u.payload()).unwrap();
    assert_eq!(rsp.message, Message::EchoResponse { recovery: 0 });
    assert_eq!(rsp.sequence_number, Some(77));
}

#[test]
fn an_ipv6_port_has_no_ipv4_on_its_link_and_its_prefix_is_its_link() {
    let (v4, v6) = port_interfaces(US.mac, IpAddr::V6(US6.address), 64);
    assert_eq!(v6, Some(US6));
    assert_eq!(v4.address, Ipv4Addr::UNSPECIFIED);
    assert!(!v4.on_link(u32::from(Ipv4Addr::new(192, 168, 13, 151))));
    assert!(!v4.on_link(1), "a gNB key is never an IPv4 neighbour");
    let v6 = v6.unwrap();
    assert!(v6.on_link(PEER));
    assert!(!v6.on_link("2001:db8:14::151".parse().unwrap()));
    let all = Interface6 {
        prefix_len: 0,
        ..v6
    };
    assert!(all.on_link("2001:db8:14::151".parse().unwrap()));
    let (v4, none) = port_interfaces(US.mac, Ipv4Addr::new(192, 168, 13, 131).into(), 24);
    assert_eq!(none, None);
    assert_eq!(
        (v4.address, v4.prefix_len),
        (Ipv4Addr::new(192, 168, 13, 131), 24)
    );
    assert!(v4.on_link(u32::from(Ipv4Addr::new(192, 168, 13, 151))));
}
