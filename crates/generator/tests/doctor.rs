//! `upfbench doctor` on made-up machines: the cases this one is not (two NUMA nodes, a
//! ConnectX-5, virtio NICs on their kernel driver, vfio's no-IOMMU mode, isolated cores, a
//! power-saving governor), each a sysfs and procfs tree in a scratch directory.

#[path = "support/fake_machine.rs"]
mod fake_machine;

use std::path::{Path, PathBuf};
use std::process::Command;

use fake_machine::FakeMachine;
use upfbench_generator::app::doctor::{
    Dpdk, Finding, PmdSet, RdmaCore, Setup, Software, Status, check,
};
use upfbench_generator::app::machine::{Machine, Root};
use upfbench_generator::config;

const PMD_DIR: &str = "/usr/lib/x86_64-linux-gnu/dpdk/pmds-23.0";
const LIBS: &str = "/usr/lib/x86_64-linux-gnu";

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// DPDK 22.11 with these PMDs, and rdma-core as the tree has it.
fn software(m: &FakeMachine, pmds: &[&str]) -> Software {
    Software {
        dpdk: Dpdk {
            runtime: "DPDK 22.11.11".into(),
            built: "22.11.11".into(),
            pmds: PmdSet::Plugins {
                dir: Some(PMD_DIR.into()),
                found: pmds.iter().map(|p| (*p).to_owned()).collect(),
            },
        },
        rdma_core: RdmaCore::read(&Root::new(m.root())),
    }
}

fn system_setup(system: &str, profile: Option<&str>) -> Setup {
    let s = repo().join("deploy/systems").join(system);
    match profile {
        Some(p) => {
            let (s, p) = config::load_run(s, repo().join("profiles").join(p))
                .unwrap_or_else(|e| panic!("{e}"));
            Setup::of_system(&s, Some(&p))
        }
        None => Setup::of_system(
            &config::load_system(s).unwrap_or_else(|e| panic!("{e}")),
            None,
        ),
    }
}

fn setup_from(text: &str) -> Setup {
    Setup::of_system(
        &config::system_from_str(text, "s.yaml").unwrap_or_else(|e| panic!("{e}")),
        None,
    )
}

fn doctor(m: &FakeMachine, sw: &Software, setup: Option<&Setup>) -> Vec<Finding> {
    check(&Machine::read(&Root::new(m.root())), sw, setup)
}

/// The line of `need`; fails showing all the lines if there is none.
fn line<'a>(lines: &'a [Finding], need: &str) -> &'a Finding {
    lines.iter().find(|l| l.need == need).unwrap_or_else(|| {
        let all: Vec<String> = lines.iter().map(ToString::to_string).collect();
        panic!("no line {need:?} in:\n{}", all.join("\n"))
    })
}

fn fix(f: &Finding) -> &str {
    f.fix.as_deref().unwrap_or_else(|| panic!("no fix: {f}"))
}

/// Two NUMA nodes of `per_node` CPUs each, hugepages on both, IOMMU and vfio-pci on.
fn two_nodes(case: &str, per_node: u32) -> FakeMachine {
    let m = FakeMachine::new(case);
    let node0: Vec<u32> = (0..per_node).collect();
    let node1: Vec<u32> = (per_node..2 * per_node).collect();
    m.cpus(&[(0, &node0), (1, &node1)])
        .hugepages(0, 2048, 1024, 1024)
        .hugepages(1, 2048, 1024, 1024)
        .hugepages(0, 1048576, 0, 0)
        .hugepages(1, 1048576, 0, 0)
        .hugetlbfs()
        .iommu_groups(40)
        .vfio(false);
    m
}

const INTEL_PAIR: &str = "eal: {args: [--in-memory]}\ncores: {main: 0, workers: [1, 2]}\n\
    n3: {device: 0000:81:00.0, address: 192.168.13.131/24, peer: 192.168.13.151}\n\
    n6: {device: 0000:81:00.1, address: 192.168.16.152/24, peer: 192.168.16.151}\n";

#[test]
fn a_nic_on_node_1_with_workers_on_node_0_warns_and_its_node_needs_hugepages() {
    let m = two_nodes("numa", 8);
    m.pci(
        "0000:81:00.0",
        0x020000,
        (0x8086, 0x1572),
        Some("vfio-pci"),
        1,
    )
    .pci(
        "0000:81:00.1",
        0x020000,
        (0x8086, 0x1572),
        Some("vfio-pci"),
        1,
    );
    let sw = software(&m, &["net_i40e", "net_ixgbe", "net_ice"]);
    let setup = setup_from(INTEL_PAIR);
    let lines = doctor(&m, &sw, Some(&setup));
    let numa = line(&lines, "n3 NUMA");
    assert_eq!(numa.status, Status::Warn, "{numa}");
    assert!(
        numa.detail
            .contains("0000:81:00.0 is on node 1, lcores 0-2 on node 0"),
        "{numa}"
    );
    assert_eq!(
        fix(numa),
        "put cores.main and cores.workers on node 1's CPUs (8,9,10,11,12,13,14,15), or the NIC \
         in a slot of the lcores' node"
    );
    assert_eq!(line(&lines, "n6 NUMA").status, Status::Warn);
    let driver = line(&lines, "n3 driver");
    assert_eq!(driver.status, Status::Ok, "{driver}");
    assert!(driver.detail.starts_with("on vfio-pci"), "{driver}");
    // Off its kernel driver, an Intel NIC may be any of Intel's PMDs.
    let pmd = lines
        .iter()
        .find(|l| l.need.starts_with("PMD net_ixgbe"))
        .expect("PMD line");
    assert_eq!(pmd.status, Status::Ok, "{pmd}");
    assert_eq!(line(&lines, "IOMMU and vfio").status, Status::Ok);
    assert!(
        lines.iter().all(|l| l.status != Status::Missing),
        "{lines:#?}"
    );

    // Node 1 has the NICs: with no pages there, the run misses them; node 0's stay fine.
    m.hugepages(1, 2048, 0, 0);
    let lines = doctor(&m, &sw, Some(&setup));
    let node1 = line(&lines, "hugepages node 1");
    assert_eq!(node1.status, Status::Missing, "{node1}");
    assert!(
        fix(node1).starts_with(
            "echo 1024 > /sys/devices/system/node/node1/hugepages/hugepages-2048kB/nr_hugepages"
        ),
        "{node1}"
    );
    assert_eq!(line(&lines, "hugepages node 0").status, Status::Ok);

    // The lcores on node 1 with the NIC: no warning.
    let near =
        setup_from(&INTEL_PAIR.replace("main: 0, workers: [1, 2]", "main: 8, workers: [9, 10]"));
    let lines = doctor(&m, &sw, Some(&near));
    let numa = line(&lines, "n3 NUMA");
    assert_eq!(
        (numa.status, numa.detail.as_str()),
        (Status::Ok, "0000:81:00.0 and the lcores on node 1")
    );
}

/// A dual-port ConnectX-5 at the addresses of deploy/systems/connectx5.yaml, on mlx5_core.
fn connectx5(case: &str) -> FakeMachine {
    let m = two_nodes(case, 12);
    for (a, ib, uverbs, iface) in [
        ("0000:3b:00.0", "mlx5_0", Some("uverbs0"), "ens1f0np0"),
        ("0000:3b:00.1", "mlx5_1", None, "ens1f1np1"),
    ] {
        m.pci(a, 0x020000, (0x15b3, 0x1017), Some("mlx5_core"), 0)
            .rdma(a, ib, "16.35.2000", uverbs)
            .netdev(iface, Some(a), 1500, true)
            .pcie_link(a, ("8.0 GT/s", 16), ("8.0 GT/s", 16));
    }
    m
}

#[test]
fn a_connectx5_on_mlx5_core_without_rdma_core_misses_rdma_core_only() {
    let m = connectx5("cx5");
    let sw = software(&m, &["net_mlx5", "net_virtio"]);
    let setup = system_setup("connectx5.yaml", Some("published.yaml"));
    let lines = doctor(&m, &sw, Some(&setup));
    let rdma = line(&lines, "rdma-core");
    assert_eq!(rdma.status, Status::Missing, "{rdma}");
    assert!(
        rdma.detail
            .starts_with("libibverbs.so.1 and libmlx5.so.1 not found"),
        "{rdma}"
    );
    assert_eq!(
        fix(rdma),
        "apt-get install libibverbs1 ibverbs-providers rdma-core"
    );
    let driver = line(&lines, "n3 driver");
    assert_eq!(driver.status, Status::Ok, "{driver}");
    assert!(
        driver
            .detail
            .contains("on mlx5_core: net_mlx5 drives it beside the kernel driver (bifurcated)"),
        "{driver}"
    );
    let iommu = line(&lines, "IOMMU and vfio");
    assert!(iommu.detail.starts_with("not needed"), "{iommu}");
    let ib = line(&lines, "n3 RDMA device");
    assert_eq!(
        (ib.status, ib.detail.as_str()),
        (Status::Ok, "mlx5_0, firmware 16.35.2000, uverbs0")
    );
    let ib6 = line(&lines, "n6 RDMA device");
    assert_eq!(ib6.status, Status::Missing, "{ib6}");
    assert_eq!(fix(ib6), "modprobe ib_uverbs");
    // published.yaml's 1400-byte payload makes 1472-byte packets on N3 (with the container).
    let mtu = line(&lines, "n3 MTU");
    assert_eq!(mtu.status, Status::Ok, "{mtu}");
    assert_eq!(
        mtu.detail,
        "ens1f0np0 1500, the profile's largest packet 1472 bytes"
    );
    assert_eq!(line(&lines, "PMD net_mlx5").status, Status::Ok);
    // The file's lcores 0 and 2-9 are node 0's, as the NIC is.
    assert_eq!(line(&lines, "n3 NUMA").status, Status::Ok);
    let link = line(&lines, "n3 PCIe link");
    assert_eq!(
        (link.status, link.detail.as_str()),
        (
            Status::Ok,
            "8.0 GT/s PCIe x16 (the NIC can 8.0 GT/s PCIe x16)"
        )
    );
    let missing: Vec<&str> = lines
        .iter()
        .filter(|l| l.status == Status::Missing)
        .map(|l| l.need.as_str())
        .collect();
    assert_eq!(missing, ["rdma-core", "n6 RDMA device"]);

    // With rdma-core's libraries and a smaller MTU on N3's interface.
    m.file(&format!("{LIBS}/libibverbs.so.1"), "")
        .file(&format!("{LIBS}/libmlx5.so.1"), "")
        .netdev("ens1f0np0", Some("0000:3b:00.0"), 1400, true);
    let lines = doctor(&m, &software(&m, &["net_mlx5"]), Some(&setup));
    let rdma = line(&lines, "rdma-core");
    assert_eq!(rdma.status, Status::Ok, "{rdma}");
    assert_eq!(
        rdma.detail,
        format!("{LIBS}/libibverbs.so.1, {LIBS}/libmlx5.so.1")
    );
    let mtu = line(&lines, "n3 MTU");
    assert_eq!(mtu.status, Status::Missing, "{mtu}");
    assert_eq!(fix(mtu), "ip link set dev ens1f0np0 mtu 1472");
}

#[test]
fn a_connectx5_on_vfio_pci_goes_back_to_mlx5_core_and_a_narrow_slot_warns() {
    let m = connectx5("cx5-vfio");
    m.pci(
        "0000:3b:00.0",
        0x020000,
        (0x15b3, 0x1017),
        Some("vfio-pci"),
        0,
    )
    .pcie_link("0000:3b:00.1", ("8.0 GT/s", 8), ("8.0 GT/s", 16));
    let setup = system_setup("connectx5.yaml", None);
    let lines = doctor(&m, &software(&m, &["net_mlx5"]), Some(&setup));
    let driver = line(&lines, "n3 driver");
    assert_eq!(driver.status, Status::Missing, "{driver}");
    assert_eq!(fix(driver), "upfbench bind 0000:3b:00.0 --kernel");
    let link = line(&lines, "n6 PCIe link");
    assert_eq!(link.status, Status::Warn, "{link}");
    assert_eq!(
        link.detail,
        "8.0 GT/s PCIe x8 (the NIC can 8.0 GT/s PCIe x16): the slot caps what the NIC carries"
    );
}

/// Two virtio-net NICs at the addresses of deploy/systems/virtio-vm.yaml, on virtio-pci.
fn virtio_vm(case: &str) -> FakeMachine {
    let m = FakeMachine::new(case);
    m.cpus(&[(0, &[0, 1, 2, 3])])
        .hugepages(0, 2048, 512, 512)
        .pci(
            "0000:00:03.0",
            0x020000,
            (0x1af4, 0x1041),
            Some("virtio-pci"),
            -1,
        )
        .netdev("eth0", Some("0000:00:03.0/virtio2"), 1500, true)
        .routes("eth0", 2)
        .pci(
            "0000:00:02.0",
            0x018000,
            (0x1af4, 0x1042),
            Some("virtio-pci"),
            -1,
        );
    for (a, virtio, iface) in [
        ("0000:00:04.0", "virtio3", "eth1"),
        ("0000:00:05.0", "virtio4", "eth2"),
    ] {
        m.pci(a, 0x020000, (0x1af4, 0x1041), Some("virtio-pci"), -1)
            .netdev(iface, Some(&format!("{a}/{virtio}")), 1500, false);
    }
    m
}

#[test]
fn virtio_nics_on_virtio_pci_are_missing_with_the_bind_command() {
    let m = virtio_vm("virtio");
    m.vfio(true);
    let setup = system_setup("virtio-vm.yaml", None);
    let lines = doctor(&m, &software(&m, &["net_virtio"]), Some(&setup));
    let driver = line(&lines, "n3 driver");
    assert_eq!(driver.status, Status::Missing, "{driver}");
    assert_eq!(
        driver.detail,
        "on virtio-pci (interface eth1): DPDK (net_virtio) takes it only from vfio-pci (or uio)"
    );
    assert_eq!(fix(driver), "upfbench bind 0000:00:04.0");
    assert_eq!(fix(line(&lines, "n6 driver")), "upfbench bind 0000:00:05.0");
    let dev = line(&lines, "n3 device");
    assert_eq!(
        dev.detail,
        "0000:00:04.0: virtio NIC 1af4:1041, interface eth1"
    );
    // No NUMA node known (-1): no NUMA line; no RDMA line for virtio.
    assert!(
        lines
            .iter()
            .all(|l| !l.need.contains("NUMA") && !l.need.contains("RDMA"))
    );
}

#[test]
fn vfio_in_no_iommu_mode_takes_nics_and_without_it_nothing_does() {
    let m = virtio_vm("noiommu");
    m.vfio(true)
        .pci(
            "0000:00:04.0",
            0x020000,
            (0x1af4, 0x1041),
            Some("vfio-pci"),
            -1,
        )
        .pci(
            "0000:00:05.0",
            0x020000,
            (0x1af4, 0x1041),
            Some("vfio-pci"),
            -1,
        );
    let setup = system_setup("virtio-vm.yaml", None);
    let lines = doctor(&m, &software(&m, &["net_virtio"]), Some(&setup));
    let iommu = line(&lines, "IOMMU and vfio");
    assert_eq!(iommu.status, Status::Ok, "{iommu}");
    assert_eq!(
        iommu.detail,
        "no IOMMU, vfio in no-IOMMU mode (no DMA isolation); vfio-pci loaded (for n3, n6)"
    );
    assert_eq!(line(&lines, "n3 driver").status, Status::Ok);

    m.vfio(false);
    let lines = doctor(&m, &software(&m, &["net_virtio"]), Some(&setup));
    let iommu = line(&lines, "IOMMU and vfio");
    assert_eq!(iommu.status, Status::Missing, "{iommu}");
    assert!(
        iommu
            .detail
            .ends_with("vfio-pci cannot take a device, and n3, n6 need it"),
        "{iommu}"
    );
    assert!(
        fix(iommu).contains("modprobe vfio enable_unsafe_noiommu_mode=1"),
        "{iommu}"
    );
    assert!(fix(iommu).contains("intel_iommu=on iommu=pt"), "{iommu}");
}

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
