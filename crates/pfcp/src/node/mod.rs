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
mod error;
mod heartbeat;
mod stats;
mod transactions;
mod upf;

pub use client::{AssociationState, Client, Event, Session, SessionState};
pub use config::{
    ClientConfig, Config, DEFAULT_HEARTBEAT_INTERVAL, DEFAULT_N1, DEFAULT_T1, DEFAULT_WINDOW,
    UpfConfig,
};
pub use error::{Error, Procedure};
pub use stats::Stats;
pub use upf::{
    DownlinkRule, RuleChange, RulesTable, SessionRules, Tunnel, Upf, UpfEvent, UplinkRule,
};

use core::net::SocketAddr;

use crate::error::{EmitError, Error as DecodeError, ErrorKind};
use crate::header::{Header, field};
use crate::message::VersionNotSupportedResponse;
use crate::types::SequenceNumber;
use crate::{Message, MessageBody};

/// A datagram for the driver to send.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Transmit {
    /// Where to.
    pub destination: SocketAddr,
    /// The PFCP message.
    pub contents: Vec<u8>,
}

fn encode(m: &Message) -> Result<Vec<u8>, EmitError> {
    m.to_vec()
}

/// The error for a response body of the wrong kind (cannot happen once the type matched, kept
/// so that a codec change could not make the node panic).
fn invalid_body(r: Result<MessageBody, DecodeError>) -> DecodeError {
    match r {
        Err(e) => e,
        Ok(_) => DecodeError::new(ErrorKind::UnsupportedMessage, None, field::MESSAGE_TYPE),
    }
}

/// The messages of a datagram as slices, one per checked header, following FO.
struct Messages<'a> {
    rest: &'a [u8],
    done: bool,
}

impl<'a> Messages<'a> {
    fn new(bytes: &'a [u8]) -> Self {
        Messages {
            rest: bytes,
            done: false,
        }
    }
}

impl<'a> Iterator for Messages<'a> {
    type Item = Result<&'a [u8], DecodeError>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.done {
            return None;
        }
        let h = match Header::new_checked(self.rest) {
            Ok(h) => h,
            Err(e) => {
                self.done = true;
                return Some(Err(e));
            }
        };
        let (msg, rest) = self.rest.split_at(h.message_len());
        self.done = !h.fo_flag() || rest.is_empty();
        self.rest = rest;
        Some(Ok(msg))
    }
}

/// The answer to a request in a PFCP version we do not speak (TS 29.244 §7.2.2.1): a Version
/// Not Supported Response with the request's sequence number, or `None` when `bytes` is not
/// such a request.
fn version_not_supported(bytes: &[u8]) -> Option<Vec<u8>> {
    let version = bytes.first()? >> 5;
    let t = crate::MessageType(*bytes.get(field::MESSAGE_TYPE)?);
    if version == crate::header::VERSION || !t.is_request() {
        return None;
    }
    let at = if bytes[0] & 1 != 0 {
        field::SEQUENCE_SESSION
    } else {
        field::SEQUENCE_NODE
    };
    let s = bytes.get(at..at + 3)?;
    let seq = SequenceNumber::from_masked(u32::from_be_bytes([0, s[0], s[1], s[2]]));
    encode(&Message::node(seq, VersionNotSupportedResponse::default())).ok()
}
