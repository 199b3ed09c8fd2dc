//! The peer-facing machinery both roles share: our requests in flight (T1/N1), the response
//! cache for the peer's requests, heartbeats both ways, the peer's Recovery Time Stamp, the
//! outgoing queue and the counters.
//!
//! A role ([`Client`](super::Client), [`Upf`](super::Upf)) embeds an [`Endpoint`] and implements
//! [`Role`]: [`handle_datagram`] and [`handle_timeout`] do the shared part and call the role only
//! for what needs its knowledge: the peer's other requests, the responses to its procedures, a
//! Recovery Time Stamp to compare, a request of its that failed.

use core::net::{IpAddr, SocketAddr};
use std::collections::VecDeque;
use std::time::Instant;

use super::Transmit;
use super::config::Config;
use super::error::{NodeError, Procedure};
use super::heartbeat::{HeartbeatSchedule, PeerRecovery, Restart};
use super::stats::Stats;
use super::transactions::{Pending, RetransmitLimit, Transactions};
use crate::error::{DecodeError, EmitError};
use crate::header::{self, Header, field};
use crate::ie::NtpTimestamp;
use crate::message::{HeartbeatRequest, HeartbeatResponse, VersionNotSupportedResponse};
use crate::types::SequenceNumber;
use crate::{Message, MessageBody, MessageType};

pub(crate) fn encode(m: &Message) -> Result<Vec<u8>, EmitError> {
    m.to_vec()
}

/// A request of the peer, for the role to answer.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Request<'a> {
    pub(crate) remote: SocketAddr,
    pub(crate) t: MessageType,
    pub(crate) seq: SequenceNumber,
    pub(crate) msg: &'a [u8],
}

/// The shared part of a node. `P` is what the role attaches to each of its requests.
#[derive(Debug)]
pub(crate) struct Endpoint<P> {
    /// The one peer whose Recovery Time Stamp counts (the UPF, or the CP function).
    peer: IpAddr,
    /// Ours, fixed for the run.
    recovery_time_stamp: NtpTimestamp,
    /// The peer's, as last seen.
    pub(crate) recovery: PeerRecovery,
    pub(crate) heartbeat: HeartbeatSchedule,
    pub(crate) transactions: Transactions<P>,
    pub(crate) cache: super::cache::ResponseCache,
    pub(crate) stats: Stats,
    transmits: VecDeque<Transmit>,
    expired: Vec<(SequenceNumber, Pending<P>)>,
}

impl<P> Endpoint<P> {
    pub(crate) fn new(config: &Config, peer: IpAddr) -> Self {
        Endpoint {
            peer,
            recovery_time_stamp: config.recovery_time_stamp,
            recovery: PeerRecovery::default(),
            heartbeat: HeartbeatSchedule::new(config.heartbeat_interval),
            transactions: Transactions::new(config.t1, config.n1, config.first_sequence),
            cache: super::cache::ResponseCache::new(config.cache_ttl()),
            stats: Stats::default(),
            transmits: VecDeque::new(),
            expired: Vec::new(),
        }
    }

    /// The counters, with those the transactions keep.
    pub(crate) fn stats(&self) -> Stats {
        Stats {
            requests_sent: self.transactions.sent,
            retransmissions: self.transactions.retransmissions,
            ..self.stats
        }
    }

    pub(crate) fn transmit(&mut self, destination: SocketAddr, contents: Vec<u8>) {
        self.transmits.push_back(Transmit {
            destination,
            contents,
        });
    }

    pub(crate) fn poll_transmit(&mut self) -> Option<Transmit> {
        let t = self.transmits.pop_front()?;
        self.stats.datagrams_sent += 1;
        Some(t)
    }

    /// The earliest of the retransmission and heartbeat deadlines.
    pub(crate) fn poll_timeout(&mut self) -> Option<Instant> {
        let t = self.transactions.poll_timeout();
        match (t, self.heartbeat.poll_timeout()) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    /// Numbers and sends an encoded request to `peer`; T1 starts now.
    pub(crate) fn start(&mut self, now: Instant, peer: SocketAddr, bytes: Vec<u8>, tag: P) {
        self.transactions
            .start(now, peer, bytes, tag, &mut self.transmits);
    }

    /// Like [`start`](Self::start), sent once and given up after `wait` with no
    /// retransmission: for requests real peers do not answer (Association Release).
    pub(crate) fn start_once(
        &mut self,
        now: Instant,
        peer: SocketAddr,
        bytes: Vec<u8>,
        tag: P,
        wait: core::time::Duration,
    ) {
        self.transactions
            .start_with(now, peer, bytes, tag, &mut self.transmits, wait, 0);
    }

    /// Sends a Heartbeat Request to `peer` now, whatever the schedule (it books the schedule's
    /// one request in flight).
    pub(crate) fn heartbeat_now(&mut self, now: Instant, peer: SocketAddr, tag: P) {
        self.heartbeat.book();
        let hb = HeartbeatRequest::new(self.recovery_time_stamp);
        if let Ok(bytes) = encode(&Message::node(SequenceNumber::default(), hb)) {
            self.start(now, peer, bytes, tag);
        }
    }

    /// Sends our Heartbeat Request to `peer` when the schedule says it is time.
    pub(crate) fn heartbeat_if_due(
        &mut self,
        now: Instant,
        peer: SocketAddr,
        tag: impl FnOnce() -> P,
    ) {
        if !self.heartbeat.due(now) {
            return;
        }
        let hb = HeartbeatRequest::new(self.recovery_time_stamp);
        if let Ok(bytes) = encode(&Message::node(SequenceNumber::default(), hb)) {
            self.start(now, peer, bytes, tag());
        }
    }

    /// Records the peer's Recovery Time Stamp. A change means it restarted: its cached
    /// responses are forgotten (its sequence numbers start again), our heartbeats stop, and
    /// the restart is returned for the role to drop what the peer lost.
    pub(crate) fn observe_recovery(
        &mut self,
        now: Instant,
        remote: SocketAddr,
        ts: NtpTimestamp,
    ) -> Option<Restart> {
        if remote.ip() != self.peer {
            return None;
        }
        let restart = self.recovery.observe(now, ts)?;
        self.cache.forget(remote.ip());
        self.heartbeat.stop();
        Some(restart)
    }

    /// Starts over as a node that restarted: a new Recovery Time Stamp of ours, nothing known
    /// of the peer, no request in flight, no response held, no heartbeat scheduled.
    pub(crate) fn restart(&mut self, recovery_time_stamp: NtpTimestamp) {
        self.recovery_time_stamp = recovery_time_stamp;
        self.recovery = PeerRecovery::default();
        self.transactions.clear();
        self.cache.clear();
        self.heartbeat.stop();
        self.transmits.clear();
    }

    /// Answers a Heartbeat Request: always, with the same sequence number and our fixed
    /// Recovery Time Stamp; never cached (answering twice is harmless).
    fn answer_heartbeat(&mut self, remote: SocketAddr, seq: SequenceNumber) {
        let rsp = HeartbeatResponse::new(self.recovery_time_stamp);
        if let Ok(bytes) = encode(&Message::node(seq, rsp)) {
            self.stats.heartbeats_answered += 1;
            self.transmit(remote, bytes);
        }
    }

    /// Sends again the response to a request already answered; whether it was one.
    fn replay(
        &mut self,
        now: Instant,
        remote: SocketAddr,
        seq: SequenceNumber,
        msg: &[u8],
    ) -> bool {
        let Some(rsp) = self.cache.lookup(now, remote, seq, msg) else {
            return false;
        };
        self.stats.answered_from_cache += 1;
        self.transmit(remote, rsp);
        true
    }

    /// Sends the response to the peer's request and keeps it for the request's
    /// retransmissions; `false` when it cannot be encoded.
    pub(crate) fn respond(&mut self, now: Instant, req: Request<'_>, response: &Message) -> bool {
        let Ok(bytes) = encode(response) else {
            return false;
        };
        self.cache
            .insert(now, req.remote, req.seq, req.msg, bytes.clone());
        self.transmit(req.remote, bytes);
        true
    }
}

/// Version, type and sequence number of a message whose header did not pass the check, read
/// with version 1's layout as far as the octets go.
fn foreign_header(bytes: &[u8]) -> Option<(u8, MessageType, SequenceNumber)> {
    let flags = *bytes.first()?;
    let t = MessageType(*bytes.get(field::MESSAGE_TYPE)?);
    let at = if flags & 1 != 0 {
        field::SEQUENCE_SESSION
    } else {
        field::SEQUENCE_NODE
    };
    let s = bytes.get(at..at + 3)?;
    let seq = SequenceNumber::from_masked(u32::from_be_bytes([0, s[0], s[1], s[2]]));
    Some((flags >> 5, t, seq))
}

/// A node role: owns an [`Endpoint`] and gives meaning to what the endpoint cannot.
pub(crate) trait Role {
    /// What the role attaches to its requests.
    type Tag;

    fn endpoint(&mut self) -> &mut Endpoint<Self::Tag>;

    /// The procedure a request of ours belongs to.
    fn procedure(tag: &Self::Tag) -> Procedure;

    /// The peer's Recovery Time Stamp, from a Heartbeat Request or Response, to compare.
    fn on_recovery(&mut self, now: Instant, remote: SocketAddr, ts: NtpTimestamp);

    /// A request of the peer to answer (with [`Endpoint::respond`]); heartbeats and
    /// retransmissions of answered requests do not come here.
    fn on_request(&mut self, now: Instant, req: Request<'_>);

    /// The response to one of our requests other than a heartbeat.
    fn on_response(&mut self, now: Instant, seq: SequenceNumber, p: Pending<Self::Tag>, msg: &[u8]);

    /// One of our requests ended without a usable response: [`NodeError::Timeout`] after N1
    /// retransmissions, or [`NodeError::VersionNotSupported`].
    fn on_failed(&mut self, tag: Self::Tag, error: NodeError);

    /// The peer answered one of our Heartbeat Requests (after [`Self::on_recovery`]).
    fn on_heartbeat_answered(&mut self) {}
}

/// Feeds a datagram from `remote` to a role, message by message.
pub(crate) fn handle_datagram<R: Role>(
    role: &mut R,
    now: Instant,
    remote: SocketAddr,
    bytes: &[u8],
) {
    role.endpoint().stats.datagrams_received += 1;
    for msg in Messages::new(bytes) {
        match msg {
            Ok(msg) => handle_message(role, now, remote, msg),
            Err(_) => handle_unreadable(role, remote, bytes),
        }
    }
}

fn handle_message<R: Role>(role: &mut R, now: Instant, remote: SocketAddr, msg: &[u8]) {
    let h = Header::new_unchecked(msg);
    let (t, seq) = (h.message_type(), h.sequence());
    let e = role.endpoint();
    if t.is_request() {
        if t == MessageType::HEARTBEAT_REQUEST {
            e.answer_heartbeat(remote, seq);
            if let Ok(Message {
                body: MessageBody::HeartbeatRequest(r),
                ..
            }) = Message::parse(msg)
            {
                role.on_recovery(now, remote, r.recovery_time_stamp);
            }
        } else if !e.replay(now, remote, seq, msg) {
            role.on_request(
                now,
                Request {
                    remote,
                    t,
                    seq,
                    msg,
                },
            );
        }
        return;
    }
    let Some(pending) = e.transactions.answer(seq, remote.ip(), t) else {
        e.stats.unmatched_responses += 1;
        return;
    };
    if t == MessageType::VERSION_NOT_SUPPORTED_RESPONSE {
        return version_not_supported(role, seq, pending, h.version());
    }
    if pending.response_type != MessageType::HEARTBEAT_RESPONSE {
        return role.on_response(now, seq, pending, msg);
    }
    e.heartbeat.settled();
    match Message::parse(msg) {
        Ok(Message {
            body: MessageBody::HeartbeatResponse(r),
            ..
        }) => {
            role.on_recovery(now, remote, r.recovery_time_stamp);
            role.on_heartbeat_answered();
        }
        _ => role.endpoint().stats.invalid += 1,
    }
}

/// A datagram whose header did not pass the check. A Version Not Supported Response in the
/// peer's own version still ends our request; a request in another version is answered with
/// one (TS 29.244 §7.2.2.1); anything else is counted invalid.
fn handle_unreadable<R: Role>(role: &mut R, remote: SocketAddr, bytes: &[u8]) {
    let e = role.endpoint();
    if let Some((version, t, seq)) = foreign_header(bytes)
        && version != header::VERSION
    {
        if t == MessageType::VERSION_NOT_SUPPORTED_RESPONSE
            && let Some(pending) = e.transactions.answer(seq, remote.ip(), t)
        {
            return version_not_supported(role, seq, pending, version);
        }
        if t.is_request()
            && let Ok(rsp) = encode(&Message::node(seq, VersionNotSupportedResponse::default()))
        {
            e.transmit(remote, rsp);
        }
    }
    e.stats.invalid += 1;
}

fn version_not_supported<R: Role>(
    role: &mut R,
    seq: SequenceNumber,
    p: Pending<R::Tag>,
    version: u8,
) {
    if p.response_type == MessageType::HEARTBEAT_RESPONSE {
        role.endpoint().heartbeat.settled();
    }
    let error = NodeError::VersionNotSupported {
        procedure: R::procedure(&p.procedure),
        peer: p.peer,
        seq,
        version,
    };
    role.on_failed(p.procedure, error);
}

/// Retransmits what is due and fails the requests given up.
pub(crate) fn handle_timeout<R: Role>(
    role: &mut R,
    now: Instant,
    limit: Option<&mut RetransmitLimit<R::Tag>>,
) {
    let e = role.endpoint();
    let mut expired = core::mem::take(&mut e.expired);
    e.transactions
        .handle_timeout(now, &mut e.transmits, &mut expired, limit);
    for (seq, p) in expired.drain(..) {
        let e = role.endpoint();
        // The release is best effort (real UPFs never answer it): not a timeout of the run.
        if p.response_type == MessageType::ASSOCIATION_RELEASE_RESPONSE {
            e.stats.releases_unanswered += 1;
        } else {
            e.stats.timeouts += 1;
        }
        if p.response_type == MessageType::HEARTBEAT_RESPONSE {
            e.heartbeat.settled();
        }
        let error = NodeError::Timeout {
            procedure: R::procedure(&p.procedure),
            peer: p.peer,
            seq,
            attempts: p.transmissions,
        };
        role.on_failed(p.procedure, error);
    }
    role.endpoint().expired = expired;
}

/// The messages of a datagram as slices, one per checked header, following FO.
struct Messages<'a> {
    rest: &'a [u8],
    done: bool,
}

impl<'a> Messages<'a> {
    fn new(bytes: &'a [u8]) -> Self {
        Messages {
            rest: bytes,
            done: false,
        }
    }
}

impl<'a> Iterator for Messages<'a> {
    type Item = Result<&'a [u8], DecodeError>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.done {
            return None;
        }
        let h = match Header::new_checked(self.rest) {
            Ok(h) => h,
            Err(e) => {
                self.done = true;
                return Some(Err(e));
            }
        };
        let (msg, rest) = self.rest.split_at(h.message_len());
        self.done = !h.fo_flag() || rest.is_empty();
        self.rest = rest;
        Some(Ok(msg))
    }
}
