//! The client's session table: CP SEID to what the UPF returned.

use core::net::IpAddr;

use crate::ie::Fteid;
use crate::types::{PdrId, Seid};

/// Where a session stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum SessionState {
    /// The Establishment Request is queued or in flight.
    Establishing,
    /// The UPF accepted it; no procedure in flight.
    Established,
    /// A Modification Request is queued or in flight.
    Modifying,
    /// A Deletion Request is queued or in flight.
    Deleting,
}

impl SessionState {
    pub(crate) fn describe(self) -> &'static str {
        match self {
            SessionState::Establishing => "the session is being established",
            SessionState::Established => "the session is established",
            SessionState::Modifying => "the session is being modified",
            SessionState::Deleting => "the session is being deleted",
        }
    }
}

/// One session as the client knows it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Session {
    /// Our SEID (the key of the table).
    pub cp_seid: Seid,
    /// The UPF's SEID, put into the header of later requests; known once established.
    pub up_seid: Option<Seid>,
    /// The UPF's N4 address from the UP F-SEID: its IPv4 address, or its IPv6 address when it
    /// has no IPv4 one.
    pub up_address: Option<IpAddr>,
    /// The state.
    pub state: SessionState,
    /// The uplink F-TEID: ours, or the one the UPF chose (CH=1, from the Created PDR).
    pub uplink_f_teid: Option<Fteid>,
    /// The PDR that carries the uplink F-TEID.
    pub uplink_pdr: Option<PdrId>,
}

impl Session {
    /// The uplink TEID and the UPF's N3 address, what uplink G-PDUs are sent to: its IPv4
    /// address, or its IPv6 one when it has no IPv4 one (an IPv6 N3).
    pub fn uplink_endpoint(&self) -> Option<(crate::types::Teid, IpAddr)> {
        match self.uplink_f_teid? {
            Fteid::Assigned {
                teid,
                ipv4: Some(a),
                ..
            } => Some((teid, IpAddr::V4(a))),
            Fteid::Assigned {
                teid,
                ipv6: Some(a),
                ..
            } => Some((teid, IpAddr::V6(a))),
            _ => None,
        }
    }
}
