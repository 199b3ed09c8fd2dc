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

#![forbid(unsafe_code)]

mod exposition;
pub mod families;
pub mod health;
pub mod histogram;
pub mod scrape;
mod server;

pub use exposition::{Exposition, Value};

use std::net::{SocketAddr, TcpListener};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use anyhow::{Context, Result};

use families::Role;
use health::{Health, Phase};
use upfbench_cli::MetricsArgs;
use upfbench_cli::out;
use upfbench_cli::signals::Interrupts;

/// What a role (the generator, the reflector) adds to a scrape: its own figures, kept by the
/// control thread with [`Metrics::update`] and copied by each scrape.
pub trait RoleFigures: std::fmt::Debug + Clone + Default + Send + 'static {
    /// Whose figures these are.
    const ROLE: Role;
    /// Adds the role's samples to a scrape.
    fn expose(&self, e: &mut Exposition);
    /// The step running or last run (1-based), if the role has steps.
    fn step_now(&self) -> Option<usize> {
        None
    }
}

/// What the server asks of the state it serves, whatever the role.
trait Endpoint: Send + Sync {
    /// The text of a scrape of `/metrics`, and its number.
    fn scrape(&self) -> (String, u64);
    /// Scrape `number` was answered in full.
    fn answered(&self, number: u64);
    /// What `/health` says.
    fn health(&self) -> Health;
}

/// What the control thread shares with the server.
#[derive(Debug)]
struct Shared<F> {
    state: Mutex<State<F>>,
    /// Scrapes of `/metrics` begun (each one's number is the count then).
    scrapes_begun: AtomicU64,
    /// The highest number of a scrape answered in full.
    scrapes_answered: AtomicU64,
}

/// What a scrape copies.
#[derive(Debug, Clone)]
struct State<F> {
    phase: Phase,
    failure: Option<String>,
    figures: F,
}

impl<F> Shared<F> {
    fn lock(&self) -> MutexGuard<'_, State<F>> {
        // A panic elsewhere while holding it leaves the data as it was: still worth serving.
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }
}

impl<F: RoleFigures> Endpoint for Shared<F> {
    fn scrape(&self) -> (String, u64) {
        let number = self.scrapes_begun.fetch_add(1, Ordering::SeqCst) + 1;
        let state = self.lock().clone();
        (exposition::render(&state), number)
    }

    fn answered(&self, number: u64) {
        self.scrapes_answered.fetch_max(number, Ordering::SeqCst);
    }

    fn health(&self) -> Health {
        let s = self.lock();
        Health {
            role: F::ROLE.name(),
            phase: s.phase.name(),
            step: s.figures.step_now(),
            failure: s.failure.clone(),
        }
    }
}

/// The running endpoint of a role whose figures are `F`: the server's thread and the state it
/// serves.
#[derive(Debug)]
pub struct Metrics<F> {
    shared: Arc<Shared<F>>,
    /// None when another server answers its scrapes ([`Metrics::detached`]).
    server: Option<server::Server>,
    linger: Duration,
}

impl<F: RoleFigures> Metrics<F> {
    /// Starts serving if `args` ask for it (`None` otherwise). Binds now: an address in use
    /// stops the command before anything else starts.
    pub fn start(args: &MetricsArgs) -> Result<Option<Metrics<F>>> {
        let Some(addr) = args.metrics else {
            return Ok(None);
        };
        let listener = TcpListener::bind(addr)
            .with_context(|| format!("--metrics {addr}: cannot listen there"))?;
        let shared = Arc::new(Shared {
            state: Mutex::new(State {
                phase: Phase::Starting,
                failure: None,
                figures: F::default(),
            }),
            scrapes_begun: AtomicU64::new(0),
            scrapes_answered: AtomicU64::new(0),
        });
        let server = server::Server::start(listener, Arc::clone(&shared) as Arc<dyn Endpoint>)?;
        out::line(&format!(
            "metrics: http://{}/metrics and /health",
            server.address()
        ));
        Ok(Some(Metrics {
            shared,
            server: Some(server),
            linger: args.metrics_linger,
        }))
    }

    /// The figures without a server of their own: another server answers `/metrics` with
    /// [`Metrics::scrape`] (an agent's API). It never lingers.
    pub fn detached() -> Metrics<F> {
        Metrics {
            shared: Arc::new(Shared {
                state: Mutex::new(State {
                    phase: Phase::Starting,
                    failure: None,
                    figures: F::default(),
                }),
                scrapes_begun: AtomicU64::new(0),
                scrapes_answered: AtomicU64::new(0),
            }),
            server: None,
            linger: Duration::ZERO,
        }
    }

    /// A scrape's text, as `/metrics` answers it.
    pub fn scrape(&self) -> String {
        let (text, number) = self.shared.scrape();
        self.shared.answered(number);
        text
    }

    /// Where it listens (none when detached).
    pub fn address(&self) -> Option<SocketAddr> {
        self.server.as_ref().map(server::Server::address)
    }

    /// Changes the role's figures, under the lock a scrape copies them under.
    pub fn update<T>(&self, change: impl FnOnce(&mut F) -> T) -> T {
        change(&mut self.shared.lock().figures)
    }

    /// The phase changed (and the failure, if the run failed).
    pub fn set_phase(&self, phase: Phase, failure: Option<&str>) {
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
