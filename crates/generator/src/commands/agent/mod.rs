//! `upfbench agent SYSTEM`: a long-running process that owns the box's ports. EAL is started
//! and the testbed brought up once; then it runs what its API asks for, one run at a time, on
//! the main lcore, while the API's server answers from a thread of its own ([`api`]).

pub mod api;
pub(crate) mod runs;
mod segment;
mod server;

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{Receiver, RecvTimeoutError};
use std::time::Duration;

use anyhow::{Context, Result, anyhow};
use api::{AgentApi, Job};
use runs::Runs;
use server::ApiServer;
use upfbench_cli::AgentArgs;
use upfbench_cli::out;
use upfbench_cli::signals::Interrupts;
use upfbench_config as config;
use upfbench_dpdk::TscAnchor;
use upfbench_remote::ServerConfig;

use crate::commands::generate::hosted::{self, Host};
use crate::metrics::GeneratorMetrics;

/// How often the run's thread looks at the agent's own interruptions while it waits for runs.
const POLL: Duration = Duration::from_millis(50);

/// Runs the jobs from `jobs` on `host` one after another until the agent is interrupted (or
/// every sender is gone), each recorded in `runs`.
pub(crate) fn host_runs(
    host: &Host<'_, '_, '_>,
    runs: &Runs,
    jobs: &Receiver<Job>,
    interrupts: &Interrupts,
    metrics: &GeneratorMetrics,
) {
    while !interrupts.any() {
        let job = match jobs.recv_timeout(POLL) {
            Ok(job) => job,
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
        host_runs(host, &runs, &jobs, &interrupts, &metrics);
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
