use std::time::Duration;

use super::*;
use crate::{cluster_from_str, detect_kind};

const TWO: &str = "agents:\n\
                   \x20 - {name: gnb-a, url: \"http://127.0.0.1:9801\"}\n\
                   \x20 - {name: gnb-b, url: \"http://127.0.0.1:9802/\", weight: 2}\n\
                   pfcp: {local: 127.0.0.1, peer: \"127.0.0.2:8806\"}\n";

#[test]
fn a_cluster_file_reads_with_its_defaults() {
    assert_eq!(detect_kind(TWO), Some(FileKind::Cluster), "`agents` tells");
    let c = cluster_from_str(TWO, "c.yaml").expect("valid");
    assert_eq!(c.agents.len(), 2);
    assert_eq!((c.agents[0].weight, c.agents[1].weight), (1, 2));
    assert_eq!(c.agents[0].token_file, None);
    assert_eq!(c.pfcp.mode, PfcpMode::Coordinator);
    assert_eq!(c.pfcp.local.unwrap().to_string(), "127.0.0.1:8805");
    assert_eq!(c.pfcp.peer.unwrap().to_string(), "127.0.0.2:8806");
    assert_eq!(c.start_lead, Duration::from_millis(200));
    assert_eq!(c.agent_timeout, Duration::from_secs(3));
    assert_eq!(c.reports, PathBuf::from("reports"));
    let agents = cluster_from_str(
        "kind: cluster\nagents: [{name: a, url: \"http://h:1\"}]\npfcp: {mode: agents}\n\
         agent_timeout: 1500ms\n",
        "c.yaml",
    )
    .expect("valid");
    assert_eq!(
        (agents.pfcp.mode, agents.pfcp.local),
        (PfcpMode::Agents, None)
    );
}

#[test]
fn a_token_file_of_32_bytes_or_more_is_taken() {
    let dir = std::env::temp_dir().join(format!("upfbench-cluster-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let (good, short) = (dir.join("good"), dir.join("short"));
    // 44 bytes of base64 and a newline, as `head -c 32 /dev/urandom | base64` writes.
    std::fs::write(&good, "q1Jd4iZKxvJ7c3X8m0S9fPZ1o6mB2T3rY4uV5wA6bC0=\n").unwrap();
    std::fs::write(&short, "  0123456789012345678901234567890\n").unwrap();
    let text = |path: &std::path::Path| {
        format!(
            "agents: [{{name: a, url: \"http://h:1\", token_file: {}}}]\npfcp: {{mode: agents}}\n",
            path.display()
        )
    };
    cluster_from_str(&text(&good), "c.yaml").expect("44 bytes");
    let err = cluster_from_str(&text(&short), "c.yaml").expect_err("31 bytes");
    let place = format!("agents[0].token_file: {}: ", short.display());
    assert!(err.to_string().contains(&place), "{err}");
    assert!(
        err.to_string()
            .contains("31 bytes, a token needs 32 or more"),
        "{err}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_statefulset_s_pods_are_the_agents_with_the_file_s_token() {
    let dir = std::env::temp_dir().join(format!("upfbench-cluster-sts-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let token = dir.join("token");
    std::fs::write(&token, "q1Jd4iZKxvJ7c3X8m0S9fPZ1o6mB2T3rY4uV5wA6bC0=\n").unwrap();
    // deploy/kubernetes/config.yaml's form.
    let text = format!(
        "statefulset: {{name: upfbench-agent, service: upfbench-agents, replicas: 2, port: \
         9800}}\ntoken_file: {}\npfcp: {{local: 192.168.14.111, peer: 192.168.14.151}}\n",
        token.display()
    );
    assert_eq!(
        detect_kind(&text),
        Some(FileKind::Cluster),
        "`statefulset` tells"
    );
    let c = cluster_from_str(&text, "c.yaml").expect("valid");
    let agents: Vec<(&str, &str, u32)> = c
        .agents
        .iter()
        .map(|a| (a.name.as_str(), a.url.as_str(), a.weight))
        .collect();
    assert_eq!(
        agents,
        [
            (
                "upfbench-agent-0",
                "http://upfbench-agent-0.upfbench-agents:9800",
                1
            ),
            (
                "upfbench-agent-1",
                "http://upfbench-agent-1.upfbench-agents:9800",
                1
            ),
        ]
    );
    assert!(
        c.agents
            .iter()
            .all(|a| a.token_file.as_deref() == Some(token.as_path()))
    );
    // A listed agent's own token file is kept; the file's goes to the others.
    let own = dir.join("own");
    std::fs::write(&own, "r1Jd4iZKxvJ7c3X8m0S9fPZ1o6mB2T3rY4uV5wA6bC0=\n").unwrap();
    let listed = format!(
        "agents:\n  - {{name: a, url: \"http://h:1\", token_file: {}}}\n  - {{name: b, url: \
         \"http://h:2\"}}\ntoken_file: {}\npfcp: {{mode: agents}}\n",
        own.display(),
        token.display()
    );
    let c = cluster_from_str(&listed, "c.yaml").expect("valid");
    assert_eq!(c.agents[0].token_file.as_deref(), Some(own.as_path()));
    assert_eq!(c.agents[1].token_file.as_deref(), Some(token.as_path()));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_statefulset_beside_listed_agents_or_of_no_replica_is_refused_at_its_field() {
    let both = "agents: [{name: a, url: \"http://h:1\"}]\nstatefulset: {name: s, service: \
                svc, replicas: 2, port: 9800}\npfcp: {mode: agents}\n";
    let e = cluster_from_str(both, "c.yaml")
        .expect_err("both")
        .to_string();
    assert!(
        e.contains("statefulset: the agents are either listed"),
        "{e}"
    );
    let none = "statefulset: {name: s, service: svc, replicas: 0, port: 0}\npfcp: {mode: agents}\n";
    let e = cluster_from_str(none, "c.yaml").expect_err("0").to_string();
    assert!(
        e.contains("statefulset.replicas: 0: at least one agent"),
        "{e}"
    );
    assert!(e.contains("statefulset.port: 0"), "{e}");
    let bad = "statefulset: {name: \"s p\", service: svc, replicas: 1, port: 1}\npfcp: {mode: \
               agents}\n";
    let e = cluster_from_str(bad, "c.yaml")
        .expect_err("a space")
        .to_string();
    assert!(e.contains("statefulset.name"), "{e}");
}

#[test]
fn the_kubernetes_config_map_s_cluster_file_names_the_statefulset_s_pods() {
    // deploy/kubernetes/config.yaml's `cluster.yaml: |` block, its token file one of ours (the
    // Secret is mounted only in a pod).
    let map = include_str!("../../../../deploy/kubernetes/config.yaml");
    let block: String = map
        .lines()
        .skip_while(|l| l.trim() != "cluster.yaml: |")
        .skip(1)
        .take_while(|l| l.starts_with("    "))
        .map(|l| format!("{}\n", &l[4..]))
        .collect();
    assert!(block.contains("statefulset:"), "{block}");
    let dir = std::env::temp_dir().join(format!("upfbench-cluster-k8s-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let token = dir.join("token");
    std::fs::write(&token, "q1Jd4iZKxvJ7c3X8m0S9fPZ1o6mB2T3rY4uV5wA6bC0=\n").unwrap();
    let text = block.replace(
        "/run/secrets/upfbench-token",
        token.to_str().expect("utf-8"),
    );
    let c = cluster_from_str(&text, "config.yaml:cluster.yaml").expect("valid");
    let urls: Vec<&str> = c.agents.iter().map(|a| a.url.as_str()).collect();
    assert_eq!(
        urls,
        [
            "http://upfbench-agent-0.upfbench-agents:9800",
            "http://upfbench-agent-1.upfbench-agents:9800"
        ]
    );
    assert_eq!(c.pfcp.mode, PfcpMode::Coordinator);
    std::fs::remove_dir_all(&dir).unwrap();
}
