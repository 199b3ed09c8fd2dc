//! Node configuration: timers, identity, and the per-role settings.

use core::net::{IpAddr, Ipv4Addr, SocketAddr};
use core::time::Duration;

use crate::ie::{DnsName, NodeId, NtpTimestamp};
use crate::types::{Seid, SequenceNumber, Teid};

/// T1 default: time to wait for a response before retransmitting (TS 29.244 §6.4).
pub const DEFAULT_T1: Duration = Duration::from_secs(3);
/// N1 default: retransmissions before giving up.
pub const DEFAULT_N1: u32 = 3;
/// Default interval between our own Heartbeat Requests (Open5GS uses 10 s, eUPF 5 s).
pub const DEFAULT_HEARTBEAT_INTERVAL: Duration = Duration::from_secs(10);
/// Default largest number of session requests in flight at once: 64 lost none at Open5GS and
/// eUPF, 128 overflowed their receive buffers.
pub const DEFAULT_WINDOW: usize = 64;
/// Default number of session requests in flight at the start (the window adapts from there).
pub const DEFAULT_INITIAL_WINDOW: usize = 16;
/// Default wait for an answer to our Association Release Request (real UPFs send none).
pub const DEFAULT_RELEASE_WAIT: Duration = Duration::from_secs(1);

/// What every node needs: who it is, when it started, and its timers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Config {
    /// Our Node ID. A CP function's must be its N4 IPv4 source address (Open5GS matches on it).
    pub node_id: NodeId,
    /// Our Recovery Time Stamp: when this node started; it must not change during a run.
    pub recovery_time_stamp: NtpTimestamp,
    /// T1: wait this long for a response before retransmitting.
    pub t1: Duration,
    /// N1: retransmit this many times, then give up (N1 + 1 transmissions in all).
    pub n1: u32,
    /// Send our own Heartbeat Requests this often while associated; `None`: never.
    pub heartbeat_interval: Option<Duration>,
    /// How long the response to a peer's request is kept to answer its retransmissions;
    /// `None`: (N1 + 1) × T1, which covers a peer with the same timers.
    pub(crate) response_cache_ttl: Option<Duration>,
    /// The first Sequence Number used for our requests.
    pub(crate) first_sequence: SequenceNumber,
}

impl Config {
    /// Defaults: T1 3 s, N1 3, heartbeats every 10 s, sequence numbers from 1.
    pub fn new(node_id: NodeId, recovery_time_stamp: NtpTimestamp) -> Self {
        Config {
            node_id,
            recovery_time_stamp,
            t1: DEFAULT_T1,
            n1: DEFAULT_N1,
            heartbeat_interval: Some(DEFAULT_HEARTBEAT_INTERVAL),
            response_cache_ttl: None,
            first_sequence: SequenceNumber::from_masked(1),
        }
    }

    /// The response cache lifetime in effect.
    pub(crate) fn cache_ttl(&self) -> Duration {
        self.response_cache_ttl
            .unwrap_or(self.t1 * self.n1.saturating_add(1))
    }
}

/// The CP (tester) side: a [`Config`], the UPF to talk to, and the window.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClientConfig {
    /// Identity and timers.
    pub node: Config,
    /// The UPF's N4 address (port 8805 for real UPFs).
    pub upf: SocketAddr,
    /// At most this many session requests (establish, modify, delete) in flight at once: the
    /// window adapts between 1 and this (see `node::client::window`).
    pub window: usize,
    /// Session requests in flight at the start.
    pub initial_window: usize,
    /// The Association Release Request is sent once (no retransmission) and its answer awaited
    /// this long at most: neither Open5GS nor eUPF answers it.
    pub release_wait: Duration,
}

impl ClientConfig {
    /// A client whose Node ID is its N4 IPv4 address `cp`, talking to `upf`.
    pub fn new(cp: Ipv4Addr, recovery_time_stamp: NtpTimestamp, upf: SocketAddr) -> Self {
        ClientConfig {
            node: Config::new(NodeId::Ipv4(cp), recovery_time_stamp),
            upf,
            window: DEFAULT_WINDOW,
            initial_window: DEFAULT_INITIAL_WINDOW,
            release_wait: DEFAULT_RELEASE_WAIT,
        }
    }
}

/// The UPF (reflector) side.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UpfConfig {
    /// Identity and timers.
    pub node: Config,
    /// The one CP function allowed to associate (matched on the source address).
    pub peer: IpAddr,
    /// Our N4 address, put into the UP F-SEID.
    pub n4_address: Ipv4Addr,
    /// Our N3 address, put into the F-TEIDs we allocate (CH=1): IPv4 or IPv6, the family of
    /// the F-TEIDs we can allocate.
    pub(crate) n3_address: IpAddr,
    /// The first TEID we allocate for CH=1.
    pub first_teid: Teid,
    /// The first UP SEID we allocate.
    pub first_seid: Seid,
    /// The network instances (DNNs) we serve; empty: any. A PDR naming another one is refused
    /// with Cause 73, Offending IE Network Instance and its Failed Rule ID, as UPG-VPP refuses
    /// a network instance it has no configuration for.
    pub network_instances: Vec<DnsName>,
    /// The most sessions held at once; one more is refused with Cause 75 "No resources
    /// available" (TS 29.244 §8.2.1), as a UPF whose session table is full refuses it. `None`:
    /// no limit but memory.
    pub max_sessions: Option<usize>,
}

impl UpfConfig {
    /// A UPF whose Node ID is its N4 address, serving `peer`, with its N3 address of either
    /// family.
    pub fn new(
        n4_address: Ipv4Addr,
        n3_address: impl Into<IpAddr>,
        recovery_time_stamp: NtpTimestamp,
        peer: IpAddr,
    ) -> Self {
        UpfConfig {
            node: Config::new(NodeId::Ipv4(n4_address), recovery_time_stamp),
            peer,
            n4_address,
            n3_address: n3_address.into(),
            first_teid: Teid(0x1000_0000),
            first_seid: Seid(1),
            network_instances: Vec::new(),
            max_sessions: None,
        }
    }
}
