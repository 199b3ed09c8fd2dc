//! upfbench's control plane on N4, without DPDK: the thread (a tokio runtime) that owns the
//! PFCP client driver, driven by a run through commands ([`client_side`]); what a run checks
//! and says of the UPF's answers ([`checks`], [`failure`], [`progress`]).
//!
//! The generator's run and the cluster's coordinator both program the UPF through it; it uses
//! only `upfbench-pfcp` and tokio, so a coordinator links no DPDK.

#![forbid(unsafe_code)]

pub mod checks;
pub mod client_side;
pub mod failure;
pub mod progress;
