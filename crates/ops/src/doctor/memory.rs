//! Hugepages: free pages on each NUMA node the run's lcores and NICs are on, and hugetlbfs.

use std::collections::BTreeSet;

use super::finding::Finding;
use super::setup::Setup;
use crate::machine::{Machine, NodePages, size_name};

/// 2 MB pages to reserve per node when a node has none: 2 GB, room for the pools of a port
/// pair with a few workers.
const PAGES_TO_RESERVE: u64 = 1024;

/// A line per NUMA node, and one for hugetlbfs.
pub(super) fn findings(machine: &Machine, setup: Option<&Setup>) -> Vec<Finding> {
    let hp = &machine.hugepages;
    let no_huge = setup.is_some_and(|s| s.memory.no_huge);
    if hp.nodes.is_empty() {
        let detail = "the kernel lists no hugepage pools (/sys/kernel/mm/hugepages)";
        return vec![if no_huge {
            Finding::ok("hugepages", format!("not needed (--no-huge); {detail}"))
        } else {
            Finding::missing(
                "hugepages",
                detail,
                "a kernel with CONFIG_HUGETLBFS, or --no-huge in eal.args (tests only)",
            )
        }];
    }
    let needed = needed_nodes(machine, setup);
    let free_anywhere: u64 = hp.nodes.iter().map(NodePages::free_bytes).sum();
    let mut lines: Vec<Finding> = hp
        .nodes
        .iter()
        .map(|n| node_finding(n, setup, needed.as_ref(), free_anywhere))
        .collect();
    if let Some(s) = setup
        && !s.memory.no_huge
        && let Some(mb) = s.memory.total_mb
    {
        let free_mb = free_anywhere / (1024 * 1024);
        lines.push(if free_mb >= mb {
            Finding::ok(
                "hugepages for -m",
                format!("-m {mb} MB asked, {free_mb} MB free"),
            )
        } else {
            Finding::missing(
                "hugepages for -m",
                format!("-m {mb} MB asked, {free_mb} MB free"),
                format!(
                    "reserve more: echo {} > /proc/sys/vm/nr_hugepages (2 MB pages), or a \
                     smaller -m",
                    mb.div_ceil(2)
                ),
            )
        });
    }
    lines.push(mount_finding(machine, setup));
    lines
}

/// The nodes of the lcores and of the ports' NICs; `None` without a file (any node will do).
fn needed_nodes(machine: &Machine, setup: Option<&Setup>) -> Option<BTreeSet<u32>> {
    let s = setup?;
    let mut nodes: BTreeSet<u32> = s
        .lcores()
        .iter()
        .filter_map(|c| machine.cpus.node_of.get(c).copied())
        .collect();
    for p in &s.ports {
        if let Some(dev) = machine.pci_device(p.device.name())
            && let Some(node) = dev.numa_node
        {
            nodes.insert(node);
        }
    }
    if nodes.is_empty() {
        nodes.insert(0);
    }
    Some(nodes)
}

fn pools_text(node: &NodePages) -> String {
    if node.pools.is_empty() {
        return "no hugepage pools".to_owned();
    }
    node.pools
        .iter()
        .map(|p| {
            format!(
                "{} of {} {} pages free",
                p.free,
                p.total,
                size_name(p.size_kb)
            )
        })
        .collect::<Vec<_>>()
        .join(", ")
}

fn reserve_fix(node: u32) -> String {
    format!(
        "echo {PAGES_TO_RESERVE} > /sys/devices/system/node/node{node}/hugepages/\
         hugepages-2048kB/nr_hugepages (or the kernel parameter hugepages={PAGES_TO_RESERVE}; \
         1 GB pages: default_hugepagesz=1G hugepagesz=1G hugepages=N)"
    )
}

fn node_finding(
    node: &NodePages,
    setup: Option<&Setup>,
    needed: Option<&BTreeSet<u32>>,
    free_anywhere: u64,
) -> Finding {
    let need = format!("hugepages node {}", node.node);
    let pools = pools_text(node);
    let free = node.free_bytes();
    if setup.is_some_and(|s| s.memory.no_huge) {
        return Finding::ok(need, format!("{pools} (not needed: --no-huge)"));
    }
    let Some(needed) = needed else {
        // The machine in general: some node must have pages free for any DPDK run.
        return if free > 0 {
            Finding::ok(need, pools)
        } else if free_anywhere > 0 {
            Finding::warn(
                need,
                format!("{pools}: lcores and NICs on this node take memory from another"),
                reserve_fix(node.node),
            )
        } else {
            Finding::missing(
                need,
                format!("{pools}: none free anywhere"),
                reserve_fix(node.node),
            )
        };
    };
    if !needed.contains(&node.node) {
        return Finding::ok(need, format!("{pools} (no lcore or NIC of the run here)"));
    }
    let asked_mb = setup
        .and_then(|s| s.memory.per_node_mb.as_ref())
        .and_then(|per| per.get(node.node as usize).copied());
    match asked_mb {
        Some(mb) => {
            let free_mb = free / (1024 * 1024);
            if free_mb >= mb {
                Finding::ok(need, format!("{pools}; --socket-mem asks {mb} MB here"))
            } else {
                Finding::missing(
                    need,
                    format!("{pools}; --socket-mem asks {mb} MB here, {free_mb} MB free"),
                    reserve_fix(node.node),
                )
            }
        }
        None if free > 0 => Finding::ok(need, pools),
        None => Finding::missing(
            need,
            format!("{pools}; the run's lcores or NICs are on this node"),
            reserve_fix(node.node),
        ),
    }
}

fn mount_finding(machine: &Machine, setup: Option<&Setup>) -> Finding {
    let mounts = &machine.hugepages.mounts;
    let default = machine.hugepages.default_kb;
    let shown = if mounts.is_empty() {
        "none in /proc/mounts".to_owned()
    } else {
        mounts
            .iter()
            .map(|m| match m.size_kb.or(default) {
                Some(kb) => format!("{} ({} pages)", m.path, size_name(kb)),
                None => m.path.clone(),
            })
            .collect::<Vec<_>>()
            .join(", ")
    };
    let fix = "mkdir -p /dev/hugepages && mount -t hugetlbfs nodev /dev/hugepages (or \
               --in-memory in eal.args, which needs no mount)";
    match setup.map(|s| &s.memory) {
        Some(m) if m.no_huge => {
            Finding::ok("hugetlbfs", format!("{shown} (not needed: --no-huge)"))
        }
        Some(m) if m.in_memory => Finding::ok(
            "hugetlbfs",
            format!("{shown} (not needed: --in-memory maps hugepages anonymously)"),
        ),
        _ if !mounts.is_empty() => Finding::ok("hugetlbfs", shown),
        Some(_) => Finding::missing(
            "hugetlbfs",
            format!("{shown}: EAL needs a mount unless --in-memory or --no-huge"),
            fix,
        ),
        None => Finding::warn(
            "hugetlbfs",
            format!("{shown}: needed unless eal.args has --in-memory or --no-huge"),
            fix,
        ),
    }
}
