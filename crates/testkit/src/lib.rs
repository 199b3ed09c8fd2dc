//! What upfbench's tests share, so that no test copies another's set-up: a simulated run for the
//! measurement crates ([`sim`]), frames as a UPF sends them back ([`upf_frames`]), the runner of
//! the `harness = false` test binaries ([`runner`]) and, with the feature `eal`, EAL for tests
//! (`eal`: the arguments every test's EAL takes, the set-up of a binary that initialises it). A
//! dev-dependency only; nothing here reaches the binary. Without `eal` it needs no DPDK.
#![forbid(unsafe_code)]

#[cfg(feature = "eal")]
pub mod eal;
pub mod runner;
pub mod sim;
pub mod upf_frames;
