//! The kernel lab: `deploy/lab.sh up` builds namespaces of the case's own joined by veth pairs
//! n3, n4, n6; the generator runs in the tester's namespace and the reflector in the UPF's, both
//! on `net_af_packet` over n3 and n6 with the shipped deploy/systems/lab.yaml and
//! lab-reflector.yaml (only the DPDK file prefixes changed) and profiles/lab.yaml, PFCP over n4
//! through kernel sockets. No MAC is given anywhere: ARP resolves them.
//!
//! dumpcap in both namespaces records everything on n3 and n6 that is not the measured traffic
//! between the two DPDK ports: what must be there is ARP and nothing else. Each side resolves the
//! other itself: the generator asks for the UPF's addresses and each request is answered once, by
//! the DPDK port that owns the address; the reflector asks for its next hops (the gNB on N3, the
//! N6 peer) and gets at least one reply from the generator's port. A kernel address on a DPDK veth would show as a
//! second ARP reply, or as ICMP port unreachable for the traffic it receives.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use serde_json::Value;
use upfbench_config as config;

use crate::harness::{
    self, Process, Scratch, UPFBENCH, assert_sessions, besides_tx_slips, figures, num, patch,
    read_report, reflector_drops, reflector_totals, repo, runtime_dir, serial, total,
    tshark_fields, unique, warnings,
};

/// The UPF's addresses on N3 and N6 (the address plan of docs/measurement.md, as in lab.yaml).
const UPF: [(&str, &str); 2] = [("n3", "192.168.13.151"), ("n6", "192.168.16.151")];
/// The tester's: the gNB the downlink tunnels go to, and the data network's next hop.
const TESTER: [&str; 2] = ["192.168.13.131", "192.168.16.152"];

/// Namespaces built by deploy/lab.sh under names of the case's own; removed when dropped.
pub(crate) struct Lab {
    /// The tester's namespace.
    pub(crate) tg: String,
    /// The UPF's namespace.
    pub(crate) dut: String,
}

impl Lab {
    /// The namespaces of `case`, with the veth pairs n3, n4, n6 between them.
    pub(crate) fn up(case: &str) -> Lab {
        let lab = Lab {
            tg: unique(&format!("{case}-tg")),
            dut: unique(&format!("{case}-dut")),
        };
        let out = lab.script("up");
        assert!(
            out.status.success(),
            "lab.sh up: {}\n{}{}",
            out.status,
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        lab
    }

    fn script(&self, command: &str) -> std::process::Output {
        Command::new("bash")
            .arg(repo().join("deploy/lab.sh"))
            .arg(command)
            .env("TG_NS", &self.tg)
            .env("DUT_NS", &self.dut)
            .output()
            .expect("bash deploy/lab.sh")
    }

    /// The MAC address of `ifc` in namespace `ns`.
    pub(crate) fn mac(ns: &str, ifc: &str) -> String {
        let out = Command::new("ip")
            .args(["-n", ns, "-br", "link", "show", "dev", ifc])
            .output()
            .expect("ip link");
        let text = String::from_utf8_lossy(&out.stdout);
        text.split_whitespace()
            .nth(2)
            .unwrap_or_else(|| panic!("no MAC for {ifc} in {ns}: {text}"))
            .to_owned()
    }
}

impl Drop for Lab {
    fn drop(&mut self) {
        let _ = self.script("down");
    }
}

/// The shipped deploy/systems/lab.yaml and lab-reflector.yaml with DPDK file prefixes of a
/// case's own (the generator's file patched further by `system_patches`), checked by the
/// configuration loader and written into the case's scratch directory as `<name>.yaml` and
/// `<name>-reflector.yaml`.
pub(crate) struct LabFiles {
    pub(crate) system: PathBuf,
    pub(crate) reflector: PathBuf,
    pub(crate) gen_prefix: String,
    pub(crate) refl_prefix: String,
}

impl LabFiles {
    pub(crate) fn new(scratch: &Scratch, name: &str, system_patches: &[(&str, &str)]) -> LabFiles {
        let gen_prefix = unique(&format!("{name}-gen"));
        let refl_prefix = unique(&format!("{name}-refl"));
        let shipped = |f: &str| {
            std::fs::read_to_string(repo().join("deploy/systems").join(f)).expect("shipped")
        };
        let mut system = patch(
            &shipped("lab.yaml"),
            "file_prefix: upfbench-tg",
            &format!("file_prefix: {gen_prefix}"),
        );
        for (from, to) in system_patches {
            system = patch(&system, from, to);
        }
        let reflector = patch(
            &shipped("lab-reflector.yaml"),
            "file_prefix: upfbench-dut",
            &format!("file_prefix: {refl_prefix}"),
        );
        let files = LabFiles {
            system: scratch.write(&format!("{name}.yaml"), &system),
            reflector: scratch.write(&format!("{name}-reflector.yaml"), &reflector),
            gen_prefix,
            refl_prefix,
        };
        config::load_reflector(&files.reflector).unwrap_or_else(|e| panic!("{e}"));
        files
    }

    /// `upfbench reflect` in the lab's UPF namespace, serving once it says so.
    pub(crate) fn reflector(&self, scratch: &Scratch, lab: &Lab, name: &str) -> Process {
        let mut p = Process::spawn(
            name,
            scratch,
            Some(&lab.dut),
            &[UPFBENCH, "reflect", self.reflector.to_str().expect("utf-8")],
            Some(&self.refl_prefix),
        );
        p.wait_until(Duration::from_secs(20), |out, _| {
            out.contains("reflect: upf mode")
        });
        p
    }

    /// `upfbench run` of `profile` in the lab's tester namespace, reports into `reports`.
    pub(crate) fn generator(
        &self,
        scratch: &Scratch,
        lab: &Lab,
        name: &str,
        profile: &Path,
        reports: &Path,
    ) -> Process {
        Process::spawn(
            name,
            scratch,
            Some(&lab.tg),
            &[
                UPFBENCH,
                "run",
                self.system.to_str().expect("utf-8"),
                profile.to_str().expect("utf-8"),
                "--reports",
                reports.to_str().expect("utf-8"),
            ],
            Some(&self.gen_prefix),
        )
    }
}

/// dumpcap on n3 and n6 of `ns` with capture filters `filters` (n3's, n6's), into
/// `<name>.pcapng`, once it captures.
pub(crate) fn capture(
    scratch: &Scratch,
    ns: &str,
    name: &str,
    filters: [&str; 2],
) -> (Process, PathBuf) {
    let file = scratch.path().join(format!("{name}.pcapng"));
    let mut p = Process::spawn(
        name,
        scratch,
        Some(ns),
        &[
            "dumpcap",
            "-q",
            "-w",
            file.to_str().expect("utf-8"),
            "-i",
            "n3",
            "-f",
            filters[0],
            "-i",
            "n6",
            "-f",
            filters[1],
        ],
        None,
    );
    p.wait_until(Duration::from_secs(20), |_, err| {
        err.contains("Capturing on")
    });
    (p, file)
}

/// dumpcap on n3 and n6 of `ns`, keeping every frame but the measured traffic that the local
/// port (MACs `macs`) sends or receives.
fn capture_unmeasured(
    scratch: &Scratch,
    ns: &str,
    name: &str,
    macs: &[String; 2],
) -> (Process, PathBuf) {
    let filter = |mac: &str| {
        format!("not (udp port 2152 or udp port 20000) or not (ether src {mac} or ether dst {mac})")
    };
    capture(scratch, ns, name, [&filter(&macs[0]), &filter(&macs[1])])
}

/// A frame of a capture, as tshark decodes it.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Frame {
    interface: String,
    src: String,
    ethertype: String,
    /// ARP: 1 request, 2 reply.
    opcode: String,
    /// ARP: sender MAC and IPv4 address, target IPv4 address.
    sender_mac: String,
    sender_ip: String,
    target_ip: String,
    /// What tshark says of it.
    summary: String,
}

fn frames(file: &Path) -> Vec<Frame> {
    tshark_fields(
        file,
        "/t",
        &[
            "frame.interface_name",
            "eth.src",
            "eth.type",
            "arp.opcode",
            "arp.src.hw_mac",
            "arp.src.proto_ipv4",
            "arp.dst.proto_ipv4",
            "_ws.col.Info",
        ],
    )
    .iter()
    .map(|l| {
        let f: Vec<&str> = l.split('\t').collect();
        let at = |i: usize| f.get(i).copied().unwrap_or_default().to_owned();
        Frame {
            interface: at(0),
            src: at(1),
            ethertype: at(2),
            opcode: at(3),
            sender_mac: at(4),
            sender_ip: at(5),
            target_ip: at(6),
            summary: at(7),
        }
    })
    .collect()
}

/// ARP `opcode` frames on `ifc` for `ip` (asked for or answered with) from MAC `from`.
fn arp(frames: &[Frame], ifc: &str, opcode: &str, ip: &str, from: &str) -> Vec<Frame> {
    frames
        .iter()
        .filter(|f| f.interface == ifc && f.opcode == opcode && f.src == from)
        .filter(|f| match opcode {
            "1" => f.target_ip == ip,
            _ => f.sender_ip == ip,
        })
        .cloned()
        .collect()
}

#[test]
fn lab_af_packet_over_veths_arp_both_ways_zero_loss() {
    let _serial = serial();
    let scratch = Scratch::new("lab");
    let lab = Lab::up("lab");
    let tg_macs = [Lab::mac(&lab.tg, "n3"), Lab::mac(&lab.tg, "n6")];
    let dut_macs = [Lab::mac(&lab.dut, "n3"), Lab::mac(&lab.dut, "n6")];

    let files = LabFiles::new(&scratch, "lab", &[]);
    let profile = repo().join("profiles/lab.yaml");
    let (expected, ues) = packets_and_sessions(&files, &profile);
    let reports = scratch.path().join("reports");
    let (stdout, refl, tg_file, dut_file) = run_with_captures(
        &scratch,
        &lab,
        &files,
        &profile,
        &reports,
        (&tg_macs, &dut_macs),
    );

    // PFCP over n4; every session established and deleted.
    assert_sessions(&stdout, &refl.stderr(), ues);
    check_upf_macs_resolved(&stdout, &dut_macs);
    let report = read_report(&reports);
    check_zero_loss(&report, expected);
    check_no_tester_loss(&report);
    check_reflector_resolved_its_next_hops(&refl);
    check_arp_only_on_the_wire(&frames(&tg_file), &frames(&dut_file), &tg_macs, &dut_macs);
}

/// What profiles/lab.yaml sends each way (one rate each way, for whole seconds), and its
/// sessions.
pub(crate) fn packets_and_sessions(files: &LabFiles, profile: &Path) -> (u64, u32) {
    let (_, p) = config::load_run(&files.system, profile).unwrap_or_else(|e| panic!("{e}"));
    let rates: Vec<u64> = p
        .streams
        .iter()
        .map(|s| match s.rate {
            config::Rate::Pps(r) => r as u64,
            ref r => panic!("profiles/lab.yaml: a rate in packets per second expected, not {r:?}"),
        })
        .collect();
    assert!(rates.len() == 2 && rates[0] == rates[1], "{rates:?}");
    let expected = rates[0] * p.duration.as_secs();
    let ues = p.sessions.count;
    (expected, ues)
}

/// Runs the generator against the reflector, capturing what is not measured traffic on both
/// sides; both exit cleanly and leave no runtime files. Returns the generator's output, the
/// reflector and the two captures.
pub(crate) fn run_with_captures(
    scratch: &Scratch,
    lab: &Lab,
    files: &LabFiles,
    profile: &Path,
    reports: &Path,
    macs: (&[String; 2], &[String; 2]),
) -> (String, Process, PathBuf, PathBuf) {
    let (tg_macs, dut_macs) = macs;
    let (mut tg_capture, tg_file) = capture_unmeasured(scratch, &lab.tg, "tg-capture", tg_macs);
    let (mut dut_capture, dut_file) =
        capture_unmeasured(scratch, &lab.dut, "dut-capture", dut_macs);
    let mut refl = files.reflector(scratch, lab, "reflector");
    let mut generator = files.generator(scratch, lab, "generator", profile, reports);
    let status = generator.wait(Duration::from_secs(60));
    let refl_status = refl.stop(Duration::from_secs(15));
    tg_capture.stop(Duration::from_secs(10));
    dut_capture.stop(Duration::from_secs(10));
    let stdout = generator.stdout();
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
    for p in [&files.gen_prefix, &files.refl_prefix] {
        assert!(
            !runtime_dir(p).exists(),
            "{} left",
            runtime_dir(p).display()
        );
    }
    (stdout, refl, tg_file, dut_file)
}

/// The generator resolved the UPF's MACs: the reflector's veth ends.
fn check_upf_macs_resolved(stdout: &str, dut_macs: &[String; 2]) {
    for ((ifc, ip), mac) in UPF.iter().zip(dut_macs) {
        let line = format!("{}: {ip} is at {mac}", ifc.to_uppercase());
        assert!(
            stdout.lines().any(|l| l == line),
            "no {line:?} in:\n{stdout}"
        );
    }
}

/// Zero loss, a latency sample for every packet, nothing unexpected received.
pub(crate) fn check_zero_loss(report: &Value, expected: u64) {
    for direction in ["uplink", "downlink"] {
        let f = figures(report, direction);
        let d = harness::direction(report, direction);
        println!(
            "lab: {direction} sent {} received {} lost {} tx {:.1} kpps rx {:.1} kpps, \
             latency p50 {:.2} us p99 {:.2} us",
            f.sent,
            f.received,
            f.lost,
            d["tx"]["kpps"].as_f64().unwrap_or(f64::NAN),
            d["rx"]["kpps"].as_f64().unwrap_or(f64::NAN),
            f.p50_ns as f64 / 1e3,
            num(d, &["latency", "p99_ns"]) as f64 / 1e3,
        );
        assert_eq!(f.sent, expected, "{direction}: sent exactly");
        assert_eq!((f.received, f.lost), (f.sent, 0), "{direction}: zero loss");
        assert_eq!(
            (f.duplicates, f.reordered, f.late),
            (0, 0, 0),
            "{direction}"
        );
        assert_eq!(
            f.samples, f.received,
            "{direction}: a latency sample per packet"
        );
    }
    assert_eq!(besides_tx_slips(warnings(report)), Vec::<String>::new());
}

/// Each port's kernel interface sent and received what its PMD did: no tester loss.
pub(crate) fn check_no_tester_loss(report: &Value) {
    for (i, ifc) in ["n3", "n6"].iter().enumerate() {
        let p = &report["steps"][0]["ports"][i];
        let k = &p["interface"];
        println!("lab: {ifc}: PMD {p}");
        assert_eq!(k["name"], *ifc, "{p}");
        assert_eq!(
            (num(k, &["rx_packets"]), num(k, &["tx_packets"])),
            (num(p, &["ipackets"]), num(p, &["opackets"])),
            "{p}"
        );
        assert_eq!((num(k, &["rx_lost"]), num(k, &["tx_lost"])), (0, 0), "{p}");
    }
    for d in report["steps"][0]["directions"]
        .as_array()
        .expect("directions")
    {
        assert_eq!(num(d, &["tester_lost"]), 0, "{d}");
    }
}

/// The reflector resolved the generator's MACs itself (the gNB on N3, the N6 peer): it
/// dropped nothing for want of a neighbour, nor for any other reason.
pub(crate) fn check_reflector_resolved_its_next_hops(refl: &Process) {
    let totals = reflector_totals(&refl.stdout());
    println!("lab: reflector {totals:?}");
    assert_eq!(reflector_drops(&totals), BTreeMap::new());
    assert_eq!(total(&totals, "next hops resolved"), 2, "{totals:?}");
    assert_eq!(total(&totals, "next hops unanswered"), 0, "{totals:?}");
}

/// On the wire: ARP only, each request answered once by the owner of the address.
fn check_arp_only_on_the_wire(
    tg: &[Frame],
    dut: &[Frame],
    tg_macs: &[String; 2],
    dut_macs: &[String; 2],
) {
    let others: Vec<&Frame> = tg
        .iter()
        .chain(dut)
        .filter(|f| f.ethertype != "0x0806")
        .collect();
    assert!(
        others.is_empty(),
        "frames other than ARP beside the measured traffic: {others:#?}"
    );
    for i in 0..UPF.len() {
        check_arp_both_ways(i, tg, dut, tg_macs, dut_macs);
    }
}

/// On `UPF[i]`'s link: the generator asked for the UPF and the reflector answered each
/// request once; the reflector asked for the tester and got answers, none unasked for.
fn check_arp_both_ways(
    i: usize,
    tg: &[Frame],
    dut: &[Frame],
    tg_macs: &[String; 2],
    dut_macs: &[String; 2],
) {
    let (ifc, upf_ip) = UPF[i];
    // The generator asks for the UPF (the reflector's side sees the requests) and the
    // reflector answers (the generator's side sees the replies).
    let asked = arp(dut, ifc, "1", upf_ip, &tg_macs[i]);
    let answered = arp(tg, ifc, "2", upf_ip, &dut_macs[i]);
    assert!(
        !asked.is_empty(),
        "{ifc}: the generator never asked for {upf_ip}"
    );
    assert_eq!(answered.len(), asked.len(), "{ifc}: one reply per request");
    assert!(answered.iter().all(|f| f.sender_mac == dut_macs[i]));
    let replies = tg.iter().filter(|f| f.interface == ifc && f.opcode == "2");
    assert_eq!(
        replies.count(),
        answered.len(),
        "{ifc}: no other reply: {tg:#?}"
    );
    // The reflector asked for the generator's address itself (the generator's side sees the
    // requests arrive, also those sent before the generator's port was open) and got at
    // least one reply, from the generator's port; every reply on the reflector's side
    // answers one of its requests.
    let tester_ip = TESTER[i];
    let refl_asked = arp(tg, ifc, "1", tester_ip, &dut_macs[i]);
    let refl_answered = arp(dut, ifc, "2", tester_ip, &tg_macs[i]);
    assert!(
        !refl_asked.is_empty(),
        "{ifc}: the reflector never asked for {tester_ip}: {tg:#?}"
    );
    assert!(
        !refl_answered.is_empty(),
        "{ifc}: none of the reflector's {} requests was answered: {dut:#?}",
        refl_asked.len()
    );
    assert!(
        refl_answered.len() <= refl_asked.len(),
        "{ifc}: more replies than requests: {dut:#?}"
    );
    assert!(refl_answered.iter().all(|f| f.sender_mac == tg_macs[i]));
    let replies = dut.iter().filter(|f| f.interface == ifc && f.opcode == "2");
    assert_eq!(
        replies.count(),
        refl_answered.len(),
        "{ifc}: no other reply: {dut:#?}"
    );
    println!(
        "lab: {ifc}: generator asked for {upf_ip} {} time(s), answered by {}; reflector asked \
         for {tester_ip} {} time(s), answered {} time(s) by {}",
        asked.len(),
        dut_macs[i],
        refl_asked.len(),
        refl_answered.len(),
        tg_macs[i]
    );
}
