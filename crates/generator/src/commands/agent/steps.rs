//! The steps of a loaded segment between the API's thread and the run's (docs/scale.md §3
//! "Steps and trials at a common time"): the API arms a step (its plan made), the run's thread
//! prepares it and says it is armed, the API gives its start and stop times, the run's thread
//! hands back its result. One step at a time; a board per segment, closed when the segment
//! is unloaded or replaced (its session then ends).

use std::sync::{Condvar, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use upfbench_api::v1::{AgentState, Armed, StepRequest, StepResult};
use upfbench_api::{Problem, ProblemKind};
use upfbench_cli::signals::Interrupts;
use upfbench_run::plan::Plan;

use crate::commands::generate::program::StartAt;

/// How often a wait looks at the interruptions.
const POLL: Duration = Duration::from_millis(50);

/// A step the API armed, for the run's thread.
#[derive(Debug, Clone)]
pub(crate) struct StepAsked {
    pub(crate) request: StepRequest,
    /// Its plan: the segment's block at the request's load, payload and durations.
    pub(crate) plan: Plan,
}

/// Where the segment's step is.
#[derive(Debug, Clone, Default)]
enum Slot {
    /// No step yet.
    #[default]
    None,
    /// StepAsked for, being prepared.
    Arming(u32),
    /// Its workers wait for the start time.
    Armed { step: u32, prepare_ms: u64 },
    /// Its start time was given.
    Running(u32),
    /// It ended: its result waits to be read.
    Collected(u32, Box<StepResult>),
    /// It could not be prepared or measured.
    Failed(u32, String),
}

#[derive(Debug, Default)]
struct Board {
    asked: Option<Box<StepAsked>>,
    slot: Slot,
    start_at: Option<u64>,
    stop_at: Option<u64>,
    /// A session of the run's thread runs the segment's steps.
    session: bool,
    /// The segment was unloaded or replaced.
    closed: bool,
}

/// See the module's documentation.
#[derive(Debug, Default)]
pub(crate) struct StepBoard {
    board: Mutex<Board>,
    changed: Condvar,
}

impl StepBoard {
    fn board(&self) -> MutexGuard<'_, Board> {
        // A panic while the lock was held left the board as it was: still usable.
        self.board.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn change(&self, f: impl FnOnce(&mut Board)) {
        f(&mut self.board());
        self.changed.notify_all();
    }

    // The API's side.

    /// Arms `asked` (409 while another step is armed or running); true when no session runs
    /// its steps yet (the caller starts one).
    pub(crate) fn arm(&self, asked: StepAsked) -> Result<bool, Problem> {
        let mut b = self.board();
        if let Slot::Arming(n) | Slot::Armed { step: n, .. } | Slot::Running(n) = b.slot {
            return Err(Problem::new(
                ProblemKind::Conflict,
                format!(
                    "step {n} is {}: one step at a time (POST /v1/steps/{n}/stop ends it)",
                    word(&b.slot)
                ),
            ));
        }
        b.slot = Slot::Arming(asked.request.step);
        b.start_at = None;
        b.stop_at = None;
        b.asked = Some(Box::new(asked));
        let start = !b.session;
        b.session = true;
        drop(b);
        self.changed.notify_all();
        Ok(start)
    }

    /// Waits until step `step` is armed (its answer), failed (409 with why), or `limit` passed
    /// (503).
    pub(crate) fn wait_armed(&self, step: u32, limit: Duration) -> Result<Armed, Problem> {
        let until = Instant::now() + limit;
        let mut b = self.board();
        loop {
            match &b.slot {
                Slot::Armed {
                    step: n,
                    prepare_ms,
                } if *n == step => {
                    return Ok(Armed {
                        step,
                        armed: true,
                        prepare_ms: *prepare_ms,
                    });
                }
                Slot::Failed(n, why) if *n == step => {
                    return Err(Problem::new(
                        ProblemKind::Conflict,
                        format!("step {step} could not be armed: {why}"),
                    ));
                }
                Slot::Arming(n) if *n == step => {}
                _ => {
                    return Err(Problem::new(
                        ProblemKind::Conflict,
                        format!("step {step} was replaced before it was armed"),
                    ));
                }
            }
            let now = Instant::now();
            if now >= until {
                return Err(Problem::new(
                    ProblemKind::Unavailable,
                    format!("step {step} is not armed after {limit:?}: still preparing"),
                ));
            }
            b = self
                .changed
                .wait_timeout(b, until - now)
                .map(|(b, _)| b)
                .unwrap_or_else(|p| p.into_inner().0);
        }
    }

    /// Starts the armed step `step` at `at` (Unix ns); 409 for a step that is not armed.
    pub(crate) fn start(&self, step: u32, at: u64) -> Result<(), Problem> {
        let mut b = self.board();
        match b.slot {
            Slot::Armed { step: n, .. } if n == step => {
                b.start_at = Some(at);
                b.slot = Slot::Running(step);
                drop(b);
                self.changed.notify_all();
                Ok(())
            }
            _ => Err(not_armed(step, &b.slot)),
        }
    }

    /// Stops step `step`, armed or running, at `at` (Unix ns); 409 otherwise.
    pub(crate) fn stop(&self, step: u32, at: u64) -> Result<(), Problem> {
        let mut b = self.board();
        match b.slot {
            Slot::Armed { step: n, .. } | Slot::Running(n) if n == step => {
                b.stop_at = Some(at);
                drop(b);
                self.changed.notify_all();
                Ok(())
            }
            _ => Err(not_armed(step, &b.slot)),
        }
    }

    /// The agent's state with a segment loaded, and the step it is about.
    pub(crate) fn state(&self) -> (AgentState, Option<u32>) {
        match self.board().slot {
            Slot::None => (AgentState::Loaded, None),
            Slot::Arming(n) | Slot::Failed(n, _) => (AgentState::Loaded, Some(n)),
            Slot::Armed { step, .. } => (AgentState::Armed, Some(step)),
            Slot::Running(n) => (AgentState::Running, Some(n)),
            Slot::Collected(n, _) => (AgentState::Collected, Some(n)),
        }
    }

    /// Step `step`'s result once collected; 409 before, or when it failed.
    pub(crate) fn result(&self, step: u32) -> Result<StepResult, Problem> {
        let b = self.board();
        match &b.slot {
            Slot::Collected(n, r) if *n == step => Ok((**r).clone()),
            Slot::Failed(n, why) if *n == step => Err(Problem::new(
                ProblemKind::Conflict,
                format!("step {step} failed: {why}"),
            )),
            Slot::Armed { step: n, .. } | Slot::Running(n) if *n == step => Err(Problem::new(
                ProblemKind::Conflict,
                format!(
                    "step {step} is {}: its result comes when it ends",
                    word(&b.slot)
                ),
            )),
            slot => Err(not_armed(step, slot)),
        }
    }

    /// The segment is unloaded or replaced: its session ends.
    pub(crate) fn close(&self) {
        self.change(|b| b.closed = true);
    }

    // The run's side.

    /// The step armed and not yet taken, if any.
    pub(crate) fn take_asked(&self) -> Option<StepAsked> {
        self.board().asked.take().map(|a| *a)
    }

    /// Waits for the next step armed; `None` when the segment is closed or `interrupts` came.
    pub(crate) fn wait_asked(&self, interrupts: &Interrupts) -> Option<StepAsked> {
        let mut b = self.board();
        loop {
            if b.closed || interrupts.any() {
                return None;
            }
            if let Some(a) = b.asked.take() {
                return Some(*a);
            }
            b = self
                .changed
                .wait_timeout(b, POLL)
                .map(|(b, _)| b)
                .unwrap_or_else(|p| p.into_inner().0);
        }
    }

    /// Step `step`'s workers are launched, `prepare_ms` after it was taken up.
    pub(crate) fn armed(&self, step: u32, prepare_ms: u64) {
        self.change(|b| {
            if matches!(b.slot, Slot::Arming(n) if n == step) {
                b.slot = Slot::Armed { step, prepare_ms };
            }
        });
    }

    /// When step `step` begins: at its start time once given; cancelled when the segment was
    /// closed or the step is stopped before (or at) its start.
    pub(crate) fn start_at(&self, step: u32) -> StartAt {
        let b = self.board();
        if b.closed {
            return StartAt::Cancel(format!("the segment was unloaded before step {step} began"));
        }
        match (b.start_at, b.stop_at) {
            (Some(start), Some(stop)) if stop <= start => {
                StartAt::Cancel(format!("step {step} was stopped before it began"))
            }
            (Some(start), _) => StartAt::At(start),
            (None, Some(_)) => StartAt::Cancel(format!("step {step} was stopped before it began")),
            (None, None) => StartAt::Wait,
        }
    }

    /// When the running step is to stop, if asked.
    pub(crate) fn stop_at(&self) -> Option<u64> {
        let b = self.board();
        if b.closed {
            // Unloaded mid-step: stop now.
            return Some(0);
        }
        b.stop_at
    }

    /// Step `step` ended: its result, or why it has none.
    pub(crate) fn collected(&self, step: u32, result: Result<StepResult, String>) {
        self.change(|b| {
            b.slot = match result {
                Ok(r) => Slot::Collected(step, Box::new(r)),
                Err(why) => Slot::Failed(step, why),
            };
            b.start_at = None;
            b.stop_at = None;
        });
    }

    /// The session ended (`why`, if it failed): a step armed or running fails with it, and
    /// the next arming starts another session.
    pub(crate) fn session_ended(&self, why: Option<String>) {
        self.change(|b| {
            b.session = false;
            b.asked = None;
            if let Slot::Arming(n) | Slot::Armed { step: n, .. } | Slot::Running(n) = b.slot {
                let why = why.unwrap_or_else(|| "the agent's run of the segment ended".into());
                b.slot = Slot::Failed(n, why);
            }
        });
    }
}

/// A step's route for a step that is not armed, running or collected.
fn not_armed(step: u32, slot: &Slot) -> Problem {
    let now = match slot {
        Slot::None => String::new(),
        Slot::Arming(n)
        | Slot::Armed { step: n, .. }
        | Slot::Running(n)
        | Slot::Collected(n, _)
        | Slot::Failed(n, _) => format!(" (step {n} is {})", word(slot)),
    };
    Problem::new(
        ProblemKind::Conflict,
        format!("step {step} is not armed{now}: POST /v1/steps arms it"),
    )
}

fn word(slot: &Slot) -> &'static str {
    match slot {
        Slot::None => "none",
        Slot::Arming(_) => "being armed",
        Slot::Armed { .. } => "armed",
        Slot::Running(_) => "running",
        Slot::Collected(..) => "collected",
        Slot::Failed(..) => "failed",
    }
}

#[cfg(test)]
mod tests;
