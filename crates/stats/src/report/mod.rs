//! The report: its model (serde, versioned JSON) and its renderings (table, CSV).

mod csv;
mod model;
mod table;
mod time;

pub use csv::{CSV_COLUMNS, render_csv};
pub use model::{
    ControlReport, DirectionReport, LatencyReport, LossReport, PortReport, ProcedureLatency,
    Report, ReportError, SCHEMA_VERSION, StepReport, TOOL_NAME, ThroughputReport, ToolInfo,
};
pub use table::render_table;
pub use time::rfc3339_utc;

impl Report {
    /// The human table (see [`render_table`]).
    pub fn to_table(&self) -> String {
        render_table(self)
    }

    /// CSV with a header row (see [`render_csv`]).
    pub fn to_csv(&self) -> String {
        render_csv(self)
    }
}
