//! `upfbench run SYSTEM PROFILE` and `upfbench sweep SYSTEM PROFILE`: the generator.
//!
//! Wires the parts together and carries out what the run's state machine
//! ([`crate::run::RunMachine`]) asks for: PFCP through the control thread, MAC resolution and
//! the workers on the datapath, the live line, the report. Every exit, interruptions and
//! failures included, goes through the report and the teardown.

use std::net::Ipv4Addr;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use anyhow::{Context, Result, anyhow, bail};
use upfbench_dpdk::{
    DEFAULT_DATA_ROOM, Eal, LcoreHandle, LcoreScope, Mempool, Port, PortStats, Socket,
    TemplatePool, TscAnchor, tsc,
};
use upfbench_net::{MacAddr, Qfi, Teid};
use upfbench_pfcp::driver::Release;
use upfbench_pfcp::node::{NodeError, Stats};
use upfbench_stats::report::{ClockReport, PortFrames, PortReport, StreamSummary};
use upfbench_stats::{
    IntervalLog, LiveMeter, Report, RunResult, RxConfig, RxHandle, RxStats, StepReport, StreamSpec,
    TxHandle, TxStats,
};

use super::kernel_counters::{KernelCounters, KernelReading};
use super::out;
use super::peers::{EarlyStop, wait_for_links, wait_for_memif_servers};
use super::reflect::make_socket_dir;
use super::step_hook::{DEFAULT_TIMEOUT, StepAt, StepEdge, StepHook};
use crate::cli::RunArgs;
use crate::config::{self, Profile, System};
use crate::control::Interrupts;
use crate::control::client_side::{ClientSide, ClientThread, Pending};
use crate::control::failure::{deletion_failure, establishment_failure};
use crate::control::progress::{BatchMeter, ControlTimes, control_report};
use crate::datapath::common::calibration::{TscCalibration, measure_now, ppm};
use crate::datapath::common::eal_args::{PortDevice, RuntimeDirGuard, eal_args, file_prefix};
use crate::datapath::common::ports::{WaitError, port_config, resolve, rx_pool, split_queues};
use crate::datapath::common::queues::{PortQueues, Side};
use crate::datapath::common::service::{Interface, ServicePlane};
use crate::datapath::generator::classify::RxRules;
use crate::datapath::generator::clock::Clock;
use crate::datapath::generator::frames::{Endpoints, stream_template};
use crate::datapath::generator::phase::{Phase, PhaseBoard};
use crate::datapath::generator::tag::TAG_LEN;
use crate::datapath::generator::tx::{ShareSpec, TxShare, share_ues};
use crate::datapath::generator::worker::{Worker, WorkerCounters, WorkerResult};
use crate::plan::{self, Plan, UplinkTeids};
use crate::run::{Action, Event, RunMachine, Timing};

/// Mbufs per TX template pool: the TX queue's descriptors, a burst and the lcore cache fit.
const TX_POOL: u32 = 4095;
const TX_POOL_CACHE: u32 = 256;
const SERVICE_POOL: u32 = 2047;
/// How long unsent packets are offered to a full queue at the end of a step.
const FLUSH_NS: u64 = 100_000_000;
/// How far the TSC's frequency may move between a step's start and end before the report
/// says so: far above what the calibration itself can tell apart.
const TSC_DRIFT_PPM: f64 = 10.0;
/// Lead time given to the workers before a sending phase's first packet is due.
const EPOCH_LEAD: Duration = Duration::from_millis(1);

/// Runs the profile once (`run`) or at each of its sweep payloads (`sweep`).
///
/// Exits: `Ok` when the run ended or was interrupted (Ctrl-C, SIGTERM: the report says so),
/// `Err` when it failed; EAL's runtime files are removed either way.
pub fn run(args: &RunArgs, sweep: bool) -> Result<()> {
    // First of all: from here on Ctrl-C and SIGTERM are counted, never the default exit that
    // would leave EAL's runtime files, the UPF's sessions and no report behind.
    let interrupts = Interrupts::install().context("installing the signal handlers")?;
    // The TSC's frequency is measured from here on, against the kernel's clock.
    let first_anchor = TscAnchor::now();
    let (system, profile) =
        config::load_run(&args.system, &args.profile).map_err(|e| anyhow!("{e}"))?;
    let payloads: Vec<Option<u16>> = if sweep {
        let list = args
            .payloads
            .clone()
            .unwrap_or(profile.sweep.payloads.clone());
        list.into_iter().map(Some).collect()
    } else {
        vec![None]
    };
    for p in [&system.n3, &system.n6] {
        make_socket_dir(p.devargs.as_deref())?;
    }
    let devices = [
        PortDevice {
            device: &system.n3.device,
            args: system.n3.devargs.as_deref(),
        },
        PortDevice {
            device: &system.n6.device,
            args: system.n6.devargs.as_deref(),
        },
    ];
    let prefix = system
        .eal
        .file_prefix
        .clone()
        .unwrap_or_else(|| format!("upfbench-{}", std::process::id()));
    let eal_args = eal_args(
        &system.eal.args,
        system.cores.main,
        &system.cores.workers,
        &prefix,
        &devices,
    );
    let prefix = file_prefix(&eal_args).unwrap_or(prefix);
    let names = [devices[0].port_name(), devices[1].port_name()];
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
        sweep,
        step_hook: args
            .step_hook
            .as_ref()
            .map(|c| StepHook::new(c.clone(), DEFAULT_TIMEOUT)),
        first_anchor,
        kernel: KernelCounters::new(&system),
    };
    // Dropped after the Eal: removes its runtime files on every way out, panics included.
    let _runtime_dir = RuntimeDirGuard::new(&prefix);
    Eal::init(&eal_args)
        .context("EAL initialisation failed (see EAL's messages above)")
        .and_then(|eal| execute(&eal, &setup, &interrupts))
}

/// What a run is made of, from the command line and the files.
struct Setup<'a> {
    system: &'a System,
    profile: &'a Profile,
    payloads: Vec<Option<u16>>,
    pfcp: bool,
    names: [String; 2],
    reports: std::path::PathBuf,
    sweep: bool,
    step_hook: Option<StepHook>,
    /// The TSC and the kernel's clock when the process started.
    first_anchor: TscAnchor,
    /// The kernel interfaces under the ports, read at each step's edges.
    kernel: KernelCounters,
}

/// One step's workers while they run.
struct Running<'s, 'p> {
    handles: Vec<LcoreHandle<'s, WorkerResult<'p>>>,
    rx: Vec<RxHandle>,
    tx: Vec<TxHandle>,
    live: LiveMeter,
    specs: Vec<StreamSpec>,
    measure_started: Option<Instant>,
    measure_ended: Option<Instant>,
    ports_before: [PortStats; 2],
    /// The step's clock: its TSC frequency is the one measured when the step started.
    clock: Clock,
    kernel_before: KernelReading,
}

/// What a step measured.
struct StepResult {
    report: StepReport,
    /// The step's HdrHistogram interval log.
    hlog: Option<Vec<u8>>,
}

fn interface(port: &Port<'_>, cfg: &config::Port) -> Result<Interface> {
    let address = cfg.address_v4()?;
    Ok(Interface {
        mac: port.mac()?,
        address: address.addr,
        prefix_len: address.len,
    })
}

fn now_unix_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as u64)
}

/// The report of a run that ended before its phases started: what it was doing, and nothing
/// measured. Returns `Ok` after an interruption, the failure otherwise.
fn end_early(
    setup: &Setup<'_>,
    report: &mut Report,
    run_started: Instant,
    end: EarlyStop,
) -> Result<()> {
    report.duration_s = run_started.elapsed().as_secs_f64();
    report.warnings.push(match &end {
        EarlyStop::Interrupted(doing) => {
            format!("the run was interrupted {doing}: nothing was measured")
        }
        EarlyStop::Failed(m) => format!("the run failed: {m}"),
    });
    let folder = write_report(
        report,
        &[],
        &setup.reports,
        &setup.profile.name,
        setup.sweep,
    )?;
    out::text(&report.to_table());
    out::line(&format!("\nreports: {}", folder.display()));
    match end {
        EarlyStop::Interrupted(_) => {
            out::line("interrupted: the report holds what was measured");
            Ok(())
        }
        EarlyStop::Failed(m) => bail!("{m}"),
    }
}

/// The report's frame: version, start, the run's configuration; no step yet.
fn new_report(setup: &Setup<'_>, workers: u16) -> Report {
    let mut report = Report::new(env!("CARGO_PKG_VERSION"), now_unix_ms());
    report
        .config
        .insert("profile".into(), setup.profile.name.clone());
    report.config.insert("n3".into(), setup.names[0].clone());
    report.config.insert("n6".into(), setup.names[1].clone());
    report.config.insert("workers".into(), workers.to_string());
    report
        .config
        .insert("ues".into(), setup.profile.sessions.count.to_string());
    report
}

#[allow(clippy::too_many_lines)]
fn execute(eal: &Eal, setup: &Setup<'_>, interrupts: &Interrupts) -> Result<()> {
    let system = setup.system;
    let workers = system.cores.workers.len() as u16;
    let hz = eal.tsc_hz();
    let mut calibration = TscCalibration::new(setup.first_anchor);
    let mut n3 = Port::from_name(eal, &setup.names[0])
        .with_context(|| format!("N3 port {}", setup.names[0]))?;
    let mut n6 = Port::from_name(eal, &setup.names[1])
        .with_context(|| format!("N6 port {}", setup.names[1]))?;
    let interfaces = [interface(&n3, &system.n3)?, interface(&n6, &system.n6)?];
    let peers = [system.n3.peer_v4()?, system.n6.peer_v4()?];
    let queues = [
        system.n3.queue_count(&system.cores),
        system.n6.queue_count(&system.cores),
    ];
    let pools = [
        rx_pool(eal, "rx-n3", queues[0], system.n3.rx_descriptors)?,
        rx_pool(eal, "rx-n6", queues[1], system.n6.rx_descriptors)?,
    ];
    let service_pool = Mempool::new(
        eal,
        "service",
        SERVICE_POOL,
        128,
        DEFAULT_DATA_ROOM,
        Socket::Any,
    )?;
    let run_started = Instant::now();
    let mut report = new_report(setup, workers);
    let stop = || interrupts.any();
    if let Err(e) = wait_for_memif_servers(system, &setup.names, &stop) {
        return end_early(setup, &mut report, run_started, e);
    }
    let s3 = n3
        .start(
            &port_config(
                &n3,
                queues[0],
                system.n3.rx_descriptors,
                system.n3.tx_descriptors,
            )?,
            &pools[0],
        )
        .context("starting N3")?;
    let s6 = n6
        .start(
            &port_config(
                &n6,
                queues[1],
                system.n6.rx_descriptors,
                system.n6.tx_descriptors,
            )?,
            &pools[1],
        )
        .context("starting N6")?;
    let links = match wait_for_links([&*s3, &*s6], &setup.names, &stop) {
        Ok(speeds) => speeds,
        Err(e) => return end_early(setup, &mut report, run_started, e),
    };
    let plans = setup
        .payloads
        .iter()
        .map(|&p| plan::build(system, setup.profile, p, links))
        .collect::<Result<Vec<Plan>, _>>()?;
    let first = &plans[0];
    let rules: Vec<RxRules> = plans
        .iter()
        .map(|p| RxRules::new(p.ues, p.qfi, &p.streams))
        .collect();
    let sessions = if setup.pfcp {
        plan::sessions::session_plans(system, setup.profile, &first.ues)?
    } else {
        Vec::new()
    };
    let mut idle_queues: Vec<Option<[PortQueues<'_>; 2]>> =
        split_queues(s3.queues()?, s6.queues()?)
            .into_iter()
            .map(Some)
            .collect();

    let client = ClientThread::start(setup.pfcp.then(|| {
        let p = system.pfcp.as_ref().expect("checked");
        ClientSide {
            local: p.local,
            peer: p.peer,
            t1: p.t1,
            n1: p.n1,
            heartbeat: p.heartbeat,
            initial_window: p.window.initial as usize,
            window: p.window.max as usize,
            release_wait: p.release_wait,
        }
    }))?;
    if interrupts.any() {
        let doing = "while being set up".to_owned();
        return end_early(
            setup,
            &mut report,
            run_started,
            EarlyStop::Interrupted(doing),
        );
    }

    let timing = Timing {
        warmup: first.warmup,
        settle: first.drain.max(Duration::from_millis(100)),
        measure_limit: first.expected + first.expected / 2 + Duration::from_secs(2),
        drain: first.drain,
    };
    let mut machine = RunMachine::new(timing, plans.len(), setup.pfcp);
    let control = PhaseBoard::new();
    let mut steps: Vec<StepResult> = Vec::new();
    let mut uplink_teids: Vec<Teid> = match first.ues.uplink_teid {
        UplinkTeids::Sequence(s) => (0..first.ues.count).map(|i| s.get(i)).collect(),
        UplinkTeids::ChosenByUpf => Vec::new(),
    };
    let mut next_hop = [MacAddr([0; 6]); 2];
    for (i, p) in [&system.n3, &system.n6].into_iter().enumerate() {
        if let Some(mac) = p.peer_mac {
            next_hop[i] = mac;
        }
    }
    let qfi = first.qfi;
    // Ticks become nanoseconds from here; each step gets the frequency measured when it starts.
    let clock_start = tsc();
    let clock = Clock::new(hz, clock_start);

    let mut times = ControlTimes::default();
    // A request's whole retransmission time, and one T1 more: a batch with failures and no
    // success for that long talks to a UPF that stopped answering.
    let give_up = system
        .pfcp
        .as_ref()
        .map_or(Duration::from_secs(15), |p| p.t1 * (p.n1 + 2));
    let mut report_folder = None;
    // A step hook's failures, by step, until the step's report exists.
    let mut hook_warnings: Vec<(usize, String)> = Vec::new();
    let outcome = eal.scope(|scope| -> Result<()> {
        // However this closure ends (a panic included), the workers leave their loop: the
        // scope waits for them.
        let _stop_workers = StopOnDrop(&control);
        let mut pending_assoc = None;
        let mut pending_establish = None;
        let mut pending_delete = None;
        let mut pending_stats: Option<Pending<Option<Stats>>> = None;
        let mut last_stats: Option<Stats> = None;
        let mut pending_release = None;
        let mut running: Option<Running<'_, '_>> = None;
        let mut seen_interrupts = 0;
        let mut last_live = Instant::now();
        machine.start(Instant::now());
        loop {
            while let Some(action) = machine.poll_action() {
                let now = Instant::now();
                match action {
                    Action::Associate => {
                        out::line(&format!(
                            "PFCP: associating with {}",
                            system
                                .pfcp
                                .as_ref()
                                .map_or(String::new(), |p| p.peer.to_string())
                        ));
                        pending_assoc = Some(client.associate());
                    }
                    Action::Establish => {
                        out::line(&format!("PFCP: establishing {} sessions", sessions.len()));
                        times.establish_started = Some(now);
                        pending_establish = client
                            .establish(sessions.clone())
                            .map(|b| (b, BatchMeter::new("established", now)));
                    }
                    Action::CancelEstablishment => {
                        out::line("interrupted: establishment stops after the requests in flight");
                        if let Some((b, _)) = &pending_establish {
                            b.cancel();
                        }
                    }
                    Action::Resolve => {
                        let event = resolve_peers(
                            &mut idle_queues,
                            interfaces,
                            service_pool,
                            hz,
                            system,
                            &mut next_hop,
                            &|| interrupts.count() > seen_interrupts,
                        );
                        if event == Event::Interrupt {
                            seen_interrupts = interrupts.count();
                        }
                        machine.handle(Instant::now(), event);
                    }
                    Action::Prepare { step } => {
                        let plan = &plans[step];
                        if let Some(w) = run_hook(setup, StepEdge::Start, step, plans.len(), plan) {
                            hook_warnings.push((step, w));
                        }
                        let endpoints = Endpoints {
                            local: interfaces,
                            upf_n3: peers[0],
                            next_hop_mac: next_hop,
                        };
                        match launch(
                            scope,
                            eal,
                            plan,
                            &rules[step],
                            step,
                            &endpoints,
                            qfi,
                            &uplink_teids,
                            &mut idle_queues,
                            service_pool,
                            step_clock(&mut calibration, clock_start, hz),
                            &control,
                            [&*s3, &*s6],
                            peers,
                            &setup.kernel,
                        ) {
                            Ok(r) => {
                                if let Some(p) = plan.payload {
                                    out::line(&format!("step {}: payload {p} B", step + 1));
                                }
                                running = Some(r);
                                machine.handle(Instant::now(), Event::Prepared);
                            }
                            Err(e) => {
                                machine.handle(Instant::now(), Event::Failed(format!("{e:#}")))
                            }
                        }
                    }
                    Action::SetPhase(phase) => {
                        let clock = running.as_ref().map_or(clock, |r| r.clock);
                        let epoch = tsc() + clock.ticks(EPOCH_LEAD.as_nanos() as u64);
                        control.set(phase, epoch);
                        if let Some(r) = &mut running {
                            match phase {
                                Phase::Measure => r.measure_started = Some(now + EPOCH_LEAD),
                                Phase::Drain
                                    if r.measure_started.is_some() && r.measure_ended.is_none() =>
                                {
                                    r.measure_ended = Some(now);
                                }
                                _ => {}
                            }
                        }
                    }
                    Action::Collect { step } => {
                        let r = running
                            .take()
                            .ok_or_else(|| anyhow!("no workers to collect"))?;
                        let result = collect(
                            r,
                            step_clock(&mut calibration, clock_start, hz),
                            &control,
                            &mut idle_queues,
                            &plans[step],
                            [&*s3, &*s6],
                            &setup.kernel,
                        )?;
                        out::line(&result.report.summary());
                        steps.push(result);
                        if let Some(w) =
                            run_hook(setup, StepEdge::End, step, plans.len(), &plans[step])
                        {
                            hook_warnings.push((step, w));
                        }
                        for (s, w) in hook_warnings.drain(..) {
                            if let Some(r) = steps.get_mut(s) {
                                r.report.warnings.push(w);
                            }
                        }
                        machine.handle(Instant::now(), Event::Collected);
                    }
                    Action::Report => {
                        report.duration_s = run_started.elapsed().as_secs_f64();
                        report.clock = clock_report(&calibration, hz);
                        report.steps = steps.iter().map(|s| s.report.clone()).collect();
                        if let Some(f) = machine.failure() {
                            report.warnings.push(format!("the run failed: {f}"));
                        } else if machine.stopped_early() && steps.is_empty() {
                            report
                                .warnings
                                .push("the run was interrupted: nothing was measured".into());
                        } else if machine.stopped_early() {
                            report.warnings.push(
                                "the run was interrupted: steps not collected are missing".into(),
                            );
                        }
                        // Written now, before the teardown, so that a teardown that hangs or
                        // dies leaves the measurement behind; written again at the end with
                        // the deletion's figures.
                        let hlogs: Vec<_> = steps.iter().map(|s| (&s.report, &s.hlog)).collect();
                        report_folder = Some(write_report(
                            &report,
                            &hlogs,
                            &setup.reports,
                            &setup.profile.name,
                            setup.sweep,
                        )?);
                        machine.handle(Instant::now(), Event::Reported);
                    }
                    Action::Delete => {
                        out::line("PFCP: deleting the sessions");
                        times.delete_started = Some(now);
                        pending_delete = client
                            .delete()
                            .map(|b| (b, BatchMeter::new("deleted", now)));
                        if pending_delete.is_none() {
                            machine.handle(now, Event::Deleted);
                        }
                    }
                    Action::Release => {
                        pending_release = Some(client.release());
                    }
                }
            }
            if machine.is_done() {
                break;
            }
            // Wait for the next thing to happen: at most 10 ms while the UPF answers (its
            // rates are measured by this loop), 50 ms otherwise.
            let now = Instant::now();
            let tick = if pending_assoc.is_some()
                || pending_establish.is_some()
                || pending_delete.is_some()
                || pending_release.is_some()
            {
                Duration::from_millis(10)
            } else {
                Duration::from_millis(50)
            };
            let until = machine
                .poll_timeout()
                .map_or(now + tick, |d| d.min(now + tick));
            if until > now {
                std::thread::sleep(until - now);
            }
            let now = Instant::now();
            let n = interrupts.count();
            if n > seen_interrupts {
                seen_interrupts = n;
                machine.handle(now, Event::Interrupt);
            }
            if let Some(p) = &mut pending_assoc
                && let Some(r) = take(p)?
            {
                pending_assoc = None;
                match r {
                    Ok(a) => {
                        out::line(&format!("PFCP: associated with {}", a.peer));
                        machine.handle(now, Event::Associated);
                    }
                    Err(e) => machine.handle(now, Event::Failed(format!("PFCP association: {e}"))),
                }
            }
            if let Some((b, meter)) = &mut pending_establish {
                if let Some(line) = meter.line(now, b.progress(), last_stats.as_ref()) {
                    out::progress(&line);
                    pending_stats.get_or_insert_with(|| client.stats());
                }
                if meter.stalled(now, b.progress(), give_up) {
                    out::line(&stalled_message("establishment", give_up));
                    b.cancel();
                }
            }
            if let Some(p) = &mut pending_stats
                && let Some(r) = take(p)?
            {
                pending_stats = None;
                last_stats = r;
            }
            if let Some((b, _)) = &mut pending_establish
                && let Some(r) = b.try_result()
            {
                pending_establish = None;
                times.establish_ended = Some(now);
                match r {
                    Ok(sessions) => {
                        out::line(&format!("PFCP: {} sessions established", sessions.len()));
                        if matches!(first.ues.uplink_teid, UplinkTeids::ChosenByUpf) {
                            uplink_teids = sessions
                                .iter()
                                .map(|s| s.uplink_endpoint().map_or(Teid::ZERO, |(t, _)| t))
                                .collect();
                        }
                        match crate::control::checks::chosen_endpoint_mismatch(&sessions, peers[0])
                        {
                            Some(m) => machine.handle(now, Event::Failed(m)),
                            None => machine.handle(now, Event::Established),
                        }
                    }
                    // Cancelled because the user interrupted: not a failure; the teardown
                    // deletes what was established.
                    Err(e)
                        if machine.stopped_early()
                            && machine.failure().is_none()
                            && matches!(
                                e.error,
                                NodeError::Aborted {
                                    reason: "cancelled",
                                    ..
                                }
                            ) =>
                    {
                        out::line(&format!(
                            "PFCP: {} of {} sessions established before the interruption",
                            e.established, e.total
                        ));
                        machine.handle(now, Event::Established);
                    }
                    Err(e) => {
                        let hint = crate::control::checks::establishment_hint(&e)
                            .map(|h| format!(": {h}"))
                            .unwrap_or_default();
                        let failure = establishment_failure(&e, &sessions);
                        machine.handle(now, Event::Failed(format!("{failure}{hint}")));
                    }
                }
            }
            if let Some((b, meter)) = &mut pending_delete {
                if let Some(line) = meter.line(now, b.progress(), last_stats.as_ref()) {
                    out::progress(&line);
                    pending_stats.get_or_insert_with(|| client.stats());
                }
                if meter.stalled(now, b.progress(), give_up) {
                    out::line(&stalled_message("deletion", give_up));
                    b.cancel();
                }
            }
            if let Some((b, _)) = &mut pending_delete
                && let Some(r) = b.try_result()
            {
                pending_delete = None;
                times.delete_ended = Some(now);
                match r {
                    Ok(n) => {
                        out::line(&format!("PFCP: {n} sessions deleted"));
                        machine.handle(now, Event::Deleted);
                    }
                    Err(e) => machine.handle(now, Event::Failed(deletion_failure(&e, &sessions))),
                }
            }
            if let Some(p) = &mut pending_release
                && let Some(r) = take(p)?
            {
                pending_release = None;
                times.release = Some(match r {
                    Ok(Release::Answered) => "answered".to_owned(),
                    Ok(Release::Unanswered) => {
                        "not answered (Open5GS and eUPF never answer it)".to_owned()
                    }
                    Err(e) => format!("failed: {e}"),
                });
                machine.handle(now, Event::Released);
            }
            if let Some(r) = &mut running {
                if machine.state() == crate::run::State::Measure
                    && control.workers_done() as usize == r.handles.len()
                {
                    r.measure_ended = Some(now);
                    machine.handle(now, Event::AllSent);
                }
                if last_live.elapsed() >= Duration::from_secs(1) {
                    last_live = Instant::now();
                    super::live::collect_intervals(&mut r.live, &mut r.rx);
                    let tx: Vec<_> = r.tx.iter().map(TxHandle::snapshot).collect();
                    let rx: Vec<_> = r.rx.iter().map(RxHandle::snapshot).collect();
                    let line = r.live.line(r.clock.ns(tsc()), &tx, &rx);
                    let phase = control.phase();
                    if phase == Phase::Warmup {
                        // Warm-up packets prime the UPF's flows and are not measured.
                        out::progress(&format!(
                            "{:>9} {:7.1}s sending, not measured",
                            "Warmup",
                            line.elapsed_ns as f64 / 1e9
                        ));
                    } else {
                        out::progress(&format!("{:>9} {line}", format!("{phase:?}")));
                    }
                }
            }
            machine.handle_timeout(Instant::now());
        }
        Ok(())
    });
    if setup.pfcp {
        let figures = client.figures().wait().ok().flatten();
        let stats = client.stats().wait().ok().flatten();
        if let (Some(f), Some(st)) = (figures, stats) {
            let upf = system
                .pfcp
                .as_ref()
                .map_or(String::new(), |p| p.peer.to_string());
            let control = control_report(upf, sessions.len() as u64, &times, &f, &st);
            if control.lost_sessions > 0 {
                report.warnings.push(format!(
                    "the UPF no longer knew {} sessions when they were deleted (Cause 65): it \
                     removed them during the run (Open5GS does so when it takes the run for a CP \
                     restart), so their flows' losses may be the UPF's session handling, not its \
                     forwarding",
                    control.lost_sessions
                ));
            }
            report.control = Some(control);
        }
    }
    drop(client);
    outcome?;
    if let Some(folder) = &report_folder {
        let hlogs: Vec<_> = steps.iter().map(|s| (&s.report, &s.hlog)).collect();
        write_files(&report, &hlogs, folder)?;
        out::text(&report.to_table());
        out::line(&format!("\nreports: {}", folder.display()));
    }
    drop((s3, s6));
    match machine.failure() {
        Some(f) => bail!("{f}"),
        None if machine.stopped_early() => {
            out::line("interrupted: the report holds what was measured");
            Ok(())
        }
        None => Ok(()),
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
    let label = step_label(plan);
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

fn take<T>(p: &mut Pending<T>) -> Result<Option<T>> {
    p.try_take().map_err(|e| anyhow!("{e}"))
}

/// Sets the workers' phase to [`Phase::Stop`] when dropped.
struct StopOnDrop<'a>(&'a PhaseBoard);

impl Drop for StopOnDrop<'_> {
    fn drop(&mut self) {
        self.0.set(Phase::Stop, 0);
    }
}

/// Resolves the UPF's MACs on both ports (those not given in the system file), until
/// `interrupted`.
fn resolve_peers<'p>(
    queues: &mut [Option<[PortQueues<'p>; 2]>],
    interfaces: [Interface; 2],
    pool: Mempool<'p>,
    hz: u64,
    system: &System,
    next_hop: &mut [MacAddr; 2],
    interrupted: &dyn Fn() -> bool,
) -> Event {
    let peers = match (system.n3.peer_v4(), system.n6.peer_v4()) {
        (Ok(n3), Ok(n6)) => [n3, n6],
        (Err(e), _) | (_, Err(e)) => return Event::Failed(e.to_string()),
    };
    let mut held: Vec<[PortQueues<'p>; 2]> = queues.iter_mut().filter_map(Option::take).collect();
    let known: Vec<_> = [(Side::N3, &system.n3), (Side::N6, &system.n6)]
        .into_iter()
        .filter_map(|(s, p)| Some((s, peers[s.index()], p.peer_mac?)))
        .collect();
    let mut service = ServicePlane::new(interfaces, pool, hz, &known);
    let targets = [(Side::N3, peers[0]), (Side::N6, peers[1])];
    let asked: Vec<String> = [(Side::N3, &system.n3), (Side::N6, &system.n6)]
        .into_iter()
        .filter(|(_, p)| p.peer_mac.is_none())
        .map(|(s, p)| format!("{} {}", s.name(), p.peer))
        .collect();
    if !asked.is_empty() {
        out::line(&format!(
            "ARP: resolving {} (at most {} requests {:?} apart)",
            asked.join(", "),
            system.arp.retries + 1,
            system.arp.timeout
        ));
    }
    let result = resolve(
        &mut held,
        &mut service,
        &targets,
        system.arp.timeout,
        system.arp.retries + 1,
        interrupted,
    );
    for (slot, q) in queues.iter_mut().zip(held) {
        *slot = Some(q);
    }
    match result {
        Ok(macs) => {
            for ((side, ip), mac) in targets.iter().zip(macs) {
                next_hop[side.index()] = mac;
                out::line(&format!("{}: {ip} is at {mac}", side.name()));
            }
            Event::Resolved
        }
        Err(WaitError::Interrupted) => Event::Interrupt,
        Err(e) => Event::Failed(e.to_string()),
    }
}

/// The clock of a step's edge, now: the TSC frequency measured from the process's start to
/// now, after waiting for the calibration's shortest span if the run got here sooner (EAL's
/// estimate `dpdk_hz` only if the TSC did not move forward).
fn step_clock(calibration: &mut TscCalibration, start: u64, dpdk_hz: u64) -> Clock {
    Clock::new(measure_now(calibration, dpdk_hz), start)
}

/// The report's clock section: the frequency measured over the run, and EAL's beside it.
fn clock_report(calibration: &TscCalibration, dpdk_hz: u64) -> Option<ClockReport> {
    let tsc_hz = calibration.hz()?;
    Some(ClockReport {
        tsc_hz,
        dpdk_tsc_hz: dpdk_hz,
        dpdk_error_ppm: ppm(dpdk_hz as f64, tsc_hz),
        calibrated_over_s: calibration.span_ns() as f64 / 1e9,
        uncertainty_ppm: calibration.uncertainty_ppm()?,
    })
}

/// Builds step `step`'s TX shares and statistics and launches the workers, idle.
#[allow(clippy::too_many_arguments)]
fn launch<'s, 'p>(
    scope: &'s LcoreScope<'s, 'p>,
    eal: &'p Eal,
    plan: &'p Plan,
    rules: &'p RxRules,
    step: usize,
    endpoints: &Endpoints,
    qfi: Option<Qfi>,
    uplink_teids: &[Teid],
    queues: &mut [Option<[PortQueues<'p>; 2]>],
    service_pool: Mempool<'p>,
    clock: Clock,
    control: &'p PhaseBoard,
    ports: [&Port<'_>; 2],
    peers: [Ipv4Addr; 2],
    kernel: &KernelCounters,
) -> Result<Running<'s, 'p>> {
    let specs: Vec<StreamSpec> = plan
        .streams
        .iter()
        .flat_map(|s| {
            std::iter::repeat_n(
                StreamSpec {
                    direction: s.direction,
                    first_seq: 0,
                },
                s.ue_count() as usize,
            )
        })
        .collect();
    let rx_config = RxConfig {
        reorder_window: plan.reorder_window,
        latency: plan.latency,
        ..RxConfig::default()
    };
    let known: Vec<_> = [Side::N3, Side::N6]
        .into_iter()
        .map(|s| (s, peers[s.index()], endpoints.next_hop_mac[s.index()]))
        .collect();
    let mut running = Running {
        handles: Vec::new(),
        rx: Vec::new(),
        tx: Vec::new(),
        live: LiveMeter::new(&plan.latency)?.with_interval_log(IntervalLog::new(
            SystemTime::now(),
            &format!(
                "upfbench {} latency intervals, step {}",
                env!("CARGO_PKG_VERSION"),
                step_label(plan)
            ),
        )),
        specs: specs.clone(),
        measure_started: None,
        measure_ended: None,
        ports_before: [ports[0].stats()?, ports[1].stats()?],
        clock,
        kernel_before: kernel.read(),
    };
    // The live meter's baseline, and the interval log's time zero.
    running.live.line(clock.ns(tsc()), &[], &[]);
    control.set(Phase::Idle, 0);
    for (w, wp) in plan.workers.iter().enumerate() {
        let mut shares = Vec::new();
        let mut warmup = Vec::new();
        for share in &wp.shares {
            let stream = plan.stream(share.stream);
            let first_ue = stream.ues.start + share.first;
            let teid = uplink_teids
                .get(first_ue as usize)
                .copied()
                .unwrap_or(Teid::ZERO);
            let template =
                stream_template(stream, plan.ues.address_v4(first_ue), teid, qfi, endpoints)
                    .with_context(|| format!("building the frame of stream {}", stream.name))?;
            let pool = TemplatePool::new(
                eal,
                &format!("tx{step}w{w}s{}", share.stream),
                TX_POOL,
                TX_POOL_CACHE,
                template.bytes(),
                template.patch_range(TAG_LEN).ok_or_else(|| {
                    anyhow!(
                        "stream {}: the frame cannot be patched in place",
                        stream.name
                    )
                })?,
                Socket::Any,
            )
            .with_context(|| format!("the TX pool of stream {}", stream.name))?;
            let teids = |ue: u32| uplink_teids.get(ue as usize).copied().unwrap_or(Teid::ZERO);
            let ues = share_ues(stream, share, &plan.ues, &template, &teids);
            warmup.push(plan.warmup_schedule(share));
            shares.push(TxShare::new(
                ShareSpec::new(stream, share, plan.catch_up),
                pool,
                template,
                ues,
            ));
        }
        let (rx, rx_handle) = RxStats::new(w as u32, &specs, &rx_config)?;
        let (tx, tx_handle) = TxStats::new(w as u32, &specs);
        running.rx.push(rx_handle);
        running.tx.push(tx_handle);
        let ports = queues[w]
            .take()
            .ok_or_else(|| anyhow!("worker {w}'s queues are in use"))?;
        let worker = Worker {
            index: w as u16,
            ports,
            shares,
            warmup,
            rules,
            rx,
            tx,
            service: ServicePlane::new(endpoints.local, service_pool, clock.hz(), &known),
            clock,
            flush_ns: FLUSH_NS,
        };
        running
            .handles
            .push(scope.launch(wp.lcore, move || worker.poll_until_stopped(control))?);
    }
    Ok(running)
}

/// Stops the workers and merges what they measured; `end_clock` has the TSC frequency
/// measured at the step's end, which its duration (and so its rates) are converted with.
fn collect<'p>(
    mut r: Running<'_, 'p>,
    end_clock: Clock,
    control: &PhaseBoard,
    queues: &mut [Option<[PortQueues<'p>; 2]>],
    plan: &Plan,
    ports: [&Port<'_>; 2],
    kernel: &KernelCounters,
) -> Result<StepResult> {
    control.set(Phase::Stop, 0);
    let mut tx = Vec::new();
    let mut rx = Vec::new();
    let mut counters = WorkerCounters::default();
    for (w, h) in std::mem::take(&mut r.handles).into_iter().enumerate() {
        let res = h.join().map_err(|_| anyhow!("worker {w} panicked"))?;
        queues[w] = Some(res.ports);
        tx.push(res.tx);
        rx.push(res.rx);
        add_counters(&mut counters, &res.counters);
    }
    let merged = RunResult::merge(&r.specs, &tx, &rx, &plan.latency)?;
    // The sending time: from when the first packet was due to the last burst, stretched by one
    // packet's share of it (n packets span n - 1 gaps).
    let sent: u64 = merged.directions.iter().map(|d| d.tx.packets).sum();
    let duration = match counters.tx_span {
        Some((first, last)) if last > first && sent > 1 => {
            let span = end_clock.ticks_to_ns(last - first) as f64;
            Duration::from_nanos((span * sent as f64 / (sent - 1) as f64) as u64)
        }
        _ => plan.expected,
    };
    let mut report = StepReport::from_run(
        step_label(plan),
        plan.payload.map(u32::from),
        duration.as_nanos() as u64,
        &merged,
    );
    report.tsc_hz = Some(r.clock.hz() as f64);
    let drift = ppm(end_clock.hz() as f64, r.clock.hz() as f64);
    if drift.abs() > TSC_DRIFT_PPM {
        report.warnings.push(format!(
            "the TSC's frequency measured at the step's end is {drift:+.1} ppm from the one at \
             its start ({} Hz): this host's TSC does not keep a steady rate, and the step's \
             latencies are off by as much",
            r.clock.hz()
        ));
    }
    report.warnings.extend(counter_notes(&counters));
    report.rx_rejected = rejected(&counters);
    report.streams = plan
        .streams
        .iter()
        .map(|st| {
            let flows = st.flow_base as usize..(st.flow_base + st.ue_count()) as usize;
            StreamSummary::from_flows(
                st.name.clone(),
                st.direction,
                u32::from(st.payload_len),
                merged.streams.get(flows).unwrap_or_default(),
            )
        })
        .collect();
    super::tx_slip::add_slips(&mut report, &plan.streams, &counters.tx_slips);
    let after = [ports[0].stats()?, ports[1].stats()?];
    let kernel_after = kernel.read();
    for (side, (b, a)) in Side::BOTH.iter().zip(r.ports_before.iter().zip(&after)) {
        let name = side.name();
        let port = port_report(name, b, a);
        if port.own_drops() > 0 {
            report.warnings.push(format!(
                "{name}: the tester's own port dropped packets: imissed {}, ierrors {}, rx_nombuf {}, oerrors {}",
                port.imissed, port.ierrors, port.rx_nombuf, port.oerrors
            ));
        }
        let frames = port_frames(*side, &counters);
        if let Some(m) = frames.mismatch(&port) {
            report.warnings.push(format!(
                "frames by kind do not add up to the port's counters: {m}"
            ));
        }
        report.ports.push(port);
        report.frames.push(frames);
    }
    kernel.add_to_step(&mut report, &r.kernel_before, &kernel_after);
    // The last interval: what arrived after the last live line.
    for h in &mut r.rx {
        r.live.collect(h);
    }
    let tx: Vec<_> = r.tx.iter().map(TxHandle::snapshot).collect();
    let rx: Vec<_> = r.rx.iter().map(RxHandle::snapshot).collect();
    r.live.line(r.clock.ns(tsc()), &tx, &rx);
    let hlog = r.live.take_interval_log().map(|(log, failures)| {
        if failures > 0 {
            report.warnings.push(format!(
                "{failures} latency intervals could not be written to the interval log"
            ));
        }
        log.to_bytes()
    });
    Ok(StepResult { report, hlog })
}

fn add_counters(a: &mut WorkerCounters, b: &WorkerCounters) {
    for (x, y) in a.rejects.iter_mut().zip(&b.rejects) {
        for (p, q) in x.iter_mut().zip(y) {
            *p += q;
        }
    }
    a.no_container += b.no_container;
    for (x, y) in [
        (&mut a.rx_measured, &b.rx_measured),
        (&mut a.unmeasured, &b.unmeasured),
        (&mut a.tx_measured, &b.tx_measured),
        (&mut a.tx_warmup, &b.tx_warmup),
        (&mut a.rx_service, &b.rx_service),
        (&mut a.tx_service, &b.tx_service),
    ] {
        for (p, q) in x.iter_mut().zip(y) {
            *p += q;
        }
    }
    a.tx_pool_empty += b.tx_pool_empty;
    a.tx_rewound += b.tx_rewound;
    a.tx_slips.extend_from_slice(&b.tx_slips);
    for (x, y) in a.service_seen.iter_mut().zip(&b.service_seen) {
        for (p, q) in x.iter_mut().zip(y) {
            *p += q;
        }
    }
    if let Some((first, last)) = b.tx_span {
        a.tx_span = Some(match a.tx_span {
            None => (first, last),
            Some((x, y)) => (x.min(first), y.max(last)),
        });
    }
}

/// What the workers counted besides the measurement, as report lines.
fn counter_notes(c: &WorkerCounters) -> Vec<String> {
    let mut notes = Vec::new();
    if c.no_container > 0 {
        notes.push(format!(
            "N3: {} downlink G-PDUs came without a PDU Session Container (measured)",
            c.no_container
        ));
    }
    if c.tx_pool_empty > 0 {
        notes.push(format!(
            "TX: a template pool ran dry {} times (the NIC held every mbuf): packets were late",
            c.tx_pool_empty
        ));
    }
    if c.tx_rewound > 0 {
        notes.push(format!(
            "TX: {} packets were never taken by the NIC and are not counted as sent",
            c.tx_rewound
        ));
    }
    notes
}

/// What the run says when a batch of session procedures stalls.
fn stalled_message(what: &str, give_up: Duration) -> String {
    format!(
        "PFCP: the UPF has answered no session request for {give_up:?} while requests time out: \
         stopping the {what}. (Open5GS de-associates a CP whose heartbeats went unanswered between \
         two runs, then ignores its session requests: wait 30 s between runs, or restart it.)"
    )
}

/// Received frames that were not measured, by port and kind: what the classifier rejected, and
/// what the service plane got that is news from the UPF (Error Indications, End Markers, other
/// GTP-U signalling, ICMP other than echo requests to us, what it could not read); ARP and the
/// echo requests it answered are not.
fn rejected(c: &WorkerCounters) -> std::collections::BTreeMap<String, u64> {
    use crate::datapath::common::service::Seen;
    use crate::datapath::generator::classify::Reject;
    const FINDINGS: [Seen; 6] = [
        Seen::IcmpOther,
        Seen::GtpuEchoResponse,
        Seen::GtpuErrorIndication,
        Seen::GtpuEndMarker,
        Seen::GtpuOther,
        Seen::Ignored,
    ];
    let mut out = std::collections::BTreeMap::new();
    for (side, rejects) in ["N3", "N6"].iter().zip(&c.rejects) {
        for (k, &n) in rejects.iter().enumerate() {
            if n > 0 {
                out.insert(format!("{side} {}", Reject::NAMES[k]), n);
            }
        }
    }
    for (side, seen) in ["N3", "N6"].iter().zip(&c.service_seen) {
        for kind in FINDINGS {
            let n = seen[kind as usize];
            if n > 0 {
                out.insert(format!("{side} {}", Seen::NAMES[kind as usize]), n);
            }
        }
    }
    out
}

/// What the workers sent and received on `side`'s port, by kind.
fn port_frames(side: Side, c: &WorkerCounters) -> PortFrames {
    let i = side.index();
    PortFrames {
        name: side.name().to_owned(),
        tx_measured: c.tx_measured[i],
        tx_warmup: c.tx_warmup[i],
        tx_service: c.tx_service[i],
        rx_measured: c.rx_measured[i],
        rx_unmeasured: c.unmeasured[i],
        rx_service: c.rx_service[i],
        rx_rejected: c.rejects[i].iter().sum(),
    }
}

/// What the port counted between `before` and `after`.
fn port_report(name: &str, before: &PortStats, after: &PortStats) -> PortReport {
    PortReport {
        name: name.to_owned(),
        ipackets: after.ipackets.saturating_sub(before.ipackets),
        opackets: after.opackets.saturating_sub(before.opackets),
        ibytes: after.ibytes.saturating_sub(before.ibytes),
        obytes: after.obytes.saturating_sub(before.obytes),
        imissed: after.imissed.saturating_sub(before.imissed),
        ierrors: after.ierrors.saturating_sub(before.ierrors),
        rx_nombuf: after.rx_nombuf.saturating_sub(before.rx_nombuf),
        oerrors: after.oerrors.saturating_sub(before.oerrors),
        interface: None,
    }
}

fn step_label(plan: &Plan) -> String {
    match plan.payload {
        Some(p) => format!("{p} B"),
        None => "run".to_owned(),
    }
}

/// Creates the run's folder in `dir` and writes the report's files into it; returns the folder.
fn write_report(
    report: &Report,
    hlogs: &[(&StepReport, &Option<Vec<u8>>)],
    dir: &std::path::Path,
    profile: &str,
    sweep: bool,
) -> Result<std::path::PathBuf> {
    // "2026-11-24T19:00:25Z" → "2026-11-24T19-00-25Z": a name every filesystem takes.
    let stamp = report.started.replace(':', "-");
    let folder = dir.join(format!(
        "{stamp}-{profile}{}",
        if sweep { "-sweep" } else { "" }
    ));
    std::fs::create_dir_all(&folder)
        .with_context(|| format!("creating the reports folder {}", folder.display()))?;
    write_files(report, hlogs, &folder)?;
    Ok(folder)
}

/// report.json, report.csv (a row per step and direction), ports.csv, control.csv (with PFCP),
/// report.txt and a latency interval log per step
/// (`latency.hlog` for a run, `latency-<payload>B.hlog` for a sweep's steps).
fn write_files(
    report: &Report,
    hlogs: &[(&StepReport, &Option<Vec<u8>>)],
    folder: &std::path::Path,
) -> Result<()> {
    let write = |name: &str, bytes: &[u8]| {
        std::fs::write(folder.join(name), bytes)
            .with_context(|| format!("writing {}", folder.join(name).display()))
    };
    write("report.json", report.to_json().as_bytes())?;
    write("report.csv", report.to_csv().as_bytes())?;
    write("ports.csv", report.ports_csv().as_bytes())?;
    if report.control.is_some() {
        write("control.csv", report.control_csv().as_bytes())?;
    }
    write("report.txt", report.to_table().as_bytes())?;
    for (step, log) in hlogs {
        if let Some(bytes) = log {
            let name = match step.payload_bytes {
                Some(p) => format!("latency-{p}B.hlog"),
                None => "latency.hlog".to_owned(),
            };
            write(&name, bytes)?;
        }
    }
    Ok(())
}
