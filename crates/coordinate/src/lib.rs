//! The coordinator's driver (docs/scale.md §3 "Agents and a coordinator", §8 step 9): the
//! sans-IO [`Coordinator`](upfbench_cluster::Coordinator) of `crates/cluster` put on sockets.
//! Every call it asks for is made with `crates/remote`'s typed client on a task of its own,
//! bounded by the cluster file's `agent_timeout`; the answers and the time go back to it, and it
//! is woken at its `poll_timeout`. No DPDK: the coordinator runs on any box.
//!
//! - [`setup`]: the agents (the cluster file's or `--agents`), their clients and `GET /v1`,
//!   their segments.
//! - [`gnbs`]: PFCP as one SMF: the session plans over every (agent, pair) as a gNB.
//! - [`smf`]: the one association and every session, through `crates/n4`.
//! - [`call`]: one call to an agent, its answer or its failure as the coordinator takes them.
//! - [`drive`](mod@drive): the loop, the steps given when the coordinator is ready, and what came of them.
//! - [`sections`]: the report's `agents` and `incomplete`, events.jsonl's `cluster:agent_lost`.
//! - [`run`](mod@run): a run over agents from its set-up to its report.
//! - [`step_report`](mod@step_report): a merged step as the single box's `StepReport`.

#![forbid(unsafe_code)]

pub mod call;
pub mod drive;
pub mod gnbs;
pub mod held;
pub mod interval_log;
pub mod live;
pub mod run;
pub mod search;
pub mod sections;
pub mod setup;
pub mod smf;
pub mod step_report;
pub mod teardown;

pub use drive::{Driven, EXIT_INCOMPLETE, drive};
