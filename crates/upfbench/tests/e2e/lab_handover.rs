//! A handover checked by an independent witness: generator and reflector on `net_af_packet`
//! over the lab's veths, dumpcap on the tester's n3 capturing what the reflector sends it. For
//! every moving UE the capture holds exactly one End Marker (GTP-U type 254) on its old
//! tunnel, after the last G-PDU of that tunnel, and G-PDUs on its new tunnel after it; the
//! report says the same.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde_json::Value;

use upfbench_config as config;

use crate::harness::{Scratch, num, read_report, serial, tshark_fields};
use crate::lab::{Lab, LabFiles, capture};

const UES: u32 = 4;

#[test]
fn lab_end_markers_follow_the_last_old_tunnel_g_pdu_in_a_capture() {
    let _serial = serial();
    let scratch = Scratch::new("lab-handover");
    let lab = Lab::up("handover");
    let files = LabFiles::new(&scratch, "handover", &[]);
    let profile = handover_profile(&scratch, &files);
    let reports = scratch.path().join("reports");
    let file = run_with_capture(&scratch, &lab, &files, &profile, &reports);
    let positions = Positions::read(&file);
    check_each_moving_ue(&read_report(&reports), &positions);
}

/// 4 UEs, 4 kpps up and 8 kpps down for 2 s, handovers at 10/s from 500 ms to a target gNB.
fn handover_profile(scratch: &Scratch, files: &LabFiles) -> PathBuf {
    let profile = scratch.write(
        "profile.yaml",
        &format!(
            "name: lab handover\n\
             sessions: {{count: {UES}}}\n\
             streams:\n  \
               - {{name: ul, direction: uplink, rate: 4kpps, payload: 100}}\n  \
               - {{name: dl, direction: downlink, rate: 8kpps, payload: 100}}\n\
             duration: 2s\n\
             warmup: 0s\n\
             drain: 300ms\n\
             mobility:\n  \
               handovers: {{rate: 10, start: 500ms}}\n  \
               target: {{address: 192.168.13.132, downlink_teid: {{first: 0x20000002, step: 2}}}}\n"
        ),
    );
    config::load_run(&files.system, &profile).unwrap_or_else(|e| panic!("{e}"));
    profile
}

/// Runs the generator against the reflector, dumpcap capturing on the tester's n3 what the
/// reflector sends it (downlink G-PDUs and End Markers); returns the capture file.
fn run_with_capture(
    scratch: &Scratch,
    lab: &Lab,
    files: &LabFiles,
    profile: &Path,
    reports: &Path,
) -> PathBuf {
    let dut_n3 = Lab::mac(&lab.dut, "n3");
    let (mut dumpcap, file) = capture(
        scratch,
        &lab.tg,
        "n3",
        [
            &format!("udp port 2152 and ether src {dut_n3}"),
            "udp port 9",
        ],
    );
    let mut refl = files.reflector(scratch, lab, "reflector");
    let mut generator = files.generator(scratch, lab, "generator", profile, reports);
    let status = generator.wait(Duration::from_secs(60));
    refl.stop(Duration::from_secs(15));
    dumpcap.stop(Duration::from_secs(10));
    assert!(
        status.success(),
        "generator: {status}\n{}",
        generator.logs()
    );
    file
}

/// Per TEID: the capture position of the first and last G-PDU and of each End Marker.
struct Positions {
    last_gpdu: BTreeMap<u32, usize>,
    first_gpdu: BTreeMap<u32, usize>,
    end_markers: BTreeMap<u32, Vec<usize>>,
}

impl Positions {
    fn read(file: &Path) -> Positions {
        let mut last_gpdu: BTreeMap<u32, usize> = BTreeMap::new();
        let mut first_gpdu: BTreeMap<u32, usize> = BTreeMap::new();
        let mut end_markers: BTreeMap<u32, Vec<usize>> = BTreeMap::new();
        let rows = tshark_fields(file, "/t", &["gtp.message", "gtp.teid"]);
        for (i, l) in rows.iter().enumerate() {
            let f: Vec<&str> = l.split('\t').collect();
            let (Some(kind), Some(teid)) = (f.first(), f.get(1)) else {
                continue;
            };
            let Ok(teid) = u32::from_str_radix(teid.trim_start_matches("0x"), 16) else {
                continue;
            };
            match kind.split(',').next().unwrap_or_default() {
                "0xff" | "255" => {
                    last_gpdu.insert(teid, i);
                    first_gpdu.entry(teid).or_insert(i);
                }
                "0xfe" | "254" => end_markers.entry(teid).or_default().push(i),
                _ => {}
            }
        }
        Positions {
            last_gpdu,
            first_gpdu,
            end_markers,
        }
    }
}

/// The report counts an End Marker in order per UE; in the capture, each UE's one End Marker
/// on its old tunnel follows that tunnel's last G-PDU, and its new tunnel carries G-PDUs after.
fn check_each_moving_ue(report: &Value, positions: &Positions) {
    let Positions {
        last_gpdu,
        first_gpdu,
        end_markers,
    } = positions;
    let h = &report["steps"][0]["handover"];
    assert_eq!(num(h, &["end_markers_in_order"]), u64::from(UES), "{h}");
    for u in 0..UES {
        let (old, new) = (2 + 2 * u, 0x2000_0002 + 2 * u);
        let ems = end_markers.get(&old).cloned().unwrap_or_default();
        assert_eq!(ems.len(), 1, "UE {u}: End Markers at {ems:?}");
        let last = last_gpdu[&old];
        assert!(
            ems[0] > last,
            "UE {u}: the End Marker is frame {} of the capture, the old tunnel's last G-PDU {last}",
            ems[0]
        );
        let first_new = first_gpdu[&new];
        assert!(first_new > 0 && last_gpdu[&new] > ems[0], "UE {u}");
        println!(
            "lab handover: UE {u}: old tunnel {old:#x} last G-PDU at capture frame {last}, End \
             Marker at {}, new tunnel {new:#x} from frame {first_new}",
            ems[0]
        );
    }
}
