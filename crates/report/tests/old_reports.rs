//! Every report kept in the repository (the results in `docs/results`, the present crate's
//! fixtures), whatever schema wrote it, still loads: a comparison of last year's runs works.

use std::path::{Path, PathBuf};

use upfbench_report::{Report, SCHEMA_VERSION};

fn reports(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let path = e.path();
        if path.is_dir() {
            reports(&path, out);
        } else if path.file_name().is_some_and(|n| n == "report.json") {
            out.push(path);
        }
    }
}

#[test]
fn every_kept_report_loads_as_this_schema() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let mut found = Vec::new();
    reports(&root.join("docs/results"), &mut found);
    reports(&root.join("crates/present/tests/fixtures"), &mut found);
    assert!(found.len() >= 20, "{found:?}");
    for path in &found {
        let text = std::fs::read_to_string(path).unwrap();
        let r = Report::from_json(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        assert_eq!(r.schema_version, SCHEMA_VERSION);
        // No trial's latency was lost on the way (schema 1's are completed from their step).
        let v: serde_json::Value = serde_json::from_str(&text).unwrap();
        let before: usize = v["search"]["cases"]
            .as_array()
            .into_iter()
            .flatten()
            .flat_map(|c| c["trials"].as_array().into_iter().flatten())
            .map(|t| t["latency"].as_array().map_or(0, Vec::len))
            .sum();
        let after: usize = r
            .search
            .iter()
            .flat_map(|s| &s.cases)
            .flat_map(|c| &c.trials)
            .map(|t| t.latency.len())
            .sum();
        assert_eq!(before, after, "{}", path.display());
        // Written again and read back, nothing changes.
        assert_eq!(
            Report::from_json(&r.to_json()).unwrap(),
            r,
            "{}",
            path.display()
        );
    }
}
