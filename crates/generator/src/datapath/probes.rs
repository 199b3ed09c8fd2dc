//! The churn sessions' probes, as a worker sends its part of them: each session one downlink
//! packet every probe interval from its establishment's request to its deletion's (its life
//! over the interval, rounded up), numbered from 0, on N6. The probes before the UPF installs the session's rules are dropped there;
//! the first that comes back dates its activation ([`super::churn_rx`]).
//!
//! [`ProbeSchedule`] says which probe is due (sans-IO: a min-heap of the live sessions' next
//! ticks, sized once, so nothing is allocated while sending); [`ProbeShare`] fills them from a
//! template pool like a stream's share.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use upfbench_dpdk::{MbufBurst, TemplatePool, TxQueue};
use upfbench_gtpu::PacketTemplate;

use super::churn_rx::ChurnRx;
use super::tx::{BURST_CAPACITY, TxLayout, TxUe};
use upfbench_net::tag::Tag;
use upfbench_run::plan::ChurnPlan;

/// One of a worker's churn sessions.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Local {
    /// Its slot in the plan.
    slot: u32,
    /// Its first probe, from the measured start (ns).
    from_ns: u64,
    /// In this phase (ticks).
    from_tick: u64,
    /// Probes filled so far.
    sent: u32,
}

/// When each of a worker's churn sessions' probes is due.
#[derive(Debug, Clone)]
pub struct ProbeSchedule {
    /// In the order of their requests.
    sessions: Box<[Local]>,
    /// The next one to start.
    next: usize,
    /// The live sessions' next probes: (tick, index into `sessions`).
    due: BinaryHeap<Reverse<(u64, u32)>>,
    interval_ticks: u64,
    interval_ns: u64,
    /// Probes a session gets (its life over the interval): counted, not timed, so that the
    /// ticks' rounding never adds one.
    per_session: u32,
}

impl ProbeSchedule {
    /// The probes of worker `worker` of `workers`: churn sessions `k` with
    /// `k % workers == worker`.
    pub fn new(plan: &ChurnPlan, worker: usize, workers: usize) -> ProbeSchedule {
        let sessions: Box<[Local]> = (0..plan.count)
            .filter(|k| *k as usize % workers.max(1) == worker)
            .map(|k| Local {
                slot: k,
                from_ns: plan.establish_at(k),
                from_tick: u64::MAX,
                sent: 0,
            })
            .collect();
        ProbeSchedule {
            due: BinaryHeap::with_capacity(sessions.len()),
            sessions,
            next: 0,
            interval_ticks: 1,
            interval_ns: plan.probe_interval_ns.max(1),
            per_session: plan.probes_per_session().min(u64::from(u32::MAX)) as u32,
        }
    }

    /// The slots of the worker's sessions, in order.
    pub fn slots(&self) -> impl Iterator<Item = u32> + '_ {
        self.sessions.iter().map(|s| s.slot)
    }

    /// Starts the measured phase at tick `start` of a clock of `hz`.
    pub fn start(&mut self, hz: u64, start: u64) {
        let ticks = |ns: u64| (u128::from(ns) * u128::from(hz) / 1_000_000_000) as u64;
        for s in self.sessions.iter_mut() {
            s.from_tick = start + ticks(s.from_ns);
            s.sent = 0;
        }
        self.interval_ticks = ticks(self.interval_ns).max(1);
        self.next = 0;
        self.due.clear();
    }

    /// The next probe due at tick `now`, if any: its session (an index) and sequence number.
    #[inline]
    pub fn pop(&mut self, now: u64) -> Option<(usize, u32)> {
        while let Some(s) = self.sessions.get(self.next) {
            if s.from_tick > now {
                break;
            }
            self.due.push(Reverse((s.from_tick, self.next as u32)));
            self.next += 1;
        }
        let &Reverse((tick, i)) = self.due.peek()?;
        if tick > now {
            return None;
        }
        self.due.pop();
        let s = &mut self.sessions[i as usize];
        let seq = s.sent;
        s.sent += 1;
        if s.sent < self.per_session {
            self.due.push(Reverse((tick + self.interval_ticks, i)));
        }
        Some((i as usize, seq))
    }

    /// Whether every probe was handed out.
    pub fn done(&self) -> bool {
        self.next == self.sessions.len() && self.due.is_empty()
    }

    /// Writes each session's probes sent into `record`.
    pub fn account(&self, record: &mut ChurnRx) {
        for s in self.sessions.iter() {
            if let Some(r) = record.sessions.get_mut(s.slot as usize) {
                r.sent += s.sent;
            }
        }
    }
}

/// A worker's churn probes: their schedule, their template pool and each session's patch.
pub struct ProbeShare<'e> {
    schedule: ProbeSchedule,
    stream: u16,
    pool: TemplatePool<'e>,
    layout: TxLayout,
    ues: Box<[TxUe]>,
    burst: MbufBurst<'e, BURST_CAPACITY>,
}

impl<'e> ProbeShare<'e> {
    /// Probes of `schedule`'s sessions from `pool` (holding `template`), `ues` in the
    /// schedule's order.
    pub fn new(
        schedule: ProbeSchedule,
        stream: u16,
        pool: TemplatePool<'e>,
        template: &PacketTemplate,
        ues: Box<[TxUe]>,
    ) -> ProbeShare<'e> {
        ProbeShare {
            schedule,
            stream,
            pool,
            layout: TxLayout::of(template),
            ues,
            burst: MbufBurst::new(),
        }
    }

    /// Starts the measured phase at tick `start`.
    pub fn start(&mut self, hz: u64, start: u64) {
        self.schedule.start(hz, start);
    }

    /// Sends the probes due at tick `now` (stamped `now_ns`): first what the NIC refused last
    /// time. Returns how many the NIC took.
    #[inline]
    pub fn poll(&mut self, now: u64, now_ns: u64, txq: &mut TxQueue<'e>) -> u64 {
        let mut sent = self.flush(txq);
        if !self.burst.is_empty() {
            return sent;
        }
        let mut due = [(0usize, 0u32); BURST_CAPACITY];
        let mut n = 0;
        while n < BURST_CAPACITY {
            let Some(p) = self.schedule.pop(now) else {
                break;
            };
            due[n] = p;
            n += 1;
        }
        if n == 0 {
            return sent;
        }
        let (stream, layout, ues) = (self.stream, self.layout, &self.ues);
        let mut k = 0;
        // A pool without free mbufs loses these probes: counted sent, they show as lost.
        let _ = self.pool.alloc_overwriting(&mut self.burst, n, |window| {
            let (i, seq) = due[k];
            k += 1;
            let tag = Tag {
                stream,
                sequence: seq,
                tx_time: now_ns as u32,
            };
            layout.patch(window, &ues[i].patch, &tag);
        });
        sent += self.flush(txq);
        sent
    }

    /// Offers what is left in the burst to the NIC once; returns how many it took.
    pub fn flush(&mut self, txq: &mut TxQueue<'e>) -> u64 {
        if self.burst.is_empty() {
            return 0;
        }
        txq.tx_burst(&mut self.burst) as u64
    }

    /// Writes each session's probes sent into `record`; gives the pool back.
    pub fn finish(mut self, record: &mut ChurnRx) -> TemplatePool<'e> {
        while self.burst.pop().is_some() {}
        self.schedule.account(record);
        self.pool
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;
    use upfbench_config::Churn;

    fn plan() -> ChurnPlan {
        let c = Churn {
            rate: 1000.0,
            lifetime: Duration::from_millis(5),
            modify_rate: 0.0,
            probe_interval: Duration::from_millis(1),
            start: Duration::ZERO,
            baseline: true,
        };
        ChurnPlan::new(&c, Duration::from_millis(20), 4, 1, 8, 20)
    }

    #[test]
    fn each_session_is_probed_every_interval_from_its_request_to_its_deletion() {
        let p = plan();
        assert_eq!(p.count, 15);
        // A 1 GHz clock: ticks are ns. Worker 1 of 2: slots 1, 3, 5, ...
        let mut s = ProbeSchedule::new(&p, 1, 2);
        assert_eq!(s.slots().collect::<Vec<_>>(), [1, 3, 5, 7, 9, 11, 13]);
        s.start(1_000_000_000, 1_000);
        let mut seen: Vec<(u32, u32, u64)> = Vec::new();
        let mut now = 0;
        while !s.done() && now < 30_000_000 {
            while let Some((i, seq)) = s.pop(now) {
                seen.push((s.sessions[i].slot, seq, now));
            }
            now += 100_000;
        }
        assert!(s.done());
        // Every session: probes 0..5 at its request + 0, 1, ..., 4 ms (polled every 0.1 ms).
        for slot in [1u32, 3, 13] {
            let mine: Vec<_> = seen.iter().filter(|x| x.0 == slot).collect();
            assert_eq!(mine.len(), 5, "slot {slot}");
            for (j, &&(_, seq, at)) in mine.iter().enumerate() {
                let due = 1_000 + u64::from(slot) * 1_000_000 + j as u64 * 1_000_000;
                assert_eq!(seq, j as u32);
                assert!(
                    at >= due && at < due + 100_000,
                    "slot {slot} probe {j} at {at}"
                );
            }
        }
        assert_eq!(seen.len(), 35);
        let mut r = ChurnRx::new(15);
        s.account(&mut r);
        assert_eq!((r.sessions[1].sent, r.sessions[2].sent), (5, 0));
    }

    #[test]
    fn a_late_poll_sends_every_probe_that_fell_due() {
        let p = plan();
        let mut s = ProbeSchedule::new(&p, 0, 1);
        s.start(1_000_000_000, 0);
        // Nothing for 3.5 ms: sessions 0..3 started; session 0 owes probes 0..3.
        let mut due = Vec::new();
        while let Some((i, seq)) = s.pop(3_500_000) {
            due.push((s.sessions[i].slot, seq));
        }
        due.sort_unstable();
        assert_eq!(
            due,
            [
                (0, 0),
                (0, 1),
                (0, 2),
                (0, 3),
                (1, 0),
                (1, 1),
                (1, 2),
                (2, 0),
                (2, 1),
                (3, 0)
            ]
        );
    }
}
