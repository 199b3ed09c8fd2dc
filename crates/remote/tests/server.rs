//! The server over loopback with a fake agent behind it (docs/scale.md §4): every guard and
//! limit answers with its status, one byte past each limit is refused and the limit itself is
//! not, and `/health` still answers after all of them; then the client against the server.

mod fake;

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::{Duration, Instant};

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use upfbench_api::v1::{BODY_LIMIT, SEGMENT_LIMIT};
use upfbench_remote::{Limits, Server, ServerConfig, Token};

use fake::Fake;

const SECRET: &str = "0123456789abcdef0123456789abcdef-upfbench";

async fn start(token: bool, limits: Limits) -> (SocketAddr, Arc<Fake>) {
    let config = ServerConfig {
        listen: SocketAddr::from(([127, 0, 0, 1], 0)),
        token: token.then(|| Token::new(SECRET.as_bytes()).unwrap()),
        insecure_no_token: false,
        limits,
    };
    let server = Server::bind(config).await.unwrap();
    let addr = server.local_addr().unwrap();
    let fake = Arc::new(Fake::default());
    tokio::spawn(server.serve(fake.clone(), std::future::pending()));
    (addr, fake)
}

/// Sends `request` (and nothing after it) and reads the answer until the server closes.
async fn exchange(addr: SocketAddr, request: &[u8]) -> String {
    let mut s = TcpStream::connect(addr).await.unwrap();
    s.write_all(request).await.unwrap();
    let mut answer = Vec::new();
    let _ = s.read_to_end(&mut answer).await;
    String::from_utf8_lossy(&answer).into_owned()
}

fn status(answer: &str) -> u16 {
    answer
        .strip_prefix("HTTP/1.1 ")
        .and_then(|r| r.get(..3))
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| panic!("not an HTTP answer: {answer:?}"))
}

fn header<'a>(answer: &'a str, name: &str) -> Option<&'a str> {
    let head = answer.split("\r\n\r\n").next()?;
    head.lines().find_map(|l| {
        let (n, v) = l.split_once(':')?;
        n.eq_ignore_ascii_case(name).then(|| v.trim())
    })
}

fn get(path: &str, auth: Option<&str>) -> Vec<u8> {
    let auth = auth.map_or(String::new(), |a| format!("Authorization: {a}\r\n"));
    format!("GET {path} HTTP/1.1\r\nHost: x\r\n{auth}Connection: close\r\n\r\n").into_bytes()
}

fn bearer() -> String {
    format!("Bearer {SECRET}")
}

fn with_body(method: &str, path: &str, content_type: &str, body: &[u8]) -> Vec<u8> {
    let mut r = format!(
        "{method} {path} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {SECRET}\r\n\
         Content-Type: {content_type}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
        body.len()
    )
    .into_bytes();
    r.extend_from_slice(body);
    r
}

/// JSON of `json` padded with spaces after it to exactly `len` bytes.
fn padded(json: &str, len: usize) -> Vec<u8> {
    let mut b = json.as_bytes().to_vec();
    b.resize(len, b' ');
    b
}

const STEP: &str =
    r#"{"step": 1, "payload": 64, "load": 1.0, "duration_ms": 1000, "warmup_ms": 0}"#;

async fn health_answers(addr: SocketAddr) {
    let a = exchange(addr, &get("/health", None)).await;
    assert_eq!(status(&a), 200, "{a}");
    assert!(a.ends_with(r#"{"state":"idle"}"#), "{a}");
}

#[tokio::test]
async fn a_token_is_needed_everywhere_but_health() {
    let (addr, fake) = start(true, Limits::default()).await;
    let a = exchange(addr, &get("/v1/status", None)).await;
    assert_eq!(status(&a), 401);
    assert_eq!(
        header(&a, "www-authenticate"),
        Some("Bearer realm=\"upfbench\"")
    );
    assert_eq!(header(&a, "content-type"), Some("application/problem+json"));
    assert!(a.contains("urn:upfbench:unauthorized"), "{a}");
    let wrong = format!("Bearer {}", SECRET.replace('0', "1"));
    let a = exchange(addr, &get("/v1/status", Some(&wrong))).await;
    assert_eq!(status(&a), 401);
    assert_eq!(
        header(&a, "www-authenticate"),
        Some("Bearer realm=\"upfbench\", error=\"invalid_token\"")
    );
    // A prefix of the token, the token with a byte more, another scheme.
    for auth in [
        format!("Bearer {}", &SECRET[..SECRET.len() - 1]),
        format!("Bearer {SECRET}x"),
        format!("Basic {SECRET}"),
    ] {
        assert_eq!(
            status(&exchange(addr, &get("/v1/status", Some(&auth))).await),
            401,
            "{auth}"
        );
    }
    // Unknown routes too: no token, no map of the routes.
    assert_eq!(
        status(&exchange(addr, &get("/v2/nothing", None)).await),
        401
    );
    assert_eq!(
        fake.calls(),
        Vec::<String>::new(),
        "the agent was never asked"
    );
    let a = exchange(addr, &get("/v1/status", Some(&bearer()))).await;
    assert_eq!(status(&a), 200, "{a}");
    assert_eq!(fake.calls(), vec!["status"]);
    assert_eq!(status(&exchange(addr, &get("/metrics", None)).await), 401);
    health_answers(addr).await;
}

#[tokio::test]
async fn one_byte_over_the_head_limit_is_431_the_limit_itself_is_served() {
    let limits = Limits::default();
    let (addr, _) = start(true, limits).await;
    // A head of exactly `head_bytes`: request line, headers, the blank line.
    let head = |len: usize| {
        let start = format!(
            "GET /v1/status HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {SECRET}\r\nConnection: close\r\nX-Pad: "
        );
        let pad = len - start.len() - 4;
        format!("{start}{}\r\n\r\n", "a".repeat(pad)).into_bytes()
    };
    let exact = head(limits.head_bytes);
    assert_eq!(exact.len(), 16 << 10);
    let a = exchange(addr, &exact).await;
    assert_eq!(status(&a), 200, "{a}");
    let over = head(limits.head_bytes + 1);
    assert_eq!(status(&exchange(addr, &over).await), 431);
    health_answers(addr).await;
}

#[tokio::test]
async fn one_byte_over_each_body_limit_is_413_the_limit_itself_is_read() {
    let (addr, fake) = start(true, Limits::default()).await;
    let json = "application/json";
    let a = exchange(
        addr,
        &with_body("POST", "/v1/steps", json, &padded(STEP, BODY_LIMIT)),
    )
    .await;
    assert_eq!(status(&a), 200, "{}", &a[..a.len().min(300)]);
    let a = exchange(
        addr,
        &with_body("POST", "/v1/steps", json, &padded(STEP, BODY_LIMIT + 1)),
    )
    .await;
    assert_eq!(status(&a), 413, "{a}");
    assert!(a.contains("urn:upfbench:body-too-large"), "{a}");
    // Chunked, with no Content-Length to go by: the reading stops at the limit.
    let body = padded(STEP, BODY_LIMIT + 1);
    let mut chunked = format!(
        "POST /v1/steps HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {SECRET}\r\n\
         Content-Type: {json}\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n"
    )
    .into_bytes();
    for chunk in body.chunks(64 << 10) {
        chunked.extend_from_slice(format!("{:x}\r\n", chunk.len()).as_bytes());
        chunked.extend_from_slice(chunk);
        chunked.extend_from_slice(b"\r\n");
    }
    chunked.extend_from_slice(b"0\r\n\r\n");
    let a = exchange(addr, &chunked).await;
    assert_eq!(status(&a), 413, "{a}");
    // The segment's own limit, 64 MiB: at it the body is read and parsed.
    let segment = r#"{"run": "r", "agent": "a", "index": 0, "agents": 1, "profile": {},
        "ues": {"first": 0, "count": 10}, "uplink_teids": {"sequence": {"first": 1, "step": 1}}}"#;
    let a = exchange(
        addr,
        &with_body("PUT", "/v1/segment", json, &padded(segment, SEGMENT_LIMIT)),
    )
    .await;
    assert_eq!(status(&a), 200, "{}", &a[..a.len().min(300)]);
    // One more byte: refused on its Content-Length, before a byte of it is read.
    let head = format!(
        "PUT /v1/segment HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {SECRET}\r\n\
         Content-Type: {json}\r\nContent-Length: {}\r\n\r\n",
        SEGMENT_LIMIT + 1
    );
    let a = exchange(addr, head.as_bytes()).await;
    assert_eq!(status(&a), 413, "{a}");
    assert_eq!(header(&a, "connection"), Some("close"));
    assert_eq!(fake.calls(), vec!["arm_step 1", "load_segment r"]);
    health_answers(addr).await;
}

#[tokio::test]
async fn a_slow_head_is_cut_off_unanswered() {
    let limits = Limits {
        header_read: Duration::from_millis(300),
        ..Limits::default()
    };
    let (addr, _) = start(false, limits).await;
    let started = Instant::now();
    let mut s = TcpStream::connect(addr).await.unwrap();
    s.write_all(b"GET /health HTTP/1.1\r\nHost: x\r\n")
        .await
        .unwrap();
    let mut answer = Vec::new();
    let read = tokio::time::timeout(Duration::from_secs(5), s.read_to_end(&mut answer)).await;
    let took = started.elapsed();
    assert!(read.is_ok(), "the connection was still open after 5 s");
    assert!(answer.is_empty(), "{:?}", String::from_utf8_lossy(&answer));
    assert!(took >= Duration::from_millis(300), "{took:?}");
    // An idle connection (no byte at all) is closed the same way.
    let mut idle = TcpStream::connect(addr).await.unwrap();
    let read = tokio::time::timeout(Duration::from_secs(5), idle.read_to_end(&mut answer)).await;
    assert!(read.is_ok() && answer.is_empty());
    health_answers(addr).await;
}

#[tokio::test]
async fn a_body_shorter_than_its_content_length_is_400_or_408() {
    let limits = Limits {
        body_read: Duration::from_millis(300),
        ..Limits::default()
    };
    let (addr, fake) = start(false, limits).await;
    let head = "POST /v1/steps HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n\
                Content-Length: 200\r\nConnection: close\r\n\r\n";
    // The peer sends half and closes its side: the body ended before its length.
    let mut s = TcpStream::connect(addr).await.unwrap();
    s.write_all(head.as_bytes()).await.unwrap();
    s.write_all(&STEP.as_bytes()[..40]).await.unwrap();
    s.shutdown().await.unwrap();
    let mut answer = Vec::new();
    s.read_to_end(&mut answer).await.unwrap();
    let a = String::from_utf8_lossy(&answer);
    assert_eq!(status(&a), 400, "{a}");
    assert!(a.contains("the body ended before its length"), "{a}");
    // The peer sends half and waits: 408 once the body's time is up.
    let mut s = TcpStream::connect(addr).await.unwrap();
    s.write_all(head.as_bytes()).await.unwrap();
    s.write_all(&STEP.as_bytes()[..40]).await.unwrap();
    let mut answer = Vec::new();
    tokio::time::timeout(Duration::from_secs(5), s.read_to_end(&mut answer))
        .await
        .expect("an answer within 5 s")
        .unwrap();
    let a = String::from_utf8_lossy(&answer);
    assert_eq!(status(&a), 408, "{a}");
    assert!(a.contains("urn:upfbench:body-timeout"), "{a}");
    assert_eq!(fake.calls(), Vec::<String>::new());
    health_answers(addr).await;
}

#[tokio::test]
async fn wrong_content_type_method_or_path_get_415_405_404() {
    let (addr, _) = start(false, Limits::default()).await;
    let a = exchange(
        addr,
        &with_body("POST", "/v1/steps", "text/plain", STEP.as_bytes()),
    )
    .await;
    assert_eq!(status(&a), 415, "{a}");
    let a = exchange(
        addr,
        &with_body("POST", "/v1/segment", "application/json", b"{}"),
    )
    .await;
    assert_eq!(status(&a), 405, "{a}");
    assert_eq!(header(&a, "allow"), Some("PUT, DELETE"));
    let a = exchange(addr, &get("/v1/steps/0/result", None)).await;
    assert_eq!(status(&a), 404, "{a}");
    let a = exchange(
        addr,
        &with_body("POST", "/v1/steps", "application/json", b"{\"step\": 1"),
    )
    .await;
    assert_eq!(status(&a), 400, "{a}");
    assert!(a.contains("line 1, column 10"), "{a}");
    health_answers(addr).await;
}

#[tokio::test]
async fn connections_past_the_limit_wait_until_one_closes() {
    let limits = Limits {
        connections: 2,
        ..Limits::default()
    };
    let (addr, _) = start(false, limits).await;
    let first = TcpStream::connect(addr).await.unwrap();
    let _second = TcpStream::connect(addr).await.unwrap();
    tokio::time::sleep(Duration::from_millis(100)).await;
    let third = tokio::spawn(async move { exchange(addr, &get("/health", None)).await });
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert!(
        !third.is_finished(),
        "a third connection was served with two open"
    );
    drop(first);
    let a = tokio::time::timeout(Duration::from_secs(3), third)
        .await
        .expect("served once one closed")
        .unwrap();
    assert_eq!(status(&a), 200, "{a}");
}

#[tokio::test]
async fn a_non_loopback_address_without_a_token_is_refused_at_start() {
    let config = ServerConfig {
        listen: SocketAddr::from(([0, 0, 0, 0], 0)),
        ..ServerConfig::loopback()
    };
    let e = Server::bind(config).await.unwrap_err();
    assert_eq!(
        e.to_string(),
        "listening on 0.0.0.0:0 needs --token-file (or --insecure-no-token)"
    );
}

#[tokio::test]
async fn every_route_answers_with_the_status_the_openapi_document_gives() {
    let (addr, _) = start(true, Limits::default()).await;
    let doc = upfbench_api::v1::openapi::document();
    let bodies = [
        (
            "/v1/segment",
            r#"{"run": "r", "agent": "a", "index": 0, "agents": 1, "profile": {}, "ues": {"first": 0, "count": 1}, "uplink_teids": {"sequence": {"first": 1, "step": 1}}}"#,
        ),
        ("/v1/steps", STEP),
        ("/v1/steps/{n}/start", r#"{"at_unix_ns": 1}"#),
        ("/v1/steps/{n}/stop", r#"{"at_unix_ns": 1}"#),
        ("/v1/runs", r#"{"mode": "run", "profile_yaml": "name: x"}"#),
    ];
    for route in upfbench_api::v1::ROUTES {
        let path = route.path.replace("{n}", "3").replace("{id}", "run-1");
        let request = match route.body {
            upfbench_api::v1::Body::None => format!(
                "{} {path} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {SECRET}\r\n\
                     Connection: close\r\n\r\n",
                route.method
            )
            .into_bytes(),
            upfbench_api::v1::Body::Json(_) => {
                let body = bodies.iter().find(|(p, _)| *p == route.path).unwrap().1;
                with_body(route.method, &path, "application/json", body.as_bytes())
            }
        };
        let a = exchange(addr, &request).await;
        let responses = doc["paths"][route.path][route.method.to_ascii_lowercase()]["responses"]
            .as_object()
            .unwrap();
        let success: Vec<_> = responses.keys().filter(|k| k.starts_with('2')).collect();
        assert_eq!(success.len(), 1);
        assert_eq!(
            status(&a).to_string(),
            *success[0],
            "{} {path}: {a}",
            route.method
        );
        let media = responses[success[0]]
            .get("content")
            .and_then(|c| c.as_object())
            .and_then(|c| c.keys().next().cloned());
        assert_eq!(
            header(&a, "content-type").map(str::to_owned),
            media,
            "{} {path}",
            route.method
        );
    }
}
