//! The DPDK this process runs with: its version and where its poll-mode drivers come from.
//!
//! Neither needs EAL: `upfbench doctor` asks before anything is initialised.

use std::ffi::CStr;

use crate::sys;

/// The version of the DPDK library this process is linked with, as `rte_version()` gives it
/// (`DPDK 22.11.11`): the library loaded at run time, which may differ from the headers the
/// crate was built against ([`crate::Eal::dpdk_version`]).
pub fn runtime_version() -> &'static str {
    // SAFETY: rte_version() needs no initialisation and only returns a pointer.
    let text = unsafe { sys::rte_version() };
    // SAFETY: that pointer is to a static, NUL-terminated string that lives as long as the
    // library, that is the process.
    let version = unsafe { CStr::from_ptr(text) };
    version.to_str().unwrap_or("DPDK (version not UTF-8)")
}

/// Where the network PMDs come from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Pmds {
    /// Shared linking: EAL loads every plugin in this directory at start (`RTE_EAL_PMD_PATH`
    /// of the DPDK built against, `/usr/lib/x86_64-linux-gnu/dpdk/pmds-23.0` on Debian 12);
    /// `None` when that DPDK has no such directory (then only `-d` loads plugins).
    Plugins(Option<&'static str>),
    /// Static linking (the `static` feature): these PMDs (`net_mlx5`, `net_virtio`, ...) were
    /// linked into the binary when it was built, and no others can be loaded.
    Linked(Vec<&'static str>),
}

/// Where this binary's network PMDs come from.
pub fn pmds() -> Pmds {
    if cfg!(feature = "static") {
        Pmds::Linked(
            env!("UPFBENCH_DPDK_STATIC_PMDS")
                .split(',')
                .filter(|p| !p.is_empty())
                .collect(),
        )
    } else {
        // SAFETY: the shim's function takes nothing and only returns a pointer.
        let text = unsafe { sys::upfb_eal_pmd_path() };
        // SAFETY: that pointer is to a string literal of the DPDK headers (or ""): static and
        // NUL-terminated.
        let dir = unsafe { CStr::from_ptr(text) };
        Pmds::Plugins(dir.to_str().ok().filter(|d| !d.is_empty()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_runtime_version_is_the_one_built_against() {
        // The machine has one DPDK: the library loaded is the one pkg-config found.
        let version = runtime_version();
        assert_eq!(
            version.strip_prefix("DPDK "),
            Some(crate::Eal::dpdk_version()),
            "{version}"
        );
    }

    #[test]
    fn the_pmds_come_from_where_the_build_put_them() {
        let pmds = pmds();
        assert_eq!(
            matches!(pmds, Pmds::Linked(_)),
            cfg!(feature = "static"),
            "{pmds:?}"
        );
        match pmds {
            Pmds::Plugins(dir) => {
                let dir = dir.expect("Debian's DPDK has a plugin directory");
                assert!(std::path::Path::new(dir).is_dir(), "{dir}");
            }
            Pmds::Linked(list) => {
                assert!(
                    list.contains(&"net_memif") && list.contains(&"net_ring"),
                    "{list:?}"
                );
            }
        }
    }
}
