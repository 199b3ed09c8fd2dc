//! `upfbench reflect`: a minimal UPF that stands in for a real one, so that a whole benchmark
//! runs on one machine. Its datapath ([`datapath`]: a worker lcore per queue pair that
//! decapsulates uplink and encapsulates downlink by the PFCP session rules, or echoes, with
//! optional impairments), its N4 side ([`upf_side`]: the PFCP UPF node on a thread of its own,
//! publishing the rules to the workers), its lines and metrics, and the command that wires
//! them ([`run`]).
#![forbid(unsafe_code)]

mod bring_up;
mod command;
pub mod datapath;
mod lines;
mod metrics;
mod qer_lines;
pub mod upf_side;
mod worker_template;

pub use command::run;
