//! The tokio driver: a thin shell that gives a [`node`](crate::node) a UDP socket and the time.
//!
//! Each driver is a task that owns its node and its socket: it feeds received datagrams and
//! timer expiries to the node, sends what the node produces (draining the socket and flushing
//! the node's queue once per wake-up), and answers commands from its handles. Heartbeats are
//! answered for as long as the task runs, whatever else is going on.
//!
//! ```no_run
//! # async fn run() -> Result<(), Box<dyn std::error::Error>> {
//! use std::net::{Ipv4Addr, SocketAddr};
//! use upfbench_pfcp::driver::{self, PfcpClient};
//! use upfbench_pfcp::node::{ClientConfig, UpfConfig};
//!
//! let cp = Ipv4Addr::new(127, 0, 0, 1);
//! let up = Ipv4Addr::new(127, 0, 0, 2);
//! let n3 = Ipv4Addr::new(127, 0, 0, 3);
//! let ts = driver::recovery_time_stamp_now();
//! // The reflector's side.
//! let (upf, mut channels) =
//!     driver::serve(driver::n4(up), UpfConfig::new(up, n3, ts, cp.into())).await?;
//! // The generator's side.
//! let (client, _events) =
//!     PfcpClient::start(driver::n4(cp), ClientConfig::new(cp, ts, driver::n4(up))).await?;
//! client.associate().await?;
//! # let plans = vec![];
//! let sessions = client.establish_all(plans).await?;
//! let table = upf.rules().await?;
//! assert_eq!(table.len(), sessions.len());
//! while let Ok(change) = channels.changes.try_recv() { /* mirror into the datapath */ }
//! client.delete_all().await?;
//! client.release().await?;
//! # Ok(()) }
//! ```

mod batch;
mod client;
mod io;
mod sans_io;
mod task;
mod upf;

pub use batch::{Association, BatchProgress, DeleteAllError, EstablishAllError};
pub use client::{Batch, PfcpClient, Release};
pub use upf::{ApplyRules, UpfChannels, UpfServer, serve, serve_applying, serve_faulty};

use std::net::{IpAddr, SocketAddr};
use std::time::{SystemTime, UNIX_EPOCH};

use crate::ie::NtpTimestamp;

/// The PFCP port (TS 29.244 §7.2).
pub const PFCP_PORT: u16 = 8805;

/// `ip`:8805.
pub fn n4(ip: impl Into<IpAddr>) -> SocketAddr {
    SocketAddr::new(ip.into(), PFCP_PORT)
}

/// A Recovery Time Stamp for a node starting now: read the clock once and keep the value for
/// the whole run.
pub fn recovery_time_stamp_now() -> NtpTimestamp {
    let secs = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    NtpTimestamp::from_unix_secs(secs)
}
