//! `upfbench agent SYSTEM`: a long-running process that owns the box's ports. EAL is started
//! and the testbed brought up once; then it runs what its API asks for, one run (or one
//! segment's steps) at a time, on the main lcore, while the API's server answers from a thread
//! of its own ([`api`]).

pub mod api;
mod program;
mod result;
pub(crate) mod runs;
mod segment;
mod server;
mod step_plan;
mod steps;

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{Receiver, RecvTimeoutError};
use std::time::Duration;

use anyhow::{Context, Result, anyhow};
use api::{AgentApi, Job, StepsJob};
use program::RemoteSteps;
use runs::Runs;
use server::ApiServer;
use upfbench_cli::AgentArgs;
use upfbench_cli::out;
use upfbench_cli::signals::Interrupts;
use upfbench_config as config;
use upfbench_dpdk::TscAnchor;
use upfbench_remote::ServerConfig;

use crate::commands::generate::hosted::{self, Host, Stepped};
use crate::metrics::GeneratorMetrics;
use std::path::PathBuf;
use upfbench_net::Teid;
use upfbench_run::phase::PhaseBoard;

/// How often the run's thread looks at the agent's own interruptions while it waits for runs.
const POLL: Duration = Duration::from_millis(50);

/// What the API hands the run's thread.
#[derive(Debug)]
#[expect(
    clippy::large_enum_variant,
    reason = "one is sent per run or segment: moved once"
)]
pub(crate) enum Work {
    /// A whole run (`POST /v1/runs`).
    Run(Job),
    /// A segment's steps (`POST /v1/steps` of its first).
    Steps(StepsJob),
}

/// Where the agent's runs' reports go.
pub(crate) struct Agent {
    pub(crate) reports: PathBuf,
}

/// Runs the work from `jobs` on `host` one after another until the agent is interrupted (or
/// every sender is gone), each run recorded in `runs`.
pub(crate) fn host_runs(
    host: &Host<'_, '_, '_>,
    (runs, agent): (&Runs, &Agent),
    jobs: &Receiver<Work>,
    interrupts: &Interrupts,
    metrics: &GeneratorMetrics,
) {
    while !interrupts.any() {
        let job = match jobs.recv_timeout(POLL) {
            Ok(Work::Run(job)) => job,
            Ok(Work::Steps(job)) => {
                host_steps(host, agent, job, interrupts, metrics);
                continue;
            }
            Err(RecvTimeoutError::Timeout) => continue,
            Err(RecvTimeoutError::Disconnected) => return,
        };
        let id = job.ticket.id.clone();
        out::line(&format!("agent: run {id} begins"));
        runs.running(&id);
        let ended = {
            // The agent's own Ctrl-C or SIGTERM stops the run in progress too.
            let _forward = Forward::start(interrupts.clone(), job.ticket.interrupts.clone());
            hosted::run(
                host,
                &job.profile,
                &job.asked(),
                &job.ticket.interrupts,
                &job.ticket.live,
                metrics,
            )
        };
        let error = ended.outcome.err().map(|e| format!("{e:#}"));
        match &error {
            None => out::line(&format!("agent: run {id} ended")),
            Some(e) => out::line(&format!("agent: run {id} ended: {e}")),
        }
        runs.ended(&id, ended.folder, error);
    }
}

/// Runs a segment's steps on `host` (`RemoteSteps`), from the one armed, until the segment is
/// unloaded or the agent interrupted.
fn host_steps(
    host: &Host<'_, '_, '_>,
    agent: &Agent,
    job: StepsJob,
    interrupts: &Interrupts,
    metrics: &GeneratorMetrics,
) {
    let StepsJob {
        loaded,
        board,
        live,
    } = job;
    let Some(first) = board.take_asked() else {
        board.session_ended(None);
        return;
    };
    let ues = loaded.segment.ues;
    out::line(&format!(
        "agent: the steps of run {}'s segment begin (UEs {} to {})",
        loaded.segment.run,
        ues.first,
        u64::from(ues.first) + u64::from(ues.count) - 1
    ));
    let session = Interrupts::new();
    // The agent's own Ctrl-C or SIGTERM stops the step in progress too.
    let _forward = Forward::start(interrupts.clone(), session.clone());
    // UE i's uplink TEID at index i: those before the block are not sent.
    let uplink_teids = std::iter::repeat_n(Teid(0), ues.first as usize)
        .chain(loaded.uplink_teids.iter().map(|&t| Teid(t)))
        .collect();
    let control = PhaseBoard::new();
    let rules = host.rx_rules(&first.plan);
    let mut program = RemoteSteps::new(
        &rules,
        board.clone(),
        first,
        // The coordinator's name for this agent (its cluster file's), which it finds each
        // result by; the agent's own name is its `GET /v1`'s.
        (loaded.segment.agent.clone(), host.tsc_hz()),
        session.clone(),
    );
    let stepped = Stepped {
        profile: &loaded.profile,
        uplink_teids,
        reports: agent.reports.clone(),
        live: &live,
    };
    let ended = hosted::steps(host, &stepped, (&control, &mut program), &session, metrics);
    let error = ended.outcome.err().map(|e| format!("{e:#}"));
    match &error {
        None => out::line("agent: the segment's steps ended"),
        Some(e) => out::line(&format!("agent: the segment's steps ended: {e}")),
    }
    board.session_ended(error);
}

/// Raises `to` once when `from` is raised, until dropped.
struct Forward {
    done: Arc<AtomicBool>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl Forward {
    fn start(from: Interrupts, to: Interrupts) -> Forward {
        let done = Arc::new(AtomicBool::new(false));
        let seen = done.clone();
        let thread = std::thread::Builder::new()
            .name("upfbench-forward".into())
            .spawn(move || {
                while !seen.load(Ordering::Acquire) {
                    if from.any() {
                        to.raise();
                        return;
                    }
                    std::thread::sleep(POLL);
                }
            })
            .ok();
        Forward { done, thread }
    }
}

impl Drop for Forward {
    fn drop(&mut self) {
        self.done.store(true, Ordering::Release);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

/// `upfbench agent`: reads the system file, brings the testbed up, serves the API, and hosts
/// the runs it is asked for until Ctrl-C or SIGTERM.
pub fn run(args: &AgentArgs) -> Result<()> {
    // First of all: from here on Ctrl-C and SIGTERM are counted, never the default exit that
    // would leave EAL's runtime files and a run's sessions behind.
    let interrupts = Interrupts::install().context("installing the signal handlers")?;
    let first_anchor = TscAnchor::now();
    let text = std::fs::read_to_string(&args.system)
        .with_context(|| format!("reading {}", args.system.display()))?;
    let name = args.system.display().to_string();
    let system = config::system_from_str(&text, &name).map_err(|e| anyhow!("{e}"))?;
    // The door is checked before EAL starts: a token file that is missing or short, or an
    // address off loopback without one, stops the agent before it takes the ports.
    let token = args
        .token_file
        .as_deref()
        .map(upfbench_remote::Token::from_file)
        .transpose()?;
    let server_config = ServerConfig {
        listen: args.listen,
        token,
        insecure_no_token: args.insecure_no_token,
        limits: Default::default(),
    };
    upfbench_remote::check_listen(
        server_config.listen,
        server_config.token.as_ref(),
        server_config.insecure_no_token,
    )?;
    let reports = args
        .reports
        .clone()
        .unwrap_or_else(|| system.reports.clone());
    let agent_name = args.name.clone().unwrap_or_else(host_name);
    let agent = Agent {
        reports: reports.clone(),
    };
    let runs = Arc::new(Runs::default());
    // The runs' figures, scraped on the API's /metrics.
    let metrics = Arc::new(GeneratorMetrics::detached());
    let (jobs_tx, jobs) = std::sync::mpsc::channel();
    hosted::with_host(&system, first_anchor, &interrupts, |host| {
        let api = Arc::new(
            AgentApi::new(
                agent_name,
                (text.clone(), name.clone()),
                &system,
                host.tsc_hz(),
                reports,
                runs.clone(),
                jobs_tx,
            )
            .with_metrics(metrics.clone())
            .with_links(host.links()),
        );
        let server = ApiServer::start(server_config, api)?;
        out::line(&format!(
            "agent: serving the API on http://{} (Ctrl-C ends)",
            server.address()
        ));
        host_runs(host, (&runs, &agent), &jobs, &interrupts, &metrics);
        drop(server);
        out::line("agent: ended");
        Ok(())
    })
}

/// The host's name (`/proc/sys/kernel/hostname`), or `upfbench-agent`.
fn host_name() -> String {
    std::fs::read_to_string("/proc/sys/kernel/hostname")
        .map(|h| h.trim().to_owned())
        .ok()
        .filter(|h| !h.is_empty())
        .unwrap_or_else(|| "upfbench-agent".to_owned())
}
