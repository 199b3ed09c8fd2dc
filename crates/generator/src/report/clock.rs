//! The report's clock section.

use upfbench_report::ClockReport;

use upfbench_datapath::calibration::{TscCalibration, ppm};

/// The report's clock section: the frequency measured over the run, and EAL's beside it.
pub fn clock_report(calibration: &TscCalibration, dpdk_hz: u64) -> Option<ClockReport> {
    let tsc_hz = calibration.hz()?;
    Some(ClockReport {
        tsc_hz,
        dpdk_tsc_hz: dpdk_hz,
        dpdk_error_ppm: ppm(dpdk_hz as f64, tsc_hz),
        calibrated_over_s: calibration.span_ns() as f64 / 1e9,
        uncertainty_ppm: calibration.uncertainty_ppm()?,
    })
}
