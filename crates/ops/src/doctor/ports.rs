//! Each port: its device is there, on the driver DPDK needs, with its RDMA device for mlx5, on
//! the workers' NUMA node, and with a kernel MTU its packets fit.

use std::collections::BTreeSet;

use super::finding::Finding;
use super::resolve::{PortDevice, ResolvedPort};
use super::setup::Setup;
use crate::machine::{Machine, PciDevice, USER_SPACE_DRIVERS, format_cpulist};
use crate::nics::takes::{Takes, vendor_name};

/// The lines of one port.
pub(super) fn findings(
    machine: &Machine,
    setup: &Setup,
    port: &ResolvedPort<'_, '_>,
) -> Vec<Finding> {
    let name = port.port.name;
    let mut lines = Vec::new();
    match &port.device {
        PortDevice::Vdev { pmd, iface } => {
            let dev = port.port.device.name();
            lines.push(Finding::ok(
                format!("{name} device"),
                format!("{dev}: a virtual device of {pmd}, no NIC"),
            ));
            if let Some(iface) = iface {
                lines.push(mtu_finding(machine, port, iface));
            }
        }
        PortDevice::Pci {
            address,
            device,
            takes,
        } => match device {
            None => lines.push(absent(name, address, takes.as_ref())),
            Some(dev) if !dev.is_network() => lines.push(Finding::missing(
                format!("{name} device"),
                format!(
                    "{address} ({}) is not a network controller: class 0x{:06x}",
                    dev.ids(),
                    dev.class
                ),
                format!("upfbench nics lists the NICs; set {name}.device to one of them"),
            )),
            Some(dev) => {
                let iface = machine.interface_of(address).map(|i| i.name.clone());
                lines.push(Finding::ok(
                    format!("{name} device"),
                    format!(
                        "{address}: {} NIC {}{}",
                        vendor_name(dev.vendor),
                        dev.ids(),
                        iface
                            .as_deref()
                            .map(|i| format!(", interface {i}"))
                            .unwrap_or_default()
                    ),
                ));
                let takes = takes.clone().unwrap_or(Takes::Unknown);
                lines.push(driver_finding(name, dev, &takes, iface.as_deref()));
                if let Takes::Bifurcated { .. } = takes {
                    lines.push(rdma_finding(name, dev));
                    // Bifurcated: the kernel's interface stays, and its MTU is the port's.
                    if let Some(iface) = &iface {
                        lines.push(mtu_finding(machine, port, iface));
                    }
                }
                lines.extend(numa_finding(machine, setup, name, dev));
                lines.extend(pcie_finding(name, dev));
            }
        },
    }
    lines
}

fn absent(name: &str, address: &str, takes: Option<&Takes>) -> Finding {
    let guess = match takes {
        Some(Takes::Bifurcated { pmd, .. }) => {
            format!(" (its devargs are {pmd}'s: a Mellanox NIC was meant)")
        }
        _ => String::new(),
    };
    Finding::missing(
        format!("{name} device"),
        format!(
            "no PCI device at {address} on this machine (/sys/bus/pci/devices/{address} \
             absent){guess}"
        ),
        format!(
            "upfbench nics (or lspci -D) lists this machine's NICs; set {name}.device to one of \
             them"
        ),
    )
}

fn driver_finding(name: &str, dev: &PciDevice, takes: &Takes, iface: Option<&str>) -> Finding {
    let need = format!("{name} driver");
    let address = &dev.address;
    let on = dev.driver.as_deref();
    let on_text = on.map_or("no driver".to_owned(), |d| format!("on {d}"));
    match takes {
        Takes::Bifurcated { kernel_driver, pmd } => {
            if on == Some(kernel_driver) {
                Finding::ok(
                    need,
                    format!(
                        "{on_text}: {pmd} drives it beside the kernel driver (bifurcated), \
                         nothing to bind"
                    ),
                )
            } else if on.is_some_and(|d| USER_SPACE_DRIVERS.contains(&d)) {
                Finding::missing(
                    need,
                    format!("{on_text}: {pmd} needs it on {kernel_driver}"),
                    format!("upfbench bind {address} --kernel"),
                )
            } else {
                Finding::missing(
                    need,
                    format!("{on_text}: {pmd} needs it on {kernel_driver}"),
                    format!("modprobe {kernel_driver} (and upfbench bind {address} --kernel)"),
                )
            }
        }
        Takes::UserSpace { pmds } => match on {
            Some(d) if USER_SPACE_DRIVERS.contains(&d) => Finding::ok(
                need,
                format!("{on_text}: DPDK ({}) can take it", pmds.join(" or ")),
            ),
            _ => Finding::missing(
                need,
                format!(
                    "{on_text}{}: DPDK ({}) takes it only from vfio-pci (or uio)",
                    iface
                        .map(|i| format!(" (interface {i})"))
                        .unwrap_or_default(),
                    pmds.join(" or ")
                ),
                format!("upfbench bind {address}"),
            ),
        },
        Takes::Unknown => Finding::warn(
            need,
            format!(
                "{on_text}: upfbench does not know this vendor's NICs (0x{:04x})",
                dev.vendor
            ),
            format!(
                "see DPDK's NIC guides for its PMD; most take it from vfio-pci: upfbench bind \
                 {address} --force"
            ),
        ),
    }
}

fn rdma_finding(name: &str, dev: &PciDevice) -> Finding {
    let need = format!("{name} RDMA device");
    let Some((ib, fw)) = dev.rdma.first() else {
        return Finding::missing(
            need,
            format!(
                "{} has no RDMA device (/sys/bus/pci/devices/{}/infiniband): the mlx PMDs \
                 open the port through it",
                dev.address, dev.address
            ),
            "modprobe mlx5_ib ib_uverbs (mlx4_ib for ConnectX-3)",
        );
    };
    let fw = fw
        .as_deref()
        .map(|f| format!(", firmware {f}"))
        .unwrap_or_default();
    if dev.uverbs.is_empty() {
        Finding::missing(
            need,
            format!("{ib}{fw}, but no verbs device (infiniband_verbs/uverbsN)"),
            "modprobe ib_uverbs",
        )
    } else {
        Finding::ok(need, format!("{ib}{fw}, {}", dev.uverbs.join(", ")))
    }
}

fn numa_finding(machine: &Machine, setup: &Setup, name: &str, dev: &PciDevice) -> Option<Finding> {
    let node = dev.numa_node?;
    let node_of = &machine.cpus.node_of;
    // The main lcore counts too: it makes the pools, and DPDK puts them on its node first.
    let lcores = setup.lcores();
    if lcores.iter().all(|c| !node_of.contains_key(c)) {
        return None;
    }
    let need = format!("{name} NUMA");
    let far: Vec<u32> = lcores
        .iter()
        .copied()
        .filter(|c| node_of.get(c).is_some_and(|n| *n != node))
        .collect();
    if far.is_empty() {
        return Some(Finding::ok(
            need,
            format!("{} and the lcores on node {node}", dev.address),
        ));
    }
    let near = machine
        .cpus
        .node_cpulist
        .get(&node)
        .cloned()
        .unwrap_or_else(|| "?".to_owned());
    let far_nodes: BTreeSet<u32> = far.iter().filter_map(|c| node_of.get(c).copied()).collect();
    Some(Finding::warn(
        need,
        format!(
            "{} is on node {node}, lcores {} on node {}: every packet (and the pools the main \
             lcore makes) crosses the interconnect",
            dev.address,
            format_cpulist(&far),
            format_cpulist(&far_nodes)
        ),
        format!(
            "put cores.main and cores.workers on node {node}'s CPUs ({near}), or the NIC in a \
             slot of the lcores' node"
        ),
    ))
}

/// The PCIe link runs at the width and speed the NIC can (not in a narrower or slower slot).
fn pcie_finding(name: &str, dev: &PciDevice) -> Option<Finding> {
    let link = dev.link.as_ref()?;
    let need = format!("{name} PCIe link");
    let detail = format!(
        "{} x{} (the NIC can {} x{})",
        link.speed, link.width, link.max_speed, link.max_width
    );
    let gts = |s: &str| -> f64 {
        s.split_whitespace()
            .next()
            .and_then(|n| n.parse().ok())
            .unwrap_or(0.0)
    };
    if link.width < link.max_width || gts(&link.speed) < gts(&link.max_speed) {
        Some(Finding::warn(
            need,
            format!("{detail}: the slot caps what the NIC carries"),
            format!(
                "put the NIC in a slot of its full width and speed (lspci -vv -s {}: LnkCap \
                 against LnkSta)",
                dev.address
            ),
        ))
    } else {
        Some(Finding::ok(need, detail))
    }
}

fn mtu_finding(machine: &Machine, port: &ResolvedPort<'_, '_>, iface: &str) -> Finding {
    let name = port.port.name;
    let need = format!("{name} MTU");
    let Some(i) = machine.interface(iface) else {
        return Finding::missing(
            need,
            format!("no interface {iface} (/sys/class/net/{iface})"),
            format!("create {iface}, or set iface= in {name}.devargs to an interface of ip link"),
        );
    };
    let Some(mtu) = i.mtu else {
        return Finding::warn(
            need,
            format!("{iface}: its MTU cannot be read"),
            format!("ip link show {iface}"),
        );
    };
    let stated = port.port.mtu.map(u32::from);
    let largest = port.port.largest_packet.map(|l| l as u32);
    let want = stated.into_iter().chain(largest).max();
    let mut facts = vec![format!("{iface} {mtu}")];
    if let Some(s) = stated {
        facts.push(format!("{name}.mtu {s}"));
    }
    if let Some(l) = largest {
        facts.push(format!("the profile's largest packet {l} bytes"));
    }
    let facts = facts.join(", ");
    match want {
        Some(w) if w > mtu => Finding::missing(
            need,
            format!("{facts}: larger packets than the interface carries"),
            format!("ip link set dev {iface} mtu {w}"),
        ),
        _ => Finding::ok(need, facts),
    }
}
