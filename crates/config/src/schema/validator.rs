//! The shipped YAML files against the committed schemas, by an independent validator:
//! check-jsonschema (PyPI), which `make test` installs into `target/check-jsonschema`
//! (deploy/check-jsonschema-venv.sh). It must accept every shipped file (`profiles/*.yaml`,
//! `deploy/systems/*.yaml`, the Python client's `clients/python/examples/profiles/*.yaml`) and a file of each kind with every default written out, and refuse
//! obvious nonsense, which upfbench refuses too. The validator is `$UPFBENCH_CHECK_JSONSCHEMA`,
//! else the one in `target/check-jsonschema`, else `check-jsonschema` on the `PATH`; without
//! it the test says so and passes, except under CI (`CI` set), where it fails.
//!
//! Every shipped file also names its schema on its first line, for editors
//! (`# yaml-language-server: $schema=../schema/profile.schema.json`): that line is checked
//! here without the validator.
#![allow(clippy::print_stdout)]

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

use super::reference::{Step, fields};
use super::tests::{parent_mut, scaffold};
use super::{KINDS, schema, schema_path};
use crate::{FileKind, any_from_str, detect_kind};

fn repo() -> PathBuf {
    let repo = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    repo.canonicalize().unwrap_or(repo)
}

/// The YAML files users get: the profiles and the system and reflector files, with their kinds;
/// and the profiles of the Python client's example (`clients/python/examples/test_upf.py`).
fn shipped() -> Vec<(PathBuf, FileKind)> {
    let mut files = Vec::new();
    for dir in [
        "profiles",
        "deploy/systems",
        "clients/python/examples/profiles",
    ] {
        let entries = std::fs::read_dir(repo().join(dir)).expect("a shipped directory");
        for entry in entries {
            let path = entry.expect("an entry").path();
            if path.extension().is_some_and(|e| e == "yaml") {
                let text = std::fs::read_to_string(&path).expect("readable");
                let kind =
                    detect_kind(&text).unwrap_or_else(|| panic!("{}: of no kind", path.display()));
                files.push((path, kind));
            }
        }
    }
    files.sort_by(|a, b| a.0.cmp(&b.0));
    files
}

/// The line editors read a file's schema from.
const SCHEMA_LINE: &str = "# yaml-language-server: $schema=";

#[test]
fn every_shipped_file_names_its_kind_s_schema_on_its_first_line() {
    let files = shipped();
    for (path, kind) in &files {
        let text = std::fs::read_to_string(path).expect("readable");
        let first = text.lines().next().unwrap_or_default();
        let relative = first.strip_prefix(SCHEMA_LINE).unwrap_or_else(|| {
            panic!(
                "{}: the first line is not `{SCHEMA_LINE}...`",
                path.display()
            )
        });
        let named = path.parent().expect("a directory").join(relative);
        let named = named
            .canonicalize()
            .unwrap_or_else(|e| panic!("{}: {relative}: {e}", path.display()));
        assert_eq!(
            named,
            repo().join(schema_path(*kind)),
            "{}: a {kind} file names another schema",
            path.display()
        );
    }
    println!("{} shipped files name their schema", files.len());
    assert!(files.len() >= 25, "{} shipped files", files.len());
}

/// The validator's command, or why there is none.
fn validator() -> Result<PathBuf, String> {
    let candidates: Vec<PathBuf> = match std::env::var_os("UPFBENCH_CHECK_JSONSCHEMA") {
        Some(p) => vec![p.into()],
        None => vec![
            repo().join("target/check-jsonschema/bin/check-jsonschema"),
            "check-jsonschema".into(),
        ],
    };
    for candidate in &candidates {
        if Command::new(candidate)
            .arg("--version")
            .output()
            .is_ok_and(|o| o.status.success())
        {
            return Ok(candidate.clone());
        }
    }
    Err(format!("none of {candidates:?} runs"))
}

/// Runs the validator on `files` against `kind`'s schema: whether it accepted them all, and
/// what it said.
fn validate(validator: &Path, kind: FileKind, files: &[PathBuf]) -> (bool, String) {
    let out = Command::new(validator)
        .arg("--schemafile")
        .arg(repo().join(schema_path(kind)))
        .args(files)
        .output()
        .expect("the validator runs");
    let said = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    (out.status.success(), said)
}

/// A file of each kind with every default written out (in the scaffold of
/// `tests::scaffold`, whose sections give what their fields need).
fn every_default_written(kind: FileKind) -> Value {
    let schema = schema(kind);
    let mut document = scaffold(kind);
    for row in fields(kind, &schema).rows {
        let (Some(default), Some(Step::Key(key))) = (row.default_value, row.path.last()) else {
            continue;
        };
        if let Ok(parent) = parent_mut(&mut document, &row.path)
            && !parent.contains_key(key)
        {
            parent.insert(key.clone(), default);
        }
    }
    document
}

/// Nonsense of each kind, which the schema refuses at the place (a JSON path) given, and so
/// does upfbench.
const REFUSED: &[(FileKind, &str, &str, &str)] = &[
    (
        FileKind::Profile,
        "bare-gbps",
        "$.streams[0].rate",
        "name: x\nstreams: [{name: a, direction: uplink, rate: 10Gbps, payload: 10}]\n",
    ),
    (
        FileKind::Profile,
        "bare-duration",
        "$.duration",
        "name: x\nstreams: [{name: a, direction: uplink, rate: 1kpps, payload: 10}]\nduration: 10\n",
    ),
    (
        FileKind::Profile,
        "unknown-field",
        "$.sessions",
        "name: x\nsessions: {cuont: 1}\nstreams: [{name: a, direction: uplink, rate: 1kpps, payload: 10}]\n",
    ),
    (
        FileKind::Profile,
        "pool-no-prefix",
        "$.sessions.ue_pool",
        "name: x\nsessions: {ue_pool: 10.45.0.0}\nstreams: [{name: a, direction: uplink, rate: 1kpps, payload: 10}]\n",
    ),
    (
        FileKind::Profile,
        "qfi-64",
        "$.sessions.qfi",
        "name: x\nsessions: {qfi: 64}\nstreams: [{name: a, direction: uplink, rate: 1kpps, payload: 10}]\n",
    ),
    (
        FileKind::Profile,
        "direction",
        "$.streams[0].direction",
        "name: x\nstreams: [{name: a, direction: sideways, rate: 1kpps, payload: 10}]\n",
    ),
    (
        FileKind::Profile,
        "catch-up-no-sign",
        "$.catch_up",
        "name: x\nstreams: [{name: a, direction: uplink, rate: 1kpps, payload: 10}]\ncatch_up: 10\n",
    ),
    (
        FileKind::Profile,
        "teid-zero",
        "$.mobility.target.downlink_teid.first",
        "name: x\nstreams: [{name: a, direction: downlink, rate: 1kpps, payload: 10}]\nmobility: {handovers: {at: 1s}, target: {address: 192.168.13.132, downlink_teid: {first: 0}}}\n",
    ),
    (
        FileKind::Profile,
        "other-kind",
        "$.kind",
        "kind: system\nname: x\nstreams: [{name: a, direction: uplink, rate: 1kpps, payload: 10}]\n",
    ),
    (
        FileKind::System,
        "device-eth0",
        "$.n3.device",
        "n3: {device: eth0, address: 192.168.13.131/24, peer: 192.168.13.151}\nn6: {device: net_null1, address: 192.168.16.152/24, peer: 192.168.16.151}\n",
    ),
    (
        FileKind::System,
        "peer-name",
        "$.n3.peer",
        "n3: {device: net_null0, address: 192.168.13.131/24, peer: upf.local}\nn6: {device: net_null1, address: 192.168.16.152/24, peer: 192.168.16.151}\n",
    ),
    (
        FileKind::System,
        "no-peer",
        "$.n6",
        "n3: {device: net_null0, address: 192.168.13.131/24, peer: 192.168.13.151}\nn6: {device: net_null1, address: 192.168.16.152/24}\n",
    ),
    (
        FileKind::System,
        "devargs",
        "$.n3.devargs",
        "n3: {device: net_null0, devargs: oops, address: 192.168.13.131/24, peer: 192.168.13.151}\nn6: {device: net_null1, address: 192.168.16.152/24, peer: 192.168.16.151}\n",
    ),
    (
        FileKind::System,
        "speed-layer",
        "$.n6.speed",
        "n3: {device: net_null0, address: 192.168.13.131/24, peer: 192.168.13.151}\nn6: {device: net_null1, address: 192.168.16.152/24, peer: 192.168.16.151, speed: 10Gbps L1}\n",
    ),
    (
        FileKind::System,
        "n4-name",
        "$.pfcp.local",
        "n3: {device: net_null0, address: 192.168.13.131/24, peer: 192.168.13.151}\nn6: {device: net_null1, address: 192.168.16.152/24, peer: 192.168.16.151}\npfcp: {local: upf.local}\n",
    ),
    (
        FileKind::System,
        "mac",
        "$.n3.peer_mac",
        "n3: {device: net_null0, address: 192.168.13.131/24, peer: 192.168.13.151, peer_mac: 02:00:00:00:00:zz}\nn6: {device: net_null1, address: 192.168.16.152/24, peer: 192.168.16.151}\n",
    ),
    (
        FileKind::Reflector,
        "mode",
        "$.mode",
        "kind: reflector\nn3: {device: net_null0, address: 192.168.13.151/24}\nn6: {device: net_null1, address: 192.168.16.151/24}\nmode: mirror\n",
    ),
    (
        FileKind::Reflector,
        "rate-cap-bits",
        "$.impairments.rate_cap",
        "kind: reflector\nn3: {device: net_null0, address: 192.168.13.151/24}\nn6: {device: net_null1, address: 192.168.16.151/24}\nmode: {echo: n6}\nimpairments: {rate_cap: 10Gbps L1}\n",
    ),
    (
        FileKind::Reflector,
        "first-teid-zero",
        "$.pfcp.first_teid",
        "kind: reflector\nn3: {device: net_null0, address: 192.168.13.151/24}\nn6: {device: net_null1, address: 192.168.16.151/24, peer: 192.168.16.152}\npfcp: {first_teid: 0}\n",
    ),
    (
        FileKind::Reflector,
        "bare-delay",
        "$.impairments.delay",
        "kind: reflector\nn3: {device: net_null0, address: 192.168.13.151/24}\nn6: {device: net_null1, address: 192.168.16.151/24}\nmode: {echo: n6}\nimpairments: {delay: 100}\n",
    ),
];

#[test]
fn an_independent_validator_accepts_every_shipped_file_and_refuses_nonsense() {
    let validator = match validator() {
        Ok(v) => v,
        Err(why) => {
            assert!(
                std::env::var_os("CI").is_none_or(|v| v.is_empty()),
                "check-jsonschema is needed under CI (make test installs it: \
                 deploy/check-jsonschema-venv.sh): {why}"
            );
            println!(
                "SKIPPED: check-jsonschema is not available ({why}); install it: bash \
                 deploy/check-jsonschema-venv.sh"
            );
            return;
        }
    };
    let scratch = std::env::temp_dir().join(format!("upfbench-schema-{}", std::process::id()));
    std::fs::create_dir_all(&scratch).expect("a scratch directory");

    // Accepted: the shipped files, and every default written out.
    let shipped = shipped();
    let mut accepted = 0;
    for kind in KINDS {
        let mut files: Vec<PathBuf> = shipped
            .iter()
            .filter(|(_, k)| *k == kind)
            .map(|(p, _)| p.clone())
            .collect();
        let defaults = scratch.join(format!("defaults-{kind}.yaml"));
        std::fs::write(&defaults, every_default_written(kind).to_string()).expect("written");
        files.push(defaults);
        let (ok, said) = validate(&validator, kind, &files);
        assert!(ok, "{kind} files refused:\n{said}");
        println!("check-jsonschema accepted {} {kind} files", files.len());
        accepted += files.len();
    }
    assert_eq!(accepted, shipped.len() + KINDS.len());

    // Refused: each case at its place, by the validator and by upfbench.
    for kind in KINDS {
        let cases: Vec<_> = REFUSED.iter().filter(|c| c.0 == kind).collect();
        let mut files = Vec::new();
        for (_, name, _, text) in &cases {
            let path = scratch.join(format!("{kind}-{name}.yaml"));
            std::fs::write(&path, text).expect("written");
            assert!(
                any_from_str(text, name).is_err(),
                "upfbench reads the {kind} case {name}"
            );
            files.push(path);
        }
        let (ok, said) = validate(&validator, kind, &files);
        assert!(!ok, "{kind}: nothing refused:\n{said}");
        for (_, name, place, _) in &cases {
            let expected = format!("{kind}-{name}.yaml::{place}");
            assert!(
                said.lines().any(|l| l.contains(&format!("/{expected}"))),
                "{kind} case {name}: no error at {place}:\n{said}"
            );
        }
        println!(
            "check-jsonschema refused {} {kind} files, each at its place",
            cases.len()
        );
    }
    let _ = std::fs::remove_dir_all(&scratch);
}
