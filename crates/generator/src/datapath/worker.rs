//! A worker lcore: polls its receive queue of each port, sends its shares of the streams on its
//! transmit queue of each port, answers the service plane, and publishes its counters. Nothing
//! is shared with the other workers but the read-only rules and the phase.

use upfbench_dpdk::{MbufBurst, Quiescent, TemplatePool, current_lcore, tsc};
use upfbench_gtpu::MessageType;
use upfbench_stats::{RxCoreResult, RxStats, TxCoreResult, TxStats};

use super::churn_rx::ChurnRx;
use super::classify::{Classified, Reject, RxRules};
use super::clock::Clock;
use super::handover::{HandoverRx, Leg};
use super::probes::ProbeShare;
use super::qos_rx::QosRx;
use super::tx::TxShare;
use upfbench_datapath::queues::{PortQueues, RX_BURST, Side};
use upfbench_datapath::service::Service;
use upfbench_datapath::service::{Seen, ServicePlane};
use upfbench_net::tag::transit_ns;
use upfbench_run::phase::{Phase, PhaseBoard};
use upfbench_run::plan::Schedule;

/// How often the counters are published for the live view, and the RX side looks whether the
/// live view asked for its latency interval (the end publishes them exactly).
const PUBLISH_NS: u64 = 100_000;

/// What a worker counts besides the stats crate's figures.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct WorkerCounters {
    /// Received frames not measured, per [`Reject`] kind, per port.
    pub rejects: [[u64; Reject::COUNT]; 2],
    /// Downlink G-PDUs measured without a PDU Session Container while the run sets a QFI.
    pub(crate) no_container: u64,
    /// Measured packets received, per port ([`Side`] index).
    pub rx_measured: [u64; 2],
    /// Packets of the run's flows not measured, per port: received outside the measured phases
    /// (warm-up, settling), or sent before the measured phase began (the warm-up's, or an
    /// earlier step's, come late).
    pub unmeasured: [u64; 2],
    /// Measured packets the ports took, per port.
    pub tx_measured: [u64; 2],
    /// Packets of the streams the ports took outside the measured phase (the warm-up), per
    /// port.
    pub tx_warmup: [u64; 2],
    /// Frames handed to the service plane, per port.
    pub rx_service: [u64; 2],
    /// Frames of the service plane the ports took, per port.
    pub tx_service: [u64; 2],
    /// Times a share's template pool had no free mbuf when packets were due.
    pub(crate) tx_pool_empty: u64,
    /// Packets still unsent at the end, whose sequence numbers were given back.
    pub(crate) tx_rewound: u64,
    /// TSC ticks from when the measured phase's first packet was due to the last burst the NIC
    /// took.
    pub(crate) tx_span: Option<(u64, u64)>,
    /// The shares whose schedule slipped in the measured phase.
    pub(crate) tx_slips: Vec<ShareSlip>,
    /// Frames the service plane looked at, per port, by kind (GTP-U Error Indications from
    /// the UPF among them).
    pub service_seen: [[u64; Seen::COUNT]; 2],
    /// The handovers as the receive side saw them (empty without handovers).
    pub handover: HandoverRx,
    /// The churn sessions' probes (empty without churn).
    pub churn: ChurnRx,
    /// Churn probes the ports took, per port.
    pub tx_probes: [u64; 2],
    /// Churn probes received, per port (any phase).
    pub rx_probes: [u64; 2],
    /// The bytes each QER passed, per 10 ms window (in a step whose streams a QER with an MBR
    /// polices).
    pub qos: Option<QosRx>,
}

impl WorkerCounters {
    /// Every frame received on `side`'s port: measured or not, the service plane's, rejected.
    pub(crate) fn rx_frames(&self, side: Side) -> u64 {
        let i = side.index();
        self.rx_measured[i]
            + self.unmeasured[i]
            + self.rx_service[i]
            + self.rx_probes[i]
            + self.rejects[i].iter().sum::<u64>()
    }

    /// Adds another worker's counters (the step's totals).
    pub fn add(&mut self, b: &WorkerCounters) {
        let a = self;
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
            (&mut a.tx_probes, &b.tx_probes),
            (&mut a.rx_probes, &b.rx_probes),
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
        a.handover.merge(&b.handover);
        a.churn.merge(&b.churn);
        match (&mut a.qos, &b.qos) {
            (Some(x), Some(y)) => x.merge(y),
            (None, Some(y)) => a.qos = Some(y.clone()),
            _ => {}
        }
        if let Some((first, last)) = b.tx_span {
            a.tx_span = Some(match a.tx_span {
                None => (first, last),
                Some((x, y)) => (x.min(first), y.max(last)),
            });
        }
    }
}

/// How far one share's schedule slipped in the measured phase (see [`upfbench_run::plan::Pacer`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ShareSlip {
    /// The share's stream.
    pub stream: u16,
    /// Times it fell behind by more than its allowance.
    pub count: u64,
    /// How much later its last packet was due than planned (ns): what catching up did not
    /// make up.
    pub(crate) slipped_ns: u64,
    /// The most it was ever late (ns).
    pub(crate) max_late_ns: u64,
}

/// Everything a worker hands over at the end.
#[derive(Debug)]
pub struct WorkerResult<'p> {
    /// Its queues, back for the next step.
    pub ports: [PortQueues<'p>; 2],
    /// Receive figures (measured phases only).
    pub rx: RxCoreResult,
    /// Transmit figures (measured phase only).
    pub tx: TxCoreResult,
    /// Other counters.
    pub counters: WorkerCounters,
    /// Its shares' template pools, back for a later step (DPDK frees no pool before EAL ends,
    /// so a search of many trials reuses them).
    pub pools: Vec<TemplatePool<'p>>,
}

/// A worker and everything it owns.
pub struct Worker<'p> {
    /// Worker index (its queue on every port).
    pub index: u16,
    /// Its queues, by [`Side`].
    pub ports: [PortQueues<'p>; 2],
    /// Its shares of the streams.
    pub shares: Vec<TxShare<'p>>,
    /// The warm-up schedule of each share (same order).
    pub warmup: Vec<Schedule>,
    /// Its part of the churn sessions' probes, in a step with churn.
    pub probes: Option<ProbeShare<'p>>,
    /// Its windows of the QERs' passed bytes, in a step whose streams a QER polices.
    pub qos: Option<QosRx>,
    /// The run's receive rules.
    pub rules: &'p RxRules,
    /// Its receive statistics.
    pub rx: RxStats,
    /// Its transmit statistics.
    pub tx: TxStats,
    /// Its service plane.
    pub service: ServicePlane<'p>,
    /// The run clock.
    pub clock: Clock,
    /// How long to keep offering unsent packets to a full queue at the end (ns).
    pub flush_ns: u64,
}

impl<'p> Worker<'p> {
    /// Polls its queues and sends its shares, in the phases the control thread posts on
    /// `phases`, until the phase is [`Phase::Stop`]; returns what it counted and measured.
    pub fn poll_until_stopped(self, phases: &PhaseBoard) -> WorkerResult<'p> {
        let index = self.index;
        let mut w = Running::new(self);
        let mut phase = Phase::Idle;
        // Between two loops the worker is in no burst: a PMD may unmap what they use then.
        let quiescent = Quiescent::online(current_lcore().unwrap_or(u32::from(index)));
        loop {
            quiescent.pass();
            let p = phases.phase();
            if p != phase {
                phase = p;
                w.enter(phase, phases.epoch());
            }
            if phase == Phase::Stop {
                break;
            }
            w.poll_once(phase, phases);
        }
        w.flush_unsent(&quiescent);
        w.finish()
    }
}

/// A worker as it runs: what it owns, what it counted, and where its phases stand.
struct Running<'p> {
    ports: [PortQueues<'p>; 2],
    shares: Vec<TxShare<'p>>,
    warmup: Vec<Schedule>,
    probes: Option<ProbeShare<'p>>,
    rules: &'p RxRules,
    rx: RxStats,
    tx: TxStats,
    service: ServicePlane<'p>,
    clock: Clock,
    flush_ns: u64,
    counters: WorkerCounters,
    /// Each port's received burst.
    bursts: [MbufBurst<'p, RX_BURST>; 2],
    /// Whether the measured phase started (a stop during the warm-up measures nothing).
    measured_started: bool,
    /// When the measured phase's first packets were due (ns): a packet sent before is not
    /// measured.
    measured_from_ns: u64,
    /// Whether every share sent all it had to in the phase (the control thread was told).
    sending_done: bool,
    /// Whether the control thread was told, in the drain, that the ports took everything.
    drained_told: bool,
    /// When the counters were last published (ns).
    tx_published_ns: u64,
}

impl<'p> Running<'p> {
    fn new(worker: Worker<'p>) -> Running<'p> {
        let Worker {
            index: _,
            ports,
            shares,
            warmup,
            probes,
            qos,
            rules,
            rx,
            tx,
            service,
            clock,
            flush_ns,
        } = worker;
        Running {
            ports,
            shares,
            warmup,
            probes,
            rules,
            rx,
            tx,
            service,
            clock,
            flush_ns,
            counters: WorkerCounters {
                handover: rules.handover_record(),
                churn: rules.churn_record(),
                qos,
                ..WorkerCounters::default()
            },
            bursts: [MbufBurst::new(), MbufBurst::new()],
            measured_started: false,
            measured_from_ns: 0,
            sending_done: false,
            drained_told: false,
            tx_published_ns: 0,
        }
    }

    /// Enters `phase`, posted at TSC `epoch`: the warm-up's and the measured phase's shares
    /// (and probes) start sending from it.
    fn enter(&mut self, phase: Phase, epoch: u64) {
        let clock = self.clock;
        match phase {
            Phase::Warmup => {
                for (s, schedule) in self.shares.iter_mut().zip(&self.warmup) {
                    s.start(schedule, clock.hz(), epoch);
                }
                self.sending_done = false;
            }
            Phase::Measure => {
                for s in &mut self.shares {
                    s.start_measured(clock.hz(), epoch);
                }
                // The sending time starts when the first packet is due, not when the
                // first burst left: a late start that was caught up is in the rate.
                if !self.shares.is_empty() {
                    widen(&mut self.counters.tx_span, epoch);
                }
                if let Some(p) = &mut self.probes {
                    p.start(clock.hz(), epoch);
                    self.counters.churn.measure_start_ns = Some(clock.ns(epoch));
                }
                if let Some(q) = &mut self.counters.qos {
                    q.start(clock.ns(epoch));
                }
                self.measured_started = true;
                self.measured_from_ns = clock.ns(epoch);
                self.sending_done = false;
            }
            Phase::Drain => self.drained_told = false,
            _ => {}
        }
    }

    /// One turn of the loop in `phase`: receives a burst on each port, sends (or flushes)
    /// the shares, answers the service plane, publishes the counters when due.
    #[inline(always)]
    fn poll_once(&mut self, phase: Phase, phases: &PhaseBoard) {
        // A drain that follows an interrupted warm-up has nothing of its own to measure.
        let measuring = phase.measures() && self.measured_started;
        let mut received = 0;
        for side in Side::BOTH {
            received += self.ports[side.index()]
                .rx
                .rx_burst(&mut self.bursts[side.index()]);
        }
        // The clock is read after both polls: a reading from before a poll would date the
        // packets that came while this thread was descheduled (after that reading) earlier
        // than they came, and under-report their latency. One reading serves both bursts
        // and the TX below when nothing was received.
        let now = tsc();
        let now_ns = self.clock.ns(now);
        // Whether anything happened since `now` was read (then TX reads the clock again).
        let worked = received != 0;
        if worked {
            self.receive_bursts(measuring, now_ns);
        }
        if phase.sends() {
            self.send(phase, now, worked, phases);
        } else {
            self.flush_shares(phase, now);
            if phase == Phase::Drain {
                self.tell_drained(now_ns, phases);
            }
        }
        for side in Side::BOTH {
            self.counters.tx_service[side.index()] +=
                self.service.flush(side, &mut self.ports[side.index()].tx);
        }
        self.publish_when_due(phase, now_ns);
    }

    /// Classifies and records the bursts received at `now_ns` (in the RX statistics when
    /// `measuring`), then frees them.
    #[inline(always)]
    fn receive_bursts(&mut self, measuring: bool, now_ns: u64) {
        for side in Side::BOTH {
            let burst = &mut self.bursts[side.index()];
            if burst.is_empty() {
                continue;
            }
            // A step without QoS windows pays nothing for them (see `receive_frame_sized`).
            let receive = if self.counters.qos.is_some() {
                receive::<RX_BURST, true>
            } else {
                receive::<RX_BURST, false>
            };
            receive(
                side,
                &mut *burst,
                self.rules,
                measuring.then_some(&mut self.rx),
                &mut self.counters,
                &mut self.service,
                now_ns,
                self.measured_from_ns,
            );
            burst.clear();
        }
    }

    /// Sends what each share (and, measuring, the probes) has due, in a phase that sends;
    /// tells the control thread once every share is done. `worked`: whether something
    /// happened since `now` was read.
    #[inline(always)]
    fn send(&mut self, phase: Phase, now: u64, mut worked: bool, phases: &PhaseBoard) {
        let measured = phase == Phase::Measure;
        for s in &mut self.shares {
            // Stamped as late as possible: the receive work above, or the share sent
            // before, is not in the latency (with neither, `now` is still fresh).
            let now = if worked { tsc() } else { now };
            worked = true;
            let side = side_of(s);
            let sent = s.poll(now, self.clock.ns(now), &mut self.ports[side.index()].tx);
            count_sent(
                &mut self.tx,
                &mut self.counters,
                s,
                side,
                sent,
                measured,
                || now,
            );
        }
        if measured && let Some(p) = &mut self.probes {
            let now = if worked { tsc() } else { now };
            self.counters.tx_probes[Side::N6.index()] += p.poll(
                now,
                self.clock.ns(now),
                &mut self.ports[Side::N6.index()].tx,
            );
        }
        if !self.sending_done && self.shares.iter().all(TxShare::done) {
            self.sending_done = true;
            phases.worker_done();
        }
    }

    /// Offers what the probes and the shares still hold to their queues, in a phase that does
    /// not send; the shares' packets the queues take in the drain after the measured phase
    /// count as measured.
    #[inline]
    fn flush_shares(&mut self, phase: Phase, now: u64) {
        if let Some(p) = &mut self.probes {
            self.counters.tx_probes[Side::N6.index()] +=
                p.flush(&mut self.ports[Side::N6.index()].tx);
        }
        let measured = phase == Phase::Drain && self.measured_started;
        for s in &mut self.shares {
            let side = side_of(s);
            let sent = s.flush(&mut self.ports[side.index()].tx);
            count_sent(
                &mut self.tx,
                &mut self.counters,
                s,
                side,
                sent,
                measured,
                || now,
            );
        }
    }

    /// In the drain, once the ports took every packet the shares held: publishes the transmit
    /// counters (final for the step from then on) and tells the control thread, which can then
    /// tell when every packet sent is accounted for.
    #[inline]
    fn tell_drained(&mut self, now_ns: u64, phases: &PhaseBoard) {
        if !self.drained_told && self.shares.iter().all(|s| s.unsent() == 0) {
            self.tx.publish(now_ns);
            self.drained_told = true;
            phases.worker_drained();
        }
    }

    /// Publishes the counters for the live view every [`PUBLISH_NS`] (`now_ns` is now).
    #[inline]
    fn publish_when_due(&mut self, phase: Phase, now_ns: u64) {
        // The counters change every burst; the control thread reads them once a second and
        // asks for the latency interval then: a publication every burst (a seqlock write of
        // every counter) cost more per packet than the latency's recording.
        if now_ns.wrapping_sub(self.tx_published_ns) >= PUBLISH_NS {
            self.rx.publish(now_ns);
            self.tx.set_late_ns(if phase.sends() {
                lateness(&self.shares, self.clock)
            } else {
                [0; 2]
            });
            self.tx.publish(now_ns);
            self.tx_published_ns = now_ns;
        }
    }

    /// After the stop: offers what is left to the NIC for a while (`flush_ns`).
    fn flush_unsent(&mut self, quiescent: &Quiescent) {
        let deadline = tsc() + self.clock.ticks(self.flush_ns);
        while self.shares.iter().any(|s| s.unsent() != 0) && tsc() < deadline {
            quiescent.pass();
            for s in &mut self.shares {
                let side = side_of(s);
                let sent = s.flush(&mut self.ports[side.index()].tx);
                let measured = self.measured_started;
                count_sent(
                    &mut self.tx,
                    &mut self.counters,
                    s,
                    side,
                    sent,
                    measured,
                    tsc,
                );
            }
        }
    }

    /// Gives the unsent packets' numbers back, accounts each share's figures and slips, and
    /// hands over the queues, the figures and the pools.
    fn finish(mut self) -> WorkerResult<'p> {
        let clock = self.clock;
        for s in &mut self.shares {
            self.counters.tx_rewound += s.rewind_unsent();
            self.counters.tx_pool_empty += s.pool_empty;
            if self.measured_started {
                s.account(&mut self.tx);
                let slip = s.slip();
                if slip.count > 0 {
                    self.counters.tx_slips.push(ShareSlip {
                        stream: s.stream(),
                        count: slip.count,
                        slipped_ns: clock.ticks_to_ns(slip.ticks),
                        max_late_ns: clock.ticks_to_ns(slip.max_ticks),
                    });
                }
            }
        }
        let mut counters = self.counters;
        counters.service_seen = self.service.counters().seen;
        let end = clock.ns(tsc());
        let mut pools: Vec<TemplatePool<'p>> =
            self.shares.into_iter().map(TxShare::into_pool).collect();
        if let Some(p) = self.probes {
            pools.push(p.finish(&mut counters.churn));
        }
        WorkerResult {
            ports: self.ports,
            rx: self.rx.finish(end),
            tx: self.tx.finish(end),
            counters,
            pools,
        }
    }
}

/// Counts `sent` packets of `share` that its port on `side` took: when `measured`, in the TX
/// statistics, the counters and the sending span (widened to `at()`); else as the warm-up's.
#[inline(always)]
fn count_sent(
    tx: &mut TxStats,
    counters: &mut WorkerCounters,
    share: &TxShare<'_>,
    side: Side,
    sent: u64,
    measured: bool,
    at: impl FnOnce() -> u64,
) {
    if sent == 0 {
        return;
    }
    if measured {
        tx.record_traffic(share.direction(), sent, share.frame_len());
        counters.tx_measured[side.index()] += sent;
        widen(&mut counters.tx_span, at());
    } else {
        counters.tx_warmup[side.index()] += sent;
    }
}

/// How far behind its schedule the sending of each direction is now (ns): the latest of the
/// shares still sending. Read with the TX counters' publication, not per burst.
fn lateness(shares: &[TxShare<'_>], clock: Clock) -> [u64; 2] {
    let mut late = [0; 2];
    for s in shares.iter().filter(|s| !s.done()) {
        let ticks = s.slip().ticks;
        if ticks != 0 {
            let d = s.direction().index();
            late[d] = late[d].max(clock.ticks_to_ns(ticks));
        }
    }
    late
}

fn widen(span: &mut Option<(u64, u64)>, t: u64) {
    *span = Some(match *span {
        None => (t, t),
        Some((a, b)) => (a.min(t), b.max(t)),
    });
}

/// The port a share sends on: uplink G-PDUs on N3, downlink on N6.
fn side_of(share: &TxShare<'_>) -> Side {
    match share.direction() {
        upfbench_stats::Direction::Uplink => Side::N3,
        upfbench_stats::Direction::Downlink => Side::N6,
    }
}

/// Classifies and records one received burst (see [`receive_frame`]); on tagged ports, see
/// [`receive_tagged`].
#[inline(always)]
#[allow(clippy::too_many_arguments)]
fn receive<const N: usize, const QOS: bool>(
    side: Side,
    burst: &mut MbufBurst<'_, N>,
    rules: &RxRules,
    mut stats: Option<&mut RxStats>,
    counters: &mut WorkerCounters,
    service: &mut ServicePlane<'_>,
    now_ns: u64,
    measured_from_ns: u64,
) {
    if rules.vlans().any() {
        receive_tagged::<N, QOS>(
            side,
            burst,
            rules,
            stats,
            counters,
            service,
            (now_ns, measured_from_ns),
        );
        return;
    }
    for m in burst.iter() {
        let frame = m.data();
        if let Some(kind) = receive_frame::<QOS>(
            side,
            frame,
            rules,
            stats.as_deref_mut(),
            counters,
            now_ns,
            measured_from_ns,
        ) {
            counters.rx_service[side.index()] += 1;
            service.handle(side, kind, frame);
        }
    }
}

/// [`receive`] on ports with VLAN tags: each frame is for the port whose tags it carries
/// (`side`, or in one-port mode the other port), in the mbuf where the NIC stripped them and
/// in the frame otherwise; those in the frame are removed in place (the addresses moved over
/// them) before it is classified; its length still counts them all. A frame with other tags
/// or none goes to the service plane, which counts it ([`Seen::OtherVlan`]).
#[inline(never)]
fn receive_tagged<const N: usize, const QOS: bool>(
    side: Side,
    burst: &mut MbufBurst<'_, N>,
    rules: &RxRules,
    mut stats: Option<&mut RxStats>,
    counters: &mut WorkerCounters,
    service: &mut ServicePlane<'_>,
    (now_ns, measured_from_ns): (u64, u64),
) {
    let vlans = *rules.vlans();
    burst.retain_mut(|m| {
        // Tags the NIC stripped are in the mbuf, the rest (if any) in the frame.
        let stripped = m.stripped_tags();
        let data = m.data_mut();
        let Some((port, in_frame)) = vlans.side_of_received(side, stripped, data) else {
            counters.rx_service[side.index()] += 1;
            service.handle_received(side, stripped, data);
            return true;
        };
        data.copy_within(..ADDRESSES_LEN, in_frame);
        let frame = &data[in_frame..];
        if let Some(_kind) = receive_frame_sized::<QOS>(
            port,
            frame,
            (frame.len() + vlans.tags[port.index()].len()) as u32,
            rules,
            stats.as_deref_mut(),
            counters,
            now_ns,
            measured_from_ns,
        ) {
            counters.rx_service[port.index()] += 1;
            service.handle_untagged(port, frame);
        }
        true
    });
}

/// The Ethernet addresses, which a VLAN tag follows.
const ADDRESSES_LEN: usize = 12;

/// The RX path of one frame, as the worker runs it: classifies `frame` (received on `side` at
/// `now_ns`) and records it in `stats` (`None` outside the measured phases) or counts it;
/// returns what the service plane must answer. A packet whose tag says it was sent before
/// `measured_from_ns` (when the measured phase's first packets were due) is counted, not
/// measured: its sequence number belongs to the warm-up's numbering or an earlier step's, so
/// that a step never counts another's packets, however late they come. The RX benchmark
/// (`benches/rx_path.rs`) measures this function.
#[inline(always)]
pub fn receive_frame<const QOS: bool>(
    side: Side,
    frame: &[u8],
    rules: &RxRules,
    stats: Option<&mut RxStats>,
    counters: &mut WorkerCounters,
    now_ns: u64,
    measured_from_ns: u64,
) -> Option<Service> {
    receive_frame_sized::<QOS>(
        side,
        frame,
        frame.len() as u32,
        rules,
        stats,
        counters,
        now_ns,
        measured_from_ns,
    )
}

/// [`receive_frame`] for a frame whose tags were removed: `wire_len` is its length as it came
/// (what the statistics count).
///
/// `QOS`: whether the step keeps QoS windows (`counters.qos` is set; without it, `true` only
/// tests for them). The worker picks it per burst, so that a step without them pays nothing:
/// their test alone cost 14 instructions a packet on N6 (callgrind, `benches/rx_path.rs`), the
/// registers it kept busy.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
pub fn receive_frame_sized<const QOS: bool>(
    side: Side,
    frame: &[u8],
    wire_len: u32,
    rules: &RxRules,
    stats: Option<&mut RxStats>,
    counters: &mut WorkerCounters,
    now_ns: u64,
    measured_from_ns: u64,
) -> Option<Service> {
    let verdict = match side {
        Side::N3 => rules.classify_n3(frame),
        Side::N6 => rules.classify_n6(frame),
    };
    match verdict {
        Classified::Measured {
            flow,
            sequence,
            tx_time,
            no_container,
            leg,
        } => match stats {
            // Its transit is longer than the time since the phase began (a packet received
            // before the epoch always is).
            Some(_)
                if transit_ns(tx_time, now_ns) > now_ns.wrapping_sub(measured_from_ns) as i64 =>
            {
                counters.unmeasured[side.index()] += 1;
            }
            Some(rx) => {
                let arrival =
                    rx.record_transit(flow, sequence, transit_ns(tx_time, now_ns), wire_len);
                if QOS && let Some(q) = &mut counters.qos {
                    q.record(flow, now_ns, transit_ns(tx_time, now_ns));
                }
                if leg != Leg::Fixed {
                    counters.handover.record(leg, sequence, now_ns, arrival);
                }
                counters.rx_measured[side.index()] += 1;
                counters.no_container += u64::from(no_container);
            }
            None => counters.unmeasured[side.index()] += 1,
        },
        Classified::Probe {
            slot,
            sequence,
            tx_time,
        } => {
            counters.rx_probes[side.index()] += 1;
            if stats.is_some() {
                let tx_ns = now_ns.wrapping_sub(transit_ns(tx_time, now_ns) as u64);
                counters.churn.record(slot, sequence, tx_ns, now_ns);
            }
        }
        Classified::Service(kind) => {
            if kind == Service::Gtpu(MessageType::END_MARKER.0)
                && stats.is_some()
                && let Some(slot) = rules.end_marker_slot(frame)
            {
                counters.handover.end_marker(slot, now_ns);
            }
            return Some(kind);
        }
        Classified::Rejected(r) => counters.rejects[side.index()][r as usize] += 1,
    }
    None
}

#[cfg(test)]
mod tests;
