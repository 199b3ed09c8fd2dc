//! When a prepared step begins and when a running one stops, as its program says (a
//! coordinator's common start and stop times, docs/scale.md §3), and the epoch its next phase
//! is posted with.

use std::time::{Duration, Instant};

use upfbench_dpdk::tsc;
use upfbench_run::lifecycle::{Event, State};

use super::super::program::StartAt;
use super::super::start_at;
use super::{EPOCH_LEAD, Interpreter};
use crate::datapath::clock::Clock;
use crate::report::RunEvent;

impl Interpreter<'_, '_, '_> {
    /// Begins the held step when the program says: at once, or with its first phase's epoch
    /// at the TSC tick of the time it gives, posted as soon as it is known (the workers start
    /// sending when it comes; the timed phases count from it).
    pub(super) fn poll_start(&mut self) {
        let Some(step) = self.held else { return };
        if self.machine.stopped_early() {
            self.held = None;
            let why = "interrupted before the step's start".to_owned();
            self.machine.handle(Instant::now(), Event::Failed(why));
            return;
        }
        let at_ns = match self.program.start_at(step) {
            StartAt::Wait => return,
            StartAt::Now => {
                self.held = None;
                self.machine.handle(Instant::now(), Event::Prepared);
                return;
            }
            StartAt::Cancel(why) => {
                self.held = None;
                self.machine.handle(Instant::now(), Event::Failed(why));
                return;
            }
            StartAt::At(ns) => ns,
        };
        let clock = self.clock();
        let anchor = start_at::wall_anchor();
        let (epoch, late_ns) = start_at::epoch_of(&clock, anchor, at_ns, EPOCH_LEAD);
        let at = instant_of(&clock, epoch);
        self.epoch = Some(epoch);
        self.held = None;
        self.program.started(step, late_ns);
        self.machine.handle(at, Event::Prepared);
    }

    /// Stops the running step's sending when the program's stop time came: the run ends
    /// after it, as when interrupted.
    pub(super) fn poll_stop(&mut self, now: Instant) {
        if self.stop_asked
            || self.running.is_none()
            || !matches!(
                self.machine.state(),
                State::Warmup | State::Settle | State::Measure
            )
        {
            return;
        }
        let Some(at) = self.program.stop_at(self.machine.step()) else {
            return;
        };
        let wall = start_at::unix_ns();
        if wall >= at {
            self.stop_asked = true;
            self.stop_due = None;
            self.note(now, RunEvent::Interrupt {});
            self.machine.handle(now, Event::Interrupt);
        } else {
            self.stop_due = Some(Instant::now() + Duration::from_nanos(at - wall));
        }
    }

    /// The clock of the running step, or the testbed's before any.
    fn clock(&self) -> Clock {
        self.running.as_ref().map_or_else(
            || Clock::new(self.bed.dpdk_hz, self.bed.clock_start),
            |r| r.clock,
        )
    }

    /// The epoch (TSC tick) the next phase is posted with, and its instant on this clock: a
    /// start time's, when one was given, else `EPOCH_LEAD` from now.
    pub(super) fn next_epoch(&mut self) -> (u64, Instant) {
        let clock = self.clock();
        match self.epoch.take() {
            Some(e) => (e, instant_of(&clock, e)),
            None => (
                tsc() + clock.ticks(EPOCH_LEAD.as_nanos() as u64),
                Instant::now() + EPOCH_LEAD,
            ),
        }
    }
}

/// The instant of TSC tick `tick` on `clock`: as far ahead of now as the tick is.
fn instant_of(clock: &Clock, tick: u64) -> Instant {
    Instant::now() + Duration::from_nanos(clock.ticks_to_ns(tick.saturating_sub(tsc())))
}
