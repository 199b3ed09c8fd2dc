//! The committed OpenAPI document against an independent validator: openapi-spec-validator
//! (PyPI, pinned), which checks it against the OpenAPI 3.1 meta-schema it bundles and which
//! `make test` installs into `target/check-jsonschema` (deploy/check-jsonschema-venv.sh). The
//! validator is `$UPFBENCH_OPENAPI_SPEC_VALIDATOR`, else the one in that environment, else
//! `openapi-spec-validator` on the `PATH`; without it the test says so and passes, except
//! under CI (`CI` set), where it fails. It must accept the document and refuse it with one
//! key misspelt, so that a validator that accepts anything does not pass.
#![allow(clippy::print_stdout)]

use std::path::{Path, PathBuf};
use std::process::Command;

use upfbench_api::v1::openapi;

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn validator() -> Result<PathBuf, String> {
    let candidates: Vec<PathBuf> = match std::env::var_os("UPFBENCH_OPENAPI_SPEC_VALIDATOR") {
        Some(p) => vec![p.into()],
        None => vec![
            repo().join("target/check-jsonschema/bin/openapi-spec-validator"),
            "openapi-spec-validator".into(),
        ],
    };
    for candidate in &candidates {
        if Command::new(candidate)
            .arg("--help")
            .output()
            .is_ok_and(|o| o.status.success())
        {
            return Ok(candidate.clone());
        }
    }
    Err(format!("none of {candidates:?} runs"))
}

fn validate(validator: &Path, file: &Path) -> (bool, String) {
    let out = Command::new(validator)
        .arg(file)
        .output()
        .expect("the validator runs");
    let said = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    (out.status.success(), said)
}

#[test]
fn openapi_spec_validator_accepts_the_document_and_refuses_a_broken_one() {
    let validator = match validator() {
        Ok(v) => v,
        Err(why) => {
            assert!(
                std::env::var_os("CI").is_none_or(|v| v.is_empty()),
                "openapi-spec-validator is needed under CI (make test installs it: \
                 deploy/check-jsonschema-venv.sh): {why}"
            );
            println!(
                "SKIPPED: openapi-spec-validator is not available ({why}); install it: bash \
                 deploy/check-jsonschema-venv.sh"
            );
            return;
        }
    };
    let committed = repo().join(openapi::PATH);
    let (ok, said) = validate(&validator, &committed);
    assert!(ok, "{}: {said}", openapi::PATH);
    println!("{}", said.trim());

    let scratch = std::env::temp_dir().join(format!("upfbench-openapi-{}", std::process::id()));
    std::fs::create_dir_all(&scratch).expect("a scratch directory");
    let broken = scratch.join("openapi.json");
    let mut doc = openapi::document();
    let op = doc["paths"]["/v1/status"]["get"]
        .as_object_mut()
        .expect("GET /v1/status");
    let responses = op.remove("responses").expect("its responses");
    op.insert("responsez".to_owned(), responses);
    std::fs::write(&broken, serde_json::to_string_pretty(&doc).unwrap()).unwrap();
    let (ok, said) = validate(&validator, &broken);
    let _ = std::fs::remove_dir_all(&scratch);
    assert!(!ok, "a document without responses was accepted: {said}");
    assert!(said.contains("'responsez' was unexpected"), "{said}");
    println!("{}", said.lines().next().unwrap_or_default());
}
