//! The corpus of bad configuration files: each `config_errors/*.yaml` is rejected with exactly
//! the diagnostics of its `.expect` beside it (file, line, column, field, message).
//!
//! The file's name says how it is read: `profile-*` as a profile, `system-*` as a system file,
//! `reflector-*` as a reflector file, `cluster-*` as a cluster file (run from the crate's
//! directory, so that a token file's path is found), `run-*` as a profile run on `_system.yaml`, `any-*` by its
//! content. `UPDATE_EXPECT=1 cargo test --test config_errors` rewrites the `.expect` files from
//! what the loaders say; review the diff before committing it.

use std::path::{Path, PathBuf};

use upfbench_config::{self as config, ConfigError};

const DIR: &str = "tests/config_errors";

fn cases() -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join(DIR);
    let mut cases: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("corpus directory")
        .map(|e| e.expect("entry").path())
        .filter(|p| {
            p.extension().is_some_and(|e| e == "yaml")
                && !p.file_name().unwrap().to_string_lossy().starts_with('_')
        })
        .collect();
    cases.sort();
    cases
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// What the loaders say about one case.
fn diagnose(path: &Path) -> Result<(), ConfigError> {
    let file = path.file_name().unwrap().to_string_lossy().into_owned();
    let name = format!("{DIR}/{file}");
    let text = read(path);
    let kind = file.split('-').next().unwrap();
    match kind {
        "profile" => config::profile_from_str(&text, &name).map(drop),
        "system" => config::system_from_str(&text, &name).map(drop),
        "reflector" => config::reflector_from_str(&text, &name).map(drop),
        "cluster" => config::cluster_from_str(&text, &name).map(drop),
        "any" => config::any_from_str(&text, &name).map(drop),
        "run" => {
            let system = path.with_file_name("_system.yaml");
            config::run_from_str(&read(&system), "_system.yaml", &text, &name).map(drop)
        }
        other => panic!("{file}: unknown case kind {other:?}"),
    }
}

#[test]
fn every_bad_file_is_rejected_with_its_exact_diagnostics() {
    let update = std::env::var_os("UPDATE_EXPECT").is_some();
    let cases = cases();
    assert!(
        cases.len() >= 30,
        "the corpus shrank: {} cases",
        cases.len()
    );
    let mut failures = Vec::new();
    for case in &cases {
        let expect_path = case.with_extension("expect");
        let got = match diagnose(case) {
            Ok(()) => "accepted\n".to_owned(),
            Err(e) => {
                assert!(
                    matches!(e, ConfigError::Invalid { .. }),
                    "{}: {e}",
                    case.display()
                );
                format!("{e}\n")
            }
        };
        if update {
            std::fs::write(&expect_path, &got).expect("write .expect");
            continue;
        }
        let want = read(&expect_path);
        if got != want {
            failures.push(format!(
                "{}:\n--- expected\n{want}--- got\n{got}",
                case.display()
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn every_expectation_has_its_case() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join(DIR);
    for entry in std::fs::read_dir(&dir).expect("corpus directory") {
        let path = entry.expect("entry").path();
        if path.extension().is_some_and(|e| e == "expect") {
            assert!(
                path.with_extension("yaml").exists(),
                "{} has no case",
                path.display()
            );
        }
    }
}

#[test]
fn every_diagnostic_is_placed_and_names_a_field() {
    for case in cases() {
        let Err(err) = diagnose(&case) else {
            panic!("{} was accepted", case.display());
        };
        for d in err.diagnostics() {
            assert!(d.line >= 1 && d.column >= 1, "{d}");
            // YAML-level errors (syntax, a repeated key) and an unknown kind are about the
            // document, not a field.
            let name = case.file_name().unwrap().to_string_lossy().into_owned();
            let document_level = ["profile-yaml-syntax", "profile-duplicate-key", "any-"]
                .iter()
                .any(|p| name.starts_with(p));
            assert_eq!(d.field.is_empty(), document_level, "{d}");
        }
    }
}
