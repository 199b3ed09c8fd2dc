//! What the agent answers to each route of the API: the runs it hosts (`/v1/runs`), itself
//! (`/v1`, `/health`, `/v1/clock`). The HTTP server (`upfbench_remote::Server`) is a shell
//! around it; the runs themselves go to the run's thread as jobs.

use std::path::PathBuf;
use std::sync::mpsc::Sender;
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use upfbench_api::v1::{
    AgentInfo, AgentState, Armed, At, Health, PairInfo, PortInfo, RunId, RunMode, RunRequest,
    RunState, Segment, SegmentSummary, Status, StepRequest, StepResult,
};
use upfbench_api::{Problem, ProblemKind};
use upfbench_config::{Multiplier, Profile, System};
use upfbench_remote::Answer;

use super::runs::{ReportFile, Runs, Ticket, run_id};
use crate::commands::generate::Mode;
use crate::commands::generate::hosted::{self, Asked, Refusal};
use crate::metrics::GeneratorMetrics;

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
    /// The runs' figures for `/metrics`, if kept.
    metrics: Option<Arc<GeneratorMetrics>>,
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
            metrics: None,
        }
    }

    /// With the runs' figures answered on `/metrics`.
    pub(crate) fn with_metrics(mut self, metrics: Arc<GeneratorMetrics>) -> AgentApi {
        self.metrics = Some(metrics);
        self
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
    fn start(&self, request: RunRequest) -> Result<Ticket, Problem> {
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

    fn file(&self, id: &str, file: ReportFile) -> Answer<String> {
        let path = self.runs.report(id, file)?;
        std::fs::read_to_string(&path)
            .map_err(|e| Problem::new(ProblemKind::NotFound, format!("{}: {e}", path.display())))
    }
}

/// The coordinator's routes: an agent hosts whole runs only until the coordinator is built.
fn no_segments() -> Problem {
    Problem::new(
        ProblemKind::Conflict,
        "no segment is loaded: this agent hosts whole runs (POST /v1/runs); segments and \
         steps come with the coordinator (docs/scale.md §3), which is not built yet",
    )
}

impl upfbench_remote::Agent for AgentApi {
    fn health(&self) -> Health {
        Health {
            state: self.state(),
        }
    }

    fn metrics(&self) -> Answer<String> {
        self.metrics
            .as_ref()
            .map(|m| m.scrape())
            .ok_or_else(|| Problem::new(ProblemKind::NotFound, "this agent keeps no figures"))
    }

    fn info(&self) -> Answer<AgentInfo> {
        Ok(AgentInfo {
            name: self.name.clone(),
            version: env!("CARGO_PKG_VERSION").to_owned(),
            api_version: API_VERSION,
            tsc_hz: self.tsc_hz,
            pairs: self.pairs.clone(),
        })
    }

    fn load_segment(&self, _: Segment) -> Answer<SegmentSummary> {
        Err(no_segments())
    }

    fn unload_segment(&self) -> Answer<()> {
        Err(no_segments())
    }

    fn arm_step(&self, _: StepRequest) -> Answer<Armed> {
        Err(no_segments())
    }

    fn start_step(&self, _: u32, _: At) -> Answer<()> {
        Err(no_segments())
    }

    fn stop_step(&self, _: u32, _: At) -> Answer<()> {
        Err(no_segments())
    }

    fn status(&self) -> Answer<Status> {
        Ok(Status {
            state: self.state(),
            step: None,
            phase: None,
            live: None,
        })
    }

    fn step_result(&self, _: u32) -> Answer<StepResult> {
        Err(no_segments())
    }

    fn start_run(&self, run: RunRequest) -> Answer<RunId> {
        self.start(run).map(|t| run_id(&t))
    }

    fn run_state(&self, id: &str) -> Answer<RunState> {
        self.runs.state(id)
    }

    fn stop_run(&self, id: &str) -> Answer<()> {
        self.runs.stop(id)
    }

    fn run_report(&self, id: &str) -> Answer<String> {
        self.file(id, ReportFile::Json)
    }

    fn run_report_html(&self, id: &str) -> Answer<String> {
        self.file(id, ReportFile::Html)
    }

    fn run_events(&self, id: &str) -> Answer<String> {
        self.file(id, ReportFile::Events)
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

/// The system's pairs as the API describes them (the short form's as `p0`).
fn pairs(system: &System) -> Vec<PairInfo> {
    let port = |p: &upfbench_config::Port| PortInfo {
        device: p.device.to_string(),
        address: format!("{}/{}", p.address.addr, p.address.len),
        peer: p.peer.to_string(),
    };
    system
        .pairs()
        .iter()
        .map(|pair| PairInfo {
            name: pair.name.clone(),
            weight: pair.weight(),
            workers: pair.workers.clone(),
            n3: port(&pair.n3),
            n6: port(&pair.n6),
        })
        .collect()
}

fn unix_ns() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as u64)
}
