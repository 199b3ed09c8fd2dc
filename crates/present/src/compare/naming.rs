//! What a comparison calls each report: its label (`--label`, or the system file's `label`),
//! or else the shortest part of its folder's path that tells it from the others':
//! `open5gs-1/sweep` and `eupf-maps32768-1/sweep` are `open5gs-1` and `eupf-maps32768-1`, not
//! `sweep` and `sweep (2)`.

use std::path::{Component, Path};

use super::distinct_labels;

/// A report to name: its label, if it has one, and the folder it was read from.
#[derive(Debug, Clone, Copy)]
pub struct Named<'a> {
    /// The run's label.
    pub label: Option<&'a str>,
    /// Its folder.
    pub folder: &'a Path,
}

/// The names of `reports`' column groups, in order, no two alike.
///
/// - A report with a label is called by it; two reports with one label are told apart by their
///   folders: `open5gs (run-1)`, `open5gs (run-2)`.
/// - A report without one is called by the part of its folder's path that differs from the
///   others': what is left when the parts all of them share at the start and at the end are
///   taken away (widened with the shared end when that leaves one empty). One report alone is
///   called by its folder's name.
/// - What is still alike (the same folder twice) is numbered: `sweep`, `sweep (2)`.
pub fn report_names(reports: &[Named<'_>]) -> Vec<String> {
    let folders: Vec<&Path> = reports.iter().map(|r| r.folder).collect();
    let by_path = path_names(&folders);
    let names: Vec<String> = reports
        .iter()
        .zip(&by_path)
        .map(|(r, path)| match r.label {
            None => path.clone(),
            Some(label) => {
                let same: Vec<&String> = reports
                    .iter()
                    .zip(&by_path)
                    .filter(|(o, _)| o.label == Some(label))
                    .map(|(_, p)| p)
                    .collect();
                let apart = same.iter().enumerate().all(|(i, a)| !same[..i].contains(a));
                if same.len() > 1 && apart {
                    format!("{label} ({path})")
                } else {
                    label.to_owned()
                }
            }
        })
        .collect();
    distinct_labels(&names)
}

/// The parts of a path: its names (`..` kept), the root and `.` left out.
fn parts(path: &Path) -> Vec<String> {
    path.components()
        .filter_map(|c| match c {
            Component::Normal(n) => Some(n.to_string_lossy().into_owned()),
            Component::ParentDir => Some("..".to_owned()),
            Component::RootDir | Component::CurDir | Component::Prefix(_) => None,
        })
        .collect()
}

/// A folder's own name, or `report` for one without (`/`).
fn base_name(parts: &[String]) -> String {
    parts.last().cloned().unwrap_or_else(|| "report".to_owned())
}

/// Each folder by the part of its path the others do not share (see [`report_names`]).
fn path_names(folders: &[&Path]) -> Vec<String> {
    let parts: Vec<Vec<String>> = folders.iter().map(|f| parts(f)).collect();
    let bases = || parts.iter().map(|p| base_name(p)).collect();
    if parts.len() < 2 {
        return bases();
    }
    let shortest = parts.iter().map(Vec::len).min().unwrap_or(0);
    let all_equal = |at: &dyn Fn(&Vec<String>) -> &String| {
        let first = at(&parts[0]);
        parts.iter().all(|p| at(p) == first)
    };
    let mut prefix = 0;
    while prefix < shortest && all_equal(&|p| &p[prefix]) {
        prefix += 1;
    }
    let mut suffix = 0;
    while suffix < shortest - prefix && all_equal(&|p| &p[p.len() - 1 - suffix]) {
        suffix += 1;
    }
    for widen in 0..=suffix {
        let names: Vec<String> = parts
            .iter()
            .map(|p| p[prefix..p.len() - suffix + widen].join("/"))
            .collect();
        let distinct = names
            .iter()
            .enumerate()
            .all(|(i, n)| !names[..i].contains(n));
        if distinct && names.iter().all(|n| !n.is_empty()) {
            return names;
        }
    }
    bases()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(reports: &[(Option<&str>, &str)]) -> Vec<String> {
        let named: Vec<Named<'_>> = reports
            .iter()
            .map(|&(label, folder)| Named {
                label,
                folder: Path::new(folder),
            })
            .collect();
        report_names(&named)
    }

    #[test]
    fn the_same_folder_name_under_different_runs_is_told_by_its_run() {
        assert_eq!(
            names(&[
                (None, "/r/docs/results/2026-11-25-real-upfs/open5gs-1/sweep"),
                (
                    None,
                    "/r/docs/results/2026-11-25-real-upfs/eupf-maps32768-1/sweep"
                ),
            ]),
            ["open5gs-1", "eupf-maps32768-1"]
        );
        // Three, and a timestamped folder: only what differs.
        assert_eq!(
            names(&[
                (None, "/r/x/open5gs-1/sweep"),
                (None, "/r/x/open5gs-2/sweep"),
                (None, "/r/x/eupf/sweep"),
            ]),
            ["open5gs-1", "open5gs-2", "eupf"]
        );
        assert_eq!(
            names(&[
                (None, "reports/2026-11-25T10-00-00Z-quickstart-sweep"),
                (None, "reports/2026-11-25T11-30-00Z-quickstart-sweep"),
            ]),
            [
                "2026-11-25T10-00-00Z-quickstart-sweep",
                "2026-11-25T11-30-00Z-quickstart-sweep"
            ]
        );
    }

    #[test]
    fn nested_folders_that_differ_keep_every_part_that_differs() {
        assert_eq!(
            names(&[
                (None, "/lab/eupf/maps-32768/run/sweep"),
                (None, "/lab/open5gs/default/run/sweep"),
            ]),
            ["eupf/maps-32768", "open5gs/default"]
        );
        // One deeper than the other: the shared end widens the empty one's.
        assert_eq!(
            names(&[(None, "/lab/sweep"), (None, "/lab/b/c/sweep")]),
            ["sweep", "b/c/sweep"]
        );
        assert_eq!(
            names(&[(None, "/lab/a/sweep"), (None, "/lab/a/b/sweep")]),
            ["sweep", "b/sweep"]
        );
    }

    #[test]
    fn one_report_or_the_same_folder_twice_is_called_by_its_folder() {
        assert_eq!(names(&[(None, "/r/open5gs-1/sweep")]), ["sweep"]);
        assert_eq!(
            names(&[(None, "/r/open5gs-1/sweep"), (None, "/r/open5gs-1/sweep")]),
            ["sweep", "sweep (2)"]
        );
        assert_eq!(names(&[(None, "/"), (None, "/")]), ["report", "report (2)"]);
    }

    #[test]
    fn labels_name_their_reports_and_clashing_ones_say_their_folder() {
        assert_eq!(
            names(&[
                (Some("open5gs 2.7"), "/r/a/sweep"),
                (None, "/r/b/sweep"),
                (Some("eupf"), "/r/c/sweep"),
            ]),
            ["open5gs 2.7", "b", "eupf"]
        );
        assert_eq!(
            names(&[
                (Some("open5gs"), "/r/run-1/sweep"),
                (Some("open5gs"), "/r/run-2/sweep"),
                (Some("eupf"), "/r/run-3/sweep"),
            ]),
            ["open5gs (run-1)", "open5gs (run-2)", "eupf"]
        );
        // The same report twice, or a label that is another's folder: numbered.
        assert_eq!(
            names(&[(Some("open5gs"), "/r/s"), (Some("open5gs"), "/r/s")]),
            ["open5gs", "open5gs (2)"]
        );
        assert_eq!(
            names(&[(Some("b"), "/r/a/sweep"), (None, "/r/b/sweep")]),
            ["b", "b (2)"]
        );
    }
}
