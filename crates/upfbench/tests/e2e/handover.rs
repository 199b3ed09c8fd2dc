//! Handovers under traffic against the reflector over memif: each of 20 UEs moves to the
//! target gNB during the measured phase (a Session Modification with Update FAR and SNDEM, at
//! 20 per second), its downlink through the new tunnel, its uplink from the target's address.
//! With the reflector's `far_update_delay` of 200 ms every UE's interruption is 200 ms within
//! 10 % and the packets in between are lost (exactly the reflector's held-back drops); with an
//! immediate switch nothing is lost or duplicated. Either way each UE's End Marker comes, after
//! the last G-PDU of its old tunnel.

use serde_json::Value;

use crate::harness::{num, serial};
use crate::memif::{Outcome, run};

const UES: u64 = 20;

/// 20 UEs, 20 kpps each way (1,000 pps per UE: one downlink packet every ms), 3 s; one handover
/// every 50 ms from 0.5 s.
fn profile() -> String {
    format!(
        "name: handover\n\
         sessions: {{count: {UES}}}\n\
         streams:\n  \
           - {{name: ul, direction: uplink, rate: 20kpps, payload: 100}}\n  \
           - {{name: dl, direction: downlink, rate: 20kpps, payload: 100}}\n\
         duration: 3s\n\
         warmup: 500ms\n\
         drain: 300ms\n\
         mobility:\n  \
           handovers: {{rate: 20, start: 500ms}}\n  \
           seed: 5\n  \
           target: {{address: 192.168.13.132, downlink_teid: {{first: 0x20000002, step: 2}}}}\n"
    )
}

fn handovers(o: &Outcome) -> &Value {
    let h = &o.report["steps"][0]["handover"];
    assert!(
        h.is_object(),
        "no handover section: {}",
        o.report["steps"][0]
    );
    h
}

fn ms(v: &Value) -> f64 {
    v.as_f64().unwrap_or_else(|| panic!("{v} is not a number"))
}

/// What both cases share: every handover modified, switched, its End Marker in order; the
/// uplink whole.
fn common(o: &Outcome) -> &Value {
    assert!(o.status.success(), "generator: {}\n{}", o.status, o.stdout);
    let h = handovers(o);
    let lost: Vec<u64> = h["ues"]
        .as_array()
        .unwrap()
        .iter()
        .map(|u| num(u, &["lost"]))
        .collect();
    println!(
        "handover: interruption {}; modification {}; lost per UE {lost:?}; End Markers \
         {} in order of {}",
        h["interruption"], h["modification"], h["end_markers_in_order"], h["handovers"]
    );
    for k in [
        "handovers",
        "modified",
        "switched",
        "end_markers_received",
        "end_markers_in_order",
    ] {
        assert_eq!(num(h, &[k]), UES, "{k}: {h}");
    }
    assert_eq!(num(h, &["failed"]), 0);
    assert_eq!(num(h, &["end_markers_missing"]), 0);
    assert_eq!(o.reflector["end markers sent"], UES);
    assert_eq!(o.uplink.lost, 0, "the uplink moved without loss");
    assert_eq!(o.uplink.received, o.uplink.sent);
    for u in h["ues"].as_array().unwrap() {
        assert_eq!(u["end_marker"], "in_order", "{u}");
        assert!(ms(&u["end_marker_after_ms"]) >= 0.0);
        assert!(num(u, &["old_path_packets"]) > 0 && num(u, &["new_path_packets"]) > 0);
        // Sent at its time on the control thread's clock (a tokio timer: within a few ms).
        let late = ms(&u["sent_ms"]) - ms(&u["planned_ms"]);
        assert!((0.0..20.0).contains(&late), "{u}");
    }
    let stdout = &o.stdout;
    assert!(stdout.contains("Handovers, "), "{stdout}");
    h
}

#[test]
fn a_delayed_far_update_interrupts_each_ue_for_the_delay() {
    let _serial = serial();
    // 200 ms: 10 % of it (20 ms) is more than the stalls a shared 2-vCPU machine gives a
    // debug build's cores now and then (5 to 15 ms, seen at 50 ms in 2 of 3 runs).
    let o = run("handover-delay", "{far_update_delay: 200ms}", &profile());
    let h = common(&o);
    // Every UE's interruption is the delay within 10 %, not only the median.
    let i = &h["interruption"];
    assert_eq!(num(i, &["samples"]), UES);
    for p in ["min_ns", "p50_ns", "p90_ns", "p99_ns", "max_ns"] {
        let v = ms(&i[p]) / 1e6;
        assert!((180.0..=220.0).contains(&v), "interruption {p} {v} ms: {i}");
    }
    // Lost across the switches: the packets the reflector held back, and nothing else.
    let held = o.reflector["dropped far_update_held"];
    assert!(held > 0);
    assert_eq!(num(h, &["lost"]), held, "{h}");
    assert_eq!(o.downlink.lost, held);
    assert_eq!(num(h, &["duplicates"]), 0);
    // Each UE lost what was sent to it while held: 200 at the planned 1,000 pps per UE, fewer
    // when the sender could not keep its rate (143 each in a run where others' builds took its
    // core): at most the planned count and a catch-up's worth more.
    for u in h["ues"].as_array().unwrap() {
        let lost = num(u, &["lost"]);
        assert!((1..=220).contains(&lost), "{u}");
    }
}

#[test]
fn an_immediate_switch_loses_nothing() {
    let _serial = serial();
    let o = run("handover-now", "{}", &profile());
    let h = common(&o);
    for k in ["lost", "duplicates"] {
        assert_eq!(num(h, &[k]), 0, "{k}: {h}");
    }
    assert_eq!((o.downlink.lost, o.downlink.duplicates), (0, 0));
    assert_eq!(o.downlink.received, o.downlink.sent);
    assert!(!o.reflector.contains_key("dropped far_update_held"));
    // The paths meet: the first packet through the new tunnel follows the last through the
    // old one by about a packet's spacing (1 ms per UE), never by a gap (a busy machine's
    // stalls aside).
    let max = ms(&h["interruption"]["max_ns"]) / 1e6;
    assert!(max < 25.0, "{}", h["interruption"]);
}
