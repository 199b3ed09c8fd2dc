//! Everything that turns measurements into the report: the report's frame, each step's
//! section from what its workers measured, the control plane's section, the clock's, and the
//! files written. The report's types and formats are the stats crate's (`upfbench_report`).

mod churn;
mod clock;
mod control;
mod counters;
mod files;
mod gate;
mod handover;
mod qos;
mod step;
mod timeline;
mod tx_slip;

pub use churn::{ChurnInputs, churn_report, direction_loss};
pub use clock::clock_report;
pub use control::{ControlTimes, control_report};
pub use counters::{counter_notes, port_frames, port_report, rejected};
pub use files::{write_files, write_report};
pub use gate::gate_report;
pub use handover::handover_report;
pub use step::{StepMeasurements, step_report};
pub use timeline::{
    Outcome, Procedure, RunEvent, StepFigures, Timeline, UpfChange, run_state, worker_phase,
};
pub use tx_slip::{add_slips, merge_slips, slip_warning};

use std::time::{SystemTime, UNIX_EPOCH};

use upfbench_report::Report;

use upfbench_run::plan::Plan;

/// What a run is called in the report: its profile, its ports, its workers and UEs, its label.
#[derive(Debug, Clone)]
pub(crate) struct RunIdentity<'a> {
    /// The profile's name.
    pub profile: &'a str,
    /// The DPDK names of the N3 and N6 ports (each pair's, joined by `, `).
    pub ports: [String; 2],
    /// Worker lcores.
    pub workers: u16,
    /// UEs (sessions).
    pub ues: u32,
    /// The system file's `label`, if it has one.
    pub label: Option<&'a str>,
}

/// Now, in milliseconds since the Unix epoch (0 if the clock is before it).
pub(crate) fn now_unix_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as u64)
}

/// The report's frame: version, start (`started_unix_ms`, the same moment as the timeline's
/// zero: the events' times are seconds from it), the run's configuration; no step yet.
pub(crate) fn new_report(run: RunIdentity<'_>, started_unix_ms: u64) -> Report {
    let mut report = Report::new(env!("CARGO_PKG_VERSION"), started_unix_ms);
    report
        .config
        .insert("profile".into(), run.profile.to_owned());
    let [n3, n6] = run.ports;
    report.config.insert("n3".into(), n3);
    report.config.insert("n6".into(), n6);
    report
        .config
        .insert("workers".into(), run.workers.to_string());
    report.config.insert("ues".into(), run.ues.to_string());
    if let Some(label) = run.label {
        report.config.insert("label".into(), label.to_owned());
    }
    report
}

/// A step's name in the report and its files: its payload (`300 B`) in a sweep, `run` otherwise.
pub(crate) fn step_label(plan: &Plan) -> String {
    let size = match plan.payload {
        Some(p) => format!("{p} B"),
        None => "run".to_owned(),
    };
    match &plan.churn {
        Some(c) if c.on => format!("{size}, churn"),
        Some(_) => format!("{size}, no churn"),
        None => size,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn identity(label: Option<&str>) -> RunIdentity<'_> {
        RunIdentity {
            profile: "quickstart",
            ports: ["net_memif0".into(), "net_memif1".into()],
            workers: 1,
            ues: 4,
            label,
        }
    }

    #[test]
    fn the_system_files_label_is_carried_into_the_reports_config() {
        let report = new_report(identity(Some("eupf 0.6 xdp")), 1_000);
        assert_eq!(
            report.started_unix_ms, 1_000,
            "the run's timeline starts there too"
        );
        assert_eq!(report.config["label"], "eupf 0.6 xdp");
        assert_eq!(report.config["profile"], "quickstart");
        // No label: none in the report, and a comparison falls back on the folder's name.
        assert!(!new_report(identity(None), 0).config.contains_key("label"));
    }
}
