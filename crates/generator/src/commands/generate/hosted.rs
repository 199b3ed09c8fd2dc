//! Runs hosted by a long-running process (`upfbench agent`): its testbed brought up once, then
//! one run after another on it, each asked for by a program (the API) rather than the command
//! line. A hosted run is the command line's run in all but where its request comes from: the
//! same checks, the same session on the same kind of testbed, the same report.

use std::path::PathBuf;
use std::time::Duration;

use anyhow::{Context, Result, anyhow};
use upfbench_config::{self as config, ConfigError, Multiplier, Profile, System};
use upfbench_dpdk::{Eal, TscAnchor};

use super::bed::{self, Bed, Began, Up};
use super::program::Program;
use super::session::{self, Ended};
use super::{Mode, Setup, check_mode, check_search_options, eal_setup, multiply, payloads_of};
use crate::commands::kernel_counters::KernelCounters;
use crate::commands::live::LiveBoard;
use crate::commands::peers::{EarlyStop, wait_for_socket_servers};
use crate::datapath::classify::RxRules;
use crate::metrics::GeneratorMetrics;
use upfbench_cli::signals::Interrupts;
use upfbench_datapath::eal_args::RuntimeDirGuard;
use upfbench_net::Teid;
use upfbench_run::phase::PhaseBoard;
use upfbench_run::plan::Plan;

/// A testbed up for hosted runs, and what every run on it shares.
pub(crate) struct Host<'h, 'b, 'e> {
    bed: &'h Bed<'b, 'e>,
    system: &'h System,
    names: &'h [[String; 2]],
    /// The TSC and the kernel's clock when the process started: each run's calibration
    /// starts from it.
    first_anchor: TscAnchor,
}

impl Host<'_, '_, '_> {
    /// EAL's estimate of the TSC's frequency.
    pub(crate) fn tsc_hz(&self) -> f64 {
        self.bed.eal.tsc_hz() as f64
    }

    /// Each pair's ports' line rates (bit/s), N3 first, when their links say.
    pub(crate) fn links(&self) -> Vec<[Option<f64>; 2]> {
        self.bed.links()
    }

    /// The receive rules of `plan`'s steps, one per pair (their ports' tags differ).
    pub(crate) fn rx_rules(&self, plan: &Plan) -> Vec<RxRules> {
        let rules = RxRules::new(plan.ues, plan.qfi, &plan.streams);
        self.bed
            .pairs
            .iter()
            .map(|p| rules.clone().with_vlans(p.vlans))
            .collect()
    }
}

/// What a program asks a hosted run for: the command and the command line's options.
#[derive(Debug, Clone)]
pub(crate) struct Asked<'a> {
    pub(crate) mode: Mode<'a>,
    /// Each step's measured phase instead of the profile's (`-d`).
    pub(crate) duration: Option<Duration>,
    /// The profile's rates scaled (`-m`).
    pub(crate) multiplier: Option<Multiplier>,
    /// Where the run's report folder goes.
    pub(crate) reports: PathBuf,
}

/// Why a hosted run was refused before it started.
#[derive(Debug)]
pub(crate) enum Refusal {
    /// The profile (or the asked payloads and duration) did not pass the files' checks, each
    /// problem located in the profile's text.
    Invalid(Vec<config::Diagnostic>),
    /// The profile cannot be run this way (a search with a multiplier, churn in a climb, ...).
    Mode(String),
}

/// The profile in `profile_text` checked as the command line checks a run's files: alone, and
/// against the agent's system file (its text `system_text`, named `system_name`), with the
/// asked payloads and duration; then what the mode cannot measure.
pub(crate) fn checked_profile(
    system_text: &str,
    system_name: &str,
    profile_text: &str,
    asked: &Asked<'_>,
) -> Result<(System, Profile), Refusal> {
    let payloads = match asked.mode {
        Mode::Sweep(p) | Mode::Search(p) => p,
        Mode::Run | Mode::Capacity => None,
    };
    let invalid = |e: ConfigError| match e {
        ConfigError::Invalid { diagnostics } => Refusal::Invalid(diagnostics),
        read => Refusal::Mode(read.to_string()),
    };
    let (system, profile) =
        config::sweep_from_str(system_text, system_name, profile_text, "profile", payloads)
            .map_err(invalid)?;
    check_search_options(
        asked.mode,
        asked.multiplier.is_some() || asked.duration.is_some(),
        "a multiplier and a duration",
    )
    .map_err(|e| Refusal::Mode(e.to_string()))?;
    let profile = match asked.duration {
        Some(d) => config::overrides::with_duration(&profile, d).map_err(invalid)?,
        None => profile,
    };
    let steps = payloads_of(asked.mode, &profile);
    if let Some(m) = &asked.multiplier {
        multiply::check(&system, &profile, m, &steps).map_err(|e| Refusal::Mode(e.to_string()))?;
    }
    check_mode(asked.mode, false, &system, &profile).map_err(|e| Refusal::Mode(e.to_string()))?;
    Ok((system, profile))
}

/// Starts EAL on `system`'s ports, brings the testbed up, and calls `serve` with it; takes it
/// down and removes EAL's runtime files when `serve` returns. Fails when the ports' peers or
/// links never came (or `interrupts` came first).
pub(crate) fn with_host<T>(
    system: &System,
    first_anchor: TscAnchor,
    interrupts: &Interrupts,
    serve: impl FnOnce(&Host<'_, '_, '_>) -> Result<T>,
) -> Result<T> {
    let (eal_args, prefix, names) = eal_setup(system)?;
    // Dropped after the Eal: removes its runtime files on every way out, panics included.
    let _runtime_dir = RuntimeDirGuard::new(&prefix);
    if let Err(e) = wait_for_socket_servers(system, &names, &|| interrupts.any()) {
        return Err(early(e));
    }
    let eal =
        Eal::init(&eal_args).context("EAL initialisation failed (see EAL's messages above)")?;
    // A hosted run's downlink TEIDs are spread by their lowest bits: the profiles' default
    // step of 1 (a profile with another step has its frames spread less evenly, not lost).
    let up = bed::up(&eal, system, &names, 0, &|| interrupts.any(), |bed| {
        serve(&Host {
            bed,
            system,
            names: &names,
            first_anchor,
        })
    })?;
    match up {
        Up::Ran(t) => Ok(t),
        Up::Early(e, _, _) => Err(early(e)),
    }
}

fn early(e: EarlyStop) -> anyhow::Error {
    match e {
        EarlyStop::Interrupted(doing) => anyhow!("interrupted {doing}"),
        EarlyStop::Failed(m) => anyhow!("{m}"),
    }
}

/// One run of `profile` (checked with [`checked_profile`] against the host's system) on the
/// host's testbed, stopped early by `interrupts`, its live figures posted on `live` and its
/// steps' figures on `metrics`.
pub(crate) fn run(
    host: &Host<'_, '_, '_>,
    profile: &Profile,
    asked: &Asked<'_>,
    interrupts: &Interrupts,
    live: &LiveBoard,
    metrics: &GeneratorMetrics,
) -> Ended {
    let system = host.system;
    // The scrape shows the run in progress (or the last one): its steps are numbered from 1
    // again, and two runs' step 1 must not be two series of one name and labels.
    metrics.update(|figures| *figures = Default::default());
    let setup = Setup {
        system,
        profile,
        payloads: payloads_of(asked.mode, profile),
        pfcp: system.pfcp.is_some(),
        names: host.names.to_vec(),
        reports: asked.reports.clone(),
        sweep: matches!(asked.mode, Mode::Sweep(_) | Mode::Search(_)),
        search: matches!(asked.mode, Mode::Search(_)),
        capacity: matches!(asked.mode, Mode::Capacity),
        step_hook: None,
        first_anchor: host.first_anchor,
        kernel: KernelCounters::new(system),
        metrics: Some(metrics),
        multiplier: asked.multiplier.as_ref(),
        live: Some(live),
    };
    session::run(host.bed, Began::now(), &setup, interrupts)
}

/// What a hosted run of a program's steps needs besides the program: an agent's segment.
pub(crate) struct Stepped<'a> {
    /// The segment's profile, checked against the host's system.
    pub(crate) profile: &'a Profile,
    /// UE i's uplink TEID at index i (those before the segment's block unused).
    pub(crate) uplink_teids: Vec<Teid>,
    /// Where the run's report folder goes.
    pub(crate) reports: PathBuf,
    /// Where each second's live figures go.
    pub(crate) live: &'a LiveBoard,
}

/// The steps of `program` on the host's testbed, without PFCP (a coordinator holds N4), the
/// workers' phases set on `control`; stopped early by `interrupts`.
pub(crate) fn steps<'b: 's, 'e: 's, 's>(
    host: &Host<'_, 'b, 'e>,
    run: &Stepped<'_>,
    (control, program): (&'s PhaseBoard, &mut dyn Program<'s>),
    interrupts: &Interrupts,
    metrics: &GeneratorMetrics,
) -> Ended {
    let system = host.system;
    metrics.update(|figures| *figures = Default::default());
    let setup = Setup {
        system,
        profile: run.profile,
        payloads: vec![None],
        pfcp: false,
        names: host.names.to_vec(),
        reports: run.reports.clone(),
        sweep: false,
        search: false,
        capacity: false,
        step_hook: None,
        first_anchor: host.first_anchor,
        kernel: KernelCounters::new(system),
        metrics: Some(metrics),
        multiplier: None,
        live: Some(run.live),
    };
    session::run_program(
        host.bed,
        Began::now(),
        &setup,
        interrupts,
        (control, program),
        run.uplink_teids.clone(),
    )
}
