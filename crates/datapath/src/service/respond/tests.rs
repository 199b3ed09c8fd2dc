use super::*;
use upfbench_net::{checksum, ethernet, ipv4};

const US: Interface = Interface {
    mac: MacAddr([2, 0, 0, 0, 0x13, 0x31]),
    address: Ipv4Addr::new(192, 168, 13, 131),
    prefix_len: 24,
    secondary: None,
};
const PEER_MAC: MacAddr = MacAddr([2, 0, 0, 0, 0x13, 0x51]);
const PEER: Ipv4Addr = Ipv4Addr::new(192, 168, 13, 151);

fn arp_frame(oper: u16, sha: MacAddr, spa: Ipv4Addr, tha: MacAddr, tpa: Ipv4Addr) -> Vec<u8> {
    let mut f = vec![0xff; 6];
    f.extend_from_slice(&sha.0);
    f.extend_from_slice(&[0x08, 0x06, 0, 1, 0x08, 0, 6, 4]);
    f.extend_from_slice(&oper.to_be_bytes());
    f.extend_from_slice(&sha.0);
    f.extend_from_slice(&spa.octets());
    f.extend_from_slice(&tha.0);
    f.extend_from_slice(&tpa.octets());
    f.extend_from_slice(&[0; 18]); // Ethernet padding to 60 bytes
    f
}

fn ipv4_frame(src: Ipv4Addr, dst: Ipv4Addr, protocol: u8, payload: &[u8]) -> Vec<u8> {
    let ip_at = ethernet::HEADER_LEN;
    let payload_at = ip_at + ipv4::MIN_HEADER_LEN;
    let mut f = vec![0u8; payload_at + payload.len()];
    EthernetRepr {
        source: PEER_MAC,
        destination: US.mac,
        ethertype: ETHERTYPE_IPV4,
    }
    .emit(&mut f)
    .unwrap();
    Ipv4Repr {
        source: src,
        destination: dst,
        protocol,
        payload_len: payload.len(),
        ttl: 17,
        dscp_ecn: 0,
        identification: 99,
        dont_fragment: false,
    }
    .emit(&mut f[ip_at..])
    .unwrap();
    f[payload_at..].copy_from_slice(payload);
    f
}

#[test]
fn an_arp_request_for_us_is_answered_and_its_sender_learned() {
    let req = arp_frame(1, PEER_MAC, PEER, MacAddr([0; 6]), US.address);
    let mut out = [0u8; 128];
    let o = respond(&US, &req, &mut out);
    assert_eq!(o.seen, Seen::ArpRequest);
    assert_eq!(o.learned, Some((PEER.into(), PEER_MAC)));
    let n = o.reply.expect("a reply");
    let r = &out[..n];
    assert_eq!(n, 42);
    assert_eq!(&r[0..6], &PEER_MAC.0, "to the asker");
    assert_eq!(&r[6..12], &US.mac.0);
    assert_eq!(&r[12..14], &[0x08, 0x06]);
    assert_eq!(&r[20..22], &[0, 2], "a reply");
    assert_eq!(&r[22..28], &US.mac.0, "our MAC as sender");
    assert_eq!(&r[28..32], &US.address.octets());
    assert_eq!(&r[32..38], &PEER_MAC.0);
    assert_eq!(&r[38..42], &PEER.octets());
}

#[test]
fn arp_for_others_is_not_answered_but_replies_are_learned() {
    let mut out = [0u8; 128];
    let other = arp_frame(
        1,
        PEER_MAC,
        PEER,
        MacAddr([0; 6]),
        Ipv4Addr::new(192, 168, 13, 7),
    );
    let o = respond(&US, &other, &mut out);
    assert_eq!((o.seen, o.reply, o.learned), (Seen::ArpOther, None, None));
    let reply = arp_frame(2, PEER_MAC, PEER, US.mac, US.address);
    let o = respond(&US, &reply, &mut out);
    assert_eq!(
        (o.seen, o.reply, o.learned),
        (Seen::ArpReply, None, Some((PEER.into(), PEER_MAC)))
    );
    // Off our subnet: not a neighbour.
    let far = arp_frame(2, PEER_MAC, Ipv4Addr::new(10, 0, 0, 1), US.mac, US.address);
    assert_eq!(respond(&US, &far, &mut out).learned, None);
    // Gratuitous ARP (sender = target) is learned.
    let g = arp_frame(1, PEER_MAC, PEER, MacAddr([0; 6]), PEER);
    assert_eq!(
        respond(&US, &g, &mut out).learned,
        Some((PEER.into(), PEER_MAC))
    );
}

#[test]
fn our_arp_request_is_a_broadcast_asking_for_the_target() {
    let mut out = [0u8; 64];
    let n = arp_request(&US, PEER, &mut out).unwrap();
    let r = &out[..n];
    assert_eq!(&r[0..6], &[0xff; 6]);
    assert_eq!(&r[20..22], &[0, 1]);
    assert_eq!(&r[28..32], &US.address.octets());
    assert_eq!(&r[32..38], &[0; 6]);
    assert_eq!(&r[38..42], &PEER.octets());
    // A peer answering it teaches us its MAC.
    let back = arp_frame(2, PEER_MAC, PEER, US.mac, US.address);
    assert_eq!(
        respond(&US, &back, &mut out).learned,
        Some((PEER.into(), PEER_MAC))
    );
}

#[test]
fn a_ping_to_us_is_answered_with_valid_checksums() {
    let mut echo = vec![8, 0, 0, 0, 0x12, 0x34, 0, 7];
    echo.extend_from_slice(b"upfbench ping data");
    let c = !checksum::sum(&echo);
    echo[2..4].copy_from_slice(&c.to_be_bytes());
    let req = ipv4_frame(PEER, US.address, 1, &echo);
    let mut out = [0u8; 256];
    let o = respond(&US, &req, &mut out);
    assert_eq!(o.seen, Seen::IcmpEchoRequest);
    let r = &out[..o.reply.unwrap()];
    let eth = EthernetFrame::new_checked(r).unwrap();
    assert_eq!(eth.destination(), PEER_MAC);
    let ip = Ipv4Packet::new_checked(eth.payload()).unwrap();
    assert!(ip.verify_checksum());
    assert_eq!((ip.source(), ip.destination()), (US.address, PEER));
    let m = ip.payload();
    assert_eq!(m[0], 0, "echo reply");
    assert_eq!(&m[4..], &echo[4..], "identifier, sequence and data kept");
    assert_eq!(checksum::sum(m), 0xffff, "ICMP checksum verifies");
}

#[test]
fn pings_to_others_and_other_icmp_are_not_answered() {
    let mut out = [0u8; 256];
    let other = ipv4_frame(
        PEER,
        Ipv4Addr::new(192, 168, 13, 9),
        1,
        &[8, 0, 0, 0, 0, 0, 0, 0],
    );
    assert_eq!(respond(&US, &other, &mut out).reply, None);
    let unreachable = ipv4_frame(PEER, US.address, 1, &[3, 3, 0, 0, 0, 0, 0, 0]);
    let o = respond(&US, &unreachable, &mut out);
    assert_eq!((o.seen, o.reply), (Seen::IcmpOther, None));
}

#[test]
fn a_ping_with_a_bad_checksum_or_a_rarp_request_is_not_answered() {
    let mut echo = vec![8, 0, 0, 0, 0x12, 0x34, 0, 7, b'x'];
    let c = !checksum::sum(&echo) ^ 1;
    echo[2..4].copy_from_slice(&c.to_be_bytes());
    let mut out = [0u8; 256];
    let o = respond(&US, &ipv4_frame(PEER, US.address, 1, &echo), &mut out);
    assert_eq!((o.seen, o.reply), (Seen::IcmpOther, None));
    // RARP's "request reverse" (operation 3) is not ARP's business.
    let rarp = arp_frame(3, PEER_MAC, PEER, MacAddr([0; 6]), US.address);
    let o = respond(&US, &rarp, &mut out);
    assert_eq!((o.seen, o.reply, o.learned), (Seen::Ignored, None, None));
}

fn gtpu_frame(message: &GtpuRepr<'_>, src_port: u16) -> Vec<u8> {
    let mut body = vec![0u8; message.buffer_len()];
    message.emit(&mut body).unwrap();
    let mut udp = vec![0u8; 8 + body.len()];
    udp[0..2].copy_from_slice(&src_port.to_be_bytes());
    udp[2..4].copy_from_slice(&GTPU_PORT.to_be_bytes());
    udp[4..6].copy_from_slice(&((8 + body.len()) as u16).to_be_bytes());
    udp[8..].copy_from_slice(&body);
    ipv4_frame(PEER, US.address, 17, &udp)
}

#[test]
fn a_gtpu_echo_request_is_answered_with_the_same_sequence_number() {
    let req = GtpuRepr {
        teid: Teid(0),
        sequence_number: Some(4242),
        npdu_number: None,
        pdu_session_container: None,
        udp_port: None,
        message: Message::EchoRequest,
    };
    let mut out = [0u8; 256];
    let o = respond(&US, &gtpu_frame(&req, 40000), &mut out);
    assert_eq!(o.seen, Seen::GtpuEchoRequest);
    let r = &out[..o.reply.unwrap()];
    let ip = Ipv4Packet::new_checked(&r[14..]).unwrap();
    assert_eq!(ip.destination(), PEER);
    let udp = UdpPacket::new_checked(ip.payload()).unwrap();
    assert_eq!((udp.source_port(), udp.destination_port()), (2152, 40000));
    let rsp = GtpuRepr::parse_bytes(udp.payload()).unwrap();
    assert_eq!(rsp.message, Message::EchoResponse { recovery: 0 });
    assert_eq!(rsp.sequence_number, Some(4242));
}

#[test]
fn gtpu_signalling_from_the_upf_is_counted_by_kind() {
    let mut out = [0u8; 256];
    let ei = GtpuRepr {
        teid: Teid(0),
        sequence_number: Some(0),
        npdu_number: None,
        pdu_session_container: None,
        udp_port: None,
        message: Message::ErrorIndication {
            teid_data_i: Teid(7),
            peer_address: PEER.into(),
        },
    };
    let o = respond(&US, &gtpu_frame(&ei, 2152), &mut out);
    assert_eq!((o.seen, o.reply), (Seen::GtpuErrorIndication, None));
    let em = GtpuRepr {
        message: Message::EndMarker,
        teid: Teid(5),
        sequence_number: None,
        ..ei
    };
    assert_eq!(
        respond(&US, &gtpu_frame(&em, 2152), &mut out).seen,
        Seen::GtpuEndMarker
    );
}

#[test]
fn an_error_indication_names_the_teid_and_our_address() {
    // A G-PDU from the peer (source port 50000) to an unknown TEID 0x99.
    let gpdu = GtpuRepr {
        teid: Teid(0x99),
        sequence_number: None,
        npdu_number: None,
        pdu_session_container: None,
        udp_port: None,
        message: Message::GPdu { t_pdu: &[0x45; 20] },
    };
    let frame = gtpu_frame(&gpdu, 50000);
    let mut out = [0u8; 256];
    let n = error_indication(&US, &frame, Teid(0x99), &mut out).unwrap();
    let eth = EthernetFrame::new_checked(&out[..n]).unwrap();
    assert_eq!(eth.destination(), PEER_MAC);
    let ip = Ipv4Packet::new_checked(eth.payload()).unwrap();
    assert_eq!(ip.destination(), PEER);
    let udp = UdpPacket::new_checked(ip.payload()).unwrap();
    assert_eq!(udp.destination_port(), 2152);
    let ei = GtpuRepr::parse_bytes(udp.payload()).unwrap();
    assert_eq!(
        ei.message,
        Message::ErrorIndication {
            teid_data_i: Teid(0x99),
            peer_address: US.address.into()
        }
    );
    assert_eq!(ei.udp_port, Some(50000));
}

#[test]
fn on_link_follows_the_prefix() {
    assert!(US.on_link(u32::from(PEER)));
    assert!(!US.on_link(u32::from(Ipv4Addr::new(192, 168, 14, 1))));
    let any = Interface {
        prefix_len: 0,
        ..US
    };
    assert!(any.on_link(0x0a00_0001));
    let host = Interface {
        prefix_len: 32,
        ..US
    };
    assert!(!host.on_link(u32::from(PEER)));
}

proptest::proptest! {
    #[test]
    fn any_bytes_are_answered_without_panic(frame in proptest::collection::vec(proptest::prelude::any::<u8>(), 0..200)) {
        let mut out = [0u8; 1600];
        let o = respond(&US, &frame, &mut out);
        if let Some(n) = o.reply {
            proptest::prop_assert!(n <= out.len());
        }
    }
}

#[test]
fn an_end_marker_goes_on_the_old_tunnel_without_payload() {
    let mut out = [0u8; 128];
    let n = end_marker(&US, PEER_MAC, PEER, Teid(0x2000_0002), &mut out).unwrap();
    let eth = EthernetFrame::new_checked(&out[..n]).unwrap();
    assert_eq!((eth.source(), eth.destination()), (US.mac, PEER_MAC));
    let ip = Ipv4Packet::new_checked(eth.payload()).unwrap();
    assert_eq!((ip.source(), ip.destination()), (US.address, PEER));
    assert!(ip.verify_checksum());
    let udp = UdpPacket::new_checked(ip.payload()).unwrap();
    assert_eq!((udp.source_port(), udp.destination_port()), (2152, 2152));
    // The 8-octet mandatory header only: type 254, length 0, the old TEID.
    assert_eq!(
        udp.payload(),
        &[0x30, 254, 0, 0, 0x20, 0, 0, 2],
        "{:02x?}",
        udp.payload()
    );
    let em = GtpuRepr::parse_bytes(udp.payload()).unwrap();
    assert_eq!(
        (em.message, em.teid),
        (Message::EndMarker, Teid(0x2000_0002))
    );
    // What the old gNB's service plane makes of it.
    let gnb = Interface {
        mac: PEER_MAC,
        address: PEER,
        ..US
    };
    assert_eq!(
        respond(&gnb, &out[..n], &mut [0u8; 256]).seen,
        Seen::GtpuEndMarker
    );
}

#[test]
fn arp_answers_for_the_secondary_address_too() {
    let target = Ipv4Addr::new(192, 168, 13, 132);
    let us = Interface {
        secondary: Some(target),
        ..US
    };
    let mut out = [0u8; 128];
    let req = arp_frame(1, PEER_MAC, PEER, MacAddr([0; 6]), target);
    let o = respond(&us, &req, &mut out);
    assert_eq!(o.seen, Seen::ArpRequest);
    let n = o.reply.unwrap();
    let reply = ArpRepr::parse(&ArpPacket::new_checked(&out[ethernet::HEADER_LEN..n]).unwrap());
    let reply = reply.unwrap();
    assert_eq!((reply.sender_ip, reply.sender_mac), (target, US.mac));
    assert!(
        respond(&US, &req, &mut out).reply.is_none(),
        "not ours without it"
    );
}
