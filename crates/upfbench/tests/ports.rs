//! `upfbench ports` run as a process: each run is its own EAL (own `--file-prefix`), so these
//! tests may run in parallel. Every run, failed ones included, must leave no runtime directory
//! (EAL writes its shared configuration there: `config`, `fbarray_*`, `mp_socket`).

use std::process::{Command, Output};

use upfbench_datapath::eal_args::runtime_dir;

/// Runs `upfbench ports` with the tests' EAL arguments, `eal`, and a `--file-prefix` of the
/// test's own; checks that nothing of it is left in the runtime directory.
fn upfbench_ports(test: &str, eal: &[&str]) -> Output {
    let prefix = format!("upfbench-ports-{test}-{}", std::process::id());
    let out = Command::new(env!("CARGO_BIN_EXE_upfbench"))
        .args(["ports", "--"])
        .args(base_eal())
        .args(["--file-prefix", &prefix])
        .args(eal)
        .output()
        .expect("run upfbench");
    let dir = runtime_dir(&prefix);
    assert!(
        !dir.exists(),
        "{} left behind ({}):\n{}",
        dir.display(),
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

/// One lcore and the test kit's EAL arguments of a process: no hugepages, no PCI, no telemetry
/// (whose socket would be in the directory too).
fn base_eal() -> Vec<String> {
    let mut args = vec!["-l".to_owned(), "0".to_owned()];
    args.extend(upfbench_testkit::eal::process_args(256));
    args
}

fn stdout(out: &Output) -> String {
    assert!(
        out.status.success(),
        "upfbench ports failed ({}):\n{}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout.clone()).expect("UTF-8")
}

/// The table's rows as columns: port, name, driver, mac, link, speed (speed may hold a space).
fn rows(table: &str) -> Vec<Vec<String>> {
    table
        .lines()
        .skip(1)
        .map(|line| {
            let mut cols: Vec<String> = line.split_whitespace().map(str::to_owned).collect();
            let speed = cols.split_off(6).join(" ");
            cols.push(speed);
            cols
        })
        .collect()
}

#[test]
fn lists_the_vdevs_in_port_order() {
    let out = stdout(&upfbench_ports(
        "vdevs",
        &[
            "--vdev",
            "net_ring0",
            "--vdev",
            "net_null0",
            "--vdev",
            "net_null1",
        ],
    ));
    let mut lines = out.lines();
    let header: Vec<&str> = lines.next().expect("header").split_whitespace().collect();
    assert_eq!(
        header,
        ["port", "name", "driver", "mac", "vlan", "link", "speed"]
    );

    let rows = rows(&out);
    assert_eq!(rows.len(), 3, "{out}");
    let ids_names_drivers: Vec<[&str; 3]> = rows
        .iter()
        .map(|r| [r[0].as_str(), r[1].as_str(), r[2].as_str()])
        .collect();
    assert_eq!(
        ids_names_drivers,
        [
            ["0", "net_ring0", "net_ring"],
            ["1", "net_null0", "net_null"],
            ["2", "net_null1", "net_null"],
        ]
    );
    for r in &rows {
        let mac = &r[3];
        assert_eq!(mac.len(), 17, "{mac}");
        assert!(
            mac.split(':')
                .all(|b| b.len() == 2 && u8::from_str_radix(b, 16).is_ok()),
            "{mac}"
        );
        assert_eq!(r[4], "-", "net_ring and net_null offer no VLAN offload");
        // Listing does not start the ports: vdev links are down until started.
        assert_eq!(r[5], "down");
        assert_eq!(r[6], "10 Gbps", "net_ring and net_null report 10G");
    }
    assert_ne!(
        rows[1][3], rows[2][3],
        "each net_null gets its own random MAC"
    );
}

#[test]
fn no_port_is_an_error_that_says_what_to_do() {
    let out = upfbench_ports("none", &[]);
    assert!(!out.status.success());
    assert!(out.stdout.is_empty());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("EAL probed no port") && err.contains("--vdev"),
        "{err}"
    );
}

#[test]
fn bad_eal_arguments_fail_with_eal_s_reason() {
    let out = upfbench_ports("bad", &["--vdev", "net_nosuchdriver0"]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("EAL initialisation failed"), "{err}");
}

/// Without a `--file-prefix` the command takes one of its own (`upfbench-ports-<pid>`), never
/// EAL's default `rte` (which another DPDK application may be using), and removes it.
#[test]
fn without_a_prefix_it_uses_its_own_and_leaves_nothing() {
    let rte = runtime_dir("rte");
    let rte_before = rte.exists();
    let child = Command::new(env!("CARGO_BIN_EXE_upfbench"))
        .args(["ports", "--"])
        .args(base_eal())
        .args(["--vdev", "net_null0"])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("run upfbench");
    let pid = child.id();
    let out = child.wait_with_output().expect("wait for upfbench");
    assert_eq!(rows(&stdout(&out)).len(), 1);
    let own = runtime_dir(&format!("upfbench-ports-{pid}"));
    assert!(!own.exists(), "{} left behind", own.display());
    if !rte_before {
        assert!(!rte.exists(), "{} made and left behind", rte.display());
    }
}
