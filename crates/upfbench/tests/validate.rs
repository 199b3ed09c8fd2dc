//! `upfbench validate` run as a process: no port, no UPF, no EAL.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn validate(files: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_upfbench"))
        .current_dir(repo())
        .arg("validate")
        .args(files)
        .env("NO_COLOR", "1")
        .output()
        .expect("run upfbench")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8(bytes.to_vec()).expect("UTF-8")
}

#[test]
fn shipped_files_validate_and_say_what_they_are() {
    let out = validate(&[
        "deploy/systems/memif.yaml",
        "deploy/systems/memif-reflector.yaml",
        "profiles/quickstart.yaml",
        "profiles/ues-10k.yaml",
        "profiles/imix.yaml",
    ]);
    let stdout = text(&out.stdout);
    assert!(out.status.success(), "{stdout}{}", text(&out.stderr));
    // Each profile is planned on the system file (the time taken varies).
    let planned: Vec<&str> = stdout
        .lines()
        .filter_map(|l| l.strip_prefix("  planned on deploy/systems/memif.yaml: "))
        .map(|l| l.rsplit_once(", in ").map_or(l, |(what, _)| what))
        .collect();
    assert_eq!(
        planned,
        [
            "1 UE, 2 flows over 1 worker, 1 session plan",
            "10000 UEs, 20000 flows over 1 worker, 10000 session plans",
            "1 UE, 6 flows over 1 worker, 1 session plan",
        ]
    );
    assert!(
        stdout.ends_with(" MB\n") && stdout.contains("\npeak memory "),
        "{stdout}"
    );
    let stdout: String = stdout
        .lines()
        .filter(|l| !l.starts_with("  planned on") && !l.starts_with("peak memory"))
        .map(|l| format!("{l}\n"))
        .collect();
    assert_eq!(
        stdout,
        "ok: deploy/systems/memif.yaml (system: n3 net_memif0 192.168.13.131/24, n6 net_memif1 \
         192.168.16.152/24, PFCP 127.0.0.1:8805 -> 127.0.0.2:8805)\n\
         ok: deploy/systems/memif-reflector.yaml (reflector: upf, n3 net_memif0 \
         192.168.13.151/24, n6 net_memif1 192.168.16.151/24, PFCP 127.0.0.2:8805 for 127.0.0.1)\n\
         ok: profiles/quickstart.yaml (profile \"quickstart\": 2 streams, 1 UE)\n\
         ok: profiles/ues-10k.yaml (profile \"ues-10k\": 2 streams, 10000 UEs)\n\
         ok: profiles/imix.yaml (profile \"imix\": 3 streams, 1 UE)\n"
    );
}

#[test]
fn bad_files_print_their_diagnostics_and_fail() {
    let bad = "crates/config/tests/config_errors/profile-rates.yaml";
    let out = validate(&["profiles/quickstart.yaml", bad]);
    assert!(!out.status.success());
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        text(&out.stdout),
        "ok: profiles/quickstart.yaml (profile \"quickstart\": 2 streams, 1 UE)\n"
    );
    let stderr = text(&out.stderr);
    let diagnostics: Vec<&str> = stderr.lines().filter(|l| l.starts_with(bad)).collect();
    assert_eq!(
        diagnostics,
        [
            format!("{bad}:3:43: streams[0].rate: 0pps sends nothing: a rate must be above zero"),
            format!("{bad}:4:47: streams[1].rate: -5kpps sends nothing: a rate must be above zero"),
            format!(
                "{bad}:5:49: streams[2].rate: 2Gpps is above 1Gpps, more than any port carries"
            ),
            format!("{bad}:6:50: streams[3].rate: 150% is above the line rate: at most 100%"),
        ]
    );
    assert!(stderr.contains("1 of 2 files did not validate"), "{stderr}");
}

#[test]
fn a_profile_is_checked_against_the_system_files_given_with_it() {
    let out = validate(&["deploy/systems/lab.yaml", "profiles/imix.yaml"]);
    assert!(!out.status.success());
    assert_eq!(
        text(&out.stdout),
        "ok: deploy/systems/lab.yaml (system: n3 net_af_packet0 192.168.13.131/24, n6 \
         net_af_packet1 192.168.16.152/24, PFCP 192.168.14.111:8805 -> 192.168.14.151:8805)\n"
    );
    let stderr = text(&out.stderr);
    assert!(
        stderr.contains(
            "profiles/imix.yaml:21:14: streams[2].payload: 1472 bytes make 1544-byte uplink \
             packets on n3, over its MTU of 1500 (n3.mtu in deploy/systems/lab.yaml)\n"
        ),
        "{stderr}"
    );
}

#[test]
fn a_file_that_cannot_be_read_or_told_apart_is_an_error() {
    let out = validate(&[
        "no/such/file.yaml",
        "crates/config/tests/config_errors/any-unknown-kind.yaml",
    ]);
    assert!(!out.status.success());
    assert!(out.stdout.is_empty());
    let stderr = text(&out.stderr);
    assert!(
        stderr.contains("no/such/file.yaml: cannot read: "),
        "{stderr}"
    );
    assert!(
        stderr.contains("any-unknown-kind.yaml:1:1: cannot tell"),
        "{stderr}"
    );
    assert!(stderr.contains("2 of 2 files did not validate"), "{stderr}");
}

/// A million UEs are checked and planned (UEs, flows, workers' shares, PFCP session plans,
/// receive rules) within 150 MB: what the tester holds before a port starts (measured
/// 2026-11-26: 68 MB, 0.33 s; docs/capacity.md). The flows' receive and transmit state, made as
/// a step starts, comes on top (about 340 MB for 2,000,000 flows with one worker).
#[test]
fn a_million_ues_are_planned_within_150_mb() {
    let out = validate(&["deploy/systems/memif.yaml", "profiles/capacity.yaml"]);
    let stdout = text(&out.stdout);
    assert!(out.status.success(), "{stdout}{}", text(&out.stderr));
    assert!(
        stdout.contains(
            "  planned on deploy/systems/memif.yaml: 1000000 UEs, 2000000 flows over 1 worker, \
             1000000 session plans, in "
        ),
        "{stdout}"
    );
    let peak_mb: f64 = stdout
        .lines()
        .find_map(|l| {
            l.strip_prefix("peak memory ")?
                .strip_suffix(" MB")?
                .parse()
                .ok()
        })
        .unwrap_or_else(|| panic!("no peak memory in {stdout}"));
    assert!(peak_mb > 1.0 && peak_mb < 150.0, "{peak_mb} MB");
}

/// N3 and N6 over IPv6 (the shipped memif-v6 pair) validate with IPv6 UEs; IPv4 UEs over the
/// IPv6 N6 are refused naming the stream, as a run refuses them.
#[test]
fn an_ipv6_transport_validates_with_ipv6_ues_and_refuses_ipv4_ones_over_n6() {
    let out = validate(&["deploy/systems/memif-v6.yaml", "profiles/ipv6.yaml"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let out = validate(&["deploy/systems/memif-v6.yaml", "profiles/quickstart.yaml"]);
    assert!(!out.status.success());
    let stderr = text(&out.stderr);
    assert!(
        stderr.contains("sessions.pdn_type") && stderr.contains("IPv4 UE packets need an IPv4 N6"),
        "{stderr}"
    );
}

/// A system file of two port pairs validates (each pair's ports listed), and a profile of fewer
/// UEs than pairs does not (running them is e2e/pairs.rs').
#[test]
fn two_port_pairs_validate_and_need_a_ue_each() {
    let dir = std::env::temp_dir().join(format!("upfbench-pairs-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temporary directory");
    let system = dir.join("pairs.yaml");
    std::fs::write(
        &system,
        "kind: system\ncores: {main: 0}\npairs:\n\
         - {name: a, workers: [1], \
         n3: {device: net_null0, address: 192.168.13.131/24, peer: 192.168.13.151}, \
         n6: {device: net_null1, address: 192.168.16.152/24, peer: 192.168.16.151}}\n\
         - {name: b, workers: [2], \
         n3: {device: net_null2, address: 192.168.23.131/24, peer: 192.168.23.151}, \
         n6: {device: net_null3, address: 192.168.26.152/24, peer: 192.168.26.151}}\n",
    )
    .expect("write the system file");
    let system = system.to_str().expect("UTF-8 path");
    let out = validate(&[system, "profiles/ues-10k.yaml"]);
    let stdout = text(&out.stdout);
    assert!(out.status.success(), "{stdout}{}", text(&out.stderr));
    assert!(
        stdout.contains(
            "system: n3 net_null0 192.168.13.131/24, n6 net_null1 192.168.16.152/24, \
             n3 net_null2 192.168.23.131/24, n6 net_null3 192.168.26.152/24, no PFCP"
        ),
        "{stdout}"
    );
    // The quickstart's one UE cannot be cut over two pairs.
    let out = validate(&[system, "profiles/quickstart.yaml"]);
    let all = format!("{}{}", text(&out.stdout), text(&out.stderr));
    assert!(!out.status.success(), "{all}");
    assert!(
        all.contains("sessions.count: 1 session for 2 pairs of"),
        "{all}"
    );
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn a_cluster_file_validates_with_its_agents_and_a_broken_one_says_where() {
    let dir = std::env::temp_dir().join(format!("upfbench-cluster-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temporary directory");
    let cluster = dir.join("cluster.yaml");
    std::fs::write(
        &cluster,
        "kind: cluster\nagents:\n\
         - {name: gnb-a, url: \"http://127.0.0.1:9801\"}\n\
         - {name: gnb-b, url: \"http://127.0.0.1:9802\", weight: 2}\n\
         pfcp: {local: 127.0.0.1:8805, peer: 127.0.0.2:8805}\n",
    )
    .expect("write the cluster file");
    let cluster = cluster.to_str().expect("UTF-8 path");
    let out = validate(&[cluster]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(
        text(&out.stdout),
        format!(
            "ok: {cluster} (cluster: 2 agents: gnb-a http://127.0.0.1:9801 (weight 1), \
             gnb-b http://127.0.0.1:9802 (weight 2), PFCP held by the coordinator \
             127.0.0.1:8805 -> 127.0.0.2:8805)\n"
        )
    );
    let bad = "crates/config/tests/config_errors/cluster-agents-twice.yaml";
    let out = validate(&[bad]);
    assert_eq!(out.status.code(), Some(1));
    let stderr = text(&out.stderr);
    assert!(
        stderr.contains(&format!(
            "{bad}:5:12: agents[1].name: agent `gnb-a` is named twice (agents[0])"
        )),
        "{stderr}"
    );
    std::fs::remove_dir_all(&dir).ok();
}
