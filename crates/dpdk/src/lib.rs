//! Bindings to the system DPDK (22.11 LTS) and a small safe API over them: EAL, mempools, ports,
//! queues, bursts, mbufs and lcores.
//!
//! This is the only crate of upfbench that contains `unsafe`. It is empty until issue 4 fills it.
