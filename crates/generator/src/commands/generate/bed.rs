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
    /// Writes the notes into a run's report.
    pub(super) fn apply(&self, report: &mut Report) {
        for (k, v) in &self.config {
            report.config.insert(k.clone(), v.clone());
        }
        report.warnings.extend(self.warnings.iter().cloned());
    }
}

/// The testbed, up: see the module's documentation.
pub(super) struct Bed<'b, 'e> {
    pub(super) eal: &'e Eal,
    started: &'b [StartedPort<'b, 'e>],
    settings: &'b [DeviceSettings],
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
    /// The pool of the service plane's replies.
    pub(super) service_pool: Mempool<'e>,
    pub(super) notes: Notes,
    pub(super) began: Began,
}

impl<'b, 'e> Bed<'b, 'e> {
    /// The N3 and N6 ports (one device twice in one-port mode).
    pub(super) fn ports(&self) -> [&'b Port<'e>; 2] {
        [&*self.started[0], &**n6_of(self.started)]
    }

    /// Each worker's queues on N3 and N6, for one run: taken again by the next run once this
    /// one's are dropped.
    pub(super) fn worker_queues(&self) -> Result<Vec<Option<[PortQueues<'b>; 2]>>> {
        Ok(devices::worker_queues(self.started, self.settings)?
            .into_iter()
            .map(Some)
            .collect())
    }
}

/// How bringing the testbed up ended.
pub(super) enum Up<T> {
    /// It came up, and `run` ran on it (the ports are stopped again).
    Ran(T),
    /// It stopped before the ports were usable (a link that never came up, an interruption):
    /// what to say in the report.
    Early(EarlyStop, Notes, Began),
}

/// Brings the testbed of `system` up on `eal` (ports named `names`), runs `run` on it, and takes
/// it down. Received G-PDUs are spread over the workers by the bits of their TEID from
/// `teid_shift` on, where the driver can (our downlink TEIDs are given out `2^teid_shift`
/// apart). `stop` is asked while the links are awaited.
pub(super) fn up<T>(
    eal: &Eal,
    system: &System,
    names: &[String; 2],
    teid_shift: u32,
    stop: &dyn Fn() -> bool,
    run: impl FnOnce(&Bed<'_, '_>) -> Result<T>,
) -> Result<Up<T>> {
    let began = Began::now();
    let settings = devices::device_settings(system.pair(0));
    let mut devices = devices::open(eal, names, system.pair(0).one_port())?;
    let interfaces = [
        interface(&devices[0], &system.pair(0).n3)?,
        interface(n6_of(&devices), &system.pair(0).n6)?,
    ];
    let pools = devices::pools(eal, &settings)?;
    let service_pool = service_pool(eal)?;
    let mut notes = Notes::default();
    let (vlans, configs) = device_configs(&devices, &settings, system, &mut notes)?;
    let started = devices::start(&mut devices, &configs, &pools)?;
    let ports = [&*started[0], &**n6_of(&started)];
    let rx_spread = spread_rx(
        teid_shift,
        [&configs[0], n6_of(&configs)],
        [&started[0], n6_of(&started)],
        &mut notes,
    );
    let links = match wait_for_links(ports, names, stop) {
        Ok(speeds) => speeds,
        Err(e) => return Ok(Up::Early(e, notes, began)),
    };
    let bed = Bed {
        eal,
        started: &started,
        settings: &settings,
        rx_spread,
        interfaces,
        vlans,
        peers: [system.pair(0).n3.peer, system.pair(0).n6.peer],
        links,
        service_pool,
        notes,
        began,
    };
    run(&bed).map(Up::Ran)
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
    system: &System,
    notes: &mut Notes,
) -> Result<(PortVlans, Vec<PortConfig>)> {
    let plan = devices::vlan_plan(devices, &system.pair(0).n3, &system.pair(0).n6)?;
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
