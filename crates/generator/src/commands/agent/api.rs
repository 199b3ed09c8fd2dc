//! What the agent answers to each route of the API: the runs it hosts (`/v1/runs`), the
//! segment a coordinator loads (`/v1/segment`, `agent/segment.rs`) and its steps (`/v1/steps`,
//! `/v1/status`, `agent/steps.rs`), itself (`/v1`, `/health`, `/v1/clock`). The HTTP server
//! (`upfbench_remote::Server`) is a shell around it; the runs and the segments' steps go to
//! the run's thread as work.

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

use super::Work;
use super::runs::{ReportFile, Runs, Ticket, run_id};
use super::segment::{self, Checks, Loaded};
use super::step_plan::plan_step;
use super::steps::{StepAsked, StepBoard};
use crate::commands::generate::Mode;
use crate::commands::generate::hosted::{self, Asked, Refusal};
use crate::commands::live::LiveBoard;
use crate::metrics::GeneratorMetrics;

/// The API's version this agent serves (`/v1`).
pub(crate) const API_VERSION: u32 = 1;

/// How long `POST /v1/steps` waits for the step's workers (the first step of a segment resolves
/// the UPF's MACs first).
const ARM_LIMIT: Duration = Duration::from_secs(30);

/// A segment's steps, for the run's thread: a session runs them until the segment is unloaded.
#[derive(Debug)]
pub(crate) struct StepsJob {
    pub(crate) loaded: Arc<Loaded>,
    pub(crate) board: Arc<StepBoard>,
    /// Where its steps' live figures go.
    pub(crate) live: Arc<LiveBoard>,
}

/// The segment loaded and its steps.
#[derive(Debug)]
struct Current {
    loaded: Arc<Loaded>,
    board: Arc<StepBoard>,
    live: Arc<LiveBoard>,
}

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
    jobs: Mutex<Sender<Work>>,
    /// The agent's start, in Unix seconds: in its runs' ids.
    stamp: u64,
    /// The runs' figures for `/metrics`, if kept.
    metrics: Option<Arc<GeneratorMetrics>>,
    /// Each pair's ports' line rates (bit/s), for the segments' checks.
    links: Vec<[Option<f64>; 2]>,
    /// The segment loaded, if any, and its steps.
    segment: Mutex<Option<Current>>,
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
        jobs: Sender<Work>,
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
            links: Vec::new(),
            segment: Mutex::new(None),
        }
    }

    /// With each pair's line rates (bit/s) as the testbed found them.
    pub(crate) fn with_links(mut self, links: Vec<[Option<f64>; 2]>) -> AgentApi {
        self.links = links;
        self
    }

    fn segment(&self) -> std::sync::MutexGuard<'_, Option<Current>> {
        // A panic while the lock was held left the segment as it was: still usable.
        self.segment.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// `PUT /v1/segment`: checked against the agent's system (422), refused while a whole run
    /// is in progress (409); a segment loaded before is replaced.
    fn load(&self, s: Segment) -> Result<SegmentSummary, Problem> {
        if self.runs.busy() {
            return Err(Problem::new(
                ProblemKind::Conflict,
                "a run is in progress (POST /v1/runs): a segment is loaded once it ended",
            ));
        }
        let checks = Checks {
            system_text: &self.system_text,
            system_name: &self.system_name,
            links: &self.links,
        };
        let loaded = segment::load(checks, s)?;
        let summary = loaded.summary.clone();
        let mut current = self.segment();
        if let Some(c) = &*current {
            let (state, step) = c.board.state();
            if matches!(state, AgentState::Armed | AgentState::Running) {
                return Err(Problem::new(
                    ProblemKind::Conflict,
                    format!(
                        "step {} of the segment loaded is {}: a segment is replaced once it \
                         ended (POST /v1/steps/{{n}}/stop)",
                        step.unwrap_or(0),
                        if state == AgentState::Armed {
                            "armed"
                        } else {
                            "running"
                        }
                    ),
                ));
            }
            c.board.close();
        }
        *current = Some(Current {
            loaded: Arc::new(loaded),
            board: Arc::new(StepBoard::default()),
            live: Arc::new(LiveBoard::default()),
        });
        Ok(summary)
    }

    /// The segment's steps (409 unless a segment is loaded).
    fn board(&self) -> Result<Arc<StepBoard>, Problem> {
        match &*self.segment() {
            Some(c) => Ok(c.board.clone()),
            None => Err(no_segment()),
        }
    }

    /// `POST /v1/steps`: the step planned for the segment's block (422 when it cannot be),
    /// handed to the run's thread (a session begun for the segment's first), and answered once
    /// its workers wait for the start time.
    fn arm(&self, s: StepRequest) -> Result<Armed, Problem> {
        let (loaded, board, live) = match &*self.segment() {
            Some(c) => (c.loaded.clone(), c.board.clone(), c.live.clone()),
            None => return Err(no_segment()),
        };
        checked_step(&s)?;
        let plan = plan_step(&loaded, &self.links, &s)?;
        let step = s.step;
        let start = board.arm(StepAsked { request: s, plan })?;
        live.clear();
        if start {
            self.send(Work::Steps(StepsJob {
                loaded,
                board: board.clone(),
                live,
            }))
            .inspect_err(|_| board.session_ended(Some("the agent is shutting down".into())))?;
        }
        board.wait_armed(step, ARM_LIMIT)
    }

    /// Hands `work` to the run's thread (503 when it is gone).
    fn send(&self, work: Work) -> Result<(), Problem> {
        self.jobs
            .lock()
            .map_err(|_| ())
            .and_then(|jobs| jobs.send(work).map_err(|_| ()))
            .map_err(|_| Problem::new(ProblemKind::Unavailable, "the agent is shutting down"))
    }

    /// With the runs' figures answered on `/metrics`.
    pub(crate) fn with_metrics(mut self, metrics: Arc<GeneratorMetrics>) -> AgentApi {
        self.metrics = Some(metrics);
        self
    }

    fn state(&self) -> AgentState {
        if self.runs.busy() {
            AgentState::Running
        } else if let Some(c) = &*self.segment() {
            c.board.state().0
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
        if let Some(c) = &*self.segment() {
            return Err(Problem::new(
                ProblemKind::Conflict,
                format!(
                    "a segment of run {} is loaded: DELETE /v1/segment unloads it",
                    c.loaded.segment.run
                ),
            ));
        }
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
        if let Err(p) = self.send(Work::Run(job)) {
            self.runs
                .ended(&ticket.id, None, Some("the agent is shutting down".into()));
            return Err(p);
        }
        Ok(ticket)
    }

    fn file(&self, id: &str, file: ReportFile) -> Answer<String> {
        let path = self.runs.report(id, file)?;
        std::fs::read_to_string(&path)
            .map_err(|e| Problem::new(ProblemKind::NotFound, format!("{}: {e}", path.display())))
    }
}

/// A segment's route without a segment.
fn no_segment() -> Problem {
    Problem::new(
        ProblemKind::Conflict,
        "no segment is loaded (PUT /v1/segment loads one)",
    )
}

/// A step's request checked: numbered from 1, a load above 0, a measured phase.
fn checked_step(s: &StepRequest) -> Result<(), Problem> {
    let mut issues = Vec::new();
    if s.step == 0 {
        issues.push(("step", "steps are numbered from 1"));
    }
    if !(s.load.is_finite() && s.load > 0.0) {
        issues.push(("load", "give a multiplier of the rates above 0"));
    }
    if s.duration_ms == 0 {
        issues.push(("duration_ms", "a step of 0 ms sends nothing"));
    }
    if issues.is_empty() {
        return Ok(());
    }
    let mut p = Problem::new(ProblemKind::InvalidContent, "the step cannot be run");
    for (field, message) in issues {
        p = p.with_issue(field, message);
    }
    Err(p)
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

    fn load_segment(&self, s: Segment) -> Answer<SegmentSummary> {
        self.load(s)
    }

    /// Unloads the segment (a step running stops now); 204 when none was loaded too (DELETE
    /// is idempotent).
    fn unload_segment(&self) -> Answer<()> {
        if let Some(c) = self.segment().take() {
            c.board.close();
        }
        Ok(())
    }

    fn arm_step(&self, s: StepRequest) -> Answer<Armed> {
        self.arm(s)
    }

    fn start_step(&self, step: u32, at: At) -> Answer<()> {
        self.board()?.start(step, at.at_unix_ns)
    }

    fn stop_step(&self, step: u32, at: At) -> Answer<()> {
        self.board()?.stop(step, at.at_unix_ns)
    }

    /// The agent's state, the segment's step, and while it runs its last second's figures.
    fn status(&self) -> Answer<Status> {
        if self.runs.busy() {
            return Ok(Status {
                state: AgentState::Running,
                step: None,
                phase: None,
                live: None,
            });
        }
        let Some((board, live)) = self
            .segment()
            .as_ref()
            .map(|c| (c.board.clone(), c.live.clone()))
        else {
            return Ok(Status {
                state: AgentState::Idle,
                step: None,
                phase: None,
                live: None,
            });
        };
        let (state, step) = board.state();
        // The workers' phase is not on the live board: the figures say what is sent.
        let live = match state {
            AgentState::Running => live.last().map(|l| l.figures),
            _ => None,
        };
        Ok(Status {
            state,
            step,
            phase: None,
            live,
        })
    }

    fn step_result(&self, step: u32) -> Answer<StepResult> {
        self.board()?.result(step)
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

#[cfg(test)]
mod tests;
