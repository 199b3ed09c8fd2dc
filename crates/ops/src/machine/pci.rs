//! The PCI devices (`/sys/bus/pci/devices/ADDR`): ids, class, driver, NUMA node, and the RDMA
//! devices a Mellanox NIC's kernel driver makes.

use super::Root;

const DEVICES: &str = "/sys/bus/pci/devices";

/// One PCI function.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PciDevice {
    /// Its address with the domain: `0000:3b:00.0`.
    pub address: String,
    /// Class, subclass and interface (`0x020000`: an Ethernet controller).
    pub class: u32,
    /// Vendor id (`0x15b3`: Mellanox).
    pub vendor: u16,
    /// Device id.
    pub device: u16,
    /// The driver bound to it (`mlx5_core`, `virtio-pci`, `vfio-pci`), if any.
    pub driver: Option<String>,
    /// The driver the next probe binds it to (`driver_override`), if set.
    pub driver_override: Option<String>,
    /// Its NUMA node; `None` when the platform does not say (`-1`).
    pub numa_node: Option<u32>,
    /// Its RDMA devices (`infiniband/mlx5_0`) with their firmware versions.
    pub rdma: Vec<(String, Option<String>)>,
    /// Its verbs character devices (`infiniband_verbs/uverbs0`: ib_uverbs).
    pub uverbs: Vec<String>,
    /// Its PCIe link, when the platform tells (physical functions; not virtio in most VMs).
    pub link: Option<PcieLink>,
}

/// A PCIe link as it runs and as the device could run it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PcieLink {
    /// `8.0 GT/s PCIe` (`current_link_speed`).
    pub speed: String,
    /// Lanes (`current_link_width`).
    pub width: u32,
    /// `max_link_speed`.
    pub(crate) max_speed: String,
    /// `max_link_width`.
    pub(crate) max_width: u32,
}

impl PciDevice {
    /// Reads the device at `address` (with its domain) under `root`, if there is one.
    pub fn read(root: &Root, address: &str) -> Option<PciDevice> {
        let dir = format!("{DEVICES}/{address}");
        if !root.is_dir(&dir) {
            return None;
        }
        let hex = |name: &str| {
            root.read(&format!("{dir}/{name}"))
                .and_then(|v| u32::from_str_radix(v.trim_start_matches("0x"), 16).ok())
        };
        let rdma = root
            .list(&format!("{dir}/infiniband"))
            .into_iter()
            .map(|ib| {
                let fw = root.read(&format!("{dir}/infiniband/{ib}/fw_ver"));
                (ib, fw)
            })
            .collect();
        Some(PciDevice {
            address: address.to_owned(),
            class: hex("class").unwrap_or(0),
            vendor: hex("vendor").unwrap_or(0) as u16,
            device: hex("device").unwrap_or(0) as u16,
            driver: root.link_name(&format!("{dir}/driver")),
            driver_override: root
                .read(&format!("{dir}/driver_override"))
                .filter(|o| !o.is_empty() && o != "(null)"),
            numa_node: root
                .read(&format!("{dir}/numa_node"))
                .and_then(|n| n.parse().ok()),
            rdma,
            uverbs: root.list(&format!("{dir}/infiniband_verbs")),
            link: (|| {
                let read = |f: &str| root.read(&format!("{dir}/{f}"));
                Some(PcieLink {
                    speed: read("current_link_speed")?,
                    width: read("current_link_width")?.parse().ok()?,
                    max_speed: read("max_link_speed")?,
                    max_width: read("max_link_width")?.parse().ok()?,
                })
            })(),
        })
    }

    /// Every PCI device under `root`.
    pub(crate) fn read_all(root: &Root) -> Vec<PciDevice> {
        root.list(DEVICES)
            .iter()
            .filter_map(|a| PciDevice::read(root, a))
            .collect()
    }

    /// Whether it is a network controller (class 0x02xxxx).
    pub fn is_network(&self) -> bool {
        self.class >> 16 == 0x02
    }

    /// `15b3:1017`.
    pub fn ids(&self) -> String {
        format!("{:04x}:{:04x}", self.vendor, self.device)
    }
}

/// A PCI address as sysfs names it: with its domain (`3b:00.0` → `0000:3b:00.0`), lower case.
pub fn full_address(address: &str) -> String {
    let a = address.trim().to_ascii_lowercase();
    if a.matches(':').count() == 1 {
        format!("0000:{a}")
    } else {
        a
    }
}

/// Whether `text` looks like a PCI address with its domain (`0000:3b:00.0`).
pub fn is_full_address(text: &str) -> bool {
    let b = text.as_bytes();
    b.len() == 12
        && b[4] == b':'
        && b[7] == b':'
        && b[10] == b'.'
        && text
            .chars()
            .enumerate()
            .all(|(i, c)| matches!(i, 4 | 7 | 10) || c.is_ascii_hexdigit())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn addresses_get_their_domain() {
        assert_eq!(full_address("3B:00.1"), "0000:3b:00.1");
        assert_eq!(full_address("0000:3b:00.0"), "0000:3b:00.0");
        assert!(is_full_address("0000:3b:00.0"));
        assert!(!is_full_address("pci0000:00"));
        assert!(!is_full_address("virtio2"));
    }
}
