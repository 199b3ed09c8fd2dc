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
/// report.txt, events.jsonl (the run's timeline) and a latency interval log per step that
/// kept one ([`hlog_name`]).
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
            write(&hlog_name(step), bytes)?;
        }
    }
    Ok(())
}

/// The file of a step's latency interval log: `latency.hlog` for a run, `latency-300B.hlog`
/// for a sweep's step, and the label made a file name for others (a search's latency trials:
/// `latency-300B-both-latency-at-50pct-of-PDR.hlog`).
pub fn hlog_name(step: &StepReport) -> String {
    if !step.label.contains(':') {
        return match step.payload_bytes {
            Some(p) => format!("latency-{p}B.hlog"),
            None => "latency.hlog".to_owned(),
        };
    }
    let text = step.label.replace(" B", "B").replace('%', "pct");
    let mut slug = String::new();
    for c in text.chars() {
        if c.is_ascii_alphanumeric() {
            slug.push(c);
        } else if !slug.ends_with('-') {
            slug.push('-');
        }
    }
    format!("latency-{}.hlog", slug.trim_matches('-'))
}
