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
    pub no_container: u64,
    /// Measured packets received, per port ([`Side`] index).
    pub rx_measured: [u64; 2],
    /// Packets of the run's flows received outside the measured phases (warm-up, settling),
    /// per port.
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
    pub tx_pool_empty: u64,
    /// Packets still unsent at the end, whose sequence numbers were given back.
    pub tx_rewound: u64,
    /// TSC ticks from when the measured phase's first packet was due to the last burst the NIC
    /// took.
    pub tx_span: Option<(u64, u64)>,
    /// The shares whose schedule slipped in the measured phase.
    pub tx_slips: Vec<ShareSlip>,
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
}

impl WorkerCounters {
    /// Every frame received on `side`'s port: measured or not, the service plane's, rejected.
    pub fn rx_frames(&self, side: Side) -> u64 {
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
    pub slipped_ns: u64,
    /// The most it was ever late (ns).
    pub max_late_ns: u64,
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
        let Worker {
            index,
            mut ports,
            mut shares,
            warmup,
            mut probes,
            rules,
            mut rx,
            mut tx,
            mut service,
            clock,
            flush_ns,
        } = self;
        let mut counters = WorkerCounters {
            handover: rules.handover_record(),
            churn: rules.churn_record(),
            ..WorkerCounters::default()
        };
        let mut bursts = [MbufBurst::<RX_BURST>::new(), MbufBurst::<RX_BURST>::new()];
        let mut phase = Phase::Idle;
        let mut measured_started = false;
        let mut sending_done = false;
        let mut tx_published_ns = 0u64;
        // Between two loops the worker is in no burst: a PMD may unmap what they use then.
        let quiescent = Quiescent::online(current_lcore().unwrap_or(u32::from(index)));
        loop {
            quiescent.pass();
            let p = phases.phase();
            if p != phase {
                phase = p;
                let epoch = phases.epoch();
                match phase {
                    Phase::Warmup => {
                        for (s, schedule) in shares.iter_mut().zip(&warmup) {
                            s.start(schedule, clock.hz(), epoch);
                        }
                        sending_done = false;
                    }
                    Phase::Measure => {
                        for s in &mut shares {
                            s.start_measured(clock.hz(), epoch);
                        }
                        // The sending time starts when the first packet is due, not when the
                        // first burst left: a late start that was caught up is in the rate.
                        if !shares.is_empty() {
                            widen(&mut counters.tx_span, epoch);
                        }
                        if let Some(p) = &mut probes {
                            p.start(clock.hz(), epoch);
                            counters.churn.measure_start_ns = Some(clock.ns(epoch));
                        }
                        measured_started = true;
                        sending_done = false;
                    }
                    _ => {}
                }
            }
            if phase == Phase::Stop {
                break;
            }
            // A drain that follows an interrupted warm-up has nothing of its own to measure.
            let measuring = phase.measures() && measured_started;
            let mut received = 0;
            for side in Side::BOTH {
                received += ports[side.index()].rx.rx_burst(&mut bursts[side.index()]);
            }
            // The clock is read after both polls: a reading from before a poll would date the
            // packets that came while this thread was descheduled (after that reading) earlier
            // than they came, and under-report their latency. One reading serves both bursts
            // and the TX below when nothing was received.
            let now = tsc();
            let now_ns = clock.ns(now);
            // Whether anything happened since `now` was read (then TX reads the clock again).
            let mut worked = received != 0;
            if worked {
                for side in Side::BOTH {
                    let burst = &mut bursts[side.index()];
                    if burst.is_empty() {
                        continue;
                    }
                    receive(
                        side,
                        burst,
                        rules,
                        measuring.then_some(&mut rx),
                        &mut counters,
                        &mut service,
                        now_ns,
                    );
                    burst.clear();
                }
            }
            if phase.sends() {
                for s in &mut shares {
                    // Stamped as late as possible: the receive work above, or the share sent
                    // before, is not in the latency (with neither, `now` is still fresh).
                    let now = if worked { tsc() } else { now };
                    worked = true;
                    let side = side_of(s);
                    let sent = s.poll(now, clock.ns(now), &mut ports[side.index()].tx);
                    if sent != 0 {
                        if phase == Phase::Measure {
                            tx.record_traffic(s.direction(), sent, s.frame_len());
                            counters.tx_measured[side.index()] += sent;
                            widen(&mut counters.tx_span, now);
                        } else {
                            counters.tx_warmup[side.index()] += sent;
                        }
                    }
                }
                if phase == Phase::Measure
                    && let Some(p) = &mut probes
                {
                    let now = if worked { tsc() } else { now };
                    counters.tx_probes[Side::N6.index()] +=
                        p.poll(now, clock.ns(now), &mut ports[Side::N6.index()].tx);
                }
                if !sending_done && shares.iter().all(TxShare::done) {
                    sending_done = true;
                    phases.worker_done();
                }
            } else {
                if let Some(p) = &mut probes {
                    counters.tx_probes[Side::N6.index()] +=
                        p.flush(&mut ports[Side::N6.index()].tx);
                }
                for s in &mut shares {
                    let side = side_of(s);
                    let sent = s.flush(&mut ports[side.index()].tx);
                    if sent != 0 {
                        if phase == Phase::Drain && measured_started {
                            tx.record_traffic(s.direction(), sent, s.frame_len());
                            counters.tx_measured[side.index()] += sent;
                            widen(&mut counters.tx_span, now);
                        } else {
                            counters.tx_warmup[side.index()] += sent;
                        }
                    }
                }
            }
            for side in Side::BOTH {
                counters.tx_service[side.index()] +=
                    service.flush(side, &mut ports[side.index()].tx);
            }
            // The counters change every burst; the control thread reads them once a second and
            // asks for the latency interval then: a publication every burst (a seqlock write of
            // every counter) cost more per packet than the latency's recording.
            if now_ns.wrapping_sub(tx_published_ns) >= PUBLISH_NS {
                rx.publish(now_ns);
                tx.set_late_ns(if phase.sends() {
                    lateness(&shares, clock)
                } else {
                    [0; 2]
                });
                tx.publish(now_ns);
                tx_published_ns = now_ns;
            }
        }
        // Offer what is left to the NIC for a while, then give the rest's numbers back.
        let deadline = tsc() + clock.ticks(flush_ns);
        while shares.iter().any(|s| s.unsent() != 0) && tsc() < deadline {
            quiescent.pass();
            for s in &mut shares {
                let side = side_of(s);
                let sent = s.flush(&mut ports[side.index()].tx);
                if sent != 0 {
                    if measured_started {
                        tx.record_traffic(s.direction(), sent, s.frame_len());
                        counters.tx_measured[side.index()] += sent;
                        widen(&mut counters.tx_span, tsc());
                    } else {
                        counters.tx_warmup[side.index()] += sent;
                    }
                }
            }
        }
        for s in &mut shares {
            counters.tx_rewound += s.rewind_unsent();
            counters.tx_pool_empty += s.pool_empty;
            if measured_started {
                s.account(&mut tx);
                let slip = s.slip();
                if slip.count > 0 {
                    counters.tx_slips.push(ShareSlip {
                        stream: s.stream(),
                        count: slip.count,
                        slipped_ns: clock.ticks_to_ns(slip.ticks),
                        max_late_ns: clock.ticks_to_ns(slip.max_ticks),
                    });
                }
            }
        }
        counters.service_seen = service.counters().seen;
        let end = clock.ns(tsc());
        let mut pools: Vec<TemplatePool<'p>> = shares.into_iter().map(TxShare::into_pool).collect();
        if let Some(p) = probes {
            pools.push(p.finish(&mut counters.churn));
        }
        WorkerResult {
            ports,
            rx: rx.finish(end),
            tx: tx.finish(end),
            counters,
            pools,
        }
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

/// Classifies and records one received burst.
#[inline(always)]
fn receive<const N: usize>(
    side: Side,
    burst: &MbufBurst<'_, N>,
    rules: &RxRules,
    mut stats: Option<&mut RxStats>,
    counters: &mut WorkerCounters,
    service: &mut ServicePlane<'_>,
    now_ns: u64,
) {
    for m in burst.iter() {
        let frame = m.data();
        if let Some(kind) =
            receive_frame(side, frame, rules, stats.as_deref_mut(), counters, now_ns)
        {
            counters.rx_service[side.index()] += 1;
            service.handle(side, kind, frame);
        }
    }
}

/// The RX path of one frame, as the worker runs it: classifies `frame` (received on `side` at
/// `now_ns`) and records it in `stats` (`None` outside the measured phases) or counts it;
/// returns what the service plane must answer. The RX benchmark (`benches/rx_path.rs`) measures
/// this function.
#[inline(always)]
pub fn receive_frame(
    side: Side,
    frame: &[u8],
    rules: &RxRules,
    stats: Option<&mut RxStats>,
    counters: &mut WorkerCounters,
    now_ns: u64,
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
            Some(rx) => {
                let arrival = rx.record_transit(
                    flow,
                    sequence,
                    transit_ns(tx_time, now_ns),
                    frame.len() as u32,
                );
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
