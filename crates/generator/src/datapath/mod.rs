//! The DPDK datapath: ports and queues, the worker lcores, TX and RX.

pub mod classify;
pub mod clock;
pub mod eal_args;
pub mod phase;
pub mod tag;
