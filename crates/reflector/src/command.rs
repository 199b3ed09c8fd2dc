//! `upfbench reflect FILE`: a minimal UPF (PFCP server on N4, GTP-U decapsulation N3 → N6 and
//! encapsulation N6 → N3) or an echo on one port, until Ctrl-C, SIGTERM or `--duration`.

use std::net::IpAddr;
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::{Context, Result};
use upfbench_dpdk::{Eal, Mempool, Port, PortConfig, StartedPort, StopFlag, TscAnchor};
use upfbench_pfcp::ie::DnsName;

use upfbench_metrics::health::Phase;

use crate::bring_up::{PairSetup, open_pairs, seats, spans};
use crate::datapath::counters::{CounterCell, ReflectorCounters};
use crate::datapath::end_marker::end_marker_channel;
use crate::datapath::qer::{Policing, QerBook, QerPolicy};
use crate::datapath::rules::{ForwardingTable, table_channels};
use crate::lines::{PairSpan, live_line, render_all_totals, sum};
use crate::metrics::{ReflectorEvents, ReflectorMetrics};
use crate::qer_lines::render_qers;
use crate::upf_side::{UpfSide, UpfThread};
use crate::worker_template::WorkerTemplate;
use upfbench_cli::ReflectArgs;
use upfbench_cli::out;
use upfbench_cli::signals::Interrupts;
use upfbench_config::devargs::{SocketRole, socket_file};
use upfbench_config::{self as config, ReflectMode, Reflector};
use upfbench_datapath::calibration::{TscCalibration, measure_now, ppm};
use upfbench_datapath::devices::{self, n6_of};
use upfbench_datapath::eal_args::{PortDevice, RuntimeDirGuard, eal_args, file_prefix};
use upfbench_datapath::queues::Side;
use upfbench_datapath::rx_spread::rx_spread;
use upfbench_datapath::socket_files::{make_socket_dir, remove_stale_socket};
use upfbench_datapath::vlan_offload::VlanPlan;

/// Mbufs of the pool that service answers and duplicates come from.
const SERVICE_POOL: u32 = 8191;

/// Runs the reflector.
pub fn run(args: &ReflectArgs) -> Result<()> {
    // First of all: a Ctrl-C from now on is counted, not the default exit that would leave
    // EAL's runtime files behind.
    let interrupts = Interrupts::install().context("installing the signal handlers")?;
    // The TSC's frequency is measured against the kernel's clock from here to the workers'
    // start: the delay impairment holds packets for the kernel's seconds, not EAL's estimate.
    let mut calibration = TscCalibration::new(TscAnchor::now());
    let mut cfg = config::load_reflector(&args.file).map_err(|e| anyhow::anyhow!("{e}"))?;
    let metrics = ReflectorMetrics::start(&args.metrics)?;
    if let Some(port) = args.echo {
        cfg.mode = ReflectMode::Echo(port);
    }
    let mut devices = Vec::new();
    let mut names = Vec::new();
    for pair in cfg.pairs() {
        for p in [&pair.n3, &pair.n6] {
            make_socket_dir(&p.device, p.devargs.as_deref())?;
            if let Some(socket) = socket_file(p.device.name(), p.devargs.as_deref())
                && socket.role == SocketRole::Server
                && remove_stale_socket(&socket.path)?
            {
                tracing::warn!(
                    "removed {}: a {} socket no server listened on (a reflector before this \
                     one did not end cleanly)",
                    socket.path.display(),
                    socket.protocol
                );
            }
        }
        let pair_devices = [&pair.n3, &pair.n6].map(|p| PortDevice {
            device: &p.device,
            args: p.devargs.as_deref(),
        });
        names.push(pair_devices.map(|d| d.port_name()));
        devices.extend(pair_devices);
    }
    let prefix = cfg
        .eal
        .file_prefix
        .clone()
        .unwrap_or_else(|| format!("upfbench-reflect-{}", std::process::id()));
    // Every pair's devices, each once (one-port mode names N3's device for N6 too).
    let eal_args = eal_args(&cfg.eal.args, &cfg.cores, &prefix, &devices);
    let prefix = file_prefix(&eal_args).unwrap_or(prefix);
    // Dropped after the Eal: removes its runtime files on every way out, panics included.
    let runtime_dir = RuntimeDirGuard::new(&prefix);
    let outcome = Eal::init(&eal_args)
        .context("EAL initialisation failed (see EAL's messages above)")
        .and_then(|eal| {
            reflect(
                &eal,
                &cfg,
                names,
                args.duration,
                &interrupts,
                &mut calibration,
                metrics.as_ref(),
            )
        });
    drop(runtime_dir);
    if let Some(m) = &metrics {
        m.finish(&outcome, &interrupts);
    }
    outcome
}

/// The pairs' devices brought up, their ports named `names` in EAL (per pair, N3's and N6's),
/// the workers run on them until the end, the totals shown.
fn reflect(
    eal: &Eal,
    cfg: &Reflector,
    names: Vec<[String; 2]>,
    duration: Option<Duration>,
    interrupts: &Interrupts,
    calibration: &mut TscCalibration,
    metrics: Option<&ReflectorMetrics>,
) -> Result<()> {
    let pairs = cfg.pairs();
    let several = pairs.len() > 1;
    let workers = cfg.cores.workers.len();
    let (mut ports, setups) = open_pairs(eal, pairs, names)?;
    let service_pool = Mempool::new(
        eal,
        "service",
        SERVICE_POOL,
        256,
        upfbench_dpdk::DEFAULT_DATA_ROOM,
        upfbench_dpdk::Socket::Any,
    )?;
    let up = start_pairs(&mut ports, &setups)?;
    let mut queues = Vec::with_capacity(pairs.len());
    for (u, s) in up.iter().zip(&setups) {
        queues.push(devices::worker_queues(u, &s.settings)?.into_iter());
    }

    // Measured before the PFCP side starts: a held-back rule's release tick depends on it.
    let hz = measure_now(calibration, eal.tsc_hz());
    let (publisher, readers) = table_channels(workers, ForwardingTable::empty());
    let qers = QerBook::default();
    // The F-TEIDs it chooses (CH=1) carry the first pair's N3 address.
    let pfcp = upf_side(cfg, pairs[0].n3.address.addr, hz, &qers)?;
    let (end_marker_poster, end_marker_inbox) = end_marker_channel();
    let control = UpfThread::start(pfcp, publisher, end_marker_poster)?;
    let templates: Vec<WorkerTemplate<'_, '_>> = pairs
        .iter()
        .zip(&setups)
        .map(|(pair, setup)| WorkerTemplate::new(cfg, pair, setup, service_pool, hz))
        .collect();
    show_tsc(calibration, eal.tsc_hz(), hz);
    // Shared with the metrics endpoint, which reads them at scrape time.
    let cells: Arc<Vec<CounterCell>> =
        Arc::new((0..workers).map(|_| CounterCell::default()).collect());
    let spans = spans(pairs);
    let stop = StopFlag::new();
    let started = Instant::now();
    let shown: Vec<_> = templates
        .iter()
        .zip(&spans)
        .map(|(t, s)| (t, s.workers.len()))
        .collect();
    WorkerTemplate::show(&shown);
    show_qer_impairment(&qer_policy(cfg, hz));
    let mut end_marker_inbox = Some(end_marker_inbox);
    let totals = eal.scope(|s| -> Result<Vec<ReflectorCounters>> {
        let mut handles = Vec::new();
        for ((seat, table), cell) in seats(pairs).into_iter().zip(readers).zip(cells.iter()) {
            let ports = queues[seat.pair].next().with_context(|| {
                format!(
                    "pair {}: no queue {} for its worker on lcore {}",
                    pairs[seat.pair].name, seat.queue, seat.lcore
                )
            })?;
            // End Markers go out the first pair's N3 (docs/scale.md §2).
            let worker = templates[seat.pair].worker(ports, table, end_marker_inbox.take());
            let stop = &stop;
            handles.push(s.launch(seat.lcore, move || worker.poll_until_stopped(stop, cell))?);
        }
        if let Some(m) = metrics {
            m.reflector_running(Arc::clone(&cells), qers.clone());
        }
        show_live_lines(&cells, &spans, interrupts, duration, started);
        if let Some(m) = metrics {
            m.set_phase(Phase::Stopping, None);
        }
        stop.stop();
        handles
            .into_iter()
            .map(|h| {
                h.join()
                    .map_err(|_| anyhow::anyhow!("a reflector worker panicked"))
            })
            .collect()
    })?;
    control.stop()?;
    show_totals(&totals, &spans, started, metrics);
    out::text(&render_qers(&qers.by_qfi(), &qers.rows()));
    for (u, s) in up.iter().zip(&setups) {
        show_port_stats(u, &pair_label(&s.name, several));
    }
    drop(queues);
    drop(up);
    Ok(())
}

/// Starts each pair's `ports` as `setups` says, saying how their tags and receive queues work.
fn start_pairs<'p, 'e>(
    ports: &'p mut [Vec<Port<'e>>],
    setups: &[PairSetup<'e>],
) -> Result<Vec<Vec<StartedPort<'p, 'e>>>> {
    let several = setups.len() > 1;
    for s in setups {
        show_vlans(&s.vlan_plan, pair_label(&s.name, several));
    }
    let mut up = Vec::with_capacity(setups.len());
    for (p, s) in ports.iter_mut().zip(setups) {
        let u =
            devices::start(p, &s.configs, &s.pools).with_context(|| format!("pair {}", s.name))?;
        show_rx_spread(
            [
                (Side::N3, &s.configs[0], &u[0]),
                (Side::N6, n6_of(&s.configs), n6_of(&u)),
            ],
            pair_label(&s.name, several),
        );
        up.push(u);
    }
    Ok(up)
}

/// What goes before a pair's lines: `pair a ` with several pairs, nothing with one.
fn pair_label(name: &str, several: bool) -> String {
    if several {
        format!("pair {name} ")
    } else {
        String::new()
    }
}

/// The TSC's frequency `hz` as measured by `calibration`, and DPDK's estimate `dpdk_hz` beside
/// it.
fn show_tsc(calibration: &TscCalibration, dpdk_hz: u64, hz: u64) {
    out::line(&format!(
        "reflect: TSC {hz} Hz against CLOCK_MONOTONIC_RAW over {:.2} s; DPDK's estimate {} Hz \
         ({:+.1} ppm), not used",
        calibration.span_ns() as f64 / 1e9,
        dpdk_hz,
        ppm(dpdk_hz as f64, hz as f64)
    ));
}

/// Says how each tagged port's tags are put on and taken off (by the NIC or in software), and
/// what will not work as asked.
/// `label` names the pair (see [`pair_label`]).
fn show_vlans(plan: &VlanPlan, label: String) {
    for side in Side::BOTH {
        if let Some(line) = &plan.lines[side.index()] {
            out::line(&format!("{label}{} vlan: {line}", side.name()));
        }
    }
    for w in &plan.warnings {
        out::line(&format!("warning: {w}"));
    }
}

/// Says how each port spreads its frames over its receive queues, when it has several, and
/// warns when they will most likely land on one; `label` names the pair (see [`pair_label`]).
fn show_rx_spread(ports: [(Side, &PortConfig, &StartedPort<'_, '_>); 2], label: String) {
    for (side, config, port) in ports {
        let spread = rx_spread(side, config.rx_queues, config.rss, || {
            port.steer_gtpu_by_teid(0)
        });
        if config.rx_queues > 1 {
            out::line(&format!(
                "{label}{} rx: {}",
                side.name(),
                spread.description
            ));
        }
        if let Some(w) = spread.warning {
            out::line(&format!("warning: {w}"));
        }
    }
}

/// How the QERs are enforced, on a TSC of `hz`: `qer_burst`, and the impairment `qer`.
fn qer_policy(cfg: &Reflector, hz: u64) -> QerPolicy {
    let q = &cfg.impairments.qer;
    let policing = match (q.policing, q.over) {
        (config::Policing::Off, _) => Policing::Off,
        (config::Policing::On, None) => Policing::On,
        (config::Policing::On, Some(percent)) => Policing::Over(percent / 100.0),
    };
    QerPolicy {
        burst: cfg.qer_burst,
        policing,
        gates_ignored: q.gates == config::Gates::Ignored,
        tsc_hz: hz,
    }
}

/// Says how the impairment `qer` makes the QERs misbehave, if it does.
fn show_qer_impairment(policy: &QerPolicy) {
    match policy.policing {
        Policing::On => {}
        Policing::Off => out::line("reflect: impairment qer: QERs not policed (gates apply)"),
        Policing::Over(x) => out::line(&format!(
            "reflect: impairment qer: QERs policed at {:.3} x MBR",
            1.0 + x
        )),
    }
    if policy.gates_ignored {
        out::line("reflect: impairment qer: gates ignored (every gate stays open)");
    }
}

/// The PFCP UPF side of the upf mode (None in echo mode, or without a `pfcp` section), with
/// our N3 address `n3` (of either family), the TSC's frequency `hz`, and the book its QERs go
/// to.
fn upf_side(cfg: &Reflector, n3: IpAddr, hz: u64, qers: &QerBook) -> Result<Option<UpfSide>> {
    let (ReflectMode::Upf, Some(p)) = (cfg.mode, &cfg.pfcp) else {
        return Ok(None);
    };
    Ok(Some(UpfSide {
        local: p.local,
        peer: p.peer,
        n3,
        first_teid: p.first_teid,
        first_seid: p.first_seid,
        heartbeat: p.heartbeat,
        far_update_delay: cfg.impairments.far_update_delay,
        tsc_hz: hz,
        network_instances: p
            .network_instances
            .iter()
            .map(|n| DnsName::from_dotted(n))
            .collect::<Result<_, _>>()?,
        faults: cfg.impairments.n4.faults(),
        max_sessions: p.max_sessions,
        qer: qer_policy(cfg, hz),
        qers: qers.clone(),
    }))
}

/// The totals at the end, for the metrics endpoint too: in all and per worker, per pair with
/// several (`pairs`), and the peak resident memory.
fn show_totals(
    totals: &[ReflectorCounters],
    pairs: &[PairSpan],
    started: Instant,
    metrics: Option<&ReflectorMetrics>,
) {
    let total = sum(totals);
    if let Some(m) = metrics {
        m.reflector_stopped(total);
    }
    out::line(&format!(
        "reflect: totals after {:.1} s",
        started.elapsed().as_secs_f64()
    ));
    out::text(&render_all_totals(totals, pairs));
    // What a session table of this size cost (`upfbench capacity` reports the tester's own).
    let (_, peak) = upfbench_cli::memory::resident();
    out::line(&format!("  peak resident memory kB {:>18}", peak / 1024));
}

/// Prints the workers' live line every second from `cells` (their `pairs`), until an
/// interruption or the end of `duration` (from `started`), and a last one then.
fn show_live_lines(
    cells: &[CounterCell],
    pairs: &[PairSpan],
    interrupts: &Interrupts,
    duration: Option<Duration>,
    started: Instant,
) {
    let mut last = Instant::now();
    let mut previous = vec![ReflectorCounters::default(); cells.len()];
    loop {
        std::thread::sleep(Duration::from_millis(50));
        let done = interrupts.count() > 0 || duration.is_some_and(|d| started.elapsed() >= d);
        if done || last.elapsed() >= Duration::from_secs(1) {
            let now: Vec<ReflectorCounters> = cells.iter().map(CounterCell::read).collect();
            out::line(&live_line(
                started.elapsed(),
                last.elapsed(),
                &now,
                &previous,
                pairs,
            ));
            previous = now;
            last = Instant::now();
        }
        if done {
            break;
        }
    }
}

/// The ports' own counts: what they dropped before a worker saw it (an af_packet ring that
/// overflowed while its worker was off the CPU) is no counter of the workers'. (A memif port
/// whose peer left reports zeros: nothing to say then.)
/// `label` names the pair (see [`pair_label`]).
fn show_port_stats(up: &[StartedPort<'_, '_>], label: &str) {
    let ports: Vec<(String, &StartedPort<'_, '_>)> = match up {
        [n3, n6] => vec![(format!("{label}N3"), n3), (format!("{label}N6"), n6)],
        _ => up
            .iter()
            .map(|p| (format!("{label}N3 and N6"), p))
            .collect(),
    };
    for (name, port) in ports {
        if let Ok(st) = port.stats()
            && st.ipackets + st.opackets > 0
        {
            out::line(&format!(
                "  port {name}: ipackets {} opackets {} imissed {} ierrors {} rx_nombuf {} \
                 oerrors {}",
                st.ipackets, st.opackets, st.imissed, st.ierrors, st.rx_nombuf, st.oerrors
            ));
        }
    }
}
