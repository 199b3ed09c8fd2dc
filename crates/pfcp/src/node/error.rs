//! What can go wrong in a procedure, named after the procedure, the peer and the request.

use core::fmt;
use core::net::SocketAddr;

use crate::error::{DecodeError, EmitError};
use crate::ie::{Cause, FailedRuleId, IeType};
use crate::types::{Seid, SequenceNumber};

/// The procedures a node starts (TS 29.244 §6).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Procedure {
    /// PFCP Association Setup (§6.2.6).
    AssociationSetup,
    /// PFCP Association Release (§6.2.8).
    AssociationRelease,
    /// Heartbeat (§6.2.2).
    Heartbeat,
    /// Session Establishment (§6.3.2) of the session with this CP SEID.
    SessionEstablishment(Seid),
    /// Session Modification (§6.3.3) of the session with this CP SEID.
    SessionModification(Seid),
    /// Session Deletion (§6.3.4) of the session with this CP SEID.
    SessionDeletion(Seid),
}

impl Procedure {
    /// The CP SEID of a session procedure.
    pub fn cp_seid(self) -> Option<Seid> {
        match self {
            Procedure::SessionEstablishment(s)
            | Procedure::SessionModification(s)
            | Procedure::SessionDeletion(s) => Some(s),
            _ => None,
        }
    }
}

impl fmt::Display for Procedure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Procedure::AssociationSetup => f.write_str("Association Setup"),
            Procedure::AssociationRelease => f.write_str("Association Release"),
            Procedure::Heartbeat => f.write_str("Heartbeat"),
            Procedure::SessionEstablishment(s) => {
                write!(f, "Session Establishment (CP SEID {:#x})", s.0)
            }
            Procedure::SessionModification(s) => {
                write!(f, "Session Modification (CP SEID {:#x})", s.0)
            }
            Procedure::SessionDeletion(s) => write!(f, "Session Deletion (CP SEID {:#x})", s.0),
        }
    }
}

/// Why a procedure could not be started, or did not succeed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum NodeError {
    /// No response after N1 retransmissions.
    #[error(
        "{procedure} with {peer}: no response to sequence number {seq} after {attempts} transmissions"
    )]
    Timeout {
        /// The procedure.
        procedure: Procedure,
        /// Where the request went.
        peer: SocketAddr,
        /// Its sequence number.
        seq: SequenceNumber,
        /// Transmissions made (N1 + 1).
        attempts: u32,
    },
    /// The peer answered with a Version Not Supported Response (TS 29.244 §7.2.2.1): it does
    /// not speak our PFCP version, and no retransmission will change that.
    #[error(
        "{procedure} with {peer}: Version Not Supported Response to sequence number {seq} \
         (we speak PFCP version {}, the peer version {version})",
        crate::header::VERSION
    )]
    VersionNotSupported {
        /// The procedure.
        procedure: Procedure,
        /// Who answered.
        peer: SocketAddr,
        /// The request's sequence number.
        seq: SequenceNumber,
        /// The version in the response's header: the latest the peer supports.
        version: u8,
    },
    /// The peer answered with a rejection Cause.
    #[error(
        "{procedure} rejected by {peer} (sequence number {seq}): {cause}{}{}",
        offending_ie.map(|t| format!(", offending IE {t}")).unwrap_or_default(),
        failed_rule.map(|r| format!(", failed rule {r}")).unwrap_or_default()
    )]
    Rejected {
        /// The procedure.
        procedure: Procedure,
        /// Who rejected it.
        peer: SocketAddr,
        /// The request's sequence number.
        seq: SequenceNumber,
        /// The Cause.
        cause: Cause,
        /// The Offending IE, when the peer named one.
        offending_ie: Option<IeType>,
        /// The Failed Rule ID, when the peer named one.
        failed_rule: Option<FailedRuleId>,
    },
    /// The response could not be decoded or lacks what the procedure needs.
    #[error(
        "{procedure}: invalid response from {peer} (sequence number {seq}): {error}{}",
        said_cause(*cause)
    )]
    InvalidResponse {
        /// The procedure.
        procedure: Procedure,
        /// Who answered.
        peer: SocketAddr,
        /// The request's sequence number.
        seq: SequenceNumber,
        /// What is wrong with it.
        error: DecodeError,
        /// The Cause it carried all the same, when one could be read from it: a malformed
        /// response may still say why (Open5GS 2.7.7 refuses a session past its pool with
        /// Cause 66 in a response without its mandatory Node ID).
        cause: Option<Cause>,
    },
    /// The procedure needs an association that is not (or no longer) established.
    #[error("{procedure}: no PFCP association with {peer}")]
    NotAssociated {
        /// The procedure.
        procedure: Procedure,
        /// The peer.
        peer: SocketAddr,
    },
    /// A session procedure names a CP SEID the node does not know.
    #[error("{procedure}: no such session")]
    UnknownSession {
        /// The procedure.
        procedure: Procedure,
    },
    /// A session establishment reuses the CP SEID of an existing session.
    #[error("{procedure}: a session with this CP SEID exists")]
    DuplicateSession {
        /// The procedure.
        procedure: Procedure,
    },
    /// Another procedure holds the session or the association.
    #[error("{procedure}: not possible while {state}")]
    Busy {
        /// The procedure refused.
        procedure: Procedure,
        /// What is going on.
        state: &'static str,
    },
    /// The request could not be encoded.
    #[error("{procedure}: cannot encode the request: {error}")]
    Encode {
        /// The procedure.
        procedure: Procedure,
        /// Why.
        error: EmitError,
    },
    /// The procedure was abandoned before it completed.
    #[error("{procedure} aborted: {reason}")]
    Aborted {
        /// The procedure.
        procedure: Procedure,
        /// Why (peer restarted, association released, driver stopped).
        reason: &'static str,
    },
}

impl NodeError {
    /// Whether the peer answered no for good: a rejection Cause or a Version Not Supported
    /// Response. A timeout is not one (the peer may be slow, or a datagram lost).
    pub fn is_refusal(&self) -> bool {
        matches!(
            self,
            NodeError::Rejected { .. } | NodeError::VersionNotSupported { .. }
        )
    }

    /// The procedure that failed.
    pub fn procedure(&self) -> Procedure {
        match self {
            NodeError::Timeout { procedure, .. }
            | NodeError::VersionNotSupported { procedure, .. }
            | NodeError::Rejected { procedure, .. }
            | NodeError::InvalidResponse { procedure, .. }
            | NodeError::NotAssociated { procedure, .. }
            | NodeError::UnknownSession { procedure }
            | NodeError::DuplicateSession { procedure }
            | NodeError::Busy { procedure, .. }
            | NodeError::Encode { procedure, .. }
            | NodeError::Aborted { procedure, .. } => *procedure,
        }
    }
}

/// ", which says Cause NAME (N)" for an invalid response that carried a Cause.
fn said_cause(cause: Option<Cause>) -> String {
    cause.map_or(String::new(), |c| format!(", which says {c}"))
}
