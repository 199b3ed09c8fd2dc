//! The client against the server over loopback, the fake agent behind it: every typed call
//! gives the agent's answer, a problem comes back as the agent's problem document, and a
//! slow answer, a wrong token and a closed port are errors of their own.

mod fake;

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::{Duration, Instant};

use upfbench_api::v1::{
    AgentState, At, RunMode, RunOptions, RunPhase, RunRequest, Segment, StepRequest, UeBlock,
    UplinkTeids,
};
use upfbench_remote::{Client, ClientError, Limits, Server, ServerConfig, Token};

use fake::{BUSY_STEP, Fake, SLOW, SLOW_STEP};

const SECRET: &[u8] = b"0123456789abcdef0123456789abcdef-upfbench";

async fn start() -> (SocketAddr, Arc<Fake>) {
    let config = ServerConfig {
        listen: SocketAddr::from(([127, 0, 0, 1], 0)),
        token: Some(Token::new(SECRET).unwrap()),
        insecure_no_token: false,
        limits: Limits::default(),
    };
    let server = Server::bind(config).await.unwrap();
    let addr = server.local_addr().unwrap();
    let fake = Arc::new(Fake::default());
    tokio::spawn(server.serve(fake.clone(), std::future::pending()));
    (addr, fake)
}

fn client(addr: SocketAddr, timeout: Duration) -> Client {
    Client::new(
        &format!("http://{addr}"),
        Some(Token::new(SECRET).unwrap()),
        timeout,
    )
    .unwrap()
}

fn segment() -> Segment {
    Segment {
        run: "2026-11-29T12-00-00Z-7f3a".to_owned(),
        agent: "gnb-a".to_owned(),
        index: 0,
        agents: 2,
        profile: serde_json::json!({"name": "quickstart"}),
        ues: UeBlock {
            first: 0,
            count: 334,
        },
        uplink_teids: UplinkTeids::Sequence {
            first: 4096,
            step: 1,
        },
        upf_n3: None,
    }
}

#[tokio::test]
async fn every_call_gives_the_agents_answer() {
    let (addr, fake) = start().await;
    let c = client(addr, Duration::from_secs(5));
    assert_eq!(c.health().await.unwrap().state, AgentState::Idle);
    assert!(c.metrics().await.unwrap().contains("upfbench_agent_state"));
    let info = c.info().await.unwrap();
    assert_eq!(
        (info.name.as_str(), info.pairs[0].n3.address.as_str()),
        ("gnb-a", "192.168.13.131/24")
    );
    let before = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_nanos() as u64;
    let clock = c.clock().await.unwrap();
    assert!(clock.unix_ns >= before, "{} < {before}", clock.unix_ns);
    let segment = segment();
    let summary = c.load_segment(&segment).await.unwrap();
    assert_eq!(
        (summary.run.as_str(), summary.ues),
        (segment.run.as_str(), segment.ues)
    );
    let step = StepRequest {
        step: 1,
        payload: Some(64),
        load: 0.5,
        duration_ms: 1000,
        warmup_ms: 100,
    };
    let armed = c.arm_step(&step).await.unwrap();
    assert!(armed.armed && armed.step == 1);
    c.start_step(1, At { at_unix_ns: 42 }).await.unwrap();
    c.stop_step(1, At { at_unix_ns: 43 }).await.unwrap();
    assert_eq!(c.status().await.unwrap().state, AgentState::Idle);
    let result = c.step_result(1).await.unwrap();
    assert_eq!(result.pairs[0].directions[0].latency, fake::latency());
    assert_eq!(
        result.pairs[0].directions[0].latency.max_ns,
        Some(1_000_000)
    );
    c.unload_segment().await.unwrap();
    let run = RunRequest {
        mode: RunMode::Search,
        profile_yaml: "name: x\n".to_owned(),
        options: RunOptions::default(),
    };
    let id = c.start_run(&run).await.unwrap().id;
    assert_eq!(c.run_state(&id).await.unwrap().phase, RunPhase::Running);
    c.stop_run(&id).await.unwrap();
    assert!(c.run_report(&id).await.unwrap().contains("schema_version"));
    assert!(c.run_events(&id).await.unwrap().ends_with('\n'));
    assert_eq!(
        fake.calls(),
        vec![
            "info",
            "load_segment 2026-11-29T12-00-00Z-7f3a",
            "arm_step 1",
            "start_step 1 42",
            "stop_step 1 43",
            "status",
            "step_result 1",
            "unload_segment",
            "start_run Search",
            "run_state run-1",
            "stop_run run-1",
            "run_report run-1",
            "run_events run-1",
        ]
    );
}

#[tokio::test]
async fn problems_timeouts_tokens_and_closed_ports_are_errors() {
    let (addr, _) = start().await;
    let c = client(addr, Duration::from_secs(5));
    match c.start_step(BUSY_STEP, At { at_unix_ns: 1 }).await {
        Err(ClientError::Problem { problem, .. }) => {
            assert_eq!(
                (problem.status, problem.type_uri.as_str()),
                (409, "urn:upfbench:conflict")
            );
            assert_eq!(problem.detail, "step 6 is running");
        }
        other => panic!("{other:?}"),
    }
    match c.stop_run("gone").await {
        Err(ClientError::Problem { problem, .. }) => assert_eq!(problem.status, 404),
        other => panic!("{other:?}"),
    }
    // A wrong token.
    let wrong = Client::new(
        &format!("http://{addr}"),
        Some(Token::new(&[b'x'; 40]).unwrap()),
        Duration::from_secs(5),
    )
    .unwrap();
    match wrong.status().await {
        Err(ClientError::Problem { problem, .. }) => assert_eq!(problem.status, 401),
        other => panic!("{other:?}"),
    }
    // No token: /health still answers.
    let anonymous = Client::new(&format!("http://{addr}"), None, Duration::from_secs(5)).unwrap();
    assert_eq!(anonymous.health().await.unwrap().state, AgentState::Idle);
    // Slower than the client waits.
    let impatient = client(addr, SLOW / 3);
    let started = Instant::now();
    let step = StepRequest {
        step: SLOW_STEP,
        payload: Some(64),
        load: 1.0,
        duration_ms: 1,
        warmup_ms: 0,
    };
    match impatient.arm_step(&step).await {
        Err(e @ ClientError::Timeout { .. }) => assert!(
            e.to_string()
                .contains("no answer within 500 ms to POST /v1/steps"),
            "{e}"
        ),
        other => panic!("{other:?}"),
    }
    assert!(started.elapsed() < SLOW, "{:?}", started.elapsed());
    // Nobody there.
    let closed = {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        l.local_addr().unwrap()
    };
    let nobody = client(closed, Duration::from_secs(5));
    assert!(matches!(
        nobody.health().await,
        Err(ClientError::Connect { .. })
    ));
}
