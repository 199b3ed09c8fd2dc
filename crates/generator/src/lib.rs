//! upfbench, the appliance: a DPDK traffic generator and reflector for benchmarking 5G UPFs.
//!
//! The binary (`src/main.rs`) only parses the command line and calls [`app`]. Data flows one way:
//! configuration ([`config`]) → plan ([`plan`]) → the run's life cycle ([`lifecycle`]) driving
//! the control plane on N4 ([`n4`]) and the datapath ([`datapath`]) → measurements (the stats
//! crate) → report ([`report`]). `docs/architecture.md` draws it.
#![forbid(unsafe_code)]

pub mod app;
pub mod cli;
pub mod config;
pub mod datapath;
pub mod lifecycle;
pub mod n4;
pub mod plan;
pub mod report;
pub mod search;
pub mod tag;
