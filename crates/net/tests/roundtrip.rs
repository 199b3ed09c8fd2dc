//! Property tests: representation round trips, incremental checksums against full
//! recomputation, and decoders that never panic.

use std::net::Ipv4Addr;

use proptest::prelude::*;
use upfbench_net::{
    ArpOperation, ArpPacket, ArpRepr, EthernetFrame, EthernetRepr, Icmpv4Packet, Icmpv4Repr,
    Ipv4Packet, Ipv4Repr, MacAddr, UdpPacket, UdpRepr, checksum,
};

fn mac() -> impl Strategy<Value = MacAddr> {
    any::<[u8; 6]>().prop_map(MacAddr)
}

fn ipv4() -> impl Strategy<Value = Ipv4Addr> {
    any::<u32>().prop_map(Ipv4Addr::from)
}

fn arp() -> impl Strategy<Value = ArpRepr> {
    (any::<bool>(), mac(), ipv4(), mac(), ipv4()).prop_map(|(reply, sm, si, tm, ti)| ArpRepr {
        operation: if reply {
            ArpOperation::Reply
        } else {
            ArpOperation::Request
        },
        sender_mac: sm,
        sender_ip: si,
        target_mac: tm,
        target_ip: ti,
    })
}

/// An ICMP message kind: 0 echo request, 1 echo reply, else another type.
fn icmp<'a>(kind: u8, t: u8, code: u8, rest: [u8; 4], data: &'a [u8]) -> Icmpv4Repr<'a> {
    let (identifier, sequence) = (
        u16::from_be_bytes([rest[0], rest[1]]),
        u16::from_be_bytes([rest[2], rest[3]]),
    );
    match kind {
        0 => Icmpv4Repr::EchoRequest {
            identifier,
            sequence,
            data,
        },
        1 => Icmpv4Repr::EchoReply {
            identifier,
            sequence,
            data,
        },
        // Types other than echo, or echo with a non-zero code, stay "other".
        _ if (t == 0 || t == 8) && code == 0 => Icmpv4Repr::Other {
            msg_type: 3,
            code,
            rest_of_header: rest,
            data,
        },
        _ => Icmpv4Repr::Other {
            msg_type: t,
            code,
            rest_of_header: rest,
            data,
        },
    }
}

/// Writes IPv4 + UDP + `payload` with the layer emitters; returns the datagram's length.
fn emit_datagram(buf: &mut [u8], ip: &Ipv4Repr, udp: &UdpRepr, payload: &[u8], csum: bool) {
    ip.emit(buf).unwrap();
    let seg = &mut buf[20..ip.payload_len + 20];
    udp.emit(seg, payload.len()).unwrap();
    seg[8..].copy_from_slice(payload);
    if csum {
        let mut u = UdpPacket::new_checked(seg).unwrap();
        u.fill_checksum(ip.source, ip.destination);
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn ethernet_round_trips(src in mac(), dst in mac(), ethertype in any::<u16>()) {
        let repr = EthernetRepr { source: src, destination: dst, ethertype };
        let mut buf = [0u8; 14];
        repr.emit(&mut buf).unwrap();
        prop_assert_eq!(EthernetRepr::parse(&EthernetFrame::new_checked(&buf[..]).unwrap()), repr);
    }

    #[test]
    fn arp_round_trips(repr in arp(), padding in 0usize..32) {
        let mut buf = vec![0u8; repr.buffer_len() + padding];
        repr.emit(&mut buf).unwrap();
        let p = ArpPacket::new_checked(&buf[..]).unwrap();
        prop_assert_eq!(ArpRepr::parse(&p), Ok(repr));
        // The reply to a reply's mirror image is the packet itself.
        let back = repr.reply(repr.target_mac).reply(repr.sender_mac);
        prop_assert_eq!((back.sender_ip, back.target_ip), (repr.sender_ip, repr.target_ip));
    }

    #[test]
    fn icmp_round_trips(
        kind in 0u8..3, t in any::<u8>(), code in any::<u8>(), rest in any::<[u8; 4]>(),
        data in proptest::collection::vec(any::<u8>(), 0..300),
    ) {
        let repr = icmp(kind, t, if kind < 2 { 0 } else { code }, rest, &data);
        let mut buf = vec![0u8; repr.buffer_len()];
        repr.emit(&mut buf).unwrap();
        let p = Icmpv4Packet::new_checked(&buf[..]).unwrap();
        prop_assert!(p.verify_checksum());
        prop_assert_eq!(checksum::sum(&buf), 0xffff);
        prop_assert_eq!(Icmpv4Repr::parse(&p), Ok(repr));
    }

    #[test]
    fn ipv4_udp_round_trips(
        src in ipv4(), dst in ipv4(), ttl in any::<u8>(), tos in any::<u8>(),
        id in any::<u16>(), df in any::<bool>(), sport in any::<u16>(), dport in any::<u16>(),
        payload in proptest::collection::vec(any::<u8>(), 0..600), csum in any::<bool>(),
        padding in 0usize..8,
    ) {
        let ip = Ipv4Repr {
            source: src,
            destination: dst,
            protocol: 17,
            payload_len: 8 + payload.len(),
            ttl,
            dscp_ecn: tos,
            identification: id,
            dont_fragment: df,
        };
        let udp = UdpRepr { source_port: sport, destination_port: dport };
        let mut buf = vec![0u8; 28 + payload.len() + padding];
        emit_datagram(&mut buf, &ip, &udp, &payload, csum);
        let p = Ipv4Packet::new_checked(&buf[..]).unwrap();
        prop_assert_eq!(p.total_len(), 28 + payload.len());
        prop_assert_eq!(Ipv4Repr::parse(&p), Ok(ip));
        let u = UdpPacket::new_checked(p.payload()).unwrap();
        prop_assert_eq!(UdpRepr::parse(&u, ip.source, ip.destination), Ok(udp));
        prop_assert_eq!(u.payload(), &payload[..]);
        prop_assert_eq!(u.checksum() != 0, csum);
    }

    /// RFC 1624 eqn. 3 on an IPv4 header: changing any aligned 16- or 32-bit field gives the
    /// same checksum as recomputing it.
    #[test]
    fn incremental_ipv4_checksum_matches_recomputation(
        mut header in any::<[u8; 20]>(),
        word in 0usize..10,
        new16 in any::<u16>(),
        addr_field in 0usize..2,
        new32 in any::<u32>(),
    ) {
        header[0] = 0x45; // a header is never all zero
        let c = checksum::ipv4_header(&header);
        header[10..12].copy_from_slice(&c.to_be_bytes());
        let at = word * 2;
        if at != 10 {
            let old = u16::from_be_bytes([header[at], header[at + 1]]);
            let mut changed = header;
            changed[at..at + 2].copy_from_slice(&new16.to_be_bytes());
            let want = checksum::ipv4_header(&changed);
            prop_assert_eq!(checksum::update_u16(c, old, new16), want);
            prop_assert_eq!(checksum::update(c, at, &old.to_be_bytes(), &new16.to_be_bytes()), want);
        }
        let at = 12 + 4 * addr_field;
        let old = u32::from_be_bytes([header[at], header[at + 1], header[at + 2], header[at + 3]]);
        let mut changed = header;
        changed[at..at + 4].copy_from_slice(&new32.to_be_bytes());
        let want = checksum::ipv4_header(&changed);
        prop_assert_eq!(checksum::update_u32(c, old, new32), want);
        prop_assert_eq!(checksum::update(c, at, &old.to_be_bytes(), &new32.to_be_bytes()), want);
    }

    /// Byte fields at any offset, odd ones included (a 10-byte tag in a payload).
    #[test]
    fn incremental_checksum_at_any_offset(
        mut data in proptest::collection::vec(any::<u8>(), 12..200),
        at_frac in 0.0f64..1.0,
        new in any::<[u8; 10]>(),
    ) {
        data[0] |= 1; // not all zero, like every header
        let at = ((data.len() - 10) as f64 * at_frac) as usize;
        let c = !checksum::sum(&data);
        let mut old = [0u8; 10];
        old.copy_from_slice(&data[at..at + 10]);
        data[at..at + 10].copy_from_slice(&new);
        prop_assert_eq!(checksum::update(c, at, &old, &new), !checksum::sum(&data));
    }

    /// A new source address (IPv4 header and UDP pseudo header) and new bytes in the UDP
    /// payload, updated incrementally with the UDP checksum's zero rules, verify.
    #[test]
    fn incremental_udp_checksum_matches_recomputation(
        src in any::<u32>(), dst in ipv4(), new_src in any::<u32>(),
        payload in proptest::collection::vec(any::<u8>(), 10..400),
        tag in any::<[u8; 10]>(),
        tag_at_frac in 0.0f64..1.0,
    ) {
        let ip = Ipv4Repr {
            source: Ipv4Addr::from(src),
            destination: dst,
            protocol: 17,
            payload_len: 8 + payload.len(),
            ttl: 64,
            dscp_ecn: 0,
            identification: 0,
            dont_fragment: false,
        };
        let udp = UdpRepr { source_port: 10000, destination_port: 20000 };
        let mut buf = vec![0u8; 28 + payload.len()];
        emit_datagram(&mut buf, &ip, &udp, &payload, true);
        let ip_c = u16::from_be_bytes([buf[10], buf[11]]);
        let udp_c = u16::from_be_bytes([buf[26], buf[27]]);

        buf[12..16].copy_from_slice(&new_src.to_be_bytes());
        let ip_c2 = checksum::update_u32(ip_c, src, new_src);
        let udp_c2 = checksum::update_udp_u32(udp_c, src, new_src);
        let tag_at = ((payload.len() - 10) as f64 * tag_at_frac) as usize;
        let mut old_tag = [0u8; 10];
        old_tag.copy_from_slice(&buf[28 + tag_at..38 + tag_at]);
        buf[28 + tag_at..38 + tag_at].copy_from_slice(&tag);
        let udp_c3 = checksum::update_udp(udp_c2, 8 + tag_at, &old_tag, &tag);

        prop_assert_eq!(ip_c2, checksum::ipv4_header(&buf[..20]));
        prop_assert_eq!(udp_c3, checksum::udp_ipv4(Ipv4Addr::from(new_src), dst, &buf[20..]));
        buf[10..12].copy_from_slice(&ip_c2.to_be_bytes());
        buf[26..28].copy_from_slice(&udp_c3.to_be_bytes());
        let p = Ipv4Packet::new_checked(&buf[..]).unwrap();
        prop_assert!(p.verify_checksum());
        prop_assert!(UdpPacket::new_checked(p.payload()).unwrap().verify_checksum(p.source(), p.destination()));
    }

    /// Arbitrary bytes: every decoder returns, none panics, and what decodes re-emits to bytes
    /// that decode to the same representation.
    #[test]
    fn decoders_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..200)) {
        if let Ok(e) = EthernetFrame::new_checked(&bytes[..]) {
            let _ = (EthernetRepr::parse(&e), e.payload());
        }
        if let Ok(repr) = ArpPacket::new_checked(&bytes[..]).and_then(|p| ArpRepr::parse(&p)) {
            let mut out = [0u8; 28];
            repr.emit(&mut out).unwrap();
            prop_assert_eq!(&out[..], &bytes[..28]);
        }
        if let Ok(p) = Ipv4Packet::new_checked(&bytes[..]) {
            prop_assert!(p.header_len() <= p.total_len() && p.total_len() <= bytes.len());
            let _ = (p.options(), p.payload(), Ipv4Repr::parse(&p));
        }
        if let Ok(p) = Icmpv4Packet::new_checked(&bytes[..])
            && let Ok(repr) = Icmpv4Repr::parse(&p)
        {
            let mut out = vec![0u8; repr.buffer_len()];
            repr.emit(&mut out).unwrap();
            // The checksum may be the other zero of one's complement (0xffff for 0x0000).
            prop_assert_eq!(&out[4..], &bytes[4..]);
            let emitted = Icmpv4Packet::new_checked(&out[..]).unwrap();
            prop_assert_eq!(Icmpv4Repr::parse(&emitted), Ok(repr));
        }
        if let Ok(u) = UdpPacket::new_checked(&bytes[..]) {
            prop_assert!(u.len() <= bytes.len());
            let _ = (u.payload(), UdpRepr::parse(&u, Ipv4Addr::LOCALHOST, Ipv4Addr::LOCALHOST));
        }
    }
}

/// Found by the fuzz target (CI, 2026-11-24): an IPv4 header whose checksum field holds 0xffff
/// where the computation gives 0x0000 (the other zero of one's complement) verifies, and
/// re-emits with 0x0000, which verifies too.
#[test]
fn an_ipv4_checksum_of_0xffff_verifies_and_re_emits_as_0x0000() {
    let mut packet = vec![
        69, 0, 0, 28, 0, 1, 0, 0, 38, 255, 255, 255, 255, 132, 100, 64, 46, 255, 1, 31,
    ];
    packet.extend_from_slice(&[0; 8]);
    let p = Ipv4Packet::new_checked(&packet[..]).unwrap();
    assert!(p.verify_checksum());
    let repr = Ipv4Repr::parse(&p).unwrap();
    let mut out = [0u8; 20];
    repr.emit(&mut out).unwrap();
    assert_eq!(out[10..12], [0, 0]);
    assert_eq!(out[..10], packet[..10]);
    assert_eq!(out[12..], packet[12..20]);
    assert_eq!(checksum::sum(&out), 0xffff);
}
