//! The errors of the IPv6 and QoS IEs: every rule of TS 29.244 §8.2.62 (UE IP Address), §8.2.3
//! (F-TEID), §8.2.37 (F-SEID) and §8.2.56 (Outer Header Creation) that a value breaks is refused
//! with its IE type and the offset of the field at fault (Cause 69, Mandatory IE incorrect), and
//! the encoder refuses the same values; every way a flow description (SDF Filter) fails to parse
//! is named with its byte offset.

mod common;

use std::net::{Ipv4Addr, Ipv6Addr};

use common::plans::reference_plan;
use upfbench_pfcp::ie::*;
use upfbench_pfcp::{EmitError, ErrorKind, Message, MessageBody, Seid, SequenceNumber, TypedIe};

const V6: &str = "20010db8000000450000000000000002";

fn hex(s: &str) -> Vec<u8> {
    common::vectors::hex(s)
}

/// Decodes one IE (offsets count from its Type field) and returns the error's kind and offset,
/// after checking that it names the IE and asks for Cause 69.
fn refused<T: TypedIe + std::fmt::Debug>(bytes: &str) -> (&'static str, usize) {
    let e = T::from_ie_bytes(&hex(bytes)).unwrap_err();
    assert_eq!(e.ie_type, Some(T::TYPE), "{e}");
    assert_eq!(e.cause(), Some(Cause::MANDATORY_IE_INCORRECT), "{e}");
    match e.kind {
        ErrorKind::InvalidValue { what } => (what, e.offset),
        k => panic!("{k:?}"),
    }
}

#[test]
fn ue_ip_address_flags_that_contradict_each_other() {
    let cases = [
        // V4 and CHV4, with the address.
        (
            "005d 0005 12 0a2d0002",
            "UE IP Address: V4 and CHV4 both set",
            4,
        ),
        // V6 and CHV6, with the address.
        (
            &format!("005d 0011 21 {V6}")[..],
            "UE IP Address: V6 and CHV6 both set",
            4,
        ),
        // IPv6D with only V4.
        (
            "005d 0006 0a 0a2d0002 04",
            "UE IP Address: IPv6D without V6 or CHV6",
            4,
        ),
        // IP6PL with only V4.
        (
            "005d 0006 42 0a2d0002 38",
            "UE IP Address: IP6PL without V6 or CHV6",
            4,
        ),
        // IPv6D and IP6PL with V6.
        (
            &format!("005d 0013 49 {V6} 04 38")[..],
            "UE IP Address: IPv6D and IP6PL both set",
            4,
        ),
    ];
    for (bytes, what, offset) in cases {
        assert_eq!(refused::<UeIpAddress>(bytes), (what, offset), "{bytes}");
    }
}

#[test]
fn ue_ip_address_lengths_out_of_range_point_at_their_field() {
    // CHV6 with 65 delegation bits: the field is the octet after the flags.
    assert_eq!(
        refused::<UeIpAddress>("005d 0002 28 41"),
        ("UE IP Address: IPv6 Prefix Delegation Bits above 64", 5)
    );
    // V6 with a prefix length of 129: after the flags and the 16 address octets.
    assert_eq!(
        refused::<UeIpAddress>(&format!("005d 0012 41 {V6} 81")),
        ("UE IP Address: IPv6 Prefix Length above 128", 21)
    );
    // At the limits they decode: /0 by delegating 64 bits, /128 by length.
    let ue = UeIpAddress::from_ie_bytes(&hex("005d 0002 28 40")).unwrap();
    assert_eq!(ue.ipv6_prefix_len(), Some(0));
    let ue = UeIpAddress::from_ie_bytes(&hex(&format!("005d 0012 41 {V6} 80"))).unwrap();
    assert_eq!(ue.ipv6_prefix_len(), Some(128));
    // A length field the flags announce but the IE lacks: Cause 68.
    let e = UeIpAddress::from_ie_bytes(&hex("005d 0001 28")).unwrap_err();
    assert_eq!(e.cause(), Some(Cause::INVALID_LENGTH));
    assert_eq!(
        (e.kind, e.offset),
        (
            ErrorKind::Truncated {
                needed: 1,
                available: 0
            },
            5
        )
    );
}

#[test]
fn ue_ip_addresses_that_break_a_rule_are_not_encoded() {
    let v6: Ipv6Addr = "2001:db8:45::2".parse().unwrap();
    let v4 = Ipv4Addr::new(10, 45, 0, 2);
    let cases = [
        (
            UeIpAddress {
                choose_ipv4: true,
                ..UeIpAddress::ipv4(v4, true)
            },
            "UE IP Address: V4 and CHV4 both set",
        ),
        (
            UeIpAddress {
                choose_ipv6: true,
                ..UeIpAddress::new(v6.into(), true)
            },
            "UE IP Address: V6 and CHV6 both set",
        ),
        (
            UeIpAddress {
                ipv6_prefix_delegation_bits: Some(4),
                ..UeIpAddress::ipv4(v4, true)
            },
            "UE IP Address: IPv6D without V6 or CHV6",
        ),
        (
            UeIpAddress {
                ipv6_prefix_length: Some(56),
                ..UeIpAddress::ipv4(v4, true)
            },
            "UE IP Address: IP6PL without V6 or CHV6",
        ),
        (
            UeIpAddress {
                ipv6_prefix_delegation_bits: Some(4),
                ..UeIpAddress::ipv6_prefix(v6, 56, true)
            },
            "UE IP Address: IPv6D and IP6PL both set",
        ),
        (
            UeIpAddress {
                ipv6_prefix_delegation_bits: Some(65),
                ..UeIpAddress::choose(false, true, true)
            },
            "UE IP Address: IPv6 Prefix Delegation Bits above 64",
        ),
        (
            UeIpAddress::ipv6_prefix(v6, 129, true),
            "UE IP Address: IPv6 Prefix Length above 128",
        ),
    ];
    for (ue, what) in cases {
        assert_eq!(ue.to_ie_bytes(), Err(EmitError::Invalid { what }), "{ue:?}");
    }
}

#[test]
fn an_endpoint_without_a_family_is_refused() {
    // F-TEID with TEID but neither V4 nor V6; CH=1 asking for no family.
    assert_eq!(
        refused::<Fteid>("0015 0005 00 00000001"),
        ("F-TEID: neither V4 nor V6", 4)
    );
    assert_eq!(
        refused::<Fteid>("0015 0001 04"),
        ("F-TEID: neither V4 nor V6", 4)
    );
    // F-SEID with a SEID and no address.
    assert_eq!(
        refused::<Fseid>("0039 0009 00 0000000000000001"),
        ("F-SEID: neither V4 nor V6", 4)
    );
    // Outer Header Creation with no description bit (and a TEID it cannot be for).
    assert_eq!(
        refused::<OuterHeaderCreation>("0054 0006 0000 00000001"),
        ("Outer Header Creation: no description bit set", 4)
    );
    let neither = |what| Err(EmitError::Invalid { what });
    let fteid = Fteid::Assigned {
        teid: upfbench_pfcp::Teid(1),
        ipv4: None,
        ipv6: None,
    };
    assert_eq!(fteid.to_ie_bytes(), neither("F-TEID: neither V4 nor V6"));
    let choose = Fteid::choose(false, false, Some(1));
    assert_eq!(choose.to_ie_bytes(), neither("F-TEID: neither V4 nor V6"));
    let fseid = Fseid {
        seid: Seid(1),
        ipv4: None,
        ipv6: None,
    };
    assert_eq!(fseid.to_ie_bytes(), neither("F-SEID: neither V4 nor V6"));
    let mut ohc = OuterHeaderCreation::gtpu_udp_ipv4(upfbench_pfcp::Teid(1), Ipv4Addr::LOCALHOST);
    ohc.description = 0;
    assert_eq!(
        ohc.to_ie_bytes(),
        neither("Outer Header Creation: no description bit set")
    );
}

#[test]
fn a_bad_ue_ip_address_in_a_request_is_located_in_the_message() {
    // The downlink PDR's UE IP Address gets CHV4 beside its V4: Cause 69, Offending IE UE IP
    // Address, the offset of its flags octet from the start of the message.
    let msg = Message::session(
        Seid(0),
        SequenceNumber::new(3).unwrap(),
        reference_plan().establishment_request(),
    );
    let mut bytes = msg.to_vec().unwrap();
    let ue = bytes
        .windows(5)
        .position(|w| w == hex("005d 0005 06"))
        .unwrap();
    bytes[ue + 4] |= 0x10;
    let e = Message::parse(&bytes).unwrap_err();
    assert_eq!(e.ie_type, Some(IeType::UE_IP_ADDRESS));
    assert_eq!(e.offset, ue + 4);
    assert_eq!(
        e.kind,
        ErrorKind::InvalidValue {
            what: "UE IP Address: V4 and CHV4 both set"
        }
    );
    let upf = NodeId::Ipv4(Ipv4Addr::new(192, 168, 14, 151));
    let rsp = upfbench_pfcp::message::SessionEstablishmentResponse::for_error(upf, &e).unwrap();
    assert_eq!(
        (rsp.cause, rsp.offending_ie),
        (
            Cause::MANDATORY_IE_INCORRECT,
            Some(OffendingIe(IeType::UE_IP_ADDRESS))
        )
    );
    let text = e.to_string();
    assert!(text.contains("UE IP Address (93)"), "{text}");
    assert!(matches!(
        Message::parse(&msg.to_vec().unwrap()).unwrap().body,
        MessageBody::SessionEstablishmentRequest(_)
    ));
}

/// Each text that fails, the error's kind (as its `Debug` form: the variant and its fields) and
/// its byte offset: one case per kind, and per place a kind can arise.
const FLOW_ERRORS: &[(&str, &str, usize)] = &[
    ("", r#"Missing { expected: "the action" }"#, 0),
    ("permit", r#"Missing { expected: "the direction" }"#, 6),
    ("permit out", r#"Missing { expected: "the protocol" }"#, 10),
    ("permit out ip", r#"Missing { expected: "from" }"#, 13),
    (
        "permit out ip from",
        r#"Missing { expected: "the source address" }"#,
        18,
    ),
    (
        "permit out ip from any",
        r#"Missing { expected: "to" }"#,
        22,
    ),
    (
        "permit out ip from any to ",
        r#"Missing { expected: "the destination address" }"#,
        26,
    ),
    (
        "allow out ip from any to assigned",
        r#"Action { found: "allow" }"#,
        0,
    ),
    (
        "permit up ip from any to assigned",
        r#"Direction { found: "up" }"#,
        7,
    ),
    (
        "permit out gre from any to assigned",
        r#"Protocol { found: "gre" }"#,
        11,
    ),
    (
        "permit out 256 from any to assigned",
        r#"Protocol { found: "256" }"#,
        11,
    ),
    (
        "permit out 17 form any to assigned",
        r#"Keyword { expected: "from", found: "form" }"#,
        14,
    ),
    (
        "permit out 17 from any 53 at assigned",
        r#"Keyword { expected: "to", found: "at" }"#,
        26,
    ),
    (
        "permit out 17 from host to assigned",
        r#"Address { found: "host" }"#,
        19,
    ),
    (
        "permit out 17 from 10.45.0.0/33 to any",
        r#"PrefixLength { found: "33", max: 32 }"#,
        19,
    ),
    (
        "permit out 17 from 2001:db8::/129 to any",
        r#"PrefixLength { found: "129", max: 128 }"#,
        19,
    ),
    (
        "permit out 17 from 10.45.0.0/x to any",
        r#"PrefixLength { found: "x", max: 32 }"#,
        19,
    ),
    (
        "permit out 17 from 10.45.0.1/16 to any",
        r#"HostBits { found: "10.45.0.1/16" }"#,
        19,
    ),
    (
        "permit out 17 from 2001:db8::1/64 to any",
        r#"HostBits { found: "2001:db8::1/64" }"#,
        19,
    ),
    ("permit out 17 from !10.45.0.0/16 to any", "Inverted", 19),
    (
        "permit out 17 from any to assigned 70000",
        r#"Port { found: "70000" }"#,
        35,
    ),
    (
        "permit out 17 from any to assigned 53,1000-",
        r#"Port { found: "" }"#,
        43,
    ),
    (
        "permit out 17 from any to assigned 53,2000-1000",
        "PortRange { first: 2000, last: 1000 }",
        38,
    ),
    (
        "permit out 17 from any to assigned established",
        r#"Options { found: "established" }"#,
        35,
    ),
];

#[test]
fn every_flow_description_error_names_what_and_where() {
    use FlowDescriptionErrorKind as K;
    for (text, kind, offset) in FLOW_ERRORS {
        let e = text.parse::<FlowDescription>().unwrap_err();
        assert!(
            e.to_string().starts_with("flow description, at byte "),
            "{e}"
        );
        assert_eq!(
            (format!("{:?}", e.kind), e.offset),
            ((*kind).to_owned(), *offset),
            "{text:?}"
        );
    }
    // Octets that are not UTF-8: the offset of the first bad one.
    let e = FlowDescription::from_bytes(b"permit out \xff").unwrap_err();
    assert_eq!((e.kind, e.offset), (K::NotText, 11));
    // The same refusal through an SDF Filter received with that text.
    let f = SdfFilter::flow("permit out gre from any to assigned");
    let found = String::from("gre");
    assert_eq!(
        f.parse_flow().unwrap().unwrap_err().kind,
        K::Protocol { found }
    );
    assert_eq!(SdfFilter::default().parse_flow(), None);
    // A network made by hand is checked as a parsed one.
    let ip = "10.45.0.1".parse().unwrap();
    let found = String::from("10.45.0.1/16");
    assert_eq!(FilterAddress::network(ip, 16), Err(K::HostBits { found }));
    let found = String::from("33");
    assert_eq!(
        FilterAddress::network(ip, 33),
        Err(K::PrefixLength { found, max: 32 })
    );
}

#[test]
fn flow_descriptions_of_both_families_parse_and_print() {
    let f: FlowDescription = "permit out 17 from 2001:db8::/64 to assigned 1000-2000"
        .parse()
        .unwrap();
    assert_eq!(
        f,
        FlowDescription {
            action: FilterAction::Permit,
            direction: FilterDirection::Out,
            protocol: Some(17),
            source: FilterEndpoint {
                address: FilterAddress::Network("2001:db8::".parse().unwrap(), 64),
                ports: vec![],
            },
            destination: FilterEndpoint {
                address: FilterAddress::Assigned,
                ports: vec![PortRange {
                    first: 1000,
                    last: 2000
                }],
            },
        }
    );
    assert_eq!(
        f.to_string(),
        "permit out 17 from 2001:db8::/64 to assigned 1000-2000"
    );
    // Canonical text: single spaces, a full prefix as the bare address, one port as a port.
    for (text, canonical) in [
        (
            "  permit   in 6 from assigned 5000,6000-6000  to 10.0.0.1/32 80  ",
            "permit in 6 from assigned 5000,6000 to 10.0.0.1 80",
        ),
        (
            "deny out ip from ::/0 to assigned",
            "deny out ip from ::/0 to assigned",
        ),
        (
            "permit out ip from any to assigned",
            "permit out ip from any to assigned",
        ),
        // Protocols by name, as eUPF 0.7.1 needs them, read as their numbers.
        (
            "permit out udp from any 5001 to assigned",
            "permit out 17 from any 5001 to assigned",
        ),
        (
            "permit in tcp from assigned to any 80",
            "permit in 6 from assigned to any 80",
        ),
        (
            "permit out icmp6 from ::/0 to assigned",
            "permit out 58 from ::/0 to assigned",
        ),
        // A QoS flow's filter as docs/traffic-shapes.md writes it: ports on the source side.
        (
            "permit out 17 from any 5001 to assigned",
            "permit out 17 from any 5001 to assigned",
        ),
        (
            "permit out 58 from 2001:DB8:0:0::1 to 0.0.0.0/0 0-65535",
            "permit out 58 from 2001:db8::1 to 0.0.0.0/0 0-65535",
        ),
    ] {
        let f: FlowDescription = text.parse().unwrap();
        assert_eq!(f.to_string(), canonical, "{text:?}");
        assert_eq!(canonical.parse::<FlowDescription>().unwrap(), f);
    }
    assert!(
        PortRange {
            first: 1000,
            last: 2000
        }
        .contains(1000)
    );
    assert!(!PortRange::one(53).contains(54));
}
