//! `upfbench doctor` and `upfbench nics` on this machine: what they print is checked against
//! what the test reads itself from /proc and /sys (hugepages against /proc/meminfo, the CPUs,
//! the IOMMU groups, the DPDK version pkg-config gives, the NICs on the PCI bus). Read only:
//! nothing is bound.

use std::collections::BTreeSet;
use std::path::Path;
use std::process::{Command, Output};

use crate::harness::{UPFBENCH, repo, serial};

fn upfbench(args: &[&str]) -> Output {
    Command::new(UPFBENCH)
        .current_dir(repo())
        .args(args)
        .output()
        .expect("run upfbench")
}

fn stdout(out: &Output) -> String {
    String::from_utf8(out.stdout.clone()).expect("UTF-8")
}

/// The detail of `need`'s line and its status.
fn line<'a>(text: &'a str, need: &str) -> (&'a str, &'a str) {
    text.lines()
        .find_map(|l| {
            let (status, rest) = l.split_once(' ')?;
            let detail = rest.trim_start().strip_prefix(need)?.strip_prefix(": ")?;
            Some((status, detail))
        })
        .unwrap_or_else(|| panic!("no line {need:?} in:\n{text}"))
}

fn meminfo(field: &str) -> u64 {
    let text = std::fs::read_to_string("/proc/meminfo").expect("meminfo");
    text.lines()
        .find_map(|l| {
            l.strip_prefix(field)?
                .trim()
                .trim_end_matches("kB")
                .trim()
                .parse()
                .ok()
        })
        .unwrap_or_else(|| panic!("{field} in /proc/meminfo"))
}

fn sys(path: &str) -> Option<String> {
    std::fs::read_to_string(path)
        .ok()
        .map(|s| s.trim().to_owned())
}

/// `F of T S pages free` of the default page size, summed over the nodes' lines.
fn default_pages(text: &str, size: &str) -> (u64, u64) {
    let mut sum = (0, 0);
    for l in text.lines().filter(|l| l.contains(" hugepages node ")) {
        let pools = l.split_once(": ").expect("detail").1;
        for pool in pools.split(", ") {
            let words: Vec<&str> = pool.split_whitespace().collect();
            if let [free, "of", total, n, unit, "pages", "free", ..] = words.as_slice()
                && format!("{n} {unit}") == size
            {
                sum.0 += free.parse::<u64>().expect("free");
                sum.1 += total.parse::<u64>().expect("total");
            }
        }
    }
    sum
}

#[test]
fn doctor_says_what_this_machine_has() {
    let _serial = serial();
    let size_kb = meminfo("Hugepagesize:");
    let size = if size_kb.is_multiple_of(1024 * 1024) {
        format!("{} GB", size_kb / (1024 * 1024))
    } else {
        format!("{} MB", size_kb / 1024)
    };
    // Another process may take hugepages meanwhile: compare only when /proc/meminfo did not
    // move during the run.
    let mut compared = false;
    for _ in 0..5 {
        let before = (meminfo("HugePages_Free:"), meminfo("HugePages_Total:"));
        let out = upfbench(&["doctor", "deploy/systems/memif.yaml"]);
        let text = stdout(&out);
        assert!(
            out.status.success(),
            "{text}\n{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let after = (meminfo("HugePages_Free:"), meminfo("HugePages_Total:"));
        if before != after {
            continue;
        }
        check_hugepages(&text, &size, before);
        check_lcores(&text);
        check_isolated_cores(&text);
        check_iommu(&text);
        check_cpu_governor(&text);
        check_dpdk(&text);
        check_memif_pmd(&text);
        compared = true;
        break;
    }
    assert!(compared, "hugepages kept changing under five runs");
}

/// The default size's pages as /proc/meminfo counts them; node 0 not needed with --no-huge.
fn check_hugepages(text: &str, size: &str, before: (u64, u64)) {
    assert_eq!(default_pages(text, size), before, "{text}");
    let (status, detail) = line(text, "hugepages node 0");
    assert_eq!(status, "ok", "{text}");
    assert!(detail.ends_with("(not needed: --no-huge)"), "{detail}");
}

/// The system's lcores, and the CPUs online.
fn check_lcores(text: &str) {
    let online = sys("/sys/devices/system/cpu/online").expect("online CPUs");
    let (status, detail) = line(text, "lcores");
    assert_eq!(
        (status, detail),
        ("ok", &*format!("main 0, workers 1; online CPUs {online}"))
    );
}

/// The isolated cores, or none.
fn check_isolated_cores(text: &str) {
    let isolated = sys("/sys/devices/system/cpu/isolated").unwrap_or_default();
    let (_, detail) = line(text, "isolated cores");
    let shown = if isolated.is_empty() {
        "none"
    } else {
        isolated.as_str()
    };
    assert!(
        detail.starts_with(&format!("isolated {shown}, ")),
        "{detail}"
    );
}

/// The IOMMU's groups, or none; memif needs no vfio.
fn check_iommu(text: &str) {
    let groups = std::fs::read_dir("/sys/kernel/iommu_groups").map_or(0, |d| d.count());
    let (status, detail) = line(text, "IOMMU and vfio");
    assert_eq!(status, "ok", "memif needs no vfio: {detail}");
    if groups == 0 {
        assert!(detail.contains("no IOMMU"), "{detail}");
    } else {
        assert!(
            detail.contains(&format!("IOMMU on ({groups} groups)")),
            "{detail}"
        );
    }
}

/// The worker CPU's governor, or no cpufreq.
fn check_cpu_governor(text: &str) {
    let (_, detail) = line(text, "CPU governor");
    match sys("/sys/devices/system/cpu/cpu1/cpufreq/scaling_governor") {
        None => assert!(detail.starts_with("no cpufreq for CPUs 1"), "{detail}"),
        Some(g) => assert!(detail.starts_with(&g), "{detail}"),
    }
}

/// The DPDK version pkg-config gives.
fn check_dpdk(text: &str) {
    let version = Command::new("pkg-config")
        .args(["--modversion", "libdpdk"])
        .output()
        .expect("pkg-config");
    let version = String::from_utf8_lossy(&version.stdout).trim().to_owned();
    let (status, detail) = line(text, "DPDK");
    assert_eq!(status, "ok");
    assert!(detail.starts_with(&format!("DPDK {version} (")), "{detail}");
}

/// The memif PMD: a plugin in the directory doctor names, or linked into the binary.
fn check_memif_pmd(text: &str) {
    let (status, detail) = line(text, "PMD net_memif");
    assert_eq!(status, "ok");
    if let Some(dir) = detail
        .strip_prefix("librte_net_memif.so in ")
        .and_then(|d| d.split(" (for").next())
    {
        let plugins: Vec<String> = std::fs::read_dir(dir)
            .expect("the plugin directory doctor names")
            .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
            .collect();
        assert!(
            plugins.iter().any(|p| p.starts_with("librte_net_memif.so")),
            "{dir}"
        );
    } else {
        assert!(detail.starts_with("linked into this binary"), "{detail}");
    }
}

#[test]
fn doctor_finds_no_connectx5_here_and_says_why() {
    let _serial = serial();
    let out = upfbench(&["doctor", "deploy/systems/connectx5.yaml"]);
    let text = stdout(&out);
    for (port, address) in [("n3", "0000:3b:00.0"), ("n6", "0000:3b:00.1")] {
        let here = Path::new("/sys/bus/pci/devices").join(address).exists();
        let (status, detail) = line(&text, &format!("{port} device"));
        if here {
            eprintln!("this machine has a device at {address}: {status} {detail}");
            continue;
        }
        assert_eq!(status, "missing", "{text}");
        assert!(
            detail.starts_with(&format!("no PCI device at {address} on this machine")),
            "{detail}"
        );
        assert!(detail.contains("net_mlx5's"), "{detail}");
        assert_eq!(out.status.code(), Some(1), "{text}");
    }
    // The PMD and rdma-core are checked all the same: Debian's DPDK has both.
    let (status, _) = line(&text, "PMD net_mlx5");
    assert_eq!(status, "ok", "{text}");
    let (status, detail) = line(&text, "rdma-core");
    let found = |lib: &str| {
        ["/usr/lib", "/lib"]
            .iter()
            .any(|d| Path::new(&format!("{d}/{}-linux-gnu/{lib}", std::env::consts::ARCH)).exists())
    };
    let rdma_core = found("libibverbs.so.1") && found("libmlx5.so.1");
    assert_eq!(status == "ok", rdma_core, "{detail}");
}

#[test]
fn nics_lists_the_network_controllers_on_this_pci_bus() {
    let _serial = serial();
    let out = upfbench(&["nics"]);
    let text = stdout(&out);
    assert!(out.status.success(), "{text}");
    let mut want = BTreeSet::new();
    for e in std::fs::read_dir("/sys/bus/pci/devices").expect("PCI bus") {
        let dir = e.expect("entry").path();
        let class = sys(&dir.join("class").to_string_lossy()).unwrap_or_default();
        if class.starts_with("0x02") {
            let driver = std::fs::read_link(dir.join("driver"))
                .ok()
                .and_then(|d| Some(d.file_name()?.to_string_lossy().into_owned()))
                .unwrap_or_else(|| "-".to_owned());
            want.insert((
                dir.file_name().unwrap().to_string_lossy().into_owned(),
                driver,
            ));
        }
    }
    let listed: BTreeSet<(String, String)> = text
        .lines()
        .skip(1)
        .filter_map(|l| {
            let w: Vec<&str> = l.split_whitespace().collect();
            // address, vendor name, ids, driver, ...
            Some((w.first()?.to_string(), w.get(3)?.to_string()))
        })
        .collect();
    if want.is_empty() {
        assert_eq!(
            text.trim(),
            "no network controller on the PCI bus (class 0x02)"
        );
    } else {
        assert_eq!(listed, want, "{text}");
    }
}
