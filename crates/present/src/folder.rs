//! A report folder as `upfbench run`, `sweep` and `search` write it: `report.json`, a latency
//! interval log per step, and the page and plots made from them. The names are defined here
//! once, for the writer and for the readers (`upfbench compare`, the tests).

use std::path::{Path, PathBuf};

use upfbench_report::{Report, StepReport};

use crate::error::ReadError;

/// The report's JSON in its folder.
pub const REPORT_JSON: &str = "report.json";

/// The page of a report folder, or of a comparison.
pub const REPORT_HTML: &str = "report.html";

/// The file of a step's latency interval log in its folder: `latency.hlog` for a run,
/// `latency-300B.hlog` for a sweep's step, and the label made a file name for others (a
/// search's latency trials: `latency-300B-both-latency-at-50pct-of-PDR.hlog`).
pub fn hlog_file_name(step: &StepReport) -> String {
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

/// A report read from its folder, with what a page or a comparison needs beside it.
#[derive(Debug, Clone)]
pub struct LoadedReport {
    /// The report.
    pub report: Report,
    /// The folder it was read from.
    pub folder: PathBuf,
    /// Each step's interval log, when the folder has it (by index of the report's steps).
    pub hlogs: Vec<Option<Vec<u8>>>,
}

impl LoadedReport {
    /// What the report is called in a comparison: the system file's `label`, else its
    /// folder's name.
    pub fn label(&self) -> String {
        if let Some(label) = self.report.config.get("label") {
            return label.clone();
        }
        self.folder
            .file_name()
            .map_or_else(|| "report".to_owned(), |n| n.to_string_lossy().into_owned())
    }
}

fn read(path: &Path) -> Result<Vec<u8>, ReadError> {
    std::fs::read(path).map_err(|source| ReadError::Io {
        path: path.to_owned(),
        source,
    })
}

/// Reads a report given as its `report.json` or as the folder holding one, with the steps'
/// interval logs found beside it.
pub fn load(path: &Path) -> Result<LoadedReport, ReadError> {
    let file = if path.is_dir() {
        let file = path.join(REPORT_JSON);
        if !file.is_file() {
            return Err(ReadError::NoReport {
                path: path.to_owned(),
            });
        }
        file
    } else {
        path.to_owned()
    };
    let bytes = read(&file)?;
    let text = String::from_utf8_lossy(&bytes);
    let report = Report::from_json(&text).map_err(|source| ReadError::Report {
        path: file.clone(),
        source,
    })?;
    let folder = file
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .map_or_else(|| PathBuf::from("."), Path::to_owned);
    // The folder's name, not ".", when the path was relative to it.
    let folder = folder.canonicalize().unwrap_or(folder);
    let hlogs = report
        .steps
        .iter()
        .map(|s| std::fs::read(folder.join(hlog_file_name(s))).ok())
        .collect();
    Ok(LoadedReport {
        report,
        folder,
        hlogs,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scratch(name: &str) -> PathBuf {
        let dir =
            std::env::temp_dir().join(format!("upfbench-present-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    #[test]
    fn a_folder_or_its_json_loads_with_the_hlogs_beside_it() {
        let dir = scratch("load").join("2026-11-24T19-00-25Z-quickstart-sweep");
        std::fs::create_dir_all(&dir).unwrap();
        let mut report = Report::new("0.1.0", 0);
        report.steps.push(crate::samples::step(300, 100, 0, 2_000));
        report.steps.push(crate::samples::step(1400, 100, 0, 2_000));
        std::fs::write(dir.join(REPORT_JSON), report.to_json()).unwrap();
        std::fs::write(dir.join("latency-300B.hlog"), b"#log\n").unwrap();
        for path in [dir.clone(), dir.join(REPORT_JSON)] {
            let loaded = load(&path).unwrap();
            assert_eq!(loaded.report, report);
            assert_eq!(loaded.hlogs, [Some(b"#log\n".to_vec()), None]);
            assert_eq!(loaded.label(), "2026-11-24T19-00-25Z-quickstart-sweep");
        }
        report.config.insert("label".into(), "open5gs".into());
        std::fs::write(dir.join(REPORT_JSON), report.to_json()).unwrap();
        assert_eq!(load(&dir).unwrap().label(), "open5gs");
        std::fs::remove_dir_all(dir.parent().unwrap()).unwrap();
    }

    #[test]
    fn an_interval_logs_name_says_whose_it_is() {
        let mut step = crate::samples::step(300, 100, 0, 2_000);
        assert_eq!(hlog_file_name(&step), "latency-300B.hlog");
        step.payload_bytes = None;
        step.label = "run".into();
        assert_eq!(hlog_file_name(&step), "latency.hlog");
        step.payload_bytes = Some(300);
        step.label = "300 B both: latency at 50% of PDR".into();
        assert_eq!(
            hlog_file_name(&step),
            "latency-300B-both-latency-at-50pct-of-PDR.hlog"
        );
    }

    #[test]
    fn what_is_not_a_report_says_so_with_its_path() {
        let dir = scratch("bad");
        let e = load(&dir).unwrap_err().to_string();
        assert!(e.ends_with("no report.json in this folder"), "{e}");
        std::fs::write(dir.join(REPORT_JSON), "{\"schema_version\": 7}").unwrap();
        let e = load(&dir).unwrap_err().to_string();
        assert!(e.contains("report.json: report schema version 7"), "{e}");
        let e = load(&dir.join("missing.json")).unwrap_err().to_string();
        assert!(e.contains("missing.json: "), "{e}");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
