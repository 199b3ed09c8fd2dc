//! QER conformance over memif (issue 29): the shipped `profiles/qos.yaml` (three QoS flows per
//! session, one GBR, each offered 150 % of its MBR both ways) against the reflector, whose
//! policer is known: a token bucket per QER at its MBR. The report's conformance must find that
//! policer, and find the reflector's misbehaviour when it is told to misbehave (10 % over the
//! MBR, or no policing at all). A flow's gate closed by a Session Modification (`qos_gate`):
//! nothing sent after the answers passes, and a reflector that keeps its gates open is caught.

use serde_json::Value;

use crate::harness::{repo, serial};
use crate::ipv6::with_duration;
use crate::memif::{Outcome, run};

/// The flows of `profiles/qos.yaml` and their MBRs over its 2 sessions (bit/s), per direction.
const FLOWS: [(u64, &str, f64); 6] = [
    (1, "uplink", 10e6),
    (1, "downlink", 20e6),
    (5, "uplink", 40e6),
    (5, "downlink", 40e6),
    (9, "uplink", 100e6),
    (9, "downlink", 100e6),
];

/// The shipped profile, measured for 2 s instead of 5 (two whole seconds to compare; CI's time
/// is short).
fn shipped() -> String {
    let text =
        std::fs::read_to_string(repo().join("profiles/qos.yaml")).expect("profiles/qos.yaml");
    with_duration(&text, "2s")
}

/// The step's QoS flows, each checked against its MBR and offered rate: every flow of the
/// profile, 150 % of its MBR offered (within 1 %, less the share its senders were late).
fn flows(o: &Outcome) -> Vec<Value> {
    assert!(o.status.success(), "generator: {}\n{}", o.status, o.stdout);
    let qos = &o.report["steps"][0]["qos"];
    let flows = qos["flows"].as_array().expect("a qos section").clone();
    assert_eq!(flows.len(), FLOWS.len(), "{qos}");
    for (f, (qfi, direction, mbr)) in flows.iter().zip(FLOWS) {
        assert_eq!(f["qfi"], qfi, "{f}");
        assert_eq!(f["direction"], direction, "{f}");
        assert_eq!(f["sessions"], 2, "{f}");
        assert_eq!(f["mbr_bps"].as_f64(), Some(mbr), "{f}");
        // 150 % within 1 %, or under it by no more than the share of the step its senders
        // were late (a stalled sender sends its bits over a longer time; CI's run of 9004b94 +
        // 1: 28 ms late over 2 s, 14.85 Mbit/s offered against 15).
        let offered = f["offered_bps"].as_f64().unwrap();
        let measured = o.report["steps"][0]["duration_s"].as_f64().unwrap();
        let late = f["tester_late_s"].as_f64().unwrap_or(0.0) / measured;
        let ratio = offered / mbr;
        assert!(
            ratio < 1.5 * 1.01 && ratio > 1.5 * (0.99 - late),
            "offered {offered}: {f}"
        );
    }
    flows
}

fn ratio(f: &Value) -> f64 {
    f["passed_over_mbr"].as_f64().unwrap()
}

/// The reflector's policer: each flow passed its MBR within 1 %, each second too, and the burst
/// over any run of windows is at most the buckets' depth (10 ms of MBR, `qer_burst`, in each of
/// the 2 sessions) and a packet per session.
#[test]
fn memif_qos_each_flow_passes_its_mbr() {
    let _serial = serial();
    let o = run("qos", "{}", &shipped());
    o.print("qos");
    let measured = o.report["steps"][0]["duration_s"].as_f64().unwrap();
    let flows = flows(&o);
    // The share of the measured phase each flow's senders were late (0 when never).
    let late = |qfi: u64, direction: &str| -> f64 {
        flows
            .iter()
            .filter(|f| f["qfi"] == qfi && f["direction"] == direction)
            .filter_map(|f| f["tester_late_s"].as_f64())
            .fold(0.0, f64::max)
            / measured
    };
    for f in &flows {
        let mbr = f["mbr_bps"].as_f64().unwrap();
        assert_eq!(f["verdict"]["kind"], "policed", "{f}");
        // Within 1 % of the MBR, or short of it by no more than the time the tester's senders
        // were late (a debug build sharing two cores stalls now and then; the report says so).
        let late = f["tester_late_s"].as_f64().unwrap_or(0.0);
        assert!(
            ratio(f) <= 1.01 && ratio(f) >= 0.99 * (1.0 - late / measured),
            "{f}"
        );
        // Each second at the MBR (one may hold the bucket's burst), or under it by what the
        // sender's stall took (see memif_qos_a_policer_10_percent_over_is_found).
        let [lo, hi] = [0, 1].map(|i| f["per_second_bps"][i].as_f64().unwrap());
        assert!(lo >= mbr * (0.95 - late) && hi <= mbr * 1.02, "{f}");
        let burst = f["burst_bytes"].as_f64().unwrap();
        let depth = mbr / 8.0 * 0.010 + 2.0 * 328.0;
        assert!(
            burst > 0.0 && burst <= depth * 1.1,
            "burst {burst} > {depth}: {f}"
        );
    }
    assert_eq!(o.report["steps"][0]["qos"]["gbr_kept_under_policing"], true);
    // Every figure per QFI: a third of each lost, a latency sample for every packet received.
    let qfis = o.report["steps"][0]["qos"]["qfis"]
        .as_array()
        .unwrap()
        .clone();
    assert_eq!(qfis.len(), FLOWS.len());
    for (q, (qfi, direction, _)) in qfis.iter().zip(FLOWS) {
        assert_eq!(
            (q["qfi"].as_u64(), q["direction"].as_str()),
            (Some(qfi), Some(direction))
        );
        // A stall takes its time's share of the MBR off what passes (the catch-up is policed).
        let loss = q["loss_ratio"].as_f64().unwrap();
        let more = late(qfi, direction);
        assert!(
            loss > 1.0 / 3.0 - 0.01 && loss < 1.0 / 3.0 + 0.01 + more,
            "{q}"
        );
        assert_eq!(q["latency"]["samples"], q["received"], "{q}");
    }
    // Offered 1.5 times what passes: a third lost, each way, and the reflector says it
    // policed them.
    for (name, f) in o.both() {
        let loss = f.lost as f64 / f.sent as f64;
        let more = FLOWS
            .iter()
            .filter(|(_, d, _)| *d == if name == "UL" { "uplink" } else { "downlink" })
            .map(|&(qfi, d, _)| late(qfi, d))
            .fold(0.0, f64::max);
        assert!(
            loss > 1.0 / 3.0 - 0.01 && loss < 1.0 / 3.0 + 0.01 + more,
            "{name}: loss {loss}"
        );
    }
    assert!(crate::harness::total(&o.reflector, "dropped qer_policed") >= o.uplink.lost);
}

/// A policer 10 % over the MBR is reported as such. Within 2 %, not 1: a sender that stalls (a
/// debug build sharing two cores) offers nothing while it does, and a policer passes no more
/// than its burst after: one 60 ms stall took 5.5 % off a second beside two compilers.
#[test]
fn memif_qos_a_policer_10_percent_over_is_found() {
    let _serial = serial();
    let o = run("qos-over", "{qer: {over: 10%}}", &shipped());
    o.print("qos-over");
    for f in flows(&o) {
        assert_eq!(f["verdict"]["kind"], "policed_above", "{f}");
        let over = f["verdict"]["over"].as_f64().unwrap();
        assert!((over - 0.10).abs() <= 0.02, "{f}");
        assert!((ratio(&f) - 1.1).abs() <= 0.022, "{f}");
    }
}

/// No policing: every flow passes what it was offered, and the report says NOT policed; no GBR
/// verdict, since no non-GBR flow was held back.
#[test]
fn memif_qos_no_policing_is_found() {
    let _serial = serial();
    let o = run("qos-off", "{qer: {policing: off}}", &shipped());
    o.print("qos-off");
    for f in flows(&o) {
        assert_eq!(f["verdict"]["kind"], "not_policed", "{f}");
        assert!((ratio(&f) - 1.5).abs() <= 0.015, "{f}");
    }
    assert!(o.report["steps"][0]["qos"]["gbr_kept_under_policing"].is_null());
    assert_eq!(o.uplink.lost + o.downlink.lost, 0);
}

/// The shipped profile with QFI 5's gates closed 2 s into its measured phase of 3 s.
fn gated() -> String {
    format!(
        "{}qos_gate: {{qfi: 5, close_at: 2s}}\n",
        with_duration(&shipped(), "3s")
    )
}

fn gate(o: &Outcome) -> Value {
    assert!(o.status.success(), "generator: {}\n{}", o.status, o.stdout);
    let g = o.report["steps"][0]["qos"]["gate"].clone();
    assert_eq!(g["qfi"], 5, "{g}");
    assert_eq!(
        (g["answered"].as_u64(), g["refused"].as_u64()),
        (Some(2), Some(0)),
        "{g}"
    );
    let last = g["last_answer_s"].as_f64().unwrap();
    assert!((2.0..2.5).contains(&last), "{g}");
    // Both ways at its MBR, 40 Mbit/s, for 2 s in 328-byte packets: about 61,000 before.
    let before = g["passed_before"].as_u64().unwrap();
    assert!((55_000..67_000).contains(&before), "{g}");
    g
}

/// A gate closed by a Session Modification: nothing of the flow sent after the answers
/// passes, while the other flows keep their MBR.
#[test]
fn memif_qos_a_closed_gate_passes_nothing_after_its_answer() {
    let _serial = serial();
    let o = run("qos-gate", "{}", &gated());
    o.print("qos-gate");
    let g = gate(&o);
    assert_eq!(g["passed_after"], 0, "{g}");
    let flows = o.report["steps"][0]["qos"]["flows"]
        .as_array()
        .unwrap()
        .clone();
    for f in &flows {
        if f["qfi"] == 5 {
            // Passed for 2 of 3 s: 2/3 of its MBR.
            assert!((ratio(f) - 2.0 / 3.0).abs() < 0.02, "{f}");
        } else {
            assert_eq!(f["verdict"]["kind"], "policed", "{f}");
        }
    }
    // The reflector dropped the flow's packets at its gate, both ways.
    let line = o
        .reflector_out
        .lines()
        .find(|l| l.trim_start().starts_with("QER qfi 5 "))
        .unwrap_or_else(|| panic!("no QER line for QFI 5:\n{}", o.reflector_out));
    let gated: Vec<u64> = line
        .split("gated ")
        .skip(1)
        .filter_map(|t| t.split(|c: char| !c.is_ascii_digit()).next()?.parse().ok())
        .collect();
    assert!(
        gated.len() == 2 && gated.iter().all(|&n| n > 10_000),
        "{line}"
    );
}

/// A UPF that answers the modification but keeps the gate open is caught.
#[test]
fn memif_qos_a_gate_left_open_is_found() {
    let _serial = serial();
    let o = run("qos-gate-open", "{qer: {gates: ignored}}", &gated());
    o.print("qos-gate-open");
    let g = gate(&o);
    // 1 s at the MBR (40 Mbit/s) each way after the answers, in 328-byte packets: about
    // 30,500.
    let after = g["passed_after"].as_u64().unwrap();
    assert!(after > 27_000, "{g}");
    // The flow kept its MBR, closed gate or not.
    let flows = o.report["steps"][0]["qos"]["flows"]
        .as_array()
        .unwrap()
        .clone();
    for f in flows.iter().filter(|f| f["qfi"] == 5) {
        assert_eq!(f["verdict"]["kind"], "policed", "{f}");
    }
}
