//! What the agent answers to each command of the API ([`upfbench_api::v1::Command`]): the
//! runs it hosts (`/v1/runs`), itself (`/v1`, `/health`, `/v1/clock`). The HTTP server is a
//! shell around [`AgentApi::answer`]; the runs themselves go to the run's thread as [`Job`]s.

use std::path::PathBuf;
use std::sync::mpsc::Sender;
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use serde::Serialize;
use upfbench_api::v1::{
    AgentInfo, AgentState, Clock, Command, Health, PairInfo, PortInfo, RunMode, RunRequest,
};
use upfbench_api::{Problem, ProblemKind};
use upfbench_config::{Multiplier, Profile, System};

use super::runs::{ReportFile, Runs, Ticket, run_id};
use crate::commands::generate::Mode;
use crate::commands::generate::hosted::{self, Asked, Refusal};

/// The API's version this agent serves (`/v1`).
pub(crate) const API_VERSION: u32 = 1;

/// A run the API accepted, for the run's thread.
#[derive(Debug)]
pub(crate) struct Job {
    pub(crate) ticket: Ticket,
    pub(crate) profile: Profile,
    mode: RunMode,
    payloads: Option<Vec<u16>>,
    duration: Option<Duration>,
    multiplier: Option<Multiplier>,
    reports: PathBuf,
}

impl Job {
    /// What the run is asked for, as a hosted run takes it.
    pub(crate) fn asked(&self) -> Asked<'_> {
        asked(
            self.mode,
            self.payloads.as_deref(),
            self.duration,
            self.multiplier.clone(),
            self.reports.clone(),
        )
    }
}

fn asked(
    mode: RunMode,
    payloads: Option<&[u16]>,
    duration: Option<Duration>,
    multiplier: Option<Multiplier>,
    reports: PathBuf,
) -> Asked<'_> {
    Asked {
        mode: match mode {
            RunMode::Run => Mode::Run,
            RunMode::Sweep => Mode::Sweep(payloads),
            RunMode::Search => Mode::Search(payloads),
            RunMode::Capacity => Mode::Capacity,
        },
        duration,
        multiplier,
        reports,
    }
}

/// An answer: JSON of a status, a file of the run's report, or a problem document.
#[derive(Debug, Clone, PartialEq)]
pub enum Reply {
    /// `application/json`.
    Json {
        /// The HTTP status.
        status: u16,
        /// The document.
        body: String,
    },
    /// A report's file, with its media type.
    File {
        /// `application/json`, `text/html; charset=utf-8`, `application/x-ndjson`.
        content_type: &'static str,
        /// Its bytes.
        body: Vec<u8>,
    },
    /// `application/problem+json`.
    Problem(Problem),
}

fn json(status: u16, value: &impl Serialize) -> Reply {
    match serde_json::to_string(value) {
        Ok(body) => Reply::Json { status, body },
        Err(e) => Reply::Problem(Problem::new(
            ProblemKind::Unavailable,
            format!("the answer could not be written: {e}"),
        )),
    }
}

/// The agent as the API sees it.
pub struct AgentApi {
    name: String,
    system_text: String,
    system_name: String,
    pairs: Vec<PairInfo>,
    tsc_hz: f64,
    reports: PathBuf,
    runs: Arc<Runs>,
    jobs: Mutex<Sender<Job>>,
    /// The agent's start, in Unix seconds: in its runs' ids.
    stamp: u64,
}

impl AgentApi {
    /// The API of an agent named `name` on `system` (its file's text and name), writing its
    /// reports under `reports`, handing runs to `jobs`.
    pub(crate) fn new(
        name: String,
        (system_text, system_name): (String, String),
        system: &System,
        tsc_hz: f64,
        reports: PathBuf,
        runs: Arc<Runs>,
        jobs: Sender<Job>,
    ) -> AgentApi {
        AgentApi {
            name,
            system_text,
            system_name,
            pairs: pairs(system),
            tsc_hz,
            reports,
            runs,
            jobs: Mutex::new(jobs),
            stamp: unix_ns() / 1_000_000_000,
        }
    }

    /// The answer to `command`.
    pub fn answer(&self, command: Command) -> Reply {
        match command {
            Command::Health => json(200, &Health { state: self.state() }),
            Command::Agent => json(
                200,
                &AgentInfo {
                    name: self.name.clone(),
                    version: env!("CARGO_PKG_VERSION").to_owned(),
                    api_version: API_VERSION,
                    tsc_hz: self.tsc_hz,
                    pairs: self.pairs.clone(),
                },
            ),
            Command::Clock => json(200, &Clock { unix_ns: unix_ns() }),
            Command::StartRun(request) => match self.start_run(request) {
                Ok(ticket) => json(201, &run_id(&ticket)),
                Err(p) => Reply::Problem(p),
            },
            Command::RunState { id } => match self.runs.state(&id) {
                Ok(state) => json(200, &state),
                Err(p) => Reply::Problem(p),
            },
            Command::StopRun { id } => match self.runs.stop(&id) {
                Ok(()) => json(202, &serde_json::json!({"stopping": id})),
                Err(p) => Reply::Problem(p),
            },
            Command::RunReport { id, html: false } => self.file(&id, ReportFile::Json),
            Command::RunReport { id, html: true } => self.file(&id, ReportFile::Html),
            Command::RunEvents { id } => self.file(&id, ReportFile::Events),
            other => Reply::Problem(Problem::new(
                ProblemKind::Conflict,
                format!(
                    "{other:?}: this agent hosts whole runs (/v1/runs); segments and steps \
                     come with the coordinator (docs/scale.md §3), not built yet"
                ),
            )),
        }
    }

    fn state(&self) -> AgentState {
        if self.runs.busy() {
            AgentState::Running
        } else {
            AgentState::Idle
        }
    }

    /// `POST /v1/runs`: the profile checked as the command line checks it (422 with each
    /// problem located in the profile's text), one run at a time (409), then handed over.
    fn start_run(&self, request: RunRequest) -> Result<Ticket, Problem> {
        let options = &request.options;
        let multiplier = options
            .multiplier
            .map(|m| {
                format!("{m}x").parse::<Multiplier>().map_err(|e| {
                    Problem::new(ProblemKind::InvalidContent, "the multiplier is not valid")
                        .with_issue("options.multiplier", e)
                })
            })
            .transpose()?;
        let duration = options.duration_ms.map(Duration::from_millis);
        if duration.is_some_and(|d| d.is_zero()) {
            return Err(
                Problem::new(ProblemKind::InvalidContent, "a run of 0 ms sends nothing")
                    .with_issue("options.duration_ms", "give a duration above 0"),
            );
        }
        let check = asked(
            request.mode,
            options.payloads.as_deref(),
            duration,
            multiplier.clone(),
            self.reports.clone(),
        );
        let (_, profile) = hosted::checked_profile(
            &self.system_text,
            &self.system_name,
            &request.profile_yaml,
            &check,
        )
        .map_err(refused)?;
        let ticket = self.runs.begin(self.stamp)?;
        let job = Job {
            ticket: ticket.clone(),
            profile,
            mode: request.mode,
            payloads: options.payloads.clone(),
            duration,
            multiplier,
            reports: self.reports.clone(),
        };
        let sent = self
            .jobs
            .lock()
            .map_err(|_| ())
            .and_then(|jobs| jobs.send(job).map_err(|_| ()));
        if sent.is_err() {
            self.runs
                .ended(&ticket.id, None, Some("the agent is shutting down".into()));
            return Err(Problem::new(
                ProblemKind::Unavailable,
                "the agent is shutting down",
            ));
        }
        Ok(ticket)
    }

    fn file(&self, id: &str, file: ReportFile) -> Reply {
        let path = match self.runs.report(id, file) {
            Ok(p) => p,
            Err(p) => return Reply::Problem(p),
        };
        match std::fs::read(&path) {
            Ok(body) => Reply::File {
                content_type: match file {
                    ReportFile::Json => "application/json",
                    ReportFile::Html => "text/html; charset=utf-8",
                    ReportFile::Events => "application/x-ndjson",
                },
                body,
            },
            Err(e) => Reply::Problem(Problem::new(
                ProblemKind::NotFound,
                format!("{}: {e}", path.display()),
            )),
        }
    }
}

/// A refused run as a problem document: each of the profile's problems as an issue at its
/// field, with its line and column in the text sent.
fn refused(r: Refusal) -> Problem {
    match r {
        Refusal::Mode(m) => Problem::new(ProblemKind::InvalidContent, m),
        Refusal::Invalid(diagnostics) => {
            let n = diagnostics.len();
            let mut p = Problem::new(
                ProblemKind::InvalidContent,
                format!(
                    "the profile has {n} problem{}: each issue names its field, with its line and \
                     column in profile_yaml",
                    if n == 1 { "" } else { "s" }
                ),
            );
            for d in diagnostics {
                let at = if d.line > 0 {
                    format!("line {}, column {}: ", d.line, d.column)
                } else {
                    String::new()
                };
                let field = if d.field.is_empty() {
                    "profile_yaml".to_owned()
                } else {
                    d.field.clone()
                };
                p = p.with_issue(field, format!("{at}{}", d.message));
            }
            p
        }
    }
}

/// The system's one pair as the API describes it (`p0`).
fn pairs(system: &System) -> Vec<PairInfo> {
    let port = |p: &upfbench_config::Port| PortInfo {
        device: p.device.to_string(),
        address: format!("{}/{}", p.address.addr, p.address.len),
        peer: p.peer.to_string(),
    };
    vec![PairInfo {
        name: "p0".to_owned(),
        weight: 1,
        workers: system.cores.workers.clone(),
        n3: port(&system.n3),
        n6: port(&system.n6),
    }]
}

fn unix_ns() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as u64)
}
