//! The UPF's answers to our requests, and requests that end without a usable one (given up
//! after N1 retransmissions, or answered Version Not Supported).

use core::net::{IpAddr, SocketAddr};
use std::time::Instant;

use super::{AssociationState, Client, Event, FORGOTTEN, Figures, Op, SessionState};
use crate::error::{DecodeError, ErrorKind};
use crate::header::field;
use crate::ie::{Cause, CreatedPdr, FailedRuleId, Fseid, Fteid, IeType, OffendingIe};
use crate::message::MessageType;
use crate::node::endpoint::Role;
use crate::node::error::{NodeError, Procedure};
use crate::node::transactions::Pending;
use crate::types::{PdrId, Seid, SequenceNumber};
use crate::{Message, MessageBody};

/// The request a response answers, as errors name it.
#[derive(Debug, Clone, Copy)]
struct Answered {
    procedure: Procedure,
    peer: SocketAddr,
    seq: SequenceNumber,
    /// The response's Cause, read on its own (for a response that does not decode whole).
    cause: Option<Cause>,
}

impl Answered {
    fn invalid(self, error: DecodeError) -> NodeError {
        NodeError::InvalidResponse {
            procedure: self.procedure,
            peer: self.peer,
            seq: self.seq,
            error,
            cause: self.cause,
        }
    }

    fn rejected(
        self,
        cause: Cause,
        offending_ie: Option<OffendingIe>,
        failed_rule: Option<FailedRuleId>,
    ) -> NodeError {
        NodeError::Rejected {
            procedure: self.procedure,
            peer: self.peer,
            seq: self.seq,
            cause,
            offending_ie: offending_ie.map(|o| o.0),
            failed_rule,
        }
    }
}

/// The error for a response body of the wrong kind (cannot happen once the type matched, kept
/// so that a codec change could not make the node panic).
fn invalid_body(r: Result<MessageBody, DecodeError>) -> DecodeError {
    match r {
        Err(e) => e,
        Ok(_) => DecodeError::new(ErrorKind::UnsupportedMessage, None, field::MESSAGE_TYPE),
    }
}

/// The Cause IE of a message that did not decode whole, read on its own.
fn cause_alone(msg: &[u8]) -> Option<Cause> {
    let header = crate::header::Header::new_checked(msg).ok()?;
    header
        .ies()
        .map_while(Result::ok)
        .find(|ie| ie.ie_type() == IeType::CAUSE)
        .and_then(|ie| <Cause as crate::ie::IeValue>::decode(&ie).ok())
}

/// The F-TEID the UPF chose for a PDR, from its Created PDR.
fn chosen_f_teid(created: &[CreatedPdr], pdr: PdrId) -> Option<Fteid> {
    created
        .iter()
        .find(|c| c.pdr_id == pdr)
        .and_then(|c| c.local_f_teid)
}

impl Client {
    pub(super) fn on_answer(
        &mut self,
        now: Instant,
        seq: SequenceNumber,
        p: Pending<Op>,
        msg: &[u8],
    ) {
        let op = p.procedure;
        let parsed = Message::parse(msg).map(|m| m.body);
        let a = Answered {
            procedure: op.procedure,
            peer: p.peer,
            seq,
            cause: parsed.is_err().then(|| cause_alone(msg)).flatten(),
        };
        match op.procedure {
            Procedure::AssociationSetup => self.on_setup_response(now, a, parsed),
            Procedure::AssociationRelease => self.on_release_response(a, parsed),
            // Heartbeat Responses stay in the endpoint.
            Procedure::Heartbeat => {}
            procedure => {
                self.in_flight -= 1;
                self.window.on_answer(p.transmissions == 1);
                let took = now.saturating_duration_since(p.first_sent);
                match procedure {
                    Procedure::SessionEstablishment(_) => {
                        Figures::record(&mut self.figures.establishment_us, took);
                    }
                    Procedure::SessionDeletion(_) => {
                        Figures::record(&mut self.figures.deletion_us, took);
                    }
                    _ => {}
                }
                self.on_session_response(op, a, parsed);
            }
        }
    }

    /// Ends a request that got no usable response: what it started is undone, and the
    /// procedure fails with `error`.
    pub(super) fn abandon(&mut self, op: Op, error: NodeError) {
        match op.procedure {
            Procedure::Heartbeat => {}
            Procedure::AssociationSetup => {
                if self.state == AssociationState::SettingUp {
                    self.state = AssociationState::Idle;
                }
            }
            // The UPF is unreachable; either way the association is over for us.
            Procedure::AssociationRelease => {
                self.end_association("the association was released");
            }
            procedure => {
                self.in_flight -= 1;
                if op.epoch == self.epoch {
                    self.roll_back(procedure, None);
                }
            }
        }
        self.fail(error);
    }

    /// Puts a session back after its procedure failed: a session being established leaves the
    /// table, and so does one whose deletion the UPF answered "Session context not found"
    /// (keeping it would only fail again); a session being modified or deleted is established
    /// again.
    fn roll_back(&mut self, procedure: Procedure, cause: Option<Cause>) {
        match procedure {
            Procedure::SessionEstablishment(cp) => {
                self.sessions.remove(&cp);
            }
            Procedure::SessionDeletion(cp) if cause == Some(Cause::SESSION_CONTEXT_NOT_FOUND) => {
                self.sessions.remove(&cp);
            }
            Procedure::SessionModification(cp) | Procedure::SessionDeletion(cp) => {
                if let Some(s) = self.sessions.get_mut(&cp) {
                    s.state = SessionState::Established;
                }
            }
            _ => {}
        }
    }

    fn on_setup_response(
        &mut self,
        now: Instant,
        a: Answered,
        parsed: Result<MessageBody, DecodeError>,
    ) {
        if self.state == AssociationState::SettingUp {
            self.state = AssociationState::Idle;
        }
        let r = match parsed {
            Ok(MessageBody::AssociationSetupResponse(r)) => r,
            other => return self.fail(a.invalid(invalid_body(other))),
        };
        if !r.cause.is_accepted() {
            return self.fail(a.rejected(r.cause, None, None));
        }
        self.on_recovery(now, a.peer, r.recovery_time_stamp);
        self.associated(now, a.peer, r.recovery_time_stamp, r.up_function_features);
    }

    fn on_release_response(&mut self, a: Answered, parsed: Result<MessageBody, DecodeError>) {
        let r = match parsed {
            Ok(MessageBody::AssociationReleaseResponse(r)) => r,
            other => {
                self.state = AssociationState::Associated;
                return self.fail(a.invalid(invalid_body(other)));
            }
        };
        if !r.cause.is_accepted() {
            self.state = AssociationState::Associated;
            return self.fail(a.rejected(r.cause, None, None));
        }
        self.end_association("the association was released");
        self.events.push_back(Event::Released);
    }

    fn on_session_response(
        &mut self,
        op: Op,
        a: Answered,
        parsed: Result<MessageBody, DecodeError>,
    ) {
        let procedure = op.procedure;
        if op.epoch != self.epoch {
            return self.fail(NodeError::Aborted {
                procedure,
                reason: FORGOTTEN,
            });
        }
        // What the response says, whichever the procedure.
        let (cause, offending_ie, failed_rule, up_f_seid, created) = match (procedure, parsed) {
            (
                Procedure::SessionEstablishment(_),
                Ok(MessageBody::SessionEstablishmentResponse(r)),
            ) => (
                r.cause,
                r.offending_ie,
                r.failed_rule_id,
                r.up_f_seid,
                r.created_pdrs,
            ),
            (
                Procedure::SessionModification(_),
                Ok(MessageBody::SessionModificationResponse(r)),
            ) => (
                r.cause,
                r.offending_ie,
                r.failed_rule_id,
                None,
                r.created_pdrs,
            ),
            (Procedure::SessionDeletion(_), Ok(MessageBody::SessionDeletionResponse(r))) => {
                (r.cause, r.offending_ie, None, None, Vec::new())
            }
            (_, other) => {
                self.roll_back(procedure, None);
                return self.fail(a.invalid(invalid_body(other)));
            }
        };
        self.figures.cause(cause);
        if cause == Cause::SESSION_CONTEXT_NOT_FOUND {
            self.figures.lost_sessions += 1;
        }
        if !cause.is_accepted() {
            self.roll_back(procedure, Some(cause));
            return self.fail(a.rejected(cause, offending_ie, failed_rule));
        }
        match procedure {
            Procedure::SessionEstablishment(cp) => self.established(cp, a, up_f_seid, &created),
            Procedure::SessionModification(cp) => self.modified(cp, &created),
            Procedure::SessionDeletion(cp) => {
                if let Some(s) = self.sessions.remove(&cp) {
                    self.endpoint.stats.sessions_deleted += 1;
                    self.events.push_back(Event::Deleted(s));
                }
            }
            _ => {}
        }
    }

    fn established(&mut self, cp: Seid, a: Answered, up: Option<Fseid>, created: &[CreatedPdr]) {
        let Some(up) = up else {
            self.roll_back(a.procedure, None);
            let error = DecodeError::missing(IeType::F_SEID, None, 0)
                .in_message(MessageType::SESSION_ESTABLISHMENT_RESPONSE);
            return self.fail(a.invalid(error));
        };
        let Some(s) = self.sessions.get_mut(&cp) else {
            return self.fail(NodeError::Aborted {
                procedure: a.procedure,
                reason: FORGOTTEN,
            });
        };
        s.up_seid = Some(up.seid);
        s.up_address = up.ipv4.map(IpAddr::V4).or(up.ipv6.map(IpAddr::V6));
        s.state = SessionState::Established;
        if let (Some(pdr), Some(Fteid::Choose { .. })) = (s.uplink_pdr, s.uplink_f_teid)
            && let Some(f) = chosen_f_teid(created, pdr)
        {
            s.uplink_f_teid = Some(f);
        }
        let s = *s;
        self.endpoint.stats.sessions_established += 1;
        self.events.push_back(Event::Established(s));
    }

    fn modified(&mut self, cp: Seid, created: &[CreatedPdr]) {
        let Some(s) = self.sessions.get_mut(&cp) else {
            return;
        };
        s.state = SessionState::Established;
        if let Some(pdr) = s.uplink_pdr
            && let Some(f) = chosen_f_teid(created, pdr)
        {
            s.uplink_f_teid = Some(f);
        }
        let s = *s;
        self.endpoint.stats.sessions_modified += 1;
        self.events.push_back(Event::Modified(s));
    }
}
