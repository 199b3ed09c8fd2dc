//! `upfbench run SYSTEM PROFILE` and `upfbench sweep SYSTEM PROFILE`: the generator.
//!
//! [`run`] reads the files and starts EAL; `bring_up` brings the testbed up (`bed`: the ports,
//! pools and links, what lives as long as EAL) and runs one `session` on it (the plans, the
//! sessions, the control thread); the `interpreter` carries out what the run's state machine
//! ([`upfbench_run::lifecycle::Lifecycle`]) asks for: PFCP through the control thread (`n4`), MAC
//! resolution, the steps' workers (`step`), the live line, the report ([`crate::report`]).
//! Every exit, interruptions and failures included, goes through the report and the teardown.

mod bed;
mod bring_up;
mod gate;
pub(crate) mod hosted;
mod interpreter;
mod marks;
mod multiply;
pub(crate) mod n4;
pub(crate) mod pair_report;
pub(crate) mod program;
mod resolution;
mod session;
mod start_at;
pub(crate) mod step;
mod upf_watch;

use std::path::PathBuf;

use anyhow::{Context, Result, anyhow, bail};
use upfbench_dpdk::{Eal, TscAnchor};

use super::kernel_counters::KernelCounters;
use super::live::LiveBoard;
use super::peers::{EarlyStop, wait_for_socket_servers};
use super::step_hook::{DEFAULT_TIMEOUT, StepAt, StepEdge, StepHook};
use crate::metrics::GeneratorMetrics;
use crate::report::{self, RunEvent};
use interpreter::Record;
use upfbench_cli::RunArgs;
use upfbench_cli::out;
use upfbench_cli::signals::Interrupts;
use upfbench_config::{self as config, Profile, System};
use upfbench_datapath::eal_args::{PortDevice, RuntimeDirGuard, eal_args, file_prefix};
use upfbench_datapath::socket_files::make_socket_dir;
use upfbench_run::plan::Plan;

/// What the generator measures.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode<'a> {
    /// The profile once (`upfbench run`).
    Run,
    /// The profile at each payload of its sweep, or of these (`upfbench sweep`).
    Sweep(Option<&'a [u16]>),
    /// A throughput search at each payload of its sweep, or of these (`upfbench search`).
    Search(Option<&'a [u16]>),
    /// A climb to the UPF's session limit (`upfbench capacity`).
    Capacity,
}

/// Runs the profile as `mode` asks.
///
/// Exits: `Ok` when the run ended or was interrupted (Ctrl-C, SIGTERM: the report says so),
/// `Err` when it failed; EAL's runtime files are removed either way.
pub fn run(args: &RunArgs, mode: Mode<'_>) -> Result<()> {
    let sweep = match mode {
        Mode::Run | Mode::Capacity => None,
        Mode::Sweep(p) | Mode::Search(p) => Some(p),
    };
    // First of all: from here on Ctrl-C and SIGTERM are counted, never the default exit that
    // would leave EAL's runtime files, the UPF's sessions and no report behind.
    let interrupts = Interrupts::install().context("installing the signal handlers")?;
    // The TSC's frequency is measured from here on, against the kernel's clock.
    let first_anchor = TscAnchor::now();
    check_search_options(
        mode,
        args.multiplier.is_some() || args.duration.is_some(),
        "-m/--multiplier and -d/--duration",
    )?;
    let (system, profile) = load_files(args, sweep.flatten())?;
    let payloads = payloads_of(mode, &profile);
    if let Some(m) = &args.multiplier {
        multiply::check(&system, &profile, m, &payloads)?;
    }
    let metrics = GeneratorMetrics::start(&args.metrics)?;
    check_mode(mode, args.no_pfcp, &system, &profile)?;
    let (eal_args, prefix, names) = eal_setup(&system)?;
    let setup = Setup {
        system: &system,
        profile: &profile,
        payloads,
        pfcp: system.pfcp.is_some() && !args.no_pfcp,
        names,
        reports: args
            .reports
            .clone()
            .unwrap_or_else(|| system.reports.clone()),
        sweep: sweep.is_some(),
        search: matches!(mode, Mode::Search(_)),
        capacity: matches!(mode, Mode::Capacity),
        step_hook: args
            .step_hook
            .as_ref()
            .map(|c| StepHook::new(c.clone(), DEFAULT_TIMEOUT)),
        first_anchor,
        kernel: KernelCounters::new(&system),
        metrics: metrics.as_ref(),
        multiplier: args.multiplier.as_ref(),
        live: None,
    };
    // Dropped after the Eal: removes its runtime files on every way out, panics included.
    let runtime_dir = RuntimeDirGuard::new(&prefix);
    // Before EAL: a virtio-user client connects to its vhost-user server as EAL probes it, and
    // a memif client's port does not start without its server's socket.
    let outcome = match wait_for_socket_servers(&system, &setup.names, &|| interrupts.any()) {
        Err(e) => end_early(
            &setup,
            &mut session::new_record(&setup, bed::Began::now()),
            e,
        ),
        Ok(()) => Eal::init(&eal_args)
            .context("EAL initialisation failed (see EAL's messages above)")
            .and_then(|eal| bring_up::execute(&eal, &setup, &interrupts)),
    };
    drop(runtime_dir);
    if let Some(m) = &metrics {
        m.finish(&outcome, &interrupts);
    }
    outcome
}

/// The system file and the profile, `payloads` for a sweep's, with the command line's label
/// and duration.
fn load_files(args: &RunArgs, payloads: Option<&[u16]>) -> Result<(System, Profile)> {
    let (mut system, profile) = config::load_sweep(&args.system, profile_path(args)?, payloads)
        .map_err(|e| anyhow!("{e}"))?;
    // The command line's name for the run replaces the system file's.
    if let Some(label) = &args.label {
        system.label = Some(label.clone());
    }
    let profile = match args.duration {
        Some(d) => config::overrides::with_duration(&profile, d).map_err(|e| anyhow!("{e}"))?,
        None => profile,
    };
    Ok((system, profile))
}

/// Refuses a search given a multiplier or a duration (`given`, as the asker calls them).
fn check_search_options(mode: Mode<'_>, given: bool, names: &str) -> Result<()> {
    if matches!(mode, Mode::Search(_)) && given {
        bail!(
            "{names} are for run, sweep and capacity: a search chooses its loads, and its \
             trials' durations are its `search` section's"
        );
    }
    Ok(())
}

/// The profile's path: the second file (the first is the system file; a run over agents,
/// `--cluster`, is the coordinator's, not this command's).
fn profile_path(args: &RunArgs) -> Result<&std::path::Path> {
    match (&args.cluster, &args.profile) {
        (None, Some(p)) => Ok(p),
        (Some(_), _) => bail!("--cluster: a run over agents is the coordinator's"),
        (None, None) => bail!("the profile file is missing"),
    }
}

/// Each step's payload: the sweep's (the profile's, or the asked ones, already in it), or
/// the streams' own for a single step.
fn payloads_of(mode: Mode<'_>, profile: &Profile) -> Vec<Option<u16>> {
    match mode {
        Mode::Sweep(_) | Mode::Search(_) => {
            profile.sweep.payloads.iter().copied().map(Some).collect()
        }
        Mode::Run | Mode::Capacity => vec![None],
    }
}

/// What `mode` cannot measure: handovers or a gate outside `run`, churn in a search or a climb
/// (and without PFCP), a search of bursts, a climb without PFCP.
fn check_mode(mode: Mode<'_>, no_pfcp: bool, system: &System, profile: &Profile) -> Result<()> {
    if profile.mobility.is_some() && !matches!(mode, Mode::Run) {
        bail!(
            "a profile with `mobility` runs one step (`upfbench run`): after its handovers the \
             sessions are at the target gNB"
        );
    }
    if profile.qos_gate.is_some() && !matches!(mode, Mode::Run) {
        bail!(
            "a profile with `qos_gate` runs one step (`upfbench run`): after it the flow's gates \
             are closed"
        );
    }
    if profile.qos_gate.is_some() && (no_pfcp || system.pfcp.is_none()) {
        bail!(
            "a profile with `qos_gate` closes the gate over PFCP: give the system a `pfcp` section"
        );
    }
    if profile.churn.is_some() {
        if matches!(mode, Mode::Search(_) | Mode::Capacity) {
            bail!(
                "a profile with `churn` runs with `upfbench run` or `sweep`: a search's trials \
                 and a climb's steps measure without it"
            );
        }
        if system.pfcp.is_none() || no_pfcp {
            bail!("churn establishes sessions over PFCP: the system file needs its pfcp section");
        }
    }
    if matches!(mode, Mode::Search(_)) && !matches!(profile.tx_mode, config::TxMode::Continuous) {
        bail!("a search sends continuously: remove the profile's tx_mode");
    }
    if matches!(mode, Mode::Capacity) && (system.pfcp.is_none() || no_pfcp) {
        bail!(
            "a capacity climb establishes sessions over PFCP: the system file needs its pfcp section"
        );
    }
    Ok(())
}

/// EAL's arguments for every pair's ports (their socket folders made), given to EAL once, its
/// file prefix, and each pair's port names (N3, N6; N3's twice in one-port mode).
fn eal_setup(system: &System) -> Result<(Vec<String>, String, Vec<[String; 2]>)> {
    let mut devices = Vec::new();
    for pair in system.pairs() {
        for p in [&pair.n3, &pair.n6] {
            make_socket_dir(&p.device, p.devargs.as_deref())?;
            devices.push(PortDevice {
                device: &p.device,
                args: p.devargs.as_deref(),
            });
        }
    }
    let prefix = system
        .eal
        .file_prefix
        .clone()
        .unwrap_or_else(|| format!("upfbench-{}", std::process::id()));
    let eal_args = eal_args(&system.eal.args, &system.cores, &prefix, &devices);
    let prefix = file_prefix(&eal_args).unwrap_or(prefix);
    let names = devices
        .chunks(2)
        .map(|d| [d[0].port_name(), d[1].port_name()])
        .collect();
    Ok((eal_args, prefix, names))
}

/// What a run is made of, from the command line and the files.
struct Setup<'a> {
    system: &'a System,
    profile: &'a Profile,
    payloads: Vec<Option<u16>>,
    pfcp: bool,
    /// Each pair's port names in EAL (N3, N6).
    names: Vec<[String; 2]>,
    reports: PathBuf,
    sweep: bool,
    /// A throughput search (`upfbench search`).
    search: bool,
    /// A climb to the UPF's session limit (`upfbench capacity`).
    capacity: bool,
    step_hook: Option<StepHook>,
    /// The TSC and the kernel's clock when the process started.
    first_anchor: TscAnchor,
    /// The kernel interfaces under the ports, read at each step's edges.
    kernel: KernelCounters,
    /// The metrics endpoint, if `--metrics` asked for one.
    metrics: Option<&'a GeneratorMetrics>,
    /// `-m`: the profile's rates scaled at each step.
    multiplier: Option<&'a config::Multiplier>,
    /// Where each second's live figures go for a program that asks (an agent's API).
    live: Option<&'a LiveBoard>,
}

impl Setup<'_> {
    /// The command, as the report's folder is named after it.
    fn command(&self) -> &'static str {
        match (self.search, self.sweep, self.capacity) {
            (true, _, _) => "search",
            (false, true, _) => "sweep",
            (false, false, true) => "capacity",
            (false, false, false) => "run",
        }
    }

    /// What the run is called in the report.
    fn identity(&self) -> report::RunIdentity<'_> {
        report::RunIdentity {
            profile: &self.profile.name,
            ports: [0, 1].map(|side| {
                let names: Vec<&str> = self.names.iter().map(|p| p[side].as_str()).collect();
                names.join(", ")
            }),
            workers: self.system.cores.workers.len() as u16,
            ues: self.profile.sessions.count,
            label: self.system.label.as_deref(),
        }
    }
}

/// The report of a run that ended before its phases started: what it was doing, and nothing
/// measured. Returns `Ok` after an interruption, the failure otherwise.
fn end_early(setup: &Setup<'_>, record: &mut Record, end: EarlyStop) -> Result<()> {
    let report = &mut record.report;
    report.duration_s = record.run_started.elapsed().as_secs_f64();
    let warning = match &end {
        EarlyStop::Interrupted(doing) => {
            format!("the run was interrupted {doing}: nothing was measured")
        }
        EarlyStop::Failed(m) => format!("the run failed: {m}"),
    };
    record.timeline.record(
        std::time::Instant::now(),
        RunEvent::Warning {
            step: None,
            message: warning.clone(),
        },
    );
    report.warnings.push(warning);
    let folder = report::write_report(
        report,
        &[],
        &record.timeline,
        &setup.reports,
        &setup.profile.name,
        setup.command(),
    )?;
    out::text(&report.to_table());
    out::line(&format!("\nreports: {}", folder.display()));
    record.folder = Some(folder);
    match end {
        EarlyStop::Interrupted(_) => {
            out::line("interrupted: the report holds what was measured");
            Ok(())
        }
        EarlyStop::Failed(m) => bail!("{m}"),
    }
}

/// Runs the step hook, if any, at `edge` of `step`; a failure comes back as the step's warning
/// (and is shown at once).
fn run_hook(
    setup: &Setup<'_>,
    edge: StepEdge,
    step: usize,
    steps: usize,
    plan: &Plan,
) -> Option<String> {
    let hook = setup.step_hook.as_ref()?;
    let label = report::step_label(plan);
    let e = hook
        .run(StepAt {
            edge,
            step,
            steps,
            label: &label,
        })
        .err()?;
    out::line(&format!("warning: {e}"));
    Some(e.to_string())
}
