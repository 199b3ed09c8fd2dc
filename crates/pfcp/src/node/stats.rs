//! Counters a node keeps about its traffic and procedures.

/// Counters since the node was created.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Stats {
    /// Datagrams handed to the node.
    pub datagrams_received: u64,
    /// Datagrams the node asked to send (first transmissions, retransmissions, responses).
    pub datagrams_sent: u64,
    /// Requests sent for the first time.
    pub requests_sent: u64,
    /// Retransmissions of our requests (T1 expired).
    pub retransmissions: u64,
    /// Our requests given up after N1 retransmissions (the best-effort Association Release is
    /// counted in `releases_unanswered` instead).
    pub timeouts: u64,
    /// Association Release Requests not answered within the release wait (Open5GS and eUPF
    /// never answer them).
    pub releases_unanswered: u64,
    /// Peer requests answered from the response cache instead of being applied again.
    pub answered_from_cache: u64,
    /// Responses that match no request in flight (late, duplicated, or foreign).
    pub unmatched_responses: u64,
    /// Datagrams that could not be read (bad header, undecodable, unsupported message).
    pub invalid: u64,
    /// Peer requests answered with a rejection Cause.
    pub rejected: u64,
    /// Heartbeat Requests from the peer answered.
    pub heartbeats_answered: u64,
    /// Session establishments: confirmed by the UPF (client), applied to the rules (UPF).
    pub sessions_established: u64,
    /// Session modifications confirmed (client) or applied (UPF).
    pub sessions_modified: u64,
    /// Session deletions confirmed (client) or applied (UPF).
    pub sessions_deleted: u64,
    /// Session requests that may be in flight now (client; 0 on the UPF side).
    pub window: u64,
    /// The largest the window has been (client).
    pub window_largest: u64,
}
