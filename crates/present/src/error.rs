//! What can go wrong reading a report folder or drawing a plot.

use std::path::PathBuf;

use thiserror::Error;

/// A report folder's file that cannot be written.
#[derive(Debug, Error)]
#[error("writing {}: {source}", path.display())]
pub struct WriteError {
    /// The file.
    pub path: PathBuf,
    /// Why it failed.
    pub source: std::io::Error,
}

/// A report, an interval log or a folder that cannot be read.
#[derive(Debug, Error)]
pub enum ReadError {
    /// The file or folder cannot be read.
    #[error("{}: {source}", path.display())]
    Io {
        /// What was read.
        path: PathBuf,
        /// Why it failed.
        source: std::io::Error,
    },
    /// A folder without a `report.json`.
    #[error("{}: no report.json in this folder", path.display())]
    NoReport {
        /// The folder.
        path: PathBuf,
    },
    /// Not a report this build reads.
    #[error("{}: {source}", path.display())]
    Report {
        /// The file.
        path: PathBuf,
        /// Why it is not a report.
        source: upfbench_report::ReportError,
    },
    /// An interval log whose histograms cannot be decoded.
    #[error("latency interval log: {0}")]
    IntervalLog(String),
}

/// A plot that could not be drawn (plotters' own error, as text).
#[derive(Debug, Error)]
#[error("drawing the plot: {0}")]
pub struct PlotError(pub String);

impl<E: std::error::Error + Send + Sync> From<plotters::drawing::DrawingAreaErrorKind<E>>
    for PlotError
{
    fn from(e: plotters::drawing::DrawingAreaErrorKind<E>) -> PlotError {
        PlotError(e.to_string())
    }
}
