//! The UPF's requests to us (besides heartbeats, which the endpoint answers): Session Report,
//! a UPF-initiated Association Setup, and Association Release.

use std::time::Instant;

use super::{Client, Event};
use crate::error::DecodeError;
use crate::ie::{Cause, OffendingIe};
use crate::message::{
    AssociationReleaseResponse, AssociationSetupResponse, MessageType, SessionReportResponse,
};
use crate::node::endpoint::{Request, Role};
use crate::types::{Seid, SequenceNumber};
use crate::{Message, MessageBody};

impl Client {
    pub(super) fn on_upf_request(&mut self, now: Instant, req: Request<'_>) {
        let Request {
            remote,
            t,
            seq,
            msg,
        } = req;
        let from_upf = remote.ip() == self.config.upf.ip();
        let response = match (t, Message::parse(msg)) {
            (MessageType::SESSION_REPORT_REQUEST, parsed) => self.on_report(parsed, seq),
            (MessageType::ASSOCIATION_RELEASE_REQUEST, _) if from_upf => {
                let sessions_lost = self.end_association("the UPF released the association");
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
            ) if from_upf => {
                // A UPF-initiated association (eUPF can be configured so): accepted.
                self.on_recovery(now, remote, r.recovery_time_stamp);
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
                self.endpoint.stats.invalid += 1;
                None
            }
        };
        if let Some(m) = response {
            self.endpoint.respond(now, req, &m);
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
                        self.endpoint.stats.rejected += 1;
                        let rsp = SessionReportResponse::new(Cause::SESSION_CONTEXT_NOT_FOUND);
                        Some(Message::session(Seid(0), seq, rsp))
                    }
                }
            }
            Err(e) => {
                let cause = e.cause()?;
                self.endpoint.stats.invalid += 1;
                self.endpoint.stats.rejected += 1;
                let mut rsp = SessionReportResponse::new(cause);
                rsp.offending_ie = e.offending_ie().map(OffendingIe);
                Some(Message::session(Seid(0), seq, rsp))
            }
            Ok(_) => None,
        }
    }
}
