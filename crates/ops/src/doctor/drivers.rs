//! DPDK, the PMDs the ports need (or those there are), and rdma-core for Mellanox NICs.

use std::collections::BTreeMap;

use super::finding::Finding;
use super::resolve::ResolvedPort;
use super::software::{PmdSet, RdmaCore, Software};
use crate::machine::Machine;
use crate::nics::takes::MELLANOX;

/// The PMDs a check-up of the machine in general reports on.
const COMMON_PMDS: [&str; 12] = [
    "net_mlx5",
    "net_virtio",
    "net_memif",
    "net_af_packet",
    "net_af_xdp",
    "net_ring",
    "net_null",
    "net_ixgbe",
    "net_i40e",
    "net_ice",
    "net_iavf",
    "net_e1000",
];

/// The DPDK line: its version and where its PMDs come from.
pub(super) fn dpdk_finding(sw: &Software) -> Finding {
    let d = &sw.dpdk;
    let runtime = d.runtime.strip_prefix("DPDK ").unwrap_or(&d.runtime);
    let linkage = match &d.pmds {
        PmdSet::Plugins {
            dir: Some(dir),
            found,
        } => {
            format!("shared: {} network PMDs in {dir}", found.len())
        }
        PmdSet::Plugins { dir: None, .. } => "shared, with no plugin directory".to_owned(),
        PmdSet::Linked(list) => format!("static: {} network PMDs linked in", list.len()),
    };
    let detail = format!("{} ({linkage})", d.runtime);
    match &d.pmds {
        PmdSet::Plugins { found, .. } if found.is_empty() => Finding::missing(
            "DPDK",
            format!("{detail}: no network PMD to load"),
            "apt-get install dpdk (Debian's package pulls every PMD)",
        ),
        _ if runtime != d.built => Finding::warn(
            "DPDK",
            format!("{detail}; built against {}", d.built),
            "rebuild upfbench against the DPDK installed (cargo build --release)",
        ),
        _ => Finding::ok("DPDK", detail),
    }
}

/// A line per PMD the ports need; without ports, one line on the common PMDs.
pub(super) fn pmd_findings(sw: &Software, ports: Option<&[ResolvedPort<'_, '_>]>) -> Vec<Finding> {
    let d = &sw.dpdk;
    let Some(ports) = ports else {
        let (present, absent): (Vec<&str>, Vec<&str>) = COMMON_PMDS.iter().partition(|p| d.has(p));
        let detail = format!(
            "present: {}; absent: {}",
            list_or_none(&present),
            list_or_none(&absent)
        );
        return vec![if present.is_empty() {
            Finding::missing("PMDs", detail, install_fix(sw, "net_memif"))
        } else {
            Finding::ok("PMDs", detail)
        }];
    };
    // The ports by the PMDs that could drive them (an Intel NIC off its kernel driver may be
    // any of several).
    let mut needs: BTreeMap<Vec<String>, Vec<&str>> = BTreeMap::new();
    for p in ports {
        let pmds = p.pmds();
        if !pmds.is_empty() {
            needs.entry(pmds).or_default().push(p.port.name);
        }
    }
    needs
        .into_iter()
        .map(|(pmds, users)| {
            let need = format!("PMD {}", pmds.join(" or "));
            let found: Vec<&String> = pmds.iter().filter(|p| d.has(p)).collect();
            let whom = users.join(", ");
            match (found.first(), &d.pmds) {
                (Some(p), PmdSet::Plugins { dir, .. }) => Finding::ok(
                    need,
                    format!(
                        "librte_{p}.so in {} (for {whom})",
                        dir.as_deref().unwrap_or("?")
                    ),
                ),
                (Some(_), PmdSet::Linked(_)) => {
                    Finding::ok(need, format!("linked into this binary (for {whom})"))
                }
                (None, _) => Finding::missing(
                    need,
                    format!("not in this DPDK (for {whom})"),
                    install_fix(sw, &pmds[0]),
                ),
            }
        })
        .collect()
}

fn list_or_none(items: &[&str]) -> String {
    if items.is_empty() {
        "none".to_owned()
    } else {
        items.join(" ")
    }
}

fn install_fix(sw: &Software, pmd: &str) -> String {
    match (&sw.dpdk.pmds, sw.dpdk.abi()) {
        (PmdSet::Linked(_), _) => format!(
            "this binary was built without {pmd}: rebuild it (make build) against a DPDK \
             that has it"
        ),
        (_, Some(abi)) => format!(
            "apt-get install librte-{}-{abi} (or dpdk, which pulls every PMD)",
            pmd.replace('_', "-")
        ),
        _ => format!("install DPDK's {pmd} PMD"),
    }
}

/// rdma-core, when a port needs net_mlx5 or net_mlx4; without ports, when the machine has a
/// Mellanox NIC.
pub(super) fn rdma_core_finding(
    sw: &Software,
    machine: &Machine,
    ports: Option<&[ResolvedPort<'_, '_>]>,
) -> Option<Finding> {
    let wanted: Vec<String> = match ports {
        Some(ports) => ports.iter().flat_map(ResolvedPort::pmds).collect(),
        None if machine.nics().any(|n| n.vendor == MELLANOX) => vec!["net_mlx5".to_owned()],
        None => Vec::new(),
    };
    let mlx5 = wanted.iter().any(|p| p == "net_mlx5");
    let mlx4 = wanted.iter().any(|p| p == "net_mlx4");
    if !mlx5 && !mlx4 {
        return None;
    }
    let r: &RdmaCore = &sw.rdma_core;
    let mut libs = vec![("libibverbs.so.1", &r.ibverbs, "libibverbs1")];
    if mlx5 {
        libs.push(("libmlx5.so.1", &r.mlx5, "ibverbs-providers"));
    }
    if mlx4 {
        libs.push(("libmlx4.so.1", &r.mlx4, "ibverbs-providers"));
    }
    let absent: Vec<&(&str, &Option<String>, &str)> =
        libs.iter().filter(|(_, at, _)| at.is_none()).collect();
    let found: Vec<String> = libs
        .iter()
        .filter_map(|(_, at, _)| at.as_ref().cloned())
        .collect();
    Some(if absent.is_empty() {
        Finding::ok("rdma-core", found.join(", "))
    } else {
        let names: Vec<&str> = absent.iter().map(|a| a.0).collect();
        let mut packages: Vec<&str> = absent.iter().map(|a| a.2).collect();
        packages.dedup();
        Finding::missing(
            "rdma-core",
            format!(
                "{} not found (the mlx PMDs open the NIC through rdma-core's verbs)",
                names.join(" and ")
            ),
            format!("apt-get install {} rdma-core", packages.join(" ")),
        )
    })
}
