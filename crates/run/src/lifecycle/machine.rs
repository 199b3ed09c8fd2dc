//! The phases of a run as a state machine, sans-IO like the PFCP node: the application tells it
//! what happened ([`Lifecycle::handle`]) and what time it is ([`Lifecycle::handle_timeout`]),
//! and carries out what it asks for ([`Lifecycle::poll_action`]) — talking to the UPF, resolving
//! MAC addresses, setting the workers' phase, collecting results, writing the report.
//!
//! ```text
//! associate → establish → resolve → per step: prepare → warm-up → settle → measure → drain → (quiet) → collect
//!                                                                                               ↓ (no more)
//!                                                                report → delete → release → done
//! ```
//!
//! The application says, as it hands over a step's results, whether another step follows: a
//! run or a sweep knows its steps in advance, a search chooses each trial from the last one's
//! results. A capacity climb establishes a batch of sessions before each step
//! ([`Lifecycle::grow_before_next_step`]): collect → establish → prepare, resolving only once.
//! It may also change the timing before a step ([`Lifecycle::set_timing`]). A step without
//! warm-up still settles first when its timing has a settle time (a search's trials, for a UPF
//! that needs it); with `quiet_limit`, a step is collected only when the application says it is
//! over ([`Event::Quiet`]: every packet accounted for, or nothing arriving any more), or when
//! that limit passed (a search's trials have no fixed drain: they end so).
//!
//! An interruption (Ctrl-C, SIGTERM) or a failure takes the shortest way to the same end: stop
//! sending, drain what is in flight, collect and report what was measured, delete the sessions
//! that were established, release. A second interruption skips what is left of the teardown.
//!
//! A UPF that fails mid-run: one that restarted lost every session and the association, so the
//! teardown neither deletes nor releases; the run stops the short way, or, told to re-establish,
//! asks for the association and the sessions again while the step goes on
//! ([`Action::Reestablish`], answered by [`Event::Reestablished`] however it ended), and waits
//! for that to end before deleting anything. One that stopped answering is not asked anything
//! more: the run stops the short way and skips the deletion and the release.

use std::collections::VecDeque;
use std::time::{Duration, Instant};

use crate::phase::Phase;

/// How long each timed phase lasts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Timing {
    /// Warm-up traffic before each measured step (zero: none).
    pub warmup: Duration,
    /// Silence after the warm-up, for its packets to drain before measuring.
    pub settle: Duration,
    /// Longest the measured phase may take before sending is cut short (the planned duration
    /// plus a margin: a sender that cannot keep up is reported, not waited for forever).
    pub measure_limit: Duration,
    /// Receiving after the last packet was sent (may be zero when `quiet_limit` is given).
    pub drain: Duration,
    /// After the drain, wait for [`Event::Quiet`] at most this long (`None`: collect at once).
    pub quiet_limit: Option<Duration>,
}

/// What the machine asks the application to do.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Action {
    /// Set up the PFCP association (and its first heartbeat exchange).
    Associate,
    /// Establish every session; report progress; answer [`Event::Established`].
    Establish,
    /// Stop establishing: the sessions in flight finish, no new ones start.
    CancelEstablishment,
    /// Resolve the UPF's MAC addresses and start the ports' service plane.
    Resolve,
    /// Build step `step`'s templates and launch the workers idle.
    Prepare {
        /// The step (0-based).
        step: usize,
    },
    /// Put the workers in this phase (a sending phase starts at once).
    SetPhase(Phase),
    /// Watch the counters; answer [`Event::Quiet`] when every packet of the step is accounted
    /// for, or nothing arrives any more.
    AwaitQuiet,
    /// Stop the workers and collect step `step`'s results.
    Collect {
        /// The step.
        step: usize,
    },
    /// Write the report of the steps collected so far.
    Report,
    /// Delete the established sessions.
    Delete,
    /// Release the association (best effort).
    Release,
    /// The UPF restarted: set up the association and establish every session again, while the
    /// step goes on; answer [`Event::Reestablished`] when that ends, whichever way.
    Reestablish,
}

/// What happened.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Event {
    /// The association is up.
    Associated,
    /// Establishment ended (all sessions, or as many as before a cancellation).
    Established,
    /// The MAC addresses are known and the service plane runs.
    Resolved,
    /// The step's workers are ready.
    Prepared,
    /// Every worker sent all of the measured phase.
    AllSent,
    /// Every packet of the step is accounted for, or nothing of it arrives any more.
    Quiet,
    /// The step's results are collected.
    Collected {
        /// Another step follows.
        more: bool,
    },
    /// The report is written.
    Reported,
    /// Sessions deleted (as many as could be).
    Deleted,
    /// Association released (or the attempt ended).
    Released,
    /// The user asked to stop.
    Interrupt,
    /// Something failed; the run ends the short way with this message.
    Failed(String),
    /// The UPF restarted (a new Recovery Time Stamp): its sessions and the association are
    /// gone. `reestablish`: set them up again and go on; otherwise the run ends the short way
    /// with `message`.
    UpfRestarted {
        /// Set them up again.
        reestablish: bool,
        /// The failure, for a run that stops.
        message: String,
    },
    /// The re-establishment asked by [`Action::Reestablish`] ended (a failure is told first,
    /// as [`Event::Failed`]).
    Reestablished,
    /// The UPF stopped answering and the run is to stop: it ends the short way with this
    /// message, without asking the UPF to delete or release anything.
    UpfLost(String),
}

/// Where the run is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum State {
    /// Not started.
    Start,
    /// Waiting for the association.
    Associating,
    /// Waiting for the sessions.
    Establishing,
    /// Waiting for MAC resolution.
    Resolving,
    /// Waiting for a step's workers.
    Preparing,
    /// Warm-up traffic.
    Warmup,
    /// Letting the warm-up drain.
    Settle,
    /// Measured traffic.
    Measure,
    /// Receiving what is still in flight.
    Drain,
    /// Waiting until nothing arrives any more.
    Quiet,
    /// Waiting for a step's results.
    Collecting,
    /// Writing the report.
    Reporting,
    /// Deleting sessions.
    Deleting,
    /// Releasing the association.
    Releasing,
    /// Finished.
    Done,
}

/// The run's state machine. See the module documentation.
#[derive(Debug)]
pub struct Lifecycle {
    state: State,
    timing: Timing,
    pfcp: bool,
    step: usize,
    /// Steps whose results were collected.
    collected: usize,
    deadline: Option<Instant>,
    /// The association was set up.
    associated: bool,
    /// Sessions may exist on the UPF (an establishment was started).
    sessions: bool,
    /// The report was written.
    reported: bool,
    /// The next hops were resolved (a later establishment goes straight to the next step).
    resolved: bool,
    /// The next step comes after an establishment.
    grow: bool,
    /// Stop after the current step and take the teardown.
    stopping: bool,
    /// Skip what is left of the teardown.
    hurry: bool,
    /// A re-establishment is under way.
    reestablishing: bool,
    failure: Option<String>,
    actions: VecDeque<Action>,
}

impl Lifecycle {
    /// A run with this timing; `pfcp` false when the UPF is configured by other means.
    pub fn new(timing: Timing, pfcp: bool) -> Lifecycle {
        Lifecycle {
            state: State::Start,
            timing,
            pfcp,
            step: 0,
            collected: 0,
            deadline: None,
            associated: false,
            sessions: false,
            reported: false,
            resolved: false,
            grow: false,
            stopping: false,
            hurry: false,
            reestablishing: false,
            failure: None,
            actions: VecDeque::new(),
        }
    }

    /// Where the run is.
    pub fn state(&self) -> State {
        self.state
    }

    /// Establish more sessions (the next batch) before the next step: asks for
    /// [`Action::Establish`] when the current step is collected with another to follow.
    pub fn grow_before_next_step(&mut self) {
        self.grow = true;
    }

    /// The timing of the steps from the next one prepared on.
    pub fn set_timing(&mut self, timing: Timing) {
        self.timing = timing;
    }

    /// The step being run (0-based).
    pub fn step(&self) -> usize {
        self.step
    }

    /// Steps whose results were collected.
    pub fn collected(&self) -> usize {
        self.collected
    }

    /// Whether the run is over.
    pub fn is_done(&self) -> bool {
        self.state == State::Done
    }

    /// The failure that ended the run, if any.
    pub fn failure(&self) -> Option<&str> {
        self.failure.as_deref()
    }

    /// Whether the run was interrupted or failed before its end.
    pub fn stopped_early(&self) -> bool {
        self.stopping
    }

    /// Starts the run.
    pub fn start(&mut self, _now: Instant) {
        if self.state != State::Start {
            return;
        }
        if self.pfcp {
            self.go(State::Associating, Action::Associate);
        } else {
            self.go(State::Resolving, Action::Resolve);
        }
    }

    /// The next thing to do.
    pub fn poll_action(&mut self) -> Option<Action> {
        self.actions.pop_front()
    }

    /// When [`handle_timeout`](Self::handle_timeout) is next due.
    pub fn poll_timeout(&self) -> Option<Instant> {
        self.deadline
    }

    /// Advances the timed phases.
    pub fn handle_timeout(&mut self, now: Instant) {
        let Some(d) = self.deadline else { return };
        if now < d {
            return;
        }
        self.deadline = None;
        match self.state {
            State::Warmup => self.timed(now, State::Settle, Phase::Settle, self.timing.settle),
            State::Settle => self.measure(now),
            // Sending was cut short: the shortfall shows in the report's sent counts.
            State::Measure => self.drain(now),
            State::Drain => match self.timing.quiet_limit {
                Some(limit) if !self.hurry => {
                    self.go(State::Quiet, Action::AwaitQuiet);
                    self.deadline = Some(now + limit);
                }
                _ => self.go(State::Collecting, Action::Collect { step: self.step }),
            },
            // Still arriving at the limit: collected anyway (the application says so).
            State::Quiet => self.go(State::Collecting, Action::Collect { step: self.step }),
            _ => {}
        }
    }

    /// Handles what happened.
    pub fn handle(&mut self, now: Instant, event: Event) {
        match event {
            Event::Interrupt => self.interrupt(now),
            Event::UpfRestarted {
                reestablish,
                message,
            } if !self.reestablishing => self.upf_restarted(now, reestablish, message),
            Event::Reestablished => {
                self.reestablishing = false;
                // The teardown waits for it (the report is written by then).
                if self.state == State::Establishing && self.reported {
                    self.teardown();
                }
            }
            Event::UpfLost(message) => {
                self.sessions = false;
                self.associated = false;
                self.handle(now, Event::Failed(message));
            }
            Event::Failed(message) => self.failed(now, message),
            Event::Associated if self.state == State::Associating => {
                self.associated = true;
                self.sessions = true;
                self.go(State::Establishing, Action::Establish);
            }
            Event::Established if self.state == State::Establishing => self.sessions_established(),
            Event::Resolved if self.state == State::Resolving => {
                self.resolved = true;
                self.go(State::Preparing, Action::Prepare { step: self.step });
            }
            Event::Prepared if self.state == State::Preparing => self.step_prepared(now),
            Event::AllSent if self.state == State::Measure => self.drain(now),
            Event::Quiet if self.state == State::Quiet => {
                self.deadline = None;
                self.go(State::Collecting, Action::Collect { step: self.step });
            }
            Event::Collected { more } if self.state == State::Collecting => {
                self.step_collected(more)
            }
            Event::Reported if self.state == State::Reporting => {
                self.reported = true;
                self.teardown();
            }
            Event::Deleted if self.state == State::Deleting => {
                self.sessions = false;
                self.go(State::Releasing, Action::Release);
            }
            Event::Released if self.state == State::Releasing => self.state = State::Done,
            // Late or repeated events change nothing.
            _ => {}
        }
    }

    /// The UPF restarted (not while re-establishing already): nothing of the run is left on
    /// it. A step under way re-establishes when `reestablish`; anything else fails.
    fn upf_restarted(&mut self, now: Instant, reestablish: bool, message: String) {
        self.sessions = false;
        self.associated = false;
        let stepping = matches!(
            self.state,
            State::Resolving
                | State::Preparing
                | State::Warmup
                | State::Settle
                | State::Measure
                | State::Drain
                | State::Quiet
                | State::Collecting
        );
        if reestablish && stepping && !self.stopping && !self.reestablishing {
            self.reestablishing = true;
            self.sessions = true;
            self.associated = true;
            self.actions.push_back(Action::Reestablish);
        } else {
            self.handle(now, Event::Failed(message));
        }
    }

    /// The run failed: the first failure is kept, and the run winds down from where it is.
    fn failed(&mut self, now: Instant, message: String) {
        if self.failure.is_none() {
            self.failure = Some(message);
        }
        match self.state {
            // The batch has ended (or there was none), or the step could not be prepared
            // (nothing is sending, and no Prepared follows): report, delete what was
            // established, release.
            State::Associating | State::Establishing | State::Preparing => {
                self.stopping = true;
                self.teardown();
            }
            // Go on with the rest of the teardown.
            State::Deleting => self.go(State::Releasing, Action::Release),
            State::Releasing => self.state = State::Done,
            _ => self.interrupt(now),
        }
    }

    /// The sessions are established: tear down if stopping, else resolve the peers (once) and
    /// prepare the step.
    fn sessions_established(&mut self) {
        if self.stopping {
            self.teardown();
        } else if self.resolved {
            self.go(State::Preparing, Action::Prepare { step: self.step });
        } else {
            self.go(State::Resolving, Action::Resolve);
        }
    }

    /// The step is prepared: its first timed phase (warm-up, settling or the measured phase).
    fn step_prepared(&mut self, now: Instant) {
        if !self.timing.warmup.is_zero() {
            self.timed(now, State::Warmup, Phase::Warmup, self.timing.warmup);
        } else if !self.timing.settle.is_zero() {
            self.timed(now, State::Settle, Phase::Settle, self.timing.settle);
        } else {
            self.measure(now);
        }
    }

    /// The step is collected: the teardown after the last, else the next step (with more
    /// sessions first when the program grows them).
    fn step_collected(&mut self, more: bool) {
        self.collected += 1;
        if self.stopping || !more {
            self.teardown();
        } else if std::mem::take(&mut self.grow) {
            self.step += 1;
            self.go(State::Establishing, Action::Establish);
        } else {
            self.step += 1;
            self.go(State::Preparing, Action::Prepare { step: self.step });
        }
    }

    fn interrupt(&mut self, now: Instant) {
        if self.stopping {
            // A second interruption: leave now, whatever is left.
            self.hurry = true;
            if matches!(self.state, State::Deleting | State::Releasing) {
                self.state = State::Done;
                self.deadline = None;
            }
            return;
        }
        self.stopping = true;
        match self.state {
            // Nothing done yet: the report says so, nothing else is owed.
            State::Start | State::Associating | State::Resolving => self.teardown(),
            State::Establishing => self.actions.push_back(Action::CancelEstablishment),
            State::Preparing => {}
            State::Warmup | State::Settle | State::Measure => self.drain(now),
            State::Drain
            | State::Quiet
            | State::Collecting
            | State::Reporting
            | State::Deleting
            | State::Releasing
            | State::Done => {}
        }
    }

    fn measure(&mut self, now: Instant) {
        if self.stopping {
            self.drain(now);
            return;
        }
        self.timed(
            now,
            State::Measure,
            Phase::Measure,
            self.timing.measure_limit,
        );
    }

    fn drain(&mut self, now: Instant) {
        self.timed(now, State::Drain, Phase::Drain, self.timing.drain);
    }

    fn timed(&mut self, now: Instant, state: State, phase: Phase, length: Duration) {
        self.state = state;
        self.actions.push_back(Action::SetPhase(phase));
        self.deadline = Some(now + length);
    }

    /// Report (what was measured, possibly nothing), delete, release: each once, in order.
    fn teardown(&mut self) {
        self.deadline = None;
        if !self.reported {
            self.go(State::Reporting, Action::Report);
        } else if self.reestablishing && !self.hurry {
            // Deleting now would miss the sessions still being established: stop them and wait.
            self.go(State::Establishing, Action::CancelEstablishment);
        } else if self.sessions && !self.hurry {
            self.go(State::Deleting, Action::Delete);
        } else if self.associated && !self.hurry {
            self.go(State::Releasing, Action::Release);
        } else {
            self.state = State::Done;
        }
    }

    fn go(&mut self, state: State, action: Action) {
        self.state = state;
        self.actions.push_back(action);
    }
}

#[cfg(test)]
mod tests;
#[cfg(test)]
mod upf_faults;
