//! The machine as `doctor`, `nics` and `bind` see it: facts read once from sysfs and procfs
//! under a root directory (`/`, or a made-up tree in tests), with no side effect. The checks
//! are pure functions of these facts.

mod cmdline;
mod cpus;
mod hugepages;
mod iommu;
mod libs;
mod net;
mod pci;
mod root;

pub use cmdline::Cmdline;
pub use cpus::{Cpus, format_cpulist, parse_cpulist};
pub use hugepages::{HugeMount, Hugepages, NodePages, PagePool, size_name};
pub use iommu::{Iommu, USER_SPACE_DRIVERS};
pub use libs::{find_library, library_dirs};
pub use net::Interface;
pub use pci::{PciDevice, PcieLink, full_address, is_full_address};
pub use root::Root;

/// What the checks need to know of the machine.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Machine {
    /// The kernel's command line.
    pub cmdline: Cmdline,
    /// The CPUs.
    pub cpus: Cpus,
    /// The hugepages.
    pub hugepages: Hugepages,
    /// IOMMU and vfio.
    pub iommu: Iommu,
    /// Every PCI device.
    pub pci: Vec<PciDevice>,
    /// Every network interface.
    pub interfaces: Vec<Interface>,
}

impl Machine {
    /// Reads the machine under `root`.
    pub fn read(root: &Root) -> Machine {
        let cmdline = Cmdline::parse(&root.read("/proc/cmdline").unwrap_or_default());
        Machine {
            cpus: Cpus::read(root, &cmdline),
            hugepages: Hugepages::read(root),
            iommu: Iommu::read(root),
            pci: PciDevice::read_all(root),
            interfaces: Interface::read_all(root),
            cmdline,
        }
    }

    /// The PCI device at `address` (with or without its domain).
    pub(crate) fn pci_device(&self, address: &str) -> Option<&PciDevice> {
        let address = full_address(address);
        self.pci.iter().find(|d| d.address == address)
    }

    /// The network controllers (PCI class 0x02).
    pub fn nics(&self) -> impl Iterator<Item = &PciDevice> {
        self.pci.iter().filter(|d| d.is_network())
    }

    /// The interface named `name`.
    pub fn interface(&self, name: &str) -> Option<&Interface> {
        self.interfaces.iter().find(|i| i.name == name)
    }

    /// The kernel interface of the PCI device at `address` (full form), if it has one.
    pub(crate) fn interface_of(&self, address: &str) -> Option<&Interface> {
        self.interfaces
            .iter()
            .find(|i| i.pci.as_deref() == Some(address))
    }
}
