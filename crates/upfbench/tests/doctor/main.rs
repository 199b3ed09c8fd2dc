//! `upfbench doctor` on made-up machines: the cases this one is not (two NUMA nodes, a
//! ConnectX-5, virtio NICs on their kernel driver, vfio's no-IOMMU mode, isolated cores, a
//! power-saving governor), each a sysfs and procfs tree in a scratch directory.

#[path = "../fake_machine.rs"]
mod fake_machine;
mod machines;
mod mellanox;
mod numa;
mod virtio;

use std::path::{Path, PathBuf};

pub(crate) use fake_machine::FakeMachine;
use upfbench_config as config;
use upfbench_ops::doctor::{Dpdk, Finding, PmdSet, RdmaCore, Setup, Software, check};
use upfbench_ops::machine::{Machine, Root};

pub(crate) const PMD_DIR: &str = "/usr/lib/x86_64-linux-gnu/dpdk/pmds-23.0";
pub(crate) const LIBS: &str = "/usr/lib/x86_64-linux-gnu";

pub(crate) fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// DPDK 22.11 with these PMDs, and rdma-core as the tree has it.
pub(crate) fn software(m: &FakeMachine, pmds: &[&str]) -> Software {
    Software {
        dpdk: Dpdk {
            runtime: "DPDK 22.11.11".into(),
            built: "22.11.11".into(),
            pmds: PmdSet::Plugins {
                dir: Some(PMD_DIR.into()),
                found: pmds.iter().map(|p| (*p).to_owned()).collect(),
            },
        },
        rdma_core: RdmaCore::read(&Root::new(m.root())),
    }
}

pub(crate) fn system_setup(system: &str, profile: Option<&str>) -> Setup {
    let s = repo().join("deploy/systems").join(system);
    match profile {
        Some(p) => {
            let (s, p) = config::load_run(s, repo().join("profiles").join(p))
                .unwrap_or_else(|e| panic!("{e}"));
            Setup::of_system(&s, Some(&p))
        }
        None => Setup::of_system(
            &config::load_system(s).unwrap_or_else(|e| panic!("{e}")),
            None,
        ),
    }
}

pub(crate) fn setup_from(text: &str) -> Setup {
    Setup::of_system(
        &config::system_from_str(text, "s.yaml").unwrap_or_else(|e| panic!("{e}")),
        None,
    )
}

pub(crate) fn doctor(m: &FakeMachine, sw: &Software, setup: Option<&Setup>) -> Vec<Finding> {
    check(&Machine::read(&Root::new(m.root())), sw, setup)
}

/// The line of `need`; fails showing all the lines if there is none.
pub(crate) fn line<'a>(lines: &'a [Finding], need: &str) -> &'a Finding {
    lines.iter().find(|l| l.need == need).unwrap_or_else(|| {
        let all: Vec<String> = lines.iter().map(ToString::to_string).collect();
        panic!("no line {need:?} in:\n{}", all.join("\n"))
    })
}

pub(crate) fn fix(f: &Finding) -> &str {
    f.fix.as_deref().unwrap_or_else(|| panic!("no fix: {f}"))
}

/// Two NUMA nodes of `per_node` CPUs each, hugepages on both, IOMMU and vfio-pci on.
pub(crate) fn two_nodes(case: &str, per_node: u32) -> FakeMachine {
    let m = FakeMachine::new(case);
    let node0: Vec<u32> = (0..per_node).collect();
    let node1: Vec<u32> = (per_node..2 * per_node).collect();
    m.cpus(&[(0, &node0), (1, &node1)])
        .hugepages(0, 2048, 1024, 1024)
        .hugepages(1, 2048, 1024, 1024)
        .hugepages(0, 1048576, 0, 0)
        .hugepages(1, 1048576, 0, 0)
        .hugetlbfs()
        .iommu_groups(40)
        .vfio(false);
    m
}
