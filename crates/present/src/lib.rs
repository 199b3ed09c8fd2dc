//! Renders upfbench's reports for people: the comparison of several reports as the published
//! UPF tables (Markdown, CSV), plots as SVG (latency percentile distributions, a step's
//! per-second timeline, a throughput search's trials and bounds, a comparison's throughput and
//! latency) and one self-contained HTML page per report folder or comparison.
//!
//! It reads what the stats crate's report model holds (`report.json`) and the steps' latency
//! interval logs (`.hlog`); it knows nothing of DPDK and does no IO beyond reading a report
//! folder ([`folder::load`]). Plots are drawn with plotters' SVG backend, whose text is SVG
//! `<text>` the browser lays out: no font file is read.
#![forbid(unsafe_code)]

pub mod compare;
mod distribution;
mod error;
pub mod figures;
pub mod folder;
mod hlog;
pub mod html;
mod plot;
#[cfg(test)]
mod samples;
pub mod write;

pub use error::{PlotError, ReadError, WriteError};
pub use folder::{LoadedReport, load};
