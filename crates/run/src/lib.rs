//! A run, sans-IO: its plan, computed from the system file and the profile before anything is
//! touched ([`plan`]), the life cycle that drives it from association to release ([`lifecycle`]),
//! and the phases its workers go through ([`phase`]). Nothing here does I/O or knows DPDK; the
//! generator crate drives the machine with the datapath and the N4 client.
#![forbid(unsafe_code)]

pub mod lifecycle;
pub mod phase;
pub mod plan;
