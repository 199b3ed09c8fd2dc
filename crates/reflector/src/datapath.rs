//! The reflector's datapath: a worker lcore per queue pair (`worker`) that is a minimal UPF
//! between N3 and N6 (`forward` by the PFCP session [`rules`], decapsulating uplink and
//! encapsulating downlink through `encap`) or an `echo` on one port, with optional
//! `impair`ments, and publishes its `counters`. Sessions with several QoS flows are told apart
//! per packet by [`flows`], and their QERs enforced by [`qer`]. IPv6 UEs are found by their
//! prefix ([`prefixes`]).

pub(crate) mod counters;
pub(crate) mod echo;
pub(crate) mod encap;
pub mod end_marker;
pub(crate) mod flat_map;
pub mod flows;
pub(crate) mod forward;
pub(crate) mod impair;
pub mod prefixes;
pub mod qer;
pub(crate) mod route;
pub(crate) mod route6;
pub mod rules;
pub(crate) mod sharded_map;
pub(crate) mod tags;
pub(crate) mod worker;
