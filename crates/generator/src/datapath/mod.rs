//! The DPDK datapath: ports and queues, the worker lcores, TX and RX.

pub mod assembly;
pub mod calibration;
pub mod classify;
pub mod clock;
pub mod eal_args;
pub mod echo;
pub mod encap;
pub mod flat_map;
pub mod forward;
pub mod frames;
pub mod impair;
pub mod net_dev;
pub mod next_hops;
pub mod phase;
pub mod ports;
pub mod queues;
pub mod reflector;
pub mod rules;
pub mod service;
pub mod tag;
pub mod test_frames;
pub mod tx;
pub mod worker;
