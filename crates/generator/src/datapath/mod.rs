//! The DPDK datapath, laid out by role: what both roles share ([`common`]: the ports and their
//! queues, the service plane, next-hop resolution, EAL arguments, TSC calibration), the traffic
//! generator's workers ([`generator`]) and the reflector's ([`reflector`]). Each role depends
//! on `common` only, never on the other role.

pub mod common;
pub mod generator;
pub mod reflector;

/// Frames as a UPF sends them back, for the unit tests (the RX benchmark includes the file too).
#[cfg(test)]
#[path = "../../tests/support/upf_frames.rs"]
mod upf_frames;
