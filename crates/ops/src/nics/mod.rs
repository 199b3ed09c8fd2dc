//! `upfbench nics` and `upfbench bind`: the machine's NICs and how DPDK can take each, and
//! moving a NIC between its kernel driver and vfio-pci as dpdk-devbind does.

pub mod bind;
pub(crate) mod takes;

use std::io::Write;

use anyhow::Result;

use crate::machine::{Iommu, Machine, PciDevice, Root, USER_SPACE_DRIVERS};
use takes::{Takes, vendor_name};
use upfbench_cli::NicsArgs;

/// One NIC as `upfbench nics` shows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NicRow {
    /// PCI address.
    pub address: String,
    /// `Mellanox 15b3:1017`.
    pub model: String,
    /// The driver bound, or `-`.
    pub driver: String,
    /// `eth0 (up, 2 routes)`, or `-`.
    pub interface: String,
    /// NUMA node, or `-`.
    pub numa: String,
    /// Whether DPDK can take it, and how.
    pub dpdk: String,
}

/// The machine's NICs (PCI class 0x02), in address order.
pub fn rows(machine: &Machine) -> Vec<NicRow> {
    machine
        .nics()
        .map(|dev| {
            let iface = machine.interface_of(&dev.address);
            NicRow {
                address: dev.address.clone(),
                model: format!("{} {}", vendor_name(dev.vendor), dev.ids()),
                driver: dev.driver.clone().unwrap_or_else(|| "-".to_owned()),
                interface: iface.map_or_else(
                    || no_interface(dev),
                    |i| {
                        format!(
                            "{} ({}, {} routes)",
                            i.name,
                            if i.up { "up" } else { "down" },
                            i.routes
                        )
                    },
                ),
                numa: dev.numa_node.map_or("-".to_owned(), |n| n.to_string()),
                dpdk: how_dpdk_takes(dev, machine, &machine.iommu),
            }
        })
        .collect()
}

/// What stands for a NIC's interface when this network namespace has none of it.
fn no_interface(dev: &PciDevice) -> String {
    match dev.driver.as_deref() {
        // A kernel network driver makes an interface: it is in another namespace.
        Some(d) if !USER_SPACE_DRIVERS.contains(&d) => "(another netns?)".to_owned(),
        _ => "-".to_owned(),
    }
}

fn how_dpdk_takes(dev: &PciDevice, machine: &Machine, iommu: &Iommu) -> String {
    let on = dev.driver.as_deref();
    match Takes::of(dev) {
        Takes::Bifurcated { kernel_driver, pmd } => {
            if on == Some(kernel_driver) {
                format!("yes, as it is: {pmd} beside {kernel_driver} (bifurcated)")
            } else {
                format!(
                    "after upfbench bind {} --kernel: {pmd} needs {kernel_driver}",
                    dev.address
                )
            }
        }
        Takes::UserSpace { pmds } => {
            let pmds = pmds.join("/");
            if on.is_some_and(|d| USER_SPACE_DRIVERS.contains(&d)) {
                return format!("yes: {pmds} on {}", on.unwrap_or_default());
            }
            let busy = machine
                .interface_of(&dev.address)
                .filter(|i| i.up && i.routes > 0)
                .map(|i| format!("; {} is in use (up, with routes): --force", i.name))
                .unwrap_or_default();
            let iommu = if iommu.vfio_usable() {
                ""
            } else {
                "; vfio needs an IOMMU or no-IOMMU mode first (upfbench doctor)"
            };
            format!(
                "after upfbench bind {} ({pmds} on vfio-pci){busy}{iommu}",
                dev.address
            )
        }
        Takes::Unknown => format!(
            "unknown vendor: maybe, from vfio-pci (upfbench bind {} --force)",
            dev.address
        ),
    }
}

/// Prints the table.
pub fn run(args: &NicsArgs) -> Result<()> {
    let machine = Machine::read(&Root::new(&args.root.root));
    let rows = rows(&machine);
    let mut out = std::io::stdout().lock();
    if rows.is_empty() {
        writeln!(out, "no network controller on the PCI bus (class 0x02)")?;
        return Ok(());
    }
    let header = NicRow {
        address: "PCI address".into(),
        model: "NIC".into(),
        driver: "driver".into(),
        interface: "interface".into(),
        numa: "NUMA".into(),
        dpdk: "DPDK".into(),
    };
    let cells = |r: &NicRow| -> [String; 5] {
        [
            r.address.clone(),
            r.model.clone(),
            r.driver.clone(),
            r.interface.clone(),
            r.numa.clone(),
        ]
    };
    let all: Vec<&NicRow> = std::iter::once(&header).chain(&rows).collect();
    let mut widths = [0usize; 5];
    for r in &all {
        for (w, c) in widths.iter_mut().zip(cells(r)) {
            *w = (*w).max(c.chars().count());
        }
    }
    for r in &all {
        let mut line = String::new();
        for (w, c) in widths.iter().zip(cells(r)) {
            line.push_str(&format!("{c:<w$}  "));
        }
        line.push_str(&r.dpdk);
        writeln!(out, "{line}")?;
    }
    Ok(())
}
