//! A NIC on the far NUMA node, and the hugepages of its node.

use crate::{doctor, fix, line, setup_from, software, two_nodes};
use upfbench_ops::doctor::Status;

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
