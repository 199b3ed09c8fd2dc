//! The testbed: what lives as long as EAL, brought up once before any run on it. The ports
//! opened, configured and started with their VLAN offloads and receive spreading, the service
//! plane's pool, our interfaces and the UPF's addresses, the links' rates. A run on it (a
//! [`session`](super::session)) takes the workers' queues and gives them back when it ends, so
//! that a long-running agent can run one after another on the same ports.

use std::net::IpAddr;
use std::time::Instant;

use anyhow::Result;
use upfbench_config::System;
use upfbench_dpdk::{DEFAULT_DATA_ROOM, Eal, Mempool, Port, PortConfig, Socket, StartedPort};
use upfbench_report::Report;

use crate::commands::peers::{EarlyStop, wait_for_links};
use crate::report;
use upfbench_cli::out;
use upfbench_datapath::devices::{self, DeviceSettings, n6_of};
use upfbench_datapath::queues::{PortQueues, Side};
use upfbench_datapath::rx_spread::rx_spread;
use upfbench_datapath::service::{Interface, port_interfaces};
use upfbench_datapath::vlan::PortVlans;
use upfbench_datapath::vlan_offload::VlanPlan;

/// When the testbed came up: a run on it that starts at once (`upfbench run`) counts its
/// duration from here, its bring-up included.
#[derive(Debug, Clone, Copy)]
pub(super) struct Began {
    pub(super) at: Instant,
    pub(super) unix_ms: u64,
}

impl Began {
    pub(super) fn now() -> Began {
        Began {
            at: Instant::now(),
            unix_ms: report::now_unix_ms(),
        }
    }
}

/// What bringing the testbed up found that every run's report notes: how each port's tags
/// are handled and its frames spread (`n3 vlan`, `n3 rx`, ...), and the warnings of both.
#[derive(Debug, Clone, Default)]
pub(super) struct Notes {
    config: Vec<(String, String)>,
    warnings: Vec<String>,
}

impl Notes {
    /// Adds one pair's notes, its keys and warnings after the pair's name when there are
    /// several (`a n3 rx`).
    fn add(&mut self, pair: Notes, name: Option<&str>) {
        let named = |s: String| match name {
            Some(n) => format!("{n} {s}"),
            None => s,
        };
        self.config
            .extend(pair.config.into_iter().map(|(k, v)| (named(k), v)));
        self.warnings
            .extend(pair.warnings.into_iter().map(|w| match name {
                Some(n) => format!("pair {n}: {w}"),
                None => w,
            }));
    }

    /// Writes the notes into a run's report.
    pub(super) fn apply(&self, report: &mut Report) {
        for (k, v) in &self.config {
            report.config.insert(k.clone(), v.clone());
        }
        report.warnings.extend(self.warnings.iter().cloned());
    }
}

/// One port pair of the testbed, up: its N3 and N6 ports and what its runs need of them.
pub(super) struct PairBed<'b, 'e> {
    /// The pair's name (`p0`, or the file's).
    pub(super) name: String,
    started: &'b [StartedPort<'b, 'e>],
    settings: Vec<DeviceSettings>,
    /// How each port spreads its frames over the workers' queues.
    pub(super) rx_spread: [String; 2],
    /// Our interfaces on N3 and N6 (a run adds its handovers' target gNB).
    pub(super) interfaces: [Interface; 2],
    /// The ports' VLAN tags, as their devices handle them (by the NIC or in software).
    pub(super) vlans: PortVlans,
    /// The UPF's addresses on N3 and N6, of each port's family.
    pub(super) peers: [IpAddr; 2],
    /// The ports' line rates, when they report one.
    pub(super) links: [Option<f64>; 2],
}

impl<'b, 'e> PairBed<'b, 'e> {
    /// The N3 and N6 ports (one device twice in one-port mode).
    pub(super) fn ports(&self) -> [&'b Port<'e>; 2] {
        [&*self.started[0], &**n6_of(self.started)]
    }
}

/// The testbed, up: see the module's documentation.
pub(super) struct Bed<'b, 'e> {
    pub(super) eal: &'e Eal,
    /// Each port pair, in the system file's order.
    pub(super) pairs: Vec<PairBed<'b, 'e>>,
    /// The pool of the service plane's replies.
    pub(super) service_pool: Mempool<'e>,
    pub(super) notes: Notes,
    pub(super) began: Began,
}

impl<'b> Bed<'b, '_> {
    /// Each pair's ports' line rates (N3, N6), when they report one.
    pub(super) fn links(&self) -> Vec<[Option<f64>; 2]> {
        self.pairs.iter().map(|p| p.links).collect()
    }

    /// Each worker's queues on its pair's N3 and N6, pair after pair, for one run (see
    /// [`WorkerQueues`]): taken again by the next run once this one's are dropped.
    pub(super) fn worker_queues(&self) -> Result<WorkerQueues<'b>> {
        let mut queues = Vec::new();
        let mut first = Vec::new();
        for p in &self.pairs {
            first.push(queues.len());
            queues.extend(
                devices::worker_queues(p.started, &p.settings)?
                    .into_iter()
                    .map(Some),
            );
        }
        Ok(WorkerQueues { queues, first })
    }
}

/// The workers' queues of every pair, one slot per queue pair (N3, N6) of each pair in order:
/// pair `k`'s worker `i` takes slot `first[k] + i`.
pub(crate) struct WorkerQueues<'p> {
    pub(crate) queues: Vec<Option<[PortQueues<'p>; 2]>>,
    pub(crate) first: Vec<usize>,
}

/// How bringing the testbed up ended.
pub(super) enum Up<T> {
    /// It came up, and `run` ran on it (the ports are stopped again).
    Ran(T),
    /// It stopped before the ports were usable (a link that never came up, an interruption):
    /// what to say in the report.
    Early(EarlyStop, Notes, Began),
}

/// Brings the testbed of `system` up on `eal` (each pair's ports named `names`), runs `run` on
/// it, and takes it down. Received G-PDUs are spread over the workers by the bits of their TEID
/// from `teid_shift` on, where the driver can (our downlink TEIDs are given out `2^teid_shift`
/// apart). `stop` is asked while the links are awaited.
pub(super) fn up<T>(
    eal: &Eal,
    system: &System,
    names: &[[String; 2]],
    teid_shift: u32,
    stop: &dyn Fn() -> bool,
    run: impl FnOnce(&Bed<'_, '_>) -> Result<T>,
) -> Result<Up<T>> {
    let began = Began::now();
    let several = system.pairs().len() > 1;
    let mut notes = Notes::default();
    let mut opened = Vec::new();
    let mut devices_of = Vec::new();
    for (k, (pair, names)) in system.pairs().iter().zip(names).enumerate() {
        let settings = devices::device_settings(pair);
        let devices = devices::open(eal, names, pair.one_port())?;
        let interfaces = [
            interface(&devices[0], &pair.n3)?,
            interface(n6_of(&devices), &pair.n6)?,
        ];
        let pools = devices::pair_pools(eal, &settings, k)?;
        let mut pair_notes = Notes::default();
        let (vlans, configs) = device_configs(&devices, &settings, pair, &mut pair_notes)?;
        notes.add(pair_notes, several.then_some(pair.name.as_str()));
        devices_of.push(devices);
        opened.push(Opened {
            settings,
            interfaces,
            pools,
            vlans,
            configs,
        });
    }
    let service_pool = service_pool(eal)?;
    let mut started = Vec::new();
    for (devices, o) in devices_of.iter_mut().zip(&opened) {
        started.push(devices::start(devices, &o.configs, &o.pools)?);
    }
    let mut pairs = Vec::new();
    for (((o, started), pair), names) in opened.iter().zip(&started).zip(system.pairs()).zip(names)
    {
        let mut pair_notes = Notes::default();
        let rx_spread = spread_rx(
            teid_shift,
            [&o.configs[0], n6_of(&o.configs)],
            [&started[0], n6_of(started)],
            &mut pair_notes,
        );
        notes.add(pair_notes, several.then_some(pair.name.as_str()));
        let ports = [&*started[0], &**n6_of(started)];
        let links = match wait_for_links(ports, names, stop) {
            Ok(speeds) => speeds,
            Err(e) => return Ok(Up::Early(e, notes, began)),
        };
        pairs.push(PairBed {
            name: pair.name.clone(),
            started,
            settings: o.settings.clone(),
            rx_spread,
            interfaces: o.interfaces,
            vlans: o.vlans,
            peers: [pair.n3.peer, pair.n6.peer],
            links,
        });
    }
    let bed = Bed {
        eal,
        pairs,
        service_pool,
        notes,
        began,
    };
    run(&bed).map(Up::Ran)
}

/// One pair's devices, opened and configured, not started yet.
struct Opened<'e> {
    settings: Vec<DeviceSettings>,
    interfaces: [Interface; 2],
    pools: Vec<Mempool<'e>>,
    vlans: PortVlans,
    configs: Vec<PortConfig>,
}

/// Our IPv4 interface on a port: on an IPv6 port one without an address (its IPv6 side is
/// the endpoints', [`Endpoints6`](crate::datapath::frames::Endpoints6)).
fn interface(port: &Port<'_>, cfg: &upfbench_config::Port) -> Result<Interface> {
    Ok(port_interfaces(port.mac()?, cfg.address.addr, cfg.address.len).0)
}

const SERVICE_POOL: u32 = 2047;

/// The pool of the service plane's replies.
fn service_pool(eal: &Eal) -> Result<Mempool<'_>> {
    Ok(Mempool::new(
        eal,
        "service",
        SERVICE_POOL,
        128,
        DEFAULT_DATA_ROOM,
        Socket::Any,
    )?)
}

/// How each port spreads its frames over the workers' receive queues (the N3 port by its
/// TEIDs when it can), noted for the report's configuration with a warning when they will
/// most likely land on one.
fn spread_rx(
    teid_shift: u32,
    configs: [&PortConfig; 2],
    ports: [&StartedPort<'_, '_>; 2],
    notes: &mut Notes,
) -> [String; 2] {
    [Side::N3, Side::N6].map(|side| {
        let c = configs[side.index()];
        let port = ports[side.index()];
        let spread = rx_spread(side, c.rx_queues, c.rss, || {
            port.steer_gtpu_by_teid(teid_shift)
        });
        notes.config.push((
            format!("{} rx", side.name().to_lowercase()),
            spread.description.clone(),
        ));
        notes.warnings.extend(spread.warning);
        spread.description
    })
}

/// Each device's configuration, with the VLAN offloads its ports' tags use; the ports' tags as
/// the devices handle them, noted ([`note_vlans`]).
fn device_configs(
    devices: &[Port<'_>],
    settings: &[DeviceSettings],
    pair: &upfbench_config::Pair,
    notes: &mut Notes,
) -> Result<(PortVlans, Vec<PortConfig>)> {
    let plan = devices::vlan_plan(devices, &pair.n3, &pair.n6)?;
    note_vlans(&plan, notes);
    let configs = devices::configs(devices, settings, &plan.device_offloads)?;
    Ok((plan.vlans, configs))
}

/// How each tagged port's tags are put on and taken off (by the NIC or in software), for the
/// report's configuration (`n3 vlan`, `n6 vlan`) and on the terminal; what will not work as
/// asked, in its warnings.
fn note_vlans(plan: &VlanPlan, notes: &mut Notes) {
    for side in Side::BOTH {
        if let Some(line) = &plan.lines[side.index()] {
            let key = format!("{} vlan", side.name().to_lowercase());
            out::line(&format!("{key}: {line}"));
            notes.config.push((key, line.clone()));
        }
    }
    for w in &plan.warnings {
        out::line(&format!("warning: {w}"));
        notes.warnings.push(w.clone());
    }
}
