//! How DPDK takes a NIC, by its vendor: beside its kernel driver (Mellanox: bifurcated), or
//! through vfio-pci (or a uio driver) with the kernel's driver out of the way.

use crate::machine::PciDevice;

/// Mellanox (NVIDIA networking).
pub(crate) const MELLANOX: u16 = 0x15b3;
/// Red Hat / virtio.
pub(crate) const VIRTIO: u16 = 0x1af4;
/// Intel.
pub(crate) const INTEL: u16 = 0x8086;

/// ConnectX-3 and ConnectX-3 Pro (and the VF): mlx4, not mlx5.
const CONNECTX3: [u16; 3] = [0x1003, 0x1004, 0x1007];

/// Intel's PMDs, by the kernel driver that drives the same NICs.
const INTEL_PMDS: [(&str, &str); 9] = [
    ("ixgbe", "net_ixgbe"),
    ("ixgbevf", "net_ixgbe"),
    ("i40e", "net_i40e"),
    ("iavf", "net_iavf"),
    ("ice", "net_ice"),
    ("igb", "net_e1000"),
    ("igbvf", "net_e1000"),
    ("e1000e", "net_e1000"),
    ("igc", "net_igc"),
];

/// How DPDK takes a NIC.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Takes {
    /// The PMD works beside the kernel driver, which stays bound (rdma-core in between).
    Bifurcated {
        /// The kernel driver that must stay bound (`mlx5_core`).
        kernel_driver: &'static str,
        /// The PMD (`net_mlx5`).
        pmd: &'static str,
    },
    /// The NIC must be bound to vfio-pci (or uio); any of these PMDs drives it.
    UserSpace {
        /// The PMDs that may drive it (one, unless the NIC's kernel driver is unknown).
        pmds: Vec<&'static str>,
    },
    /// A vendor upfbench knows nothing of.
    Unknown,
}

impl Takes {
    /// Of the device `dev`.
    pub(crate) fn of(dev: &PciDevice) -> Takes {
        match dev.vendor {
            MELLANOX if CONNECTX3.contains(&dev.device) => Takes::Bifurcated {
                kernel_driver: "mlx4_core",
                pmd: "net_mlx4",
            },
            MELLANOX => Takes::Bifurcated {
                kernel_driver: "mlx5_core",
                pmd: "net_mlx5",
            },
            VIRTIO => Takes::UserSpace {
                pmds: vec!["net_virtio"],
            },
            INTEL => {
                let known = dev.driver.as_deref().and_then(|d| {
                    INTEL_PMDS
                        .iter()
                        .find(|(kernel, _)| *kernel == d)
                        .map(|&(_, pmd)| pmd)
                });
                Takes::UserSpace {
                    pmds: match known {
                        Some(pmd) => vec![pmd],
                        None => {
                            let mut all: Vec<&str> = INTEL_PMDS.iter().map(|p| p.1).collect();
                            all.dedup();
                            all
                        }
                    },
                }
            }
            0x14e4 => Takes::UserSpace {
                pmds: vec!["net_bnxt"],
            },
            0x1d0f => Takes::UserSpace {
                pmds: vec!["net_ena"],
            },
            0x15ad => Takes::UserSpace {
                pmds: vec!["net_vmxnet3"],
            },
            0x1ae0 => Takes::UserSpace {
                pmds: vec!["net_gve"],
            },
            _ => Takes::Unknown,
        }
    }
}

/// The vendor's name, for people.
pub(crate) fn vendor_name(vendor: u16) -> &'static str {
    match vendor {
        MELLANOX => "Mellanox",
        VIRTIO => "virtio",
        INTEL => "Intel",
        0x14e4 => "Broadcom",
        0x1d0f => "Amazon",
        0x15ad => "VMware",
        0x1ae0 => "Google",
        _ => "vendor",
    }
}

/// Device arguments only the mlx5 PMD reads: they tell a ConnectX port when the NIC is not
/// on this machine to say so itself.
const MLX5_DEVARGS: [&str; 12] = [
    "mprq_en",
    "rxqs_min_mprq",
    "mprq_log_stride_num",
    "mprq_max_memcpy_len",
    "rxq_cqe_comp_en",
    "rxq_pkt_pad_en",
    "txq_inline_max",
    "txq_inline_min",
    "txq_inline_mpw",
    "txqs_min_inline",
    "dv_flow_en",
    "dv_esw_en",
];

/// Whether `devargs` name mlx5's own arguments (`mprq_en=1`).
pub(crate) fn devargs_are_mlx5(devargs: &str) -> bool {
    devargs
        .split(',')
        .filter_map(|kv| kv.split('=').next())
        .any(|k| MLX5_DEVARGS.contains(&k.trim()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dev(vendor: u16, device: u16, driver: Option<&str>) -> PciDevice {
        PciDevice {
            address: "0000:01:00.0".into(),
            class: 0x020000,
            vendor,
            device,
            driver: driver.map(str::to_owned),
            driver_override: None,
            numa_node: None,
            rdma: Vec::new(),
            uverbs: Vec::new(),
            link: None,
        }
    }

    #[test]
    fn each_vendor_is_taken_its_way() {
        assert_eq!(
            Takes::of(&dev(MELLANOX, 0x1017, Some("mlx5_core"))),
            Takes::Bifurcated {
                kernel_driver: "mlx5_core",
                pmd: "net_mlx5"
            }
        );
        assert!(matches!(
            Takes::of(&dev(MELLANOX, 0x1007, None)),
            Takes::Bifurcated {
                pmd: "net_mlx4",
                ..
            }
        ));
        assert_eq!(
            Takes::of(&dev(INTEL, 0x1572, Some("i40e"))),
            Takes::UserSpace {
                pmds: vec!["net_i40e"]
            }
        );
        let Takes::UserSpace { pmds } = Takes::of(&dev(INTEL, 0x1572, Some("vfio-pci"))) else {
            panic!("user space");
        };
        assert!(pmds.contains(&"net_ice") && pmds.contains(&"net_ixgbe"));
        assert_eq!(Takes::of(&dev(0x1234, 1, None)), Takes::Unknown);
        assert!(devargs_are_mlx5("mprq_en=1,rxqs_min_mprq=1"));
        assert!(!devargs_are_mlx5("iface=n3"));
    }
}
