//! IPv6 and dual-stack UEs against the reflector over memif (N3 and N6 over IPv4, as the
//! embedded default's files have them): the shipped profiles/ipv6.yaml and
//! profiles/dual-stack.yaml as a user runs them. Every session established over PFCP with its
//! UE's /64, every packet of every stream received (the reflector decapsulates the IPv6
//! uplink onto N6 and finds the downlink's session by the UE's prefix), no packet of the
//! wrong family, and the report says each stream's family and the size of its frames.

use serde_json::Value;

use crate::harness::{num, repo, serial, total};
use crate::memif::{Outcome, assert_frames_add_up, run};

/// Ethernet, UDP and IP headers, as the frames carry them.
const ETHERNET: u64 = 14;
const UDP: u64 = 8;
const IPV4: u64 = 20;
const IPV6: u64 = 40;
/// The payload of every stream of both profiles.
const PAYLOAD: u64 = 300;

/// The shipped profile `name` (profiles/NAME.yaml), as it is but for its measured phase: 1 s
/// instead of its 5 s (what the checks need; CI's time is short).
pub(crate) fn shipped_profile(name: &str) -> String {
    let text = std::fs::read_to_string(repo().join("profiles").join(format!("{name}.yaml")))
        .expect("shipped profile");
    with_duration(&text, "1s")
}

/// `profile` with its `duration:` line's value replaced by `duration`.
pub(crate) fn with_duration(profile: &str, duration: &str) -> String {
    let mut found = false;
    let lines: Vec<String> = profile
        .lines()
        .map(|l| match l.strip_prefix("duration:") {
            Some(_) => {
                found = true;
                format!("duration: {duration}")
            }
            None => l.to_owned(),
        })
        .collect();
    assert!(found, "no top-level duration in:\n{profile}");
    lines.join("\n") + "\n"
}

/// The step's streams by name.
pub(crate) fn streams(o: &Outcome) -> Vec<&Value> {
    o.report["steps"][0]["streams"]
        .as_array()
        .expect("streams")
        .iter()
        .collect()
}

/// A clean run of `ues` UEs, zero loss both ways, every stream's packets received, none of the
/// wrong family, and the reflector forwarded what the generator sent.
pub(crate) fn assert_every_stream_whole(o: &Outcome, ues: u32, expect_streams: usize) {
    o.assert_clean_end(ues);
    for (name, f) in o.both() {
        assert!(f.sent > 0, "{name}: sent nothing");
        assert_eq!((f.received, f.lost), (f.sent, 0), "{name}: zero loss");
        assert_eq!((f.duplicates, f.late), (0, 0), "{name}");
    }
    let streams = streams(o);
    assert_eq!(streams.len(), expect_streams, "{streams:?}");
    for s in &streams {
        let sent = num(s, &["sent"]);
        assert!(sent > 0, "{s}");
        assert_eq!(num(s, &["received"]), sent, "every packet of {s}");
        assert_eq!(num(s, &["lost"]), 0, "{s}");
        assert_eq!(num(s, &["flows"]), u64::from(ues), "{s}");
    }
    let step = &o.report["steps"][0];
    let rejected = step["rx_rejected"].as_object();
    assert!(
        rejected.is_none_or(|r| r.is_empty()),
        "nothing rejected (no wrong_family): {rejected:?}"
    );
    assert_frames_add_up(step);
    // The reflector forwarded every packet sent (the warm-up's too), and dropped none.
    let frames = step["frames"].as_array().expect("frames");
    let tx = |port: &str| {
        let f = frames.iter().find(|f| f["name"] == port).expect("port");
        num(f, &["tx_measured"]) + num(f, &["tx_warmup"])
    };
    assert_eq!(total(&o.reflector, "uplink forwarded"), tx("N3"));
    assert_eq!(total(&o.reflector, "downlink forwarded"), tx("N6"));
}

/// The family and the frame sizes stream `s` reports: (family, L2, L1).
pub(crate) fn shape(s: &Value) -> (String, u64, u64) {
    (
        s["family"].as_str().expect("family").to_owned(),
        num(s, &["frame", "l2_bytes"]),
        num(s, &["frame", "l1_bytes"]),
    )
}

/// A downlink frame's sizes: the UE's packet behind Ethernet, with FCS (L2), and 20 more
/// bytes of preamble and gap (L1).
fn downlink_sizes(ip_header: u64) -> (u64, u64) {
    let l2 = ETHERNET + ip_header + UDP + PAYLOAD + 4;
    (l2, l2 + 20)
}

#[test]
fn memif_ipv6_ues_every_packet_both_ways_and_the_family_in_the_report() {
    let _serial = serial();
    let o = run("ipv6", "{}", &shipped_profile("ipv6"));
    o.print("ipv6");
    assert_every_stream_whole(&o, 4, 2);
    let by_name = |n: &str| {
        streams(&o)
            .into_iter()
            .find(|s| s["name"] == n)
            .unwrap_or_else(|| panic!("no stream {n}"))
    };
    let (dl_l2, dl_l1) = downlink_sizes(IPV6);
    assert_eq!(shape(by_name("dl")), ("ipv6".to_owned(), dl_l2, dl_l1));
    let (family, ul_l2, ul_l1) = shape(by_name("ul"));
    assert_eq!(family, "ipv6");
    // The uplink is the same IPv6 packet in GTP-U/UDP/IPv4 (a PDU Session Container or not).
    let tunnel = ul_l2 - dl_l2;
    assert!(
        tunnel == IPV4 + UDP + 8 || tunnel == IPV4 + UDP + 16,
        "uplink {ul_l2} B, downlink {dl_l2} B"
    );
    assert_eq!(ul_l1, ul_l2 + 20);
}

#[test]
fn memif_dual_stack_ues_carry_both_families_each_stream_whole() {
    let _serial = serial();
    let o = run("dual-stack", "{}", &shipped_profile("dual-stack"));
    o.print("dual-stack");
    assert_every_stream_whole(&o, 4, 4);
    let mut seen = Vec::new();
    for s in streams(&o) {
        let name = s["name"].as_str().expect("name");
        let (family, l2, _) = shape(s);
        let want = if name.starts_with("v6/") {
            "ipv6"
        } else {
            "ipv4"
        };
        assert_eq!(family, want, "{s}");
        seen.push((name.to_owned(), l2));
    }
    seen.sort();
    let l2 = |n: &str| seen.iter().find(|(s, _)| s == n).expect("stream").1;
    // Each direction: the IPv6 stream's frames are 20 bytes longer (a 40-byte header).
    assert_eq!(l2("v4/downlink"), downlink_sizes(IPV4).0);
    assert_eq!(l2("v6/downlink"), downlink_sizes(IPV6).0);
    assert_eq!(l2("v6/uplink") - l2("v4/uplink"), IPV6 - IPV4);
}
