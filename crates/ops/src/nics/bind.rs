//! `upfbench bind ADDR [--driver vfio-pci]` and `upfbench bind ADDR --kernel`: a NIC to a
//! user-space driver for DPDK and back, the way dpdk-devbind does it (`driver_override`, the old
//! driver's `unbind`, the bus's `drivers_probe`).
//!
//! [`plan`] decides from the machine's facts alone, refusing what must not be done (a
//! Mellanox NIC, which DPDK drives beside mlx5_core; a device that is not a NIC; an interface
//! in use, unless forced); [`apply`] makes the writes; the run reads the driver back.

use std::io::Write as _;

use anyhow::{Context, Result, bail};

use super::takes::Takes;
use crate::machine::{Machine, PciDevice, Root, USER_SPACE_DRIVERS, full_address};
use upfbench_cli::BindArgs;

/// Where a NIC goes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Target {
    /// To this user-space driver (`vfio-pci`, `uio_pci_generic`, `igb_uio`).
    UserSpace(String),
    /// Back to whichever kernel driver claims it.
    Kernel,
}

/// One sysfs write.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SysfsWrite {
    /// The file, as on the machine (`/sys/bus/pci/drivers_probe`).
    pub path: String,
    /// What is written.
    pub value: String,
}

/// What binding takes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BindPlan {
    /// Nothing: the NIC is where it should be.
    Nothing(String),
    /// These writes, in order.
    Writes(Vec<SysfsWrite>),
}

/// Why a NIC is not bound.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Refusal {
    /// No such PCI device.
    #[error("no PCI device at {0} (upfbench nics lists the NICs)")]
    NoDevice(String),
    /// Not a network controller: a disk, a console, ...
    #[error(
        "{address} is not a NIC (class 0x{class:06x}): upfbench binds network controllers only"
    )]
    NotANic {
        /// The device.
        address: String,
        /// Its class.
        class: u32,
    },
    /// A Mellanox NIC: DPDK drives it beside its kernel driver.
    #[error(
        "{address} is a Mellanox NIC: DPDK's {pmd} drives it beside {kernel_driver} \
         (bifurcated, through rdma-core), so it stays on {kernel_driver}; nothing to bind \
         (`upfbench doctor SYSTEM` checks what it needs)"
    )]
    Bifurcated {
        /// The device.
        address: String,
        /// Its kernel driver.
        kernel_driver: &'static str,
        /// Its PMD.
        pmd: &'static str,
    },
    /// Its interface carries the machine's traffic.
    #[error(
        "{address} is {interface}, which is up with {routes} routes: binding it cuts whatever \
         goes through it (SSH?); take it down first, or --force"
    )]
    InUse {
        /// The device.
        address: String,
        /// Its interface.
        interface: String,
        /// Routes through it.
        routes: usize,
    },
    /// On a kernel driver, with no interface in this network namespace: another namespace
    /// (the host's, seen from a lab's) may be using it.
    #[error(
        "{address} is on {driver} but has no interface in this network namespace: another \
         namespace may be using it; run upfbench from the host's namespace, or --force"
    )]
    Unseen {
        /// The device.
        address: String,
        /// Its kernel driver.
        driver: String,
    },
    /// A vendor upfbench knows nothing of.
    #[error(
        "{address}: no DPDK PMD known to upfbench for vendor 0x{vendor:04x}; --force to bind anyway"
    )]
    UnknownVendor {
        /// The device.
        address: String,
        /// Its vendor.
        vendor: u16,
    },
    /// The target driver is not loaded.
    #[error("the {driver} driver is not loaded: modprobe {driver}")]
    DriverNotLoaded {
        /// The driver.
        driver: String,
    },
    /// Not a driver DPDK takes NICs from.
    #[error("{0} is not a driver DPDK takes NICs from: vfio-pci, uio_pci_generic or igb_uio")]
    NotUserSpace(String),
    /// vfio-pci would not take the NIC.
    #[error(
        "vfio-pci cannot take {0}: no IOMMU and no no-IOMMU mode (kernel parameters \
         intel_iommu=on iommu=pt; in a VM: modprobe vfio enable_unsafe_noiommu_mode=1)"
    )]
    NoIommu(String),
}

fn write(path: impl Into<String>, value: impl Into<String>) -> SysfsWrite {
    SysfsWrite {
        path: path.into(),
        value: value.into(),
    }
}

/// The writes that move the NIC at `address` to `target`, or why not.
pub fn plan(
    machine: &Machine,
    address: &str,
    target: &Target,
    force: bool,
) -> Result<BindPlan, Refusal> {
    let address = full_address(address);
    let dev = machine
        .pci_device(&address)
        .ok_or_else(|| Refusal::NoDevice(address.clone()))?;
    if !dev.is_network() {
        return Err(Refusal::NotANic {
            address,
            class: dev.class,
        });
    }
    let on = dev.driver.as_deref();
    let dir = format!("/sys/bus/pci/devices/{address}");
    let mut writes = Vec::new();
    match target {
        Target::Kernel => {
            let on_user_space = on.is_some_and(|d| USER_SPACE_DRIVERS.contains(&d));
            if !on_user_space && dev.driver_override.is_none() {
                return Ok(BindPlan::Nothing(format!(
                    "{address} is already on {}",
                    on.unwrap_or("no driver, and no override keeps it from its own")
                )));
            }
            // An empty override lets the kernel's own driver match again.
            writes.push(write(format!("{dir}/driver_override"), "\n"));
            if !on_user_space {
                // On its kernel driver already: only the override was left.
                return Ok(BindPlan::Writes(writes));
            }
        }
        Target::UserSpace(driver) => {
            if let Takes::Bifurcated { kernel_driver, pmd } = Takes::of(dev) {
                return Err(Refusal::Bifurcated {
                    address,
                    kernel_driver,
                    pmd,
                });
            }
            if !USER_SPACE_DRIVERS.contains(&driver.as_str()) {
                return Err(Refusal::NotUserSpace(driver.clone()));
            }
            if on == Some(driver.as_str()) {
                return Ok(BindPlan::Nothing(format!(
                    "{address} is already on {driver}"
                )));
            }
            may_take(machine, dev, &address, driver, force)?;
            writes.push(write(format!("{dir}/driver_override"), driver.clone()));
        }
    }
    if let Some(d) = on {
        writes.push(write(
            format!("/sys/bus/pci/drivers/{d}/unbind"),
            address.clone(),
        ));
    }
    writes.push(write("/sys/bus/pci/drivers_probe", address));
    Ok(BindPlan::Writes(writes))
}

/// Whether user-space `driver` may take `dev` (at `address`) from where it is: a vendor DPDK
/// drives, no interface in use or unseen (unless `force`), the driver loaded, and an IOMMU (or
/// its no-IOMMU mode) for vfio-pci.
fn may_take(
    machine: &Machine,
    dev: &PciDevice,
    address: &str,
    driver: &str,
    force: bool,
) -> Result<(), Refusal> {
    let address = address.to_owned();
    if Takes::of(dev) == Takes::Unknown && !force {
        return Err(Refusal::UnknownVendor {
            address,
            vendor: dev.vendor,
        });
    }
    if let Some(i) = machine.interface_of(&address)
        && i.up
        && i.routes > 0
        && !force
    {
        return Err(Refusal::InUse {
            address,
            interface: i.name.clone(),
            routes: i.routes,
        });
    }
    if let Some(d) = dev.driver.as_deref()
        && !USER_SPACE_DRIVERS.contains(&d)
        && machine.interface_of(&address).is_none()
        && !force
    {
        return Err(Refusal::Unseen {
            address,
            driver: d.to_owned(),
        });
    }
    if !machine.iommu.has_driver(driver) {
        return Err(Refusal::DriverNotLoaded {
            driver: driver.to_owned(),
        });
    }
    if driver == "vfio-pci" && !machine.iommu.vfio_usable() {
        return Err(Refusal::NoIommu(address));
    }
    Ok(())
}

/// Makes the writes in order, stopping at the first that fails.
pub fn apply(root: &Root, writes: &[SysfsWrite]) -> Result<()> {
    for w in writes {
        root.write(&w.path, &w.value)
            .with_context(|| format!("writing {:?} to {}", w.value.trim(), w.path))?;
    }
    Ok(())
}

/// Binds, then reads the driver back.
pub fn run(args: &BindArgs) -> Result<()> {
    let root = Root::new(&args.root.root);
    let machine = Machine::read(&root);
    let target = if args.kernel {
        Target::Kernel
    } else {
        Target::UserSpace(args.driver.clone())
    };
    let mut out = std::io::stdout().lock();
    let writes = match plan(&machine, &args.address, &target, args.force)? {
        BindPlan::Nothing(why) => {
            writeln!(out, "{why}: nothing to do")?;
            return Ok(());
        }
        BindPlan::Writes(w) => w,
    };
    for w in &writes {
        let verb = if args.dry_run { "would write" } else { "write" };
        writeln!(out, "{verb} {:?} to {}", w.value.trim(), w.path)?;
    }
    if args.dry_run {
        return Ok(());
    }
    apply(&root, &writes)?;
    let address = full_address(&args.address);
    let now = Machine::read(&root)
        .pci_device(&address)
        .and_then(|d| d.driver.clone());
    match (&target, now.as_deref()) {
        (Target::UserSpace(d), Some(n)) if n == d => writeln!(out, "{address} is on {n}")?,
        (Target::Kernel, Some(n)) if !USER_SPACE_DRIVERS.contains(&n) => {
            writeln!(out, "{address} is back on {n}")?;
        }
        (_, now) => bail!(
            "{address} is on {} after the probe: the kernel log (dmesg) says why",
            now.unwrap_or("no driver")
        ),
    }
    Ok(())
}
