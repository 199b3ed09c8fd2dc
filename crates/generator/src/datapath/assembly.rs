//! A step's datapath put together: each worker's TX shares (a template pool per share), its
//! receive and transmit statistics and its service plane, launched idle on its lcore; and taken
//! apart again at the step's end, the queues given back for the next step.

use std::net::IpAddr;
use std::sync::Arc;

use anyhow::{Context, Result, anyhow, bail};
use upfbench_dpdk::{Eal, LcoreHandle, LcoreScope, Mempool, Socket, TemplatePool, TxVlan};
use upfbench_gtpu::PacketTemplate;
use upfbench_net::{Qfi, Teid};
use upfbench_stats::{
    Direction, RxConfig, RxCoreResult, RxHandle, RxStats, RxStream, StreamSpec, TxCoreResult,
    TxHandle, TxStats,
};

use super::classify::RxRules;
use super::clock::Clock;
use super::frames::{Endpoints, stream_frame, stream_template};
use super::outer_switch::{OUTER_CHECKSUM_AT, OuterSwitch};
use super::probes::{ProbeSchedule, ProbeShare};
use super::qos_rx::{QosLayout, QosRx};
use super::tx::{ShareSpec, TxShare, TxUe, share_ues, share_ues6};
use super::worker::{Worker, WorkerCounters, WorkerResult};
use upfbench_datapath::queues::{PortQueues, Side};
use upfbench_datapath::service::{Interface6, ServicePlane};
use upfbench_net::tag::TAG_LEN;
use upfbench_run::phase::{Phase, PhaseBoard};
use upfbench_run::plan::{Plan, Share, StreamPlan};

/// Mbufs per TX template pool: the TX queue's descriptors, a burst and the lcore cache fit.
const TX_POOL: u32 = 4095;
const TX_POOL_CACHE: u32 = 256;
/// How long unsent packets are offered to a full queue at the end of a step.
const FLUSH_NS: u64 = 100_000_000;

/// Template pools of earlier steps, by worker, for later steps that send the same frames: DPDK
/// frees no pool before EAL ends, and a search runs hundreds of steps.
#[derive(Default)]
pub(crate) struct PoolShelf<'p> {
    pools: Vec<(usize, TemplatePool<'p>)>,
}

/// Template pools made in this process: their names (`tx{n}w{worker}`) must differ from every
/// earlier pool's, the shelves of earlier runs on the same EAL (an agent's) included.
static POOLS_MADE: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

impl<'p> PoolShelf<'p> {
    /// A pool of worker `worker` that holds `frame` with `patch` and asks the NIC to insert
    /// `vlan`, made if none is on the shelf.
    fn take(
        &mut self,
        eal: &'p Eal,
        worker: usize,
        (frame, vlan): (&[u8], TxVlan),
        patch: std::ops::Range<usize>,
    ) -> upfbench_dpdk::Result<TemplatePool<'p>> {
        if let Some(i) = self.pools.iter().position(|(w, p)| {
            *w == worker && p.frame() == frame && p.patch_range() == patch && p.tx_vlan() == vlan
        }) {
            return Ok(self.pools.swap_remove(i).1);
        }
        let made = POOLS_MADE.fetch_add(1, std::sync::atomic::Ordering::Relaxed) + 1;
        Ok(TemplatePool::new(
            eal,
            &format!("tx{made}w{worker}"),
            TX_POOL,
            TX_POOL_CACHE,
            frame,
            patch,
            Socket::Any,
        )?
        .with_tx_vlan(vlan))
    }
}

/// What the workers of one step leave to the next: each worker's queues, the template pools,
/// and each worker's receive table.
#[derive(Default)]
pub(crate) struct Idle<'p> {
    /// Each worker's queues (N3, N6), while no step runs: every pair's, pair after pair.
    pub queues: Vec<Option<[PortQueues<'p>; 2]>>,
    /// Where each pair's queues begin in `queues`: pair `k`'s worker `i` takes
    /// `queues[first[k] + i]`.
    pub first: Vec<usize>,
    /// The template pools of earlier steps.
    pub shelf: PoolShelf<'p>,
    /// Each worker's per-flow receive table of the step before, once its report is made: the
    /// next step of the same flows (a search's next trial) resets it instead of allocating one
    /// (two allocations per flow, 4.5 ms a step with 20,000 flows).
    pub rx_tables: Vec<Vec<RxStream>>,
}

/// What the workers of one port pair are wired to.
#[derive(Debug, Clone, Copy)]
pub(crate) struct PairWiring<'p> {
    /// The step's receive rules on the pair's ports (their VLAN tags).
    pub rules: &'p RxRules,
    /// Our interfaces, the UPF's N3 address and the next hops' MACs on the pair's ports.
    pub endpoints: Endpoints,
    /// The UPF's N3 and N6 neighbours on the pair's ports, of either family (the entries the
    /// service plane starts with).
    pub peers: [IpAddr; 2],
}

impl Idle<'_> {
    /// The slot in [`Idle::queues`] of worker `wp`: its queue in its pair.
    pub(crate) fn slot(&self, wp: &upfbench_run::plan::WorkerPlan) -> usize {
        self.first.get(usize::from(wp.pair)).copied().unwrap_or(0) + usize::from(wp.index)
    }
}

/// What a step's workers are made of besides their queues.
#[derive(Debug, Clone, Copy)]
pub(crate) struct StepWiring<'w, 'p> {
    /// The EAL the pools come from.
    pub eal: &'p Eal,
    /// The step's plan (read while the workers are made).
    pub plan: &'w Plan,
    /// Each port pair's wiring, in the system file's order.
    pub pairs: &'w [PairWiring<'p>],
    /// The QFI that uplink G-PDUs carry, if any.
    pub qfi: Option<Qfi>,
    /// Each UE's uplink TEID (the profile's range, or those the UPF chose).
    pub uplink_teids: &'w [Teid],
    /// The pool of the service plane's replies.
    pub service_pool: Mempool<'p>,
    /// The step's clock.
    pub clock: Clock,
    /// The phase the control thread sets for the workers.
    pub control: &'p PhaseBoard,
}

/// A step's workers while they run, and the handles to their statistics.
pub(crate) struct StepWorkers<'s, 'p> {
    /// One per worker lcore.
    pub handles: Vec<LcoreHandle<'s, WorkerResult<'p>>>,
    /// Each worker's slot in [`Idle::queues`], where its queues go back.
    pub slots: Vec<usize>,
    /// Each worker's port pair.
    pub pairs: Vec<u16>,
    /// Each worker's receive statistics, as the control thread reads them.
    pub rx: Vec<RxHandle>,
    /// Each worker's transmit statistics.
    pub tx: Vec<TxHandle>,
    /// The flows the statistics were made for.
    pub specs: Vec<StreamSpec>,
}

/// What a step's workers handed back.
#[derive(Debug)]
pub(crate) struct StepOutcome {
    /// Each worker's transmit figures.
    pub tx: Vec<TxCoreResult>,
    /// Each worker's receive figures.
    pub rx: Vec<RxCoreResult>,
    /// Their other counters, added up.
    pub counters: WorkerCounters,
    /// Each worker's other counters.
    pub(crate) by_worker: Vec<WorkerCounters>,
    /// The frames each worker received on each port (N3, N6): what its queues received.
    pub(crate) rx_by_worker: Vec<[u64; 2]>,
}

/// Builds the step's TX shares and statistics and launches one worker per lcore of the plan,
/// idle, each on the queues `queues[w]` (taken, and given back by [`join`]).
pub(crate) fn launch<'s, 'p>(
    scope: &'s LcoreScope<'s, 'p>,
    w: &StepWiring<'_, 'p>,
    idle: &mut Idle<'p>,
) -> Result<StepWorkers<'s, 'p>> {
    let slots: Vec<usize> = w.plan.workers.iter().map(|wp| idle.slot(wp)).collect();
    let Idle {
        queues,
        shelf,
        rx_tables,
        ..
    } = idle;
    let plan = w.plan;
    let specs = stream_specs(plan);
    let rx_config = RxConfig {
        reorder_window: plan.reorder_window,
        latency: plan.latency,
        ..RxConfig::default()
    };
    let mut workers = StepWorkers {
        handles: Vec::new(),
        slots: slots.clone(),
        pairs: plan.workers.iter().map(|wp| wp.pair).collect(),
        rx: Vec::new(),
        tx: Vec::new(),
        specs: specs.clone(),
    };
    w.control.set(Phase::Idle, 0);
    let qos = QosLayout::of(plan).map(Arc::new);
    for (i, wp) in plan.workers.iter().enumerate() {
        let pair = w
            .pairs
            .get(usize::from(wp.pair))
            .ok_or_else(|| anyhow!("worker {i}: no port pair {}", wp.pair))?;
        let known: Vec<_> = [Side::N3, Side::N6]
            .into_iter()
            .map(|s| {
                let mac = pair.endpoints.next_hop_mac[s.index()];
                (s, pair.peers[s.index()], mac)
            })
            .collect();
        let mut shares = Vec::new();
        let mut warmup = Vec::new();
        for share in &wp.shares {
            shares.push(tx_share(w, &pair.endpoints, shelf, i, share)?);
            warmup.push(plan.warmup_schedule(share));
        }
        let probes = probe_share(w, &pair.endpoints, shelf, i)?;
        let recycled = rx_tables.get_mut(i).map(std::mem::take).unwrap_or_default();
        let (rx, rx_handle) = RxStats::reusing(i as u32, &specs, &rx_config, recycled)?;
        let (tx, tx_handle) = TxStats::new(i as u32, &specs);
        workers.rx.push(rx_handle);
        workers.tx.push(tx_handle);
        let ports = queues
            .get_mut(slots[i])
            .and_then(Option::take)
            .ok_or_else(|| anyhow!("worker {i}'s queues are in use or missing"))?;
        let worker = Worker {
            index: i as u16,
            ports,
            shares,
            warmup,
            probes,
            qos: qos
                .clone()
                .map(|l| QosRx::new(l, plan.expected.as_nanos() as u64, &plan.latency))
                .transpose()?,
            rules: pair.rules,
            rx,
            tx,
            service: service_plane(&pair.endpoints, w.service_pool, w.clock.hz(), &known),
            clock: w.clock,
            flush_ns: FLUSH_NS,
        };
        let control = w.control;
        workers
            .handles
            .push(scope.launch(wp.lcore, move || worker.poll_until_stopped(control))?);
    }
    Ok(workers)
}

/// A worker's service plane on the ports of `e`: their IPv4 interfaces, their IPv6 addresses
/// and VLAN tags, the next hops known (`known`, and the UPF's N3 IPv6 address at N3's next hop).
pub(crate) fn service_plane<'p>(
    e: &Endpoints,
    pool: Mempool<'p>,
    hz: u64,
    known: &[(Side, IpAddr, upfbench_net::MacAddr)],
) -> ServicePlane<'p> {
    let mut s = ServicePlane::new(e.local, pool, hz, &[]);
    for &(side, ip, mac) in known {
        s = s.with_neighbour(side, ip, mac);
    }
    let v6 = |address| Interface6 {
        address,
        prefix_len: 64,
        secondary: None,
    };
    if let Some((ours, upf)) = e.v6.n3 {
        s = s.with_ipv6(Side::N3, v6(ours)).with_neighbour(
            Side::N3,
            upf.into(),
            e.next_hop_mac[Side::N3.index()],
        );
    }
    if let Some(dn) = e.v6.dn_host {
        s = s.with_ipv6(Side::N6, v6(dn));
    }
    for side in Side::BOTH {
        s = s.with_vlan(side, e.tags[side.index()]);
    }
    s
}

/// The statistics' flows: each stream's UEs, one after the other.
pub(crate) fn stream_specs(plan: &Plan) -> Vec<StreamSpec> {
    plan.streams
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
        .collect()
}

/// Worker `worker`'s `share` of a stream: its frame's template, in a pool from `shelf`, and
/// its UEs (the moving ones' outer headers switched at their handovers).
fn tx_share<'p>(
    w: &StepWiring<'_, 'p>,
    endpoints: &Endpoints,
    shelf: &mut PoolShelf<'p>,
    worker: usize,
    share: &Share,
) -> Result<TxShare<'p>> {
    let plan = w.plan;
    let uplink_teids = w.uplink_teids;
    let stream = plan.stream(share.stream);
    let first_ue = stream.ues.start + share.first;
    let teid = uplink_teids
        .get(first_ue as usize)
        .copied()
        .unwrap_or(Teid::ZERO);
    let frame = stream_frame(
        stream,
        ue_address(plan, stream, first_ue),
        teid,
        w.qfi,
        endpoints,
    )
    .with_context(|| format!("building the frame of stream {}", stream.name))?;
    let mut patch = frame.patch_range(TAG_LEN);
    let moving = uplink_moves(plan, stream, share, &frame.template);
    if moving.is_some() {
        if frame.tags_len != 0 || frame.written_whole(TAG_LEN) {
            bail!(
                "stream {}: handovers are not supported with VLAN tags or IPv6 yet",
                stream.name
            );
        }
        patch.start = OUTER_CHECKSUM_AT;
    }
    let pool = shelf
        .take(w.eal, worker, (&frame.bytes, frame.tx_vlan), patch)
        .with_context(|| format!("the TX pool of stream {}", stream.name))?;
    let teids = |ue: u32| uplink_teids.get(ue as usize).copied().unwrap_or(Teid::ZERO);
    let ues = share_ues(stream, share, &plan.ues, &frame.template, &teids);
    let spec = ShareSpec::new(stream, share, plan.catch_up);
    if moving.is_some() {
        return Ok(TxShare::with_moving_ues(
            spec,
            pool,
            frame.template,
            ues,
            moving,
        ));
    }
    let ues6 = share_ues6(stream, share, &|ue| ue_address(plan, stream, ue));
    Ok(TxShare::of_frame(spec, pool, frame, ues, ues6))
}

/// UE `ue`'s address as `stream`'s packets carry it: of the stream's family.
fn ue_address(plan: &Plan, stream: &StreamPlan, ue: u32) -> IpAddr {
    match (stream.shape.inner, plan.ues.address_v6(ue)) {
        (upfbench_net::IpFamily::Ipv6, Some(a)) => IpAddr::V6(a),
        _ => plan.ues.address(ue),
    }
}

/// Worker `worker`'s part of the churn sessions' probes, in a step whose churn runs.
fn probe_share<'p>(
    w: &StepWiring<'_, 'p>,
    endpoints: &Endpoints,
    shelf: &mut PoolShelf<'p>,
    worker: usize,
) -> Result<Option<ProbeShare<'p>>> {
    let Some(c) = w.plan.churn.as_ref().filter(|c| c.on) else {
        return Ok(None);
    };
    let plan = &c.plan;
    let schedule = ProbeSchedule::new(plan, worker, w.plan.workers.len());
    let probe = &plan.probe;
    let template = stream_template(
        probe,
        w.plan.ues.address_v4(plan.first_ue),
        Teid::ZERO,
        w.qfi,
        endpoints,
    )
    .context("building the churn probes' frame")?;
    // An IPv4 run has an IPv6 data network host all the same (for IPv6 UEs, over IPv4): what
    // churn cannot do yet is IPv6 UEs, an IPv6 N3, or tags.
    let tagged = !endpoints.tags.iter().all(|t| t.is_empty());
    if tagged || endpoints.v6.n3.is_some() || w.plan.ues.v6.is_some() {
        bail!("session churn is not supported with VLAN tags or IPv6 yet");
    }
    let patch = template
        .patch_range(TAG_LEN)
        .ok_or_else(|| anyhow!("the churn probes' frame cannot be patched in place"))?;
    let pool = shelf
        .take(w.eal, worker, (template.bytes(), TxVlan::NONE), patch)
        .context("the churn probes' TX pool")?;
    let ues = schedule
        .slots()
        .map(|k| TxUe {
            patch: template
                .ue_patch::<TAG_LEN>(Teid::ZERO, w.plan.ues.address_v4(plan.first_ue + k)),
            sent: 0,
        })
        .collect();
    Ok(Some(ProbeShare::new(
        schedule, probe.id, pool, &template, ues,
    )))
}

/// The outer source of each UE of an uplink `share` whose UEs include moving ones: switched
/// at its handover's time; `None` for a share with no moving UE (or a downlink one).
fn uplink_moves(
    plan: &Plan,
    stream: &StreamPlan,
    share: &Share,
    template: &PacketTemplate,
) -> Option<Box<[OuterSwitch]>> {
    let h = plan.handovers.as_ref()?;
    if stream.direction != Direction::Uplink {
        return None;
    }
    let at = |j: u32| {
        let ue = stream.ues.start + j;
        h.slot(ue).map(|s| h.moves[s as usize].at_ns)
    };
    share.local_ues().any(|j| at(j).is_some()).then(|| {
        share
            .local_ues()
            .map(|j| OuterSwitch::new(template, h.target_address, at(j)))
            .collect()
    })
}

/// Stops the workers, waits for them, and gives their queues back to `queues`.
pub(crate) fn join<'p>(
    workers: &mut StepWorkers<'_, 'p>,
    control: &PhaseBoard,
    idle: &mut Idle<'p>,
) -> Result<StepOutcome> {
    let Idle { queues, shelf, .. } = idle;
    control.set(Phase::Stop, 0);
    let mut outcome = StepOutcome {
        tx: Vec::new(),
        rx: Vec::new(),
        counters: WorkerCounters::default(),
        by_worker: Vec::new(),
        rx_by_worker: Vec::new(),
    };
    for (w, h) in std::mem::take(&mut workers.handles).into_iter().enumerate() {
        let res = h.join().map_err(|_| anyhow!("worker {w} panicked"))?;
        if let Some(slot) = workers.slots.get(w).and_then(|&s| queues.get_mut(s)) {
            *slot = Some(res.ports);
        }
        shelf.pools.extend(res.pools.into_iter().map(|p| (w, p)));
        outcome.tx.push(res.tx);
        outcome.rx.push(res.rx);
        outcome
            .rx_by_worker
            .push(Side::BOTH.map(|side| res.counters.rx_frames(side)));
        outcome.counters.add(&res.counters);
        outcome.by_worker.push(res.counters);
    }
    Ok(outcome)
}
