//! A ConnectX-5 on mlx5_core: rdma-core, its RDMA devices, its kernel MTU, its PCIe link.

use crate::{FakeMachine, LIBS, doctor, fix, line, software, system_setup, two_nodes};
use upfbench_ops::doctor::Status;

/// A dual-port ConnectX-5 at the addresses of deploy/systems/connectx5.yaml, on mlx5_core.
pub(crate) fn connectx5(case: &str) -> FakeMachine {
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
