//! Property tests of IPv6, ICMPv6 with Neighbor Discovery, VLAN tags and IPv6 prefixes:
//! representation round trips, the IPv6 checksums' incremental updates against recomputation,
//! and decoders that never panic.

use std::net::Ipv6Addr;

use proptest::prelude::*;
use upfbench_net::ipv6::{self, PROTOCOL_UDP};
use upfbench_net::{
    Icmpv6Packet, Icmpv6Repr, Ipv6Cidr, Ipv6Packet, Ipv6Repr, MacAddr, NeighborAdvert,
    NeighborSolicit, TaggedEthernetRepr, UdpPacket, UdpRepr, VlanKind, VlanRepr, VlanTag, VlanTags,
    checksum,
};

fn ipv6_addr() -> impl Strategy<Value = Ipv6Addr> {
    any::<u128>().prop_map(Ipv6Addr::from)
}

/// A unicast address (not ff00::/8), as a Neighbor Discovery target must be.
fn unicast() -> impl Strategy<Value = Ipv6Addr> {
    any::<u128>().prop_map(|a| Ipv6Addr::from(a & !(0xff << 120) | (0x20 << 120)))
}

fn mac() -> impl Strategy<Value = MacAddr> {
    any::<[u8; 6]>().prop_map(MacAddr)
}

fn ipv6_udp(src: Ipv6Addr, dst: Ipv6Addr, payload: &[u8], padding: usize) -> Vec<u8> {
    let ip = Ipv6Repr {
        payload_len: 8 + payload.len(),
        ..Ipv6Repr::udp(src, dst)
    };
    let mut buf = vec![0u8; 48 + payload.len() + padding];
    ip.emit(&mut buf).unwrap();
    let seg = &mut buf[40..48 + payload.len()];
    UdpRepr {
        source_port: 2152,
        destination_port: 2152,
    }
    .emit(seg, payload.len())
    .unwrap();
    seg[8..].copy_from_slice(payload);
    UdpPacket::new_checked(seg)
        .unwrap()
        .fill_checksum_ipv6(&src, &dst);
    buf
}

/// An ICMPv6 message of one of the kinds, valid for `src` and `dst` as RFC 4861 wants it.
fn icmpv6(
    kind: u8,
    target: Ipv6Addr,
    link: Option<MacAddr>,
    flags: [bool; 3],
    rest: [u8; 4],
    data: &[u8],
    dst_multicast: bool,
) -> Icmpv6Repr<'_> {
    let (identifier, sequence) = (
        u16::from_be_bytes([rest[0], rest[1]]),
        u16::from_be_bytes([rest[2], rest[3]]),
    );
    match kind {
        0 => Icmpv6Repr::EchoRequest {
            identifier,
            sequence,
            data,
        },
        1 => Icmpv6Repr::EchoReply {
            identifier,
            sequence,
            data,
        },
        2 => Icmpv6Repr::NeighborSolicit(NeighborSolicit {
            target,
            source_link_layer: link,
        }),
        3 => Icmpv6Repr::NeighborAdvert(NeighborAdvert {
            router: flags[0],
            solicited: flags[1] && !dst_multicast,
            override_flag: flags[2],
            target,
            target_link_layer: link,
        }),
        // Router Advertisement, Packet Too Big, and an echo with code 1 stay "other".
        _ => Icmpv6Repr::Other {
            msg_type: [134, 2, 128][usize::from(rest[0] % 3)],
            code: u8::from(rest[0] % 3 == 2),
            rest_of_header: rest,
            data,
        },
    }
}

fn tag(kind: VlanKind, pcp: u8, dei: bool, vid: u16) -> VlanRepr {
    VlanRepr {
        kind,
        pcp,
        dei,
        vid,
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn ipv6_udp_round_trips(
        src in ipv6_addr(), dst in ipv6_addr(), hop_limit in any::<u8>(), tc in any::<u8>(),
        flow in 0u32..=ipv6::MAX_FLOW_LABEL,
        payload in proptest::collection::vec(any::<u8>(), 0..600), padding in 0usize..8,
    ) {
        let mut buf = ipv6_udp(src, dst, &payload, padding);
        let ip = Ipv6Repr { hop_limit, traffic_class: tc, flow_label: flow, payload_len: 8 + payload.len(), ..Ipv6Repr::udp(src, dst) };
        ip.emit(&mut buf).unwrap();
        let p = Ipv6Packet::new_checked(&buf[..]).unwrap();
        prop_assert_eq!(Ipv6Repr::parse(&p), Ok(ip));
        let u = UdpPacket::new_checked(p.payload_slice()).unwrap();
        prop_assert_ne!(u.checksum(), 0);
        prop_assert_eq!(u.payload(), &payload[..]);
        let ports = UdpRepr { source_port: 2152, destination_port: 2152 };
        prop_assert_eq!(UdpRepr::parse_ipv6(&u, &src, &dst), Ok(ports));
    }

    #[test]
    fn icmpv6_round_trips(
        kind in 0u8..5, src in ipv6_addr(), dst in ipv6_addr(), target in unicast(),
        link in proptest::option::of(mac()), flags in any::<[bool; 3]>(), rest in any::<[u8; 4]>(),
        data in proptest::collection::vec(any::<u8>(), 0..200),
    ) {
        // A solicitation from a node with an address (duplicate address detection has rules
        // of its own, in the error tests).
        let src = if src.is_unspecified() { Ipv6Addr::LOCALHOST } else { src };
        let repr = icmpv6(kind, target, link, flags, rest, &data, dst.is_multicast());
        let mut buf = vec![0u8; repr.buffer_len()];
        repr.emit(&mut buf, &src, &dst).unwrap();
        let p = Icmpv6Packet::new_checked(&buf[..]).unwrap();
        prop_assert!(p.verify_checksum(&src, &dst));
        prop_assert_eq!(Icmpv6Repr::parse(&p, &src, &dst), Ok(repr));
    }

    #[test]
    fn tagged_ethernet_round_trips(
        src in mac(), dst in mac(), count in 0usize..3, service in any::<bool>(),
        pcps in any::<[u8; 2]>(), deis in any::<[bool; 2]>(), vids in any::<[u16; 2]>(),
        ethertype in any::<u16>(), payload_len in 0usize..64,
    ) {
        let outer_kind = if service { VlanKind::Service } else { VlanKind::Customer };
        let outer = tag(outer_kind, pcps[0] % 8, deis[0], vids[0] % 4095);
        let inner = tag(VlanKind::Customer, pcps[1] % 8, deis[1], vids[1] % 4095);
        let tags = match count {
            0 => VlanTags::Untagged,
            1 => VlanTags::Single(outer),
            _ => VlanTags::Double { outer, inner },
        };
        // An EtherType that is a TPID would read as one more tag.
        let ethertype = if VlanKind::from_tpid(ethertype).is_some() { 0x0800 } else { ethertype };
        let repr = TaggedEthernetRepr { source: src, destination: dst, tags, ethertype };
        let mut buf = vec![0u8; repr.buffer_len() + payload_len];
        repr.emit(&mut buf).unwrap();
        prop_assert_eq!(repr.header_len(), 14 + 4 * count);
        prop_assert_eq!(TaggedEthernetRepr::parse(&buf), Ok(repr));
    }

    /// RFC 1624 on an IPv6 address under a UDP checksum over IPv6 (a UE address in a
    /// template): the update gives what recomputing gives.
    #[test]
    fn incremental_ipv6_udp_checksum_matches_recomputation(
        src in any::<u128>(), dst in ipv6_addr(), new_src in any::<u128>(),
        payload in proptest::collection::vec(any::<u8>(), 0..300),
    ) {
        let mut buf = ipv6_udp(Ipv6Addr::from(src), dst, &payload, 0);
        let before = u16::from_be_bytes([buf[46], buf[47]]);
        buf[8..24].copy_from_slice(&new_src.to_be_bytes());
        let updated = checksum::update_udp_u128(before, src, new_src);
        let again = checksum::udp_ipv6(&Ipv6Addr::from(new_src), &dst, &buf[40..]);
        prop_assert_eq!(updated, again);
        prop_assert_eq!(
            checksum::update_u128(before, src, new_src),
            checksum::update(before, 8, &src.to_be_bytes(), &new_src.to_be_bytes())
        );
        buf[46..48].copy_from_slice(&updated.to_be_bytes());
        let u = UdpPacket::new_checked(&buf[40..]).unwrap();
        prop_assert!(u.verify_checksum_ipv6(&Ipv6Addr::from(new_src), &dst));
    }

    #[test]
    fn prefixes_hold_their_addresses(addr in any::<u128>(), len in 0u8..=128) {
        let mask = u128::MAX.checked_shl(128 - u32::from(len)).unwrap_or(0);
        let network = Ipv6Addr::from(addr & mask);
        let p = Ipv6Cidr::new(network, len).unwrap();
        prop_assert!(p.contains(Ipv6Addr::from(addr)));
        prop_assert_eq!(p.to_string().parse::<Ipv6Cidr>(), Ok(p));
        prop_assert_eq!(Ipv6Cidr::new(Ipv6Addr::from(addr), len).is_ok(), addr & !mask == 0);
    }

    /// Arbitrary bytes: every new decoder returns, none panics, and what decodes re-emits to
    /// bytes that decode to the same representation.
    #[test]
    fn decoders_never_panic(
        bytes in proptest::collection::vec(any::<u8>(), 0..200),
        src in ipv6_addr(), dst in ipv6_addr(),
    ) {
        if let Ok(repr) = TaggedEthernetRepr::parse(&bytes) {
            let mut out = vec![0u8; repr.buffer_len()];
            repr.emit(&mut out).unwrap();
            prop_assert_eq!(&out[..], &bytes[..repr.header_len()]);
        }
        if let Ok(t) = VlanTag::new_checked(&bytes[..]) {
            let _ = (t.tpid(), t.pcp(), t.dei(), t.vid(), VlanRepr::parse(&t));
        }
        if let Ok(p) = Ipv6Packet::new_checked(&bytes[..]) {
            prop_assert!(40 + p.payload_len() <= bytes.len());
            if let Ok(r) = Ipv6Repr::parse(&p) {
                let mut out = [0u8; 40];
                r.emit(&mut out).unwrap();
                prop_assert_eq!(&out[..], &bytes[..40]);
                if r.next_header == PROTOCOL_UDP && let Ok(u) = UdpPacket::new_checked(p.payload_slice()) {
                    prop_assert_eq!(UdpRepr::parse_ipv6(&u, &r.source, &r.destination).is_ok(), u.verify_checksum_ipv6(&r.source, &r.destination));
                }
            }
        }
        if let Ok(p) = Icmpv6Packet::new_checked(&bytes[..])
            && let Ok(repr) = Icmpv6Repr::parse(&p, &src, &dst)
        {
            let mut out = vec![0u8; repr.buffer_len()];
            repr.emit(&mut out, &src, &dst).unwrap();
            let emitted = Icmpv6Packet::new_checked(&out[..]).unwrap();
            prop_assert_eq!(Icmpv6Repr::parse(&emitted, &src, &dst), Ok(repr));
        }
    }
}
