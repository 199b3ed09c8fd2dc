//! The reflector's datapath: a worker lcore per queue pair ([`worker`]) that is a minimal UPF
//! between N3 and N6 ([`forward`] by the PFCP session [`rules`], decapsulating uplink and
//! encapsulating downlink through [`encap`]) or an [`echo`] on one port, with optional
//! [`impair`]ments, and publishes its [`counters`].

pub mod counters;
pub mod echo;
pub mod encap;
pub mod end_marker;
pub mod flat_map;
pub mod forward;
pub mod impair;
pub mod rules;
pub mod sharded_map;
pub mod worker;
