//! DecodeError cases: every decoding failure says what, which message, which IE and where; encoding
//! refuses values it cannot put on the wire; unknown and vendor IEs are kept, never fatal.

mod common;

use std::net::Ipv4Addr;

use common::vectors::hex;
use upfbench_pfcp::ie::*;
use upfbench_pfcp::message::*;
use upfbench_pfcp::{
    Datagram, EmitError, ErrorKind, Message, MessageBody, MessagePriority, Seid, SequenceNumber,
    Teid, TypedIe,
};

const HEARTBEAT: &str = "2001000c 00000100 0060 0004 ed157e22";
const EST_REQ: &str = "2132015b000000000000000000000300003c000500c0a80e6f0039000d02a0374f94eb52b387c0a80e6f0001003a003800020001001d00040000ffff0002002000140001010016000908696e7465726e6574005d0005060a2d000200a0000111006c0004000000010001007b003800020002001d00040000ffff0002005c0014000100001500090100000001c0a80d970016000908696e7465726e6574005d0005020a2d000200170026010000227065726d6974206f75742069702066726f6d20616e7920746f2061737369676e6564007c00010100a000010b006c000400000002005f00010000030036006c000400000001002c00010200040025002a0001000016000908696e7465726e65740054000a010000000002c0a80d8300a000010b00030028006c000400000002002c00010200040017002a0001010016000908696e7465726e657400a00001110071000101009f000908696e7465726e6574";

#[test]
fn header_errors() {
    let e = Message::parse(&[]).unwrap_err();
    assert_eq!(
        e.kind,
        ErrorKind::Truncated {
            needed: 4,
            available: 0
        }
    );
    assert_eq!((e.offset, e.ie_type, e.message_type), (0, None, None));

    let mut b = hex(HEARTBEAT);
    b[0] = 0x40; // version 2
    let e = Message::parse(&b).unwrap_err();
    assert_eq!(e.kind, ErrorKind::UnsupportedVersion { version: 2 });
    assert_eq!(e.cause(), None);

    let mut b = hex(HEARTBEAT);
    b[3] = 0x0d; // Message Length one beyond the datagram
    let e = Message::parse(&b).unwrap_err();
    assert_eq!(
        e.kind,
        ErrorKind::Truncated {
            needed: 17,
            available: 16
        }
    );
    assert_eq!(e.offset, 2);

    let mut b = hex(HEARTBEAT);
    b[3] = 0x03; // shorter than the 8-octet header
    assert_eq!(
        Message::parse(&b).unwrap_err().kind,
        ErrorKind::InvalidLength { length: 3 }
    );

    let mut b = hex(HEARTBEAT);
    b.push(0);
    let e = Message::parse(&b).unwrap_err();
    assert_eq!(e.kind, ErrorKind::TrailingBytes { extra: 1 });
    assert_eq!(e.offset, 16);

    let mut b = hex(HEARTBEAT);
    b[0] |= 0x02; // MP without S
    assert!(matches!(
        Message::parse(&b).unwrap_err().kind,
        ErrorKind::InvalidValue { .. }
    ));
}

#[test]
fn s_flag_must_match_the_message_class() {
    // A Heartbeat Request with S=1 (and a SEID).
    let b = hex("2101 0014 0000000000000001 000001 00 0060 0004 ed157e22");
    let e = Message::parse(&b).unwrap_err();
    assert!(matches!(e.kind, ErrorKind::InvalidValue { .. }));
    assert_eq!(e.message_type, Some(MessageType::HEARTBEAT_REQUEST));
    // A Session Deletion Request with S=0.
    let e = Message::parse(&hex("20360004 00000600")).unwrap_err();
    assert_eq!(e.message_type, Some(MessageType::SESSION_DELETION_REQUEST));
}

#[test]
fn unsupported_messages_are_recognised_not_misparsed() {
    for (t, s) in [
        (3u8, false),
        (12, false),
        (14, false),
        (200, false),
        (99, true),
    ] {
        let b = if s {
            hex(&format!("21{t:02x}000c 0000000000000001 00000100"))
        } else {
            hex(&format!("20{t:02x}0004 00000100"))
        };
        let e = Message::parse(&b).unwrap_err();
        assert_eq!(e.kind, ErrorKind::UnsupportedMessage, "type {t}");
        assert_eq!(e.message_type, Some(MessageType(t)));
        assert_eq!(
            e.cause(),
            None,
            "unsupported messages are not answered with a cause"
        );
    }
}

#[test]
fn ie_errors_name_message_ie_and_offset() {
    // Recovery Time Stamp with length 3: the value is too short.
    let b = hex("2001000b 00000100 0060 0003 ed157e");
    let e = Message::parse(&b).unwrap_err();
    assert_eq!(e.message_type, Some(MessageType::HEARTBEAT_REQUEST));
    assert_eq!(e.ie_type, Some(IeType::RECOVERY_TIME_STAMP));
    assert_eq!(
        e.kind,
        ErrorKind::Truncated {
            needed: 4,
            available: 3
        }
    );
    assert_eq!(e.offset, 12);
    assert_eq!(e.cause(), Some(Cause::INVALID_LENGTH));
    let text = e.to_string();
    assert!(text.contains("Heartbeat Request (1)"), "{text}");
    assert!(text.contains("Recovery Time Stamp (96)"), "{text}");
    assert!(text.contains("offset 12"), "{text}");

    // An IE whose Length runs past the message.
    let b = hex("2001000c 00000100 0060 0008 ed157e22");
    let e = Message::parse(&b).unwrap_err();
    assert_eq!(e.ie_type, Some(IeType::RECOVERY_TIME_STAMP));
    assert_eq!(
        e.kind,
        ErrorKind::Truncated {
            needed: 8,
            available: 4
        }
    );
    assert_eq!(e.offset, 10);

    // Three stray octets after the last IE.
    let b = hex("2001000f 00000100 0060 0004 ed157e22 000000");
    let e = Message::parse(&b).unwrap_err();
    assert_eq!(
        e.kind,
        ErrorKind::Truncated {
            needed: 4,
            available: 3
        }
    );
    assert_eq!(e.offset, 16);
}

#[test]
fn nested_ie_errors_carry_absolute_offsets() {
    // Node ID Type 5 in the Session Establishment Request (type octet at 16 + 4).
    let mut b = hex(EST_REQ);
    b[20] = 0x05;
    let e = Message::parse(&b).unwrap_err();
    assert_eq!(e.ie_type, Some(IeType::NODE_ID));
    assert_eq!(e.offset, 20);
    assert!(matches!(e.kind, ErrorKind::InvalidValue { .. }));
    assert_eq!(e.cause(), Some(Cause::MANDATORY_IE_INCORRECT));
    assert_eq!(e.offending_ie(), Some(IeType::NODE_ID));

    // F-TEID of the uplink PDR with CHID but not CH: find it and set its flags to 0x09.
    let mut b = hex(EST_REQ);
    let at = find(&b, &hex("0015 0009 01")) + 4;
    b[at] = 0x09;
    let e = Message::parse(&b).unwrap_err();
    assert_eq!((e.ie_type, e.offset), (Some(IeType::F_TEID), at));
}

fn find(hay: &[u8], needle: &[u8]) -> usize {
    hay.windows(needle.len()).position(|w| w == needle).unwrap()
}

#[test]
fn missing_mandatory_ies() {
    // A Heartbeat Request without IEs (eUPF exits on one; we reject it).
    let e = Message::parse(&hex("20010004 00000100")).unwrap_err();
    assert_eq!(e.kind, ErrorKind::MissingMandatoryIe { parent: None });
    assert_eq!(e.ie_type, Some(IeType::RECOVERY_TIME_STAMP));
    assert_eq!(e.cause(), Some(Cause::MANDATORY_IE_MISSING));

    // No CP F-SEID: rename its type to an unknown one.
    let mut b = hex(EST_REQ);
    b[25..27].copy_from_slice(&1000u16.to_be_bytes());
    let e = Message::parse(&b).unwrap_err();
    assert_eq!(e.ie_type, Some(IeType::F_SEID));
    assert_eq!(e.kind, ErrorKind::MissingMandatoryIe { parent: None });
    let upf = NodeId::Ipv4(Ipv4Addr::new(192, 168, 14, 151));
    let rsp = SessionEstablishmentResponse::for_error(upf, &e).unwrap();
    assert_eq!(rsp.cause, Cause::MANDATORY_IE_MISSING);
    assert_eq!(rsp.offending_ie, Some(OffendingIe(IeType::F_SEID)));
    let out = Message::session(
        Seid(0xa037_4f94_eb52_b387),
        SequenceNumber::new(3).unwrap(),
        rsp,
    )
    .to_vec()
    .unwrap();
    assert_eq!(
        out,
        hex("21330020 a0374f94eb52b387 00000300 003c000500c0a80e97 0013000142 002800020039")
    );

    // The first Create PDR without its PDI (type 2 renamed): missing inside a grouped IE.
    let mut b = hex(EST_REQ);
    let pdr = find(&b, &hex("0001 003a"));
    let pdi = find(&b, &hex("0002 0020 0014"));
    b[pdi..pdi + 2].copy_from_slice(&1001u16.to_be_bytes());
    let e = Message::parse(&b).unwrap_err();
    assert_eq!(e.ie_type, Some(IeType::PDI));
    assert_eq!(
        e.kind,
        ErrorKind::MissingMandatoryIe {
            parent: Some(IeType::CREATE_PDR)
        }
    );
    assert_eq!(e.offset, pdr);
    assert_eq!(
        e.message_type,
        Some(MessageType::SESSION_ESTABLISHMENT_REQUEST)
    );
}

#[test]
fn vendor_ie_shorter_than_its_enterprise_id() {
    let b = hex("20010011 00000100 0060 0004 ed157e22 8001 0001 00");
    let e = Message::parse(&b).unwrap_err();
    assert_eq!(e.kind, ErrorKind::InvalidLength { length: 1 });
    assert_eq!((e.ie_type, e.offset), (Some(IeType(0x8001)), 18));
}

#[test]
fn unknown_vendor_and_surplus_ies_are_kept_and_reemitted() {
    // Heartbeat with a vendor IE, an unknown IE and a second Recovery Time Stamp.
    let b = hex(
        "20010023 00000100 0060 0004 ed157e22 8001 0005 0063 010203 03e8 0002 aabb 0060 0004 00000001",
    );
    let m = Message::parse(&b).unwrap();
    let MessageBody::HeartbeatRequest(hb) = &m.body else {
        panic!()
    };
    assert_eq!(hb.recovery_time_stamp, NtpTimestamp(0xed15_7e22));
    assert_eq!(
        hb.other_ies,
        vec![
            RawIe {
                ie_type: IeType(0x8001),
                enterprise_id: Some(99),
                value: vec![1, 2, 3]
            },
            RawIe {
                ie_type: IeType(1000),
                enterprise_id: None,
                value: vec![0xaa, 0xbb]
            },
            RawIe {
                ie_type: IeType::RECOVERY_TIME_STAMP,
                enterprise_id: None,
                value: vec![0, 0, 0, 1]
            },
        ]
    );
    assert_eq!(m.to_vec().unwrap(), b);

    // Unknown IE inside a grouped IE (a Create PDR of a Session Modification Request).
    let b = hex(
        "2134002b 0000000000000001 00000500 0001 001b 0038 0002 0007 001d 0004 00000010 0002 0005 0014 0001 00 03e9 0000",
    );
    let m = Message::parse(&b).unwrap();
    let MessageBody::SessionModificationRequest(r) = &m.body else {
        panic!()
    };
    assert_eq!(r.create_pdrs[0].other_ies[0].ie_type, IeType(1001));
    assert_eq!(m.to_vec().unwrap(), b);
}

#[test]
fn extra_octets_in_a_known_ie_are_ignored() {
    // Cause with length 2 (a later release's extension): read, and re-emitted with length 1.
    let b = hex("21350012 a0374f94eb52b387 00000500 0013 0002 01ff");
    let m = Message::parse(&b).unwrap();
    let MessageBody::SessionModificationResponse(r) = &m.body else {
        panic!()
    };
    assert_eq!(r.cause, Cause::REQUEST_ACCEPTED);
    assert_eq!(
        m.to_vec().unwrap(),
        hex("21350011 a0374f94eb52b387 00000500 0013 0001 01")
    );
}

#[test]
fn datagram_follow_on_rules() {
    let hb = hex(HEARTBEAT);
    let mut fo = hb.clone();
    fo[0] |= 0x04;
    // FO=1 then FO=0: two messages.
    let two = [fo.clone(), hb.clone()].concat();
    assert_eq!(Datagram::new(&two).filter(|r| r.is_ok()).count(), 2);
    // FO=1 at the end: the promised message is missing.
    let r: Vec<_> = Datagram::new(&fo).collect();
    assert!(matches!(
        r[0].as_ref().unwrap_err().kind,
        ErrorKind::Truncated { .. }
    ));
    // FO=0 then more bytes.
    let r: Vec<_> = Datagram::new(&[hb.clone(), hb.clone()].concat()).collect();
    assert_eq!(r.len(), 1);
    let e = r[0].as_ref().unwrap_err();
    assert_eq!(
        (e.kind.clone(), e.offset),
        (ErrorKind::TrailingBytes { extra: 16 }, 16)
    );
    // An error in the second message is located from the datagram's start.
    let mut bad = hb.clone();
    bad[11] = 3; // Recovery Time Stamp length 3: its value (at 12) is one octet short
    let r: Vec<_> = Datagram::new(&[fo, bad].concat()).collect();
    assert!(r[0].is_ok());
    let e = r[1].as_ref().unwrap_err();
    assert_eq!(e.ie_type, Some(IeType::RECOVERY_TIME_STAMP));
    assert_eq!(e.offset, 16 + 12);
}

#[test]
fn emit_errors() {
    let ts = NtpTimestamp(1);
    let m = Message::node(SequenceNumber::default(), HeartbeatRequest::new(ts));
    assert_eq!(
        m.emit(&mut [0u8; 15]),
        Err(EmitError::BufferTooSmall {
            needed: 16,
            available: 15
        })
    );
    // A session message needs a SEID, a node message must not have one.
    let m = Message::node(SequenceNumber::default(), SessionDeletionRequest::default());
    assert!(matches!(m.to_vec(), Err(EmitError::Invalid { .. })));
    let m = Message::session(
        Seid(1),
        SequenceNumber::default(),
        HeartbeatRequest::new(ts),
    );
    assert!(matches!(m.to_vec(), Err(EmitError::Invalid { .. })));
    // Priority without SEID.
    let mut m = Message::node(SequenceNumber::default(), HeartbeatRequest::new(ts));
    m.priority = Some(MessagePriority::new(3).unwrap());
    assert!(m.to_vec().is_err());
    // Outer Header Creation whose fields disagree with its description.
    let mut ohc = OuterHeaderCreation::gtpu_udp_ipv4(Teid(1), Ipv4Addr::LOCALHOST);
    ohc.teid = None;
    assert!(matches!(ohc.to_ie_bytes(), Err(EmitError::Invalid { .. })));
    // Bit rates are 40 bits.
    let br = BitRate {
        ul_kbps: 1 << 40,
        dl_kbps: 0,
    };
    assert!(br.to_ie_bytes().is_err());
    // A vendor type without Enterprise ID.
    let mut hb = HeartbeatRequest::new(ts);
    hb.other_ies.push(RawIe {
        ie_type: IeType(0x8000),
        enterprise_id: None,
        value: vec![],
    });
    assert!(
        Message::node(SequenceNumber::default(), hb)
            .to_vec()
            .is_err()
    );
    // Out-of-range newtypes are refused at construction.
    assert!(SequenceNumber::new(1 << 24).is_err());
    assert!(upfbench_pfcp::Qfi::new(64).is_err());
    assert!(MessagePriority::new(16).is_err());
    assert!(DnsName::from_dotted("a..b").is_err());
    assert!(DnsName::from_dotted(&"x".repeat(64)).is_err());
}

#[test]
fn header_view_accessors() {
    let b = hex(EST_REQ);
    let h = upfbench_pfcp::Header::new_checked(&b[..]).unwrap();
    assert_eq!(h.version(), 1);
    assert!(h.s_flag() && !h.mp_flag() && !h.fo_flag());
    assert_eq!(h.message_type(), MessageType::SESSION_ESTABLISHMENT_REQUEST);
    assert_eq!(h.seid(), Some(Seid(0)));
    assert_eq!(h.sequence().get(), 3);
    assert_eq!(h.message_len(), b.len());
    let types: Vec<IeType> = h.ies().map(|ie| ie.unwrap().ie_type()).collect();
    assert_eq!(
        types,
        [60, 57, 1, 1, 3, 3, 113, 159].map(IeType).to_vec(),
        "zero-copy walk of the top-level IEs"
    );
    let pdr = h.ies().nth(2).unwrap().unwrap();
    assert_eq!(pdr.offset(), 16 + 9 + 17);
    let child_types: Vec<u16> = pdr.children().map(|c| c.unwrap().ie_type().0).collect();
    assert_eq!(child_types, [56, 29, 2, 108]);
}

#[test]
fn failed_rule_id_errors() {
    // Rule ID Type 7 is not defined.
    let e = FailedRuleId::from_ie_bytes(&[0, 114, 0, 3, 7, 0, 1]).unwrap_err();
    assert_eq!(
        e.kind,
        ErrorKind::InvalidValue {
            what: "Failed Rule ID: unknown Rule ID Type"
        }
    );
    assert_eq!((e.ie_type, e.offset), (Some(IeType::FAILED_RULE_ID), 4));
    // A FAR ID needs 4 octets.
    let e = FailedRuleId::from_ie_bytes(&[0, 114, 0, 3, 1, 0, 1]).unwrap_err();
    assert_eq!(
        e.kind,
        ErrorKind::Truncated {
            needed: 4,
            available: 2
        }
    );
    assert_eq!(e.cause(), Some(Cause::INVALID_LENGTH));
    // The spare bits above the type are ignored.
    let ok = FailedRuleId::from_ie_bytes(&[0, 114, 0, 3, 0xe0, 0, 9]).unwrap();
    assert_eq!(ok, FailedRuleId::Pdr(upfbench_pfcp::PdrId(9)));
}

#[test]
fn empty_pfcpsm_req_flags_in_update_forwarding_parameters() {
    // The handover's Update FAR with a PFCPSMReq-Flags of length 0 (its last IE): the error
    // names the IE and the offset of its length field, inside two grouped IEs.
    let good = hex(
        "21340039 0000000000000001 00000700 000a 0029 006c 0004 00000001 002c 0001 02 000b 0018 \
         002a 0001 00 0054 000a 01 00 20000002 c0a80d84 0031 0001 02",
    );
    Message::parse(&good).unwrap();
    let mut b = good.clone();
    let at = find(&b, &hex("0031 0001 02"));
    b.truncate(at);
    b.extend_from_slice(&hex("0031 0000"));
    // Every enclosing length shrinks by the lost octet.
    for len_at in [2usize, 18, 35] {
        let n = u16::from_be_bytes([b[len_at], b[len_at + 1]]) - 1;
        b[len_at..len_at + 2].copy_from_slice(&n.to_be_bytes());
    }
    let e = Message::parse(&b).unwrap_err();
    assert_eq!(e.ie_type, Some(IeType::PFCPSMREQ_FLAGS));
    assert_eq!(e.kind, ErrorKind::InvalidLength { length: 0 });
    assert_eq!(e.offset, at + 2);
}
