//! The software a run stands on: the DPDK linked in and its PMDs, and rdma-core for the
//! Mellanox PMDs.

use std::collections::BTreeSet;

use crate::machine::{Root, find_library};

/// Where the PMDs come from, and which there are.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PmdSet {
    /// Shared DPDK: the plugins EAL loads from `dir` at start.
    Plugins {
        /// The plugin directory (`RTE_EAL_PMD_PATH`), if DPDK has one.
        dir: Option<String>,
        /// The network PMDs found there (`net_mlx5` for `librte_net_mlx5.so`).
        found: BTreeSet<String>,
    },
    /// Static DPDK: the PMDs linked into the binary when it was built.
    Linked(BTreeSet<String>),
}

/// The DPDK this binary runs with.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Dpdk {
    /// `rte_version()` of the library loaded (`DPDK 22.11.11`).
    pub runtime: String,
    /// The version the binary was built against (`22.11.11`).
    pub built: String,
    /// Its PMDs.
    pub pmds: PmdSet,
}

impl Dpdk {
    /// This binary's DPDK, the plugin directory listed under `root`.
    pub fn read(root: &Root) -> Dpdk {
        let pmds = match upfbench_dpdk::pmds() {
            upfbench_dpdk::Pmds::Plugins(dir) => PmdSet::Plugins {
                dir: dir.map(str::to_owned),
                found: dir.map(|d| plugins_in(root, d)).unwrap_or_default(),
            },
            upfbench_dpdk::Pmds::Linked(list) => {
                PmdSet::Linked(list.into_iter().map(str::to_owned).collect())
            }
        };
        Dpdk {
            runtime: upfbench_dpdk::runtime_version().to_owned(),
            built: upfbench_dpdk::Eal::dpdk_version().to_owned(),
            pmds,
        }
    }

    /// The network PMDs available.
    pub(crate) fn pmd_names(&self) -> impl Iterator<Item = &String> {
        match &self.pmds {
            PmdSet::Plugins { found, .. } => found.iter(),
            PmdSet::Linked(list) => list.iter(),
        }
    }

    /// Whether the PMD `name` is available.
    pub fn has(&self, name: &str) -> bool {
        self.pmd_names().any(|p| p == name)
    }

    /// The ABI of the plugin directory (`23` of `pmds-23.0`): Debian names its PMD packages
    /// by it (`librte-net-mlx5-23`).
    pub fn abi(&self) -> Option<&str> {
        let PmdSet::Plugins { dir: Some(dir), .. } = &self.pmds else {
            return None;
        };
        let version = dir.rsplit_once("pmds-")?.1;
        Some(version.split('.').next().unwrap_or(version))
    }
}

/// The network PMDs in a plugin directory: `librte_net_X.so*` is `net_X`.
fn plugins_in(root: &Root, dir: &str) -> BTreeSet<String> {
    root.list(dir)
        .iter()
        .filter_map(|f| {
            let name = f.strip_prefix("librte_")?;
            let name = &name[..name.find(".so")?];
            name.starts_with("net_").then(|| name.to_owned())
        })
        .collect()
}

/// rdma-core's libraries, which the mlx4 and mlx5 PMDs open the NIC through.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RdmaCore {
    /// `libibverbs.so.1` (Debian: libibverbs1), where found.
    pub ibverbs: Option<String>,
    /// `libmlx5.so.1` (Debian: ibverbs-providers), where found.
    pub mlx5: Option<String>,
    /// `libmlx4.so.1` (Debian: ibverbs-providers), where found.
    pub mlx4: Option<String>,
}

impl RdmaCore {
    /// Looks for the libraries under `root`.
    pub fn read(root: &Root) -> RdmaCore {
        RdmaCore {
            ibverbs: find_library(root, "libibverbs.so.1"),
            mlx5: find_library(root, "libmlx5.so.1"),
            mlx4: find_library(root, "libmlx4.so.1"),
        }
    }
}

/// What `doctor` knows of the software.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Software {
    /// DPDK.
    pub dpdk: Dpdk,
    /// rdma-core.
    pub rdma_core: RdmaCore,
}

impl Software {
    /// This binary's DPDK and the machine's rdma-core under `root`.
    pub fn read(root: &Root) -> Software {
        Software {
            dpdk: Dpdk::read(root),
            rdma_core: RdmaCore::read(root),
        }
    }
}
