//! What upfbench's tests share, so that no test copies another's set-up: a simulated run for the
//! measurement crates ([`sim`]) and frames as a UPF sends them back ([`upf_frames`]). A
//! dev-dependency only; nothing here reaches the binary.
#![forbid(unsafe_code)]

pub mod sim;
pub mod upf_frames;
