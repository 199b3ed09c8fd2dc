//! The CP side, as the traffic generator drives a UPF: association, heartbeats, and sessions
//! established, modified and deleted many at a time through a window.

mod answers;
mod figures;
mod session;
mod upf_requests;
mod window;

pub use figures::{Figures, LatencySummary};
pub use session::{Session, SessionState};

use core::net::SocketAddr;
use std::collections::{HashMap, VecDeque};
use std::time::Instant;

use super::Transmit;
use super::config::ClientConfig;
use super::endpoint::{self, Endpoint, Request, Role, encode};
use super::error::{NodeError, Procedure};
use super::heartbeat::Restart;
use super::stats::Stats;
use super::transactions::{Pending, RetransmitLimit};
use crate::Message;
use crate::ie::{NtpTimestamp, SourceInterface, UpFunctionFeatures};
use crate::message::{
    AssociationReleaseRequest, AssociationSetupRequest, SessionDeletionRequest,
    SessionEstablishmentRequest, SessionModificationRequest, SessionReportRequest,
};
use crate::plan::UeSessionPlan;
use crate::types::{Seid, SequenceNumber};

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
    Failed(NodeError),
    /// The UPF's Recovery Time Stamp changed: it restarted and lost our sessions, which left
    /// the table; the association must be set up again.
    PeerRestarted {
        /// The UPF.
        peer: SocketAddr,
        /// The value seen before.
        previous: NtpTimestamp,
        /// The new value.
        current: NtpTimestamp,
        /// When the previous value was last seen (in a heartbeat or an association message):
        /// the UPF restarted after that and before now.
        previous_seen: Instant,
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
pub(crate) struct Op {
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
    endpoint: Endpoint<Op>,
    sessions: HashMap<Seid, Session>,
    epoch: u64,
    queue: VecDeque<Queued>,
    in_flight: usize,
    window: window::Window,
    /// Session requests wait until our first Heartbeat Request after associating is answered:
    /// Open5GS learns a CP's new Recovery Time Stamp only from heartbeats, and otherwise takes
    /// our new run for a CP restart and deletes its fresh sessions.
    heartbeat_gate: bool,
    figures: Figures,
    events: VecDeque<Event>,
}

const FORGOTTEN: &str = "the session left the table (UPF restarted or association ended)";

/// Session requests retransmitted beyond the window wait T1 / this.
const RETRANSMIT_SPREAD: u32 = 8;

/// Session establishment, modification and deletion requests (what the window governs).
fn is_session_request(op: &Op) -> bool {
    op.procedure.cp_seid().is_some()
}

impl Client {
    /// A client that is not associated yet.
    pub fn new(config: ClientConfig) -> Self {
        Client {
            state: AssociationState::Idle,
            endpoint: Endpoint::new(&config.node, config.upf.ip()),
            sessions: HashMap::new(),
            epoch: 0,
            queue: VecDeque::new(),
            in_flight: 0,
            window: window::Window::new(config.initial_window, config.window),
            heartbeat_gate: false,
            figures: Figures::default(),
            events: VecDeque::new(),
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
        self.endpoint.recovery.get()
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

    /// Session requests that may be in flight now (the adaptive window).
    pub fn window(&self) -> usize {
        self.window.size()
    }

    /// Whether session requests wait for the first heartbeat exchange after associating.
    pub fn waiting_for_heartbeat(&self) -> bool {
        self.heartbeat_gate
    }

    /// The control-plane figures: Causes, procedure latencies, sessions lost.
    pub fn figures(&self) -> &Figures {
        &self.figures
    }

    /// All our requests in flight (session, association and heartbeat).
    pub fn pending_requests(&self) -> usize {
        self.endpoint.transactions.len()
    }

    /// Session requests waiting for room in the window.
    pub fn queued(&self) -> usize {
        self.queue.len()
    }

    /// The counters.
    pub fn stats(&self) -> Stats {
        Stats {
            window: self.window.size() as u64,
            window_largest: self.window.largest() as u64,
            ..self.endpoint.stats()
        }
    }

    /// Sends an Association Setup Request (Node ID, our Recovery Time Stamp).
    pub fn associate(&mut self, now: Instant) -> Result<(), NodeError> {
        let procedure = Procedure::AssociationSetup;
        if matches!(
            self.state,
            AssociationState::SettingUp | AssociationState::Releasing
        ) {
            return Err(NodeError::Busy {
                procedure,
                state: "another association procedure is in flight",
            });
        }
        let n = &self.config.node;
        let req = AssociationSetupRequest::new(n.node_id.clone(), n.recovery_time_stamp);
        let bytes = encode_request(procedure, &Message::node(SequenceNumber::default(), req))?;
        self.send_now(now, procedure, bytes);
        self.state = AssociationState::SettingUp;
        Ok(())
    }

    /// Queues the Session Establishment Request of a UE's plan; returns its CP SEID.
    pub fn establish(&mut self, now: Instant, plan: &UeSessionPlan) -> Result<Seid, NodeError> {
        self.establish_request(now, plan.establishment_request())
    }

    /// Queues any Session Establishment Request (sent with SEID 0 in the header); the CP SEID
    /// of its CP F-SEID names the session. Its Node ID is set to ours: Open5GS matches session
    /// requests to the association by it.
    pub(crate) fn establish_request(
        &mut self,
        now: Instant,
        mut request: SessionEstablishmentRequest,
    ) -> Result<Seid, NodeError> {
        request.node_id.clone_from(&self.config.node.node_id);
        let cp_seid = request.cp_f_seid.seid;
        let procedure = Procedure::SessionEstablishment(cp_seid);
        self.require_association(procedure)?;
        if self.sessions.contains_key(&cp_seid) {
            return Err(NodeError::DuplicateSession { procedure });
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
        let msg = Message::session(Seid(0), SequenceNumber::default(), request);
        let bytes = encode_request(procedure, &msg)?;
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
    ) -> Result<(), NodeError> {
        let procedure = Procedure::SessionModification(cp_seid);
        let msg = |up| Message::session(up, SequenceNumber::default(), request);
        self.session_request(now, procedure, SessionState::Modifying, msg)
    }

    /// Queues a Session Deletion Request for an established session.
    pub fn delete(&mut self, now: Instant, cp_seid: Seid) -> Result<(), NodeError> {
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

    /// Sends an Association Release Request, once: neither Open5GS nor eUPF answers it, so it
    /// is not retransmitted and is given up after the configured release wait. Either way the
    /// association is over for us and the table is emptied (the UPF deletes the association's
    /// sessions).
    pub fn release(&mut self, now: Instant) -> Result<(), NodeError> {
        let procedure = Procedure::AssociationRelease;
        self.require_association(procedure)?;
        let req = AssociationReleaseRequest::new(self.config.node.node_id.clone());
        let bytes = encode_request(procedure, &Message::node(SequenceNumber::default(), req))?;
        let op = self.op(procedure);
        self.endpoint
            .start_once(now, self.config.upf, bytes, op, self.config.release_wait);
        self.state = AssociationState::Releasing;
        Ok(())
    }

    /// Feeds a datagram received from `remote`.
    pub fn handle_datagram(&mut self, now: Instant, remote: SocketAddr, bytes: &[u8]) {
        endpoint::handle_datagram(self, now, remote, bytes);
        self.pump(now);
    }

    /// Runs the timers that are due: retransmissions, give-ups, our heartbeats.
    ///
    /// A session request due for retransmission means loss (most likely the UPF's receive
    /// buffer): the window shrinks first, and at most a window's worth of session requests is
    /// retransmitted at once, the others a little later, so that the retransmissions do not
    /// overflow the buffer again.
    pub fn handle_timeout(&mut self, now: Instant) {
        let mut limit = None;
        if self.endpoint.transactions.due(now, is_session_request) {
            self.window.on_retransmission(now, self.config.node.t1);
            limit = Some(RetransmitLimit {
                selects: is_session_request,
                count: self.window.size(),
                defer: self.config.node.t1 / RETRANSMIT_SPREAD,
            });
        }
        endpoint::handle_timeout(self, now, limit.as_mut());
        if self.state == AssociationState::Associated {
            let op = self.op(Procedure::Heartbeat);
            self.endpoint.heartbeat_if_due(now, self.config.upf, || op);
        }
        self.pump(now);
    }

    /// The next datagram to send.
    pub fn poll_transmit(&mut self) -> Option<Transmit> {
        self.endpoint.poll_transmit()
    }

    /// When [`Self::handle_timeout`] is to be called next.
    pub fn poll_timeout(&mut self) -> Option<Instant> {
        self.endpoint.poll_timeout()
    }

    /// The next event.
    pub fn poll_event(&mut self) -> Option<Event> {
        self.events.pop_front()
    }

    fn require_association(&self, procedure: Procedure) -> Result<(), NodeError> {
        if self.state == AssociationState::Associated {
            Ok(())
        } else {
            Err(NodeError::NotAssociated {
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
    ) -> Result<(), NodeError> {
        self.require_association(procedure)?;
        let cp_seid = procedure.cp_seid().unwrap_or_default();
        let Some(s) = self.sessions.get_mut(&cp_seid) else {
            return Err(NodeError::UnknownSession { procedure });
        };
        let (SessionState::Established, Some(up)) = (s.state, s.up_seid) else {
            return Err(NodeError::Busy {
                procedure,
                state: s.state.describe(),
            });
        };
        let bytes = encode_request(procedure, &msg(up))?;
        s.state = next;
        self.queue.push_back(Queued { procedure, bytes });
        self.pump(now);
        Ok(())
    }

    fn op(&self, procedure: Procedure) -> Op {
        Op {
            procedure,
            epoch: self.epoch,
        }
    }

    fn send_now(&mut self, now: Instant, procedure: Procedure, bytes: Vec<u8>) {
        let op = self.op(procedure);
        self.endpoint.start(now, self.config.upf, bytes, op);
    }

    fn pump(&mut self, now: Instant) {
        if self.heartbeat_gate {
            return;
        }
        while self.in_flight < self.window.size() {
            let Some(q) = self.queue.pop_front() else {
                break;
            };
            self.send_now(now, q.procedure, q.bytes);
            self.in_flight += 1;
        }
    }

    /// Ends the association for us (released either way, or the UPF unreachable): the table is
    /// emptied and our heartbeats stop; returns how many sessions left.
    fn end_association(&mut self, reason: &'static str) -> usize {
        let n = self.forget_sessions(reason);
        self.state = AssociationState::Idle;
        self.endpoint.heartbeat.stop();
        n
    }

    /// Empties the table (the UPF no longer has the sessions) and aborts what is queued.
    fn forget_sessions(&mut self, reason: &'static str) -> usize {
        let n = self.sessions.len();
        self.sessions.clear();
        self.epoch += 1;
        for q in self.queue.drain(..) {
            self.events.push_back(Event::Failed(NodeError::Aborted {
                procedure: q.procedure,
                reason,
            }));
        }
        n
    }

    fn associated(
        &mut self,
        now: Instant,
        peer: SocketAddr,
        recovery_time_stamp: NtpTimestamp,
        up_function_features: Option<UpFunctionFeatures>,
    ) {
        self.state = AssociationState::Associated;
        self.endpoint.heartbeat.start(now);
        let op = self.op(Procedure::Heartbeat);
        self.endpoint.heartbeat_now(now, self.config.upf, op);
        self.heartbeat_gate = true;
        self.events.push_back(Event::Associated {
            peer,
            recovery_time_stamp,
            up_function_features,
        });
    }

    fn fail(&mut self, e: NodeError) {
        self.events.push_back(Event::Failed(e));
    }
}

fn encode_request(procedure: Procedure, msg: &Message) -> Result<Vec<u8>, NodeError> {
    encode(msg).map_err(|error| NodeError::Encode { procedure, error })
}

impl Role for Client {
    type Tag = Op;

    fn endpoint(&mut self) -> &mut Endpoint<Op> {
        &mut self.endpoint
    }

    fn procedure(op: &Op) -> Procedure {
        op.procedure
    }

    fn on_recovery(&mut self, now: Instant, remote: SocketAddr, ts: NtpTimestamp) {
        if let Some(Restart {
            previous,
            current,
            previous_seen,
        }) = self.endpoint.observe_recovery(now, remote, ts)
        {
            let sessions_lost = self.forget_sessions("the UPF restarted");
            if self.state == AssociationState::Associated {
                self.state = AssociationState::Idle;
            }
            self.events.push_back(Event::PeerRestarted {
                peer: self.config.upf,
                previous,
                current,
                previous_seen,
                sessions_lost,
            });
        }
    }

    fn on_request(&mut self, now: Instant, req: Request<'_>) {
        self.on_upf_request(now, req);
    }

    fn on_response(&mut self, now: Instant, seq: SequenceNumber, p: Pending<Op>, msg: &[u8]) {
        self.on_answer(now, seq, p, msg);
    }

    fn on_failed(&mut self, op: Op, error: NodeError) {
        match error {
            // Our heartbeats have no caller: a lost one is news of its own. Session requests
            // waiting for the first exchange go ahead (and fail on their own if the UPF is gone).
            NodeError::Timeout {
                procedure: Procedure::Heartbeat,
                peer,
                seq,
                ..
            } => {
                self.heartbeat_gate = false;
                self.events.push_back(Event::HeartbeatLost { peer, seq });
            }
            error => {
                if matches!(error, NodeError::Timeout { .. }) && op.procedure.cp_seid().is_some() {
                    self.window.on_timeout();
                }
                self.abandon(op, error);
            }
        }
    }

    fn on_heartbeat_answered(&mut self) {
        self.heartbeat_gate = false;
    }
}
