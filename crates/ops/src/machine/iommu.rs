//! What a NIC bound to a user-space driver needs of the kernel: an IOMMU (or vfio's unsafe
//! no-IOMMU mode) and the vfio-pci or a uio driver.

use super::Root;

/// The drivers through which DPDK takes a PCI NIC whose PMD has no kernel driver beside it.
pub const USER_SPACE_DRIVERS: [&str; 3] = ["vfio-pci", "uio_pci_generic", "igb_uio"];

/// The kernel's IOMMU and vfio.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Iommu {
    /// IOMMU groups (`/sys/kernel/iommu_groups`): none means no IOMMU at work.
    pub groups: usize,
    /// The vfio module is loaded (`/sys/module/vfio`).
    pub vfio: bool,
    /// vfio's `enable_unsafe_noiommu_mode`, when the module is loaded.
    pub noiommu: Option<bool>,
    /// The user-space drivers registered with the PCI bus (`vfio-pci`, `uio_pci_generic`,
    /// `igb_uio`).
    pub drivers: Vec<String>,
}

impl Iommu {
    /// Reads it under `root`.
    pub fn read(root: &Root) -> Iommu {
        let noiommu = root
            .read("/sys/module/vfio/parameters/enable_unsafe_noiommu_mode")
            .map(|v| matches!(v.as_str(), "Y" | "y" | "1"));
        Iommu {
            groups: root.list("/sys/kernel/iommu_groups").len(),
            vfio: root.is_dir("/sys/module/vfio"),
            noiommu,
            drivers: USER_SPACE_DRIVERS
                .iter()
                .filter(|d| root.is_dir(&format!("/sys/bus/pci/drivers/{d}")))
                .map(|d| (*d).to_owned())
                .collect(),
        }
    }

    /// Whether the driver `name` is registered.
    pub(crate) fn has_driver(&self, name: &str) -> bool {
        self.drivers.iter().any(|d| d == name)
    }

    /// Whether vfio-pci can take a device: an IOMMU, or no-IOMMU mode.
    pub(crate) fn vfio_usable(&self) -> bool {
        self.groups > 0 || self.noiommu == Some(true)
    }
}
