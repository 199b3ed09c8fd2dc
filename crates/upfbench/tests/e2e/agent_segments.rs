//! `upfbench agent` over memif against the reflector, as a coordinator loads it: a segment's
//! profile checked against the agent's system file over HTTP (422 with the located issues), a
//! segment loaded (its UEs cut over the agent's pair, each stream's share of the rate), the
//! agent's state on /health and /v1/status, whole runs refused while it is loaded, steps
//! refused before they are armed, the segment unloaded.

use std::time::Duration;

use serde_json::{Value, json};

use crate::agent::{TOKEN, agent, free_port, http, json_of};
use crate::harness::serial;
use crate::memif::{Memif, profile};

/// 10 UEs, 2 kpps each way; the coordinator's block is UEs 4 to 9.
fn segment(profile: Value) -> Value {
    json!({
        "run": "e2e-segment", "agent": "gnb-b", "index": 1, "agents": 2,
        "profile": profile,
        "ues": {"first": 4, "count": 6},
        "uplink_teids": {"sequence": {"first": 4096, "step": 1}},
        "upf_n3": "192.168.13.151"
    })
}

fn the_profile() -> Value {
    json!({
        "name": "e2e-segment",
        "sessions": {"count": 10},
        "streams": [
            {"name": "ul", "direction": "uplink", "rate": "2kpps", "payload": 100},
            {"name": "dl", "direction": "downlink", "rate": "2kpps", "payload": 100}
        ],
        "duration": "1s",
        "warmup": "0s",
        "drain": "300ms"
    })
}

fn state(port: u16) -> (String, String) {
    let (status, body) = http(port, "GET", "/health", None, None);
    assert_eq!(status, 200, "{body}");
    let health = json_of(&body)["state"]
        .as_str()
        .expect("a state")
        .to_owned();
    let (status, body) = http(port, "GET", "/v1/status", None, Some(TOKEN));
    assert_eq!(status, 200, "{body}");
    let status = json_of(&body)["state"]
        .as_str()
        .expect("a state")
        .to_owned();
    (health, status)
}

#[test]
fn agent_loads_a_segment_checked_against_its_system_and_unloads_it() {
    let _serial = serial();
    let m = Memif::new("agent-segments", "{}", &profile(1, 1, "0s"));
    let mut reflector = m.reflector();
    let port = free_port();
    let mut agent = agent(&m, port);
    assert_eq!(state(port), ("idle".into(), "idle".into()));
    // Before a segment: the step routes are a conflict.
    let (status, body) = start_step(port);
    assert_eq!(status, 409, "{body}");
    assert!(body.contains("no segment is loaded"), "{body}");
    a_profile_that_does_not_fit_is_refused_located(port);
    a_segment_is_loaded_cut_over_the_pair(port);
    loaded_it_refuses_runs_and_steps_not_armed(port);
    // Unloaded (twice: DELETE is idempotent), the agent is idle again.
    for _ in 0..2 {
        let (status, body) = http(port, "DELETE", "/v1/segment", None, Some(TOKEN));
        assert_eq!(status, 204, "{body}");
    }
    assert_eq!(state(port), ("idle".into(), "idle".into()));
    assert!(
        agent.stop(Duration::from_secs(30)).success(),
        "{}",
        agent.logs()
    );
    assert!(
        reflector.stop(Duration::from_secs(30)).success(),
        "{}",
        reflector.logs()
    );
}

fn start_step(port: u16) -> (u16, String) {
    let at = json!({"at_unix_ns": 1});
    http(port, "POST", "/v1/steps/1/start", Some(&at), Some(TOKEN))
}

/// A profile that does not fit the agent's system: its UEs' pool is the agent's N6 subnet.
fn a_profile_that_does_not_fit_is_refused_located(port: u16) {
    let mut bad = the_profile();
    bad["sessions"]["ue_pool"] = json!("192.168.16.0/24");
    let (status, body) = http(port, "PUT", "/v1/segment", Some(&segment(bad)), Some(TOKEN));
    assert_eq!(status, 422, "{body}");
    let problem = json_of(&body);
    let issues = problem["issues"].as_array().expect("issues");
    assert!(
        issues
            .iter()
            .any(|i| i["field"] == "profile.sessions.ue_pool"
                && i["message"]
                    .as_str()
                    .is_some_and(|m| m.contains("overlaps"))),
        "{problem}"
    );
    assert_eq!(state(port).0, "idle");
}

/// The segment: UEs 4 to 9 on the agent's one pair, 6/10 of each stream's rate.
fn a_segment_is_loaded_cut_over_the_pair(port: u16) {
    let body = segment(the_profile());
    let (status, body) = http(port, "PUT", "/v1/segment", Some(&body), Some(TOKEN));
    assert_eq!(status, 200, "{body}");
    let summary = json_of(&body);
    println!("segment summary: {summary}");
    assert_eq!(summary["run"], "e2e-segment");
    assert_eq!(summary["pairs"][0]["pair"], "p0");
    assert_eq!(summary["pairs"][0]["ues"], json!({"first": 4, "count": 6}));
    for (i, direction) in ["uplink", "downlink"].iter().enumerate() {
        let s = &summary["pairs"][0]["streams"][i];
        assert_eq!(s["direction"], *direction, "{summary}");
        assert_eq!(s["ues"], 6, "{summary}");
        let rate = s["rate_pps"].as_f64().expect("a rate");
        assert!((rate - 1_200.0).abs() < 1e-6, "{summary}");
    }
    assert_eq!(state(port), ("loaded".into(), "loaded".into()));
}

/// Loaded: a whole run is refused, a step not armed cannot start or give a result, a step
/// that cannot be run is refused located.
fn loaded_it_refuses_runs_and_steps_not_armed(port: u16) {
    let run = json!({"mode": "run", "profile_yaml": profile(1, 1, "0s")});
    let (status, body) = http(port, "POST", "/v1/runs", Some(&run), Some(TOKEN));
    assert_eq!(status, 409, "{body}");
    assert!(body.contains("DELETE /v1/segment"), "{body}");
    let (status, body) = start_step(port);
    assert_eq!(status, 409, "{body}");
    assert!(body.contains("step 1 is not armed"), "{body}");
    let (status, body) = http(port, "GET", "/v1/steps/1/result", None, Some(TOKEN));
    assert_eq!(status, 409, "{body}");
    let step = json!({"step": 0, "payload": 100, "load": 1.0, "duration_ms": 0, "warmup_ms": 0});
    let (status, body) = http(port, "POST", "/v1/steps", Some(&step), Some(TOKEN));
    assert_eq!(status, 422, "{body}");
    let problem = json_of(&body);
    let fields: Vec<&str> = problem["issues"]
        .as_array()
        .expect("issues")
        .iter()
        .filter_map(|i| i["field"].as_str())
        .collect();
    assert_eq!(fields, ["step", "duration_ms"], "{problem}");
}
