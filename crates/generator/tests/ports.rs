//! `upfbench ports` run as a process: each run is its own EAL (own `--file-prefix`), so these
//! tests may run in parallel.

use std::process::{Command, Output};

fn upfbench_ports(test: &str, eal: &[&str]) -> Output {
    let prefix = format!("upfbench-ports-{test}-{}", std::process::id());
    let out = Command::new(env!("CARGO_BIN_EXE_upfbench"))
        .args([
            "ports",
            "--",
            "-l",
            "0",
            "--no-huge",
            // No shared files: nothing is left in /var/run/dpdk/<prefix>.
            "--no-shconf",
            "--no-telemetry",
            "-m",
            "256",
            "--no-pci",
            "--file-prefix",
            &prefix,
        ])
        .args(eal)
        .output()
        .expect("run upfbench");
    // --no-shconf leaves only EAL's empty runtime directory (root's is /var/run/dpdk).
    let _ = std::fs::remove_dir(format!("/var/run/dpdk/{prefix}"));
    out
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
            let speed = cols.split_off(5).join(" ");
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
    assert_eq!(header, ["port", "name", "driver", "mac", "link", "speed"]);

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
        // Listing does not start the ports: vdev links are down until started.
        assert_eq!(r[4], "down");
        assert_eq!(r[5], "10 Gbps", "net_ring and net_null report 10G");
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
