//! Made-up sysfs and procfs trees in a scratch directory, for `upfbench doctor`, `nics` and
//! `bind` on machines this one is not (NUMA, ConnectX-5, virtio NICs, no-IOMMU mode).
//! Paths are written as on the machine (`/sys/...`); links are relative, as sysfs makes them.

#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU32, Ordering};

/// A tree, removed when dropped.
pub(crate) struct FakeMachine {
    dir: PathBuf,
}

impl Drop for FakeMachine {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

impl FakeMachine {
    /// An empty tree of its own for `case`.
    pub(crate) fn new(case: &str) -> FakeMachine {
        static NEXT: AtomicU32 = AtomicU32::new(0);
        let dir = std::env::temp_dir().join(format!(
            "upfbench-fake-{}-{}-{case}",
            std::process::id(),
            NEXT.fetch_add(1, Ordering::Relaxed)
        ));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("scratch directory");
        let m = FakeMachine { dir };
        m.file(
            "/proc/cmdline",
            "BOOT_IMAGE=/vmlinuz root=/dev/sda1 ro quiet\n",
        );
        m.file("/proc/mounts", "proc /proc proc rw 0 0\n");
        m.file("/proc/meminfo", "Hugepagesize:       2048 kB\n");
        m.dir("/sys/bus/pci/devices");
        m.file("/sys/bus/pci/drivers_probe", "");
        m.dir("/sys/class/net");
        m.dir("/sys/kernel/iommu_groups");
        m
    }

    /// The tree's root (`--root`).
    pub(crate) fn root(&self) -> &Path {
        &self.dir
    }

    /// `path` in the tree.
    pub(crate) fn path(&self, path: &str) -> PathBuf {
        self.dir.join(path.trim_start_matches('/'))
    }

    /// Writes a file, making its directory.
    pub(crate) fn file(&self, path: &str, content: &str) -> &Self {
        let p = self.path(path);
        std::fs::create_dir_all(p.parent().expect("parent")).expect("mkdir");
        std::fs::write(&p, content).expect("write");
        self
    }

    /// Makes a directory.
    pub(crate) fn dir(&self, path: &str) -> &Self {
        std::fs::create_dir_all(self.path(path)).expect("mkdir");
        self
    }

    /// A file's content.
    pub(crate) fn read(&self, path: &str) -> String {
        std::fs::read_to_string(self.path(path)).unwrap_or_else(|e| panic!("{path}: {e}"))
    }

    /// A relative link at `path` to `target` (both as on the machine).
    pub(crate) fn link(&self, path: &str, target: &str) -> &Self {
        let p = self.path(path);
        std::fs::create_dir_all(p.parent().expect("parent")).expect("mkdir");
        let depth = Path::new(path)
            .parent()
            .expect("parent")
            .components()
            .count()
            - 1;
        let relative = format!("{}{}", "../".repeat(depth), target.trim_start_matches('/'));
        let _ = std::fs::remove_file(&p);
        std::os::unix::fs::symlink(relative, &p).expect("symlink");
        self
    }

    /// NUMA nodes and their CPUs, all online.
    pub(crate) fn cpus(&self, nodes: &[(u32, &[u32])]) -> &Self {
        let mut all: Vec<u32> = nodes.iter().flat_map(|n| n.1.iter().copied()).collect();
        all.sort_unstable();
        self.file(
            "/sys/devices/system/cpu/online",
            &format!("{}-{}\n", all[0], all[all.len() - 1]),
        );
        self.file("/sys/devices/system/cpu/isolated", "\n");
        for (node, cpus) in nodes {
            let list: Vec<String> = cpus.iter().map(u32::to_string).collect();
            self.file(
                &format!("/sys/devices/system/node/node{node}/cpulist"),
                &format!("{}\n", list.join(",")),
            );
            for c in *cpus {
                self.link(
                    &format!("/sys/devices/system/cpu/cpu{c}/node{node}"),
                    &format!("/sys/devices/system/node/node{node}"),
                );
            }
        }
        self
    }

    /// A hugepage pool on a node.
    pub(crate) fn hugepages(&self, node: u32, size_kb: u64, total: u64, free: u64) -> &Self {
        let dir = format!("/sys/devices/system/node/node{node}/hugepages/hugepages-{size_kb}kB");
        self.file(&format!("{dir}/nr_hugepages"), &format!("{total}\n"));
        self.file(&format!("{dir}/free_hugepages"), &format!("{free}\n"));
        self
    }

    /// hugetlbfs mounted at /dev/hugepages.
    pub(crate) fn hugetlbfs(&self) -> &Self {
        self.file(
            "/proc/mounts",
            "proc /proc proc rw 0 0\nhugetlbfs /dev/hugepages hugetlbfs rw,relatime,pagesize=2M 0 0\n",
        )
    }

    /// A PCI driver registered with the bus (its bind and unbind files).
    pub(crate) fn driver(&self, name: &str) -> &Self {
        self.file(&format!("/sys/bus/pci/drivers/{name}/bind"), "");
        self.file(&format!("/sys/bus/pci/drivers/{name}/unbind"), "");
        self
    }

    /// A PCI function: class, ids, driver (registered too), NUMA node (-1: unknown).
    pub(crate) fn pci(
        &self,
        address: &str,
        class: u32,
        ids: (u16, u16),
        driver: Option<&str>,
        numa: i32,
    ) -> &Self {
        let dev = format!("/sys/devices/pci0000:00/{address}");
        self.file(&format!("{dev}/class"), &format!("0x{class:06x}\n"));
        self.file(&format!("{dev}/vendor"), &format!("0x{:04x}\n", ids.0));
        self.file(&format!("{dev}/device"), &format!("0x{:04x}\n", ids.1));
        self.file(&format!("{dev}/numa_node"), &format!("{numa}\n"));
        self.file(&format!("{dev}/driver_override"), "(null)\n");
        if let Some(d) = driver {
            self.driver(d);
            self.link(
                &format!("{dev}/driver"),
                &format!("/sys/bus/pci/drivers/{d}"),
            );
        }
        self.link(&format!("/sys/bus/pci/devices/{address}"), &dev);
        self
    }

    /// A kernel interface below `parent` in /sys/devices/pci0000:00 (`0000:3b:00.0`, or
    /// `0000:00:04.0/virtio3` for virtio, as the kernel puts it), or of no device.
    pub(crate) fn netdev(&self, name: &str, parent: Option<&str>, mtu: u32, up: bool) -> &Self {
        let dev = match parent {
            Some(p) => format!("/sys/devices/pci0000:00/{p}/net/{name}"),
            None => format!("/sys/devices/virtual/net/{name}"),
        };
        self.file(&format!("{dev}/mtu"), &format!("{mtu}\n"));
        self.file(
            &format!("{dev}/flags"),
            if up { "0x1003\n" } else { "0x1002\n" },
        );
        self.link(&format!("/sys/class/net/{name}"), &dev);
        self
    }

    /// IPv4 routes through `iface` (`/proc/net/route`).
    pub(crate) fn routes(&self, iface: &str, count: usize) -> &Self {
        let mut text =
            "Iface\tDestination\tGateway\tFlags\tRefCnt\tUse\tMetric\tMask\tMTU\tWindow\tIRTT\n"
                .to_owned();
        for i in 0..count {
            text.push_str(&format!(
                "{iface}\t{i:08X}\t00000000\t0001\t0\t0\t0\t00FFFFFF\t0\t0\t0\n"
            ));
        }
        self.file("/proc/net/route", &text)
    }

    /// An RDMA device (and its verbs device, if `uverbs`) on the PCI function.
    pub(crate) fn rdma(&self, address: &str, ib: &str, fw: &str, uverbs: Option<&str>) -> &Self {
        let dev = format!("/sys/devices/pci0000:00/{address}");
        self.file(&format!("{dev}/infiniband/{ib}/fw_ver"), &format!("{fw}\n"));
        if let Some(u) = uverbs {
            self.dir(&format!("{dev}/infiniband_verbs/{u}"));
        }
        self
    }

    /// The PCIe link of the PCI function: as it runs and as it could.
    pub(crate) fn pcie_link(&self, address: &str, now: (&str, u32), max: (&str, u32)) -> &Self {
        let dev = format!("/sys/devices/pci0000:00/{address}");
        self.file(
            &format!("{dev}/current_link_speed"),
            &format!("{} PCIe\n", now.0),
        );
        self.file(
            &format!("{dev}/current_link_width"),
            &format!("{}\n", now.1),
        );
        self.file(
            &format!("{dev}/max_link_speed"),
            &format!("{} PCIe\n", max.0),
        );
        self.file(&format!("{dev}/max_link_width"), &format!("{}\n", max.1))
    }

    /// IOMMU groups.
    pub(crate) fn iommu_groups(&self, n: usize) -> &Self {
        for g in 0..n {
            self.dir(&format!("/sys/kernel/iommu_groups/{g}/devices"));
        }
        self
    }

    /// The vfio module, in no-IOMMU mode or not, and the vfio-pci driver.
    pub(crate) fn vfio(&self, noiommu: bool) -> &Self {
        self.file(
            "/sys/module/vfio/parameters/enable_unsafe_noiommu_mode",
            if noiommu { "Y\n" } else { "N\n" },
        );
        self.driver("vfio-pci")
    }

    /// A CPU's cpufreq governor.
    pub(crate) fn governor(&self, cpu: u32, governor: &str) -> &Self {
        self.file(
            &format!("/sys/devices/system/cpu/cpu{cpu}/cpufreq/scaling_governor"),
            &format!("{governor}\n"),
        )
    }

    /// Isolated and tickless CPUs.
    pub(crate) fn isolated(&self, isolated: &str, nohz_full: &str) -> &Self {
        self.file("/sys/devices/system/cpu/isolated", &format!("{isolated}\n"));
        self.file(
            "/sys/devices/system/cpu/nohz_full",
            &format!("{nohz_full}\n"),
        )
    }

    /// DPDK's PMD plugins (`net_memif` → `librte_net_memif.so.23.0`) in `dir`.
    pub(crate) fn pmd_plugins(&self, dir: &str, pmds: &[&str]) -> &Self {
        for p in pmds {
            self.file(&format!("{dir}/librte_{p}.so.23.0"), "");
        }
        self
    }
}
