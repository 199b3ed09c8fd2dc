use std::sync::mpsc::{Receiver, channel};

use serde_json::json;
use upfbench_api::v1::{UeBlock, UplinkTeids};
use upfbench_remote::Agent;

use super::*;

const SYSTEM: &str = include_str!("../../../../../../deploy/systems/memif.yaml");

fn agent() -> (AgentApi, Receiver<Work>) {
    let system = upfbench_config::system_from_str(SYSTEM, "memif.yaml").unwrap();
    let (jobs, received) = channel();
    let api = AgentApi::new(
        "gnb-a".into(),
        (SYSTEM.into(), "memif.yaml".into()),
        &system,
        2.0e9,
        PathBuf::from("reports"),
        Arc::new(Runs::default()),
        jobs,
    );
    (api, received)
}

fn segment(count: u32) -> Segment {
    Segment {
        run: "r1".into(),
        agent: "gnb-a".into(),
        index: 0,
        agents: 1,
        profile: json!({
            "name": "segment",
            "sessions": {"count": count},
            "streams": [{"name": "ul", "direction": "uplink", "rate": "1kpps", "payload": 100}],
            "duration": "1s"
        }),
        ues: UeBlock { first: 0, count },
        uplink_teids: UplinkTeids::Sequence { first: 1, step: 2 },
        upf_n3: None,
    }
}

fn step(n: u32) -> StepRequest {
    StepRequest {
        step: n,
        payload: Some(100),
        load: 1.0,
        duration_ms: 500,
        warmup_ms: 0,
    }
}

const AT: At = At { at_unix_ns: 1 };

fn run_request() -> RunRequest {
    RunRequest {
        mode: RunMode::Run,
        profile_yaml: "name: r\nsessions: {count: 1}\nstreams: [{name: ul, direction: uplink, \
                       rate: 1000pps, payload: 100}]\nduration: 1s\n"
            .into(),
        options: Default::default(),
    }
}

#[test]
fn a_step_route_without_a_segment_is_a_conflict() {
    let (api, _jobs) = agent();
    assert_eq!(api.health().state, AgentState::Idle);
    for p in [
        api.arm_step(step(1)).unwrap_err(),
        api.start_step(1, AT).unwrap_err(),
        api.stop_step(1, AT).unwrap_err(),
        api.step_result(1).unwrap_err(),
    ] {
        assert_eq!(p.kind, ProblemKind::Conflict);
        assert!(p.detail.contains("no segment is loaded"), "{}", p.detail);
    }
}

#[test]
fn a_segment_loads_unloads_and_is_replaced() {
    let (api, _jobs) = agent();
    let summary = api.load_segment(segment(4)).unwrap();
    assert_eq!(summary.ues, UeBlock { first: 0, count: 4 });
    assert_eq!(api.health().state, AgentState::Loaded);
    let status = api.status().unwrap();
    assert_eq!((status.state, status.step), (AgentState::Loaded, None));
    // Another segment replaces it.
    let summary = api.load_segment(segment(6)).unwrap();
    assert_eq!(summary.pairs[0].ues.count, 6);
    // A segment that does not fit leaves the one loaded in place.
    let mut bad = segment(6);
    bad.profile["sessions"]["ue_pool"] = json!("192.168.16.0/24");
    assert_eq!(
        api.load_segment(bad).unwrap_err().kind,
        ProblemKind::InvalidContent
    );
    assert_eq!(api.health().state, AgentState::Loaded);
    api.unload_segment().unwrap();
    assert_eq!(api.health().state, AgentState::Idle);
    // DELETE is idempotent.
    api.unload_segment().unwrap();
}

#[test]
fn a_step_is_checked_then_never_started_before_it_is_armed() {
    let (api, _jobs) = agent();
    api.load_segment(segment(2)).unwrap();
    // Start, stop and result before the step is armed: 409.
    for p in [
        api.start_step(1, AT).unwrap_err(),
        api.stop_step(1, AT).unwrap_err(),
        api.step_result(1).unwrap_err(),
    ] {
        assert_eq!(p.kind, ProblemKind::Conflict);
        assert_eq!(p.detail, "step 1 is not armed: POST /v1/steps arms it");
    }
    let bad = StepRequest {
        step: 0,
        load: f64::NAN,
        duration_ms: 0,
        ..step(1)
    };
    let p = api.arm_step(bad).unwrap_err();
    assert_eq!(p.kind, ProblemKind::InvalidContent);
    let fields: Vec<&str> = p.issues.iter().map(|i| i.field.as_str()).collect();
    assert_eq!(fields, ["step", "load", "duration_ms"]);
}

#[test]
fn runs_and_segments_exclude_each_other() {
    let (api, jobs) = agent();
    api.load_segment(segment(2)).unwrap();
    let p = api.start_run(run_request()).unwrap_err();
    assert_eq!(p.kind, ProblemKind::Conflict, "{p:?}");
    assert!(
        p.detail.contains("segment of run r1 is loaded"),
        "{}",
        p.detail
    );
    assert!(jobs.try_recv().is_err());
    api.unload_segment().unwrap();
    let id = api.start_run(run_request()).unwrap();
    assert!(jobs.try_recv().is_ok());
    assert_eq!(api.health().state, AgentState::Running);
    let p = api.load_segment(segment(2)).unwrap_err();
    assert_eq!(p.kind, ProblemKind::Conflict);
    assert!(!id.id.is_empty());
}

/// An armed step goes to the run's thread with its plan (the segment's block at the step's
/// load), and the answer waits for its workers; a step that cannot be planned is a 422 at the
/// request's field.
#[test]
fn a_step_is_planned_handed_over_and_answered_once_armed() {
    let (api, jobs) = agent();
    api.load_segment(Segment {
        ues: UeBlock { first: 2, count: 4 },
        ..segment(10)
    })
    .unwrap();
    let p = api
        .arm_step(StepRequest {
            payload: Some(1),
            ..step(1)
        })
        .unwrap_err();
    assert_eq!(p.kind, ProblemKind::InvalidContent, "{p:?}");
    assert_eq!(p.issues[0].field, "payload");
    let p = api
        .arm_step(StepRequest {
            load: 1e9,
            ..step(1)
        })
        .unwrap_err();
    assert_eq!(p.issues[0].field, "load", "{p:?}");
    assert!(jobs.try_recv().is_err());
    let thread = std::thread::spawn(move || {
        let Ok(Work::Steps(job)) = jobs.recv() else {
            panic!("no steps");
        };
        let asked = job.board.take_asked().expect("armed");
        job.board.armed(asked.request.step, 12);
        asked
    });
    let armed = api
        .arm_step(StepRequest {
            load: 2.0,
            ..step(1)
        })
        .unwrap();
    assert_eq!((armed.step, armed.prepare_ms), (1, 12));
    let asked = thread.join().unwrap();
    // 1 kpps over 10 UEs at load 2: the block of 4 sends 0.8 kpps, 400 packets in 500 ms.
    let plan = &asked.plan;
    let sent: u64 = plan
        .workers
        .iter()
        .flat_map(|w| &w.shares)
        .map(|s| s.schedule.total())
        .sum();
    assert_eq!(sent, 400);
    let ues: Vec<u32> = plan.workers[0].shares[0].local_ues().collect();
    assert_eq!(ues, [2, 3, 4, 5]);
    assert_eq!(api.status().unwrap().state, AgentState::Armed);
    api.start_step(1, AT).unwrap();
    assert_eq!(api.status().unwrap().state, AgentState::Running);
}
