//! The UPF side against what a confused or hostile peer sends: requests out of place (before
//! the association, for a session it does not hold), requests missing their mandatory IEs or
//! carrying broken ones, messages it does not serve, responses where a request is expected,
//! truncated headers, another PFCP version. Each gets the Cause and Offending IE of TS 29.244
//! §7.2.2 and §8.2.1, or is dropped, and the UPF goes on serving (one table, each row asserted
//! exactly).

mod common;

use std::net::SocketAddr;
use std::time::Instant;

use common::net::*;
use common::upf::*;
use upfbench_pfcp::ie::*;
use upfbench_pfcp::message::*;
use upfbench_pfcp::node::Upf;
use upfbench_pfcp::{Message, MessageBody, Seid, TypedIe};

/// What the UPF answered: the response's type, header SEID, Cause and Offending IE; `None` when
/// it dropped the datagram.
type Answer = Option<(MessageType, Option<Seid>, Option<u8>, Option<IeType>)>;

fn answer(u: &mut Upf, now: Instant, from: SocketAddr, bytes: &[u8]) -> Answer {
    u.handle_datagram(now, from, bytes);
    let t = u.poll_transmit()?;
    assert!(u.poll_transmit().is_none(), "one response at most");
    let m = Message::parse(&t.contents).expect("the UPF's answers decode");
    let (cause, offending) = match &m.body {
        MessageBody::SessionEstablishmentResponse(r) => {
            (Some(r.cause.0), r.offending_ie.map(|o| o.0))
        }
        MessageBody::SessionModificationResponse(r) => {
            (Some(r.cause.0), r.offending_ie.map(|o| o.0))
        }
        MessageBody::SessionDeletionResponse(r) => (Some(r.cause.0), r.offending_ie.map(|o| o.0)),
        MessageBody::AssociationSetupResponse(r) => (Some(r.cause.0), None),
        MessageBody::AssociationReleaseResponse(r) => (Some(r.cause.0), None),
        _ => (None, None),
    };
    Some((m.body.message_type(), m.seid, cause, offending))
}

/// `bytes` with the header's length field set to what follows its first 4 octets.
fn fix_length(mut bytes: Vec<u8>) -> Vec<u8> {
    let len = (bytes.len() - 4) as u16;
    bytes[2..4].copy_from_slice(&len.to_be_bytes());
    bytes
}

/// A session message header (S=1) of `t` with `seid`, sequence 77, and `ies`.
fn session_raw(t: u8, seid: u64, ies: &[u8]) -> Vec<u8> {
    let mut b = vec![0x21, t, 0, 0];
    b.extend(seid.to_be_bytes());
    b.extend([0, 0, 77, 0]);
    b.extend(ies);
    fix_length(b)
}

/// A node message header (S=0) of `t`, sequence 78, and `ies`.
fn node_raw(t: u8, ies: &[u8]) -> Vec<u8> {
    let mut b = vec![0x20, t, 0, 0, 0, 0, 78, 0];
    b.extend(ies);
    fix_length(b)
}

fn ie<T: TypedIe>(v: &T) -> Vec<u8> {
    v.to_ie_bytes().unwrap()
}

const EST_RSP: MessageType = MessageType::SESSION_ESTABLISHMENT_RESPONSE;
const MOD_RSP: MessageType = MessageType::SESSION_MODIFICATION_RESPONSE;
const DEL_RSP: MessageType = MessageType::SESSION_DELETION_RESPONSE;

fn rejected(t: MessageType, seid: u64, cause: Cause, offending: Option<IeType>) -> Answer {
    Some((t, Some(Seid(seid)), Some(cause.0), offending))
}

fn node_rejected(t: MessageType, cause: Cause) -> Answer {
    Some((t, None, Some(cause.0), None))
}

#[test]
fn out_of_place_and_malformed_requests_get_their_cause_or_are_dropped() {
    let (mut u, now) = associated();
    let (_, r) = establish(&mut u, now, plan(0).establishment_request(), 2);
    assert_eq!(r.cause, Cause::REQUEST_ACCEPTED);
    let cases: Vec<Case> = broken_header_cases()
        .into_iter()
        .chain(unserved_message_cases())
        .chain(missing_or_broken_ie_cases())
        .collect();
    let before = u.stats();
    let n = cases.len() as u64;
    for (what, bytes, expected) in cases {
        assert_eq!(answer(&mut u, now, cp_addr(), &bytes), expected, "{what}");
    }
    let s = u.stats();
    assert_eq!(s.datagrams_received - before.datagrams_received, n);
    // The three responses, and the unknown type (not a request type, so a response to none).
    assert_eq!(s.unmatched_responses - before.unmatched_responses, 4);
    assert_eq!(s.rejected - before.rejected, 9);
    // None of it touched the session it holds, and it goes on serving.
    assert_eq!(u.rules().len(), 1);
    let (_, r) = establish(&mut u, now, plan(1).establishment_request(), 3);
    assert_eq!(r.cause, Cause::REQUEST_ACCEPTED);
    assert_eq!(u.rules().len(), 2);
}

/// One row: what is sent, its bytes, and what the UPF must answer.
type Case = (&'static str, Vec<u8>, Answer);

/// The Node ID and CP F-SEID IEs of the CP function, and both one after the other.
fn cp_ies() -> (Vec<u8>, Vec<u8>, Vec<u8>) {
    let node_id = ie(&NodeId::Ipv4(CP));
    let fseid = ie(&Fseid::ipv4(Seid(9), CP));
    let both = [node_id.clone(), fseid.clone()].concat();
    (node_id, fseid, both)
}

/// Headers that do not parse, and another version.
fn broken_header_cases() -> Vec<Case> {
    let (_, _, both) = cp_ies();
    let mut too_long = session_raw(50, 0, &both);
    too_long[3] += 40;
    let mut too_short = session_raw(50, 0, &both);
    too_short[2..4].copy_from_slice(&4u16.to_be_bytes());
    let mut version2 = node_raw(1, &ie(&CP_TS));
    version2[0] = 0x40;
    vec![
        // Headers that do not parse (§7.2.2.2): dropped.
        ("an empty datagram", vec![], None),
        ("a header cut at 3 octets", vec![0x21, 50, 0], None),
        ("a length beyond the datagram", too_long, None),
        ("a length short of the header", too_short, None),
        // Another version (§7.2.2.1): Version Not Supported Response.
        (
            "a version 2 request",
            version2,
            Some((
                MessageType::VERSION_NOT_SUPPORTED_RESPONSE,
                None,
                None,
                None,
            )),
        ),
    ]
}

/// Messages a UPF does not serve, responses where a request is expected, and session and node
/// headers swapped: all dropped.
fn unserved_message_cases() -> Vec<Case> {
    let (node_id, _, both) = cp_ies();
    vec![
        // Message types not known or not served by a UPF (§7.2.2.3): dropped.
        ("an unknown message type (99)", node_raw(99, &node_id), None),
        ("a PFD Management Request", node_raw(3, &node_id), None),
        (
            "a Node Report Request (a UPF's own)",
            node_raw(12, &node_id),
            None,
        ),
        (
            "a Session Set Deletion Request",
            node_raw(14, &node_id),
            None,
        ),
        (
            "a Session Report Request (a UPF's own)",
            session_raw(56, 1, &[]),
            None,
        ),
        // Responses where a request is expected (§7.2.2.4): dropped, counted unmatched.
        ("an Association Setup Response", node_raw(6, &node_id), None),
        (
            "a Session Establishment Response",
            session_raw(51, 9, &[]),
            None,
        ),
        ("a Heartbeat Response", node_raw(2, &ie(&CP_TS)), None),
        // A session message with a node header, and the other way round: dropped.
        (
            "an Establishment Request without SEID (S=0)",
            node_raw(50, &both),
            None,
        ),
        (
            "a Modification Request without SEID (S=0)",
            node_raw(52, &[]),
            None,
        ),
        (
            "an Association Setup Request with an SEID (S=1)",
            session_raw(5, 1, &node_id),
            None,
        ),
    ]
}

/// Requests missing mandatory IEs, with a broken IE, for sessions the UPF does not hold, and a
/// Heartbeat Request without its stamp: each gets its Cause.
fn missing_or_broken_ie_cases() -> Vec<Case> {
    let (node_id, fseid, both) = cp_ies();
    let mut broken = both.clone();
    // The Node ID's length runs past the message.
    broken[3] = 200;
    let missing = Cause::MANDATORY_IE_MISSING;
    vec![
        // Mandatory IEs missing (§7.2.2.4.1): Cause 66 and the IE, the header naming the
        // session when its CP F-SEID could be read, SEID 0 when not.
        (
            "an Establishment Request without Node ID",
            session_raw(50, 0, &fseid),
            rejected(EST_RSP, 9, missing, Some(IeType::NODE_ID)),
        ),
        (
            "an Establishment Request without CP F-SEID",
            session_raw(50, 0, &node_id),
            rejected(EST_RSP, 0, missing, Some(IeType::F_SEID)),
        ),
        (
            "an Establishment Request without Create PDR",
            session_raw(50, 0, &both),
            rejected(EST_RSP, 9, missing, Some(IeType::CREATE_PDR)),
        ),
        (
            "an Association Setup Request without Node ID (the response has no Offending IE)",
            node_raw(5, &ie(&CP_TS)),
            node_rejected(MessageType::ASSOCIATION_SETUP_RESPONSE, missing),
        ),
        (
            "an Association Release Request without Node ID",
            node_raw(9, &[]),
            node_rejected(MessageType::ASSOCIATION_RELEASE_RESPONSE, missing),
        ),
        // An IE whose length is wrong (§7.2.2.4.2): Cause 68 and the IE.
        (
            "an Establishment Request whose Node ID runs past the message",
            session_raw(50, 0, &broken),
            rejected(EST_RSP, 0, Cause::INVALID_LENGTH, Some(IeType::NODE_ID)),
        ),
        // A session the UPF does not hold (§7.2.2.4.2): Cause 65, SEID 0 in the header.
        (
            "a Modification Request for an unknown SEID",
            session_raw(52, 12_345, &[]),
            rejected(MOD_RSP, 0, Cause::SESSION_CONTEXT_NOT_FOUND, None),
        ),
        (
            "a Deletion Request for an unknown SEID",
            session_raw(54, 12_345, &[]),
            rejected(DEL_RSP, 0, Cause::SESSION_CONTEXT_NOT_FOUND, None),
        ),
        (
            "a Deletion Request for SEID 0",
            session_raw(54, 0, &[]),
            rejected(DEL_RSP, 0, Cause::SESSION_CONTEXT_NOT_FOUND, None),
        ),
        // A Heartbeat Request without its Recovery Time Stamp: its response has no Cause, and
        // answering costs nothing (the peer learns we are alive).
        (
            "a Heartbeat Request without Recovery Time Stamp",
            node_raw(1, &[]),
            Some((MessageType::HEARTBEAT_RESPONSE, None, None, None)),
        ),
    ]
}

#[test]
fn before_the_association_session_requests_get_cause_72_and_no_session_is_made() {
    let mut u = Upf::new(upf_config());
    let now = Instant::now();
    let cases: Vec<(&str, Vec<u8>, Answer)> = vec![
        (
            "an Establishment Request",
            establishment(plan(0).establishment_request(), 1),
            rejected(
                EST_RSP,
                plan(0).cp_seid().0,
                Cause::NO_ESTABLISHED_PFCP_ASSOCIATION,
                None,
            ),
        ),
        (
            "a Modification Request",
            session_raw(52, 1, &[]),
            rejected(MOD_RSP, 0, Cause::NO_ESTABLISHED_PFCP_ASSOCIATION, None),
        ),
        (
            "a Deletion Request",
            session_raw(54, 1, &[]),
            rejected(DEL_RSP, 0, Cause::NO_ESTABLISHED_PFCP_ASSOCIATION, None),
        ),
        (
            "an Association Release Request",
            node_raw(9, &ie(&NodeId::Ipv4(CP))),
            node_rejected(
                MessageType::ASSOCIATION_RELEASE_RESPONSE,
                Cause::NO_ESTABLISHED_PFCP_ASSOCIATION,
            ),
        ),
    ];
    for (what, bytes, expected) in cases {
        assert_eq!(answer(&mut u, now, cp_addr(), &bytes), expected, "{what}");
    }
    assert!(u.rules().is_empty());
    assert_eq!(u.poll_event(), None);
}
