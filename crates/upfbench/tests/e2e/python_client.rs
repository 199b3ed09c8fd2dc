//! The Python client (`clients/python`) against a real agent: `upfbench agent` over memif in
//! front of the reflector, and the client's own end-to-end tests and the example a UPF's CI
//! would use (`clients/python/examples/test_upf.py`) run by pytest against it, in the
//! virtual environment `deploy/python-client-venv.sh` makes (`make test` makes it first).

use std::process::Command;
use std::time::Duration;

use crate::agent::{TOKEN, agent, free_port};
use crate::harness::{repo, serial};
use crate::memif::{Memif, profile};

#[test]
fn python_client_drives_a_real_agent() {
    let python = repo().join("target/pyclient/bin/python3");
    if !python.exists() {
        assert!(
            std::env::var_os("CI").is_none_or(|v| v.is_empty()),
            "{} is missing: make test makes it with deploy/python-client-venv.sh",
            python.display()
        );
        eprintln!(
            "skipped: no {} (deploy/python-client-venv.sh)",
            python.display()
        );
        return;
    }
    let _serial = serial();
    let m = Memif::new("pyclient", "{}", &profile(1, 1, "0s"));
    let mut reflector = m.reflector();
    let port = free_port();
    let mut agent = agent(&m, port);
    let out = Command::new(&python)
        .current_dir(repo().join("clients/python"))
        .args([
            "-m",
            "pytest",
            "-v",
            "-p",
            "no:cacheprovider",
            "e2e",
            "examples/test_upf.py",
        ])
        .env("UPFBENCH_URL", format!("http://127.0.0.1:{port}"))
        .env("UPFBENCH_TOKEN", TOKEN)
        .output()
        .expect("pytest runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    println!("{stdout}");
    assert!(
        out.status.success(),
        "{stdout}\n{}\n{}",
        String::from_utf8_lossy(&out.stderr),
        agent.logs()
    );
    // Every test ran: none skipped for want of the agent.
    assert!(!stdout.contains("SKIPPED"), "{stdout}");
    assert!(stdout.contains(" passed"), "{stdout}");
    assert!(
        agent.stop(Duration::from_secs(30)).success(),
        "{}",
        agent.logs()
    );
    assert!(reflector.stop(Duration::from_secs(30)).success());
}
