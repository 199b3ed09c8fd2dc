//! A report folder written: every file `upfbench run`, `sweep`, `search` and a run over agents
//! leave in it, made from the report, the steps' interval logs and the run's events.

use std::path::Path;

use upfbench_report::{Report, StepReport};

use crate::error::WriteError;
use crate::figures::report_figures;
use crate::folder::{REPORT_HTML, REPORT_JSON, hlog_file_name};
use crate::html::report_page;

/// report.json, report.csv (a row per step and direction), ports.csv, control.csv (with PFCP),
/// report.txt, events.jsonl (`events`, the run's timeline), a latency interval log per step
/// that kept one ([`hlog_file_name`]), the plots as SVG files and report.html, the page that
/// shows the tables and the plots, into `folder`. `hlogs` are the steps' interval logs, in the
/// order of the report's steps.
pub fn write_files(
    report: &Report,
    hlogs: &[(&StepReport, Option<&[u8]>)],
    events: &str,
    folder: &Path,
) -> Result<(), WriteError> {
    let write = |name: &str, bytes: &[u8]| {
        let path = folder.join(name);
        std::fs::write(&path, bytes).map_err(|source| WriteError { path, source })
    };
    write(REPORT_JSON, report.to_json().as_bytes())?;
    write("report.csv", report.to_csv().as_bytes())?;
    write("ports.csv", report.ports_csv().as_bytes())?;
    if report.control.is_some() {
        write("control.csv", report.control_csv().as_bytes())?;
    }
    write("report.txt", report.to_table().as_bytes())?;
    write("events.jsonl", events.as_bytes())?;
    for (step, log) in hlogs {
        if let Some(bytes) = log {
            write(&hlog_file_name(step), bytes)?;
        }
    }
    let logs: Vec<Option<&[u8]>> = hlogs.iter().map(|(_, log)| *log).collect();
    // A plot that cannot be drawn says so on the page; it does not fail the run's report.
    let figures = report_figures(report, &logs);
    for f in &figures {
        if let Ok(svg) = &f.svg {
            write(&f.file_name, svg.as_bytes())?;
        }
    }
    write(REPORT_HTML, report_page(report, &figures).as_bytes())
}
