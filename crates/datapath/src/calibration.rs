//! The TSC's frequency, measured against the kernel's clock over the run.
//!
//! EAL's estimate is rounded (to 10 MHz on x86 when the CPU does not say): on a host whose
//! kernel calibrated 2,793.436 MHz, EAL said 2,790 MHz, and every rate came out 0.12 % low and
//! every latency 0.12 % high. Two readings of the TSC and `CLOCK_MONOTONIC_RAW` (the kernel's
//! clock source at its own calibrated rate, never slewed by NTP) give the rate in the kernel's
//! seconds; the further apart, the better: each reading is exact to within its bracket of a few
//! tens of nanoseconds, so a span of 250 ms bounds the error below a part per million. The first
//! reading is taken when the process starts, and a new one at each step's edges.

use upfbench_dpdk::TscAnchor;

/// The shortest span the frequency is taken over: the first step waits for it.
pub const MIN_SPAN_NS: u64 = 250_000_000;

/// The first and the latest [`TscAnchor`] of a process.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TscCalibration {
    first: TscAnchor,
    last: TscAnchor,
}

impl TscCalibration {
    /// A calibration that starts at `first`.
    pub fn new(first: TscAnchor) -> TscCalibration {
        TscCalibration { first, last: first }
    }

    /// Takes `anchor` as the latest reading (one older than the latest is ignored).
    pub fn update(&mut self, anchor: TscAnchor) {
        if anchor.raw_ns > self.last.raw_ns && anchor.tsc > self.last.tsc {
            self.last = anchor;
        }
    }

    /// Kernel nanoseconds between the first and the latest reading.
    pub fn span_ns(&self) -> u64 {
        self.last.raw_ns.saturating_sub(self.first.raw_ns)
    }

    /// How long to wait, after the latest reading, before the span is [`MIN_SPAN_NS`].
    pub(crate) fn wait_ns(&self) -> u64 {
        MIN_SPAN_NS.saturating_sub(self.span_ns())
    }

    /// TSC ticks per kernel second over the span, or `None` while the span is shorter than
    /// [`MIN_SPAN_NS`] (or the TSC did not move forward).
    pub fn hz(&self) -> Option<f64> {
        let span = self.span_ns();
        let ticks = self.last.tsc.checked_sub(self.first.tsc)?;
        (span >= MIN_SPAN_NS && ticks > 0).then(|| ticks as f64 * 1e9 / span as f64)
    }

    /// [`Self::hz`] rounded to a whole number of ticks per second (the resolution of the
    /// conversions that use it is far coarser), or `fallback` (EAL's estimate) without one.
    pub(crate) fn hz_or(&self, fallback: u64) -> u64 {
        self.hz().map_or(fallback, |hz| hz.round() as u64)
    }

    /// A bound of the calibration's own error in parts per million: each reading's TSC is
    /// within half its bracket of the instant the kernel clock was read, and the kernel clock
    /// has a resolution of a nanosecond.
    pub fn uncertainty_ppm(&self) -> Option<f64> {
        let hz = self.hz()?;
        let ticks = (self.first.width + self.last.width) as f64 / 2.0;
        Some((ticks / hz * 1e9 + 2.0) / self.span_ns() as f64 * 1e6)
    }
}

/// Reads the clocks now and returns the TSC frequency measured since the first reading, after
/// sleeping for what the span still lacks of [`MIN_SPAN_NS`]; `fallback` (EAL's estimate)
/// only if the TSC did not move forward.
pub fn measure_now(calibration: &mut TscCalibration, fallback: u64) -> u64 {
    calibration.update(TscAnchor::now());
    let wait = calibration.wait_ns();
    if wait > 0 {
        std::thread::sleep(std::time::Duration::from_nanos(wait));
        calibration.update(TscAnchor::now());
    }
    calibration.hz_or(fallback)
}

/// `(other - reference) / reference` in parts per million.
pub fn ppm(other: f64, reference: f64) -> f64 {
    (other - reference) / reference * 1e6
}

#[cfg(test)]
mod tests {
    use super::*;

    fn anchor(tsc: u64, raw_ns: u64, width: u64) -> TscAnchor {
        TscAnchor { tsc, raw_ns, width }
    }

    #[test]
    fn frequency_is_ticks_per_kernel_second() {
        // The host of the finding: 2,793.436 MHz by the kernel.
        let mut c = TscCalibration::new(anchor(1_000, 5_000_000_000, 60));
        c.update(anchor(1_000 + 2_793_436_000, 6_000_000_000, 60));
        assert_eq!(c.hz(), Some(2_793_436_000.0));
        assert_eq!(c.hz_or(2_790_000_000), 2_793_436_000);
        let dpdk = ppm(2_790_000_000.0, c.hz().unwrap());
        assert!((dpdk + 1230.0).abs() < 1.0, "{dpdk}");
        // A later reading refines it: 2 s at a rate 1 ppm higher.
        c.update(anchor(1_000 + 2 * 2_793_438_793, 7_000_000_000, 40));
        let hz = c.hz().unwrap();
        assert!((ppm(hz, 2_793_436_000.0) - 1.0).abs() < 0.01, "{hz}");
    }

    #[test]
    fn short_spans_give_no_frequency() {
        let mut c = TscCalibration::new(anchor(0, 1_000, 50));
        assert_eq!((c.hz(), c.wait_ns()), (None, MIN_SPAN_NS));
        c.update(anchor(260_000_000, 100_001_000, 50));
        assert_eq!(c.hz(), None);
        assert_eq!(c.wait_ns(), MIN_SPAN_NS - 100_000_000);
        assert_eq!(c.hz_or(2_600_000_000), 2_600_000_000);
        c.update(anchor(650_000_000, 250_001_000, 50));
        assert_eq!(c.wait_ns(), 0);
        assert_eq!(c.hz(), Some(2_600_000_000.0));
    }

    #[test]
    fn stale_or_backward_readings_are_ignored() {
        let mut c = TscCalibration::new(anchor(1_000, 1_000, 50));
        c.update(anchor(2_600_001_000, 1_000_001_000, 50));
        let before = c;
        c.update(anchor(2_600_000_000, 999_000_000, 50));
        assert_eq!(c, before);
        c.update(anchor(500, 2_000_000_000, 50));
        assert_eq!(c, before);
    }

    #[test]
    fn uncertainty_follows_the_brackets_and_the_span() {
        let mut c = TscCalibration::new(anchor(0, 0, 52));
        c.update(anchor(2_600_000_000, 1_000_000_000, 52));
        // 52 ticks at 2.6 GHz is 20 ns; (20 + 2) ns over 1 s.
        let u = c.uncertainty_ppm().unwrap();
        assert!((u - 0.022).abs() < 1e-6, "{u}");
        c.update(anchor(26_000_000_000, 10_000_000_000, 52));
        assert!(c.uncertainty_ppm().unwrap() < u / 9.0);
    }
}
