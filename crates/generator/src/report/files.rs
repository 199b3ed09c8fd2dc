//! The report's files: the run's folder and what goes in it.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use upfbench_present::figures::report_figures;
use upfbench_present::folder::{REPORT_HTML, REPORT_JSON, hlog_file_name};
use upfbench_present::html::report_page;
use upfbench_report::{Report, StepReport};

use super::timeline::Timeline;

/// Creates the run's folder in `dir` and writes the report's files into it; returns the folder.
pub fn write_report(
    report: &Report,
    hlogs: &[(&StepReport, &Option<Vec<u8>>)],
    timeline: &Timeline,
    dir: &Path,
    profile: &str,
    command: &str,
) -> Result<PathBuf> {
    // "2026-11-24T19:00:25Z" → "2026-11-24T19-00-25Z": a name every filesystem takes.
    let stamp = report.started.replace(':', "-");
    let suffix = if command == "run" {
        String::new()
    } else {
        format!("-{command}")
    };
    let folder = dir.join(format!("{stamp}-{profile}{suffix}"));
    std::fs::create_dir_all(&folder)
        .with_context(|| format!("creating the reports folder {}", folder.display()))?;
    write_files(report, hlogs, timeline, &folder)?;
    Ok(folder)
}

/// report.json, report.csv (a row per step and direction), ports.csv, control.csv (with PFCP),
/// report.txt, events.jsonl (the run's timeline), a latency interval log per step that kept
/// one ([`hlog_file_name`]), the plots as SVG files and report.html, the page that shows the
/// tables and the plots. `hlogs` are the steps' interval logs, in the order of the report's
/// steps.
pub fn write_files(
    report: &Report,
    hlogs: &[(&StepReport, &Option<Vec<u8>>)],
    timeline: &Timeline,
    folder: &Path,
) -> Result<()> {
    let write = |name: &str, bytes: &[u8]| {
        std::fs::write(folder.join(name), bytes)
            .with_context(|| format!("writing {}", folder.join(name).display()))
    };
    write(REPORT_JSON, report.to_json().as_bytes())?;
    write("report.csv", report.to_csv().as_bytes())?;
    write("ports.csv", report.ports_csv().as_bytes())?;
    if report.control.is_some() {
        write("control.csv", report.control_csv().as_bytes())?;
    }
    write("report.txt", report.to_table().as_bytes())?;
    write("events.jsonl", timeline.to_jsonl().as_bytes())?;
    for (step, log) in hlogs {
        if let Some(bytes) = log {
            write(&hlog_file_name(step), bytes)?;
        }
    }
    let logs: Vec<Option<&[u8]>> = hlogs.iter().map(|(_, log)| log.as_deref()).collect();
    // A plot that cannot be drawn says so on the page; it does not fail the run's report.
    let figures = report_figures(report, &logs);
    for f in &figures {
        if let Ok(svg) = &f.svg {
            write(&f.file_name, svg.as_bytes())?;
        }
    }
    write(REPORT_HTML, report_page(report, &figures).as_bytes())?;
    Ok(())
}
