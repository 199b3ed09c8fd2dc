//! What the server asks of whoever runs the box: one method per command of v1, answering a
//! typed value or the problem to send (409 "a step is running", 422 with located issues, ...).
//! The generator's agent implements it (docs/scale.md §3); the tests implement a fake.

use std::time::{SystemTime, UNIX_EPOCH};

use upfbench_api::Problem;
use upfbench_api::v1::{
    AgentInfo, Armed, At, Clock, Health, RunId, RunRequest, RunState, Segment, SegmentSummary,
    Status, StepRequest, StepResult,
};

/// What a handler gives back.
pub type Answer<T> = Result<T, Problem>;

/// The handler behind the server. Its methods are called on tokio's blocking pool (they may
/// wait on the control thread); [`Agent::health`] and [`Agent::clock`] are called on the
/// connection's task and must not block.
pub trait Agent: Send + Sync + 'static {
    /// `GET /health`.
    fn health(&self) -> Health;
    /// `GET /metrics`: the Prometheus text exposition.
    fn metrics(&self) -> Answer<String>;
    /// `GET /v1`.
    fn info(&self) -> Answer<AgentInfo>;
    /// `GET /v1/clock`: by default the system's wall clock, read as late as possible.
    fn clock(&self) -> Answer<Clock> {
        let unix_ns = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| u64::try_from(d.as_nanos()).unwrap_or(u64::MAX));
        Ok(Clock { unix_ns })
    }
    /// `PUT /v1/segment`.
    fn load_segment(&self, segment: Segment) -> Answer<SegmentSummary>;
    /// `DELETE /v1/segment`.
    fn unload_segment(&self) -> Answer<()>;
    /// `POST /v1/steps`.
    fn arm_step(&self, step: StepRequest) -> Answer<Armed>;
    /// `POST /v1/steps/{n}/start`.
    fn start_step(&self, step: u32, at: At) -> Answer<()>;
    /// `POST /v1/steps/{n}/stop`.
    fn stop_step(&self, step: u32, at: At) -> Answer<()>;
    /// `GET /v1/status`.
    fn status(&self) -> Answer<Status>;
    /// `GET /v1/steps/{n}/result`.
    fn step_result(&self, step: u32) -> Answer<StepResult>;
    /// `POST /v1/runs`.
    fn start_run(&self, run: RunRequest) -> Answer<RunId>;
    /// `GET /v1/runs/{id}`.
    fn run_state(&self, id: &str) -> Answer<RunState>;
    /// `POST /v1/runs/{id}/stop`.
    fn stop_run(&self, id: &str) -> Answer<()>;
    /// `GET /v1/runs/{id}/report`: report.json's text.
    fn run_report(&self, id: &str) -> Answer<String>;
    /// `GET /v1/runs/{id}/report.html`: the page.
    fn run_report_html(&self, id: &str) -> Answer<String>;
    /// `GET /v1/runs/{id}/events`: events.jsonl so far.
    fn run_events(&self, id: &str) -> Answer<String>;
}
