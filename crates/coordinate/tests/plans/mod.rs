//! A run of 300 UEs over two agents for the session plans' tests: gnb-a (weight 1, one pair)
//! and gnb-b (weight 2, pairs of weights 1 and 3), the coordinator's N4 at 127.0.0.1.
#![allow(dead_code)]

use upfbench_api::v1::{AgentInfo, PairInfo, PortInfo, Segment};
use upfbench_cluster::segments::{RunSegments, TeidSource};
use upfbench_config::{cluster_from_str, profile_from_str};
use upfbench_coordinate::setup::segments;

pub(crate) fn pair(name: &str, weight: u32, n3: &str, peer: &str) -> PairInfo {
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

pub(crate) fn info(name: &str, pairs: Vec<PairInfo>) -> AgentInfo {
    AgentInfo {
        name: name.to_owned(),
        version: "0.1.0".to_owned(),
        api_version: 1,
        tsc_hz: 2e9,
        pairs,
    }
}

pub(crate) fn run() -> (
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

/// The two agents' `GET /v1`: gnb-a's one pair, gnb-b's two.
pub(crate) fn infos() -> [AgentInfo; 2] {
    [
        info("gnb-a", vec![pair("p0", 1, "10.3.0.1/24", "10.3.0.254")]),
        info(
            "gnb-b",
            vec![
                pair("p0", 1, "10.3.1.1/24", "10.3.1.254"),
                pair("p1", 3, "10.3.2.1/24", "10.3.2.254"),
            ],
        ),
    ]
}
