//! `--metrics ADDR`: Prometheus metrics and a health check over HTTP, for `run`, `sweep`,
//! `search` and `reflect`.
//!
//! Nothing is added to the workers' path. A scrape reads what the control thread already has:
//! the workers' seqlock snapshots (read at scrape time through shared readers of the same
//! cells), the reflector's counter cells, and a small state the control thread updates off the
//! hot path: the phase when it changes, each live line's latency intervals (as histogram
//! buckets), a step's final figures when it is collected, the PFCP node's counters once a
//! second. The HTTP server is a thread of its own (`server`); the control thread only ever
//! takes the state's lock to write a few fields, and a scrape holds it only to copy them.
//!
//! At the end the process lingers (`--metrics-linger`, 15 s by default): it keeps serving until
//! a scrape that began after the final counts were in has been answered, or the time is up, or
//! a Ctrl-C, so that the last counts reach Prometheus. docs/operations.md lists every metric.

mod exposition;
pub mod families;
mod generator;
pub mod health;
pub mod histogram;
mod pfcp;
mod reflector;
mod server;

pub(crate) use pfcp::PfcpSampler;

use std::net::{SocketAddr, TcpListener};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use anyhow::{Context, Result};
use clap::Args;

use super::out;
use super::signals::Interrupts;
use families::Role;
use health::{Health, Phase};

/// The command-line options of the metrics endpoint.
#[derive(Debug, Clone, Args)]
pub struct MetricsArgs {
    /// Serve Prometheus metrics at http://ADDR/metrics (e.g. 127.0.0.1:9464; port 0: any
    /// free one, printed) and the phase at /health (JSON; 503 once the run failed).
    #[arg(long, value_name = "ADDR")]
    pub metrics: Option<SocketAddr>,
    /// At the end, keep serving until a scrape has read the final counts, at most this long
    /// (`0s`: not at all). A Ctrl-C ends the wait.
    #[arg(
        long,
        value_name = "DURATION",
        default_value = "15s",
        value_parser = crate::cli::parse_duration
    )]
    pub metrics_linger: Duration,
}

/// What the control thread shares with the server.
#[derive(Debug)]
struct Shared {
    role: Role,
    state: Mutex<State>,
    /// Scrapes of `/metrics` begun (each one's number is the count then).
    scrapes_begun: AtomicU64,
    /// The highest number of a scrape answered in full.
    scrapes_answered: AtomicU64,
}

/// What a scrape copies.
#[derive(Debug, Clone)]
struct State {
    phase: Phase,
    failure: Option<String>,
    generator: generator::GeneratorState,
    reflector: reflector::ReflectorState,
}

impl Shared {
    fn lock(&self) -> MutexGuard<'_, State> {
        // A panic elsewhere while holding it leaves the data as it was: still worth serving.
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The text of a scrape of `/metrics`, and its number.
    fn scrape(&self) -> (String, u64) {
        let number = self.scrapes_begun.fetch_add(1, Ordering::SeqCst) + 1;
        let state = self.lock().clone();
        (exposition::render(self.role, &state), number)
    }

    /// Scrape `number` was answered in full.
    fn answered(&self, number: u64) {
        self.scrapes_answered.fetch_max(number, Ordering::SeqCst);
    }

    fn health(&self) -> Health {
        let s = self.lock();
        Health {
            role: self.role.name(),
            phase: s.phase.name(),
            step: match self.role {
                Role::Generator => s.generator.step_now(),
                Role::Reflector => None,
            },
            failure: s.failure.clone(),
        }
    }
}

/// The running endpoint: the server's thread and the state it serves.
#[derive(Debug)]
pub struct Metrics {
    shared: Arc<Shared>,
    server: server::Server,
    linger: Duration,
}

impl Metrics {
    /// Starts serving if `args` ask for it (`None` otherwise). Binds now: an address in use
    /// stops the command before anything else starts.
    pub fn start(args: &MetricsArgs, role: Role) -> Result<Option<Metrics>> {
        let Some(addr) = args.metrics else {
            return Ok(None);
        };
        let listener = TcpListener::bind(addr)
            .with_context(|| format!("--metrics {addr}: cannot listen there"))?;
        let shared = Arc::new(Shared {
            role,
            state: Mutex::new(State {
                phase: Phase::Starting,
                failure: None,
                generator: generator::GeneratorState::default(),
                reflector: reflector::ReflectorState::default(),
            }),
            scrapes_begun: AtomicU64::new(0),
            scrapes_answered: AtomicU64::new(0),
        });
        let server = server::Server::start(listener, Arc::clone(&shared))?;
        out::line(&format!(
            "metrics: http://{}/metrics and /health",
            server.address()
        ));
        Ok(Some(Metrics {
            shared,
            server,
            linger: args.metrics_linger,
        }))
    }

    /// Where it listens.
    pub fn address(&self) -> SocketAddr {
        self.server.address()
    }

    /// The phase changed (and the failure, if the run failed).
    pub(crate) fn set_phase(&self, phase: Phase, failure: Option<&str>) {
        let mut s = self.shared.lock();
        s.phase = phase;
        if let Some(f) = failure
            && s.failure.is_none()
        {
            s.failure = Some(f.to_owned());
        }
    }

    /// The command ended: `done`, or `failed` with its error; the final counts are in. Then
    /// lingers until a scrape has read them (see the module's documentation).
    pub fn finish(&self, outcome: &Result<()>, interrupts: &Interrupts) {
        match outcome {
            Ok(()) => self.set_phase(Phase::Done, None),
            Err(e) => self.set_phase(Phase::Failed, Some(&format!("{e:#}"))),
        }
        // Every scrape numbered above this one began after the final state was in place.
        let last_before = self.shared.scrapes_begun.load(Ordering::SeqCst);
        if self.linger.is_zero() {
            return;
        }
        out::line(&format!(
            "metrics: serving the final counts until a scrape reads them (at most {:?}; \
             Ctrl-C ends the wait)",
            self.linger
        ));
        let seen = interrupts.count();
        let until = Instant::now() + self.linger;
        loop {
            if self.shared.scrapes_answered.load(Ordering::SeqCst) > last_before {
                out::line("metrics: the final counts were scraped");
                return;
            }
            if interrupts.count() > seen || Instant::now() >= until {
                out::line("metrics: no scrape read the final counts");
                return;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

#[cfg(test)]
mod tests;
