//! The coordinator of agents (docs/scale.md §3 "Agents and a coordinator"), sans-IO: no socket,
//! no clock and no thread here. A driver (`run --cluster`) hands [`Coordinator::handle`] what
//! the agents answered and the time, carries out what [`Coordinator::poll_action`] asks
//! (calls to the agents' API, `api::v1`), and wakes it at [`Coordinator::poll_timeout`], as
//! `pfcp`'s node and `run`'s lifecycle are driven (and quinn-proto).
//!
//! - [`segments`]: the run's UEs cut over the agents by weight, each agent's share of every
//!   stream's rate and packets, and its uplink TEIDs.
//! - [`clock`]: each agent's wall-clock offset by Cristian's method, and the common start.
//! - [`coordinator`]: the step protocol, lost agents, and the steps' outcomes.
//! - [`merge`]: the exact merge of the agents' raw results.
//! - [`trial`]: a merged step as a search's trial.

#![forbid(unsafe_code)]

pub mod clock;
pub mod coordinator;
pub mod merge;
pub mod segments;
pub mod trial;

pub use coordinator::{Action, Coordinator};
