//! The phases a run's workers go through, set by the control thread and read by every worker
//! once per loop (one relaxed load): the only thing they share while traffic flows.

use std::sync::atomic::{AtomicU8, AtomicU32, AtomicU64, Ordering};

/// What the workers do now.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum Phase {
    /// Receive and answer the service plane; send nothing.
    Idle = 0,
    /// Send at the profile's rates from the epoch; received packets are counted, not measured.
    Warmup = 1,
    /// Send nothing; let the warm-up traffic drain (counted, not measured).
    Settle = 2,
    /// Send the measured traffic from the epoch; measure what comes back.
    Measure = 3,
    /// Send nothing; keep measuring what still comes back.
    Drain = 4,
    /// Leave the loop and hand the results over.
    Stop = 5,
}

impl Phase {
    fn from_u8(v: u8) -> Phase {
        match v {
            1 => Phase::Warmup,
            2 => Phase::Settle,
            3 => Phase::Measure,
            4 => Phase::Drain,
            5 => Phase::Stop,
            _ => Phase::Idle,
        }
    }

    /// Whether workers send in this phase.
    pub fn sends(self) -> bool {
        matches!(self, Phase::Warmup | Phase::Measure)
    }

    /// Whether received packets are measured in this phase.
    pub fn measures(self) -> bool {
        matches!(self, Phase::Measure | Phase::Drain)
    }
}

/// Where the control thread posts the phase and its epoch, and where the workers read them and
/// say when they have sent everything of a sending phase, and, in the drain, when the ports
/// took everything they still held.
#[derive(Debug)]
pub struct PhaseBoard {
    phase: AtomicU8,
    /// TSC tick at which the sending phase's first packets are due.
    epoch: AtomicU64,
    /// Workers that have sent everything of the current sending phase.
    done: AtomicU32,
    /// Workers whose ports took everything they held in the current drain, their transmit
    /// counters published after it: a count apart from `done`, so that a worker still in the
    /// measured phase when the drain is set cannot count in it.
    drained: AtomicU32,
}

impl Default for PhaseBoard {
    fn default() -> Self {
        Self::new()
    }
}

impl PhaseBoard {
    /// Idle, no epoch.
    pub const fn new() -> PhaseBoard {
        PhaseBoard {
            phase: AtomicU8::new(Phase::Idle as u8),
            epoch: AtomicU64::new(0),
            done: AtomicU32::new(0),
            drained: AtomicU32::new(0),
        }
    }

    /// The current phase.
    #[inline(always)]
    pub fn phase(&self) -> Phase {
        Phase::from_u8(self.phase.load(Ordering::Acquire))
    }

    /// The epoch of the current sending phase (valid once its phase is seen).
    pub fn epoch(&self) -> u64 {
        self.epoch.load(Ordering::Acquire)
    }

    /// Enters `phase`; a sending phase starts at tick `epoch`.
    pub fn set(&self, phase: Phase, epoch: u64) {
        self.epoch.store(epoch, Ordering::Release);
        if phase.sends() {
            self.done.store(0, Ordering::Release);
        }
        if phase == Phase::Drain {
            self.drained.store(0, Ordering::Release);
        }
        self.phase.store(phase as u8, Ordering::Release);
    }

    /// A worker says it has sent everything of the current sending phase.
    pub fn worker_done(&self) {
        self.done.fetch_add(1, Ordering::AcqRel);
    }

    /// Workers done with the current sending phase.
    pub fn workers_done(&self) -> u32 {
        self.done.load(Ordering::Acquire)
    }

    /// A worker in the drain says its ports took every packet it held, and that its transmit
    /// counters as published now are final for the step.
    pub fn worker_drained(&self) {
        self.drained.fetch_add(1, Ordering::AcqRel);
    }

    /// Workers that said so in the current drain.
    pub fn workers_drained(&self) -> u32 {
        self.drained.load(Ordering::Acquire)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn phases_round_trip_and_say_what_they_do() {
        let c = PhaseBoard::new();
        assert_eq!(c.phase(), Phase::Idle);
        for p in [
            Phase::Warmup,
            Phase::Settle,
            Phase::Measure,
            Phase::Drain,
            Phase::Stop,
            Phase::Idle,
        ] {
            c.set(p, 42);
            assert_eq!(c.phase(), p);
        }
        assert!(Phase::Warmup.sends() && Phase::Measure.sends() && !Phase::Drain.sends());
        assert!(Phase::Measure.measures() && Phase::Drain.measures() && !Phase::Warmup.measures());
        c.set(Phase::Measure, 7);
        c.worker_done();
        c.worker_done();
        assert_eq!((c.epoch(), c.workers_done()), (7, 2));
        c.set(Phase::Warmup, 9);
        assert_eq!(c.workers_done(), 0);
        c.set(Phase::Drain, 0);
        c.worker_drained();
        assert_eq!((c.workers_drained(), c.workers_done()), (1, 0));
        c.set(Phase::Drain, 0);
        assert_eq!(c.workers_drained(), 0);
    }
}
