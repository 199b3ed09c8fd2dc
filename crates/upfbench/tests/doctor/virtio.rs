//! virtio NICs on their kernel driver, and vfio in no-IOMMU mode or without it.

use crate::{FakeMachine, doctor, fix, line, software, system_setup};
use upfbench_ops::doctor::Status;

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
