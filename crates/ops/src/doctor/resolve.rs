//! Each configured port as the machine has it: a virtual device of some PMD, or a PCI device
//! (there or not) that DPDK takes one way or the other.

use super::setup::{PortUse, Setup};
use super::software::Dpdk;
use crate::machine::{Machine, PciDevice, USER_SPACE_DRIVERS, full_address};
use crate::nics::takes::{Takes, devargs_are_mlx5};
use upfbench_config::Device;

/// A port's device on this machine.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum PortDevice<'m> {
    /// A virtual device: no NIC.
    Vdev {
        /// The PMD that makes it (`net_memif` for `net_memif0`).
        pmd: String,
        /// The kernel interface it sits on (`iface=` of af_packet and af_xdp).
        iface: Option<String>,
    },
    /// A PCI device.
    Pci {
        /// Its address with the domain.
        address: String,
        /// The device, if the machine has one there.
        device: Option<&'m PciDevice>,
        /// How DPDK takes it: from the device's vendor, or, without the device, from mlx5's
        /// own device arguments; `None` if neither tells.
        takes: Option<Takes>,
    },
}

/// A port and its device.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct ResolvedPort<'a, 'm> {
    /// The port as the file configures it.
    pub port: &'a PortUse,
    /// Its device on this machine.
    pub device: PortDevice<'m>,
}

impl ResolvedPort<'_, '_> {
    /// The PMDs that could drive it (any one will do), if known.
    pub(super) fn pmds(&self) -> Vec<String> {
        match &self.device {
            PortDevice::Vdev { pmd, .. } => vec![pmd.clone()],
            PortDevice::Pci { takes, .. } => match takes {
                Some(Takes::Bifurcated { pmd, .. }) => vec![(*pmd).to_owned()],
                Some(Takes::UserSpace { pmds }) => pmds.iter().map(|p| (*p).to_owned()).collect(),
                Some(Takes::Unknown) | None => Vec::new(),
            },
        }
    }

    /// Whether DPDK takes it through vfio-pci (a PCI NIC without a bifurcated PMD, not
    /// already on a uio driver).
    pub(super) fn needs_vfio(&self) -> bool {
        match &self.device {
            PortDevice::Vdev { .. } => false,
            PortDevice::Pci { device, takes, .. } => {
                if device.is_some_and(|d| !d.is_network()) {
                    // Not a NIC at all: the device line says so, vfio would not help.
                    return false;
                }
                let on_uio = device
                    .and_then(|d| d.driver.as_deref())
                    .is_some_and(|d| d != "vfio-pci" && USER_SPACE_DRIVERS.contains(&d));
                !matches!(takes, Some(Takes::Bifurcated { .. })) && !on_uio
            }
        }
    }
}

/// The file's ports on this machine.
pub(super) fn resolve<'a, 'm>(
    setup: &'a Setup,
    machine: &'m Machine,
    dpdk: &Dpdk,
) -> Vec<ResolvedPort<'a, 'm>> {
    setup
        .ports
        .iter()
        .map(|port| ResolvedPort {
            port,
            device: match &port.device {
                Device::Vdev(name) => PortDevice::Vdev {
                    pmd: vdev_pmd(name, dpdk),
                    iface: port.devarg("iface").map(str::to_owned),
                },
                Device::Pci(address) => {
                    let device = machine.pci_device(address);
                    let takes = match device {
                        Some(d) => Some(Takes::of(d)),
                        None if port.devargs.as_deref().is_some_and(devargs_are_mlx5) => {
                            Some(Takes::Bifurcated {
                                kernel_driver: "mlx5_core",
                                pmd: "net_mlx5",
                            })
                        }
                        None => None,
                    };
                    PortDevice::Pci {
                        address: full_address(address),
                        device,
                        takes,
                    }
                }
            },
        })
        .collect()
}

/// The PMD of a vdev name, as EAL matches it: the longest PMD name the device's name starts
/// with; if DPDK has none, the name without its trailing digits.
fn vdev_pmd(name: &str, dpdk: &Dpdk) -> String {
    dpdk.pmd_names()
        .filter(|p| name.starts_with(p.as_str()))
        .max_by_key(|p| p.len())
        .cloned()
        .unwrap_or_else(|| {
            name.trim_end_matches(|c: char| c.is_ascii_digit())
                .to_owned()
        })
}
