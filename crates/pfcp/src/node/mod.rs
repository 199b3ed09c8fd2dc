//! The sans-IO PFCP node: a deterministic state machine that knows no socket and no clock.
//!
//! Two roles share its machinery: the [`Client`] (the CP side the traffic generator plays) and
//! the [`Upf`] (the UP side the reflector plays). Both are driven the same way, in the style of
//! quinn-proto and smoltcp:
//!
//! - feed what arrives: `handle_datagram(now, remote, bytes)`;
//! - send what they produce: `poll_transmit()` until `None`;
//! - call `handle_timeout(now)` when `poll_timeout()` says;
//! - read what happened: `poll_event()` until `None`.
//!
//! `now` is whatever the caller says it is: a test can run hours of virtual time in
//! milliseconds. The node owns the sequence numbers, retransmission (T1/N1, see [`Config`]),
//! response matching, answering duplicate requests from a cache, heartbeats both ways, peer
//! restart detection, and the session tables.
//!
//! ```
//! use std::net::{Ipv4Addr, SocketAddr};
//! use std::time::Instant;
//! use upfbench_pfcp::ie::NtpTimestamp;
//! use upfbench_pfcp::node::{Client, ClientConfig, Event, Upf, UpfConfig};
//!
//! let cp: SocketAddr = "192.168.14.111:8805".parse().unwrap();
//! let up: SocketAddr = "192.168.14.151:8805".parse().unwrap();
//! let n3 = Ipv4Addr::new(192, 168, 13, 151);
//! let mut client = Client::new(ClientConfig::new(Ipv4Addr::new(192, 168, 14, 111), NtpTimestamp(1), up));
//! let mut upf = Upf::new(UpfConfig::new(Ipv4Addr::new(192, 168, 14, 151), n3, NtpTimestamp(2), cp.ip()));
//! let now = Instant::now();
//! client.associate(now).unwrap();
//! // A perfect network: move datagrams until both are quiet.
//! loop {
//!     let mut moved = false;
//!     while let Some(t) = client.poll_transmit() {
//!         upf.handle_datagram(now, cp, &t.contents);
//!         moved = true;
//!     }
//!     while let Some(t) = upf.poll_transmit() {
//!         client.handle_datagram(now, up, &t.contents);
//!         moved = true;
//!     }
//!     if !moved { break; }
//! }
//! assert!(matches!(client.poll_event(), Some(Event::Associated { .. })));
//! ```

mod cache;
mod client;
mod config;
mod endpoint;
mod error;
mod faults;
mod heartbeat;
mod stats;
mod transactions;
mod upf;

pub use client::{AssociationState, Client, Event, Figures, LatencySummary, Session, SessionState};
pub use config::{
    ClientConfig, Config, DEFAULT_HEARTBEAT_INTERVAL, DEFAULT_INITIAL_WINDOW, DEFAULT_N1,
    DEFAULT_RELEASE_WAIT, DEFAULT_T1, DEFAULT_WINDOW, UpfConfig,
};
pub use error::{NodeError, Procedure};
pub use faults::{FaultCounters, FaultyUpf, N4Faults};
pub use stats::Stats;
pub use upf::{
    DownlinkRule, QerRule, RuleChange, RulesTable, SessionRules, Tunnel, Upf, UpfEvent, UplinkRule,
};

use core::net::SocketAddr;

/// A datagram for the driver to send.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Transmit {
    /// Where to.
    pub destination: SocketAddr,
    /// The PFCP message.
    pub contents: Vec<u8>,
}
