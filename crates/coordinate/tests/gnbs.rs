//! The coordinator's session plans (PFCP as one SMF): each UE's session carries the gNB of the
//! (agent, pair) that sends it.
#![allow(clippy::print_stdout)]

use std::net::IpAddr;

use upfbench_api::v1::{AgentInfo, PairInfo, PortInfo, Segment};
use upfbench_cluster::segments::{RunSegments, TeidSource};
use upfbench_config::{cluster_from_str, profile_from_str};
use upfbench_coordinate::gnbs::{GnbError, gnbs, session_plans};
use upfbench_coordinate::setup::segments;

fn pair(name: &str, weight: u32, n3: &str, peer: &str) -> PairInfo {
    let port = |address: &str, peer: &str| PortInfo {
        device: "net_memif0".to_owned(),
        address: address.to_owned(),
        peer: peer.to_owned(),
    };
    PairInfo {
        name: name.to_owned(),
        weight,
        workers: vec![1],
        n3: port(n3, peer),
        n6: port("10.6.0.1/24", "10.6.0.254"),
    }
}

fn info(name: &str, pairs: Vec<PairInfo>) -> AgentInfo {
    AgentInfo {
        name: name.to_owned(),
        version: "0.1.0".to_owned(),
        api_version: 1,
        tsc_hz: 2e9,
        pairs,
    }
}

fn run() -> (
    upfbench_config::Cluster,
    upfbench_config::Profile,
    Vec<Segment>,
) {
    let cluster = cluster_from_str(
        "kind: cluster\nagents:\n  - {name: gnb-a, url: \"http://127.0.0.1:9801\"}\n  - {name: \
         gnb-b, url: \"http://127.0.0.1:9802\", weight: 2}\npfcp: {mode: coordinator, local: \
         \"127.0.0.1:8805\", peer: \"127.0.0.2:8805\"}\n",
        "cluster.yaml",
    )
    .unwrap();
    let profile = profile_from_str(
        "name: p\nsessions: {count: 300}\nstreams: [{name: ul, direction: uplink, rate: 1kpps, \
         payload: 100}]\nduration: 1s\n",
        "p.yaml",
    )
    .unwrap();
    let json = serde_json::json!({"name": "p"});
    let run = RunSegments {
        run: "r1",
        profile: &json,
        teids: TeidSource::Sequence {
            first: 4096,
            step: 1,
        },
        upf_n3: None,
    };
    let segments = segments(&cluster, &run, 300).unwrap();
    (cluster, profile, segments)
}

#[test]
fn each_ue_s_session_has_its_agent_s_pair_as_gnb() {
    let (cluster, profile, segments) = run();
    let infos = [
        info("gnb-a", vec![pair("p0", 1, "10.3.0.1/24", "10.3.0.254")]),
        info(
            "gnb-b",
            vec![
                pair("p0", 1, "10.3.1.1/24", "10.3.1.254"),
                pair("p1", 3, "10.3.2.1/24", "10.3.2.254"),
            ],
        ),
    ];
    let g = gnbs(&segments, &infos).unwrap();
    let blocks: Vec<(u32, u32, String)> = g
        .iter()
        .map(|g| (g.ues.start, g.ues.end, g.gnb_n3.to_string()))
        .collect();
    assert_eq!(
        blocks,
        [
            (0, 100, "10.3.0.1".to_owned()),
            (100, 150, "10.3.1.1".to_owned()),
            (150, 300, "10.3.2.1".to_owned())
        ]
    );
    let plans = session_plans(&cluster, &profile, &segments, &infos).unwrap();
    assert_eq!(plans.len(), 300);
    let gnb = |i: usize| plans[i].template.gnb_n3_address.to_string();
    let upf = |i: usize| plans[i].template.upf_n3_address.to_string();
    for (ue, want_gnb, want_upf) in [
        (0, "10.3.0.1", "10.3.0.254"),
        (99, "10.3.0.1", "10.3.0.254"),
        (100, "10.3.1.1", "10.3.1.254"),
        (149, "10.3.1.1", "10.3.1.254"),
        (150, "10.3.2.1", "10.3.2.254"),
        (299, "10.3.2.1", "10.3.2.254"),
    ] {
        assert_eq!(
            (gnb(ue).as_str(), upf(ue).as_str()),
            (want_gnb, want_upf),
            "UE {ue}"
        );
    }
    // One CP function: the coordinator's N4 address, SEIDs 1..=300 over every agent.
    let cp: IpAddr = "127.0.0.1".parse().unwrap();
    assert!(plans.iter().all(|p| p.template.cp_address == cp));
    let seids: Vec<u64> = plans.iter().map(|p| p.cp_seid().0).collect();
    assert_eq!(seids, (1..=300).collect::<Vec<u64>>());
    // Three templates shared, not one per UE.
    assert!(std::sync::Arc::ptr_eq(
        &plans[100].template,
        &plans[149].template
    ));
    assert!(!std::sync::Arc::ptr_eq(
        &plans[99].template,
        &plans[100].template
    ));
}

#[test]
fn an_agent_s_bad_address_or_no_pair_is_named() {
    let (_, _, segments) = run();
    let infos = [
        info("gnb-a", vec![pair("p0", 1, "10.3.0.1/24", "10.3.0.254")]),
        info("gnb-b", vec![pair("p0", 1, "not an address", "10.3.1.254")]),
    ];
    let e = gnbs(&segments, &infos).unwrap_err();
    assert_eq!(
        e.to_string(),
        "agent gnb-b: pairs[0].n3.address: \"not an address\" is not an address"
    );
    let infos = [
        info("gnb-a", vec![pair("p0", 1, "10.3.0.1/24", "10.3.0.254")]),
        info("gnb-b", vec![]),
    ];
    let e = gnbs(&segments, &infos).unwrap_err();
    assert!(
        matches!(&e, GnbError::Agent { agent, .. } if agent == "gnb-b"),
        "{e}"
    );
    println!("{e}");
}
