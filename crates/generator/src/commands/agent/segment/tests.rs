use serde_json::json;
use upfbench_api::v1::UplinkTeids;
use upfbench_stats::Direction;

use super::*;

const SYSTEM: &str = include_str!("../../../../../../deploy/systems/memif.yaml");

/// Two pairs of weights 1 and 3 on memif.
const PAIRS: &str = "
kind: system
eal:
  args: [--no-huge, -m, '512', --no-pci, --no-telemetry]
cores: {main: 0}
pairs:
  - name: a
    workers: [1]
    n3: {device: net_memif0, devargs: 'role=client,id=0,socket=/tmp/t/a3.sock', address: 192.168.13.131/24, peer: 192.168.13.151}
    n6: {device: net_memif1, devargs: 'role=client,id=0,socket=/tmp/t/a6.sock', address: 192.168.16.152/24, peer: 192.168.16.151}
  - name: b
    workers: [2]
    weight: 3
    n3: {device: net_memif2, devargs: 'role=client,id=0,socket=/tmp/t/b3.sock', address: 192.168.23.131/24, peer: 192.168.23.151}
    n6: {device: net_memif3, devargs: 'role=client,id=0,socket=/tmp/t/b6.sock', address: 192.168.26.152/24, peer: 192.168.26.151}
";

fn checks(system_text: &str) -> Checks<'_> {
    Checks {
        system_text,
        system_name: "system.yaml",
        links: &[],
    }
}

/// 10 UEs, 100 kpps each way.
fn profile() -> serde_json::Value {
    json!({
        "name": "segment",
        "sessions": {"count": 10},
        "streams": [
            {"name": "ul", "direction": "uplink", "rate": "100kpps", "payload": 300},
            {"name": "dl", "direction": "downlink", "rate": "100kpps", "payload": 300}
        ],
        "duration": "1s",
        "warmup": "0s",
        "drain": "100ms"
    })
}

fn segment(first: u32, count: u32) -> Segment {
    Segment {
        run: "r1".into(),
        agent: "gnb-b".into(),
        index: 1,
        agents: 2,
        profile: profile(),
        ues: UeBlock { first, count },
        uplink_teids: UplinkTeids::Sequence {
            first: 4096,
            step: 1,
        },
        upf_n3: None,
    }
}

fn issues(p: &Problem) -> Vec<(&str, &str)> {
    p.issues
        .iter()
        .map(|i| (i.field.as_str(), i.message.as_str()))
        .collect()
}

#[test]
fn a_block_keeps_its_global_indices_and_its_share_of_the_rates() {
    let loaded = load(checks(SYSTEM), segment(3, 4)).unwrap();
    // UE i keeps TEID 4096 + i whichever agent sends it.
    assert_eq!(loaded.uplink_teids, vec![4099, 4100, 4101, 4102]);
    assert_eq!(loaded.upf_n3, None);
    assert_eq!(loaded.profile.sessions.count, 10);
    let s = &loaded.summary;
    assert_eq!(s.run, "r1");
    assert_eq!(s.ues, UeBlock { first: 3, count: 4 });
    assert_eq!(s.pairs.len(), 1);
    assert_eq!(s.pairs[0].pair, "p0");
    assert_eq!(s.pairs[0].ues, UeBlock { first: 3, count: 4 });
    let streams = &s.pairs[0].streams;
    assert_eq!(streams.len(), 2);
    assert_eq!(streams[0].name, "ul");
    assert_eq!(streams[0].direction, Direction::Uplink);
    assert_eq!(streams[0].ues, 4);
    assert!((streams[0].rate_pps - 40_000.0).abs() < 1e-6);
    assert_eq!(streams[1].direction, Direction::Downlink);
    assert!((streams[1].rate_pps - 40_000.0).abs() < 1e-6);
}

#[test]
fn the_block_is_cut_over_the_pairs_by_weight() {
    let mut s = segment(2, 8);
    s.profile["sessions"]["count"] = json!(12);
    let loaded = load(checks(PAIRS), s).unwrap();
    let pairs = &loaded.summary.pairs;
    assert_eq!(pairs.len(), 2);
    assert_eq!(
        (pairs[0].pair.as_str(), pairs[0].ues),
        ("a", UeBlock { first: 2, count: 2 })
    );
    assert_eq!(
        (pairs[1].pair.as_str(), pairs[1].ues),
        ("b", UeBlock { first: 4, count: 6 })
    );
    // 100 kpps over 12 UEs: 2 of them on a, 6 on b.
    let rate = |p: usize| pairs[p].streams[0].rate_pps;
    assert!((rate(0) - 100_000.0 * 2.0 / 12.0).abs() < 1e-6);
    assert!((rate(1) - 100_000.0 * 6.0 / 12.0).abs() < 1e-6);
}

#[test]
fn chosen_teids_are_decoded_one_per_ue_of_the_block() {
    let mut s = segment(0, 2);
    // 0x00000007 and 0xdeadbeef, big-endian.
    s.uplink_teids = UplinkTeids::Chosen("AAAAB96tvu8=".into());
    s.upf_n3 = Some("192.168.13.151".into());
    let loaded = load(checks(SYSTEM), s).unwrap();
    assert_eq!(loaded.uplink_teids, vec![7, 0xdead_beef]);
    assert_eq!(loaded.upf_n3, Some("192.168.13.151".parse().unwrap()));
}

#[test]
fn a_profile_whose_upf_chooses_the_teids_is_taken_with_them_and_refused_without() {
    // CH=1 needs N4, which an agent does not hold: with the TEIDs the coordinator learnt, the
    // agent sends on them; with a sequence instead, the profile asks what the agent cannot do.
    let mut s = segment(0, 2);
    s.profile["sessions"]["uplink_teid"] = json!("upf");
    s.uplink_teids = UplinkTeids::Chosen("AAAAB96tvu8=".into());
    let loaded = load(checks(SYSTEM), s.clone()).unwrap();
    assert_eq!(loaded.uplink_teids, vec![7, 0xdead_beef]);
    s.uplink_teids = UplinkTeids::Sequence { first: 1, step: 1 };
    let p = load(checks(SYSTEM), s).unwrap_err();
    assert!(p.issues.iter().any(|i| i.field == "uplink_teids"), "{p:?}");
}

#[test]
fn a_profile_that_does_not_fit_the_system_is_refused_at_its_fields() {
    let mut s = segment(0, 10);
    // The UEs' pool overlaps the agent's N3 subnet (a cross check with the system file).
    s.profile["sessions"]["ue_pool"] = json!("192.168.13.0/24");
    let p = load(checks(SYSTEM), s).unwrap_err();
    assert_eq!(p.kind, ProblemKind::InvalidContent);
    assert!(p.detail.contains("does not fit"), "{}", p.detail);
    let found = issues(&p);
    assert!(
        found
            .iter()
            .any(|(f, m)| f.starts_with("profile.sessions.ue_pool") && m.contains("overlap")),
        "{found:?}"
    );
}

#[test]
fn a_profile_alone_wrong_is_refused_at_its_field() {
    let mut s = segment(0, 10);
    s.profile["streams"][0]["rate"] = json!("fast");
    let p = load(checks(SYSTEM), s).unwrap_err();
    let found = issues(&p);
    assert!(
        found.iter().any(|(f, _)| *f == "profile.streams[0].rate"),
        "{found:?}"
    );
}

#[test]
fn the_block_the_index_the_teids_and_the_upf_are_each_located() {
    let mut s = segment(8, 4);
    s.index = 2;
    s.uplink_teids = UplinkTeids::Chosen("AAAAAQ==".into());
    s.upf_n3 = Some("upf".into());
    let p = load(checks(SYSTEM), s).unwrap_err();
    assert_eq!(p.kind, ProblemKind::InvalidContent);
    let fields: Vec<&str> = issues(&p).iter().map(|(f, _)| *f).collect();
    assert_eq!(fields, ["index", "ues", "uplink_teids", "upf_n3"]);
    assert!(issues(&p)[1].1.contains("UEs 8 to 11"), "{:?}", issues(&p));
    assert!(
        issues(&p)[2].1.contains("4 bytes for 4 UEs"),
        "{:?}",
        issues(&p)
    );

    let p = load(checks(SYSTEM), segment(0, 0)).unwrap_err();
    assert_eq!(issues(&p), [("ues.count", "a segment has 1 UE or more")]);
}

#[test]
fn what_acts_over_pfcp_during_a_step_is_refused() {
    let mut s = segment(0, 10);
    s.profile["mobility"] = json!({
        "ues": "all",
        "handovers": {"rate": 20, "arrivals": "uniform", "start": "500ms"},
        "target": {"address": "192.168.13.132", "downlink_teid": {"first": 536870914u32, "step": 2}}
    });
    match load(checks(SYSTEM), s) {
        Err(p) => assert!(
            issues(&p)
                .iter()
                .any(|(f, _)| f.starts_with("profile.mobility")),
            "{:?}",
            issues(&p)
        ),
        Ok(_) => panic!("a profile with mobility was loaded"),
    }
}
