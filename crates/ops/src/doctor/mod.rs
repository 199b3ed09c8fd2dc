//! `upfbench doctor [SYSTEM [PROFILE]]`: what a run needs of this machine, a line per need,
//! each met (`ok`), met badly (`warn`) or not (`missing`), with the fix.
//!
//! The machine's facts are read once under a root directory ([`Machine::read`],
//! [`Software::read`]); [`check`] is a pure function from them to the findings, so that the
//! tests give it made-up sysfs and procfs trees.

mod cores;
mod drivers;
mod finding;
mod memory;
mod ports;
mod resolve;
mod setup;
mod software;
mod vfio;

use std::io::Write;

use anyhow::{Result, bail};

pub use finding::{Finding, Status};
pub use setup::{EalMemory, PortUse, Setup};
pub use software::{Dpdk, PmdSet, RdmaCore, Software};

use crate::machine::{Machine, Root};
use upfbench_cli::DoctorArgs;
use upfbench_config::{self as config, Config};

/// The findings on `machine` with `software`: for `setup` (a system or reflector file), or for
/// the machine in general.
pub fn check(machine: &Machine, software: &Software, setup: Option<&Setup>) -> Vec<Finding> {
    let resolved = setup.map(|s| resolve::resolve(s, machine, &software.dpdk));
    let ports = resolved.as_deref();
    let mut lines = memory::findings(machine, setup);
    lines.push(vfio::finding(machine, ports));
    if let Some(s) = setup {
        lines.push(cores::online_finding(machine, s));
    }
    lines.push(cores::isolation_finding(machine, setup));
    lines.push(cores::governor_finding(machine, setup));
    lines.push(drivers::dpdk_finding(software));
    lines.extend(drivers::pmd_findings(software, ports));
    lines.extend(drivers::rdma_core_finding(software, machine, ports));
    if let (Some(s), Some(ports)) = (setup, ports) {
        for p in ports {
            lines.extend(ports::findings(machine, s, p));
        }
    }
    lines
}

/// What the file asks, with the profile if given: a system file, or a reflector file.
fn setup_of(args: &DoctorArgs) -> Result<Option<Setup>> {
    let Some(path) = &args.system else {
        return Ok(None);
    };
    if let Some(profile) = &args.profile {
        let (system, profile) = config::load_run(path, profile)?;
        return Ok(Some(Setup::of_system(&system, Some(&profile))));
    }
    Ok(Some(match config::load_any(path)? {
        Config::System(s) => Setup::of_system(&s, None),
        Config::Reflector(r) => Setup::of_reflector(&r),
        Config::Cluster(_) => bail!(
            "{} is a cluster file: doctor checks one box; run it on each agent's system file",
            path.display()
        ),
        Config::Profile(_) => bail!(
            "{} is a profile: give the system file first (upfbench doctor SYSTEM PROFILE)",
            path.display()
        ),
    }))
}

/// Prints the findings; fails if a need is missing.
pub fn run(args: &DoctorArgs) -> Result<()> {
    let setup = setup_of(args)?;
    let root = Root::new(&args.root.root);
    let machine = Machine::read(&root);
    let software = Software::read(&root);
    let lines = check(&machine, &software, setup.as_ref());
    let mut out = std::io::stdout().lock();
    match &args.system {
        Some(s) => writeln!(
            out,
            "upfbench doctor: what {} needs of this machine",
            s.display()
        )?,
        None => writeln!(out, "upfbench doctor: this machine for DPDK runs")?,
    }
    for line in &lines {
        writeln!(out, "{line}")?;
    }
    out.flush()?;
    let missing = lines.iter().filter(|l| l.status == Status::Missing).count();
    let warned = lines.iter().filter(|l| l.status == Status::Warn).count();
    if missing > 0 {
        bail!(
            "{missing} of {} needs missing ({warned} warnings)",
            lines.len()
        );
    }
    Ok(())
}
