//! VLANs in the kernel lab (issue 29): the generator and the reflector on `net_af_packet` over
//! the lab's veths, N3 on VLAN 13 and N6 on VLAN 16 on both sides (the generator's PCP 5 on
//! N3, the reflector's 2), once with the NIC's offloads (`vlan.offload: auto`: af_packet
//! offers VLAN insert and strip), once forced to software (`off`), and once with N3 in QinQ
//! (S-tag 100 around VLAN 13: af_packet strips the outer tag, software writes both and reads
//! the inner one from the frame). Each time: every packet
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

/// A case: the ports' `vlan.offload`, N3 in QinQ (S-tag 100) or not, and what the report
/// and the reflector say of each port's tags.
struct Shape {
    offload: &'static str,
    qinq: bool,
    lines: [&'static str; 2],
}

#[test]
fn lab_vlan_offloaded_by_af_packet_zero_loss_tags_on_the_wire() {
    lab_vlan(&Shape {
        offload: "auto",
        qinq: false,
        lines: [
            "VLAN 13: the NIC inserts and strips them (net_af_packet)",
            "VLAN 16: the NIC inserts and strips them (net_af_packet)",
        ],
    });
}

#[test]
fn lab_vlan_in_software_zero_loss_tags_on_the_wire() {
    lab_vlan(&Shape {
        offload: "off",
        qinq: false,
        lines: [
            "VLAN 13: in software (vlan.offload: off; net_af_packet)",
            "VLAN 16: in software (vlan.offload: off; net_af_packet)",
        ],
    });
}

/// QinQ on af_packet: the kernel takes the outer tag off (af_packet's strip hands it over in
/// the mbuf, its TPID lost) and leaves the inner one in the frame; the S-tag and C-tag are
/// written in software (af_packet has no QinQ insert).
#[test]
fn lab_vlan_qinq_stripped_by_af_packet_zero_loss_tags_on_the_wire() {
    lab_vlan(&Shape {
        offload: "auto",
        qinq: true,
        lines: [
            "QinQ 100/13: the NIC strips them, software writes them (net_af_packet offers no \
             QinQ insert)",
            "VLAN 16: the NIC inserts and strips them (net_af_packet)",
        ],
    });
}

/// The lab with both roles' ports tagged as `shape` says.
fn lab_vlan(shape: &Shape) {
    let _serial = serial();
    let name = format!(
        "vlan-{}{}",
        shape.offload,
        if shape.qinq { "-qinq" } else { "" }
    );
    let scratch = Scratch::new(&name);
    let lab = Lab::up(&name);
    let tg_macs = [Lab::mac(&lab.tg, "n3"), Lab::mac(&lab.tg, "n6")];
    let dut_macs = [Lab::mac(&lab.dut, "n3"), Lab::mac(&lab.dut, "n6")];
    let offload = shape.offload;
    let tag = |id: u16, pcp: u8| format!("  vlan: {{id: {id}, pcp: {pcp}, offload: {offload}}}\n");
    let qinq = if shape.qinq {
        "  qinq: {id: 100}\n"
    } else {
        ""
    };
    let n3 = "  peer: 192.168.13.151\n";
    let n6 = "  peer: 192.168.16.151\n";
    let files = LabFiles::new(
        &scratch,
        &name,
        &[
            (n3, &format!("{n3}{}{qinq}", tag(13, 5))),
            (n6, &format!("{n6}{}", tag(16, 0))),
        ],
    );
    tag_reflector(
        &files.reflector,
        &format!("{}{qinq}", tag(13, 2)),
        &tag(16, 0),
    );
    // The lab's profile at a quarter of its rate: 15,000 frames a direction, enough to pass a
    // pool's worth on each port, and a quarter of the frames for tshark to decode.
    let lab_profile = std::fs::read_to_string(repo().join("profiles/lab.yaml")).expect("lab.yaml");
    let profile = scratch.write(
        "lab-5kpps.yaml",
        &crate::harness::patch(&lab_profile, "rate: 20kpps", "rate: 5kpps"),
    );
    let (expected, _) = packets_and_sessions(&files, &profile);
    let reports = scratch.path().join("reports");

    // `vlan`: a QinQ frame keeps its inner tag in the frame once the kernel took the outer off.
    let filter = ["udp or vlan", "udp or vlan"];
    let (mut tg_cap, tg_file) = capture(&scratch, &lab.tg, "tg-capture", filter);
    let (mut dut_cap, dut_file) = capture(&scratch, &lab.dut, "dut-capture", filter);
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
    check_lines(&report, &refl.stdout(), shape);
    // What the generator sent, seen in the UPF's namespace; what the reflector sent, in the
    // tester's.
    // Wireshark reads an outer tag of TPID 0x88a8 as 802.1ad (its id first), the inner one as
    // 802.1Q; an 802.1Q tag alone leaves the 802.1ad column empty.
    let n3_vids = if shape.qinq { "100\t13" } else { "\t13" };
    let sent_by = |file: &Path, from: &[String; 2], to: &[String; 2], n3_pcp: &str| {
        let frames = udp_frames(file);
        for (i, (ifc, vids, pcp)) in [("n3", n3_vids, n3_pcp), ("n6", "\t16", "0")]
            .into_iter()
            .enumerate()
        {
            let want = format!("{ifc}\t{vids}\t{pcp}\t{}\t{}", from[i], to[i]);
            check_frames(&frames, file, ifc, &want);
        }
    };
    sent_by(&dut_file, &tg_macs, &dut_macs, "5");
    sent_by(&tg_file, &dut_macs, &tg_macs, "2");
}

/// Each port's line in the report's configuration and on the reflector's terminal.
fn check_lines(report: &serde_json::Value, refl_stdout: &str, shape: &Shape) {
    for (key, how) in ["n3 vlan", "n6 vlan"].into_iter().zip(shape.lines) {
        let line = report["config"][key].as_str().unwrap_or_default();
        assert_eq!(line, how, "{key}");
        let refl_line = format!("{} vlan: {how}", key[..2].to_uppercase());
        assert!(
            refl_stdout.lines().any(|l| l == refl_line),
            "no {refl_line:?} in:\n{refl_stdout}"
        );
    }
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

/// Every UDP frame of `file`, as a line of its interface, 802.1ad VLAN id, 802.1Q VLAN id and
/// PCP, source and destination MAC (tab-separated).
fn udp_frames(file: &Path) -> Vec<String> {
    let fields = [
        "frame.interface_name",
        "ieee8021ad.id",
        "vlan.id",
        "vlan.priority",
        "eth.src",
        "eth.dst",
        "udp.srcport",
    ];
    // The traffic: UDP (ARP is captured too, for QinQ's sake: see the capture filter).
    tshark_fields(file, "\t", &fields)
        .into_iter()
        .filter_map(|l| {
            let (frame, udp) = l.rsplit_once('\t')?;
            (!udp.is_empty()).then(|| frame.to_owned())
        })
        .collect()
}

/// Every UDP frame of `frames` (`file`'s) on `ifc` reads `want`, and more than a pool's worth
/// of them were captured.
fn check_frames(frames: &[String], file: &Path, ifc: &str, want: &str) {
    let lines: Vec<&String> = frames
        .iter()
        .filter(|l| l.starts_with(&format!("{ifc}\t")))
        .collect();
    let wrong: Vec<&&String> = lines.iter().filter(|l| **l != want).collect();
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
