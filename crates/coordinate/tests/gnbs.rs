//! The coordinator's session plans (PFCP as one SMF): each UE's session carries the gNB of the
//! (agent, pair) that sends it.
#![allow(clippy::print_stdout)]

use std::net::IpAddr;

use upfbench_coordinate::gnbs::{GnbError, gnbs, session_plans};

mod plans;

use plans::{info, infos, pair, run};

#[test]
fn each_ue_s_session_has_its_agent_s_pair_as_gnb() {
    let (cluster, profile, segments) = run();
    let infos = infos();
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
