//! The machine under the tester, for its operator: what it has and how it is set up
//! ([`machine`]: CPUs, hugepages, IOMMU, PCI devices, libraries, read from /proc and /sys),
//! whether it can run a system file and how to fix what is missing (`upfbench doctor`,
//! [`doctor`]), its NICs and their drivers (`upfbench nics` and `upfbench bind`, [`nics`]), and
//! the DPDK ports EAL sees (`upfbench ports`, [`ports`]).
#![forbid(unsafe_code)]

pub mod doctor;
pub mod machine;
pub mod nics;
pub mod ports;
