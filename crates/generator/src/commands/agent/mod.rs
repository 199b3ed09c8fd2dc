//! `upfbench agent SYSTEM`: a long-running process that owns the box's ports. EAL is started
//! and the testbed brought up once; then it runs what its API asks for, one run at a time, on
//! the main lcore, while the API's server answers from a thread of its own ([`api`]).

pub(crate) mod api;
pub(crate) mod runs;

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{Receiver, RecvTimeoutError};
use std::time::Duration;

use api::Job;
use runs::Runs;
use upfbench_cli::out;
use upfbench_cli::signals::Interrupts;

use crate::commands::generate::hosted::{self, Host};

/// How often the run's thread looks at the agent's own interruptions while it waits for runs.
const POLL: Duration = Duration::from_millis(50);

/// Runs the jobs from `jobs` on `host` one after another until the agent is interrupted (or
/// every sender is gone), each recorded in `runs`.
pub(crate) fn host_runs(
    host: &Host<'_, '_, '_>,
    runs: &Runs,
    jobs: &Receiver<Job>,
    interrupts: &Interrupts,
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
