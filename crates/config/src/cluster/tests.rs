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
