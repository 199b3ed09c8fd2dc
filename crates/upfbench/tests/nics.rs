//! `upfbench nics` and `upfbench bind` on made-up sysfs trees: what is listed, what is refused,
//! and which files binding writes what into. Nothing here touches this machine's devices.

#[path = "fake_machine.rs"]
mod fake_machine;

use std::process::{Command, Output};

use fake_machine::FakeMachine;
use upfbench_ops::machine::{Machine, Root};
use upfbench_ops::nics::bind::{self, BindPlan, Refusal, SysfsWrite, Target};
use upfbench_ops::nics::rows;

const ETH0: &str = "0000:00:03.0";
const DISK: &str = "0000:00:02.0";
const VIRTIO_N3: &str = "0000:00:04.0";
const CX5: &str = "0000:3b:00.0";
const INTEL: &str = "0000:81:00.0";

/// A VM's virtio NICs (eth0 carries its traffic, eth1 is free), its virtio disk, a ConnectX-5
/// and an Intel NIC on vfio-pci.
fn machine(case: &str) -> FakeMachine {
    let m = FakeMachine::new(case);
    m.cpus(&[(0, &[0, 1]), (1, &[2, 3])])
        .pci(ETH0, 0x020000, (0x1af4, 0x1041), Some("virtio-pci"), -1)
        .netdev("eth0", Some(&format!("{ETH0}/virtio2")), 1500, true)
        .routes("eth0", 2)
        .pci(DISK, 0x018000, (0x1af4, 0x1042), Some("virtio-pci"), -1)
        .pci(
            VIRTIO_N3,
            0x020000,
            (0x1af4, 0x1041),
            Some("virtio-pci"),
            -1,
        )
        .netdev("eth1", Some(&format!("{VIRTIO_N3}/virtio3")), 1500, false)
        .pci(CX5, 0x020000, (0x15b3, 0x1017), Some("mlx5_core"), 1)
        .netdev("ens1f0np0", Some(CX5), 1500, true)
        .pci(INTEL, 0x020000, (0x8086, 0x1572), Some("vfio-pci"), 1)
        .vfio(true);
    m
}

fn read(m: &FakeMachine) -> Machine {
    Machine::read(&Root::new(m.root()))
}

fn w(path: &str, value: &str) -> SysfsWrite {
    SysfsWrite {
        path: path.to_owned(),
        value: value.to_owned(),
    }
}

fn vfio() -> Target {
    Target::UserSpace("vfio-pci".to_owned())
}

#[test]
fn the_nics_are_listed_with_how_dpdk_takes_each() {
    let m = machine("rows");
    let rows = rows(&read(&m));
    let addresses: Vec<&str> = rows.iter().map(|r| r.address.as_str()).collect();
    assert_eq!(
        addresses,
        [ETH0, VIRTIO_N3, CX5, INTEL],
        "the disk is no NIC"
    );
    let eth0 = &rows[0];
    assert_eq!(
        (
            eth0.model.as_str(),
            eth0.driver.as_str(),
            eth0.interface.as_str(),
            eth0.numa.as_str()
        ),
        ("virtio 1af4:1041", "virtio-pci", "eth0 (up, 2 routes)", "-")
    );
    assert_eq!(
        eth0.dpdk,
        "after upfbench bind 0000:00:03.0 (net_virtio on vfio-pci); eth0 is in use (up, with \
         routes): --force"
    );
    assert_eq!(rows[1].interface, "eth1 (down, 0 routes)");
    assert_eq!(
        rows[2].dpdk,
        "yes, as it is: net_mlx5 beside mlx5_core (bifurcated)"
    );
    assert_eq!(rows[2].numa, "1");
    assert_eq!(
        rows[3].dpdk,
        "yes: net_ixgbe/net_i40e/net_iavf/net_ice/net_e1000/net_igc on vfio-pci"
    );
}

#[test]
fn a_virtio_nic_goes_to_vfio_pci_and_back_by_three_writes() {
    let m = machine("bind");
    let plan = bind::plan(&read(&m), "00:04.0", &vfio(), false).expect("bindable");
    let BindPlan::Writes(writes) = plan else {
        panic!("writes expected: {plan:?}");
    };
    assert_eq!(
        writes,
        [
            w(
                "/sys/bus/pci/devices/0000:00:04.0/driver_override",
                "vfio-pci"
            ),
            w("/sys/bus/pci/drivers/virtio-pci/unbind", VIRTIO_N3),
            w("/sys/bus/pci/drivers_probe", VIRTIO_N3),
        ]
    );
    bind::apply(&Root::new(m.root()), &writes).expect("written");
    assert_eq!(
        m.read("/sys/devices/pci0000:00/0000:00:04.0/driver_override"),
        "vfio-pci"
    );
    assert_eq!(m.read("/sys/bus/pci/drivers/virtio-pci/unbind"), VIRTIO_N3);
    assert_eq!(m.read("/sys/bus/pci/drivers_probe"), VIRTIO_N3);
    assert_eq!(
        m.read("/sys/bus/pci/drivers/vfio-pci/bind"),
        "",
        "bound by the probe"
    );

    // The kernel did what the writes ask: the NIC is on vfio-pci with its override.
    m.pci(VIRTIO_N3, 0x020000, (0x1af4, 0x1041), Some("vfio-pci"), -1)
        .file(
            "/sys/devices/pci0000:00/0000:00:04.0/driver_override",
            "vfio-pci\n",
        );
    let now = read(&m);
    assert_eq!(
        bind::plan(&now, VIRTIO_N3, &vfio(), false),
        Ok(BindPlan::Nothing(
            "0000:00:04.0 is already on vfio-pci".into()
        ))
    );
    let back = bind::plan(&now, VIRTIO_N3, &Target::Kernel, false).expect("back");
    assert_eq!(
        back,
        BindPlan::Writes(vec![
            w("/sys/bus/pci/devices/0000:00:04.0/driver_override", "\n"),
            w("/sys/bus/pci/drivers/vfio-pci/unbind", VIRTIO_N3),
            w("/sys/bus/pci/drivers_probe", VIRTIO_N3),
        ])
    );
    let BindPlan::Writes(back) = back else {
        unreachable!()
    };
    bind::apply(&Root::new(m.root()), &back).expect("written");
    assert_eq!(
        m.read("/sys/devices/pci0000:00/0000:00:04.0/driver_override"),
        "\n"
    );
    assert_eq!(m.read("/sys/bus/pci/drivers/vfio-pci/unbind"), VIRTIO_N3);
}

#[test]
fn what_must_not_be_bound_is_refused() {
    let m = machine("refuse");
    let machine = read(&m);
    check_refusals(&machine);
    check_an_unseen_virtio_nic_is_left_alone(&m);
    check_force_and_the_bifurcated_message(&machine);
    check_vfio_needs_an_iommu(&m);
}

/// A bifurcated NIC, one in use, a disk, a device that is not there, a driver not loaded and a
/// kernel driver named as user space: each refused with its reason.
fn check_refusals(machine: &Machine) {
    let refused = |addr: &str, target: &Target, force: bool| {
        bind::plan(machine, addr, target, force).expect_err("refused")
    };
    assert!(matches!(
        refused(CX5, &vfio(), true),
        Refusal::Bifurcated {
            kernel_driver: "mlx5_core",
            pmd: "net_mlx5",
            ..
        }
    ));
    assert_eq!(
        refused(ETH0, &vfio(), false),
        Refusal::InUse {
            address: ETH0.into(),
            interface: "eth0".into(),
            routes: 2
        }
    );
    assert!(matches!(
        refused(DISK, &vfio(), true),
        Refusal::NotANic {
            class: 0x018000,
            ..
        }
    ));
    assert!(matches!(
        refused(DISK, &Target::Kernel, true),
        Refusal::NotANic { .. }
    ));
    assert_eq!(
        refused("0000:09:00.0", &vfio(), true),
        Refusal::NoDevice("0000:09:00.0".into())
    );
    assert_eq!(
        refused(
            VIRTIO_N3,
            &Target::UserSpace("uio_pci_generic".into()),
            false
        ),
        Refusal::DriverNotLoaded {
            driver: "uio_pci_generic".into()
        }
    );
    assert_eq!(
        refused(VIRTIO_N3, &Target::UserSpace("virtio-pci".into()), false),
        Refusal::NotUserSpace("virtio-pci".into())
    );
}

/// A virtio NIC on its kernel driver whose interface this namespace does not see (the
/// host's eth0 seen from a lab's namespace) is left alone.
fn check_an_unseen_virtio_nic_is_left_alone(m: &FakeMachine) {
    m.pci(
        "0000:00:06.0",
        0x020000,
        (0x1af4, 0x1041),
        Some("virtio-pci"),
        -1,
    );
    assert_eq!(
        bind::plan(&read(m), "0000:00:06.0", &vfio(), false),
        Err(Refusal::Unseen {
            address: "0000:00:06.0".into(),
            driver: "virtio-pci".into()
        })
    );
    assert!(bind::plan(&read(m), "0000:00:06.0", &vfio(), true).is_ok());
}

/// --force takes eth0 all the same; a bifurcated NIC's refusal says it stays on its driver.
fn check_force_and_the_bifurcated_message(machine: &Machine) {
    assert!(matches!(
        bind::plan(machine, ETH0, &vfio(), true),
        Ok(BindPlan::Writes(_))
    ));
    let msg = Refusal::Bifurcated {
        address: CX5.into(),
        kernel_driver: "mlx5_core",
        pmd: "net_mlx5",
    }
    .to_string();
    assert!(msg.contains("stays on mlx5_core; nothing to bind"), "{msg}");
}

/// Without an IOMMU and with no-IOMMU mode off, vfio-pci would leave the NIC driverless.
fn check_vfio_needs_an_iommu(m: &FakeMachine) {
    m.vfio(false);
    assert_eq!(
        bind::plan(&read(m), VIRTIO_N3, &vfio(), false),
        Err(Refusal::NoIommu(VIRTIO_N3.into()))
    );
    m.iommu_groups(3);
    assert!(bind::plan(&read(m), VIRTIO_N3, &vfio(), false).is_ok());
}

fn upfbench(m: &FakeMachine, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_upfbench"))
        .args(args)
        .arg("--root")
        .arg(m.root())
        .output()
        .expect("run upfbench")
}

#[test]
fn the_commands_write_only_what_they_say() {
    let m = machine("command");
    // A refusal writes nothing.
    let out = upfbench(&m, &["bind", CX5]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains("is a Mellanox NIC"), "{err}");
    assert_eq!(m.read("/sys/bus/pci/drivers_probe"), "");
    assert_eq!(
        m.read("/sys/devices/pci0000:00/0000:3b:00.0/driver_override"),
        "(null)\n"
    );
    // A dry run neither.
    let out = upfbench(&m, &["bind", VIRTIO_N3, "--dry-run"]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{stdout}");
    assert_eq!(
        stdout,
        "would write \"vfio-pci\" to /sys/bus/pci/devices/0000:00:04.0/driver_override\n\
         would write \"0000:00:04.0\" to /sys/bus/pci/drivers/virtio-pci/unbind\n\
         would write \"0000:00:04.0\" to /sys/bus/pci/drivers_probe\n"
    );
    assert_eq!(m.read("/sys/bus/pci/drivers_probe"), "");
    // The real thing writes; the made-up tree has no kernel to move the NIC, which the command
    // finds when it reads the driver back.
    let out = upfbench(&m, &["bind", VIRTIO_N3]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(
        err.contains(
            "0000:00:04.0 is on virtio-pci after the probe: the kernel log (dmesg) says why"
        ),
        "{err}"
    );
    assert_eq!(m.read("/sys/bus/pci/drivers_probe"), VIRTIO_N3);
    assert_eq!(m.read("/sys/bus/pci/drivers/virtio-pci/unbind"), VIRTIO_N3);

    let out = upfbench(&m, &["nics"]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(lines.len(), 5, "{stdout}");
    assert!(lines[0].starts_with("PCI address   NIC"), "{stdout}");
    assert!(
        lines[3].starts_with("0000:3b:00.0  Mellanox 15b3:1017"),
        "{stdout}"
    );
}
