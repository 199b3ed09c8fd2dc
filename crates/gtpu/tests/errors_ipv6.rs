//! Error cases of GTP-U over IPv6 and of IPv6 UE packets: each with the variant, layer and
//! offset it must report, through `decapsulate`, the datagram and `udp_payload`, and the emit
//! errors of the encapsulator, the emitters and the templates.

use std::net::{Ipv4Addr, Ipv6Addr};

use upfbench_gtpu::{
    EmitError, Encapsulator, GtpuDatagram, Ipv4Repr, Ipv6Repr, OuterHeaders, PacketTemplate,
    ParseError, UdpChecksum, UdpRepr, UeAddress, decapsulate, emit_ip_udp, emit_ipv6_udp,
    udp_payload,
};
use upfbench_net::error as net;
use upfbench_net::{IpFamily, MacAddr, Teid};

/// `ul_gpdu_v6_payload10` of testdata/gtpu_ipv6.json: IPv6 at 14 (payload length 54 at 18, next
/// header at 20), UDP at 54 (length at 58, checksum 0x3b05 at 60), GTP-U at 62, the inner IPv4
/// packet at 70.
const UL_V6: &str = "02000000135102000000133186dd600000000036114020010db800130000000000000000013120010db80013000000000000000001510868086800363b0530ff002600000001450000260000000040119f580a2d0002c0a8109827104e20001254d078787878787878787878";

fn hex(s: &str) -> Vec<u8> {
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap())
        .collect()
}

fn net_err(e: net::ParseError) -> Result<(), ParseError> {
    Err(ParseError::Net(e))
}

fn decap(f: &[u8]) -> Result<(), ParseError> {
    decapsulate(f).map(|_| ())
}

#[test]
fn every_truncation_of_an_ipv6_gpdu_is_an_error() {
    let f = hex(UL_V6);
    assert_eq!(decap(&f), Ok(()));
    for cut in 0..f.len() {
        let expected = match cut {
            0..14 => net::ParseError::Truncated {
                layer: net::Layer::Ethernet,
                offset: 0,
                needed: 14,
                available: cut,
            },
            14..54 => net::ParseError::Truncated {
                layer: net::Layer::Ipv6,
                offset: 14,
                needed: 40,
                available: cut - 14,
            },
            _ => net::ParseError::LengthExceedsBuffer {
                layer: net::Layer::Ipv6,
                offset: 18,
                length: 54,
                available: cut - 54,
            },
        };
        assert_eq!(decap(&f[..cut]), net_err(expected), "cut {cut}");
    }
}

#[test]
fn ipv6_headers_other_than_udp_are_refused_at_the_next_header() {
    let mut f = hex(UL_V6);
    f[20] = 44; // a Fragment header
    assert_eq!(
        decap(&f),
        net_err(net::ParseError::UnsupportedExtensionHeader {
            offset: 20,
            next_header: 44
        })
    );
    f[20] = 6; // TCP
    let e = decapsulate(&f).unwrap_err();
    assert_eq!(
        e,
        ParseError::UnexpectedNextHeader {
            offset: 20,
            next_header: 6
        }
    );
    assert_eq!(e.to_string(), "IPv6: next header 6 at offset 20 is not UDP");
    // Through the datagram and `udp_payload`, offsets count from the IPv6 header.
    assert_eq!(
        GtpuDatagram::parse(&f[14..]).map(|_| ()),
        Err(ParseError::UnexpectedNextHeader {
            offset: 6,
            next_header: 6
        })
    );
    assert_eq!(
        udp_payload(&f[14..]).map(|_| ()),
        Err(ParseError::UnexpectedNextHeader {
            offset: 6,
            next_header: 6
        })
    );
    f[20] = 0; // Hop-by-Hop Options
    assert_eq!(
        udp_payload(&f[14..]).map(|_| ()),
        net_err(net::ParseError::UnsupportedExtensionHeader {
            offset: 6,
            next_header: 0
        })
    );
    let mut f = hex(UL_V6);
    f[14] = 0x70; // version 7 behind EtherType IPv6
    assert_eq!(
        decap(&f),
        net_err(net::ParseError::UnsupportedVersion {
            layer: net::Layer::Ipv6,
            offset: 14,
            version: 7
        })
    );
}

#[test]
fn udp_and_gtpu_errors_over_ipv6() {
    let mut f = hex(UL_V6);
    f[59] = 55; // UDP length 55 in a payload of 54
    assert_eq!(
        decap(&f),
        net_err(net::ParseError::LengthExceedsBuffer {
            layer: net::Layer::Udp,
            offset: 58,
            length: 55,
            available: 54
        })
    );
    let mut f = hex(UL_V6);
    f[57] = 0x69;
    assert_eq!(
        decap(&f),
        Err(ParseError::UnexpectedPort {
            offset: 56,
            port: 2153
        })
    );
    let mut f = hex(UL_V6);
    f[63] = 1; // Echo Request
    assert_eq!(
        decap(&f),
        Err(ParseError::UnexpectedMessageType {
            offset: 63,
            message_type: 1,
            expected: 255
        })
    );
}

#[test]
fn a_zero_or_wrong_udp_checksum_over_ipv6_fails_verification() {
    let mut f = hex(UL_V6);
    f[60..62].fill(0);
    let d = decapsulate(&f).unwrap();
    let datagram = d.frame().datagram();
    assert!(!datagram.verify_checksums());
    let ip = datagram.ipv6().unwrap();
    let (src, dst) = (ip.source(), ip.destination());
    assert_eq!(
        UdpRepr::parse_ipv6(&datagram.udp(), &src, &dst)
            .map(|_| ())
            .map_err(ParseError::from),
        net_err(net::ParseError::MissingUdpChecksum { offset: 6 })
    );
    let mut f = hex(UL_V6);
    f[107] ^= 0x01; // the last payload octet, the low half of a word
    let d = decapsulate(&f).unwrap();
    let datagram = d.frame().datagram();
    assert!(!datagram.verify_checksums());
    let ip = datagram.ipv6().unwrap();
    assert_eq!(
        UdpRepr::parse_ipv6(&datagram.udp(), &ip.source(), &ip.destination()),
        Err(net::ParseError::BadChecksum {
            layer: net::Layer::Udp,
            offset: 6,
            found: 0x3b05,
            computed: 0x3b04
        })
    );
}

fn v6_headers() -> OuterHeaders<Ipv6Addr> {
    OuterHeaders::new(
        MacAddr([2, 0, 0, 0, 0x13, 0x31]),
        MacAddr([2, 0, 0, 0, 0x13, 0x51]),
        "2001:db8:13::131".parse().unwrap(),
        "2001:db8:13::151".parse().unwrap(),
        Teid(1),
    )
}

fn mandatory_checksum() -> EmitError {
    EmitError::Net(net::EmitError::InvalidField {
        layer: net::Layer::Udp,
        field: "checksum",
        value: 0,
        reason: "is mandatory over IPv6 (RFC 8200 §8.1)",
    })
}

#[test]
fn over_ipv6_the_udp_checksum_cannot_be_left_out() {
    let mut h = v6_headers();
    assert_eq!(h.udp_checksum, UdpChecksum::Compute);
    h.udp_checksum = UdpChecksum::Zero;
    let e = Encapsulator::new(&h).unwrap_err();
    assert_eq!(e, mandatory_checksum());
    assert_eq!(
        e.to_string(),
        "UDP: checksum 0 is mandatory over IPv6 (RFC 8200 §8.1)"
    );
    let ip = Ipv6Repr::udp(Ipv6Addr::LOCALHOST, Ipv6Addr::LOCALHOST);
    let udp = UdpRepr {
        source_port: 1,
        destination_port: 2,
    };
    let mut buf = [0u8; 64];
    assert_eq!(
        emit_ip_udp(&mut buf, &ip, &udp, b"x", UdpChecksum::Zero),
        Err(mandatory_checksum())
    );
    assert_eq!(
        emit_ipv6_udp(&mut buf[..48], &ip, &udp, b"x"),
        Err(EmitError::BufferTooSmall {
            needed: 49,
            available: 48
        })
    );
    let e = Encapsulator::new(&v6_headers()).unwrap();
    assert_eq!(
        PacketTemplate::gpdu(&e, &ip, &udp, b"x", UdpChecksum::Zero, UeAddress::Source),
        Err(mandatory_checksum())
    );
}

#[test]
fn encapsulate_refuses_what_the_ipv6_payload_length_cannot_hold() {
    let mut h = v6_headers();
    h.flow_label = 1 << 20;
    assert_eq!(
        Encapsulator::new(&h).map(|_| ()),
        Err(EmitError::Net(net::EmitError::InvalidField {
            layer: net::Layer::Ipv6,
            field: "flow label",
            value: 1 << 20,
            reason: "does not fit in 20 bits"
        }))
    );
    let e = Encapsulator::new(&v6_headers()).unwrap();
    assert_eq!(e.outer_len(), 70);
    // UDP 8 + GTP-U 8 + the inner packet must fit the payload length's 65 535.
    let inner = 65_535 - 16 + 1;
    let mut buf = vec![0u8; 70 + inner];
    assert_eq!(
        e.encapsulate(&mut buf, 70..70 + inner),
        Err(EmitError::Net(net::EmitError::PayloadTooLong {
            layer: net::Layer::Ipv6,
            len: inner,
            max: 65_519
        }))
    );
    assert!(e.encapsulate(&mut buf, 70..70 + inner - 1).is_ok());
}

#[test]
fn templates_take_ue_addresses_of_their_family_only() {
    let e = Encapsulator::new(&v6_headers()).unwrap();
    let udp = UdpRepr {
        source_port: 10000,
        destination_port: 20000,
    };
    let v6 = Ipv6Repr::udp(Ipv6Addr::LOCALHOST, Ipv6Addr::LOCALHOST);
    let t6 = PacketTemplate::gpdu(
        &e,
        &v6,
        &udp,
        &[0; 10],
        UdpChecksum::Compute,
        UeAddress::Source,
    )
    .unwrap();
    assert_eq!(t6.patch_range(10), None);
    let mut out = vec![0u8; t6.len()];
    let e4 = t6
        .write(&mut out, Teid(1), Ipv4Addr::LOCALHOST, &[1; 10])
        .unwrap_err();
    assert_eq!(
        e4,
        EmitError::FamilyMismatch {
            template: IpFamily::Ipv6,
            given: IpFamily::Ipv4
        }
    );
    assert_eq!(
        e4.to_string(),
        "the template's inner packets are IPv6, the UE address given is IPv4"
    );
    let v4 = Ipv4Repr::udp(Ipv4Addr::LOCALHOST, Ipv4Addr::LOCALHOST);
    let t4 = PacketTemplate::gpdu(
        &e,
        &v4,
        &udp,
        &[0; 10],
        UdpChecksum::Compute,
        UeAddress::Source,
    )
    .unwrap();
    // The outer UDP checksum is computed over IPv6: no patch window.
    assert_eq!(t4.patch_range(10), None);
    assert_eq!(
        t4.write_ipv6(&mut out, Teid(1), Ipv6Addr::LOCALHOST, &[1; 10]),
        Err(EmitError::FamilyMismatch {
            template: IpFamily::Ipv4,
            given: IpFamily::Ipv6
        })
    );
}
