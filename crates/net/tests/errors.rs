//! Error cases: truncated buffers, lengths out of range, wrong versions, formats and operations,
//! bad checksums and emit errors, each with the variant, layer and offset it must report.

use std::net::Ipv4Addr;

use upfbench_net::{
    ArpPacket, ArpRepr, EmitError, EthernetFrame, EthernetRepr, Icmpv4Packet, Icmpv4Repr,
    Ipv4Packet, Ipv4Repr, Layer, MacAddr, ParseError, UdpPacket, UdpRepr,
};

/// GTP-U's shared vector `ul_gpdu_payload10` from its IPv4 header on: IPv4/UDP/GTP-U/IPv4/UDP
/// with 10 bytes of payload.
const UL_DATAGRAM: &str = "4500004a000000004011de38c0a80d83c0a80d97086808680036fcb330ff002600000001450000260000000040119f580a2d0002c0a8109827104e20001254d078787878787878787878";
/// `arp_request` of testdata/net.json without its Ethernet header and padding.
const ARP_REQUEST: &str = "0001080006040001020000001351c0a80d97000000000000c0a80d83";
/// `icmp_echo_request` of testdata/net.json from its ICMP header on.
const ICMP_ECHO: &str = "080077591234000775706662656e63682070696e672064617461";

fn hex(s: &str) -> Vec<u8> {
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap())
        .collect()
}

#[test]
fn every_truncation_of_each_header_is_an_error() {
    let ip = hex(UL_DATAGRAM);
    check_ethernet_truncations();
    check_arp_truncations(&hex(ARP_REQUEST));
    check_ipv4_truncations(&ip);
    check_icmp_truncations(&hex(ICMP_ECHO));
    check_udp_truncations(&ip[20..]);
}

/// Every Ethernet header shorter than 14 bytes is truncated at offset 0.
fn check_ethernet_truncations() {
    for cut in 0..14 {
        assert_eq!(
            EthernetFrame::new_checked(&[0u8; 14][..cut]),
            Err(ParseError::Truncated {
                layer: Layer::Ethernet,
                offset: 0,
                needed: 14,
                available: cut
            })
        );
    }
}

/// Every cut of the ARP request is truncated: it needs its 28 bytes.
fn check_arp_truncations(arp: &[u8]) {
    for cut in 0..arp.len() {
        assert_eq!(
            ArpPacket::new_checked(&arp[..cut]),
            Err(ParseError::Truncated {
                layer: Layer::Arp,
                offset: 0,
                needed: 28,
                available: cut
            })
        );
    }
}

/// Under 20 bytes the IPv4 header is truncated; past it, the total length (74) exceeds the cut.
fn check_ipv4_truncations(ip: &[u8]) {
    for cut in 0..ip.len() {
        let expected = if cut < 20 {
            ParseError::Truncated {
                layer: Layer::Ipv4,
                offset: 0,
                needed: 20,
                available: cut,
            }
        } else {
            ParseError::LengthExceedsBuffer {
                layer: Layer::Ipv4,
                offset: 2,
                length: 74,
                available: cut,
            }
        };
        assert_eq!(
            Ipv4Packet::new_checked(&ip[..cut]),
            Err(expected),
            "cut {cut}"
        );
    }
}

/// Every ICMP header shorter than 8 bytes is truncated at offset 0.
fn check_icmp_truncations(echo: &[u8]) {
    for cut in 0..8 {
        assert_eq!(
            Icmpv4Packet::new_checked(&echo[..cut]),
            Err(ParseError::Truncated {
                layer: Layer::Icmp,
                offset: 0,
                needed: 8,
                available: cut
            })
        );
    }
}

/// Under 8 bytes the UDP header is truncated; past it, the UDP length (54) exceeds the cut.
fn check_udp_truncations(udp: &[u8]) {
    for cut in 0..udp.len() {
        let expected = if cut < 8 {
            ParseError::Truncated {
                layer: Layer::Udp,
                offset: 0,
                needed: 8,
                available: cut,
            }
        } else {
            ParseError::LengthExceedsBuffer {
                layer: Layer::Udp,
                offset: 4,
                length: 54,
                available: cut,
            }
        };
        assert_eq!(
            UdpPacket::new_checked(&udp[..cut]),
            Err(expected),
            "cut {cut}"
        );
    }
}

#[test]
fn ipv4_version_and_lengths() {
    let mut ip = hex(UL_DATAGRAM);
    ip[0] = 0x65; // IPv6 version nibble with IHL 5
    assert_eq!(
        Ipv4Packet::new_checked(&ip[..]),
        Err(ParseError::UnsupportedVersion {
            layer: Layer::Ipv4,
            offset: 0,
            version: 6
        })
    );
    // IHL larger than the buffer.
    let mut ip = hex(UL_DATAGRAM)[..20].to_vec();
    ip[0] = 0x46;
    assert_eq!(
        Ipv4Packet::new_checked(&ip[..]),
        Err(ParseError::LengthExceedsBuffer {
            layer: Layer::Ipv4,
            offset: 0,
            length: 24,
            available: 20
        })
    );
    let mut ip = hex(UL_DATAGRAM);
    ip[0] = 0x44;
    assert_eq!(
        Ipv4Packet::new_checked(&ip[..]),
        Err(ParseError::LengthTooSmall {
            layer: Layer::Ipv4,
            offset: 0,
            length: 16,
            minimum: 20
        })
    );
    let mut ip = hex(UL_DATAGRAM);
    ip[2..4].copy_from_slice(&19u16.to_be_bytes());
    assert_eq!(
        Ipv4Packet::new_checked(&ip[..]),
        Err(ParseError::LengthTooSmall {
            layer: Layer::Ipv4,
            offset: 2,
            length: 19,
            minimum: 20
        })
    );
    let udp = hex("0868086800070000");
    assert_eq!(
        UdpPacket::new_checked(&udp[..]),
        Err(ParseError::LengthTooSmall {
            layer: Layer::Udp,
            offset: 4,
            length: 7,
            minimum: 8
        })
    );
}

#[test]
fn ipv4_options_are_skipped_and_fragments_refused() {
    // The inner packet of UL_DATAGRAM with a 4-octet NOP option: IHL 6.
    let datagram = hex(UL_DATAGRAM);
    let inner = &datagram[36..];
    let mut with_opts = inner[..20].to_vec();
    with_opts.extend_from_slice(&[1, 1, 1, 0]);
    with_opts.extend_from_slice(&inner[20..]);
    with_opts[0] = 0x46;
    let total = with_opts.len() as u16;
    with_opts[2..4].copy_from_slice(&total.to_be_bytes());
    let p = Ipv4Packet::new_checked(&with_opts[..]).unwrap();
    assert_eq!(p.header_len(), 24);
    assert_eq!(p.options(), [1, 1, 1, 0]);
    assert_eq!(p.payload(), &inner[20..]);

    let mut frag = datagram.clone();
    frag[7] = 0x10; // fragment offset 16
    let p = Ipv4Packet::new_checked(&frag[..]).unwrap();
    assert!(p.is_fragment());
    assert_eq!(
        Ipv4Repr::parse(&p),
        Err(ParseError::Fragmented {
            offset: 0,
            fragment_offset: 16,
            more_fragments: false
        })
    );
    let mut frag = datagram;
    frag[6] = 0x20; // MF
    let p = Ipv4Packet::new_checked(&frag[..]).unwrap();
    assert!(matches!(
        Ipv4Repr::parse(&p),
        Err(ParseError::Fragmented {
            more_fragments: true,
            ..
        })
    ));
}

#[test]
fn bad_checksums_are_reported_by_the_reprs() {
    let mut ip = hex(UL_DATAGRAM);
    ip[10] ^= 0xff;
    let p = Ipv4Packet::new_checked(&ip[..]).unwrap();
    assert_eq!(
        Ipv4Repr::parse(&p),
        Err(ParseError::BadChecksum {
            layer: Layer::Ipv4,
            offset: 10,
            found: 0x2138,
            computed: 0xde38
        })
    );
    let mut ip = hex(UL_DATAGRAM);
    ip[26] ^= 0x01;
    let p = Ipv4Packet::new_checked(&ip[..]).unwrap();
    let u = UdpPacket::new_checked(p.payload()).unwrap();
    assert!(!u.verify_checksum(p.source(), p.destination()));
    assert_eq!(
        UdpRepr::parse(&u, p.source(), p.destination()),
        Err(ParseError::BadChecksum {
            layer: Layer::Udp,
            offset: 6,
            found: 0xfdb3,
            computed: 0xfcb3
        })
    );
    // A datagram without a checksum (0) passes whatever its content.
    ip[26..28].fill(0);
    let p = Ipv4Packet::new_checked(&ip[..]).unwrap();
    let u = UdpPacket::new_checked(p.payload()).unwrap();
    assert!(UdpRepr::parse(&u, p.source(), p.destination()).is_ok());

    let mut echo = hex(ICMP_ECHO);
    echo[10] ^= 0x20; // one bit of the data
    let m = Icmpv4Packet::new_checked(&echo[..]).unwrap();
    assert!(!m.verify_checksum());
    assert_eq!(
        Icmpv4Repr::parse(&m),
        Err(ParseError::BadChecksum {
            layer: Layer::Icmp,
            offset: 2,
            found: 0x7759,
            computed: 0x9759 // 'f' (0x66) became 'F' (0x46): the sum fell by 0x2000
        })
    );
}

#[test]
fn arp_for_other_hardware_protocols_and_operations_is_refused() {
    let mut arp = hex(ARP_REQUEST);
    arp[1] = 6; // IEEE 802 networks
    assert_eq!(
        ArpPacket::new_checked(&arp[..]),
        Err(ParseError::UnsupportedHardware {
            offset: 0,
            hardware_type: 6,
            hardware_len: 6
        })
    );
    let mut arp = hex(ARP_REQUEST);
    arp[4] = 8; // EUI-64 addresses
    assert_eq!(
        ArpPacket::new_checked(&arp[..]),
        Err(ParseError::UnsupportedHardware {
            offset: 0,
            hardware_type: 1,
            hardware_len: 8
        })
    );
    let mut arp = hex(ARP_REQUEST);
    arp[2..4].copy_from_slice(&[0x86, 0xdd]);
    assert_eq!(
        ArpPacket::new_checked(&arp[..]),
        Err(ParseError::UnsupportedProtocol {
            offset: 2,
            protocol_type: 0x86dd,
            protocol_len: 4
        })
    );
    let mut arp = hex(ARP_REQUEST);
    arp[5] = 16;
    assert_eq!(
        ArpPacket::new_checked(&arp[..]),
        Err(ParseError::UnsupportedProtocol {
            offset: 2,
            protocol_type: 0x0800,
            protocol_len: 16
        })
    );
    let mut arp = hex(ARP_REQUEST);
    arp[7] = 3; // RARP request
    let p = ArpPacket::new_checked(&arp[..]).unwrap();
    assert_eq!(p.operation(), 3);
    let e = ArpRepr::parse(&p).unwrap_err();
    assert_eq!(
        e,
        ParseError::UnsupportedOperation {
            offset: 6,
            operation: 3
        }
    );
    assert_eq!(
        e.offset_by(14).to_string(),
        "ARP: unsupported operation 3 at offset 20"
    );
}

#[test]
fn emit_errors() {
    let arp = ArpRepr::request(
        MacAddr([2, 0, 0, 0, 0, 1]),
        Ipv4Addr::new(10, 0, 0, 1),
        Ipv4Addr::new(10, 0, 0, 2),
    );
    assert_eq!(
        arp.emit(&mut [0u8; 27]),
        Err(EmitError::BufferTooSmall {
            needed: 28,
            available: 27
        })
    );
    let echo = Icmpv4Repr::EchoReply {
        identifier: 1,
        sequence: 2,
        data: b"abc",
    };
    assert_eq!(
        echo.emit(&mut [0u8; 10]),
        Err(EmitError::BufferTooSmall {
            needed: 11,
            available: 10
        })
    );
    let eth = EthernetRepr {
        source: MacAddr([0; 6]),
        destination: MacAddr::BROADCAST,
        ethertype: 0x0806,
    };
    assert_eq!(
        eth.emit(&mut [0u8; 13]),
        Err(EmitError::BufferTooSmall {
            needed: 14,
            available: 13
        })
    );
    let ip = Ipv4Repr {
        source: Ipv4Addr::new(10, 0, 0, 1),
        destination: Ipv4Addr::new(10, 0, 0, 2),
        protocol: 17,
        payload_len: 65_516,
        ttl: 64,
        dscp_ecn: 0,
        identification: 0,
        dont_fragment: false,
    };
    assert_eq!(
        ip.emit(&mut [0u8; 20]),
        Err(EmitError::PayloadTooLong {
            layer: Layer::Ipv4,
            len: 65_516,
            max: 65_515
        })
    );
    let udp = UdpRepr {
        source_port: 1,
        destination_port: 2,
    };
    assert_eq!(
        udp.emit(&mut [0u8; 8], 65_528),
        Err(EmitError::PayloadTooLong {
            layer: Layer::Udp,
            len: 65_528,
            max: 65_527
        })
    );
    assert_eq!(
        udp.emit(&mut [0u8; 7], 0),
        Err(EmitError::BufferTooSmall {
            needed: 8,
            available: 7
        })
    );
}
