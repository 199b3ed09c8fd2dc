//! `upfbench agent` over memif against the reflector, running a coordinator's steps: the test
//! is the coordinator and the SMF (it establishes the segment's sessions over `upfbench-n4`, as
//! a coordinator holding N4 does, and the agent's session has no PFCP), loads a segment of UEs
//! 4 to 9 of 10, arms a step, starts it at a common time 300 ms ahead, reads the status while
//! it runs, and fetches its raw result; then a second step at twice the load on the same
//! segment, and a third stopped at a given time before its end.

use std::net::SocketAddr;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use base64::Engine as _;
use hdrhistogram::serialization::Deserializer;
use serde_json::{Value, json};
use upfbench_config as config;
use upfbench_n4::client_side::{ClientSide, ClientThread};
use upfbench_pfcp::Seid;

use crate::agent::{TOKEN, agent, free_port, http, json_of};
use crate::harness::serial;
use crate::memif::Memif;

/// 10 UEs, 5 kpps each way over them all, 1 s measured after a 200 ms warm-up, 1 s of drain
/// (for a reflector whose core is shared): the agent's block of 6 UEs sends 3,000 packets each
/// way at load 1. (JSON is YAML: the profile's file is its text.)
fn the_profile() -> Value {
    json!({
        "name": "e2e-steps",
        "sessions": {
            "count": 10,
            "uplink_teid": {"first": 1, "step": 2},
            "downlink_teid": {"first": 2, "step": 2}
        },
        "streams": [
            {"name": "ul", "direction": "uplink", "rate": "5000pps", "payload": 100},
            {"name": "dl", "direction": "downlink", "rate": "5000pps", "payload": 100}
        ],
        "duration": "1s",
        "warmup": "200ms",
        "drain": "1s"
    })
}

/// The coordinator's block of the UEs.
const FIRST: u32 = 4;
const COUNT: u32 = 6;

fn unix_ns() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .expect("after 1970")
        .as_nanos() as u64
}

/// The SMF, associated with the reflector's PFCP server from the address it expects (the
/// agent's system file's `pfcp.local`), with the block's sessions established as the agent's
/// one box would plan them (CP SEIDs from 1).
fn smf(m: &Memif) -> ClientThread {
    let (system, profile) =
        config::load_run(&m.system, &m.profile).unwrap_or_else(|e| panic!("{e}"));
    let pfcp = system.pfcp.as_ref().expect("the memif system has pfcp");
    let client = ClientThread::start(Some(ClientSide {
        local: SocketAddr::new(pfcp.local.ip(), 0),
        peer: pfcp.peer,
        t1: Duration::from_secs(1),
        n1: 3,
        heartbeat: None,
        initial_window: 16,
        window: 64,
        release_wait: Duration::ZERO,
    }))
    .expect("the SMF's PFCP side");
    client
        .associate()
        .wait()
        .expect("the control thread")
        .expect("associated");
    let plan = upfbench_run::plan::build(&system, &profile, None, [None, None]).expect("plan");
    let plans = upfbench_run::plan::sessions::session_plans(&system, &profile, &plan.ues)
        .expect("session plans");
    let mut block: Vec<_> = plans
        .into_iter()
        .skip(FIRST as usize)
        .take(COUNT as usize)
        .collect();
    for (i, p) in block.iter_mut().enumerate() {
        p.ue.cp_seid = Seid(1 + i as u64);
    }
    let mut pending = client.establish(block).expect("a PFCP client");
    let until = Instant::now() + Duration::from_secs(10);
    let sessions = loop {
        if let Some(r) = pending.try_result() {
            break r.expect("established");
        }
        assert!(Instant::now() < until, "no answer to the establishments");
        std::thread::sleep(Duration::from_millis(10));
    };
    assert_eq!(sessions.len(), COUNT as usize);
    client
}

fn segment() -> Value {
    json!({
        "run": "e2e-steps", "agent": "gnb-b", "index": 1, "agents": 2,
        "profile": the_profile(),
        "ues": {"first": FIRST, "count": COUNT},
        "uplink_teids": {"sequence": {"first": 1, "step": 2}},
        "upf_n3": null
    })
}

fn post(port: u16, path: &str, body: &Value) -> (u16, String) {
    http(port, "POST", path, Some(body), Some(TOKEN))
}

/// How a step is asked for: its payload (none: each stream's own), load, warm-up and measured
/// phase, and when it is stopped (ms after its start), if it is.
#[derive(Clone, Copy)]
struct Asked {
    payload: Option<u16>,
    load: f64,
    warmup_ms: u64,
    duration_ms: u64,
    stop_after_ms: Option<u64>,
}

/// Arms step `step` as `asked` says, starts it 300 ms ahead, reads the status each 200 ms
/// until it is collected; its result, and the states and live figures seen.
fn step(port: u16, step: u32, asked: Asked) -> (Value, Vec<String>, Vec<Value>) {
    let mut request = json!({
        "step": step, "load": asked.load, "duration_ms": asked.duration_ms,
        "warmup_ms": asked.warmup_ms
    });
    if let Some(p) = asked.payload {
        request["payload"] = json!(p);
    }
    let (status, body) = post(port, "/v1/steps", &request);
    assert_eq!(status, 200, "{body}");
    let armed = json_of(&body);
    println!("step {step} armed: {armed}");
    assert_eq!(armed["step"], step);
    assert_eq!(armed["armed"], true);
    // A second arming while this one waits is refused.
    let (status, body) = post(port, "/v1/steps", &request);
    assert_eq!(status, 409, "{body}");
    let at = unix_ns() + 300_000_000;
    let (status, body) = post(
        port,
        &format!("/v1/steps/{step}/start"),
        &json!({"at_unix_ns": at}),
    );
    assert_eq!(status, 202, "{body}");
    if let Some(after) = asked.stop_after_ms {
        let (status, body) = post(
            port,
            &format!("/v1/steps/{step}/stop"),
            &json!({"at_unix_ns": at + after * 1_000_000}),
        );
        assert_eq!(status, 202, "{body}");
    }
    let until = Instant::now() + Duration::from_secs(20);
    let mut states = Vec::new();
    let mut lives = Vec::new();
    loop {
        let (status, body) = http(port, "GET", "/v1/status", None, Some(TOKEN));
        assert_eq!(status, 200, "{body}");
        let s = json_of(&body);
        let state = s["state"].as_str().expect("a state").to_owned();
        if states.last() != Some(&state) {
            states.push(state.clone());
        }
        if let Some(live) = s.get("live") {
            if lives.is_empty() {
                println!("step {step} status: {s}");
            }
            lives.push(live.clone());
        }
        if state == "collected" {
            assert_eq!(s["step"], step, "{s}");
            break;
        }
        assert!(
            Instant::now() < until,
            "step {step} never collected: {states:?}"
        );
        std::thread::sleep(Duration::from_millis(200));
    }
    let (status, body) = http(
        port,
        "GET",
        &format!("/v1/steps/{step}/result"),
        None,
        Some(TOKEN),
    );
    assert_eq!(status, 200, "{body}");
    (json_of(&body), states, lives)
}

/// A histogram's samples, decoded from its HDR V2 deflate base64.
fn decoded_count(h: &Value) -> u64 {
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(h["hdr"].as_str().expect("hdr"))
        .expect("base64");
    let histogram: hdrhistogram::Histogram<u64> = Deserializer::new()
        .deserialize(&mut bytes.as_slice())
        .expect("an HDR histogram");
    histogram.len()
}

/// Every packet of the block's share sent and received once, none lost; the histograms'
/// samples are the packets received; the start on time.
fn assert_clean(result: &Value, step: u32, per_direction: u64) {
    assert_eq!(result["step"], step);
    let late = result["start_late_ns"].as_i64().expect("start_late_ns");
    // Posted when the start call came, 300 ms ahead: on time unless the agent's thread was
    // held up for that long.
    assert!((0..1_000_000).contains(&late), "start {late} ns late");
    let pairs = result["pairs"].as_array().expect("pairs");
    assert_eq!(pairs.len(), 1, "{result}");
    let pair = &pairs[0];
    assert_eq!(pair["pair"], "p0");
    let directions = pair["directions"].as_array().expect("directions");
    assert_eq!(directions.len(), 2, "{pair}");
    let streams = pair["streams"].as_array().expect("streams");
    for ((d, name), stream) in directions.iter().zip(["uplink", "downlink"]).zip(streams) {
        assert_eq!(d["direction"], name);
        let sent = d["tx"]["packets"].as_u64().expect("tx");
        let received = d["rx"]["packets"].as_u64().expect("rx");
        let seq = &d["seq"];
        println!(
            "step {step} {name}: sent {sent}, received {received}, lost {}, latency samples {}",
            seq["lost"], d["latency"]["count"]
        );
        // A sender whose core was taken from it (a shared 2-CPU machine) falls behind its
        // schedule and is cut short at the measured phase's limit: the result says so.
        if stream["tx_slip"].is_null() {
            assert_eq!(sent, per_direction, "{d}");
        } else {
            println!(
                "step {step} {name}: behind its schedule: {}",
                stream["tx_slip"]
            );
            assert!(sent > 0 && sent <= per_direction, "{d}");
        }
        assert_eq!(stream["seq"]["sent"].as_u64(), Some(sent), "{stream}");
        assert_eq!(stream["flows"], COUNT, "{stream}");
        assert_eq!(decoded_count(&stream["latency"]), received, "{stream}");
        assert_eq!(received, sent, "{d}");
        assert_eq!(seq["unique"].as_u64(), Some(sent), "{d}");
        assert_eq!(seq["lost"].as_u64(), Some(0), "{d}");
        assert_eq!(d["latency"]["count"].as_u64(), Some(received), "{d}");
        assert_eq!(decoded_count(&d["latency"]), received, "{d}");
    }
}

#[test]
fn agent_runs_a_segment_s_steps_started_at_a_common_time() {
    let _serial = serial();
    let m = Memif::new("agent-steps", "{}", &the_profile().to_string());
    let mut reflector = m.reflector();
    let smf = smf(&m);
    let port = free_port();
    let mut agent = agent(&m, port);
    let (status, body) = http(port, "PUT", "/v1/segment", Some(&segment()), Some(TOKEN));
    assert_eq!(status, 200, "{body}");
    // A start before the step is armed: 409.
    let (status, body) = post(port, "/v1/steps/1/start", &json!({"at_unix_ns": unix_ns()}));
    assert_eq!(status, 409, "{body}");
    assert!(body.contains("step 1 is not armed"), "{body}");
    let asked = Asked {
        payload: Some(100),
        load: 1.0,
        warmup_ms: 200,
        duration_ms: 1000,
        stop_after_ms: None,
    };
    let (first, states, lives) = step(port, 1, asked);
    println!("step 1 states: {states:?}, {} live figures", lives.len());
    println!("step 1 start_late_ns: {}", first["start_late_ns"]);
    assert_eq!(
        states.first().map(String::as_str),
        Some("running"),
        "{states:?}"
    );
    assert_eq!(states.last().map(String::as_str), Some("collected"));
    assert!(!lives.is_empty(), "no live figures while step 1 ran");
    assert_clean(&first, 1, 3_000);
    // The same segment at twice the load, without a warm-up, each stream at its own payload.
    let twice = Asked {
        payload: None,
        load: 2.0,
        warmup_ms: 0,
        ..asked
    };
    let (second, states, _) = step(port, 2, twice);
    println!(
        "step 2 states: {states:?}, start_late_ns {}",
        second["start_late_ns"]
    );
    assert_clean(&second, 2, 6_000);
    a_step_is_stopped_500_ms_after_its_start(port, twice);
    // Step 2's result went with its slot; the segment unloads and the agent is idle.
    let (status, _) = http(port, "GET", "/v1/steps/2/result", None, Some(TOKEN));
    assert_eq!(status, 409);
    let (status, body) = http(port, "DELETE", "/v1/segment", None, Some(TOKEN));
    assert_eq!(status, 204, "{body}");
    let until = Instant::now() + Duration::from_secs(20);
    while !agent.stdout().contains("the segment's steps ended") {
        assert!(Instant::now() < until, "{}", agent.logs());
        std::thread::sleep(Duration::from_millis(100));
    }
    assert!(
        agent
            .stdout()
            .contains("agent: the segment's steps ended\n"),
        "{}",
        agent.logs()
    );
    drop(smf);
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

/// Step 3, of 2 s at `twice`'s load, stopped 500 ms after its start: collected with what it
/// sent by then, every packet of it received; the agent's run of the segment ends with it.
fn a_step_is_stopped_500_ms_after_its_start(port: u16, twice: Asked) {
    let stopped = Asked {
        duration_ms: 2000,
        stop_after_ms: Some(500),
        ..twice
    };
    let (third, _, _) = step(port, 3, stopped);
    let uplink = &third["pairs"][0]["directions"][0];
    let sent = uplink["tx"]["packets"].as_u64().expect("tx");
    println!("step 3, stopped 500 ms after its start (of 2 s): uplink sent {sent} of 12,000");
    // 500 ms at 6 kpps is 3,000: the stop is posted when it is due, give or take the
    // agent's loop (50 ms at most here); a sender that slipped sent fewer.
    assert!(sent > 0 && sent <= 3_300, "{uplink}");
    if third["pairs"][0]["streams"][0]["tx_slip"].is_null() {
        assert!(sent >= 2_940, "{uplink}");
    }
    assert_eq!(uplink["rx"]["packets"].as_u64(), Some(sent), "{uplink}");
    assert_eq!(uplink["seq"]["lost"].as_u64(), Some(0), "{uplink}");
}
