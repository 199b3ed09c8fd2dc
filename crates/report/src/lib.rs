//! The report: its model (serde, versioned JSON) and its renderings (table, CSV).

mod agents;
mod capacity;
mod churn;
mod clock;
mod csv;
mod direction_table;
pub mod events;
mod frames;
mod handover;
mod migrate;
mod model;
mod multiplier;
mod pairs;
mod percentiles;
mod port;
pub mod qos;
pub mod qos_gate;
pub mod qos_qfi;
mod queues;
mod rejected;
mod rows;
mod search;
mod search_table;
mod seconds;
mod slip;
mod stream_shape;
mod summary;
mod table;
mod time;
mod upf_faults;

pub use agents::{
    AgentEnd, AgentSection, AgentStep, Incomplete, LostAgent, StepCount, agents_table,
};
pub use capacity::{CapacityBatch, CapacityRefusal, CapacityReport};
pub use churn::{
    Activation, Baseline, ChurnReport, ChurnSecond, ChurnSession, DirectionLoss, ProcedureFigures,
};
pub use clock::ClockReport;
pub use csv::{
    CONTROL_CSV_COLUMNS, CSV_COLUMNS, PORTS_CSV_COLUMNS, render_control_csv, render_csv,
    render_ports_csv,
};
pub use frames::PortFrames;
pub use handover::{EndMarkerVerdict, HandoverReport, UeHandover};
pub use model::{
    ControlReport, DirectionReport, LatencyReport, LossReport, Release, Report, ReportError,
    SCHEMA_VERSION, StepReport, StreamSummary, TOOL_NAME, ThroughputReport, ToolInfo,
};
pub use multiplier::{MultipliedStep, MultiplierReport};
pub use pairs::{PairSection, StepFigures};
pub use percentiles::{Nanos, Percentiles};
pub use port::{KernelInterface, PortReport};
pub use qos::{QerVerdict, QosFlowReport, QosFlowSpec, QosReport};
pub use qos_gate::GateReport;
pub use qos_qfi::QfiFigures;
pub use queues::{LOPSIDED_SHARE, RxQueues};
pub use rejected::{RejectKind, Rejected};
pub use search::{
    GoalResult, GoalSpec, GoalStatus, LatencyBoundSpec, LoadLatency, SearchCase, SearchDirections,
    SearchReport, TrialLatency, TrialRecord, TrialWall,
};
pub use seconds::{SecondDirection, StepPhase, StepSecond};
pub use slip::TxSlip;
pub use stream_shape::{Family, FrameSize};
pub use upfbench_pfcp::ie::Cause;

pub use direction_table::{direction_table, direction_title};
pub use rows::{Align, Cell, Column, Table};
pub use table::render_table;
pub use time::rfc3339_utc;
pub use upf_faults::{FaultLoss, UpfAction, UpfFault, UpfFaultKind};

impl Report {
    /// The human table (see [`render_table`]).
    pub fn to_table(&self) -> String {
        render_table(self)
    }

    /// CSV with a header row (see [`render_csv`]).
    pub fn to_csv(&self) -> String {
        render_csv(self)
    }

    /// The port counters as CSV (see [`render_ports_csv`]).
    pub fn ports_csv(&self) -> String {
        render_ports_csv(self)
    }

    /// The control plane's figures as CSV (see [`render_control_csv`]).
    pub fn control_csv(&self) -> String {
        render_control_csv(self)
    }
}
