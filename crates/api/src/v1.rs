//! Version 1 of the API: its routes ([`ROUTES`], the one table the server routes by and the
//! OpenAPI document lists) and [`parse`], which turns a request into a [`Command`] or a
//! [`Problem`].
//!
//! A change that breaks a v1 client goes to `/v2`; v1 answers may gain fields (clients ignore
//! unknown fields), v1 requests never do (they refuse unknown fields).

mod answers;
mod bodies;
mod histogram;

pub use answers::{
    AgentInfo, AgentState, Armed, Clock, DirectionFigures, Health, LatencySettings, LiveDirection,
    LiveFigures, LivePair, PairInfo, PairResult, PairShare, PortInfo, QfiFigures, RunId, RunPhase,
    RunState, SearchProgress, SecondDirection, SecondFigures, SegmentSummary, Status, StepResult,
    StreamFigures, StreamShare,
};
pub use bodies::{At, RunMode, RunOptions, RunRequest, Segment, StepRequest, UeBlock, UplinkTeids};
pub use histogram::{HistogramError, LatencyHistogram};

pub mod openapi;

use serde::de::DeserializeOwned;

use crate::problem::{Problem, ProblemKind};

/// A body's limit on every route that takes one but `PUT /v1/segment` (1 MiB).
pub const BODY_LIMIT: usize = 1 << 20;
/// `PUT /v1/segment`'s limit (64 MiB: the UPF's chosen TEIDs of a million UEs fit 12 times).
pub const SEGMENT_LIMIT: usize = 64 << 20;
/// The longest run id taken.
pub const RUN_ID_MAX: usize = 64;

/// What a route takes as its body.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Body {
    /// None.
    None,
    /// JSON, at most this many bytes.
    Json(usize),
}

/// Which route a request is for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum RouteName {
    /// `GET /health`.
    Health,
    /// `GET /metrics`.
    Metrics,
    /// `GET /v1`.
    Agent,
    /// `GET /v1/clock`.
    Clock,
    /// `PUT /v1/segment`.
    LoadSegment,
    /// `DELETE /v1/segment`.
    UnloadSegment,
    /// `POST /v1/steps`.
    ArmStep,
    /// `POST /v1/steps/{n}/start`.
    StartStep,
    /// `POST /v1/steps/{n}/stop`.
    StopStep,
    /// `GET /v1/status`.
    Status,
    /// `GET /v1/steps/{n}/result`.
    StepResult,
    /// `POST /v1/runs`.
    StartRun,
    /// `GET /v1/runs/{id}`.
    RunState,
    /// `POST /v1/runs/{id}/stop`.
    StopRun,
    /// `GET /v1/runs/{id}/report`.
    RunReport,
    /// `GET /v1/runs/{id}/report.html`.
    RunReportHtml,
    /// `GET /v1/runs/{id}/events`.
    RunEvents,
}

/// One route: its method, its path (`{n}` a step's number, `{id}` a run's id), its body.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Route {
    /// The HTTP method.
    pub method: &'static str,
    /// The path, with its parameters in braces.
    pub path: &'static str,
    /// Which route.
    pub name: RouteName,
    /// Its body.
    pub body: Body,
    /// Whether it answers without a bearer token (only `/health`).
    pub open: bool,
}

const fn route(method: &'static str, path: &'static str, name: RouteName, body: Body) -> Route {
    Route {
        method,
        path,
        name,
        body,
        open: false,
    }
}

/// Every route of v1 (and the two outside it, `/health` and `/metrics`).
pub const ROUTES: &[Route] = &[
    Route {
        open: true,
        ..route("GET", "/health", RouteName::Health, Body::None)
    },
    route("GET", "/metrics", RouteName::Metrics, Body::None),
    route("GET", "/v1", RouteName::Agent, Body::None),
    route("GET", "/v1/clock", RouteName::Clock, Body::None),
    route(
        "PUT",
        "/v1/segment",
        RouteName::LoadSegment,
        Body::Json(SEGMENT_LIMIT),
    ),
    route(
        "DELETE",
        "/v1/segment",
        RouteName::UnloadSegment,
        Body::None,
    ),
    route(
        "POST",
        "/v1/steps",
        RouteName::ArmStep,
        Body::Json(BODY_LIMIT),
    ),
    route(
        "POST",
        "/v1/steps/{n}/start",
        RouteName::StartStep,
        Body::Json(BODY_LIMIT),
    ),
    route(
        "POST",
        "/v1/steps/{n}/stop",
        RouteName::StopStep,
        Body::Json(BODY_LIMIT),
    ),
    route("GET", "/v1/status", RouteName::Status, Body::None),
    route(
        "GET",
        "/v1/steps/{n}/result",
        RouteName::StepResult,
        Body::None,
    ),
    route(
        "POST",
        "/v1/runs",
        RouteName::StartRun,
        Body::Json(BODY_LIMIT),
    ),
    route("GET", "/v1/runs/{id}", RouteName::RunState, Body::None),
    route("POST", "/v1/runs/{id}/stop", RouteName::StopRun, Body::None),
    route(
        "GET",
        "/v1/runs/{id}/report",
        RouteName::RunReport,
        Body::None,
    ),
    route(
        "GET",
        "/v1/runs/{id}/report.html",
        RouteName::RunReportHtml,
        Body::None,
    ),
    route(
        "GET",
        "/v1/runs/{id}/events",
        RouteName::RunEvents,
        Body::None,
    ),
];

/// A request, read and checked: what the agent is to do.
#[derive(Debug, Clone, PartialEq)]
pub enum Command {
    /// Answer `/health`.
    Health,
    /// Answer `/metrics`.
    Metrics,
    /// Describe the agent.
    Agent,
    /// Give the agent's clock.
    Clock,
    /// Load a segment.
    LoadSegment(Box<Segment>),
    /// Unload the segment.
    UnloadSegment,
    /// Arm a step.
    ArmStep(StepRequest),
    /// Start step `step` at a time.
    StartStep {
        /// Its number.
        step: u32,
        /// When.
        at: At,
    },
    /// Stop step `step` at a time.
    StopStep {
        /// Its number.
        step: u32,
        /// When.
        at: At,
    },
    /// Give the status and the live figures.
    Status,
    /// Give step `step`'s raw result.
    StepResult {
        /// Its number.
        step: u32,
    },
    /// Start a whole run on this box.
    StartRun(RunRequest),
    /// Give a run's state.
    RunState {
        /// The run.
        id: String,
    },
    /// Stop a run (as Ctrl-C: its report is still written).
    StopRun {
        /// The run.
        id: String,
    },
    /// Give a run's report: `html` the page, else report.json.
    RunReport {
        /// The run.
        id: String,
        /// The page rather than the JSON.
        html: bool,
    },
    /// Give a run's events.jsonl.
    RunEvents {
        /// The run.
        id: String,
    },
}

/// The parameters a path carried.
#[derive(Debug, Default)]
struct Params<'a> {
    step: Option<u32>,
    id: Option<&'a str>,
}

/// Turns a request (its method, its path with any query, its `Content-Type`, its body) into
/// the command it asks for, or the problem to answer. Never panics, whatever it is given.
pub fn parse(
    method: &str,
    path: &str,
    content_type: Option<&str>,
    body: &[u8],
) -> Result<Command, Problem> {
    let (route, params) = find(method, path)?;
    check_body(route, content_type, body)?;
    let step = || params.step.unwrap_or_default();
    let id = || params.id.unwrap_or_default().to_owned();
    Ok(match route.name {
        RouteName::Health => Command::Health,
        RouteName::Metrics => Command::Metrics,
        RouteName::Agent => Command::Agent,
        RouteName::Clock => Command::Clock,
        RouteName::LoadSegment => Command::LoadSegment(Box::new(json(body)?)),
        RouteName::UnloadSegment => Command::UnloadSegment,
        RouteName::ArmStep => Command::ArmStep(json(body)?),
        RouteName::StartStep => Command::StartStep {
            step: step(),
            at: json(body)?,
        },
        RouteName::StopStep => Command::StopStep {
            step: step(),
            at: json(body)?,
        },
        RouteName::Status => Command::Status,
        RouteName::StepResult => Command::StepResult { step: step() },
        RouteName::StartRun => Command::StartRun(json(body)?),
        RouteName::RunState => Command::RunState { id: id() },
        RouteName::StopRun => Command::StopRun { id: id() },
        RouteName::RunReport => Command::RunReport {
            id: id(),
            html: false,
        },
        RouteName::RunReportHtml => Command::RunReport {
            id: id(),
            html: true,
        },
        RouteName::RunEvents => Command::RunEvents { id: id() },
    })
}

/// The route of `method` and `path` (a query ignored), or the problem to answer (404, 405):
/// what a server needs before it asks for a token (`open`) or reads a body (its limit).
pub fn route_of(method: &str, path: &str) -> Result<&'static Route, Problem> {
    find(method, path).map(|(r, _)| r)
}

/// The route of `method` and `path` and the parameters in the path: 404 when no route has the
/// path, 405 (with the methods it takes) when its method is another.
fn find<'p>(method: &str, path: &'p str) -> Result<(&'static Route, Params<'p>), Problem> {
    let path = path.split_once('?').map_or(path, |(p, _)| p);
    let mut allow = Vec::new();
    let mut bad_param = None;
    for r in ROUTES {
        match matches(r.path, path) {
            Ok(Some(params)) if r.method == method => return Ok((r, params)),
            Ok(Some(_)) => allow.push(r.method),
            Ok(None) => {}
            Err(p) => bad_param = Some(p),
        }
    }
    if !allow.is_empty() {
        let mut p = Problem::new(
            ProblemKind::MethodNotAllowed,
            format!("{method} {path}: this route takes {}", allow.join(", ")),
        );
        p.allow = allow;
        return Err(p);
    }
    Err(bad_param.unwrap_or_else(|| Problem::new(ProblemKind::NotFound, path.to_owned())))
}

/// Whether `path` is `pattern`'s, and its parameters; a parameter of the wrong form is a 404
/// that says which.
fn matches<'p>(pattern: &str, path: &'p str) -> Result<Option<Params<'p>>, Problem> {
    let (mut want, mut got) = (pattern.split('/'), path.split('/'));
    let mut params = Params::default();
    loop {
        match (want.next(), got.next()) {
            (None, None) => return Ok(Some(params)),
            (Some("{n}"), Some(s)) => match s.parse::<u32>() {
                Ok(n) if n > 0 && !s.starts_with('+') => params.step = Some(n),
                _ => {
                    return Err(Problem::new(
                        ProblemKind::NotFound,
                        format!("{path}: {s:?} is not a step's number (1, 2, ...)"),
                    ));
                }
            },
            (Some("{id}"), Some(s)) => {
                if !is_run_id(s) {
                    return Err(Problem::new(
                        ProblemKind::NotFound,
                        format!(
                            "{path}: {s:?} is not a run's id (1 to {RUN_ID_MAX} of A-Z a-z 0-9 . _ : -)"
                        ),
                    ));
                }
                params.id = Some(s);
            }
            (Some(w), Some(g)) if w == g => {}
            _ => return Ok(None),
        }
    }
}

fn is_run_id(s: &str) -> bool {
    (1..=RUN_ID_MAX).contains(&s.len())
        && s.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b".-_:".contains(&b))
}

/// The body's presence, media type and size against what `route` takes.
fn check_body(route: &Route, content_type: Option<&str>, body: &[u8]) -> Result<(), Problem> {
    let what = format!("{} {}", route.method, route.path);
    match route.body {
        Body::None if body.is_empty() => Ok(()),
        Body::None => Err(Problem::new(
            ProblemKind::UnexpectedBody,
            format!("{what} takes no body ({} bytes given)", body.len()),
        )),
        Body::Json(_) if body.is_empty() => Err(Problem::new(
            ProblemKind::UnexpectedBody,
            format!("{what} takes a JSON body, and none was given"),
        )),
        Body::Json(limit) if body.len() > limit => Err(Problem::new(
            ProblemKind::BodyTooLarge,
            format!("{what}: {} bytes, at most {limit}", body.len()),
        )),
        Body::Json(_) => {
            let media = content_type
                .and_then(|c| c.split(';').next())
                .map(str::trim);
            if media.is_some_and(|m| m.eq_ignore_ascii_case("application/json")) {
                Ok(())
            } else {
                Err(Problem::new(
                    ProblemKind::UnsupportedMediaType,
                    format!(
                        "{what} takes application/json, not {}",
                        content_type.unwrap_or("a body without Content-Type")
                    ),
                ))
            }
        }
    }
}

/// The body as `T`: a 400 that says where it went wrong (line and column) if it is not.
fn json<T: DeserializeOwned>(body: &[u8]) -> Result<T, Problem> {
    serde_json::from_slice(body).map_err(|e| {
        Problem::new(ProblemKind::MalformedBody, e.to_string()).with_issue(
            format!("line {}, column {}", e.line(), e.column()),
            e.to_string(),
        )
    })
}

#[cfg(test)]
mod tests;
