//! What every worker of one pair is made of but its queues, its rules table's reader and the
//! End Markers' inbox: the pair's routes and service plane, and the reflector's mode and
//! impairments.

use std::net::IpAddr;
use std::time::Duration;

use upfbench_cli::out;
use upfbench_config::{PortName, ReflectMode, Reflector, ReflectorPair};
use upfbench_datapath::next_hops::NextHops;
use upfbench_datapath::queues::{PortQueues, Side};
use upfbench_datapath::service::{ErrorIndicationLimit, Interface, Interface6, ServicePlane};
use upfbench_datapath::vlan::PortVlans;
use upfbench_dpdk::Mempool;
use upfbench_net::MacAddr;

use crate::bring_up::PairSetup;
use crate::datapath::end_marker::EndMarkerInbox;
use crate::datapath::impair::{ImpairConfig, Impairments};
use crate::datapath::route::Route;
use crate::datapath::rules::TableReader;
use crate::datapath::worker::{Mode, ReflectorWorker};

/// Packets the delay impairment can hold per worker without allocating.
const DELAY_CAPACITY: usize = 1 << 16;

/// What every worker of one pair is made of but its queues, its rules table's reader and the
/// End Markers' inbox.
pub(crate) struct WorkerTemplate<'a, 'p> {
    cfg: &'a Reflector,
    /// The pair's name and its ports' names in EAL (for the line that says what it does).
    name: &'a str,
    names: &'a [String; 2],
    /// Our IPv4 interfaces on the pair's ports.
    interfaces: [Interface; 2],
    /// Each IPv6 port's IPv6 interface.
    interfaces6: [Option<Interface6>; 2],
    /// Where each port of the pair sends.
    routes: [Route; 2],
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

/// TSC ticks of `d` on a TSC of `hz`.
fn ticks(d: Duration, hz: u64) -> u64 {
    (d.as_nanos() * u128::from(hz) / 1_000_000_000) as u64
}

/// The impairments of each worker of the reflector's `workers`: each as the file says but the
/// rate cap, of which each worker takes `1/workers` (the cap is the process's, over every pair,
/// as `error_indications_per_s` is).
pub(crate) fn impair_config(cfg: &Reflector, hz: u64, workers: usize) -> ImpairConfig {
    let imp = &cfg.impairments;
    ImpairConfig {
        drop_one_in: imp.drop_one_in.map(u64::from),
        duplicate_one_in: imp.duplicate_one_in.map(u64::from),
        reorder_one_in: imp.reorder_one_in.map(u64::from),
        delay_ticks: imp.delay.map_or(0, |d| ticks(d, hz)),
        rate_cap_pps: imp.rate_cap.map(|pps| pps / workers.max(1) as f64),
    }
}

impl<'a, 'p> WorkerTemplate<'a, 'p> {
    /// The template of `pair`, brought up as `setup`.
    pub(crate) fn new(
        cfg: &'a Reflector,
        pair: &'a ReflectorPair,
        setup: &'a PairSetup<'_>,
        service_pool: Mempool<'p>,
        hz: u64,
    ) -> Self {
        let peers = [pair.n3.peer, pair.n6.peer];
        let known: Vec<_> = [
            (Side::N3, peers[0], &pair.n3),
            (Side::N6, peers[1], &pair.n6),
        ]
        .into_iter()
        .filter_map(|(side, peer, p)| Some((side, peer?, p.peer_mac?)))
        .collect();
        let mode = match cfg.mode {
            ReflectMode::Upf => Mode::Upf,
            ReflectMode::Echo(PortName::N3) => Mode::Echo(Side::N3),
            ReflectMode::Echo(PortName::N6) => Mode::Echo(Side::N6),
        };
        WorkerTemplate {
            cfg,
            name: &setup.name,
            names: &setup.names,
            interfaces: setup.interfaces,
            interfaces6: setup.interfaces6,
            routes: Route::of_pair(setup.interfaces, setup.interfaces6, peers),
            addresses: [pair.n3.address.addr, pair.n6.address.addr],
            known,
            service_pool,
            hz,
            arp_interval: ticks(cfg.arp.timeout, hz),
            impair: impair_config(cfg, hz, cfg.cores.workers.len()),
            mode,
            // The ports' tags as the devices handle them (see
            // [`upfbench_datapath::vlan_offload`]).
            vlans: setup.vlan_plan.vlans,
        }
    }

    /// The line's part of this pair, of its `workers`: its ports (`pair a: ` before them when
    /// the reflector has several pairs).
    pub(crate) fn ports_part(&self, workers: usize, several: bool) -> String {
        format!(
            "{}N3 {} ({}), N6 {} ({}), {} worker(s)",
            if several {
                format!("pair {}: ", self.name)
            } else {
                String::new()
            },
            self.addresses[0],
            self.names[0],
            self.addresses[1],
            self.names[1],
            workers,
        )
    }

    /// The line that says what the reflector does: its mode, each of `pairs` (each a template
    /// and its workers), its impairments.
    pub(crate) fn show(pairs: &[(&WorkerTemplate<'_, '_>, usize)]) {
        let Some((first, _)) = pairs.first() else {
            return;
        };
        let parts: Vec<String> = pairs
            .iter()
            .map(|(t, workers)| t.ports_part(*workers, pairs.len() > 1))
            .collect();
        out::line(&format!(
            "reflect: {} mode, {}{}",
            match first.mode {
                Mode::Upf => "upf".to_owned(),
                Mode::Echo(s) => format!("echo on {}", s.name()),
            },
            parts.join("; "),
            if first.impair.is_active() {
                format!(", impairments {:?}", first.impair)
            } else {
                String::new()
            }
        ));
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

    /// A worker on `ports` (its queue of this pair's N3 and N6), reading the rules from
    /// `table`; the first one gets `end_markers`.
    pub(crate) fn worker(
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
            routes: self.routes,
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
