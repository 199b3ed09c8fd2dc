//! When the running step's phases began and its drain ended, on the control thread's clock,
//! and what that makes of its wall time ([`StepWall`]): the interpreter marks them as it sets
//! the workers' phases and watches the packets come in.

use std::time::{Duration, Instant};

use super::program::StepWall;
use upfbench_run::phase::Phase;

/// Why a step's wait after its drain ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum DrainEnd {
    /// Every packet sent was accounted for: received, or lost beyond the reorder window.
    Accounted,
    /// Nothing arrived for the quiet window: what is missing is lost.
    Silence,
}

/// The marks of one step. See the module documentation.
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct PhaseMarks {
    warmup: Option<Instant>,
    settle: Option<Instant>,
    measure: Option<Instant>,
    drain: Option<Instant>,
    /// The packets received so far in the drain, and when that count last moved.
    arrivals: Option<(u64, Instant)>,
    /// Whether the step waits for quiet after its drain.
    pub(super) awaits_quiet: bool,
    /// How and when the wait ended, if the interpreter ended it.
    ended: Option<(DrainEnd, Instant)>,
}

impl PhaseMarks {
    /// The workers were put in `phase` at `at`.
    pub(super) fn phase(&mut self, phase: Phase, at: Instant) {
        let slot = match phase {
            Phase::Warmup => &mut self.warmup,
            Phase::Settle => &mut self.settle,
            Phase::Measure => &mut self.measure,
            Phase::Drain => &mut self.drain,
            Phase::Idle | Phase::Stop => return,
        };
        slot.get_or_insert(at);
    }

    /// In the drain, `received` packets (of any kind) so far at `now`; returns when the count
    /// last moved, the first look counting as a move (the silence is never shorter than
    /// measured).
    pub(super) fn arrivals(&mut self, received: u64, now: Instant) -> Instant {
        match self.arrivals {
            Some((seen, since)) if seen == received => since,
            _ => {
                self.arrivals = Some((received, now));
                now
            }
        }
    }

    /// The wait ended at `at` for `why`.
    pub(super) fn end(&mut self, why: DrainEnd, at: Instant) {
        self.ended = Some((why, at));
    }

    /// Whether the wait for quiet ran to its limit: the step's packets kept coming.
    pub(super) fn quiet_limited(&self) -> bool {
        self.awaits_quiet && self.ended.is_none()
    }

    /// The step's wall time, begun at `began`, prepared at `prepared`, collected from
    /// `collecting` on and handed over `now`.
    pub(super) fn wall(
        &self,
        began: Instant,
        prepared: Instant,
        collecting: Instant,
        now: Instant,
    ) -> StepWall {
        let span = |from: Option<Instant>, to: Instant| {
            from.map_or(Duration::ZERO, |f| to.saturating_duration_since(f))
        };
        let or_collecting =
            |marks: &[Option<Instant>]| marks.iter().find_map(|m| *m).unwrap_or(collecting);
        // The drain's end: when all was accounted for, or the last arrival before the silence;
        // at the quiet limit, or without a wait, the drain lasted to the collection.
        let drained = match self.ended {
            Some((DrainEnd::Accounted, at)) => Some(at),
            Some((DrainEnd::Silence, _)) => self.arrivals.map(|(_, since)| since),
            None => None,
        }
        .map_or(collecting, |at| {
            at.max(self.drain.unwrap_or(at)).min(collecting)
        });
        StepWall {
            total: now.saturating_duration_since(began),
            since_prepared: now.saturating_duration_since(prepared),
            warmup: span(
                self.warmup,
                or_collecting(&[self.settle, self.measure, self.drain]),
            ),
            settle: span(self.settle, or_collecting(&[self.measure, self.drain])),
            traffic: span(self.measure, or_collecting(&[self.drain])),
            drain: span(self.drain, drained),
            quiet: self.drain.map_or(Duration::ZERO, |_| {
                collecting.saturating_duration_since(drained)
            }),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(n: u64) -> Duration {
        Duration::from_millis(n)
    }

    #[test]
    fn a_trial_accounted_for_has_no_quiet() {
        let t0 = Instant::now();
        let mut m = PhaseMarks {
            awaits_quiet: true,
            ..PhaseMarks::default()
        };
        m.phase(Phase::Measure, t0 + ms(5));
        m.phase(Phase::Drain, t0 + ms(1005));
        assert_eq!(m.arrivals(10, t0 + ms(1006)), t0 + ms(1006));
        assert_eq!(m.arrivals(10, t0 + ms(1007)), t0 + ms(1006));
        assert_eq!(m.arrivals(12, t0 + ms(1007)), t0 + ms(1007));
        m.end(DrainEnd::Accounted, t0 + ms(1008));
        let w = m.wall(t0 - ms(20), t0, t0 + ms(1009), t0 + ms(1012));
        assert_eq!(w.total, ms(1032));
        assert_eq!(w.since_prepared, ms(1012));
        assert_eq!((w.warmup, w.settle), (Duration::ZERO, Duration::ZERO));
        assert_eq!(w.traffic, ms(1000));
        assert_eq!((w.drain, w.quiet), (ms(3), ms(1)));
        // Before the measured phase (5 ms), after the drain (1 ms) and the 20 ms before.
        assert_eq!(w.setup(), ms(28));
        assert!(!m.quiet_limited());
    }

    #[test]
    fn a_lossy_trial_drains_to_its_last_arrival_then_waits_for_quiet() {
        let t0 = Instant::now();
        let mut m = PhaseMarks {
            awaits_quiet: true,
            ..PhaseMarks::default()
        };
        m.phase(Phase::Warmup, t0);
        m.phase(Phase::Settle, t0 + ms(100));
        m.phase(Phase::Measure, t0 + ms(150));
        m.phase(Phase::Drain, t0 + ms(1150));
        m.arrivals(1, t0 + ms(1151));
        m.arrivals(2, t0 + ms(1250));
        m.arrivals(2, t0 + ms(1300));
        m.end(DrainEnd::Silence, t0 + ms(1300));
        let w = m.wall(t0, t0, t0 + ms(1301), t0 + ms(1301));
        assert_eq!((w.warmup, w.settle, w.traffic), (ms(100), ms(50), ms(1000)));
        assert_eq!((w.drain, w.quiet), (ms(100), ms(51)));
        assert_eq!(w.setup(), Duration::ZERO);
    }

    #[test]
    fn a_wait_cut_at_its_limit_was_all_drain() {
        let t0 = Instant::now();
        let mut m = PhaseMarks {
            awaits_quiet: true,
            ..PhaseMarks::default()
        };
        m.phase(Phase::Measure, t0);
        m.phase(Phase::Drain, t0 + ms(1000));
        m.arrivals(5, t0 + ms(1500));
        assert!(m.quiet_limited());
        let w = m.wall(t0, t0, t0 + ms(6000), t0 + ms(6000));
        assert_eq!((w.drain, w.quiet), (ms(5000), Duration::ZERO));
    }
}
