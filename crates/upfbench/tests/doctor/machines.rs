//! The cores, hugepages, kernel interfaces, the machine in general, and the command.

use std::process::Command;

use crate::mellanox::connectx5;
use crate::{FakeMachine, doctor, fix, line, repo, setup_from, software, system_setup, two_nodes};
use upfbench_ops::doctor::{PmdSet, Software, Status};
use upfbench_ops::machine::Root;

#[test]
fn isolated_tickless_workers_pass_and_a_powersave_governor_warns() {
    let m = two_nodes("cores", 8);
    m.isolated("2-9", "2-9");
    for c in 0..16 {
        m.governor(c, if c < 4 { "powersave" } else { "performance" });
    }
    let setup = setup_from(
        "eal: {args: [--no-huge]}\ncores: {main: 0, workers: [2, 3, 4, 5]}\n\
         n3: {device: net_null0, address: 192.168.13.131/24, peer: 192.168.13.151}\n\
         n6: {device: net_null1, address: 192.168.16.152/24, peer: 192.168.16.151}\n",
    );
    let lines = doctor(&m, &software(&m, &["net_null"]), Some(&setup));
    let iso = line(&lines, "isolated cores");
    assert_eq!(
        (iso.status, iso.detail.as_str()),
        (Status::Ok, "isolated 2-9, nohz_full 2-9: workers 2-5 both")
    );
    let gov = line(&lines, "CPU governor");
    assert_eq!(gov.status, Status::Warn, "{gov}");
    assert!(gov.detail.starts_with("powersave on CPUs 2-3"), "{gov}");
    assert!(
        fix(gov).starts_with("cpupower -c 2-3 frequency-set -g performance"),
        "{gov}"
    );

    // Workers 8-9 are isolated but not tickless; 10 is neither.
    m.isolated("2-9", "2-7");
    let other = setup_from(
        "cores: {main: 0, workers: [8, 9]}\n\
         n3: {device: net_null0, address: 192.168.13.131/24, peer: 192.168.13.151}\n\
         n6: {device: net_null1, address: 192.168.16.152/24, peer: 192.168.16.151}\n",
    );
    let lines = doctor(&m, &software(&m, &["net_null"]), Some(&other));
    let iso = line(&lines, "isolated cores");
    assert_eq!(iso.status, Status::Warn);
    assert!(
        iso.detail
            .contains("workers 8-9 are isolated but not nohz_full"),
        "{iso}"
    );
    assert_eq!(
        fix(iso),
        "kernel parameters isolcpus=8-9 nohz_full=8-9 rcu_nocbs=8-9, then reboot"
    );
    assert_eq!(line(&lines, "CPU governor").status, Status::Ok);
}

#[test]
fn hugepages_need_a_mount_unless_in_memory_and_pages_on_the_lcores_node() {
    let m = FakeMachine::new("mount");
    m.cpus(&[(0, &[0, 1])]).hugepages(0, 2048, 0, 0);
    let text = "eal: {args: [-m, \"512\"]}\n\
        n3: {device: net_null0, address: 192.168.13.131/24, peer: 192.168.13.151}\n\
        n6: {device: net_null1, address: 192.168.16.152/24, peer: 192.168.16.151}\n";
    let lines = doctor(&m, &software(&m, &["net_null"]), Some(&setup_from(text)));
    assert_eq!(line(&lines, "hugetlbfs").status, Status::Missing);
    let node = line(&lines, "hugepages node 0");
    assert_eq!(node.status, Status::Missing, "{node}");
    assert_eq!(
        node.detail,
        "0 of 0 2 MB pages free; the run's lcores or NICs are on this node"
    );
    let total = line(&lines, "hugepages for -m");
    assert_eq!(
        (total.status, total.detail.as_str()),
        (Status::Missing, "-m 512 MB asked, 0 MB free")
    );

    m.hugepages(0, 2048, 512, 300);
    let in_memory = text.replace("args: [", "args: [--in-memory, ");
    let lines = doctor(
        &m,
        &software(&m, &["net_null"]),
        Some(&setup_from(&in_memory)),
    );
    assert_eq!(line(&lines, "hugetlbfs").status, Status::Ok);
    assert_eq!(
        line(&lines, "hugepages node 0").detail,
        "300 of 512 2 MB pages free"
    );
    assert_eq!(
        line(&lines, "hugepages for -m").detail,
        "-m 512 MB asked, 600 MB free"
    );
}

#[test]
fn af_packet_ports_are_checked_against_their_interfaces_mtu() {
    let m = FakeMachine::new("afpacket");
    m.cpus(&[(0, &[0, 1])])
        .hugepages(0, 2048, 0, 0)
        .netdev("n3", None, 1400, true)
        .netdev("n6", None, 1500, true);
    let setup = system_setup("lab.yaml", Some("quickstart.yaml"));
    let lines = doctor(&m, &software(&m, &["net_af_packet"]), Some(&setup));
    let n3 = line(&lines, "n3 MTU");
    assert_eq!(n3.status, Status::Missing, "{n3}");
    assert!(n3.detail.starts_with("n3 1400, n3.mtu 1500"), "{n3}");
    assert_eq!(fix(n3), "ip link set dev n3 mtu 1500");
    assert_eq!(line(&lines, "n6 MTU").status, Status::Ok);
    assert_eq!(line(&lines, "PMD net_af_packet").status, Status::Ok);
    // --no-huge: no hugepage needed, none reserved.
    assert_eq!(line(&lines, "hugepages node 0").status, Status::Ok);

    let gone = FakeMachine::new("afpacket-gone");
    gone.cpus(&[(0, &[0, 1])]);
    let lines = doctor(&gone, &software(&gone, &[]), Some(&setup));
    let n3 = line(&lines, "n3 MTU");
    assert_eq!(n3.status, Status::Missing);
    assert_eq!(n3.detail, "no interface n3 (/sys/class/net/n3)");
    assert_eq!(line(&lines, "PMD net_af_packet").status, Status::Missing);
    assert_eq!(
        fix(line(&lines, "PMD net_af_packet")),
        "apt-get install librte-net-af-packet-23 (or dpdk, which pulls every PMD)"
    );
}

#[test]
fn the_machine_in_general_without_a_system_file() {
    let m = connectx5("general");
    m.isolated("2-9", "2-9");
    let lines = doctor(&m, &software(&m, &["net_mlx5", "net_memif"]), None);
    let needs: Vec<&str> = lines.iter().map(|l| l.need.as_str()).collect();
    assert_eq!(
        needs,
        [
            "hugepages node 0",
            "hugepages node 1",
            "hugetlbfs",
            "IOMMU and vfio",
            "isolated cores",
            "CPU governor",
            "DPDK",
            "PMDs",
            "rdma-core",
        ]
    );
    assert_eq!(
        line(&lines, "hugepages node 1").detail,
        "1024 of 1024 2 MB pages free, 0 of 0 1 GB pages free"
    );
    assert_eq!(
        line(&lines, "IOMMU and vfio").detail,
        "IOMMU on (40 groups); vfio-pci loaded"
    );
    let pmds = line(&lines, "PMDs");
    assert!(
        pmds.detail
            .starts_with("present: net_mlx5 net_memif; absent: net_virtio"),
        "{pmds}"
    );
    // A Mellanox NIC is on the machine: rdma-core is checked.
    assert_eq!(line(&lines, "rdma-core").status, Status::Missing);
}

#[test]
fn the_plugin_directory_is_read_under_the_root() {
    let m = FakeMachine::new("plugins");
    let sw = Software::read(&Root::new(m.root()));
    match &sw.dpdk.pmds {
        PmdSet::Plugins { dir, found } => {
            let dir = dir
                .as_deref()
                .expect("Debian's DPDK has a plugin directory");
            assert!(found.is_empty(), "an empty tree has none: {found:?}");
            m.pmd_plugins(dir, &["net_memif", "net_mlx5"])
                .file(&format!("{dir}/librte_common_mlx5.so.23.0"), "");
            let sw = Software::read(&Root::new(m.root()));
            let PmdSet::Plugins { found, .. } = &sw.dpdk.pmds else {
                unreachable!()
            };
            assert_eq!(found.iter().collect::<Vec<_>>(), ["net_memif", "net_mlx5"]);
            assert_eq!(sw.dpdk.abi(), Some("23"));
        }
        PmdSet::Linked(list) => assert!(list.contains("net_mlx5"), "{list:?}"),
    }
    assert_eq!(sw.dpdk.runtime, format!("DPDK {}", sw.dpdk.built));
}

#[test]
fn the_command_prints_a_line_per_need_and_fails_on_a_missing_one() {
    let m = connectx5("command");
    if let upfbench_dpdk::Pmds::Plugins(Some(dir)) = upfbench_dpdk::pmds() {
        m.pmd_plugins(dir, &["net_mlx5"]);
    }
    let out = Command::new(env!("CARGO_BIN_EXE_upfbench"))
        .current_dir(repo())
        .args(["doctor", "deploy/systems/connectx5.yaml", "--root"])
        .arg(m.root())
        .output()
        .expect("run upfbench");
    let stdout = String::from_utf8(out.stdout).expect("UTF-8");
    let stderr = String::from_utf8(out.stderr).expect("UTF-8");
    assert_eq!(out.status.code(), Some(1), "{stdout}\n{stderr}");
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(
        lines[0],
        "upfbench doctor: what deploy/systems/connectx5.yaml needs of this machine"
    );
    assert!(lines.contains(&"missing rdma-core: libibverbs.so.1 and libmlx5.so.1 not found (the mlx PMDs open the NIC through rdma-core's verbs); fix: apt-get install libibverbs1 ibverbs-providers rdma-core"), "{stdout}");
    assert!(
        lines.contains(
            &"ok      n3 device: 0000:3b:00.0: Mellanox NIC 15b3:1017, interface ens1f0np0"
        ),
        "{stdout}"
    );
    assert!(stderr.contains("2 of "), "{stderr}");
    assert!(
        lines[1..]
            .iter()
            .all(|l| l.starts_with("ok ") || l.starts_with("warn ") || l.starts_with("missing ")),
        "{stdout}"
    );
}
