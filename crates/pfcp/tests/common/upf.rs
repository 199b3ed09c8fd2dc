//! Driving the UPF side alone: one datagram in, one response out; an associated UPF; session
//! requests and their responses.

use std::net::{Ipv4Addr, SocketAddr};
use std::time::Instant;

use upfbench_pfcp::ie::*;
use upfbench_pfcp::message::*;
use upfbench_pfcp::node::{Upf, UpfConfig};
use upfbench_pfcp::plan::{UeSessionPlan, UplinkTeid};
use upfbench_pfcp::{Message, MessageBody, Seid, SequenceNumber};

use super::net::*;

pub fn seq(n: u32) -> SequenceNumber {
    SequenceNumber::new(n).unwrap()
}

/// Feeds one datagram and returns the one response it produced.
pub fn exchange(u: &mut Upf, now: Instant, from: SocketAddr, bytes: &[u8]) -> (Message, Vec<u8>) {
    u.handle_datagram(now, from, bytes);
    let t = u.poll_transmit().expect("a response");
    assert_eq!(t.destination, from);
    assert!(u.poll_transmit().is_none());
    (Message::parse(&t.contents).unwrap(), t.contents)
}

pub fn setup_request(node: Ipv4Addr, ts: NtpTimestamp, n: u32) -> Vec<u8> {
    Message::node(seq(n), AssociationSetupRequest::new(NodeId::Ipv4(node), ts))
        .to_vec()
        .unwrap()
}

pub fn associated() -> (Upf, Instant) {
    associated_with(upf_config())
}

pub fn associated_with(config: UpfConfig) -> (Upf, Instant) {
    let mut u = Upf::new(config);
    let now = Instant::now();
    let (m, _) = exchange(&mut u, now, cp_addr(), &setup_request(CP, CP_TS, 1));
    let MessageBody::AssociationSetupResponse(r) = m.body else {
        panic!()
    };
    assert_eq!(r.cause, Cause::REQUEST_ACCEPTED);
    while u.poll_event().is_some() {}
    (u, now)
}

pub fn establishment(req: SessionEstablishmentRequest, n: u32) -> Vec<u8> {
    Message::session(Seid(0), seq(n), req).to_vec().unwrap()
}

pub fn establish(
    u: &mut Upf,
    now: Instant,
    req: SessionEstablishmentRequest,
    n: u32,
) -> (Seid, SessionEstablishmentResponse) {
    let (m, _) = exchange(u, now, cp_addr(), &establishment(req, n));
    let MessageBody::SessionEstablishmentResponse(r) = m.body else {
        panic!("{m:?}")
    };
    (m.seid.unwrap(), r)
}

/// Cause, Offending IE, Failed Rule ID.
pub type Expected = (u8, Option<IeType>, Option<FailedRuleId>);

pub fn rejection(r: &SessionEstablishmentResponse) -> Expected {
    assert!(r.up_f_seid.is_none());
    (r.cause.0, r.offending_ie.map(|o| o.0), r.failed_rule_id)
}

pub fn modification(seid: Seid, req: SessionModificationRequest, n: u32) -> Vec<u8> {
    Message::session(seid, seq(n), req).to_vec().unwrap()
}

pub fn modify(
    u: &mut Upf,
    now: Instant,
    seid: Seid,
    req: SessionModificationRequest,
    n: u32,
) -> (Seid, SessionModificationResponse) {
    let (m, _) = exchange(u, now, cp_addr(), &modification(seid, req, n));
    let MessageBody::SessionModificationResponse(r) = m.body else {
        panic!("{m:?}")
    };
    (m.seid.unwrap(), r)
}

/// Session `i`'s plan with the uplink TEID left to the UPF (CHOOSE F-TEID).
pub fn chosen(i: u32) -> UeSessionPlan {
    let mut p = plan(i);
    p.ue.uplink_teid = UplinkTeid::ChosenByUpf;
    p
}
