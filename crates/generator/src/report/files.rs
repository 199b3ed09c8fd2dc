//! The report's files: the run's folder and what goes in it.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use upfbench_stats::report::{Report, StepReport};

use super::timeline::Timeline;

/// Creates the run's folder in `dir` and writes the report's files into it; returns the folder.
pub fn write_report(
    report: &Report,
    hlogs: &[(&StepReport, &Option<Vec<u8>>)],
    timeline: &Timeline,
    dir: &Path,
    profile: &str,
    sweep: bool,
) -> Result<PathBuf> {
    // "2026-11-24T19:00:25Z" → "2026-11-24T19-00-25Z": a name every filesystem takes.
    let stamp = report.started.replace(':', "-");
    let folder = dir.join(format!(
        "{stamp}-{profile}{}",
        if sweep { "-sweep" } else { "" }
    ));
    std::fs::create_dir_all(&folder)
        .with_context(|| format!("creating the reports folder {}", folder.display()))?;
    write_files(report, hlogs, timeline, &folder)?;
    Ok(folder)
}

/// report.json, report.csv (a row per step and direction), ports.csv, control.csv (with PFCP),
/// report.txt, events.jsonl (the run's timeline) and a latency interval log per step
/// (`latency.hlog` for a run, `latency-<payload>B.hlog` for a sweep's steps).
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
    write("report.json", report.to_json().as_bytes())?;
    write("report.csv", report.to_csv().as_bytes())?;
    write("ports.csv", report.ports_csv().as_bytes())?;
    if report.control.is_some() {
        write("control.csv", report.control_csv().as_bytes())?;
    }
    write("report.txt", report.to_table().as_bytes())?;
    write("events.jsonl", timeline.to_jsonl().as_bytes())?;
    for (step, log) in hlogs {
        if let Some(bytes) = log {
            let name = match step.payload_bytes {
                Some(p) => format!("latency-{p}B.hlog"),
                None => "latency.hlog".to_owned(),
            };
            write(&name, bytes)?;
        }
    }
    Ok(())
}
