//! The driver's loop (docs/scale.md §3): what the [`Coordinator`] asks is done, each call on a
//! task of its own so that a slow agent holds up no other, its answer handed back with the
//! time; the coordinator is woken at its [`poll_timeout`](Coordinator::poll_timeout) (calls past
//! `agent_timeout`, the running step's status each second). When it is ready, the next step is
//! asked of the caller; a lost agent is told to the caller at once (the live line,
//! events.jsonl's `agent_lost`).

use std::sync::Arc;
use std::time::Duration;

use tokio::sync::mpsc;
use upfbench_api::v1::{Status, StepRequest, StepResult};
use upfbench_cluster::Coordinator;
use upfbench_cluster::coordinator::{Action, Answer, Event, Failure, Finished, Lost, StepOutcome};
use upfbench_remote::Client;

use crate::call::{make, now_ns};

/// The exit status of a run that lost an agent (docs/operations.md "Exit statuses").
pub const EXIT_INCOMPLETE: i32 = 3;

/// What came of a run over agents.
#[derive(Debug, Clone, PartialEq)]
pub struct Driven {
    /// Every step's outcome, in order.
    pub steps: Vec<StepOutcome>,
    /// Results of lost agents that came after all: (the agent's index, its result), kept apart
    /// from the totals.
    pub late: Vec<(usize, StepResult)>,
    /// The run's end: the steps done, every agent lost, the clocks.
    pub finished: Finished,
}

impl Driven {
    /// This run's outcome followed by `later`'s, a run over the same agents begun `shift_s`
    /// after this one (a search's next case): its agents lost at times since this one's start,
    /// each agent's latest clock estimate.
    pub fn then(mut self, later: Driven, shift_s: f64) -> Driven {
        self.steps.extend(later.steps.into_iter().map(|mut o| {
            for l in &mut o.lost {
                l.t_s += shift_s;
            }
            o
        }));
        self.late.extend(later.late);
        self.finished.steps += later.finished.steps;
        self.finished
            .lost
            .extend(later.finished.lost.into_iter().map(|mut l| {
                l.t_s += shift_s;
                l
            }));
        for (mine, theirs) in self.finished.clocks.iter_mut().zip(later.finished.clocks) {
            if theirs.is_some() {
                *mine = theirs;
            }
        }
        self
    }

    /// 0, or [`EXIT_INCOMPLETE`] when an agent was lost.
    pub fn exit_status(&self) -> i32 {
        if self.finished.incomplete() {
            EXIT_INCOMPLETE
        } else {
            0
        }
    }
}

type Reply = (usize, u64, Result<Answer, Failure>);

/// What a caller is told as a run goes: every agent lost, as it is (the live line,
/// events.jsonl's `agent_lost`), and every status an agent gives during a step (the live
/// line's figures). A closure over [`Lost`] is a watcher of losses alone.
pub trait Watch {
    /// `lost` was lost just now.
    fn lost(&mut self, lost: &Lost);
    /// Agent `agent` gave `status`.
    fn status(&mut self, agent: usize, status: &Status) {
        let _ = (agent, status);
    }
}

impl<F: FnMut(&Lost)> Watch for F {
    fn lost(&mut self, lost: &Lost) {
        self(lost);
    }
}

/// Runs `coordinator` against `clients` (agent `i` is `clients[i]`, each bounded by its own
/// timeout, `agent_timeout`): `next_step` is asked for each step, given the outcomes so far
/// (`None`: the run ends), and `watch` is told every agent lost as it is and every status.
pub async fn drive(
    mut coordinator: Coordinator,
    clients: Vec<Client>,
    mut next_step: impl FnMut(&[StepOutcome]) -> Option<StepRequest>,
    mut watch: impl Watch,
) -> Driven {
    let clients: Vec<Arc<Client>> = clients.into_iter().map(Arc::new).collect();
    let (tx, mut rx) = mpsc::unbounded_channel::<Reply>();
    let mut steps = Vec::new();
    let mut late = Vec::new();
    loop {
        while let Some(action) = coordinator.poll_action() {
            match action {
                Action::Call(call) => {
                    let client = Arc::clone(&clients[call.agent]);
                    let tx = tx.clone();
                    tokio::spawn(async move {
                        let answer = make(&client, call.request).await;
                        // The run may be over: nobody waits for this answer then.
                        let _ = tx.send((call.agent, call.id, answer));
                    });
                }
                Action::Ready => {
                    let event = next_step(&steps).map_or(Event::Finish, Event::Step);
                    coordinator.handle(now_ns(), event);
                }
                Action::Lost(l) => watch.lost(&l),
                Action::StepDone(outcome) => steps.push(*outcome),
                Action::LateResult { agent, result } => late.push((agent, *result)),
                Action::Finished(finished) => {
                    return Driven {
                        steps,
                        late,
                        finished,
                    };
                }
            }
        }
        let wait = coordinator
            .poll_timeout()
            .map(|t| Duration::from_nanos(t.saturating_sub(now_ns())));
        tokio::select! {
            Some((agent, id, answer)) = rx.recv() => {
                if let Ok(Answer::Status(status)) = &answer {
                    watch.status(agent, status);
                }
                let event = match answer {
                    Ok(answer) => Event::Answer { agent, id, answer },
                    Err(failure) => Event::Failed { agent, id, failure },
                };
                coordinator.handle(now_ns(), event);
            }
            () = sleep(wait) => coordinator.handle_timeout(now_ns()),
        }
    }
}

/// Sleeps `wait`, or for ever when `None` (an answer wakes the loop then).
async fn sleep(wait: Option<Duration>) {
    match wait {
        Some(d) => tokio::time::sleep(d).await,
        None => std::future::pending().await,
    }
}
