//! What the coordinator is told ([`Event`]) and what it asks ([`Action`]): calls to the agents'
//! API and what happened to the run.

use std::time::Duration;

use upfbench_api::v1::{
    Armed, At, Clock, Segment, SegmentSummary, Status, StepRequest, StepResult,
};
use upfbench_config::Cluster;
use upfbench_stats::LatencyConfig;

use crate::clock::Estimate;
use crate::merge::{MergeError, MergedStep};

/// One agent of the cluster file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AgentSpec {
    /// Its name.
    pub name: String,
    /// Its share of the sessions (1 or more).
    pub weight: u32,
}

/// How the coordinator runs.
#[derive(Debug, Clone, PartialEq)]
pub struct Settings {
    /// The agents, in the cluster file's order.
    pub agents: Vec<AgentSpec>,
    /// The least time from arming to the common start.
    pub start_lead: Duration,
    /// An agent that answers nothing for this long is lost.
    pub agent_timeout: Duration,
    /// How long after its planned end (warm-up and duration from the start) a step may take to
    /// be collected: the profile's settle and drain, and the agent's own ending.
    pub step_overrun: Duration,
    /// How often a running step's status is read (1 s).
    pub poll_interval: Duration,
    /// How often it is read from the step's planned end until it is collected (50 ms).
    pub ending_poll: Duration,
    /// The profile's latency configuration, every agent's.
    pub latency: LatencyConfig,
}

impl Settings {
    /// The settings a cluster file gives, for a profile of latency configuration `latency`
    /// whose steps may take `step_overrun` past their warm-up and duration (settle, drain); the
    /// status is read each second.
    pub fn of(cluster: &Cluster, latency: LatencyConfig, step_overrun: Duration) -> Settings {
        Settings {
            agents: cluster
                .agents
                .iter()
                .map(|a| AgentSpec {
                    name: a.name.clone(),
                    weight: a.weight,
                })
                .collect(),
            start_lead: cluster.start_lead,
            agent_timeout: cluster.agent_timeout,
            step_overrun,
            poll_interval: Duration::from_secs(1),
            ending_poll: Duration::from_millis(50),
            latency,
        }
    }

    /// The agents' weights, in order, for [`cut`](crate::segments::cut).
    pub fn weights(&self) -> Vec<u32> {
        self.agents.iter().map(|a| a.weight).collect()
    }
}

/// A call to an agent's API (docs/scale.md §4 "Endpoints (v1)").
#[derive(Debug, Clone, PartialEq)]
pub enum Request {
    /// `GET /v1/clock`.
    Clock,
    /// `PUT /v1/segment`.
    LoadSegment(Box<Segment>),
    /// `POST /v1/steps`.
    Arm(StepRequest),
    /// `POST /v1/steps/{step}/start`, `at` on the agent's clock.
    Start {
        /// The step.
        step: u32,
        /// When.
        at: At,
    },
    /// `POST /v1/steps/{step}/stop`, `at` on the agent's clock.
    Stop {
        /// The step.
        step: u32,
        /// When.
        at: At,
    },
    /// `GET /v1/status`.
    Status,
    /// `GET /v1/steps/{step}/result`.
    Result {
        /// The step.
        step: u32,
    },
}

/// A call to make: its answer comes back as an [`Event`] with the same `agent` and `id`.
#[derive(Debug, Clone, PartialEq)]
pub struct Call {
    /// The agent's index in [`Settings::agents`].
    pub agent: usize,
    /// The call's id, unique in the run.
    pub id: u64,
    /// What to ask.
    pub request: Request,
}

/// An agent's answer to a call.
#[derive(Debug, Clone, PartialEq)]
pub enum Answer {
    /// To `GET /v1/clock`, with when the call left and came back on the coordinator's clock
    /// (Unix ns), which the driver measures around the call.
    Clock {
        /// The request left.
        sent_ns: u64,
        /// The answer came back.
        received_ns: u64,
        /// The agent's clock.
        clock: Clock,
    },
    /// To `PUT /v1/segment`.
    Loaded(SegmentSummary),
    /// To `POST /v1/steps`.
    Armed(Armed),
    /// 202 to a start or a stop.
    Accepted,
    /// To `GET /v1/status`.
    Status(Status),
    /// To `GET /v1/steps/{n}/result`.
    Result(Box<StepResult>),
}

/// Why a call failed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Failure {
    /// The connection was refused (or reset).
    Refused,
    /// The agent answered with an error status (a problem document's title or detail).
    Status(u16, String),
    /// The driver gave up on the call (its own timeout, a broken answer).
    Other(String),
}

impl std::fmt::Display for Failure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Failure::Refused => f.write_str("connection refused"),
            Failure::Status(code, detail) => write!(f, "answered {code}: {detail}"),
            Failure::Other(why) => f.write_str(why),
        }
    }
}

/// What the coordinator is told.
#[derive(Debug, Clone, PartialEq)]
pub enum Event {
    /// A call's answer.
    Answer {
        /// The agent.
        agent: usize,
        /// The call's id.
        id: u64,
        /// What it said.
        answer: Answer,
    },
    /// A call that failed.
    Failed {
        /// The agent.
        agent: usize,
        /// The call's id.
        id: u64,
        /// Why.
        failure: Failure,
    },
    /// Run this step next (after [`Action::Ready`]); a search's trial is a step whose `load`
    /// is its total load over the profile's.
    Step(StepRequest),
    /// No more steps: end the run (after [`Action::Ready`]).
    Finish,
}

/// An agent lost (docs/scale.md §3 "Failures").
#[derive(Debug, Clone, PartialEq)]
pub struct Lost {
    /// Its name.
    pub agent: String,
    /// The step under way, if any.
    pub step: Option<u32>,
    /// When, in seconds since the run started.
    pub t_s: f64,
    /// Why: "no answer for 3 s", "connection refused", "answered 503: ...".
    pub reason: String,
}

/// A step's outcome.
#[derive(Debug, Clone, PartialEq)]
pub struct StepOutcome {
    /// The step.
    pub step: u32,
    /// The common start on the coordinator's clock (Unix ns), if it was started.
    pub start_ns: Option<u64>,
    /// The common stop asked for after an agent was lost (Unix ns).
    pub stop_ns: Option<u64>,
    /// The results collected in time, in the agents' order: what the totals hold.
    pub results: Vec<StepResult>,
    /// The totals over `results`, or why they could not be merged (`None`: no result).
    pub merged: Option<Result<MergedStep, MergeError>>,
    /// Agents whose results the totals hold, of all agents: "2 of 3".
    pub counted: (usize, usize),
    /// The agents lost in this step.
    pub lost: Vec<Lost>,
}

/// The run's end.
#[derive(Debug, Clone, PartialEq)]
pub struct Finished {
    /// Steps completed (with or without every agent).
    pub steps: u32,
    /// Every agent lost: the run is incomplete when this is not empty.
    pub lost: Vec<Lost>,
    /// Each agent's clock estimate, when it was made.
    pub clocks: Vec<Option<Estimate>>,
}

impl Finished {
    /// Whether an agent was lost.
    pub fn incomplete(&self) -> bool {
        !self.lost.is_empty()
    }
}

/// What the driver is to do, or to know.
#[derive(Debug, Clone, PartialEq)]
pub enum Action {
    /// Make this call.
    Call(Call),
    /// Every agent's clock is estimated and its segment loaded, or the last step is done: give
    /// the next step ([`Event::Step`]) or end ([`Event::Finish`]).
    Ready,
    /// An agent is lost: say so at once (the live line, events.jsonl's `agent_lost`).
    Lost(Lost),
    /// A step is done.
    StepDone(Box<StepOutcome>),
    /// A lost agent's result came after all: kept apart (its section of the report), not in
    /// the totals.
    LateResult {
        /// The agent.
        agent: usize,
        /// Its result.
        result: Box<StepResult>,
    },
    /// The run is over; nothing more will be asked.
    Finished(Finished),
}
