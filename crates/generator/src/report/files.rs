//! The report's files: the run's folder and what goes in it.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
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

/// The report's files in `folder` ([`upfbench_present::write::write_files`]), the timeline as
/// events.jsonl.
pub fn write_files(
    report: &Report,
    hlogs: &[(&StepReport, &Option<Vec<u8>>)],
    timeline: &Timeline,
    folder: &Path,
) -> Result<()> {
    let logs: Vec<(&StepReport, Option<&[u8]>)> =
        hlogs.iter().map(|(s, log)| (*s, log.as_deref())).collect();
    upfbench_present::write::write_files(report, &logs, &timeline.to_jsonl(), folder)?;
    Ok(())
}
