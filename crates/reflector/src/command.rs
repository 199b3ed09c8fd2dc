//! `upfbench reflect FILE`: a minimal UPF (PFCP server on N4, GTP-U decapsulation N3 → N6 and
//! encapsulation N6 → N3) or an echo on one port, until Ctrl-C, SIGTERM or `--duration`.

use std::net::IpAddr;
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};
use upfbench_dpdk::{Eal, Mempool, Port, PortConfig, StartedPort, StopFlag, TscAnchor};
use upfbench_net::MacAddr;
use upfbench_pfcp::ie::DnsName;

use upfbench_metrics::health::Phase;

use crate::datapath::counters::{CounterCell, ReflectorCounters};
use crate::datapath::end_marker::{EndMarkerInbox, end_marker_channel};
use crate::datapath::impair::{ImpairConfig, Impairments};
use crate::datapath::qer::{Policing, QerBook, QerPolicy};
use crate::datapath::route6::Route6;
use crate::datapath::rules::{ForwardingTable, TableReader, table_channels};
use crate::datapath::worker::{Mode, ReflectorWorker};
use crate::lines::{live_line, render_totals, sum};
use crate::metrics::{ReflectorEvents, ReflectorMetrics};
use crate::qer_lines::render_qers;
use crate::upf_side::{UpfSide, UpfThread};
use upfbench_cli::ReflectArgs;
use upfbench_cli::out;
use upfbench_cli::signals::Interrupts;
use upfbench_config::devargs::{SocketRole, socket_file};
use upfbench_config::{self as config, PortName, ReflectMode, Reflector, ReflectorPort};
use upfbench_datapath::calibration::{TscCalibration, measure_now, ppm};
use upfbench_datapath::devices::{self, n6_of};
use upfbench_datapath::eal_args::{PortDevice, RuntimeDirGuard, eal_args, file_prefix};
use upfbench_datapath::next_hops::NextHops;
use upfbench_datapath::queues::{PortQueues, Side};
use upfbench_datapath::rx_spread::rx_spread;
use upfbench_datapath::service::{
    ErrorIndicationLimit, Interface, Interface6, ServicePlane, port_interfaces,
};
use upfbench_datapath::socket_files::{make_socket_dir, remove_stale_socket};
use upfbench_datapath::vlan::PortVlans;
use upfbench_datapath::vlan_offload::VlanPlan;

/// Mbufs of the pool that service answers and duplicates come from.
const SERVICE_POOL: u32 = 8191;
/// Packets the delay impairment can hold per worker without allocating.
const DELAY_CAPACITY: usize = 1 << 16;

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
    if cfg.pairs().len() > 1 {
        bail!(
            "{}: {} port pairs: the reflector serves one pair so far (docs/scale.md §2)",
            args.file.display(),
            cfg.pairs().len()
        );
    }
    let pair = cfg.pair(0);
    let (n3, n6) = (pair.n3.clone(), pair.n6.clone());
    for p in [&n3, &n6] {
        make_socket_dir(&p.device, p.devargs.as_deref())?;
        if let Some(socket) = socket_file(p.device.name(), p.devargs.as_deref())
            && socket.role == SocketRole::Server
            && remove_stale_socket(&socket.path)?
        {
            tracing::warn!(
                "removed {}: a {} socket no server listened on (a reflector before this one \
                 did not end cleanly)",
                socket.path.display(),
                socket.protocol
            );
        }
    }
    let devices = [
        PortDevice {
            device: &n3.device,
            args: n3.devargs.as_deref(),
        },
        PortDevice {
            device: &n6.device,
            args: n6.devargs.as_deref(),
        },
    ];
    let prefix = cfg
        .eal
        .file_prefix
        .clone()
        .unwrap_or_else(|| format!("upfbench-reflect-{}", std::process::id()));
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
                [&n3, &n6],
                [devices[0].port_name(), devices[1].port_name()],
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

/// Our interfaces on a port: its IPv4 one (without an address on an IPv6 port) and its IPv6
/// one, if the port is IPv6.
fn interface(port: &Port<'_>, cfg: &ReflectorPort) -> Result<(Interface, Option<Interface6>)> {
    Ok(port_interfaces(
        port.mac()?,
        cfg.address.addr,
        cfg.address.len,
    ))
}

#[allow(clippy::too_many_arguments)]
fn reflect(
    eal: &Eal,
    cfg: &Reflector,
    ports_cfg: [&ReflectorPort; 2],
    names: [String; 2],
    duration: Option<Duration>,
    interrupts: &Interrupts,
    calibration: &mut TscCalibration,
    metrics: Option<&ReflectorMetrics>,
) -> Result<()> {
    let workers = cfg.cores.workers.len() as u16;
    let settings = devices::device_settings(cfg.pair(0));
    let one_port = ports_cfg[1].shares_device();
    let mut devices = devices::open(eal, &names, one_port)?;
    let (n3_v4, n3_v6) = interface(&devices[0], ports_cfg[0])?;
    let (n6_v4, n6_v6) = interface(n6_of(&devices), ports_cfg[1])?;
    let interfaces = [n3_v4, n6_v4];
    let interfaces6 = [n3_v6, n6_v6];
    let pools = devices::pools(eal, &settings)?;
    let service_pool = Mempool::new(
        eal,
        "service",
        SERVICE_POOL,
        256,
        upfbench_dpdk::DEFAULT_DATA_ROOM,
        upfbench_dpdk::Socket::Any,
    )?;
    let vlan_plan = devices::vlan_plan(&devices, ports_cfg[0], ports_cfg[1])?;
    show_vlans(&vlan_plan);
    let configs = devices::configs(&devices, &settings, &vlan_plan.device_offloads)?;
    let up = devices::start(&mut devices, &configs, &pools)?;
    show_rx_spread([
        (Side::N3, &configs[0], &up[0]),
        (Side::N6, n6_of(&configs), n6_of(&up)),
    ]);
    let queues = devices::worker_queues(&up, &settings)?;

    // Measured before the PFCP side starts: a held-back rule's release tick depends on it.
    let hz = measure_now(calibration, eal.tsc_hz());
    let (publisher, readers) = table_channels(usize::from(workers), ForwardingTable::empty());
    let qers = QerBook::default();
    let pfcp = upf_side(cfg, ports_cfg[0].address.addr, hz, &qers)?;
    let (end_marker_poster, end_marker_inbox) = end_marker_channel();
    let control = UpfThread::start(pfcp, publisher, end_marker_poster)?;
    let template = WorkerTemplate::new(cfg, ports_cfg, (interfaces, interfaces6), service_pool, hz)
        .with_vlans(vlan_plan.vlans);
    show_tsc(calibration, eal.tsc_hz(), hz);
    // Shared with the metrics endpoint, which reads them at scrape time.
    let cells: Arc<Vec<CounterCell>> =
        Arc::new((0..workers).map(|_| CounterCell::default()).collect());
    let stop = StopFlag::new();
    let started = Instant::now();
    template.show(&names, workers);
    show_qer_impairment(&qer_policy(cfg, hz));
    let mut end_marker_inbox = Some(end_marker_inbox);
    let totals = eal.scope(|s| -> Result<Vec<ReflectorCounters>> {
        let mut handles = Vec::new();
        for ((&lcore, (ports, table)), cell) in cfg
            .cores
            .workers
            .iter()
            .zip(queues.into_iter().zip(readers))
            .zip(cells.iter())
        {
            let worker = template.worker(ports, table, end_marker_inbox.take());
            let stop = &stop;
            handles.push(s.launch(lcore, move || worker.poll_until_stopped(stop, cell))?);
        }
        if let Some(m) = metrics {
            m.reflector_running(Arc::clone(&cells), qers.clone());
        }
        show_live_lines(&cells, interrupts, duration, started);
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
    show_totals(&totals, started, metrics);
    out::text(&render_qers(&qers.by_qfi(), &qers.rows()));
    match &up[..] {
        [n3, n6] => show_port_stats(&[("N3", n3), ("N6", n6)]),
        _ => show_port_stats(&[("N3 and N6", &up[0])]),
    }
    drop(up);
    Ok(())
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
fn show_vlans(plan: &VlanPlan) {
    for side in Side::BOTH {
        if let Some(line) = &plan.lines[side.index()] {
            out::line(&format!("{} vlan: {line}", side.name()));
        }
    }
    for w in &plan.warnings {
        out::line(&format!("warning: {w}"));
    }
}

/// Says how each port spreads its frames over its receive queues, when it has several, and
/// warns when they will most likely land on one.
fn show_rx_spread(ports: [(Side, &PortConfig, &StartedPort<'_, '_>); 2]) {
    for (side, config, port) in ports {
        let spread = rx_spread(side, config.rx_queues, config.rss, || {
            port.steer_gtpu_by_teid(0)
        });
        if config.rx_queues > 1 {
            out::line(&format!("{} rx: {}", side.name(), spread.description));
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

/// What every worker is made of but its queues, its rules table's reader and the End
/// Markers' inbox.
struct WorkerTemplate<'a, 'p> {
    cfg: &'a Reflector,
    interfaces: [Interface; 2],
    /// Each IPv6 port's IPv6 interface.
    interfaces6: [Option<Interface6>; 2],
    /// Each port's peer, its gateway, of the port's family.
    peers: [Option<IpAddr>; 2],
    /// The peers whose MAC the file gives.
    known: Vec<(Side, IpAddr, MacAddr)>,
    /// The ports' addresses as the file gives them (for the line that says what it does).
    addresses: [IpAddr; 2],
    service_pool: Mempool<'p>,
    hz: u64,
    /// Between two ARP requests for a next hop (TSC ticks).
    arp_interval: u64,
    impair: ImpairConfig,
    mode: Mode,
    /// The ports' VLAN tags, and one-port mode.
    vlans: PortVlans,
}

impl<'a, 'p> WorkerTemplate<'a, 'p> {
    fn new(
        cfg: &'a Reflector,
        ports_cfg: [&ReflectorPort; 2],
        (interfaces, interfaces6): ([Interface; 2], [Option<Interface6>; 2]),
        service_pool: Mempool<'p>,
        hz: u64,
    ) -> Self {
        let peers = [ports_cfg[0].peer, ports_cfg[1].peer];
        let known: Vec<_> = [
            (Side::N3, peers[0], ports_cfg[0]),
            (Side::N6, peers[1], ports_cfg[1]),
        ]
        .into_iter()
        .filter_map(|(side, peer, p)| Some((side, peer?, p.peer_mac?)))
        .collect();
        let mode = match cfg.mode {
            ReflectMode::Upf => Mode::Upf,
            ReflectMode::Echo(PortName::N3) => Mode::Echo(Side::N3),
            ReflectMode::Echo(PortName::N6) => Mode::Echo(Side::N6),
        };
        let ticks = |d: Duration| (d.as_nanos() * u128::from(hz) / 1_000_000_000) as u64;
        let imp = &cfg.impairments;
        let impair = ImpairConfig {
            drop_one_in: imp.drop_one_in.map(u64::from),
            duplicate_one_in: imp.duplicate_one_in.map(u64::from),
            reorder_one_in: imp.reorder_one_in.map(u64::from),
            delay_ticks: imp.delay.map_or(0, ticks),
            rate_cap_pps: imp.rate_cap,
        };
        WorkerTemplate {
            cfg,
            interfaces,
            interfaces6,
            addresses: [ports_cfg[0].address.addr, ports_cfg[1].address.addr],
            peers,
            known,
            service_pool,
            hz,
            arp_interval: ticks(cfg.arp.timeout),
            impair,
            mode,
            vlans: PortVlans::of_ports(ports_cfg[0], ports_cfg[1]),
        }
    }

    /// The same, with the ports' tags as the devices handle them (see
    /// [`upfbench_datapath::vlan_offload`]).
    fn with_vlans(mut self, vlans: PortVlans) -> Self {
        self.vlans = vlans;
        self
    }

    /// The line that says what the reflector does: its mode, its ports (named `names`), its
    /// `workers` and its impairments.
    fn show(&self, names: &[String; 2], workers: u16) {
        out::line(&format!(
            "reflect: {} mode, N3 {} ({}), N6 {} ({}), {} worker(s){}",
            match self.mode {
                Mode::Upf => "upf".to_owned(),
                Mode::Echo(s) => format!("echo on {}", s.name()),
            },
            self.addresses[0],
            names[0],
            self.addresses[1],
            names[1],
            workers,
            if self.impair.is_active() {
                format!(", impairments {:?}", self.impair)
            } else {
                String::new()
            }
        ));
    }

    /// Each IPv6 port's route: its prefix, its peer as the gateway.
    fn routes6(&self) -> [Option<Route6>; 2] {
        [0, 1].map(|i| {
            self.interfaces6[i].map(|interface| Route6 {
                interface,
                gateway: match self.peers[i] {
                    Some(IpAddr::V6(a)) => Some(a),
                    _ => None,
                },
            })
        })
    }

    /// A worker's service plane: our interfaces of both families, the peers whose MAC the
    /// file gives.
    fn service_plane(&self) -> ServicePlane<'p> {
        let mut s = ServicePlane::new(self.interfaces, self.service_pool, self.hz, &[]);
        for side in Side::BOTH {
            if let Some(v6) = self.interfaces6[side.index()] {
                s = s.with_ipv6(side, v6);
            }
        }
        for &(side, ip, mac) in &self.known {
            s = s.with_neighbour(side, ip, mac);
        }
        s
    }

    /// A worker on `ports`, reading the rules from `table`; the first one gets `end_markers`.
    fn worker(
        &self,
        ports: [PortQueues<'p>; 2],
        table: TableReader,
        end_markers: Option<EndMarkerInbox>,
    ) -> ReflectorWorker<'p> {
        let cfg = self.cfg;
        let workers = cfg.cores.workers.len() as u16;
        ReflectorWorker {
            ports,
            table,
            interfaces: self.interfaces,
            gateways: self.peers.map(|p| match p {
                Some(IpAddr::V4(a)) => Some(a),
                _ => None,
            }),
            routes6: self.routes6(),
            service: self
                .service_plane()
                .with_vlan(Side::N3, self.vlans.tags[Side::N3.index()])
                .with_vlan(Side::N6, self.vlans.tags[Side::N6.index()])
                .with_arp_retry(cfg.arp.timeout)
                .with_error_indication_limit(ErrorIndicationLimit::new(
                    cfg.error_indications_per_s,
                    workers,
                )),
            next_hops: NextHops::new(self.arp_interval, cfg.arp.retries + 1),
            impair: self.impair.is_active().then(|| {
                [
                    Impairments::new(self.impair, self.hz, DELAY_CAPACITY),
                    Impairments::new(self.impair, self.hz, DELAY_CAPACITY),
                ]
            }),
            pool: self.service_pool,
            vlans: self.vlans,
            mode: self.mode,
            end_markers,
            precise_clock: cfg.impairments.far_update_delay.is_some(),
        }
    }
}

/// The totals at the end, for the metrics endpoint too: per worker and in all, and the peak
/// resident memory.
fn show_totals(totals: &[ReflectorCounters], started: Instant, metrics: Option<&ReflectorMetrics>) {
    let total = sum(totals);
    if let Some(m) = metrics {
        m.reflector_stopped(total);
    }
    out::line(&format!(
        "reflect: totals after {:.1} s",
        started.elapsed().as_secs_f64()
    ));
    out::text(&render_totals(&total, totals));
    // What a session table of this size cost (`upfbench capacity` reports the tester's own).
    let (_, peak) = upfbench_cli::memory::resident();
    out::line(&format!("  peak resident memory kB {:>18}", peak / 1024));
}

/// Prints the workers' live line every second from `cells`, until an interruption or the
/// end of `duration` (from `started`), and a last one then.
fn show_live_lines(
    cells: &[CounterCell],
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
fn show_port_stats(ports: &[(&str, &StartedPort<'_, '_>)]) {
    for &(name, port) in ports {
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
