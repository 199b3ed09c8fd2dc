//! upfbench, the appliance: a DPDK traffic generator and reflector for benchmarking 5G UPFs.
//!
//! The binary (`src/main.rs`) only parses the command line and calls [`app`]. Data flows one way:
//! configuration → plan → control plane and datapath → stats → report.
#![forbid(unsafe_code)]

pub mod app;
pub mod cli;
pub mod config;
pub mod control;
pub mod datapath;
pub mod lifecycle;
pub mod plan;
pub mod report;
