//! The UP side, as the reflector plays a UPF: association from the configured CP function only,
//! sessions into a [`RulesTable`], rejections with the right Cause and Offending IE, heartbeats
//! both ways.
//!
//! Choices where UPFs differ:
//! - Session messages from a node that is not associated are answered with Cause 72 "No
//!   established PFCP Association" (Open5GS ignores them silently; an answer tells a
//!   misconfigured tester what is wrong at once instead of after N1 × T1).
//! - An Association Setup Request from another address than the configured peer, or whose IPv4
//!   Node ID is not its source address (Open5GS identifies the CP function by it), is answered
//!   with Cause 64 "Request rejected"; without a Recovery Time Stamp, with Cause 66 as eUPF does.
//! - A CP F-SEID without an IPv4 address is refused with Cause 66 and Offending IE F-SEID, as
//!   eUPF does.
//! - A PDR naming a network instance outside the configured list (when there is one) is refused
//!   with Cause 73, Offending IE Network Instance and the PDR's Failed Rule ID (UPG-VPP refuses
//!   a network instance it has no configuration for with Cause 73 and the PDR).
//! - With a session limit (`max_sessions`), the session past it is refused with Cause 75 "No
//!   resources available" and no Offending IE: nothing in the request is at fault.
//! - A changed CP Recovery Time Stamp (in an Association Setup or Heartbeat Request or Response)
//!   means the CP function restarted: its sessions are deleted.

mod rules;
mod ruleset;
mod table;

pub use rules::{DownlinkRule, QerRule, RuleChange, SessionRules, Tunnel, UplinkRule};
pub use table::RulesTable;

use core::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::collections::VecDeque;
use std::time::Instant;

use self::ruleset::{Rejection, RuleSet};
use self::table::UpSession;
use super::Transmit;
use super::config::UpfConfig;
use super::endpoint::{self, Endpoint, Request, Role};
use super::error::{NodeError, Procedure};
use super::heartbeat::Restart;
use super::stats::Stats;
use super::transactions::Pending;
use crate::error::DecodeError;
use crate::header::Header;
use crate::ie::{Cause, Fseid, IeType, NodeId, NtpTimestamp, OffendingIe, UpFunctionFeatures};
use crate::message::{
    AssociationReleaseResponse, AssociationSetupResponse, MessageType, SessionDeletionResponse,
    SessionEstablishmentRequest, SessionEstablishmentResponse, SessionModificationResponse,
};
use crate::types::{Seid, SequenceNumber, Teid};
use crate::{Message, MessageBody};

/// What the UPF side reports.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum UpfEvent {
    /// The CP function set up (or set up again) the association.
    Associated {
        /// Its address.
        peer: SocketAddr,
        /// Its Node ID.
        node_id: NodeId,
        /// Its Recovery Time Stamp.
        recovery_time_stamp: NtpTimestamp,
    },
    /// The CP function released the association; its sessions were removed.
    Released {
        /// Its address.
        peer: SocketAddr,
        /// Sessions removed.
        sessions_removed: usize,
    },
    /// The CP function's Recovery Time Stamp changed; its sessions were removed.
    PeerRestarted {
        /// Its address.
        peer: SocketAddr,
        /// The value seen before.
        previous: NtpTimestamp,
        /// The new value.
        current: NtpTimestamp,
        /// Sessions removed.
        sessions_removed: usize,
    },
    /// One of our Heartbeat Requests got no response after N1 retransmissions.
    HeartbeatLost {
        /// The CP function.
        peer: SocketAddr,
        /// The request's sequence number.
        seq: SequenceNumber,
    },
    /// One of our Heartbeat Requests failed otherwise: the CP function answered with a
    /// Version Not Supported Response ([`NodeError::VersionNotSupported`]).
    HeartbeatFailed(NodeError),
    /// The rules table changed.
    Rules(RuleChange),
    /// We restarted ([`Upf::restart`]): the association and every session are gone, and our
    /// Recovery Time Stamp is new.
    Restarted {
        /// Our new Recovery Time Stamp.
        recovery_time_stamp: NtpTimestamp,
        /// Sessions removed.
        sessions_removed: usize,
    },
}

#[derive(Debug, Clone)]
struct Association {
    peer: SocketAddr,
}

/// The UP-side node. See the [module documentation](super) for the calling pattern.
#[derive(Debug)]
pub struct Upf {
    config: UpfConfig,
    association: Option<Association>,
    endpoint: Endpoint<()>,
    rules: RulesTable,
    next_seid: Seid,
    next_teid: Teid,
    events: VecDeque<UpfEvent>,
}

impl Upf {
    /// A UPF side with no association and no session.
    pub fn new(config: UpfConfig) -> Self {
        Upf {
            association: None,
            endpoint: Endpoint::new(&config.node, config.peer),
            rules: RulesTable::default(),
            next_seid: config.first_seid,
            next_teid: config.first_teid,
            events: VecDeque::new(),
            config,
        }
    }

    /// The configuration.
    pub fn config(&self) -> &UpfConfig {
        &self.config
    }

    /// The rules table.
    pub fn rules(&self) -> &RulesTable {
        &self.rules
    }

    /// The associated CP function's address.
    pub fn associated_peer(&self) -> Option<SocketAddr> {
        self.association.as_ref().map(|a| a.peer)
    }

    /// Responses held to answer retransmissions.
    pub fn cached_responses(&self) -> usize {
        self.endpoint.cache.len()
    }

    /// The counters.
    pub fn stats(&self) -> Stats {
        self.endpoint.stats()
    }

    /// Feeds a datagram received from `remote`.
    pub fn handle_datagram(&mut self, now: Instant, remote: SocketAddr, bytes: &[u8]) {
        endpoint::handle_datagram(self, now, remote, bytes);
    }

    /// Behaves as a UPF that restarted (TS 29.244 §19A): the association and every session
    /// are dropped (each removal reported as a rule change), nothing is in flight or held for
    /// retransmissions, and `recovery_time_stamp` becomes ours; a peer learns of the restart
    /// from it in our next Heartbeat Request or Response. A value not later than the current
    /// one is raised to one second after it, so the peer always sees a change. The allocators
    /// go on where they were: the re-established sessions get new TEIDs and SEIDs, as they may
    /// from a real UPF. Returns the sessions removed.
    pub fn restart(&mut self, recovery_time_stamp: NtpTimestamp) -> usize {
        let old = self.config.node.recovery_time_stamp;
        let ts = if recovery_time_stamp > old {
            recovery_time_stamp
        } else {
            NtpTimestamp(old.0.wrapping_add(1))
        };
        let sessions_removed = self.disassociate();
        self.config.node.recovery_time_stamp = ts;
        self.endpoint.restart(ts);
        self.events.push_back(UpfEvent::Restarted {
            recovery_time_stamp: ts,
            sessions_removed,
        });
        sessions_removed
    }

    /// Runs the timers that are due: our heartbeats and their retransmissions.
    pub fn handle_timeout(&mut self, now: Instant) {
        endpoint::handle_timeout(self, now, None);
        if let Some(peer) = self.associated_peer() {
            self.endpoint.heartbeat_if_due(now, peer, || ());
        }
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
    pub fn poll_event(&mut self) -> Option<UpfEvent> {
        self.events.pop_front()
    }

    fn node_id(&self) -> NodeId {
        self.config.node.node_id.clone()
    }

    fn is_associated(&self, remote: SocketAddr) -> bool {
        self.association
            .as_ref()
            .is_some_and(|a| a.peer.ip() == remote.ip())
    }

    /// Ends the association: every session is removed; returns how many.
    fn disassociate(&mut self) -> usize {
        self.association = None;
        self.endpoint.heartbeat.stop();
        let removed = self.rules.drain();
        let n = removed.len();
        for v in removed {
            self.events
                .push_back(UpfEvent::Rules(RuleChange::Removed(v)));
        }
        n
    }

    fn on_setup(&mut self, now: Instant, req: Request<'_>) -> Message {
        let Request {
            remote, seq, msg, ..
        } = req;
        let ts = self.config.node.recovery_time_stamp;
        let mut reject = |cause| {
            self.endpoint.stats.rejected += 1;
            Message::node(
                seq,
                AssociationSetupResponse::new(self.config.node.node_id.clone(), cause, ts),
            )
        };
        if remote.ip() != self.config.peer {
            return reject(Cause::REQUEST_REJECTED);
        }
        let r = match Message::parse(msg) {
            Ok(Message {
                body: MessageBody::AssociationSetupRequest(r),
                ..
            }) => r,
            Err(e) => return reject(e.cause().unwrap_or(Cause::REQUEST_REJECTED)),
            Ok(_) => return reject(Cause::REQUEST_REJECTED),
        };
        if let NodeId::Ipv4(a) = r.node_id
            && IpAddr::V4(a) != remote.ip()
        {
            return reject(Cause::REQUEST_REJECTED);
        }
        self.on_recovery(now, remote, r.recovery_time_stamp);
        self.association = Some(Association { peer: remote });
        self.endpoint.heartbeat.start(now);
        self.events.push_back(UpfEvent::Associated {
            peer: remote,
            node_id: r.node_id,
            recovery_time_stamp: r.recovery_time_stamp,
        });
        let mut rsp = AssociationSetupResponse::new(self.node_id(), Cause::REQUEST_ACCEPTED, ts);
        rsp.up_function_features = Some(UpFunctionFeatures::new(UpFunctionFeatures::FTUP));
        Message::node(seq, rsp)
    }

    fn on_release(&mut self, req: Request<'_>) -> Message {
        let Request {
            remote, seq, msg, ..
        } = req;
        let cause = match Message::parse(msg) {
            Err(e) => e.cause().unwrap_or(Cause::REQUEST_REJECTED),
            Ok(_) if !self.is_associated(remote) => Cause::NO_ESTABLISHED_PFCP_ASSOCIATION,
            Ok(_) => {
                self.endpoint.cache.forget(remote.ip());
                let sessions_removed = self.disassociate();
                self.events.push_back(UpfEvent::Released {
                    peer: remote,
                    sessions_removed,
                });
                Cause::REQUEST_ACCEPTED
            }
        };
        if !cause.is_accepted() {
            self.endpoint.stats.rejected += 1;
        }
        Message::node(seq, AssociationReleaseResponse::new(self.node_id(), cause))
    }

    fn allocate_seid(&mut self) -> Seid {
        loop {
            let s = self.next_seid;
            self.next_seid = Seid(s.0.wrapping_add(1).max(1));
            if !self.rules.contains(s) {
                return s;
            }
        }
    }

    fn choose_f_teids(
        &mut self,
        rules: &mut RuleSet,
    ) -> Result<Vec<crate::ie::CreatedPdr>, Rejection> {
        let (table, next) = (&self.rules, &mut self.next_teid);
        rules.choose_f_teids(self.config.n3_address, |in_use| {
            loop {
                let t = *next;
                *next = Teid(t.get().wrapping_add(1).max(1));
                if table.teid_owner(t).is_none() && !in_use(t) {
                    return t;
                }
            }
        })
    }

    fn establishment_rejected(&mut self, cp: Seid, seq: SequenceNumber, r: Rejection) -> Message {
        self.endpoint.stats.rejected += 1;
        let mut rsp = SessionEstablishmentResponse::rejected(
            self.node_id(),
            r.cause,
            r.offending_ie.map(OffendingIe),
        );
        rsp.failed_rule_id = r.failed_rule;
        Message::session(cp, seq, rsp)
    }

    fn on_establishment(&mut self, req: Request<'_>) -> Option<Message> {
        let Request {
            remote, seq, msg, ..
        } = req;
        let req = match Message::parse(msg) {
            Ok(Message {
                body: MessageBody::SessionEstablishmentRequest(r),
                ..
            }) => r,
            Err(e) => {
                self.endpoint.stats.rejected += 1;
                let rsp = SessionEstablishmentResponse::for_error(self.node_id(), &e)?;
                return Some(Message::session(cp_seid_of(msg), seq, rsp));
            }
            Ok(_) => return None,
        };
        let cp = req.cp_f_seid.seid;
        if !self.is_associated(remote) {
            let r = Rejection::new(Cause::NO_ESTABLISHED_PFCP_ASSOCIATION, None);
            return Some(self.establishment_rejected(cp, seq, r));
        }
        if req.cp_f_seid.ipv4.is_none() {
            let r = Rejection::new(Cause::MANDATORY_IE_MISSING, Some(IeType::F_SEID));
            return Some(self.establishment_rejected(cp, seq, r));
        }
        if self
            .config
            .max_sessions
            .is_some_and(|max| self.rules.len() >= max)
        {
            let r = Rejection::new(Cause::NO_RESOURCES_AVAILABLE, None);
            return Some(self.establishment_rejected(cp, seq, r));
        }
        match self.install(remote, &req) {
            Ok((up_seid, created)) => {
                let up = Fseid::ipv4(up_seid, self.config.n4_address);
                let rsp = SessionEstablishmentResponse::accepted(self.node_id(), up, created);
                Some(Message::session(cp, seq, rsp))
            }
            Err(r) => Some(self.establishment_rejected(cp, seq, r)),
        }
    }

    fn install(
        &mut self,
        remote: SocketAddr,
        req: &SessionEstablishmentRequest,
    ) -> Result<(Seid, Vec<crate::ie::CreatedPdr>), Rejection> {
        let mut rules = RuleSet::default();
        req.create_fars
            .iter()
            .try_for_each(|c| rules.create_far(c))?;
        req.create_qers
            .iter()
            .try_for_each(|c| rules.create_qer(c))?;
        req.create_urrs
            .iter()
            .try_for_each(|c| rules.create_urr(c))?;
        req.create_pdrs
            .iter()
            .try_for_each(|c| rules.create_pdr(c))?;
        let created = self.choose_f_teids(&mut rules)?;
        rules.validate(
            (None, self.config.n3_address),
            |teid| self.rules.teid_owner(teid),
            |ue| self.rules.ue_owner(ue),
            |prefix| self.rules.prefix_owner(prefix),
            &self.config.network_instances,
        )?;
        let up_seid = self.allocate_seid();
        let view = rules.view(up_seid, req.cp_f_seid);
        self.rules.put(UpSession {
            peer: remote,
            rules,
            view: view.clone(),
        });
        self.endpoint.stats.sessions_established += 1;
        self.events
            .push_back(UpfEvent::Rules(RuleChange::Installed(view)));
        Ok((up_seid, created))
    }

    /// The session a modification or deletion names, or the response refusing it.
    fn target(&mut self, remote: SocketAddr, msg: &[u8]) -> Result<(Seid, Seid), Cause> {
        if !self.is_associated(remote) {
            return Err(Cause::NO_ESTABLISHED_PFCP_ASSOCIATION);
        }
        let up = Header::new_unchecked(msg).seid().unwrap_or_default();
        match self.rules.get(up) {
            Some(s) if s.peer.ip() == remote.ip() => Ok((up, s.view.cp_f_seid.seid)),
            _ => Err(Cause::SESSION_CONTEXT_NOT_FOUND),
        }
    }

    fn on_modification(&mut self, req: Request<'_>) -> Option<Message> {
        let Request {
            remote, seq, msg, ..
        } = req;
        let reply = |cp, r: Rejection| {
            let mut rsp = SessionModificationResponse::new(r.cause);
            rsp.offending_ie = r.offending_ie.map(OffendingIe);
            rsp.failed_rule_id = r.failed_rule;
            Message::session(cp, seq, rsp)
        };
        let (up, cp) = match self.target(remote, msg) {
            Ok(t) => t,
            Err(cause) => {
                self.endpoint.stats.rejected += 1;
                return Some(reply(Seid(0), Rejection::new(cause, None)));
            }
        };
        let req = match Message::parse(msg) {
            Ok(Message {
                body: MessageBody::SessionModificationRequest(r),
                ..
            }) => r,
            Err(e) => return self.decode_rejection(&e).map(|r| reply(cp, r)),
            Ok(_) => return None,
        };
        match self.modify(up, &req) {
            Ok(created) => {
                let mut rsp = SessionModificationResponse::new(Cause::REQUEST_ACCEPTED);
                rsp.created_pdrs = created;
                Some(Message::session(cp, seq, rsp))
            }
            Err(r) => {
                self.endpoint.stats.rejected += 1;
                Some(reply(cp, r))
            }
        }
    }

    fn decode_rejection(&mut self, e: &DecodeError) -> Option<Rejection> {
        self.endpoint.stats.rejected += 1;
        Some(Rejection::new(e.cause()?, e.offending_ie()))
    }

    fn modify(
        &mut self,
        up: Seid,
        req: &crate::message::SessionModificationRequest,
    ) -> Result<Vec<crate::ie::CreatedPdr>, Rejection> {
        let Some(s) = self.rules.get(up) else {
            return Err(Rejection::new(Cause::SESSION_CONTEXT_NOT_FOUND, None));
        };
        let (peer, mut cp_f_seid, mut rules) = (s.peer, s.view.cp_f_seid, s.rules.clone());
        if let Some(f) = req.cp_f_seid {
            if f.ipv4.is_none() {
                return Err(Rejection::new(
                    Cause::MANDATORY_IE_INCORRECT,
                    Some(IeType::F_SEID),
                ));
            }
            cp_f_seid = f;
        }
        rules.modify(req)?;
        let created = self.choose_f_teids(&mut rules)?;
        rules.validate(
            (Some(up), self.config.n3_address),
            |teid| self.rules.teid_owner(teid),
            |ue| self.rules.ue_owner(ue),
            |prefix| self.rules.prefix_owner(prefix),
            &self.config.network_instances,
        )?;
        let view = rules.view(up, cp_f_seid);
        let previous = self.rules.put(UpSession {
            peer,
            rules,
            view: view.clone(),
        });
        self.endpoint.stats.sessions_modified += 1;
        if let Some(previous) = previous {
            let end_markers = if asks_end_marker(req) {
                moved_tunnels(&previous, &view)
            } else {
                Vec::new()
            };
            self.events.push_back(UpfEvent::Rules(RuleChange::Modified {
                previous,
                current: view,
            }));
            self.events
                .extend(end_markers.into_iter().map(|(ue_address, previous)| {
                    UpfEvent::Rules(RuleChange::EndMarker {
                        ue_address,
                        previous,
                    })
                }));
        }
        Ok(created)
    }

    fn on_deletion(&mut self, req: Request<'_>) -> Option<Message> {
        let Request {
            remote, seq, msg, ..
        } = req;
        let reply = |cp, cause, offending: Option<IeType>| {
            let mut rsp = SessionDeletionResponse::new(cause);
            rsp.offending_ie = offending.map(OffendingIe);
            Message::session(cp, seq, rsp)
        };
        let (up, cp) = match self.target(remote, msg) {
            Ok(t) => t,
            Err(cause) => {
                self.endpoint.stats.rejected += 1;
                return Some(reply(Seid(0), cause, None));
            }
        };
        if let Err(e) = Message::parse(msg) {
            let r = self.decode_rejection(&e)?;
            return Some(reply(cp, r.cause, r.offending_ie));
        }
        if let Some(view) = self.rules.remove(up) {
            self.endpoint.stats.sessions_deleted += 1;
            self.events
                .push_back(UpfEvent::Rules(RuleChange::Removed(view)));
        }
        Some(reply(cp, Cause::REQUEST_ACCEPTED, None))
    }
}

impl Role for Upf {
    type Tag = ();

    fn endpoint(&mut self) -> &mut Endpoint<()> {
        &mut self.endpoint
    }

    fn procedure((): &()) -> Procedure {
        Procedure::Heartbeat
    }

    fn on_recovery(&mut self, now: Instant, remote: SocketAddr, ts: NtpTimestamp) {
        if let Some(Restart {
            previous, current, ..
        }) = self.endpoint.observe_recovery(now, remote, ts)
        {
            let sessions_removed = self.disassociate();
            self.events.push_back(UpfEvent::PeerRestarted {
                peer: remote,
                previous,
                current,
                sessions_removed,
            });
        }
    }

    fn on_request(&mut self, now: Instant, req: Request<'_>) {
        // A session message must carry an SEID (S=1) and a node message none: with the other
        // header it is no message of its type, and is dropped like a header that does not
        // parse (TS 29.244 §7.2.1, §7.2.2.2).
        let session = matches!(
            req.t,
            MessageType::SESSION_ESTABLISHMENT_REQUEST
                | MessageType::SESSION_MODIFICATION_REQUEST
                | MessageType::SESSION_DELETION_REQUEST
        );
        if session != Header::new_unchecked(req.msg).seid().is_some() {
            self.endpoint.stats.invalid += 1;
            return;
        }
        let response = match req.t {
            MessageType::ASSOCIATION_SETUP_REQUEST => Some(self.on_setup(now, req)),
            MessageType::ASSOCIATION_RELEASE_REQUEST => Some(self.on_release(req)),
            MessageType::SESSION_ESTABLISHMENT_REQUEST => self.on_establishment(req),
            MessageType::SESSION_MODIFICATION_REQUEST => self.on_modification(req),
            MessageType::SESSION_DELETION_REQUEST => self.on_deletion(req),
            // PFD management, node reports, session set procedures: not served.
            _ => None,
        };
        let sent = response.is_some_and(|m| self.endpoint.respond(now, req, &m));
        if !sent {
            self.endpoint.stats.invalid += 1;
        }
    }

    // Our only requests are heartbeats, whose responses the endpoint reads.
    fn on_response(&mut self, _: Instant, _: SequenceNumber, _: Pending<()>, _: &[u8]) {
        self.endpoint.stats.invalid += 1;
    }

    fn on_failed(&mut self, (): (), error: NodeError) {
        let event = match error {
            NodeError::Timeout { peer, seq, .. } => UpfEvent::HeartbeatLost { peer, seq },
            error => UpfEvent::HeartbeatFailed(error),
        };
        self.events.push_back(event);
    }
}

/// The CP SEID of an Establishment Request that does not decode, read from its F-SEID alone so
/// that the rejection still names the session in its header (0 when even that is unreadable).
fn cp_seid_of(msg: &[u8]) -> Seid {
    let Ok(h) = Header::new_checked(msg) else {
        return Seid(0);
    };
    h.ies()
        .map_while(Result::ok)
        .find(|ie| ie.ie_type() == IeType::F_SEID)
        .and_then(|ie| <Fseid as crate::ie::IeValue>::decode(&ie).ok())
        .map_or(Seid(0), |f| f.seid)
}

/// Whether a modification asks for End Markers: SNDEM in an Update FAR's Update Forwarding
/// Parameters.
fn asks_end_marker(req: &crate::message::SessionModificationRequest) -> bool {
    req.update_fars.iter().any(|f| {
        f.update_forwarding_parameters
            .as_ref()
            .and_then(|p| p.pfcpsm_req_flags)
            .is_some_and(|flags| flags.contains(crate::ie::PfcpsmReqFlags::SNDEM))
    })
}

/// The downlink tunnels a modification moved: (UE, the tunnel before) for each downlink PDR
/// whose tunnel changed.
fn moved_tunnels(
    previous: &SessionRules,
    current: &SessionRules,
) -> Vec<(Option<Ipv4Addr>, Tunnel)> {
    previous
        .downlink
        .iter()
        .filter_map(|p| {
            let before = p.tunnel?;
            let now = current.downlink.iter().find(|c| c.pdr_id == p.pdr_id);
            (now.and_then(|c| c.tunnel) != Some(before)).then_some((p.ue_address, before))
        })
        .collect()
}
