//! The command line's own input, refused before EAL starts, and the log lines as a file or a
//! pipe receives them. No port, no UPF: every case here ends before the first port exists.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// `upfbench ARGS` from the repository's root, its standard error a pipe; `NO_COLOR` unset so
/// that only the pipe can turn colour off.
fn upfbench(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_upfbench"))
        .current_dir(repo())
        .args(args)
        .env_remove("NO_COLOR")
        .output()
        .expect("run upfbench")
}

fn stderr(out: &Output) -> String {
    String::from_utf8(out.stderr.clone()).expect("UTF-8")
}

/// Fails with the diagnostics, and never reached EAL (which would print `EAL:` lines and wait
/// for the memif peer).
fn refused_up_front(out: &Output) -> Vec<String> {
    let err = stderr(out);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(!err.contains("EAL"), "EAL was started: {err}");
    err.lines()
        .filter_map(|l| l.split_once("command line: ").map(|(_, d)| d.to_owned()))
        .collect()
}

#[test]
fn sweep_payloads_get_the_checks_of_the_profiles() {
    let out = upfbench(&[
        "sweep",
        "deploy/systems/memif.yaml",
        "profiles/quickstart.yaml",
        "--payloads",
        "5,300,300,1473",
    ]);
    assert_eq!(
        refused_up_front(&out),
        [
            "--payloads[0]: 5 bytes cannot hold the 10-byte measurement tag: use at least 10",
            "--payloads[2]: 300 is listed twice",
            "--payloads[3]: 1473 bytes make an inner packet over the 1500-byte MTU: use at \
             most 1472",
        ]
    );
}

#[test]
fn sweep_payloads_must_fit_the_ports_mtu() {
    // The memif default with a 1400-byte MTU on N3: 1360 bytes of payload make a 1424-byte
    // G-PDU (IPv4 20 + UDP 8 + GTP-U 8 + PDU Session Container 8 + inner IPv4 and UDP 28).
    let dir = std::env::temp_dir().join(format!("upfbench-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let system = dir.join("system.yaml");
    let text = std::fs::read_to_string(repo().join("deploy/systems/memif.yaml")).unwrap();
    let text = text.replace(
        "  address: 192.168.13.131/24\n",
        "  address: 192.168.13.131/24\n  mtu: 1400\n",
    );
    assert!(text.contains("mtu: 1400"));
    std::fs::write(&system, text).unwrap();
    let out = upfbench(&[
        "sweep",
        system.to_str().unwrap(),
        "profiles/quickstart.yaml",
        "--payloads",
        "300,1360",
    ]);
    let found = refused_up_front(&out);
    std::fs::remove_dir_all(&dir).unwrap();
    assert_eq!(found.len(), 1, "{found:?}");
    assert!(
        found[0].starts_with("--payloads[1]: 1360 bytes make ") && found[0].contains("n3.mtu"),
        "{found:?}"
    );
}

#[test]
fn payloads_are_an_option_of_sweep_only() {
    let out = upfbench(&[
        "run",
        "deploy/systems/memif.yaml",
        "profiles/quickstart.yaml",
        "--payloads",
        "300",
    ]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(stderr(&out).contains("unexpected argument '--payloads'"));
}

#[test]
fn log_lines_have_no_colour_codes_in_a_pipe() {
    let out = upfbench(&["run", "deploy/systems/memif.yaml", "no/such/profile.yaml"]);
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains("ERROR"), "{err}");
    assert!(err.contains("no/such/profile.yaml: cannot read"), "{err}");
    assert!(!err.contains('\u{1b}'), "escape codes in a pipe: {err:?}");
}

#[test]
fn a_multiplier_is_checked_at_every_step_before_eal() {
    let quickstart = ["deploy/systems/memif.yaml", "profiles/quickstart.yaml"];
    // 100 kpps each way times 20000: 2 Gpps a stream.
    let out = upfbench(&[&["run"][..], &quickstart, &["-m", "20000x"]].concat());
    assert_eq!(
        refused_up_front(&out),
        [
            "--multiplier: 20000x: streams[0].rate: 2Gpps is above 1Gpps, more than any port \
             carries",
            "--multiplier: 20000x: streams[1].rate: 2Gpps is above 1Gpps, more than any port \
             carries",
        ]
    );
    // What means nothing is refused by the option's parser, which names it.
    for (m, says) in [
        ("0", "\"0\" sends nothing"),
        ("-50%", "cannot be negative"),
        ("3 parsecs", "unknown unit \"parsecs\""),
    ] {
        let out = upfbench(&[&["sweep"][..], &quickstart, &["-m", m]].concat());
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(2), "{err}");
        assert!(
            err.contains(&format!("invalid value '{m}' for '--multiplier <MULT>': ")),
            "{err}"
        );
        assert!(err.contains(says), "{err}");
    }
    // A search chooses its loads and its trials' durations.
    for option in [["-m", "2x"], ["-d", "2s"]] {
        let out = upfbench(&[&["search"][..], &quickstart, &option].concat());
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(1), "{err}");
        assert!(!err.contains("EAL"), "EAL was started: {err}");
        assert!(
            err.contains("-m/--multiplier and -d/--duration are for run, sweep and capacity"),
            "{err}"
        );
    }
}

#[test]
fn a_duration_gets_the_profiles_checks_before_eal() {
    let dir = std::env::temp_dir().join(format!("upfbench-cli-d-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let profile = dir.join("churn.yaml");
    std::fs::write(
        &profile,
        "name: churn\nstreams: [{name: dl, direction: downlink, rate: 1kpps, payload: 100}]\n\
         duration: 10s\nchurn: {rate: 10, lifetime: 1s, start: 3s}\n",
    )
    .unwrap();
    let out = upfbench(&[
        "run",
        "deploy/systems/memif.yaml",
        profile.to_str().unwrap(),
        "-d",
        "2s",
    ]);
    let found = refused_up_front(&out);
    std::fs::remove_dir_all(&dir).unwrap();
    assert_eq!(
        found,
        [
            "--duration: 2s: churn.lifetime: 1s from 3s leaves no room in the measured phase \
             of 2s (`duration`): a churn session is deleted within it",
            "--duration: 2s: churn.start: 3s is not within the measured phase of 2s (`duration`)",
        ]
    );
    let out = upfbench(&[
        "run",
        "deploy/systems/memif.yaml",
        "profiles/quickstart.yaml",
        "-d",
        "0s",
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out)
            .contains("invalid value '0s' for '--duration <DURATION>': \"0s\" sends nothing"),
        "{}",
        stderr(&out)
    );
}
