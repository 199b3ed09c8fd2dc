//! `upfbench agent` over memif against the reflector: runs asked for over HTTP, one after
//! another on one testbed (EAL started once), each with the report the command line writes;
//! the door guarded (a bearer token, loopback unless told otherwise); a run stopped over the
//! API keeps what it measured.

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use upfbench_metrics::scrape;

use crate::harness::{Process, UPFBENCH, num, serial};
use crate::memif::{Memif, RATE, profile};

/// The token the agent of these cases takes (44 bytes, as `head -c 32 /dev/urandom | base64`).
pub(crate) const TOKEN: &str = "c2VjcmV0LXRva2VuLW9mLWFuLWFnZW50LWZvci1lMmUK";

pub(crate) fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("a free port")
        .port()
}

/// One request to 127.0.0.1:`port` (HTTP/1.1, the connection closed after it): the status and
/// the body.
pub(crate) fn http(
    port: u16,
    method: &str,
    path: &str,
    body: Option<&Value>,
    token: Option<&str>,
) -> (u16, String) {
    let mut s = TcpStream::connect(("127.0.0.1", port)).expect("the agent listens");
    s.set_read_timeout(Some(Duration::from_secs(20)))
        .expect("timeout");
    let body = body.map(Value::to_string).unwrap_or_default();
    let mut head = format!(
        "{method} {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\nContent-Length: {}\r\n",
        body.len()
    );
    if !body.is_empty() {
        head.push_str("Content-Type: application/json\r\n");
    }
    if let Some(t) = token {
        head.push_str(&format!("Authorization: Bearer {t}\r\n"));
    }
    head.push_str("\r\n");
    s.write_all(head.as_bytes()).expect("write");
    s.write_all(body.as_bytes()).expect("write");
    let mut answer = Vec::new();
    s.read_to_end(&mut answer).expect("read");
    let answer = String::from_utf8_lossy(&answer).into_owned();
    let (head, body) = answer.split_once("\r\n\r\n").expect("a head");
    let status = head
        .split(' ')
        .nth(1)
        .and_then(|s| s.parse().ok())
        .expect("a status");
    let body = if head
        .to_ascii_lowercase()
        .contains("transfer-encoding: chunked")
    {
        dechunk(body)
    } else {
        body.to_owned()
    };
    (status, body)
}

fn dechunk(mut body: &str) -> String {
    let mut out = String::new();
    while let Some((size, rest)) = body.split_once("\r\n") {
        let n = usize::from_str_radix(size.trim(), 16).expect("a chunk size");
        if n == 0 {
            break;
        }
        out.push_str(&rest[..n]);
        body = &rest[n + 2..];
    }
    out
}

pub(crate) fn json_of(body: &str) -> Value {
    serde_json::from_str(body).unwrap_or_else(|e| panic!("{e}: {body}"))
}

/// `upfbench agent` on `m`'s system file listening on `listen`, with `extra` arguments; started.
fn spawn_agent(m: &Memif, name: &str, listen: &str, extra: &[&str]) -> Process {
    let mut args = vec![
        UPFBENCH,
        "agent",
        m.system.to_str().expect("utf-8"),
        "--listen",
        listen,
    ];
    args.extend_from_slice(extra);
    Process::spawn(name, &m.scratch, None, &args, Some(&m.gen_prefix))
}

/// The agent of `m`'s system file on `port`, with the token, ready to take runs.
pub(crate) fn agent(m: &Memif, port: u16) -> Process {
    let token = m.scratch.write("token", TOKEN);
    let reports = m.reports();
    let listen = format!("127.0.0.1:{port}");
    let mut p = spawn_agent(
        m,
        "agent",
        &listen,
        &[
            "--token-file",
            token.to_str().expect("utf-8"),
            "--reports",
            reports.to_str().expect("utf-8"),
        ],
    );
    p.wait_until(Duration::from_secs(30), |out, _| {
        out.contains("agent: serving the API")
    });
    p
}

/// Starts a run; its id.
fn start(port: u16, request: &Value) -> String {
    let (status, body) = http(port, "POST", "/v1/runs", Some(request), Some(TOKEN));
    assert_eq!(status, 201, "{body}");
    json_of(&body)["id"].as_str().expect("an id").to_owned()
}

/// Polls the run until it ended; its last state, and the live figures seen while it ran.
fn until_ended(port: u16, id: &str, timeout: Duration) -> (Value, Vec<Value>) {
    let until = Instant::now() + timeout;
    let mut lives = Vec::new();
    loop {
        let (status, body) = http(port, "GET", &format!("/v1/runs/{id}"), None, Some(TOKEN));
        assert_eq!(status, 200, "{body}");
        let state = json_of(&body);
        if let Some(live) = state.get("live") {
            lives.push(live.clone());
        }
        if matches!(state["phase"].as_str(), Some("finished" | "failed")) {
            return (state, lives);
        }
        assert!(
            Instant::now() < until,
            "run {id} still {state} after {timeout:?}"
        );
        std::thread::sleep(Duration::from_millis(200));
    }
}

fn report(port: u16, id: &str) -> Value {
    let (status, body) = http(
        port,
        "GET",
        &format!("/v1/runs/{id}/report"),
        None,
        Some(TOKEN),
    );
    assert_eq!(status, 200, "{body}");
    json_of(&body)
}

/// Each direction of the report's first step: (sent, received, lost).
fn counts(report: &Value) -> Vec<(String, u64, u64, u64)> {
    report["steps"][0]["directions"]
        .as_array()
        .expect("directions")
        .iter()
        .map(|d| {
            (
                d["direction"].as_str().expect("a name").to_owned(),
                num(d, &["tx", "packets"]),
                num(d, &["rx", "packets"]),
                num(d, &["loss", "lost"]),
            )
        })
        .collect()
}

#[test]
fn agent_hosts_runs_one_after_another_on_one_testbed_and_guards_its_door() {
    let _serial = serial();
    let m = Memif::new("agent", "{}", &profile(1, 1, "0s"));
    let mut reflector = m.reflector();
    let port = free_port();
    let mut agent = agent(&m, port);
    the_door_takes_the_token(port);
    let text = profile(1, SECONDS, "0s");
    two_runs_on_one_testbed(port, &text, &agent);
    the_runs_figures_are_scraped(port);
    a_mistake_is_refused_located(port, &text);
    a_stopped_run_keeps_what_it_measured(port, &text);
    // Ctrl-C ends the agent cleanly; every session it made is gone from the reflector.
    assert!(
        agent.stop(Duration::from_secs(30)).success(),
        "{}",
        agent.logs()
    );
    assert!(reflector.stop(Duration::from_secs(30)).success());
    // Each run associated, established its session, deleted it and released the association.
    let released = reflector
        .stderr()
        .matches("released the association (0 sessions removed)")
        .count();
    assert_eq!(released, 3, "{}", reflector.logs());
    let out = agent.stdout();
    for line in ["PFCP: 1 sessions established", "PFCP: 1 sessions deleted"] {
        assert_eq!(
            out.lines().filter(|l| *l == line).count(),
            3,
            "{line}:\n{out}"
        );
    }
}

/// Each run's measured phase.
const SECONDS: u64 = 3;

/// `/health` without a token, everything else with it.
fn the_door_takes_the_token(port: u16) {
    let (status, body) = http(port, "GET", "/health", None, None);
    assert_eq!((status, json_of(&body)), (200, json!({"state": "idle"})));
    let (status, _) = http(port, "GET", "/v1", None, None);
    assert_eq!(status, 401);
    let wrong = "not-the-token-not-the-token-not-the-t";
    let (status, _) = http(port, "GET", "/v1", None, Some(wrong));
    assert_eq!(status, 401);
    let (status, body) = http(port, "GET", "/v1", None, Some(TOKEN));
    assert_eq!(status, 200, "{body}");
    let info = json_of(&body);
    assert_eq!(info["api_version"], 1);
    assert_eq!(info["pairs"][0]["n3"]["device"], "net_memif0");
}

/// Two runs on one testbed: the second takes the queues the first gave back. Each has live
/// figures while it runs and the command line's report once it ended.
fn two_runs_on_one_testbed(port: u16, text: &str, agent: &Process) {
    let request = json!({"mode": "run", "profile_yaml": text});
    for n in 1..=2 {
        let id = start(port, &request);
        let (status, body) = http(port, "POST", "/v1/runs", Some(&request), Some(TOKEN));
        assert_eq!(status, 409, "one run at a time: {body}");
        assert!(body.contains(&format!("run {id} is")), "{body}");
        let (state, lives) = until_ended(port, &id, Duration::from_secs(60));
        assert_eq!(
            state["phase"],
            "finished",
            "run {n}: {state}\n{}",
            agent.logs()
        );
        assert!(state.get("error").is_none(), "{state}");
        assert!(
            lives.iter().any(|l| l["total"]
                .as_array()
                .is_some_and(|d| d.iter().any(|d| d["rx_packets"].as_u64() > Some(0)))),
            "no live figures with packets in {lives:?}"
        );
        let r = report(port, &id);
        for (direction, sent, received, lost) in counts(&r) {
            assert_eq!(sent, RATE * SECONDS, "run {n} {direction}");
            assert_eq!((received, lost), (sent, 0), "run {n} {direction}");
        }
        let path = format!("/v1/runs/{id}/report.html");
        let (status, html) = http(port, "GET", &path, None, Some(TOKEN));
        assert_eq!(status, 200);
        assert!(html.to_ascii_lowercase().starts_with("<!doctype html>"));
        let path = format!("/v1/runs/{id}/events");
        let (status, events) = http(port, "GET", &path, None, Some(TOKEN));
        assert_eq!(status, 200);
        assert!(events.lines().count() > 2, "{events}");
    }
}

/// `/metrics` on the API's listener: the last run's step (once: the run before it is gone), as
/// the command line's `--metrics` serves it.
fn the_runs_figures_are_scraped(port: u16) {
    let (status, _) = http(port, "GET", "/metrics", None, None);
    assert_eq!(status, 401);
    let (status, text) = http(port, "GET", "/metrics", None, Some(TOKEN));
    assert_eq!(status, 200, "{text}");
    let parsed = scrape::parse(&text).unwrap_or_else(|e| panic!("{e}:\n{text}"));
    let series = text
        .lines()
        .filter(|l| l.starts_with("upfbench_sent_packets_total{"))
        .count();
    assert_eq!(series, 2, "one series a direction:\n{text}");
    for direction in ["uplink", "downlink"] {
        let labels = [("direction", direction), ("step", "1")];
        for name in [
            "upfbench_sent_packets_total",
            "upfbench_received_packets_total",
        ] {
            assert_eq!(
                scrape::value(&parsed, name, &labels),
                Some((RATE * SECONDS) as f64),
                "{name} {direction}:\n{text}"
            );
        }
    }
}

/// A profile with a mistake: refused, located in the text sent, before anything starts.
fn a_mistake_is_refused_located(port: u16, text: &str) {
    let bad = text.replace("rate: 50000pps", "rate: fast");
    let bad = json!({"mode": "run", "profile_yaml": bad});
    let (status, body) = http(port, "POST", "/v1/runs", Some(&bad), Some(TOKEN));
    assert_eq!(status, 422, "{body}");
    let problem = json_of(&body);
    let issue = &problem["issues"][0];
    assert_eq!(issue["field"], "streams[0].rate", "{problem}");
    let message = issue["message"].as_str().expect("text");
    assert!(message.starts_with("line 4, column"), "{problem}");
    let (status, _) = http(port, "GET", "/v1/runs/r99-1", None, Some(TOKEN));
    assert_eq!(status, 404);
}

/// A long run stopped over the API: it ends at once, with what it measured.
fn a_stopped_run_keeps_what_it_measured(port: u16, text: &str) {
    let long = json!({"mode": "run", "profile_yaml": text, "options": {"duration_ms": 60_000}});
    let id = start(port, &long);
    let until = Instant::now() + Duration::from_secs(30);
    let state = format!("/v1/runs/{id}");
    while !http(port, "GET", &state, None, Some(TOKEN))
        .1
        .contains("\"step\":1")
    {
        assert!(Instant::now() < until, "run {id} never reached its step");
        std::thread::sleep(Duration::from_millis(200));
    }
    std::thread::sleep(Duration::from_secs(1));
    let (status, body) = http(port, "POST", &format!("{state}/stop"), None, Some(TOKEN));
    assert_eq!(status, 202, "{body}");
    let stopped = Instant::now();
    let (state, _) = until_ended(port, &id, Duration::from_secs(30));
    assert!(
        stopped.elapsed() < Duration::from_secs(15),
        "{:?}",
        stopped.elapsed()
    );
    assert_eq!(state["phase"], "finished", "{state}");
    for (direction, sent, received, lost) in counts(&report(port, &id)) {
        assert!(sent > 0 && sent < RATE * 30, "{direction}: {sent}");
        assert_eq!((received, lost), (sent, 0), "{direction}");
    }
}

#[test]
fn agent_refuses_an_open_door_before_it_takes_the_ports() {
    let m = Memif::new("agent-door", "{}", &profile(1, 1, "0s"));
    let port = free_port().to_string();
    let open = format!("0.0.0.0:{port}");
    let mut p = spawn_agent(&m, "agent", &open, &[]);
    assert!(!p.wait(Duration::from_secs(10)).success());
    assert!(
        p.stderr()
            .contains(&format!("listening on {open} needs --token-file")),
        "{}",
        p.logs()
    );
    let short = m.scratch.write("short", "0123456789");
    let short = short.to_str().expect("utf-8");
    let mut p = spawn_agent(&m, "agent-short", &open, &["--token-file", short]);
    assert!(!p.wait(Duration::from_secs(10)).success());
    assert!(
        p.stderr().contains("a token needs 32 or more"),
        "{}",
        p.logs()
    );
}
