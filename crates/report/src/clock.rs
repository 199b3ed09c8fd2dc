//! How the run's TSC ticks became seconds: the frequency measured against the kernel's clock,
//! and EAL's estimate beside it, so that a reader can see what a rounded estimate would have
//! cost.

use std::fmt::Write;

use serde::{Deserialize, Serialize};

/// The TSC frequency a run converted its times with.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ClockReport {
    /// TSC ticks per second of the kernel's `CLOCK_MONOTONIC_RAW`, measured from the start of
    /// the process to the end of the last step. Each step converts its pacing and latencies with
    /// the frequency measured at its start (its `tsc_hz`), and its duration and rates with the
    /// one measured at its end.
    pub tsc_hz: f64,
    /// EAL's estimate (`rte_get_tsc_hz`), not used.
    pub dpdk_tsc_hz: u64,
    /// How far EAL's estimate is from `tsc_hz` (parts per million).
    pub dpdk_error_ppm: f64,
    /// The span the frequency was measured over (s).
    pub calibrated_over_s: f64,
    /// A bound of the measurement's own error (parts per million).
    pub uncertainty_ppm: f64,
}

/// One line for the text report.
pub(super) fn clock_line(out: &mut String, c: &ClockReport) {
    let _ = writeln!(
        out,
        "clock: TSC {:.0} Hz against CLOCK_MONOTONIC_RAW over {:.1} s (within {:.3} ppm); \
         DPDK's estimate {} Hz ({:+.1} ppm), not used",
        c.tsc_hz, c.calibrated_over_s, c.uncertainty_ppm, c.dpdk_tsc_hz, c.dpdk_error_ppm
    );
}
