//! VLANs in the kernel lab (issue 29): the generator and the reflector on `net_af_packet` over
//! the lab's veths, N3 on VLAN 13 and N6 on VLAN 16 on both sides (the generator's PCP 5 on
//! N3, the reflector's 2), once with the NIC's offloads (`vlan.offload: auto`: af_packet
//! offers VLAN insert and strip) and once forced to software (`off`). Each time: every packet
//! back each way, zero loss, each port's line in the report and on the reflector's terminal
//! saying which path its tags took; and on the wire (dumpcap on the far side of each veth)
//! every frame of the traffic carries its port's VLAN id and PCP between the right MACs. With
//! the offload, af_packet inserts the tag into the generator's template mbufs
//! (`rte_vlan_insert`, which writes over the frame's first bytes): the MACs of the frames sent
//! after the pool's 4,095 mbufs came round once show the template restored.

use std::path::Path;

use crate::harness::{Scratch, read_report, repo, serial, tshark_fields};
use crate::lab::{
    Lab, LabFiles, capture, check_no_tester_loss, check_reflector_resolved_its_next_hops,
    check_zero_loss, packets_and_sessions,
};

/// More frames than a TX template pool holds (4,095): some mbufs were sent twice at least.
const MORE_THAN_A_POOL: usize = 8_000;

#[test]
fn lab_vlan_offloaded_by_af_packet_zero_loss_tags_on_the_wire() {
    lab_vlan("auto", "the NIC inserts and strips them (net_af_packet)");
}

#[test]
fn lab_vlan_in_software_zero_loss_tags_on_the_wire() {
    lab_vlan("off", "in software (vlan.offload: off; net_af_packet)");
}

/// The lab with tagged ports whose `vlan.offload` is `offload`; each port's line ends in `how`.
fn lab_vlan(offload: &str, how: &str) {
    let _serial = serial();
    let name = format!("vlan-{offload}");
    let scratch = Scratch::new(&name);
    let lab = Lab::up(&name);
    let tg_macs = [Lab::mac(&lab.tg, "n3"), Lab::mac(&lab.tg, "n6")];
    let dut_macs = [Lab::mac(&lab.dut, "n3"), Lab::mac(&lab.dut, "n6")];
    let tag = |id: u16, pcp: u8| format!("  vlan: {{id: {id}, pcp: {pcp}, offload: {offload}}}\n");
    let n3 = "  peer: 192.168.13.151\n";
    let n6 = "  peer: 192.168.16.151\n";
    let files = LabFiles::new(
        &scratch,
        &name,
        &[
            (n3, &format!("{n3}{}", tag(13, 5))),
            (n6, &format!("{n6}{}", tag(16, 0))),
        ],
    );
    tag_reflector(&files.reflector, &tag(13, 2), &tag(16, 0));
    let profile = repo().join("profiles/lab.yaml");
    let (expected, _) = packets_and_sessions(&files, &profile);
    let reports = scratch.path().join("reports");

    let (mut tg_cap, tg_file) = capture(&scratch, &lab.tg, "tg-capture", ["udp", "udp"]);
    let (mut dut_cap, dut_file) = capture(&scratch, &lab.dut, "dut-capture", ["udp", "udp"]);
    let mut refl = files.reflector(&scratch, &lab, "reflector");
    let mut generator = files.generator(&scratch, &lab, "generator", &profile, &reports);
    let status = generator.wait(std::time::Duration::from_secs(60));
    let refl_status = refl.stop(std::time::Duration::from_secs(15));
    tg_cap.stop(std::time::Duration::from_secs(10));
    dut_cap.stop(std::time::Duration::from_secs(10));
    assert!(
        status.success(),
        "generator: {status}\n{}",
        generator.logs()
    );
    assert!(
        refl_status.success(),
        "reflector: {refl_status}\n{}",
        refl.logs()
    );

    let report = read_report(&reports);
    check_zero_loss(&report, expected);
    check_no_tester_loss(&report);
    check_reflector_resolved_its_next_hops(&refl);
    for (key, vlan) in [("n3 vlan", 13), ("n6 vlan", 16)] {
        let line = report["config"][key].as_str().unwrap_or_default();
        assert_eq!(line, format!("VLAN {vlan}: {how}"), "{key}");
        let refl_line = format!("{} vlan: VLAN {vlan}: {how}", key[..2].to_uppercase());
        assert!(
            refl.stdout().lines().any(|l| l == refl_line),
            "no {refl_line:?} in:\n{}",
            refl.stdout()
        );
    }
    // What the generator sent, seen in the UPF's namespace; what the reflector sent, in the
    // tester's.
    let sent_by = |file: &Path, from: &[String; 2], to: &[String; 2], pcp: [&str; 2]| {
        for (i, (ifc, vlan)) in [("n3", "13"), ("n6", "16")].into_iter().enumerate() {
            let want = format!("{ifc}\t{vlan}\t{}\t{}\t{}", pcp[i], from[i], to[i]);
            check_frames(file, ifc, &want);
        }
    };
    sent_by(&dut_file, &tg_macs, &dut_macs, ["5", "0"]);
    sent_by(&tg_file, &dut_macs, &tg_macs, ["2", "0"]);
}

/// Adds `n3` and `n6` (each a `vlan:` line) to the lab's reflector file at `path`.
fn tag_reflector(path: &Path, n3: &str, n6: &str) {
    let text = std::fs::read_to_string(path).expect("the reflector's file");
    let text = crate::harness::patch(
        &text,
        "  address: 192.168.13.151/24\n",
        &format!("  address: 192.168.13.151/24\n{n3}"),
    );
    let text = crate::harness::patch(
        &text,
        "  peer: 192.168.16.152\n",
        &format!("  peer: 192.168.16.152\n{n6}"),
    );
    std::fs::write(path, &text).expect("write");
    upfbench_config::load_reflector(path).unwrap_or_else(|e| panic!("{e}"));
}

/// Every UDP frame of `file` on `ifc` reads `want` (interface, VLAN id, PCP, source and
/// destination MAC), and more than a pool's worth of them were captured.
fn check_frames(file: &Path, ifc: &str, want: &str) {
    let fields = [
        "frame.interface_name",
        "vlan.id",
        "vlan.priority",
        "eth.src",
        "eth.dst",
    ];
    let lines: Vec<String> = tshark_fields(file, "\t", &fields)
        .into_iter()
        .filter(|l| l.starts_with(&format!("{ifc}\t")))
        .collect();
    let wrong: Vec<&String> = lines.iter().filter(|l| *l != want).collect();
    println!(
        "lab vlan: {} {ifc}: {} frames, {} not {want:?}",
        file.display(),
        lines.len(),
        wrong.len()
    );
    assert!(
        wrong.is_empty(),
        "{ifc}: frames not {want:?}: {} of {}, first {:?}",
        wrong.len(),
        lines.len(),
        &wrong[..wrong.len().min(5)]
    );
    assert!(
        lines.len() > MORE_THAN_A_POOL,
        "{ifc}: {} frames",
        lines.len()
    );
}
