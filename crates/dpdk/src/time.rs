//! The kernel's clock beside the TSC: what the TSC's frequency is calibrated against.
//!
//! EAL's TSC frequency ([`crate::Eal::tsc_hz`]) is an estimate rounded to 10 MHz on x86 when
//! the CPU does not report it: 0.12 % off on a host whose kernel calibrated 2,793.436 MHz. The
//! kernel's `CLOCK_MONOTONIC_RAW` runs at the rate of its own calibrated clock source, never
//! slewed by NTP: two [`TscAnchor`]s far apart give the TSC's rate in the kernel's seconds.

use crate::tsc;

/// Nanoseconds of the kernel's `CLOCK_MONOTONIC_RAW` (vDSO: no system call on x86_64).
pub fn monotonic_raw_ns() -> u64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `ts` is a valid, writable timespec; CLOCK_MONOTONIC_RAW exists on every Linux
    // since 2.6.28, and clock_gettime writes nothing else.
    let rc = unsafe { libc::clock_gettime(libc::CLOCK_MONOTONIC_RAW, &mut ts) };
    debug_assert_eq!(rc, 0, "clock_gettime(CLOCK_MONOTONIC_RAW)");
    (ts.tv_sec as u64)
        .wrapping_mul(1_000_000_000)
        .wrapping_add(ts.tv_nsec as u64)
}

/// The TSC and `CLOCK_MONOTONIC_RAW` read at one instant, to within `width` TSC ticks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TscAnchor {
    /// The TSC halfway between the two reads that bracket the kernel clock's read.
    pub tsc: u64,
    /// `CLOCK_MONOTONIC_RAW`, in nanoseconds.
    pub raw_ns: u64,
    /// TSC ticks between the two bracketing reads: how far `tsc` may be from the instant
    /// `raw_ns` was read (at most half of it).
    pub width: u64,
}

/// Tries per anchor: the narrowest bracket is kept, so that an interrupt or a preemption
/// between two reads costs a try, not accuracy.
const TRIES: usize = 32;

impl TscAnchor {
    /// Reads both clocks `TRIES` (32) times and keeps the narrowest bracket (a few hundred
    /// nanoseconds of work in all).
    pub fn now() -> TscAnchor {
        let mut best = TscAnchor {
            tsc: 0,
            raw_ns: 0,
            width: u64::MAX,
        };
        for _ in 0..TRIES {
            let before = tsc();
            let raw_ns = monotonic_raw_ns();
            let after = tsc();
            let width = after.wrapping_sub(before);
            if width < best.width {
                best = TscAnchor {
                    tsc: before + width / 2,
                    raw_ns,
                    width,
                };
            }
        }
        best
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::{Duration, Instant};

    #[test]
    fn raw_clock_keeps_the_kernels_seconds_and_the_tsc_moves_with_it() {
        let (a, i) = (TscAnchor::now(), Instant::now());
        std::thread::sleep(Duration::from_millis(200));
        let (b, j) = (TscAnchor::now(), Instant::now());
        let raw = b.raw_ns - a.raw_ns;
        let monotonic = (j - i).as_nanos() as u64;
        // CLOCK_MONOTONIC (Instant) differs from the raw clock by NTP's slewing at most
        // (500 ppm), and by the reads' distance.
        assert!(raw.abs_diff(monotonic) < 200_000, "{raw} vs {monotonic}");
        let hz = (b.tsc - a.tsc) as f64 * 1e9 / raw as f64;
        assert!((1e8..1e10).contains(&hz), "{hz} Hz");
        // A bracket is a few reads of two clocks, not a preemption.
        assert!(a.width < 100_000 && b.width < 100_000, "{a:?} {b:?}");
    }
}
