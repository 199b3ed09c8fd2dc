//! What the generator and the reflector share: EAL arguments and TSC calibration, the two ports
//! and a worker's queues on them, the service plane that answers ARP, ICMP and GTP-U echo on
//! them, the resolution of next hops by ARP, the kernel's counters of a port's interface, and
//! the socket files of memif and vhost ports.
#![forbid(unsafe_code)]

pub mod calibration;
pub mod devices;
pub mod eal_args;
pub mod net_dev;
pub mod next_hops;
pub mod port_setup;
pub mod queues;
pub mod rx_spread;
pub mod service;
pub mod socket_files;
pub mod vlan;
pub mod vlan_offload;
