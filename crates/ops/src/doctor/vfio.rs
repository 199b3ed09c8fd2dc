//! IOMMU and vfio-pci: needed when a port is a PCI NIC that DPDK drives from user space (virtio,
//! Intel); not for Mellanox (bifurcated) nor for virtual devices.

use super::finding::Finding;
use super::resolve::ResolvedPort;
use crate::machine::Machine;

/// The kernel parameters that turn the IOMMU on, and the no-IOMMU mode of VMs without one.
const IOMMU_FIX: &str = "kernel parameters intel_iommu=on iommu=pt (AMD: amd_iommu=on \
                         iommu=pt), then reboot; in a VM without a virtual IOMMU: modprobe \
                         vfio enable_unsafe_noiommu_mode=1 (or echo 1 > \
                         /sys/module/vfio/parameters/enable_unsafe_noiommu_mode)";

/// The IOMMU/vfio line.
pub(super) fn finding(machine: &Machine, ports: Option<&[ResolvedPort<'_, '_>]>) -> Finding {
    let io = &machine.iommu;
    let cmdline = machine
        .cmdline
        .shown(&["intel_iommu", "amd_iommu", "iommu"])
        .join(" ");
    let mut facts = vec![match (io.groups, io.noiommu) {
        (0, Some(true)) => "no IOMMU, vfio in no-IOMMU mode (no DMA isolation)".to_owned(),
        (0, _) => "no IOMMU (no groups in /sys/kernel/iommu_groups)".to_owned(),
        (n, _) => format!("IOMMU on ({n} groups)"),
    }];
    if !cmdline.is_empty() {
        facts.push(format!("kernel: {cmdline}"));
    }
    facts.push(if io.drivers.is_empty() {
        "no vfio-pci or uio driver loaded".to_owned()
    } else {
        format!("{} loaded", io.drivers.join(", "))
    });
    let facts = facts.join("; ");
    let users: Vec<&str> = ports
        .unwrap_or_default()
        .iter()
        .filter(|p| p.needs_vfio())
        .map(|p| p.port.name)
        .collect();
    let need = "IOMMU and vfio";
    let problem = if !io.has_driver("vfio-pci") {
        Some((
            "vfio-pci is not loaded",
            if io.vfio_usable() {
                "modprobe vfio-pci".to_owned()
            } else {
                format!("modprobe vfio-pci; and {IOMMU_FIX}")
            },
        ))
    } else if !io.vfio_usable() {
        Some(("vfio-pci cannot take a device", IOMMU_FIX.to_owned()))
    } else {
        None
    };
    match (ports, problem) {
        (Some(_), _) if users.is_empty() => Finding::ok(
            need,
            format!("not needed: no port is a NIC driven through vfio-pci ({facts})"),
        ),
        (Some(_), None) => Finding::ok(need, format!("{facts} (for {})", users.join(", "))),
        (Some(_), Some((what, fix))) => Finding::missing(
            need,
            format!("{facts}: {what}, and {} need it", users.join(", ")),
            fix,
        ),
        (None, None) => Finding::ok(need, facts),
        (None, Some((what, fix))) => Finding::warn(
            need,
            format!("{facts}: {what} (needed for NICs such as virtio and Intel, not mlx5)"),
            fix,
        ),
    }
}
