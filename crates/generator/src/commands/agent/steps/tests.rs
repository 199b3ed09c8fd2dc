use std::sync::Arc;

use upfbench_api::v1::{StepRequest, StepResult};

use super::*;

const SYSTEM: &str = include_str!("../../../../../../deploy/systems/memif.yaml");
const PROFILE: &str = include_str!("../../../../../../profiles/quickstart.yaml");

fn asked(step: u32) -> StepAsked {
    let (system, profile) =
        upfbench_config::run_from_str(SYSTEM, "memif.yaml", PROFILE, "p.yaml").expect("valid");
    StepAsked {
        request: StepRequest {
            step,
            payload: Some(100),
            load: 1.0,
            duration_ms: 1000,
            warmup_ms: 0,
        },
        plan: upfbench_run::plan::build(&system, &profile, None, [None; 2]).expect("plan"),
    }
}

fn result(step: u32) -> StepResult {
    StepResult {
        step,
        agent: "a".into(),
        latency: upfbench_cluster::merge::settings(&Default::default()),
        start_late_ns: 0,
        duration_ns: 1,
        tsc_hz: 1e9,
        warnings: Vec::new(),
        pairs: Vec::new(),
    }
}

fn status(p: Problem) -> u16 {
    p.kind.status()
}

#[test]
fn a_step_is_armed_started_and_collected_once_and_in_order() {
    let board = Arc::new(StepBoard::default());
    // Nothing armed: start, stop and result are refused (409).
    assert_eq!(status(board.start(1, 5).unwrap_err()), 409);
    assert_eq!(status(board.stop(1, 5).unwrap_err()), 409);
    assert_eq!(status(board.result(1).unwrap_err()), 409);
    // The first arming starts a session, the run's thread takes the step.
    assert!(board.arm(asked(1)).unwrap());
    assert_eq!(status(board.arm(asked(2)).unwrap_err()), 409);
    assert_eq!(board.take_asked().unwrap().request.step, 1);
    let waiter = {
        let board = board.clone();
        std::thread::spawn(move || board.wait_armed(1, Duration::from_secs(5)))
    };
    board.armed(1, 7);
    let armed = waiter.join().unwrap().unwrap();
    assert_eq!((armed.step, armed.armed, armed.prepare_ms), (1, true, 7));
    assert_eq!(board.state(), (AgentState::Armed, Some(1)));
    assert_eq!(board.start_at(1), StartAt::Wait);
    // A start of another step is refused; this one's is taken.
    assert_eq!(status(board.start(2, 5).unwrap_err()), 409);
    board.start(1, 1_000).unwrap();
    assert_eq!(board.state(), (AgentState::Running, Some(1)));
    assert_eq!(board.start_at(1), StartAt::At(1_000));
    assert_eq!(status(board.result(1).unwrap_err()), 409);
    assert_eq!(board.stop_at(), None);
    board.stop(1, 2_000).unwrap();
    assert_eq!(board.stop_at(), Some(2_000));
    board.collected(1, Ok(result(1)));
    assert_eq!(board.state(), (AgentState::Collected, Some(1)));
    assert_eq!(board.result(1).unwrap().step, 1);
    assert_eq!(status(board.result(2).unwrap_err()), 409);
    // The session runs: the next arming does not start another.
    assert!(!board.arm(asked(2)).unwrap());
    assert_eq!(board.state(), (AgentState::Loaded, Some(2)));
}

#[test]
fn closing_the_segment_cancels_an_armed_step_and_ends_the_wait_for_the_next() {
    let board = StepBoard::default();
    assert!(board.arm(asked(1)).unwrap());
    board.take_asked();
    board.armed(1, 1);
    board.close();
    assert!(matches!(board.start_at(1), StartAt::Cancel(_)));
    assert_eq!(board.stop_at(), Some(0));
    assert!(board.wait_asked(&Interrupts::new()).is_none());
    // The session's end fails the step, with its reason.
    board.session_ended(Some("the segment was unloaded".into()));
    let p = board.result(1).unwrap_err();
    assert!(
        p.detail.contains("the segment was unloaded"),
        "{}",
        p.detail
    );
    // Another arming starts a session again.
    assert!(board.arm(asked(2)).unwrap());
}

#[test]
fn a_step_stopped_at_or_before_its_start_is_cancelled() {
    let board = StepBoard::default();
    board.arm(asked(3)).unwrap();
    board.take_asked();
    board.armed(3, 1);
    board.stop(3, 10).unwrap();
    assert!(matches!(board.start_at(3), StartAt::Cancel(m) if m.contains("stopped")));
    // Started, then stopped at a time after its start (both before the run's thread looked):
    // it begins at its start; stopped at or before it, it never does.
    let board = StepBoard::default();
    board.arm(asked(4)).unwrap();
    board.take_asked();
    board.armed(4, 1);
    board.start(4, 1_000).unwrap();
    board.stop(4, 2_000).unwrap();
    assert_eq!(board.start_at(4), StartAt::At(1_000));
    board.stop(4, 1_000).unwrap();
    assert!(matches!(board.start_at(4), StartAt::Cancel(_)));
}
