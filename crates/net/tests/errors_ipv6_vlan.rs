//! Error cases of IPv6, UDP over IPv6, ICMPv6 with Neighbor Discovery and VLAN tags: each with
//! the variant, layer and offset it must report, and the emit errors.

use std::net::Ipv6Addr;

use upfbench_net::{
    EmitError, Icmpv6Packet, Icmpv6Repr, Ipv6Packet, Ipv6Repr, Layer, MacAddr, NdpRule,
    NeighborAdvert, ParseError, TaggedEthernetRepr, UdpPacket, UdpRepr, VlanKind, VlanRepr,
    VlanTag, VlanTags, checksum,
};

/// `udp_ipv6` of testdata/net_ipv6_vlan.json from its IPv6 header on (payload length 18).
const UDP_PACKET: &str = "6b8123450012114020010db800130000000000000000013120010db800130000000000000000015127104e200012277630313233343536373839";
/// `ndp_ns` from its ICMPv6 header on: a solicitation for ::131 with a source link-layer
/// address option, from ::151 to ff02::1:ff00:131.
const NS: &str = "870005030000000020010db80013000000000000000001310101020000001351";
/// `ndp_na` from its ICMPv6 header on: solicited, override, target link-layer address.
const NA: &str = "8800735b6000000020010db80013000000000000000001310201020000001331";
/// `icmpv6_echo_request` from its ICMPv6 header on, from ::151 to ::131.
const ECHO: &str = "8000a0ea1234000775706662656e63682070696e672064617461";
/// `qinq_udp_ipv6`: S-tag VLAN 100 at 12, C-tag VLAN 13 at 16, EtherType IPv6 at 20.
const QINQ: &str = "02000000135102000000133188a860648100000d86dd60000000000c114020010db800130000000000000000013120010db800130000000000000000015127104e20000c4cb171696e71";

fn hex(s: &str) -> Vec<u8> {
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap())
        .collect()
}

fn addr(s: &str) -> Ipv6Addr {
    s.parse().unwrap()
}

fn tester() -> Ipv6Addr {
    addr("2001:db8:13::131")
}

fn upf() -> Ipv6Addr {
    addr("2001:db8:13::151")
}

fn tester_solicited_node() -> Ipv6Addr {
    addr("ff02::1:ff00:131")
}

#[test]
fn every_truncation_of_an_ipv6_packet_is_an_error() {
    let p = hex(UDP_PACKET);
    for cut in 0..p.len() {
        let expected = if cut < 40 {
            ParseError::Truncated {
                layer: Layer::Ipv6,
                offset: 0,
                needed: 40,
                available: cut,
            }
        } else {
            ParseError::LengthExceedsBuffer {
                layer: Layer::Ipv6,
                offset: 4,
                length: 18,
                available: cut - 40,
            }
        };
        assert_eq!(
            Ipv6Packet::new_checked(&p[..cut]),
            Err(expected),
            "cut {cut}"
        );
    }
    let mut v4 = p.clone();
    v4[0] = 0x45;
    assert_eq!(
        Ipv6Packet::new_checked(&v4[..]),
        Err(ParseError::UnsupportedVersion {
            layer: Layer::Ipv6,
            offset: 0,
            version: 4
        })
    );
}

#[test]
fn extension_headers_are_refused_at_the_next_header_field() {
    let mut p = hex(UDP_PACKET);
    for next_header in [0u8, 43, 44, 50, 51, 60, 135, 139, 140, 253, 254] {
        p[6] = next_header;
        let view = Ipv6Packet::new_checked(&p[..]).unwrap();
        let e = Ipv6Repr::parse(&view).unwrap_err();
        assert_eq!(
            e,
            ParseError::UnsupportedExtensionHeader {
                offset: 6,
                next_header
            }
        );
        assert_eq!(e.layer(), Layer::Ipv6);
    }
    assert_eq!(
        ParseError::UnsupportedExtensionHeader {
            offset: 6,
            next_header: 44
        }
        .offset_by(14)
        .to_string(),
        "IPv6: extension header 44 at offset 20 is not supported"
    );
    // No Next Header (59) is not an extension header: an empty upper layer.
    p[6] = 59;
    let view = Ipv6Packet::new_checked(&p[..]).unwrap();
    assert_eq!(Ipv6Repr::parse(&view).map(|r| r.next_header), Ok(59));
}

#[test]
fn udp_over_ipv6_needs_its_checksum() {
    let p = hex(UDP_PACKET);
    let mut seg = p[40..].to_vec();
    let u = UdpPacket::new_checked(&seg[..]).unwrap();
    assert_eq!(u.checksum(), 0x2776);
    seg[6..8].fill(0);
    let u = UdpPacket::new_checked(&seg[..]).unwrap();
    assert!(!u.verify_checksum_ipv6(&tester(), &upf()));
    let e = UdpRepr::parse_ipv6(&u, &tester(), &upf()).unwrap_err();
    assert_eq!(e, ParseError::MissingUdpChecksum { offset: 6 });
    assert_eq!(e.layer(), Layer::Udp);
    assert_eq!(
        e.offset_by(54).to_string(),
        "UDP: zero checksum at offset 60 over IPv6 (RFC 8200 §8.1 makes it mandatory)"
    );
    let mut seg = p[40..].to_vec();
    seg[8] ^= 0x01; // the source port's low bit of the high octet: the sum changes by 0x0100
    let u = UdpPacket::new_checked(&seg[..]).unwrap();
    assert_eq!(
        UdpRepr::parse_ipv6(&u, &tester(), &upf()),
        Err(ParseError::BadChecksum {
            layer: Layer::Udp,
            offset: 6,
            found: 0x2776,
            computed: 0x2676
        })
    );
}

/// Recomputes the checksum of an ICMPv6 message after a change, so that the checks after it
/// are reached.
fn fixed(mut m: Vec<u8>, src: &Ipv6Addr, dst: &Ipv6Addr) -> Vec<u8> {
    Icmpv6Packet::new_checked(&mut m[..])
        .unwrap()
        .fill_checksum(src, dst);
    m
}

fn parse_icmpv6(m: &[u8], src: &Ipv6Addr, dst: &Ipv6Addr) -> Result<(), ParseError> {
    Icmpv6Repr::parse(&Icmpv6Packet::new_checked(m)?, src, dst).map(|_| ())
}

#[test]
fn icmpv6_truncations_and_checksums() {
    let echo = hex(ECHO);
    for cut in 0..8 {
        assert_eq!(
            Icmpv6Packet::new_checked(&echo[..cut]),
            Err(ParseError::Truncated {
                layer: Layer::Icmpv6,
                offset: 0,
                needed: 8,
                available: cut
            })
        );
    }
    let mut bad = echo.clone();
    bad[10] ^= 0x20; // 'f' becomes 'F': the sum falls by 0x2000
    let p = Icmpv6Packet::new_checked(&bad[..]).unwrap();
    assert!(!p.verify_checksum(&upf(), &tester()));
    assert_eq!(
        Icmpv6Repr::parse(&p, &upf(), &tester()),
        Err(ParseError::BadChecksum {
            layer: Layer::Icmpv6,
            offset: 2,
            found: 0xa0ea,
            computed: 0xc0ea
        })
    );
    // The pseudo header counts: the right message from another address fails too.
    let p = Icmpv6Packet::new_checked(&echo[..]).unwrap();
    assert!(p.verify_checksum(&upf(), &tester()));
    assert!(!p.verify_checksum(&tester_solicited_node(), &tester()));
    assert_eq!(checksum::icmpv6(&upf(), &tester(), &echo), 0xa0ea);
}

#[test]
fn neighbor_solicitations_that_rfc_4861_discards() {
    let (src, dst) = (upf(), tester_solicited_node());
    let rule = |offset, rule| ParseError::InvalidNeighborDiscovery { offset, rule };
    let ns = hex(NS);
    assert_eq!(parse_icmpv6(&ns, &src, &dst), Ok(()));
    let mut m = ns.clone();
    m[1] = 1;
    assert_eq!(
        parse_icmpv6(&fixed(m, &src, &dst), &src, &dst),
        Err(rule(1, NdpRule::NonZeroCode))
    );
    let cut = fixed(ns[..20].to_vec(), &src, &dst);
    assert_eq!(
        parse_icmpv6(&cut, &src, &dst),
        Err(ParseError::Truncated {
            layer: Layer::Icmpv6,
            offset: 8,
            needed: 16,
            available: 12
        })
    );
    let mut m = ns.clone();
    m[8] = 0xff;
    assert_eq!(
        parse_icmpv6(&fixed(m, &src, &dst), &src, &dst),
        Err(rule(8, NdpRule::MulticastTarget))
    );
    // Duplicate address detection: from ::, without an option, to the solicited-node address.
    let any = Ipv6Addr::UNSPECIFIED;
    assert_eq!(
        parse_icmpv6(&fixed(ns.clone(), &any, &dst), &any, &dst),
        Err(rule(24, NdpRule::LinkLayerAddressFromUnspecified))
    );
    let dad = fixed(ns[..24].to_vec(), &any, &tester());
    assert_eq!(
        parse_icmpv6(&dad, &any, &tester()),
        Err(rule(0, NdpRule::UnspecifiedToNonSolicitedNode))
    );
    let dad = fixed(ns[..24].to_vec(), &any, &dst);
    assert_eq!(parse_icmpv6(&dad, &any, &dst), Ok(()));
    let e = rule(24, NdpRule::LinkLayerAddressFromUnspecified).offset_by(54);
    assert_eq!(e.layer(), Layer::Icmpv6);
    assert_eq!(
        e.to_string(),
        "ICMPv6: source link-layer address option from the unspecified address at offset 78 (RFC 4861 §7.1)"
    );
}

#[test]
fn neighbor_discovery_options_must_fit() {
    let (src, dst) = (upf(), tester_solicited_node());
    let ns = hex(NS);
    let mut m = ns.clone();
    m[25] = 0;
    assert_eq!(
        parse_icmpv6(&fixed(m, &src, &dst), &src, &dst),
        Err(ParseError::LengthTooSmall {
            layer: Layer::NdpOption,
            offset: 25,
            length: 0,
            minimum: 8
        })
    );
    let mut m = ns.clone();
    m[25] = 2;
    assert_eq!(
        parse_icmpv6(&fixed(m, &src, &dst), &src, &dst),
        Err(ParseError::LengthExceedsBuffer {
            layer: Layer::NdpOption,
            offset: 25,
            length: 16,
            available: 8
        })
    );
    let mut m = ns.clone();
    m.push(1);
    assert_eq!(
        parse_icmpv6(&fixed(m, &src, &dst), &src, &dst),
        Err(ParseError::Truncated {
            layer: Layer::NdpOption,
            offset: 32,
            needed: 2,
            available: 1
        })
    );
    // A 16-octet link-layer address (not Ethernet's).
    let mut m = ns.clone();
    m[25] = 2;
    m.extend_from_slice(&[0; 8]);
    assert_eq!(
        parse_icmpv6(&fixed(m, &src, &dst), &src, &dst),
        Err(ParseError::InvalidNeighborDiscovery {
            offset: 25,
            rule: NdpRule::LinkLayerAddressNotEthernet
        })
    );
}

#[test]
fn a_solicited_advertisement_to_a_multicast_address_is_refused() {
    let na = hex(NA);
    let (src, dst) = (tester(), upf());
    assert_eq!(parse_icmpv6(&na, &src, &dst), Ok(()));
    let all_nodes = upfbench_net::ipv6::ALL_NODES;
    let m = fixed(na.clone(), &src, &all_nodes);
    assert_eq!(
        parse_icmpv6(&m, &src, &all_nodes),
        Err(ParseError::InvalidNeighborDiscovery {
            offset: 4,
            rule: NdpRule::SolicitedToMulticast
        })
    );
    let mut m = na.clone();
    m[1] = 3;
    assert_eq!(
        parse_icmpv6(&fixed(m, &src, &dst), &src, &dst),
        Err(ParseError::InvalidNeighborDiscovery {
            offset: 1,
            rule: NdpRule::NonZeroCode
        })
    );
    let mut m = na;
    m[8] = 0xff;
    assert_eq!(
        parse_icmpv6(&fixed(m, &src, &dst), &src, &dst),
        Err(ParseError::InvalidNeighborDiscovery {
            offset: 8,
            rule: NdpRule::MulticastTarget
        })
    );
}

#[test]
fn every_truncation_of_a_qinq_header_is_an_error() {
    let f = hex(QINQ);
    for cut in 0..22 {
        let expected = match cut {
            0..14 => ParseError::Truncated {
                layer: Layer::Ethernet,
                offset: 0,
                needed: 14,
                available: cut,
            },
            14..18 => ParseError::Truncated {
                layer: Layer::Vlan,
                offset: 12,
                needed: 6,
                available: cut - 12,
            },
            _ => ParseError::Truncated {
                layer: Layer::Vlan,
                offset: 16,
                needed: 6,
                available: cut - 16,
            },
        };
        assert_eq!(
            TaggedEthernetRepr::parse(&f[..cut]),
            Err(expected),
            "cut {cut}"
        );
    }
    let header = TaggedEthernetRepr::parse(&f[..22]).unwrap();
    assert_eq!((header.header_len(), header.ethertype), (22, 0x86dd));
    for cut in 0..4 {
        assert_eq!(
            VlanTag::new_checked(&f[12..12 + cut]),
            Err(ParseError::Truncated {
                layer: Layer::Vlan,
                offset: 0,
                needed: 4,
                available: cut
            })
        );
    }
}

#[test]
fn tags_past_two_inner_s_tags_and_vid_4095_are_refused() {
    let f = hex(QINQ);
    let mut three = f[..20].to_vec();
    three.extend_from_slice(&[0x81, 0x00, 0x00, 0x07]);
    three.extend_from_slice(&f[20..]);
    let e = TaggedEthernetRepr::parse(&three).unwrap_err();
    assert_eq!(
        e,
        ParseError::UnsupportedVlanTag {
            offset: 20,
            tpid: 0x8100
        }
    );
    assert_eq!(e.layer(), Layer::Vlan);
    let mut s_inside = f.clone();
    s_inside[16..18].copy_from_slice(&[0x88, 0xa8]);
    assert_eq!(
        TaggedEthernetRepr::parse(&s_inside),
        Err(ParseError::UnsupportedVlanTag {
            offset: 16,
            tpid: 0x88a8
        })
    );
    for at in [14, 18] {
        let mut reserved = f.clone();
        reserved[at..at + 2].copy_from_slice(&[0x2f, 0xff]); // PCP 1, VID 4095
        let e = TaggedEthernetRepr::parse(&reserved).unwrap_err();
        assert_eq!(
            e,
            ParseError::ReservedVlanId {
                offset: at,
                vid: 4095
            }
        );
    }
    assert_eq!(
        ParseError::ReservedVlanId {
            offset: 14,
            vid: 4095
        }
        .to_string(),
        "VLAN: reserved VLAN id 4095 at offset 14 (IEEE 802.1Q Table 9-2)"
    );
    // A tag read on its own with another TPID (the pre-standard QinQ 0x9100).
    let tag = [0x91, 0x00, 0x00, 0x64];
    assert_eq!(
        VlanRepr::parse(&VlanTag::new_checked(&tag[..]).unwrap()),
        Err(ParseError::UnsupportedVlanTag {
            offset: 0,
            tpid: 0x9100
        })
    );
}

#[test]
fn emit_errors() {
    let tag = |pcp, vid| VlanRepr {
        kind: VlanKind::Customer,
        pcp,
        dei: false,
        vid,
    };
    let invalid = |field, value, reason| EmitError::InvalidField {
        layer: Layer::Vlan,
        field,
        value,
        reason,
    };
    let mut b = [0u8; 4];
    assert_eq!(
        tag(8, 1).emit(&mut b),
        Err(invalid("PCP", 8, "does not fit in 3 bits"))
    );
    assert_eq!(
        tag(0, 4096).emit(&mut b),
        Err(invalid("VLAN id", 4096, "does not fit in 12 bits"))
    );
    let reserved = tag(0, 4095).emit(&mut b).unwrap_err();
    assert_eq!(
        reserved,
        invalid("VLAN id", 4095, "is reserved (IEEE 802.1Q Table 9-2)")
    );
    assert_eq!(
        reserved.to_string(),
        "VLAN: VLAN id 4095 is reserved (IEEE 802.1Q Table 9-2)"
    );
    assert_eq!(
        tag(0, 1).emit(&mut [0u8; 3]),
        Err(EmitError::BufferTooSmall {
            needed: 4,
            available: 3
        })
    );
    let mut header = TaggedEthernetRepr {
        source: MacAddr([2, 0, 0, 0, 0, 1]),
        destination: MacAddr::BROADCAST,
        tags: VlanTags::Double {
            outer: tag(0, 100),
            inner: VlanRepr {
                kind: VlanKind::Service,
                ..tag(0, 13)
            },
        },
        ethertype: 0x86dd,
    };
    assert_eq!(
        header.emit(&mut [0u8; 22]),
        Err(invalid("inner TPID", 0x88a8, "is not a C-tag's (0x8100)"))
    );
    header.tags = VlanTags::Single(tag(0, 13));
    assert_eq!(
        header.emit(&mut [0u8; 17]),
        Err(EmitError::BufferTooSmall {
            needed: 18,
            available: 17
        })
    );
    ipv6_and_icmpv6_emit_errors();
}

fn ipv6_and_icmpv6_emit_errors() {
    let mut ip = Ipv6Repr::udp(tester(), upf());
    ip.payload_len = 65_536;
    assert_eq!(
        ip.emit(&mut [0u8; 40]),
        Err(EmitError::PayloadTooLong {
            layer: Layer::Ipv6,
            len: 65_536,
            max: 65_535
        })
    );
    ip.payload_len = 0;
    ip.flow_label = 1 << 20;
    assert_eq!(
        ip.emit(&mut [0u8; 40]),
        Err(EmitError::InvalidField {
            layer: Layer::Ipv6,
            field: "flow label",
            value: 1 << 20,
            reason: "does not fit in 20 bits"
        })
    );
    ip.flow_label = 0;
    assert_eq!(
        ip.emit(&mut [0u8; 39]),
        Err(EmitError::BufferTooSmall {
            needed: 40,
            available: 39
        })
    );
    let na = Icmpv6Repr::NeighborAdvert(NeighborAdvert {
        router: false,
        solicited: true,
        override_flag: true,
        target: tester(),
        target_link_layer: Some(MacAddr([2, 0, 0, 0, 0x13, 0x31])),
    });
    assert_eq!(
        na.emit(&mut [0u8; 31], &tester(), &upf()),
        Err(EmitError::BufferTooSmall {
            needed: 32,
            available: 31
        })
    );
}
