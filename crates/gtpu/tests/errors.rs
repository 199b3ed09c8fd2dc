//! Error cases: truncated, oversized-length and wrong-version inputs, and the extension header,
//! IE and emit errors, each with the variant and offset it must report.

use std::net::Ipv4Addr;

use upfbench_gtpu::{
    EmitError, Encapsulator, ExtensionHeaderType, GtpuDatagram, GtpuFrame, GtpuPacket, GtpuRepr,
    Ipv4Packet, Ipv4Repr, Layer, OuterHeaders, ParseError, UdpRepr, decapsulate,
};
use upfbench_net::error as net;
use upfbench_net::{MacAddr, Teid};

/// The shared vector `ul_gpdu_payload10`: Ether/IPv4/UDP/GTP-U/IPv4/UDP/10 bytes.
const UL_FRAME: &str = "02000000135102000000133108004500004a000000004011de38c0a80d83c0a80d97086808680036fcb330ff002600000001450000260000000040119f580a2d0002c0a8109827104e20001254d078787878787878787878";
/// The shared vector `ul_gpdu_pdusc_qfi9_payload300`'s GTP-U header with PDU Session Container.
const PDUSC_HEADER: &str = "34ff0014112233440000008501100900";

const GTPU_AT: usize = 14 + 20 + 8;

fn hex(s: &str) -> Vec<u8> {
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap())
        .collect()
}

/// A G-PDU message: `header` followed by `body_len` zero bytes, the length field fixed up.
fn gtpu(header: &str, body_len: usize) -> Vec<u8> {
    let mut m = hex(header);
    m.resize(m.len() + body_len, 0);
    let len = (m.len() - 8) as u16;
    m[2..4].copy_from_slice(&len.to_be_bytes());
    m
}

#[test]
fn every_truncation_of_a_frame_is_an_error() {
    let frame = hex(UL_FRAME);
    assert!(decapsulate(&frame).is_ok());
    for cut in 0..frame.len() {
        let err = decapsulate(&frame[..cut]).unwrap_err();
        let expected = match cut {
            0..14 => ParseError::Net(net::ParseError::Truncated {
                layer: net::Layer::Ethernet,
                offset: 0,
                needed: 14,
                available: cut,
            }),
            14..34 => ParseError::Net(net::ParseError::Truncated {
                layer: net::Layer::Ipv4,
                offset: 14,
                needed: 20,
                available: cut - 14,
            }),
            _ => ParseError::Net(net::ParseError::LengthExceedsBuffer {
                layer: net::Layer::Ipv4,
                offset: 16,
                length: 74,
                available: cut - 14,
            }),
        };
        assert_eq!(err, expected, "cut at {cut}");
    }
}

#[test]
fn truncated_gtpu_header() {
    let m = hex("30ff00");
    assert_eq!(
        GtpuPacket::new_checked(&m[..]),
        Err(ParseError::Truncated {
            layer: Layer::Gtpu,
            offset: 0,
            needed: 8,
            available: 3
        })
    );
}

#[test]
fn wrong_versions() {
    let mut frame = hex(UL_FRAME);
    frame[14] = 0x65; // IPv6 version nibble with IHL 5
    assert_eq!(
        decapsulate(&frame),
        Err(ParseError::Net(net::ParseError::UnsupportedVersion {
            layer: net::Layer::Ipv4,
            offset: 14,
            version: 6
        }))
    );
    let mut frame = hex(UL_FRAME);
    frame[GTPU_AT] = 0x50; // GTP version 2 (GTPv2-C has no place on port 2152)
    assert_eq!(
        decapsulate(&frame),
        Err(ParseError::UnsupportedVersion {
            layer: Layer::Gtpu,
            offset: GTPU_AT,
            version: 2
        })
    );
    let mut frame = hex(UL_FRAME);
    frame[GTPU_AT] = 0x20; // version 1, PT 0: GTP'
    assert_eq!(
        decapsulate(&frame),
        Err(ParseError::NotGtp { offset: GTPU_AT })
    );
}

#[test]
fn oversized_lengths() {
    // IPv4 total length one more than the buffer.
    let mut frame = hex(UL_FRAME);
    frame[17] += 1;
    assert_eq!(
        decapsulate(&frame),
        Err(ParseError::Net(net::ParseError::LengthExceedsBuffer {
            layer: net::Layer::Ipv4,
            offset: 16,
            length: 75,
            available: 74
        }))
    );
    // UDP length one more than the IPv4 payload.
    let mut frame = hex(UL_FRAME);
    frame[39] += 1;
    assert_eq!(
        decapsulate(&frame),
        Err(ParseError::Net(net::ParseError::LengthExceedsBuffer {
            layer: net::Layer::Udp,
            offset: 38,
            length: 55,
            available: 54
        }))
    );
    // GTP-U length one more than the UDP payload.
    let mut frame = hex(UL_FRAME);
    frame[GTPU_AT + 3] += 1;
    assert_eq!(
        decapsulate(&frame),
        Err(ParseError::LengthExceedsBuffer {
            layer: Layer::Gtpu,
            offset: GTPU_AT + 2,
            length: 39,
            available: 38
        })
    );
}

#[test]
fn undersized_lengths() {
    // S flag set but the length does not cover the optional fields.
    let m = hex("32ff000200000001abcd");
    assert_eq!(
        GtpuPacket::new_checked(&m[..]),
        Err(ParseError::LengthTooSmall {
            layer: Layer::Gtpu,
            offset: 2,
            length: 2,
            minimum: 4
        })
    );
}

/// IPv4 options and fragments as views are `upfbench-net`'s tests; a datagram refuses fragments.
#[test]
fn fragments_are_refused() {
    let frame = hex(UL_FRAME);
    let mut frag = frame[14..].to_vec();
    frag[6] = 0x20; // MF
    assert_eq!(
        GtpuDatagram::parse(&frag),
        Err(ParseError::Net(net::ParseError::Fragmented {
            offset: 0,
            fragment_offset: 0,
            more_fragments: true
        }))
    );
}

#[test]
fn wrong_ethertype_protocol_port() {
    let mut frame = hex(UL_FRAME);
    frame[12..14].copy_from_slice(&[0x08, 0x06]);
    let e = GtpuFrame::parse(&frame).unwrap_err();
    assert_eq!(
        e,
        ParseError::UnexpectedEtherType {
            offset: 12,
            ethertype: 0x0806
        }
    );
    assert_eq!(
        e.to_string(),
        "Ethernet: EtherType 0x0806 at offset 12 is not IPv4 or IPv6"
    );
    // The EtherType names the family: an IPv4 packet behind IPv6's is refused at its version.
    frame[12..14].copy_from_slice(&[0x86, 0xdd]);
    assert_eq!(
        decapsulate(&frame),
        Err(ParseError::Net(net::ParseError::UnsupportedVersion {
            layer: net::Layer::Ipv6,
            offset: 14,
            version: 4
        }))
    );
    let mut frame = hex(UL_FRAME);
    frame[23] = 6;
    assert_eq!(
        decapsulate(&frame),
        Err(ParseError::UnexpectedProtocol {
            offset: 23,
            protocol: 6
        })
    );
    let mut frame = hex(UL_FRAME);
    frame[37] = 0x69;
    assert_eq!(
        decapsulate(&frame),
        Err(ParseError::UnexpectedPort {
            offset: 36,
            port: 2153
        })
    );
}

/// The reprs are `upfbench-net`'s; their errors come through this crate's whole.
#[test]
fn bad_checksums_are_reported_by_the_reprs() {
    let mut frame = hex(UL_FRAME);
    frame[24] ^= 0xff;
    let ip = Ipv4Packet::new_checked(&frame[14..]).unwrap();
    assert!(matches!(
        Ipv4Repr::parse(&ip).map_err(ParseError::from),
        Err(ParseError::Net(net::ParseError::BadChecksum {
            layer: net::Layer::Ipv4,
            offset: 10,
            found: 0x2138,
            computed: 0xde38
        }))
    ));
    let mut frame = hex(UL_FRAME);
    frame[40] ^= 0x01;
    let d = GtpuDatagram::parse(&frame[14..]).unwrap();
    assert!(!d.verify_checksums());
    assert!(matches!(
        UdpRepr::parse(&d.udp(), d.source(), d.destination()).map_err(ParseError::from),
        Err(ParseError::Net(net::ParseError::BadChecksum {
            layer: net::Layer::Udp,
            offset: 6,
            found: 0xfdb3,
            computed: 0xfcb3
        }))
    ));
}

#[test]
fn extension_header_of_length_zero() {
    let m = gtpu("34ff000000000001000000850001", 0);
    assert_eq!(
        GtpuPacket::new_checked(&m[..]),
        Err(ParseError::ZeroExtensionLength {
            offset: 12,
            extension_type: 0x85
        })
    );
}

#[test]
fn extension_header_past_the_message() {
    // Length 2 (8 octets) but only 4 left in the message.
    let m = gtpu("34ff0000000000010000008502100900", 0);
    assert_eq!(
        GtpuPacket::new_checked(&m[..]),
        Err(ParseError::Truncated {
            layer: Layer::ExtensionHeader,
            offset: 12,
            needed: 8,
            available: 4
        })
    );
    // The chain names a next header after the last octet of the message.
    let m = gtpu("34ff0000000000010000008501100985", 0);
    assert_eq!(
        GtpuPacket::new_checked(&m[..]),
        Err(ParseError::Truncated {
            layer: Layer::ExtensionHeader,
            offset: 16,
            needed: 4,
            available: 0
        })
    );
}

#[test]
fn comprehension_required_bits_are_honoured() {
    // 0xc0 PDCP PDU Number: comprehension required by every recipient; not understood here.
    let mut m = gtpu("34ff0000000000010000000001123400", 4);
    m[11] = 0xc0;
    assert_eq!(
        GtpuPacket::new_checked(&m[..]),
        Err(ParseError::ComprehensionRequired {
            offset: 12,
            extension_type: 0xc0
        })
    );
    // 0x81 RAN Container: required by the endpoint receiver, which we are.
    m[11] = 0x81;
    assert_eq!(
        GtpuPacket::new_checked(&m[..]),
        Err(ParseError::ComprehensionRequired {
            offset: 12,
            extension_type: 0x81
        })
    );
    // 0x20 Service Class Indicator and 0x01 (reserved, not required) are skipped by their
    // length; the PDU Session Container after them is found.
    let mut m = hex("34ff00000000000100000000");
    m[11] = ExtensionHeaderType::SERVICE_CLASS_INDICATOR.0;
    m.extend_from_slice(&[0x01, 0x07, 0x00, 0x01]); // SCI; next: reserved type 0x01
    m.extend_from_slice(&[0x02, 0xaa, 0xbb, 0xcc, 0xdd, 0xee, 0xff, 0x85]); // next: PDU SC
    m.extend_from_slice(&[0x01, 0x10, 0x05, 0x00]); // UL, QFI 5
    m.extend_from_slice(&[0x45, 0x00]); // two octets of T-PDU
    let len = (m.len() - 8) as u16;
    m[2..4].copy_from_slice(&len.to_be_bytes());
    let p = GtpuPacket::new_checked(&m[..]).unwrap();
    let chain: Vec<_> = p
        .extension_headers()
        .map(|e| (e.extension_type.0, e.offset, e.content.len()))
        .collect();
    assert_eq!(chain, [(0x20, 12, 2), (0x01, 16, 6), (0x85, 24, 2)]);
    assert_eq!(p.qfi().map(|q| q.get()), Some(5));
    assert_eq!(p.payload(), [0x45, 0x00]);
    assert_eq!(p.header_len(), 28);
}

#[test]
fn bad_known_extension_headers() {
    // UDP Port extension header with length 2.
    let m = gtpu("36ff0000000000000007004002086800000000000000", 0);
    assert_eq!(
        GtpuPacket::new_checked(&m[..]),
        Err(ParseError::BadExtensionLength {
            offset: 12,
            extension_type: 0x40,
            length: 2,
            expected: 1
        })
    );
    // Two PDU Session Containers.
    let m = gtpu("34ff000000000001000000850110018501100200", 0);
    assert_eq!(
        GtpuPacket::new_checked(&m[..]),
        Err(ParseError::DuplicateExtensionHeader {
            offset: 16,
            extension_type: 0x85
        })
    );
    // PDU type 2: the offset is the container's first content octet in the message.
    let m = gtpu("34ff0000000000010000008501200900", 0);
    assert_eq!(
        GtpuPacket::new_checked(&m[..]),
        Err(ParseError::UnknownPduType {
            offset: 13,
            pdu_type: 2
        })
    );
    // DL with QMP but no room for the time stamp.
    let m = gtpu("34ff0000000000010000008501080100", 0);
    assert_eq!(
        GtpuPacket::new_checked(&m[..]),
        Err(ParseError::Truncated {
            layer: Layer::PduSessionContainer,
            offset: 15,
            needed: 8,
            available: 0
        })
    );
}

#[test]
fn pdu_session_container_header_parses() {
    let m = gtpu(PDUSC_HEADER, 20);
    let p = GtpuPacket::new_checked(&m[..]).unwrap();
    assert_eq!(p.teid(), Teid(0x1122_3344));
    assert_eq!(p.qfi().map(|q| q.get()), Some(9));
    assert_eq!(p.header_len(), 16);
    assert_eq!(p.payload().len(), 20);
}

#[test]
fn information_element_errors() {
    // Echo Response without Recovery.
    let m = gtpu("320200000000000012340000", 0);
    assert_eq!(
        GtpuRepr::parse_bytes(&m),
        Err(ParseError::MissingInformationElement {
            message_type: 2,
            ie_type: 14
        })
    );
    // Error Indication without the Peer Address.
    let m = gtpu("321a000000000000000000001000000099", 0);
    assert_eq!(
        GtpuRepr::parse_bytes(&m),
        Err(ParseError::MissingInformationElement {
            message_type: 26,
            ie_type: 133
        })
    );
    // Echo Request with an unknown TV IE (type 3).
    let m = gtpu("3201000000000000123400000301", 0);
    assert_eq!(
        GtpuRepr::parse_bytes(&m),
        Err(ParseError::UnknownInformationElement {
            offset: 12,
            ie_type: 3
        })
    );
    // End Marker whose Private Extension claims more than there is.
    let m = gtpu("30fe000000000002ff0010", 0);
    assert_eq!(
        GtpuRepr::parse_bytes(&m),
        Err(ParseError::Truncated {
            layer: Layer::InformationElement,
            offset: 8,
            needed: 19,
            available: 3
        })
    );
    // A message type this crate does not decode.
    let m = gtpu("30fd00000000000200", 0);
    assert_eq!(
        GtpuRepr::parse_bytes(&m),
        Err(ParseError::UnsupportedMessageType {
            offset: 1,
            message_type: 253
        })
    );
}

#[test]
fn emit_errors() {
    let headers = OuterHeaders::new(
        MacAddr::default(),
        MacAddr::default(),
        Ipv4Addr::LOCALHOST,
        Ipv4Addr::LOCALHOST,
        Teid(1),
    );
    let e = Encapsulator::new(&headers).unwrap();
    assert_eq!(e.outer_len(), 50);
    let mut buf = [0u8; 100];
    assert_eq!(
        e.encapsulate(&mut buf, 49..100),
        Err(EmitError::HeadroomTooSmall {
            needed: 50,
            available: 49
        })
    );
    assert_eq!(
        e.encapsulate(&mut buf, 60..101),
        Err(EmitError::InnerOutOfBounds {
            start: 60,
            end: 101,
            len: 100
        })
    );
    assert_eq!(
        e.encapsulate(&mut buf, core::ops::Range { start: 60, end: 59 }),
        Err(EmitError::InnerOutOfBounds {
            start: 60,
            end: 59,
            len: 100
        })
    );
    let mut big = vec![0u8; 50 + 65_500];
    assert_eq!(
        e.encapsulate(&mut big, 50..50 + 65_500),
        Err(EmitError::Net(net::EmitError::PayloadTooLong {
            layer: net::Layer::Ipv4,
            len: 65_500,
            max: 65_535 - 36
        }))
    );
    assert_eq!(e.encapsulate(&mut big, 50..50 + 65_499), Ok(0..50 + 65_499));
    let repr = GtpuRepr {
        teid: Teid(0),
        sequence_number: Some(1),
        npdu_number: None,
        pdu_session_container: None,
        udp_port: None,
        message: upfbench_gtpu::Message::EchoResponse { recovery: 0 },
    };
    let mut small = [0u8; 13];
    assert_eq!(
        repr.emit(&mut small),
        Err(EmitError::BufferTooSmall {
            needed: 14,
            available: 13
        })
    );
}
