//! The lcores: there, kept from the kernel's other work (isolated, tickless), and at full
//! clock (the performance governor).

use std::collections::BTreeSet;

use super::finding::Finding;
use super::setup::Setup;
use crate::machine::{Machine, format_cpulist};

/// The lcores are CPUs of this machine.
pub(super) fn online_finding(machine: &Machine, setup: &Setup) -> Finding {
    let online = &machine.cpus.online;
    let absent: Vec<u32> = setup
        .lcores()
        .into_iter()
        .filter(|c| !online.contains(c))
        .collect();
    let detail = format!(
        "main {}, workers {}; online CPUs {}",
        setup.main,
        format_cpulist(&setup.workers),
        format_cpulist(online)
    );
    if absent.is_empty() {
        Finding::ok("lcores", detail)
    } else {
        Finding::missing(
            "lcores",
            format!("{detail}: {} not online here", format_cpulist(&absent)),
            format!(
                "set cores.main and cores.workers to CPUs of {}",
                format_cpulist(online)
            ),
        )
    }
}

/// The workers are isolated and tickless; without a file, whether any CPU is.
pub(super) fn isolation_finding(machine: &Machine, setup: Option<&Setup>) -> Finding {
    let cpus = &machine.cpus;
    let facts = format!(
        "isolated {}, nohz_full {}",
        format_cpulist(&cpus.isolated),
        format_cpulist(&cpus.nohz_full)
    );
    let need = "isolated cores";
    let Some(setup) = setup else {
        return if cpus.isolated.is_empty() {
            Finding::warn(
                need,
                format!("{facts}: workers will share their CPUs with the kernel and others"),
                "kernel parameters isolcpus=LIST nohz_full=LIST rcu_nocbs=LIST for the \
                 workers' CPUs, then reboot",
            )
        } else {
            Finding::ok(need, facts)
        };
    };
    let workers: BTreeSet<u32> = setup.workers.iter().copied().collect();
    let list = format_cpulist(&workers);
    let fix =
        format!("kernel parameters isolcpus={list} nohz_full={list} rcu_nocbs={list}, then reboot");
    let shared: Vec<u32> = workers.difference(&cpus.isolated).copied().collect();
    let ticking: Vec<u32> = workers.difference(&cpus.nohz_full).copied().collect();
    if !shared.is_empty() {
        Finding::warn(
            need,
            format!(
                "{facts}: workers {} are not isolated (the scheduler puts other work there)",
                format_cpulist(&shared)
            ),
            fix,
        )
    } else if !ticking.is_empty() {
        Finding::warn(
            need,
            format!(
                "{facts}: workers {} are isolated but not nohz_full (the timer tick still \
                 interrupts them)",
                format_cpulist(&ticking)
            ),
            fix,
        )
    } else {
        Finding::ok(need, format!("{facts}: workers {list} both"))
    }
}

/// The workers' (or every CPU's) cpufreq governor is `performance`.
pub(super) fn governor_finding(machine: &Machine, setup: Option<&Setup>) -> Finding {
    let cpus = &machine.cpus;
    let asked: Vec<u32> = match setup {
        Some(s) => s.workers.clone(),
        None => cpus.online.iter().copied().collect(),
    };
    let governed: Vec<(u32, &str)> = asked
        .iter()
        .filter_map(|c| cpus.governor.get(c).map(|g| (*c, g.as_str())))
        .collect();
    let need = "CPU governor";
    if governed.is_empty() {
        return Finding::ok(
            need,
            format!(
                "no cpufreq for CPUs {} (a VM, or the firmware sets the clock)",
                format_cpulist(&asked)
            ),
        );
    }
    let slow: Vec<(u32, &str)> = governed
        .iter()
        .copied()
        .filter(|(_, g)| *g != "performance")
        .collect();
    if slow.is_empty() {
        let all: Vec<u32> = governed.iter().map(|g| g.0).collect();
        return Finding::ok(
            need,
            format!("performance on CPUs {}", format_cpulist(&all)),
        );
    }
    let mut names: Vec<&str> = slow.iter().map(|s| s.1).collect();
    names.sort_unstable();
    names.dedup();
    let cpus_slow: Vec<u32> = slow.iter().map(|s| s.0).collect();
    let list = format_cpulist(&cpus_slow);
    Finding::warn(
        need,
        format!(
            "{} on CPUs {list}: the clock drops between bursts and latency follows it",
            names.join(", ")
        ),
        format!(
            "cpupower -c {list} frequency-set -g performance (or echo performance > \
             /sys/devices/system/cpu/cpuN/cpufreq/scaling_governor for each)"
        ),
    )
}
