//! The run's set-up against fake agents on loopback: `--agents`, token files, `GET /v1` of
//! every agent (an agent down named), the segments by weight.
#![allow(clippy::print_stdout)]

mod fake;

use upfbench_cluster::segments::{RunSegments, TeidSource};
use upfbench_config::cluster_from_str;
use upfbench_coordinate::setup::{SetupError, clients, infos, override_agents, segments};

use fake::{Fake, serve};

fn cluster(agents: &str) -> upfbench_config::Cluster {
    let text = format!("kind: cluster\nagents:\n{agents}pfcp: {{mode: agents}}\n");
    cluster_from_str(&text, "cluster.yaml").unwrap()
}

#[test]
fn agents_on_the_command_line_replace_the_file_s() {
    let mut c = cluster("  - {name: a, url: \"http://127.0.0.1:1\", weight: 3}\n");
    override_agents(
        &mut c,
        "gnb-a=http://127.0.0.1:9801, gnb-b=http://127.0.0.1:9802",
    )
    .unwrap();
    let agents: Vec<(&str, &str, u32)> = c
        .agents
        .iter()
        .map(|a| (a.name.as_str(), a.url.as_str(), a.weight))
        .collect();
    assert_eq!(
        agents,
        [
            ("gnb-a", "http://127.0.0.1:9801", 1),
            ("gnb-b", "http://127.0.0.1:9802", 1)
        ]
    );
    for (bad, why) in [
        ("gnb-a", "--agents: \"gnb-a\" is not NAME=URL"),
        ("a=http://h:1,a=http://h:2", "--agents: a is named twice"),
        (",", "--agents: no agent"),
    ] {
        let e = override_agents(&mut c, bad).unwrap_err();
        assert_eq!(e.to_string(), why);
    }
}

#[test]
fn a_token_file_that_is_not_there_names_its_agent() {
    let c = cluster(
        "  - {name: a, url: \"http://127.0.0.1:1\"}\n  - {name: b, url: \"http://127.0.0.1:2\"}\n",
    );
    let mut c = c;
    c.agents[1].token_file = Some("/nonexistent/upfbench-token".into());
    let e = clients(&c).unwrap_err();
    assert!(matches!(e, SetupError::Token { index: 1, .. }), "{e}");
    assert!(
        e.to_string().starts_with("agents[1] (b): token_file: "),
        "{e}"
    );
}

#[tokio::test]
async fn every_agent_s_pairs_come_from_its_get_v1_and_a_down_agent_is_named() {
    let a = serve(Fake::new("gnb-a", 11)).await;
    let mut b = serve(Fake::new("gnb-b", 12)).await;
    // gnb-b by a host name, as a StatefulSet's pods are found (resolved when connecting),
    // where this system resolves `localhost` (the no-DPDK test's chroot has no /etc/hosts).
    let resolves = std::net::ToSocketAddrs::to_socket_addrs(&("localhost", 1))
        .is_ok_and(|mut a| a.any(|a| a.ip().is_loopback()));
    let b_by_name = if resolves {
        b.url.replace("127.0.0.1", "localhost")
    } else {
        println!("localhost does not resolve here: gnb-b by its address");
        b.url.clone()
    };
    let c = cluster(&format!(
        "  - {{name: gnb-a, url: \"{}\"}}\n  - {{name: gnb-b, url: \"{}\", weight: 2}}\n",
        a.url, b_by_name
    ));
    let cl = clients(&c).unwrap();
    let got = infos(&c, &cl).await.unwrap();
    let n3: Vec<&str> = got.iter().map(|i| i.pairs[0].n3.address.as_str()).collect();
    assert_eq!(n3, ["10.3.0.11/24", "10.3.0.12/24"]);

    let profile = serde_json::json!({"name": "t", "sessions": {"count": 300}});
    let run = RunSegments {
        run: "r1",
        profile: &profile,
        teids: TeidSource::Sequence {
            first: 4096,
            step: 1,
        },
        upf_n3: None,
    };
    let s = segments(&c, &run, 300).unwrap();
    let blocks: Vec<(&str, u32, u32, u32)> = s
        .iter()
        .map(|s| (s.agent.as_str(), s.index, s.ues.first, s.ues.count))
        .collect();
    assert_eq!(blocks, [("gnb-a", 0, 0, 100), ("gnb-b", 1, 100, 200)]);

    let _ = b.kill.take().unwrap().send(());
    fake::wait_ms(50).await;
    let e = infos(&c, &cl).await.unwrap_err();
    assert!(
        matches!(&e, SetupError::Info { agent, .. } if agent == "gnb-b"),
        "{e}"
    );
    println!("{e}");
}
