//! `upfbench run|sweep|search --cluster` as a process, before any agent answers: what the
//! coordinator refuses, and an agent that is not there named. (Runs over real agents are
//! e2e tests.)

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn upfbench(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_upfbench"))
        .current_dir(repo())
        .args(args)
        .env("NO_COLOR", "1")
        .output()
        .expect("run upfbench")
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// A cluster file of two agents on loopback ports nothing listens on (9 and 10: discard and
/// nothing), in a scratch directory of this test's own.
fn cluster_file(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!(
        "upfbench-cluster-cli-{name}-{}",
        std::process::id()
    ));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("cluster.yaml");
    std::fs::write(
        &path,
        "kind: cluster\nagents:\n  - {name: gnb-a, url: \"http://127.0.0.1:9\"}\n  - {name: \
         gnb-b, url: \"http://127.0.0.1:10\", weight: 2}\npfcp: {mode: agents}\n",
    )
    .unwrap();
    path
}

#[test]
fn an_agent_that_does_not_answer_is_named_and_nothing_runs() {
    let cluster = cluster_file("gone");
    let o = upfbench(&[
        "run",
        "--cluster",
        cluster.to_str().unwrap(),
        "profiles/quickstart.yaml",
    ]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("agent gnb-a: GET /v1"),
        "{}",
        stderr(&o)
    );
    // --agents in place of the file's: the one it names is asked.
    let o = upfbench(&[
        "sweep",
        "--cluster",
        cluster.to_str().unwrap(),
        "--agents",
        "solo=http://127.0.0.1:9",
        "profiles/quickstart.yaml",
    ]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(stderr(&o).contains("agent solo: GET /v1"), "{}", stderr(&o));
    // A search: its profile checked first (pps rates, a max load), then the agents asked.
    let o = upfbench(&[
        "search",
        "--cluster",
        cluster.to_str().unwrap(),
        "profiles/search.yaml",
    ]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("agent gnb-a: GET /v1"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn what_a_run_over_agents_does_not_take_is_refused() {
    let cluster = cluster_file("refused");
    let c = cluster.to_str().unwrap();
    let cases: [(&[&str], &str); 6] = [
        (
            &[
                "run",
                "--cluster",
                c,
                "deploy/systems/memif.yaml",
                "profiles/quickstart.yaml",
            ],
            "give the profile alone",
        ),
        (
            &["search", "--cluster", c, "profiles/quickstart.yaml"],
            "a search across agents needs search.max_load",
        ),
        (
            &[
                "run",
                "--cluster",
                c,
                "-m",
                "3Gbps",
                "profiles/quickstart.yaml",
            ],
            "-m 3Gbps over agents: a total in bits per second needs the agents' frames",
        ),
        (
            &["search", "--cluster", c, "-d", "2s", "profiles/search.yaml"],
            "a multiplier and a duration are for run and sweep",
        ),
        (
            &[
                "run",
                "--cluster",
                c,
                "--metrics",
                "127.0.0.1:9",
                "profiles/quickstart.yaml",
            ],
            "--metrics is not built for runs over agents yet",
        ),
        (
            &[
                "run",
                "--cluster",
                c,
                "--no-pfcp",
                "profiles/quickstart.yaml",
            ],
            "cannot be used with",
        ),
    ];
    for (args, says) in cases {
        let o = upfbench(args);
        assert!(!o.status.success(), "{args:?}");
        assert!(stderr(&o).contains(says), "{args:?}: {}", stderr(&o));
    }
    // --agents without a cluster file: clap says what is missing.
    let o = upfbench(&[
        "run",
        "--agents",
        "a=http://127.0.0.1:9",
        "profiles/quickstart.yaml",
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("--cluster <FILE>"), "{}", stderr(&o));
}
