//! What the document says of each route beyond the table: its operation id, its summary, its
//! request and answer types. A `match` over every [`RouteName`], so that a route added to the
//! table cannot go without them.

use schemars::{JsonSchema, Schema, SchemaGenerator};

use crate::v1::{
    AgentInfo, Armed, At, Clock, Health, RouteName, RunId, RunRequest, RunState, Segment,
    SegmentSummary, Status, StepRequest, StepResult,
};

/// A type's schema, as a reference into the components where it is a struct or an enum.
pub(super) type SchemaOf = fn(&mut SchemaGenerator) -> Schema;

fn of<T: JsonSchema>(generator: &mut SchemaGenerator) -> Schema {
    generator.subschema_for::<T>()
}

/// A route's answer on success.
#[derive(Clone, Copy)]
pub(super) enum Answer {
    /// JSON of a type, with this status.
    Json(u16, SchemaOf, &'static str),
    /// Text of a media type.
    Text(u16, &'static str, &'static str),
    /// No body.
    Empty(u16, &'static str),
}

/// One route's operation.
#[derive(Clone, Copy)]
pub(super) struct Operation {
    pub(super) id: &'static str,
    pub(super) summary: &'static str,
    pub(super) request: Option<SchemaOf>,
    pub(super) answer: Answer,
    /// Whether it can be refused for the agent's state (409).
    pub(super) conflicts: bool,
}

const fn op(id: &'static str, summary: &'static str, answer: Answer) -> Operation {
    Operation {
        id,
        summary,
        request: None,
        answer,
        conflicts: false,
    }
}

#[expect(
    clippy::too_many_lines,
    reason = "a table: one arm per route, each a few lines"
)]
pub(super) fn operation(name: RouteName) -> Operation {
    match name {
        RouteName::Health => op(
            "health",
            "The agent's state; answered without a token.",
            Answer::Json(200, of::<Health>, "The state."),
        ),
        RouteName::Metrics => op(
            "metrics",
            "Prometheus metrics, as upfbench's --metrics serves them.",
            Answer::Text(
                200,
                "text/plain; version=0.0.4; charset=utf-8",
                "The Prometheus text exposition.",
            ),
        ),
        RouteName::Agent => op(
            "agent",
            "The agent: name, version, API version, TSC frequency, its pairs.",
            Answer::Json(200, of::<AgentInfo>, "The agent."),
        ),
        RouteName::Clock => op(
            "clock",
            "The agent's wall clock, for a coordinator's estimate of its offset.",
            Answer::Json(200, of::<Clock>, "Its Unix time."),
        ),
        RouteName::LoadSegment => Operation {
            request: Some(of::<Segment>),
            conflicts: true,
            ..op(
                "loadSegment",
                "Load what this agent does of a run: its UEs, the profile, the TEIDs.",
                Answer::Json(200, of::<SegmentSummary>, "The plan made of it."),
            )
        },
        RouteName::UnloadSegment => Operation {
            conflicts: true,
            ..op(
                "unloadSegment",
                "Unload the segment.",
                Answer::Empty(204, "Unloaded."),
            )
        },
        RouteName::ArmStep => Operation {
            request: Some(of::<StepRequest>),
            conflicts: true,
            ..op(
                "armStep",
                "Prepare a step of the loaded segment: its workers wait for a start time.",
                Answer::Json(200, of::<Armed>, "Armed."),
            )
        },
        RouteName::StartStep => Operation {
            request: Some(of::<At>),
            conflicts: true,
            ..op(
                "startStep",
                "Start the armed step at a time on the agent's clock.",
                Answer::Empty(202, "The start is scheduled."),
            )
        },
        RouteName::StopStep => Operation {
            request: Some(of::<At>),
            conflicts: true,
            ..op(
                "stopStep",
                "Stop the running step at a time on the agent's clock.",
                Answer::Empty(202, "The stop is scheduled."),
            )
        },
        RouteName::Status => op(
            "status",
            "The agent's state, step, phase and live figures.",
            Answer::Json(200, of::<Status>, "The status."),
        ),
        RouteName::StepResult => Operation {
            conflicts: true,
            ..op(
                "stepResult",
                "A step's raw figures: counters and HDR histograms, per pair.",
                Answer::Json(200, of::<StepResult>, "The step's result."),
            )
        },
        RouteName::StartRun => Operation {
            request: Some(of::<RunRequest>),
            conflicts: true,
            ..op(
                "startRun",
                "Start a whole run on this box (run, sweep, search or capacity).",
                Answer::Json(201, of::<RunId>, "Started."),
            )
        },
        RouteName::RunState => op(
            "runState",
            "A run's phase, live figures and a search's progress.",
            Answer::Json(200, of::<RunState>, "The run."),
        ),
        RouteName::StopRun => Operation {
            conflicts: true,
            ..op(
                "stopRun",
                "Stop a run as Ctrl-C does: its report is still written.",
                Answer::Empty(202, "Stopping."),
            )
        },
        RouteName::RunReport => Operation {
            conflicts: true,
            ..op(
                "runReport",
                "A finished run's report.json (docs/reports.md).",
                Answer::Json(
                    200,
                    |_| schemars::json_schema!({"type": "object"}),
                    "The report.",
                ),
            )
        },
        RouteName::RunReportHtml => Operation {
            conflicts: true,
            ..op(
                "runReportHtml",
                "A finished run's report.html.",
                Answer::Text(200, "text/html; charset=utf-8", "The page."),
            )
        },
        RouteName::RunEvents => op(
            "runEvents",
            "A run's events.jsonl so far (docs/events.md).",
            Answer::Text(200, "application/jsonl", "One JSON event a line."),
        ),
    }
}
