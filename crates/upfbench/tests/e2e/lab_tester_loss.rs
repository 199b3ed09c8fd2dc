//! The tester's own loss in the kernel lab: a `tbf` shaper below the offered rate on the
//! tester's n3 veth. `net_af_packet` bypasses the qdisc by default (`qdisc_bypass=1`): the
//! shaper then sees nothing and the tester loses nothing. With `qdisc_bypass=0` in the
//! generator's n3 devargs the shaper refuses uplink G-PDUs the PMD already counted sent (the
//! kernel leaves a refused frame in the socket's ring and offers it again at the next send, so
//! the shaper counts a drop per attempt, and frames still in the ring when sending stops never
//! leave): the port's counters say "sent, no error", only the interface's own counters show
//! that some never left, and the report must put exactly those on the tester.
//!
//! On a machine shared with other work the reflector (the UPF here) may itself lose frames its
//! af_packet ring had no room for; its namespace's interface counters show how many, so each
//! direction's loss is checked to be exactly the tester's share plus the UPF's (0 on a quiet
//! machine: then the whole uplink loss is the shaper's).

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::process::{Command, ExitStatus};
use std::time::Duration;

use serde_json::Value;
use upfbench_datapath::net_dev::{NetDevCounters, counters};

use crate::harness;
use crate::harness::{
    Figures, Scratch, besides_tx_slips, figures, num, read_report, reflector_drops,
    reflector_totals, repo, report_folder, serial, total, warnings,
};
use crate::lab::{Lab, LabFiles};

/// Below the uplink's 20 kpps of 390-byte G-PDUs (62 Mbit/s at L2): about a fifth is dropped.
const SHAPER: [&str; 6] = ["rate", "50mbit", "burst", "16kb", "latency", "2ms"];

/// One run of the shipped lab files, the generator's n3 devargs set to `n3_devargs`.
struct LabRun {
    status: ExitStatus,
    stdout: String,
    report: Value,
    table: String,
    uplink: Figures,
    downlink: Figures,
    reflector: BTreeMap<String, u64>,
    /// What the shaper on tg's n3 counted over the run: (packets sent, dropped).
    qdisc: (u64, u64),
    /// Frames tg's n3 sent over the run, by its counters in /proc/net/dev.
    tg_n3_sent: u64,
    /// Frames dut's n3 and n6 received that the reflector did not: the UPF's own loss.
    dut_lost: [u64; 2],
}

/// The counters of `ifc` in namespace `ns`, as the kernel gives them in /proc/net/dev.
fn interface_counters(ns: &str, ifc: &str) -> NetDevCounters {
    let out = Command::new("ip")
        .args(["netns", "exec", ns, "cat", "/proc/net/dev"])
        .output()
        .expect("cat /proc/net/dev");
    counters(&String::from_utf8_lossy(&out.stdout), ifc).unwrap_or_else(|e| panic!("{ns}: {e}"))
}

/// `tc` in namespace `ns`; panics with its output if it fails.
fn tc(ns: &str, args: &[&str]) -> String {
    let out = Command::new("ip")
        .args(["netns", "exec", ns, "tc"])
        .args(args)
        .output()
        .expect("tc");
    assert!(
        out.status.success(),
        "tc {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// (packets sent, dropped) of n3's root qdisc in `ns`: `Sent 123 bytes 4 pkt (dropped 5, ...`.
fn qdisc_counts(ns: &str) -> (u64, u64) {
    let text = tc(ns, &["-s", "qdisc", "show", "dev", "n3"]);
    let after = |key: &str| -> u64 {
        text.split(key)
            .nth(1)
            .and_then(|t| t.split([' ', ',']).find(|w| !w.is_empty()))
            .and_then(|n| n.parse().ok())
            .unwrap_or_else(|| panic!("no {key:?} in {text}"))
    };
    let sent = text
        .split(" bytes ")
        .nth(1)
        .and_then(|t| t.split(" pkt").next())
        .and_then(|n| n.trim().parse().ok())
        .unwrap_or_else(|| panic!("no packets sent in {text}"));
    (sent, after("dropped "))
}

fn run_lab(lab: &Lab, scratch: &Scratch, case: &str, n3_devargs: &str) -> LabRun {
    let files = LabFiles::new(
        scratch,
        case,
        &[(
            "devargs: iface=n3,qpairs=1",
            &format!("devargs: {n3_devargs}"),
        )],
    );
    let profile = repo().join("profiles/lab.yaml");
    let reports: PathBuf = scratch.path().join(format!("reports-{case}"));
    // A fresh shaper: its counters are this run's.
    let _ = Command::new("ip")
        .args([
            "netns", "exec", &lab.tg, "tc", "qdisc", "del", "dev", "n3", "root",
        ])
        .output();
    let mut add = vec!["qdisc", "add", "dev", "n3", "root", "tbf"];
    add.extend(SHAPER);
    tc(&lab.tg, &add);

    let dut_before = ["n3", "n6"].map(|i| interface_counters(&lab.dut, i));
    let tg_n3_before = interface_counters(&lab.tg, "n3");
    let mut refl = files.reflector(scratch, lab, &format!("{case}-reflector"));
    let mut generator = files.generator(
        scratch,
        lab,
        &format!("{case}-generator"),
        &profile,
        &reports,
    );
    let status = generator.wait(Duration::from_secs(60));
    let refl_status = refl.stop(Duration::from_secs(15));
    assert!(
        refl_status.success(),
        "reflector: {refl_status}\n{}",
        refl.logs()
    );
    let dut_received = [0, 1].map(|i| {
        interface_counters(&lab.dut, ["n3", "n6"][i])
            .since(&dut_before[i])
            .rx_packets
    });
    let report = read_report(&reports);
    let folder = report_folder(&reports);
    let tg_n3_sent = interface_counters(&lab.tg, "n3")
        .since(&tg_n3_before)
        .tx_packets;
    let reflector = reflector_totals(&refl.stdout());
    let dut_lost = [
        dut_received[0] - total(&reflector, "received N3"),
        dut_received[1] - total(&reflector, "received N6"),
    ];
    let run = LabRun {
        status,
        stdout: generator.stdout(),
        table: std::fs::read_to_string(folder.join("report.txt")).expect("report.txt"),
        uplink: figures(&report, "uplink"),
        downlink: figures(&report, "downlink"),
        report,
        reflector,
        qdisc: qdisc_counts(&lab.tg),
        tg_n3_sent,
        dut_lost,
    };
    assert!(
        run.status.success(),
        "generator: {}\n{}",
        run.status,
        generator.logs()
    );
    run
}

impl LabRun {
    fn step(&self) -> &Value {
        &self.report["steps"][0]
    }

    /// The kernel interface of port `i` (0: N3, 1: N6): name, rx, tx, rx lost, tx lost.
    fn interface(&self, i: usize) -> (String, u64, u64, u64, u64) {
        let k = &self.step()["ports"][i]["interface"];
        (
            k["name"].as_str().expect("an interface name").to_owned(),
            num(k, &["rx_packets"]),
            num(k, &["tx_packets"]),
            num(k, &["rx_lost"]),
            num(k, &["tx_lost"]),
        )
    }

    fn print(&self, case: &str) {
        for (name, f) in [("UL", &self.uplink), ("DL", &self.downlink)] {
            println!(
                "{case}: {name} sent {} received {} lost {}",
                f.sent, f.received, f.lost
            );
        }
        for i in 0..2 {
            let p = &self.step()["ports"][i];
            println!(
                "{case}: {} PMD rx {} tx {}, interface {:?} (name, rx, tx, rx lost, tx lost)",
                p["name"],
                num(p, &["ipackets"]),
                num(p, &["opackets"]),
                self.interface(i)
            );
        }
        println!(
            "{case}: shaper on tg n3 sent {} dropped {}; the reflector's rings lost N3 {} N6 {}; \
             reflector {:?}",
            self.qdisc.0, self.qdisc.1, self.dut_lost[0], self.dut_lost[1], self.reflector
        );
    }

    /// The report's share of `direction`'s loss that is the tester's.
    fn tester_lost(&self, direction: &str) -> u64 {
        num(
            harness::direction(&self.report, direction),
            &["tester_lost"],
        )
    }

    /// Each direction's loss is the tester's share (the report's: its sending port's Tx loss
    /// and its receiving port's Rx loss) plus the UPF's (what dut's interface received and the
    /// reflector did not); the reflector dropped nothing itself.
    fn assert_loss_accounted(&self) {
        assert_eq!(reflector_drops(&self.reflector), BTreeMap::new());
        let (n3, n6) = (self.interface(0), self.interface(1));
        assert_eq!(self.tester_lost("uplink"), n3.4 + n6.3);
        assert_eq!(self.tester_lost("downlink"), n6.4 + n3.3);
        for (direction, f, upf) in [
            ("uplink", &self.uplink, self.dut_lost[0]),
            ("downlink", &self.downlink, self.dut_lost[1]),
        ] {
            assert_eq!(
                f.lost,
                self.tester_lost(direction) + upf,
                "{direction}: the tester's {} and the UPF's {upf}",
                self.tester_lost(direction)
            );
        }
    }
}

#[test]
fn lab_a_shaper_on_the_testers_veth_is_the_testers_loss_with_qdisc_bypass_0() {
    let _serial = serial();
    let scratch = Scratch::new("lab-shaper");
    let lab = Lab::up("shaper");

    // The default, qdisc_bypass=1: the PMD's frames go around the shaper, which sees none, and
    // every frame the PMD sent left its interface.
    let bypass = run_lab(&lab, &scratch, "bypass", "iface=n3,qpairs=1");
    bypass.print("bypass");
    check_bypass(&bypass);

    // qdisc_bypass=0: the shaper drops uplink G-PDUs after the PMD counted them sent.
    let shaped = run_lab(&lab, &scratch, "shaped", "iface=n3,qpairs=1,qdisc_bypass=0");
    shaped.print("shaped");
    check_the_shaper_drops_uplink(&shaped);
    check_the_report_says_so(&shaped);
}

/// The default, qdisc_bypass=1: the shaper saw none of the PMD's frames, every frame the PMD
/// sent left its interface, and without a ring loss nothing is the tester's.
fn check_bypass(bypass: &LabRun) {
    assert_eq!(bypass.qdisc, (0, 0), "the shaper saw the PMD's frames");
    assert!(
        bypass.tg_n3_sent >= bypass.uplink.sent,
        "{}",
        bypass.tg_n3_sent
    );
    bypass.assert_loss_accounted();
    for (i, ifc) in ["n3", "n6"].iter().enumerate() {
        let p = &bypass.step()["ports"][i];
        let (name, _, tx, _, tx_lost) = bypass.interface(i);
        assert_eq!(name, *ifc);
        assert_eq!((tx, tx_lost), (num(p, &["opackets"]), 0), "{p}");
    }
    if bypass.interface(0).3 + bypass.interface(1).3 == 0 {
        // Nor did the tester's rings lose a frame: nothing is the tester's.
        assert_eq!(
            besides_tx_slips(warnings(&bypass.report)),
            Vec::<String>::new()
        );
        assert!(
            !bypass.stdout.contains("the tester's own"),
            "{}",
            bypass.stdout
        );
    }
}

/// qdisc_bypass=0: the shaper drops uplink G-PDUs after the PMD counted them sent, and the
/// loss is accounted for.
fn check_the_shaper_drops_uplink(shaped: &LabRun) {
    let n3 = &shaped.step()["ports"][0];
    let (pmd_sent, pmd_errors) = (num(n3, &["opackets"]), num(n3, &["oerrors"]));
    let (_, _, if_sent, _, n3_tx_lost) = shaped.interface(0);
    assert!(
        n3_tx_lost > 0,
        "the shaper dropped nothing: {:?}",
        shaped.qdisc
    );
    assert_eq!(pmd_errors, 0, "the port saw no error: {n3}");
    // No frame but the measured uplink left N3 during the step: what the shaper dropped is
    // uplink, counted by the shaper itself.
    assert_eq!(
        num(&shaped.step()["frames"][0], &["tx_service"]),
        0,
        "{}",
        shaped.step()["frames"]
    );
    assert_eq!(n3_tx_lost, pmd_sent - if_sent, "{n3}");
    // Every frame that left n3 went through the shaper, which refused some (counting each
    // refusal of a frame offered again).
    assert_eq!(shaped.qdisc.0, shaped.tg_n3_sent, "{:?}", shaped.qdisc);
    assert!(shaped.qdisc.1 >= n3_tx_lost, "{:?}", shaped.qdisc);
    shaped.assert_loss_accounted();
    // On a quiet machine neither the UPF's rings nor the tester's N6 ring lose a frame: then
    // the whole uplink loss is the shaper's, PMD sent minus interface sent.
    let (n6_rx_lost, upf_lost) = (shaped.interface(1).3, shaped.dut_lost[0]);
    let lost = shaped.uplink.lost;
    assert_eq!(lost, n3_tx_lost + n6_rx_lost + upf_lost);
    assert_eq!(shaped.interface(1).4, 0, "N6 sent all the PMD took");
}

/// The report says so: a warning, the port table, the loss lines.
fn check_the_report_says_so(shaped: &LabRun) {
    let n3 = &shaped.step()["ports"][0];
    let pmd_sent = num(n3, &["opackets"]);
    let (_, n3_rx, if_sent, n3_rx_lost, n3_tx_lost) = shaped.interface(0);
    let n6_rx_lost = shaped.interface(1).3;
    let lost = shaped.uplink.lost;
    let warning = format!(
        "N3: the tester's own loss, not the UPF's: {n3_tx_lost} frames the PMD sent never left \
         interface n3 (PMD {pmd_sent}, n3 {if_sent}: a qdisc or shaper on it? af_packet goes \
         through the qdisc only with qdisc_bypass=0)"
    );
    let n3_warning = besides_tx_slips(warnings(&shaped.report))
        .into_iter()
        .find(|w| w.starts_with("N3: "))
        .expect("a warning about N3");
    assert!(n3_warning.starts_with(&warning), "{n3_warning}");
    assert!(
        shaped
            .table
            .contains(&format!("warning: run: {n3_warning}")),
        "{}",
        shaped.table
    );
    let tester = n3_tx_lost + n6_rx_lost;
    let loss = format!(
        "lost {lost} ({:.3}%; up to {tester} of them lost by the tester's own interfaces, not the \
         UPF)",
        lost as f64 * 100.0 / shaped.uplink.sent as f64
    );
    assert!(
        shaped.table.contains(&format!("  run: {loss}\n")),
        "{}",
        shaped.table
    );
    let step_line = format!(
        "run UL: sent {} received {} {loss} reordered 0 duplicates 0",
        shaped.uplink.sent, shaped.uplink.received
    );
    assert!(
        shaped.stdout.lines().any(|l| l == step_line),
        "no {step_line:?} in\n{}",
        shaped.stdout
    );
    let row = shaped
        .table
        .lines()
        .find(|l| l.starts_with("| run  | N3 "))
        .unwrap_or_else(|| panic!("no N3 row in\n{}", shaped.table));
    let cells: Vec<&str> = row.split('|').map(str::trim).collect();
    let expected = [
        "n3".to_owned(),
        n3_rx.to_string(),
        if_sent.to_string(),
        n3_rx_lost.to_string(),
        n3_tx_lost.to_string(),
    ];
    assert_eq!(cells[9..14], expected, "{row}");
}
