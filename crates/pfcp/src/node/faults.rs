//! A UPF that fails on purpose, to test how a CP function copes: N4 datagrams lost (a seeded
//! share, both ways), delayed and reordered on their way in, a UPF that goes silent (answers
//! nothing, heartbeats included) after a time, and a restart at a time. Sans-IO like the node it
//! wraps: the driver feeds it as it would feed the [`Upf`].

use core::net::SocketAddr;
use core::time::Duration;
use std::collections::VecDeque;
use std::time::Instant;

use super::Transmit;
use super::upf::{Upf, UpfEvent};
use crate::ie::NtpTimestamp;

/// The faults to put in; all off by default.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct N4Faults {
    /// The share of datagrams lost, each way, each datagram on its own (0 to 1).
    pub drop: f64,
    /// Every incoming datagram is held this long before the UPF reads it.
    pub delay: Duration,
    /// The share of incoming datagrams held `reorder_by` longer than the others (0 to 1), so
    /// that later ones overtake them.
    pub reorder: f64,
    /// How much longer a reordered datagram is held.
    pub reorder_by: Duration,
    /// From this long after the start on, nothing is read and nothing is sent.
    pub silent_after: Option<Duration>,
    /// The silence ends after this long (`None`: it lasts).
    pub silent_for: Option<Duration>,
    /// This long after the start, the UPF restarts ([`Upf::restart`]).
    pub restart_at: Option<Duration>,
    /// The seed of the losses and reorderings: the same seed, the same choices.
    pub seed: u64,
}

impl N4Faults {
    /// Whether any fault is set.
    pub fn is_active(&self) -> bool {
        self.drop > 0.0
            || !self.delay.is_zero()
            || self.reorder > 0.0
            || self.silent_after.is_some()
            || self.restart_at.is_some()
    }
}

/// What the faults did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct FaultCounters {
    /// Incoming datagrams lost.
    pub dropped_in: u64,
    /// Outgoing datagrams lost.
    pub dropped_out: u64,
    /// Incoming datagrams held back behind later ones.
    pub reordered: u64,
    /// Datagrams neither read nor sent because the UPF was silent.
    pub silenced: u64,
    /// Restarts.
    pub restarts: u64,
}

/// A [`Upf`] behind the faults of an [`N4Faults`].
#[derive(Debug)]
pub struct FaultyUpf {
    upf: Upf,
    faults: N4Faults,
    started: Instant,
    /// The latest time the caller gave.
    now: Instant,
    rng: u64,
    /// Incoming datagrams held, in the order they are due.
    held: VecDeque<(Instant, SocketAddr, Vec<u8>)>,
    restart_pending: bool,
    counters: FaultCounters,
}

impl FaultyUpf {
    /// `upf` behind `faults`, whose times count from `now`.
    pub fn new(upf: Upf, faults: N4Faults, now: Instant) -> Self {
        FaultyUpf {
            upf,
            restart_pending: faults.restart_at.is_some(),
            // SplitMix64 must not start at 0 for xorshift-like streams; any odd constant works.
            rng: faults.seed ^ 0x9e37_79b9_7f4a_7c15,
            faults,
            started: now,
            now,
            held: VecDeque::new(),
            counters: FaultCounters::default(),
        }
    }

    /// The UPF.
    pub fn upf(&self) -> &Upf {
        &self.upf
    }

    /// What the faults did so far.
    pub fn counters(&self) -> FaultCounters {
        self.counters
    }

    /// Restarts the UPF now with `recovery_time_stamp` (see [`Upf::restart`]); what was held
    /// on its way in is lost with it.
    pub fn restart(&mut self, recovery_time_stamp: NtpTimestamp) -> usize {
        self.held.clear();
        self.counters.restarts += 1;
        self.upf.restart(recovery_time_stamp)
    }

    fn silent(&mut self, now: Instant) -> bool {
        self.now = self.now.max(now);
        let elapsed = now.saturating_duration_since(self.started);
        self.faults
            .silent_after
            .is_some_and(|t| elapsed >= t && self.faults.silent_for.is_none_or(|d| elapsed < t + d))
    }

    /// A uniform draw in [0, 1) (SplitMix64).
    fn draw(&mut self) -> f64 {
        self.rng = self.rng.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.rng;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^= z >> 31;
        (z >> 11) as f64 / (1u64 << 53) as f64
    }

    fn lost(&mut self, share: f64) -> bool {
        share > 0.0 && self.draw() < share
    }

    /// Feeds a datagram received from `remote`, through the faults.
    pub fn handle_datagram(&mut self, now: Instant, remote: SocketAddr, bytes: &[u8]) {
        if self.silent(now) {
            self.counters.silenced += 1;
            return;
        }
        if self.lost(self.faults.drop) {
            self.counters.dropped_in += 1;
            return;
        }
        let mut hold = self.faults.delay;
        if self.lost(self.faults.reorder) {
            self.counters.reordered += 1;
            hold += self.faults.reorder_by;
        }
        if hold.is_zero() && self.held.is_empty() {
            return self.upf.handle_datagram(now, remote, bytes);
        }
        let due = now + hold;
        let at = self.held.partition_point(|(t, _, _)| *t <= due);
        self.held.insert(at, (due, remote, bytes.to_vec()));
        self.release(now);
    }

    /// Hands the UPF the held datagrams that are due.
    fn release(&mut self, now: Instant) {
        while self.held.front().is_some_and(|(t, _, _)| *t <= now) {
            if let Some((_, remote, bytes)) = self.held.pop_front() {
                self.upf.handle_datagram(now, remote, &bytes);
            }
        }
    }

    /// Runs what is due: the restart, the held datagrams, the UPF's timers.
    pub fn handle_timeout(&mut self, now: Instant) {
        self.now = self.now.max(now);
        if self.restart_pending
            && let Some(t) = self.faults.restart_at
            && now.saturating_duration_since(self.started) >= t
        {
            self.restart_pending = false;
            // One second after the old stamp: a sans-IO node has no wall clock.
            let ts = self.upf.config().node.recovery_time_stamp;
            self.restart(NtpTimestamp(ts.0.wrapping_add(1)));
        }
        self.release(now);
        if self.upf.poll_timeout().is_some_and(|t| t <= now) {
            self.upf.handle_timeout(now);
        }
    }

    /// The next datagram to send, through the faults (silent from the latest time given).
    pub fn poll_transmit(&mut self) -> Option<Transmit> {
        let now = self.now;
        loop {
            let t = self.upf.poll_transmit()?;
            if self.silent(now) {
                self.counters.silenced += 1;
            } else if self.lost(self.faults.drop) {
                self.counters.dropped_out += 1;
            } else {
                return Some(t);
            }
        }
    }

    /// When [`Self::handle_timeout`] is to be called next.
    pub fn poll_timeout(&mut self) -> Option<Instant> {
        let restart = self
            .restart_pending
            .then(|| self.faults.restart_at.map(|t| self.started + t))
            .flatten();
        [
            self.upf.poll_timeout(),
            self.held.front().map(|(t, _, _)| *t),
            restart,
        ]
        .into_iter()
        .flatten()
        .min()
    }

    /// The next event of the UPF.
    pub fn poll_event(&mut self) -> Option<UpfEvent> {
        self.upf.poll_event()
    }
}

#[cfg(test)]
mod tests;
