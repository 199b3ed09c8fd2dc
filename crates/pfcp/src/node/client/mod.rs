//! The CP side, as the traffic generator drives a UPF: association, heartbeats, and sessions
//! established, modified and deleted many at a time through a window.

mod session;

pub use session::{Session, SessionState};

use core::net::SocketAddr;
use std::collections::{HashMap, VecDeque};
use std::time::Instant;

use super::cache::ResponseCache;
use super::config::ClientConfig;
use super::error::{Error, Procedure};
use super::heartbeat::{HeartbeatSchedule, PeerRecovery, Restart};
use super::stats::Stats;
use super::transactions::{Pending, Transactions};
use super::{Messages, Transmit, encode, invalid_body, version_not_supported};
use crate::error::Error as DecodeError;
use crate::header::Header;
use crate::ie::{Cause, Fteid, NtpTimestamp, SourceInterface, UpFunctionFeatures};
use crate::message::{
    AssociationReleaseRequest, AssociationReleaseResponse, AssociationSetupRequest,
    AssociationSetupResponse, HeartbeatRequest, HeartbeatResponse, MessageType,
    SessionDeletionRequest, SessionEstablishmentRequest, SessionModificationRequest,
    SessionReportRequest, SessionReportResponse,
};
use crate::plan::UeSessionPlan;
use crate::types::{Seid, SequenceNumber};
use crate::{Message, MessageBody};

/// Where the association with the UPF stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum AssociationState {
    /// Not associated.
    Idle,
    /// An Association Setup Request is in flight.
    SettingUp,
    /// Associated: session procedures may run, heartbeats go out on schedule.
    Associated,
    /// An Association Release Request is in flight.
    Releasing,
}

/// What the client reports, in the order it happened.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Event {
    /// The UPF accepted our Association Setup Request (or set one up itself).
    Associated {
        /// The UPF.
        peer: SocketAddr,
        /// Its Recovery Time Stamp.
        recovery_time_stamp: NtpTimestamp,
        /// Its UP Function Features, when it sent them.
        up_function_features: Option<UpFunctionFeatures>,
    },
    /// A session was established.
    Established(Session),
    /// A session was modified.
    Modified(Session),
    /// A session was deleted (and left the table).
    Deleted(Session),
    /// Our Association Release was accepted; the table is empty.
    Released,
    /// A procedure failed: rejected, timed out, invalid response, or aborted.
    Failed(Error),
    /// The UPF's Recovery Time Stamp changed: it restarted and lost our sessions, which left
    /// the table; the association must be set up again.
    PeerRestarted {
        /// The UPF.
        peer: SocketAddr,
        /// The value seen before.
        previous: NtpTimestamp,
        /// The new value.
        current: NtpTimestamp,
        /// Sessions dropped from the table.
        sessions_lost: usize,
    },
    /// One of our Heartbeat Requests got no response after N1 retransmissions.
    HeartbeatLost {
        /// The UPF.
        peer: SocketAddr,
        /// The request's sequence number.
        seq: SequenceNumber,
    },
    /// The UPF released the association; its sessions left the table.
    PeerReleased {
        /// The UPF.
        peer: SocketAddr,
        /// Sessions dropped from the table.
        sessions_lost: usize,
    },
    /// The UPF sent a Session Report Request (answered with Request accepted).
    SessionReport {
        /// The session.
        cp_seid: Seid,
        /// The report.
        request: SessionReportRequest,
    },
}

/// A request's tag: its procedure and the session epoch it belongs to (the table is cleared,
/// and the epoch bumped, when the UPF restarts or the association ends).
#[derive(Debug, Clone, Copy)]
struct Op {
    procedure: Procedure,
    epoch: u64,
}

#[derive(Debug)]
struct Queued {
    procedure: Procedure,
    bytes: Vec<u8>,
}

/// The CP-side node. See the [module documentation](super) for the calling pattern.
#[derive(Debug)]
pub struct Client {
    config: ClientConfig,
    state: AssociationState,
    recovery: PeerRecovery,
    heartbeat: HeartbeatSchedule,
    transactions: Transactions<Op>,
    cache: ResponseCache,
    sessions: HashMap<Seid, Session>,
    epoch: u64,
    queue: VecDeque<Queued>,
    in_flight: usize,
    transmits: VecDeque<Transmit>,
    events: VecDeque<Event>,
    stats: Stats,
    expired: Vec<(SequenceNumber, Pending<Op>)>,
}

const FORGOTTEN: &str = "the session left the table (UPF restarted or association ended)";

impl Client {
    /// A client that is not associated yet.
    pub fn new(config: ClientConfig) -> Self {
        let n = &config.node;
        Client {
            state: AssociationState::Idle,
            recovery: PeerRecovery::default(),
            heartbeat: HeartbeatSchedule::new(n.heartbeat_interval),
            transactions: Transactions::new(n.t1, n.n1, n.first_sequence),
            cache: ResponseCache::new(n.cache_ttl()),
            sessions: HashMap::new(),
            epoch: 0,
            queue: VecDeque::new(),
            in_flight: 0,
            transmits: VecDeque::new(),
            events: VecDeque::new(),
            stats: Stats::default(),
            expired: Vec::new(),
            config,
        }
    }

    /// The configuration.
    pub fn config(&self) -> &ClientConfig {
        &self.config
    }

    /// The association's state.
    pub fn association_state(&self) -> AssociationState {
        self.state
    }

    /// The UPF's Recovery Time Stamp as last seen.
    pub fn peer_recovery_time_stamp(&self) -> Option<NtpTimestamp> {
        self.recovery.get()
    }

    /// A session by CP SEID.
    pub fn session(&self, cp_seid: Seid) -> Option<&Session> {
        self.sessions.get(&cp_seid)
    }

    /// All sessions, in no particular order.
    pub fn sessions(&self) -> impl Iterator<Item = &Session> + '_ {
        self.sessions.values()
    }

    /// Sessions in the table.
    pub fn session_count(&self) -> usize {
        self.sessions.len()
    }

    /// Session requests in flight (at most the window).
    pub fn in_flight(&self) -> usize {
        self.in_flight
    }

    /// All our requests in flight (session, association and heartbeat).
    pub fn pending_requests(&self) -> usize {
        self.transactions.len()
    }

    /// Session requests waiting for room in the window.
    pub fn queued(&self) -> usize {
        self.queue.len()
    }

    /// The counters.
    pub fn stats(&self) -> Stats {
        Stats {
            requests_sent: self.transactions.sent,
            retransmissions: self.transactions.retransmissions,
            ..self.stats
        }
    }

    /// Sends an Association Setup Request (Node ID, our Recovery Time Stamp).
    pub fn associate(&mut self, now: Instant) -> Result<(), Error> {
        let procedure = Procedure::AssociationSetup;
        if matches!(
            self.state,
            AssociationState::SettingUp | AssociationState::Releasing
        ) {
            return Err(Error::Busy {
                procedure,
                state: "another association procedure is in flight",
            });
        }
        let n = &self.config.node;
        let req = AssociationSetupRequest::new(n.node_id.clone(), n.recovery_time_stamp);
        let bytes = encode(&Message::node(SequenceNumber::default(), req))
            .map_err(|error| Error::Encode { procedure, error })?;
        self.send_now(now, procedure, bytes);
        self.state = AssociationState::SettingUp;
        Ok(())
    }

    /// Queues the Session Establishment Request of a UE's plan; returns its CP SEID.
    pub fn establish(&mut self, now: Instant, plan: &UeSessionPlan) -> Result<Seid, Error> {
        self.establish_request(now, plan.establishment_request())
    }

    /// Queues any Session Establishment Request (sent with SEID 0 in the header); the CP SEID
    /// of its CP F-SEID names the session. Its Node ID is set to ours: Open5GS matches session
    /// requests to the association by it.
    pub fn establish_request(
        &mut self,
        now: Instant,
        mut request: SessionEstablishmentRequest,
    ) -> Result<Seid, Error> {
        request.node_id.clone_from(&self.config.node.node_id);
        let cp_seid = request.cp_f_seid.seid;
        let procedure = Procedure::SessionEstablishment(cp_seid);
        self.require_association(procedure)?;
        if self.sessions.contains_key(&cp_seid) {
            return Err(Error::DuplicateSession { procedure });
        }
        let uplink = request.create_pdrs.iter().find(|p| {
            p.pdi.source_interface == SourceInterface::ACCESS && p.pdi.local_f_teid.is_some()
        });
        let session = Session {
            cp_seid,
            up_seid: None,
            up_address: None,
            state: SessionState::Establishing,
            uplink_f_teid: uplink.and_then(|p| p.pdi.local_f_teid),
            uplink_pdr: uplink.map(|p| p.pdr_id),
        };
        let bytes = encode(&Message::session(
            Seid(0),
            SequenceNumber::default(),
            request,
        ))
        .map_err(|error| Error::Encode { procedure, error })?;
        self.sessions.insert(cp_seid, session);
        self.queue.push_back(Queued { procedure, bytes });
        self.pump(now);
        Ok(cp_seid)
    }

    /// Queues a Session Modification Request for an established session (e.g.
    /// [`UeSessionPlan::path_switch_request`]).
    pub fn modify(
        &mut self,
        now: Instant,
        cp_seid: Seid,
        request: SessionModificationRequest,
    ) -> Result<(), Error> {
        let procedure = Procedure::SessionModification(cp_seid);
        let msg = |up| Message::session(up, SequenceNumber::default(), request);
        self.session_request(now, procedure, SessionState::Modifying, msg)
    }

    /// Queues a Session Deletion Request for an established session.
    pub fn delete(&mut self, now: Instant, cp_seid: Seid) -> Result<(), Error> {
        let procedure = Procedure::SessionDeletion(cp_seid);
        let msg = |up| {
            Message::session(
                up,
                SequenceNumber::default(),
                SessionDeletionRequest::default(),
            )
        };
        self.session_request(now, procedure, SessionState::Deleting, msg)
    }

    /// Sends an Association Release Request; on acceptance the table is emptied (the UPF
    /// deletes the association's sessions).
    pub fn release(&mut self, now: Instant) -> Result<(), Error> {
        let procedure = Procedure::AssociationRelease;
        self.require_association(procedure)?;
        let req = AssociationReleaseRequest::new(self.config.node.node_id.clone());
        let bytes = encode(&Message::node(SequenceNumber::default(), req))
            .map_err(|error| Error::Encode { procedure, error })?;
        self.send_now(now, procedure, bytes);
        self.state = AssociationState::Releasing;
        Ok(())
    }

    /// Feeds a datagram received from `remote`.
    pub fn handle_datagram(&mut self, now: Instant, remote: SocketAddr, bytes: &[u8]) {
        self.stats.datagrams_received += 1;
        for msg in Messages::new(bytes) {
            match msg {
                Ok(msg) => self.handle_message(now, remote, msg),
                Err(_) => {
                    self.stats.invalid += 1;
                    if let Some(rsp) = version_not_supported(bytes) {
                        self.transmit(remote, rsp);
                    }
                }
            }
        }
        self.pump(now);
    }

    /// Runs the timers that are due: retransmissions, give-ups, our heartbeats.
    pub fn handle_timeout(&mut self, now: Instant) {
        let mut expired = core::mem::take(&mut self.expired);
        self.transactions
            .handle_timeout(now, &mut self.transmits, &mut expired);
        for (seq, p) in expired.drain(..) {
            self.on_expired(seq, p);
        }
        self.expired = expired;
        if self.state == AssociationState::Associated && self.heartbeat.due(now) {
            let hb = HeartbeatRequest::new(self.config.node.recovery_time_stamp);
            if let Ok(bytes) = encode(&Message::node(SequenceNumber::default(), hb)) {
                self.send_now(now, Procedure::Heartbeat, bytes);
            }
        }
        self.pump(now);
    }

    /// The next datagram to send.
    pub fn poll_transmit(&mut self) -> Option<Transmit> {
        let t = self.transmits.pop_front()?;
        self.stats.datagrams_sent += 1;
        Some(t)
    }

    /// When [`Self::handle_timeout`] is to be called next.
    pub fn poll_timeout(&mut self) -> Option<Instant> {
        let t = self.transactions.poll_timeout();
        match (t, self.heartbeat.poll_timeout()) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    /// The next event.
    pub fn poll_event(&mut self) -> Option<Event> {
        self.events.pop_front()
    }

    fn require_association(&self, procedure: Procedure) -> Result<(), Error> {
        if self.state == AssociationState::Associated {
            Ok(())
        } else {
            Err(Error::NotAssociated {
                procedure,
                peer: self.config.upf,
            })
        }
    }

    fn session_request(
        &mut self,
        now: Instant,
        procedure: Procedure,
        next: SessionState,
        msg: impl FnOnce(Seid) -> Message,
    ) -> Result<(), Error> {
        self.require_association(procedure)?;
        let cp_seid = procedure.cp_seid().unwrap_or_default();
        let Some(s) = self.sessions.get_mut(&cp_seid) else {
            return Err(Error::UnknownSession { procedure });
        };
        let (SessionState::Established, Some(up)) = (s.state, s.up_seid) else {
            return Err(Error::Busy {
                procedure,
                state: s.state.describe(),
            });
        };
        let bytes = encode(&msg(up)).map_err(|error| Error::Encode { procedure, error })?;
        s.state = next;
        self.queue.push_back(Queued { procedure, bytes });
        self.pump(now);
        Ok(())
    }

    fn send_now(&mut self, now: Instant, procedure: Procedure, bytes: Vec<u8>) {
        let op = Op {
            procedure,
            epoch: self.epoch,
        };
        self.transactions
            .start(now, self.config.upf, bytes, op, &mut self.transmits);
    }

    fn pump(&mut self, now: Instant) {
        while self.in_flight < self.config.window.max(1) {
            let Some(q) = self.queue.pop_front() else {
                break;
            };
            self.send_now(now, q.procedure, q.bytes);
            self.in_flight += 1;
        }
    }

    fn transmit(&mut self, destination: SocketAddr, contents: Vec<u8>) {
        self.transmits.push_back(Transmit {
            destination,
            contents,
        });
    }

    /// Empties the table (the UPF no longer has the sessions) and aborts what is queued.
    fn forget_sessions(&mut self, reason: &'static str) -> usize {
        let n = self.sessions.len();
        self.sessions.clear();
        self.epoch += 1;
        for q in self.queue.drain(..) {
            self.events.push_back(Event::Failed(Error::Aborted {
                procedure: q.procedure,
                reason,
            }));
        }
        n
    }

    fn observe_recovery(&mut self, remote: SocketAddr, ts: NtpTimestamp) {
        if remote.ip() != self.config.upf.ip() {
            return;
        }
        if let Some(Restart { previous, current }) = self.recovery.observe(ts) {
            self.cache.forget(remote.ip());
            let sessions_lost = self.forget_sessions("the UPF restarted");
            if self.state == AssociationState::Associated {
                self.state = AssociationState::Idle;
            }
            self.heartbeat.stop();
            self.events.push_back(Event::PeerRestarted {
                peer: self.config.upf,
                previous,
                current,
                sessions_lost,
            });
        }
    }

    fn handle_message(&mut self, now: Instant, remote: SocketAddr, msg: &[u8]) {
        let h = Header::new_unchecked(msg);
        let (t, seq) = (h.message_type(), h.sequence());
        if t.is_request() {
            self.handle_request(now, remote, msg, t, seq);
            return;
        }
        let Some(p) = self.transactions.answer(seq, remote.ip(), t) else {
            self.stats.unmatched_responses += 1;
            return;
        };
        let peer = p.peer;
        let op = p.procedure;
        let parsed = Message::parse(msg).map(|m| m.body);
        match op.procedure {
            Procedure::AssociationSetup => self.on_setup_response(now, peer, seq, parsed),
            Procedure::AssociationRelease => self.on_release_response(peer, seq, parsed),
            Procedure::Heartbeat => {
                self.heartbeat.settled();
                match parsed {
                    Ok(MessageBody::HeartbeatResponse(r)) => {
                        self.observe_recovery(remote, r.recovery_time_stamp)
                    }
                    _ => self.stats.invalid += 1,
                }
            }
            Procedure::SessionEstablishment(cp) => {
                self.in_flight -= 1;
                self.on_establishment_response(op, cp, peer, seq, parsed)
            }
            Procedure::SessionModification(cp) | Procedure::SessionDeletion(cp) => {
                self.in_flight -= 1;
                self.on_session_response(op, cp, peer, seq, parsed)
            }
        }
    }

    fn fail(&mut self, e: Error) {
        self.events.push_back(Event::Failed(e));
    }

    fn on_setup_response(
        &mut self,
        now: Instant,
        peer: SocketAddr,
        seq: SequenceNumber,
        parsed: Result<MessageBody, DecodeError>,
    ) {
        let procedure = Procedure::AssociationSetup;
        if self.state == AssociationState::SettingUp {
            self.state = AssociationState::Idle;
        }
        let r = match parsed {
            Ok(MessageBody::AssociationSetupResponse(r)) => r,
            other => {
                let error = invalid_body(other);
                return self.fail(Error::InvalidResponse {
                    procedure,
                    peer,
                    seq,
                    error,
                });
            }
        };
        if !r.cause.is_accepted() {
            return self.fail(Error::Rejected {
                procedure,
                peer,
                seq,
                cause: r.cause,
                offending_ie: None,
                failed_rule: None,
            });
        }
        self.observe_recovery(peer, r.recovery_time_stamp);
        self.associated(now, peer, r.recovery_time_stamp, r.up_function_features);
    }

    fn associated(
        &mut self,
        now: Instant,
        peer: SocketAddr,
        recovery_time_stamp: NtpTimestamp,
        up_function_features: Option<UpFunctionFeatures>,
    ) {
        self.state = AssociationState::Associated;
        self.heartbeat.start(now);
        self.events.push_back(Event::Associated {
            peer,
            recovery_time_stamp,
            up_function_features,
        });
    }

    fn on_release_response(
        &mut self,
        peer: SocketAddr,
        seq: SequenceNumber,
        parsed: Result<MessageBody, DecodeError>,
    ) {
        let procedure = Procedure::AssociationRelease;
        let r = match parsed {
            Ok(MessageBody::AssociationReleaseResponse(r)) => r,
            other => {
                self.state = AssociationState::Associated;
                let error = invalid_body(other);
                return self.fail(Error::InvalidResponse {
                    procedure,
                    peer,
                    seq,
                    error,
                });
            }
        };
        if !r.cause.is_accepted() {
            self.state = AssociationState::Associated;
            return self.fail(Error::Rejected {
                procedure,
                peer,
                seq,
                cause: r.cause,
                offending_ie: None,
                failed_rule: None,
            });
        }
        self.forget_sessions("the association was released");
        self.state = AssociationState::Idle;
        self.heartbeat.stop();
        self.events.push_back(Event::Released);
    }

    fn on_establishment_response(
        &mut self,
        op: Op,
        cp: Seid,
        peer: SocketAddr,
        seq: SequenceNumber,
        parsed: Result<MessageBody, DecodeError>,
    ) {
        let procedure = op.procedure;
        if op.epoch != self.epoch {
            return self.fail(Error::Aborted {
                procedure,
                reason: FORGOTTEN,
            });
        }
        let r = match parsed {
            Ok(MessageBody::SessionEstablishmentResponse(r)) => r,
            other => {
                self.sessions.remove(&cp);
                let error = invalid_body(other);
                return self.fail(Error::InvalidResponse {
                    procedure,
                    peer,
                    seq,
                    error,
                });
            }
        };
        if !r.cause.is_accepted() {
            self.sessions.remove(&cp);
            return self.fail(Error::Rejected {
                procedure,
                peer,
                seq,
                cause: r.cause,
                offending_ie: r.offending_ie.map(|o| o.0),
                failed_rule: r.failed_rule_id,
            });
        }
        let Some(up) = r.up_f_seid else {
            self.sessions.remove(&cp);
            let error = DecodeError::missing(crate::ie::IeType::F_SEID, None, 0)
                .in_message(MessageType::SESSION_ESTABLISHMENT_RESPONSE);
            return self.fail(Error::InvalidResponse {
                procedure,
                peer,
                seq,
                error,
            });
        };
        let Some(s) = self.sessions.get_mut(&cp) else {
            return self.fail(Error::Aborted {
                procedure,
                reason: FORGOTTEN,
            });
        };
        s.up_seid = Some(up.seid);
        s.up_address = up.ipv4;
        s.state = SessionState::Established;
        if let (Some(pdr), Some(Fteid::Choose { .. })) = (s.uplink_pdr, s.uplink_f_teid)
            && let Some(f) = r
                .created_pdrs
                .iter()
                .find(|c| c.pdr_id == pdr)
                .and_then(|c| c.local_f_teid)
        {
            s.uplink_f_teid = Some(f);
        }
        let s = *s;
        self.stats.sessions_established += 1;
        self.events.push_back(Event::Established(s));
    }

    fn on_session_response(
        &mut self,
        op: Op,
        cp: Seid,
        peer: SocketAddr,
        seq: SequenceNumber,
        parsed: Result<MessageBody, DecodeError>,
    ) {
        let procedure = op.procedure;
        if op.epoch != self.epoch {
            return self.fail(Error::Aborted {
                procedure,
                reason: FORGOTTEN,
            });
        }
        let (cause, offending, failed_rule, created) = match parsed {
            Ok(MessageBody::SessionModificationResponse(r)) => {
                (r.cause, r.offending_ie, r.failed_rule_id, r.created_pdrs)
            }
            Ok(MessageBody::SessionDeletionResponse(r)) => {
                (r.cause, r.offending_ie, None, Vec::new())
            }
            other => {
                if let Some(s) = self.sessions.get_mut(&cp) {
                    s.state = SessionState::Established;
                }
                let error = invalid_body(other);
                return self.fail(Error::InvalidResponse {
                    procedure,
                    peer,
                    seq,
                    error,
                });
            }
        };
        let deletion = matches!(procedure, Procedure::SessionDeletion(_));
        if !cause.is_accepted() {
            // The UPF does not know the session: keeping it would only fail again.
            if deletion && cause == Cause::SESSION_CONTEXT_NOT_FOUND {
                self.sessions.remove(&cp);
            } else if let Some(s) = self.sessions.get_mut(&cp) {
                s.state = SessionState::Established;
            }
            return self.fail(Error::Rejected {
                procedure,
                peer,
                seq,
                cause,
                offending_ie: offending.map(|o| o.0),
                failed_rule,
            });
        }
        if deletion {
            if let Some(s) = self.sessions.remove(&cp) {
                self.stats.sessions_deleted += 1;
                self.events.push_back(Event::Deleted(s));
            }
            return;
        }
        if let Some(s) = self.sessions.get_mut(&cp) {
            s.state = SessionState::Established;
            if let Some(pdr) = s.uplink_pdr
                && let Some(f) = created
                    .iter()
                    .find(|c| c.pdr_id == pdr)
                    .and_then(|c| c.local_f_teid)
            {
                s.uplink_f_teid = Some(f);
            }
            let s = *s;
            self.stats.sessions_modified += 1;
            self.events.push_back(Event::Modified(s));
        }
    }

    fn on_expired(&mut self, seq: SequenceNumber, p: Pending<Op>) {
        self.stats.timeouts += 1;
        let procedure = p.procedure.procedure;
        let err = Error::Timeout {
            procedure,
            peer: p.peer,
            seq,
            attempts: p.transmissions,
        };
        let current = p.procedure.epoch == self.epoch;
        match procedure {
            Procedure::Heartbeat => {
                self.heartbeat.settled();
                self.events
                    .push_back(Event::HeartbeatLost { peer: p.peer, seq });
                return;
            }
            Procedure::AssociationSetup => {
                if self.state == AssociationState::SettingUp {
                    self.state = AssociationState::Idle;
                }
            }
            Procedure::AssociationRelease => {
                // The UPF is unreachable; either way the association is over for us.
                self.forget_sessions("the association was released");
                self.state = AssociationState::Idle;
                self.heartbeat.stop();
            }
            Procedure::SessionEstablishment(cp) => {
                self.in_flight -= 1;
                if current {
                    self.sessions.remove(&cp);
                }
            }
            Procedure::SessionModification(cp) | Procedure::SessionDeletion(cp) => {
                self.in_flight -= 1;
                if let (true, Some(s)) = (current, self.sessions.get_mut(&cp)) {
                    s.state = SessionState::Established;
                }
            }
        }
        self.fail(err);
    }

    fn handle_request(
        &mut self,
        now: Instant,
        remote: SocketAddr,
        msg: &[u8],
        t: MessageType,
        seq: SequenceNumber,
    ) {
        if t == MessageType::HEARTBEAT_REQUEST {
            // Answered always, never cached: answering twice is harmless.
            if let Ok(Message {
                body: MessageBody::HeartbeatRequest(r),
                ..
            }) = Message::parse(msg)
            {
                self.observe_recovery(remote, r.recovery_time_stamp);
            }
            let rsp = HeartbeatResponse::new(self.config.node.recovery_time_stamp);
            if let Ok(bytes) = encode(&Message::node(seq, rsp)) {
                self.stats.heartbeats_answered += 1;
                self.transmit(remote, bytes);
            }
            return;
        }
        if let Some(rsp) = self.cache.lookup(now, remote, seq, msg) {
            self.stats.answered_from_cache += 1;
            self.transmit(remote, rsp);
            return;
        }
        let parsed = Message::parse(msg);
        let response = match (t, parsed) {
            (MessageType::SESSION_REPORT_REQUEST, parsed) => self.on_report(parsed, seq),
            (MessageType::ASSOCIATION_RELEASE_REQUEST, _)
                if remote.ip() == self.config.upf.ip() =>
            {
                let sessions_lost = self.forget_sessions("the UPF released the association");
                self.state = AssociationState::Idle;
                self.heartbeat.stop();
                self.events.push_back(Event::PeerReleased {
                    peer: remote,
                    sessions_lost,
                });
                let rsp = AssociationReleaseResponse::new(
                    self.config.node.node_id.clone(),
                    Cause::REQUEST_ACCEPTED,
                );
                Some(Message::node(seq, rsp))
            }
            (
                MessageType::ASSOCIATION_SETUP_REQUEST,
                Ok(Message {
                    body: MessageBody::AssociationSetupRequest(r),
                    ..
                }),
            ) if remote.ip() == self.config.upf.ip() => {
                // A UPF-initiated association (eUPF can be configured so): accepted.
                self.observe_recovery(remote, r.recovery_time_stamp);
                let n = &self.config.node;
                let rsp = AssociationSetupResponse::new(
                    n.node_id.clone(),
                    Cause::REQUEST_ACCEPTED,
                    n.recovery_time_stamp,
                );
                self.associated(now, remote, r.recovery_time_stamp, r.up_function_features);
                Some(Message::node(seq, rsp))
            }
            _ => {
                self.stats.invalid += 1;
                None
            }
        };
        if let Some(m) = response
            && let Ok(bytes) = encode(&m)
        {
            self.cache.insert(now, remote, seq, msg, bytes.clone());
            self.transmit(remote, bytes);
        }
    }

    fn on_report(
        &mut self,
        parsed: Result<Message, DecodeError>,
        seq: SequenceNumber,
    ) -> Option<Message> {
        match parsed {
            Ok(Message {
                seid,
                body: MessageBody::SessionReportRequest(r),
                ..
            }) => {
                let cp_seid = seid.unwrap_or_default();
                match self.sessions.get(&cp_seid).and_then(|s| s.up_seid) {
                    Some(up) => {
                        self.events.push_back(Event::SessionReport {
                            cp_seid,
                            request: r,
                        });
                        let rsp = SessionReportResponse::new(Cause::REQUEST_ACCEPTED);
                        Some(Message::session(up, seq, rsp))
                    }
                    None => {
                        self.stats.rejected += 1;
                        let rsp = SessionReportResponse::new(Cause::SESSION_CONTEXT_NOT_FOUND);
                        Some(Message::session(Seid(0), seq, rsp))
                    }
                }
            }
            Err(e) => {
                let cause = e.cause()?;
                self.stats.invalid += 1;
                self.stats.rejected += 1;
                let mut rsp = SessionReportResponse::new(cause);
                rsp.offending_ie = e.offending_ie().map(crate::ie::OffendingIe);
                Some(Message::session(Seid(0), seq, rsp))
            }
            Ok(_) => None,
        }
    }
}
