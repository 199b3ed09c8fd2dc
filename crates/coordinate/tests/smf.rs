//! PFCP as one SMF against the pfcp crate's UPF on a loopback socket (`pfcp::driver::serve`,
//! the reflector's UPF side, on an ephemeral port, not 8805): one association, every agent's
//! sessions with its (agent, pair)'s gNB in the downlink FAR, all deleted and released.

use upfbench_coordinate::gnbs::session_plans;
use upfbench_coordinate::smf::{Smf, client_side};
use upfbench_n4::client_side::ClientSide;
use upfbench_pfcp::driver::{self, Release};
use upfbench_pfcp::node::UpfConfig;

mod plans;

use plans::{infos, run};

#[tokio::test]
async fn one_association_holds_every_agent_s_sessions_and_ends_them() {
    let (cluster, profile, segments) = run();
    let plans = session_plans(&cluster, &profile, &segments, &infos()).unwrap();
    let ues: Vec<std::net::IpAddr> = plans.iter().map(|p| p.ue_address()).collect();
    let gnb_of: Vec<String> = plans
        .iter()
        .map(|p| p.template.gnb_n3_address.to_string())
        .collect();

    let lo = std::net::Ipv4Addr::LOCALHOST;
    let config = UpfConfig::new(lo, lo, driver::recovery_time_stamp_now(), lo.into());
    let (upf, _channels) = driver::serve("127.0.0.1:0".parse().unwrap(), config)
        .await
        .expect("binds a loopback port");
    // The cluster file's N4 addresses, on ports of this test's own.
    let side = ClientSide {
        local: "127.0.0.1:0".parse().unwrap(),
        peer: upf.local_addr(),
        ..client_side(&cluster).expect("pfcp.mode: coordinator")
    };
    let smf = Smf::associate(side).await.expect("associates");
    let sessions = smf.establish(plans).await.expect("establishes");
    assert_eq!(sessions.len(), 300);

    let rules = upf.rules().await.unwrap();
    assert_eq!(rules.downlink_count(), 300);
    let mut per_gnb = std::collections::BTreeMap::<String, u32>::new();
    for (i, ue) in ues.iter().enumerate() {
        let std::net::IpAddr::V4(ue) = ue else {
            panic!("an IPv4 UE")
        };
        let rule = rules.downlink(*ue).expect("a downlink rule per UE");
        let tunnel = rule.tunnel.as_ref().expect("outer header creation");
        assert_eq!(tunnel.address.to_string(), gnb_of[i], "UE {i}");
        *per_gnb.entry(tunnel.address.to_string()).or_default() += 1;
    }
    let per_gnb: Vec<(String, u32)> = per_gnb.into_iter().collect();
    assert_eq!(
        per_gnb,
        [
            ("10.3.0.1".to_owned(), 100),
            ("10.3.1.1".to_owned(), 50),
            ("10.3.2.1".to_owned(), 150)
        ]
    );

    let (deleted, release) = smf.end().await.expect("deletes and releases");
    assert_eq!(deleted, 300);
    assert_eq!(release, Release::Answered);
    assert_eq!(upf.rules().await.unwrap().downlink_count(), 0);
}
