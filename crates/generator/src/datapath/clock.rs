//! The run clock: nanoseconds since the start of the run, from the TSC.
//!
//! TX stamps and RX timestamps come from the same process and the same TSC, so one-way latency
//! needs no clock synchronisation. Converting a TSC reading costs one 128-bit multiply and a
//! shift (the factor is fixed at start, in 32.32 fixed point).

/// Converts TSC ticks to nanoseconds since a start tick.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Clock {
    start: u64,
    hz: u64,
    /// Nanoseconds per tick times 2^32.
    ns_per_tick: u64,
}

impl Clock {
    /// A clock for a TSC of `hz` ticks per second, reading 0 at tick `start`.
    pub fn new(hz: u64, start: u64) -> Clock {
        let hz = hz.max(1);
        Clock {
            start,
            hz,
            ns_per_tick: ((1_000_000_000u128 << 32) / u128::from(hz)) as u64,
        }
    }

    /// Ticks per second.
    pub fn hz(&self) -> u64 {
        self.hz
    }

    /// The tick at which the clock reads 0.
    pub fn start(&self) -> u64 {
        self.start
    }

    /// Nanoseconds at tick `tsc` (0 before the start).
    #[inline(always)]
    pub fn ns(&self, tsc: u64) -> u64 {
        ((u128::from(tsc.saturating_sub(self.start)) * u128::from(self.ns_per_tick)) >> 32) as u64
    }

    /// Nanoseconds in `ticks` TSC ticks.
    pub(crate) fn ticks_to_ns(&self, ticks: u64) -> u64 {
        ((u128::from(ticks) * u128::from(self.ns_per_tick)) >> 32) as u64
    }

    /// Ticks in `ns` nanoseconds.
    pub fn ticks(&self, ns: u64) -> u64 {
        (u128::from(ns) * u128::from(self.hz) / 1_000_000_000) as u64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ticks_convert_to_nanoseconds() {
        let c = Clock::new(2_450_000_000, 1000);
        assert_eq!(c.ns(1000), 0);
        assert_eq!(c.ns(500), 0);
        assert_eq!(c.ns(1000 + 2_450_000_000), 1_000_000_000 - 1);
        assert_eq!(c.ticks(1_000_000_000), 2_450_000_000);
        // An hour of ticks stays within a nanosecond per second of error.
        let hour = c.ns(1000 + 3600 * 2_450_000_000);
        assert!(hour.abs_diff(3_600_000_000_000) < 3600, "{hour}");
    }
}
