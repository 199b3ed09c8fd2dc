//! The traffic generator: `upfbench run`, `sweep`, `search`, `capacity` and `validate`.
//!
//! Data flows one way: the files (the config crate) → the plan and the run's life cycle (the run
//! crate) → the commands ([`commands`]) driving the control plane on N4 (the n4 crate) and the
//! generator's datapath ([`datapath`]) → measurements (the stats crate) → the report
//! ([`report`] assembles the report crate's model from what the run measured) → its files.
//! `docs/architecture.md` draws it.
#![forbid(unsafe_code)]

pub mod commands;
pub mod datapath;
mod metrics;
pub mod report;
