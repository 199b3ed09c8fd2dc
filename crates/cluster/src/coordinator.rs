//! The coordinator, sans-IO (docs/scale.md §3): it estimates every agent's clock (8 calls to
//! `GET /v1/clock` each), loads every agent's segment, and runs each step the driver gives it:
//! arm it on every agent, once all are armed start it at one time T (each agent's T in its own
//! clock), read every agent's status each second, collect every result and merge them. A
//! search's trials are steps like any other (their `load` is the trial's total load over the
//! profile's; each agent sends its share of it, since its segment holds its share of every
//! rate).
//!
//! An agent that refuses a connection, answers an error, or answers nothing for
//! `agent_timeout` is lost ([`Action::Lost`], named with the step, the time and the reason).
//! The others are then stopped at a common time, their results collected, and the run ends
//! after that step ([`Action::Finished`] with the lost list), the step's totals over the agents
//! that answered ("2 of 3"). A lost agent's result that comes later is handed back apart
//! ([`Action::LateResult`]), never in the totals.
//!
//! Time is Unix ns on the coordinator's clock, given to [`Coordinator::handle`] and
//! [`Coordinator::handle_timeout`]; the coordinator reads no clock itself.

mod types;

use std::collections::VecDeque;
use std::time::Duration;

use upfbench_api::v1::{AgentState, At, Segment, StepRequest, StepResult};

use crate::clock::{self, Estimate, Sample};
use crate::merge::merge;
pub use types::{
    Action, AgentSpec, Answer, Call, Event, Failure, Finished, Lost, Request, Settings, StepOutcome,
};

/// What a call outstanding was.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Clock,
    Load,
    Arm,
    Start,
    Stop,
    Status,
    Result,
}

fn kind_of(r: &Request) -> Kind {
    match r {
        Request::Clock => Kind::Clock,
        Request::LoadSegment(_) => Kind::Load,
        Request::Arm(_) => Kind::Arm,
        Request::Start { .. } => Kind::Start,
        Request::Stop { .. } => Kind::Stop,
        Request::Status => Kind::Status,
        Request::Result { .. } => Kind::Result,
    }
}

/// A call waiting for its answer.
#[derive(Debug, Clone, Copy)]
struct Pending {
    id: u64,
    kind: Kind,
    deadline_ns: u64,
}

/// One agent as the coordinator sees it.
#[derive(Debug)]
struct Agent {
    name: String,
    samples: Vec<Sample>,
    estimate: Option<Estimate>,
    segment: Option<Box<Segment>>,
    loaded: bool,
    lost: bool,
    pending: Vec<Pending>,
    /// This step's: armed, its result asked for, its result.
    armed: bool,
    asked_result: bool,
    result: Option<StepResult>,
}

/// A step under way.
#[derive(Debug)]
struct StepRun {
    request: StepRequest,
    start_ns: Option<u64>,
    stop_ns: Option<u64>,
    next_poll_ns: u64,
    lost: Vec<Lost>,
}

impl StepRun {
    /// When the step is due to end on the coordinator's clock: its start, warm-up and
    /// duration, or the stop asked for.
    fn planned_end_ns(&self) -> Option<u64> {
        let ms = self.request.warmup_ms + self.request.duration_ms;
        self.stop_ns.or(self
            .start_ns
            .map(|t| t.saturating_add(ms.saturating_mul(1_000_000))))
    }

    /// The status poll after one at `now_ns`: every `poll_interval` while the step runs (and
    /// one at its planned end), then every `ending_poll` until its agents have collected it,
    /// so that a step costs little more than its duration.
    fn next_poll_after(&self, now_ns: u64, settings: &Settings) -> u64 {
        match self.planned_end_ns() {
            Some(end) if now_ns < end => now_ns
                .saturating_add(nanos(settings.poll_interval))
                .min(end),
            _ => now_ns.saturating_add(nanos(settings.ending_poll)),
        }
    }

    /// When the step is due to have ended, its overrun and the agents' timeout past: an agent
    /// without a result then is lost.
    fn deadline_ns(&self, settings: &Settings) -> Option<u64> {
        let end = self.planned_end_ns()?;
        Some(end.saturating_add(nanos(settings.step_overrun + settings.agent_timeout)))
    }
}

#[derive(Debug)]
enum Phase {
    Clocking,
    Loading,
    Ready,
    Step(StepRun),
    Done,
}

/// The coordinator of a run over agents.
#[derive(Debug)]
pub struct Coordinator {
    settings: Settings,
    started_ns: u64,
    agents: Vec<Agent>,
    phase: Phase,
    actions: VecDeque<Action>,
    next_id: u64,
    steps: u32,
    lost: Vec<Lost>,
}

fn nanos(d: Duration) -> u64 {
    u64::try_from(d.as_nanos()).unwrap_or(u64::MAX)
}

impl Coordinator {
    /// A run over `settings.agents`, agent `i` to load `segments[i]` (made with
    /// [`segments`](crate::segments)), started at `now_ns`: the first clock calls are asked for
    /// at once.
    pub fn new(settings: Settings, segments: Vec<Segment>, now_ns: u64) -> Coordinator {
        let agents = settings
            .agents
            .iter()
            .zip(segments.into_iter().map(Box::new).map(Some))
            .map(|(a, segment)| Agent {
                name: a.name.clone(),
                samples: Vec::new(),
                estimate: None,
                segment,
                loaded: false,
                lost: false,
                pending: Vec::new(),
                armed: false,
                asked_result: false,
                result: None,
            })
            .collect();
        let mut c = Coordinator {
            settings,
            started_ns: now_ns,
            agents,
            phase: Phase::Clocking,
            actions: VecDeque::new(),
            next_id: 1,
            steps: 0,
            lost: Vec::new(),
        };
        for i in 0..c.agents.len() {
            c.call(now_ns, i, Request::Clock);
        }
        c
    }

    /// The next thing to do, if any.
    pub fn poll_action(&mut self) -> Option<Action> {
        self.actions.pop_front()
    }

    /// When [`handle_timeout`](Self::handle_timeout) is next due (Unix ns), if ever.
    pub fn poll_timeout(&self) -> Option<u64> {
        if matches!(self.phase, Phase::Done) {
            return None;
        }
        let calls = self
            .agents
            .iter()
            .filter(|a| !a.lost)
            .flat_map(|a| a.pending.iter().map(|p| p.deadline_ns))
            .min();
        let step = match &self.phase {
            Phase::Step(s) if s.start_ns.is_some() => {
                [Some(s.next_poll_ns), s.deadline_ns(&self.settings)]
                    .into_iter()
                    .flatten()
                    .min()
            }
            _ => None,
        };
        [calls, step].into_iter().flatten().min()
    }

    /// Each agent's clock estimate, once made.
    pub fn clocks(&self) -> Vec<Option<Estimate>> {
        self.agents.iter().map(|a| a.estimate).collect()
    }

    /// Takes in what happened at `now_ns`.
    pub fn handle(&mut self, now_ns: u64, event: Event) {
        match event {
            Event::Answer { agent, id, answer } => self.answer(now_ns, agent, id, answer),
            Event::Failed { agent, id, failure } => {
                // A stop refused as out of place (4xx) is not a loss: the agent was not
                // running the step.
                let stop_refused = |kind| {
                    kind == Kind::Stop
                        && matches!(failure, Failure::Status(c, _) if (400..500).contains(&c))
                };
                match self.settle(agent, id) {
                    Some(kind) if !stop_refused(kind) => {
                        self.lose(now_ns, agent, failure.to_string());
                    }
                    _ => {}
                }
            }
            Event::Step(request) => {
                if matches!(self.phase, Phase::Ready) {
                    self.arm(now_ns, request);
                }
            }
            Event::Finish => {
                if matches!(self.phase, Phase::Ready) {
                    self.finish();
                }
            }
        }
    }

    /// Wakes the coordinator at `now_ns`: calls past their deadline lose their agent, and a
    /// running step's status is read.
    pub fn handle_timeout(&mut self, now_ns: u64) {
        if matches!(self.phase, Phase::Done) {
            return;
        }
        let timeout = self.settings.agent_timeout;
        for i in 0..self.agents.len() {
            let a = &self.agents[i];
            if !a.lost && a.pending.iter().any(|p| p.deadline_ns <= now_ns) {
                self.lose(now_ns, i, format!("no answer for {}", seconds(timeout)));
            }
        }
        let Phase::Step(run) = &self.phase else {
            return;
        };
        if run.start_ns.is_none() {
            return;
        }
        let step = run.request.step;
        if run.deadline_ns(&self.settings).is_some_and(|d| d <= now_ns) {
            for i in 0..self.agents.len() {
                if !self.agents[i].lost && self.agents[i].result.is_none() {
                    self.lose(now_ns, i, format!("step {step} not collected in time"));
                }
            }
            return;
        }
        if run.next_poll_ns > now_ns {
            return;
        }
        let next = run.next_poll_after(now_ns, &self.settings);
        if let Phase::Step(run) = &mut self.phase {
            run.next_poll_ns = next;
        }
        for i in 0..self.agents.len() {
            let a = &self.agents[i];
            let busy = a
                .pending
                .iter()
                .any(|p| matches!(p.kind, Kind::Status | Kind::Result));
            if !a.lost && a.result.is_none() && !busy {
                self.call(now_ns, i, Request::Status);
            }
        }
    }

    fn call(&mut self, now_ns: u64, agent: usize, request: Request) {
        let id = self.next_id;
        self.next_id += 1;
        self.agents[agent].pending.push(Pending {
            id,
            kind: kind_of(&request),
            deadline_ns: now_ns.saturating_add(nanos(self.settings.agent_timeout)),
        });
        self.actions
            .push_back(Action::Call(Call { agent, id, request }));
    }

    /// Removes call `id` of `agent` from the outstanding ones: its kind, or `None` if it was
    /// not outstanding (an agent lost since, or an answer twice).
    fn settle(&mut self, agent: usize, id: u64) -> Option<Kind> {
        let a = self.agents.get_mut(agent)?;
        if a.lost {
            return None;
        }
        let i = a.pending.iter().position(|p| p.id == id)?;
        Some(a.pending.swap_remove(i).kind)
    }

    fn answer(&mut self, now_ns: u64, agent: usize, id: u64, answer: Answer) {
        let late = self.agents.get(agent).is_some_and(|a| a.lost);
        if late {
            if let Answer::Result(result) = answer {
                self.actions.push_back(Action::LateResult { agent, result });
            }
            return;
        }
        let Some(kind) = self.settle(agent, id) else {
            return;
        };
        match (kind, answer) {
            (
                Kind::Clock,
                Answer::Clock {
                    sent_ns,
                    received_ns,
                    clock,
                },
            ) => self.clock_sample(
                now_ns,
                agent,
                Sample {
                    sent_ns,
                    received_ns,
                    agent_ns: clock.unix_ns,
                },
            ),
            (Kind::Load, Answer::Loaded(_)) => {
                self.agents[agent].loaded = true;
                self.loaded_all();
            }
            (Kind::Arm, Answer::Armed(armed)) if armed.armed => {
                self.agents[agent].armed = true;
                self.start_when_armed(now_ns);
            }
            (Kind::Start | Kind::Stop, Answer::Accepted) => {}
            (Kind::Status, Answer::Status(status)) => {
                let Phase::Step(run) = &self.phase else {
                    return;
                };
                let step = run.request.step;
                let a = &self.agents[agent];
                if status.state == AgentState::Collected
                    && status.step == Some(step)
                    && !a.asked_result
                {
                    self.agents[agent].asked_result = true;
                    self.call(now_ns, agent, Request::Result { step });
                }
            }
            (Kind::Result, Answer::Result(result)) => {
                self.agents[agent].result = Some(*result);
                self.complete_step();
            }
            (_, other) => self.lose(now_ns, agent, format!("an answer out of place: {other:?}")),
        }
    }

    fn clock_sample(&mut self, now_ns: u64, agent: usize, sample: Sample) {
        let a = &mut self.agents[agent];
        a.samples.push(sample);
        if a.samples.len() < clock::SAMPLES {
            self.call(now_ns, agent, Request::Clock);
            return;
        }
        a.estimate = Estimate::of(&a.samples);
        if self.agents.iter().all(|a| a.lost || a.estimate.is_some()) {
            self.phase = Phase::Loading;
            for i in 0..self.agents.len() {
                if let Some(segment) = self.agents[i].segment.take() {
                    self.call(now_ns, i, Request::LoadSegment(segment));
                }
            }
        }
    }

    fn loaded_all(&mut self) {
        if self.agents.iter().all(|a| a.lost || a.loaded) {
            self.phase = Phase::Ready;
            self.actions.push_back(Action::Ready);
        }
    }

    fn arm(&mut self, now_ns: u64, request: StepRequest) {
        for a in &mut self.agents {
            a.armed = false;
            a.asked_result = false;
            a.result = None;
        }
        self.phase = Phase::Step(StepRun {
            request: request.clone(),
            start_ns: None,
            stop_ns: None,
            next_poll_ns: u64::MAX,
            lost: Vec::new(),
        });
        for i in 0..self.agents.len() {
            self.call(now_ns, i, Request::Arm(request.clone()));
        }
    }

    /// Once every agent is armed: the common start T, each agent's in its own clock.
    fn start_when_armed(&mut self, now_ns: u64) {
        if !self.agents.iter().all(|a| a.lost || a.armed) {
            return;
        }
        let estimates: Vec<Estimate> = self.agents.iter().filter_map(|a| a.estimate).collect();
        let t = clock::start_time(now_ns, self.settings.start_lead, &estimates);
        let Phase::Step(run) = &mut self.phase else {
            return;
        };
        if run.start_ns.is_some() || run.stop_ns.is_some() {
            return;
        }
        run.start_ns = Some(t);
        run.next_poll_ns = run.next_poll_after(t, &self.settings);
        let step = run.request.step;
        self.at_each(now_ns, t, |step_at| Request::Start { step, at: step_at });
    }

    /// Calls every agent still there (and without its result) with the time `t` in its clock.
    fn at_each(&mut self, now_ns: u64, t: u64, request: impl Fn(At) -> Request) {
        for i in 0..self.agents.len() {
            let a = &self.agents[i];
            if a.lost || a.result.is_some() {
                continue;
            }
            let at = a.estimate.map_or(t, |e| e.on_agent(t));
            self.call(now_ns, i, request(At { at_unix_ns: at }));
        }
    }

    fn lose(&mut self, now_ns: u64, agent: usize, reason: String) {
        let a = &mut self.agents[agent];
        if a.lost {
            return;
        }
        a.lost = true;
        a.pending.clear();
        let step = match &self.phase {
            Phase::Step(run) => Some(run.request.step),
            _ => None,
        };
        let lost = Lost {
            agent: a.name.clone(),
            step,
            t_s: now_ns.saturating_sub(self.started_ns) as f64 / 1e9,
            reason,
        };
        self.lost.push(lost.clone());
        self.actions.push_back(Action::Lost(lost.clone()));
        let stop = match &mut self.phase {
            Phase::Done => return,
            Phase::Clocking | Phase::Loading | Phase::Ready => None,
            Phase::Step(run) => {
                run.lost.push(lost);
                Some(run.stop_ns.is_none().then_some(run.request.step))
            }
        };
        let Some(stop) = stop else {
            // No step to end: the run cannot go on without the agent.
            self.finish();
            return;
        };
        if let Some(step) = stop {
            let estimates: Vec<Estimate> = self.agents.iter().filter_map(|a| a.estimate).collect();
            let t = clock::start_time(now_ns, self.settings.start_lead, &estimates);
            if let Phase::Step(run) = &mut self.phase {
                run.stop_ns = Some(t);
            }
            self.at_each(now_ns, t, |at| Request::Stop { step, at });
        }
        self.complete_step();
    }

    /// Ends the step once every agent still there has handed its result (or at once when it
    /// was stopped before it started).
    fn complete_step(&mut self) {
        let Phase::Step(run) = &self.phase else {
            return;
        };
        let waiting =
            run.start_ns.is_some() && self.agents.iter().any(|a| !a.lost && a.result.is_none());
        if waiting {
            return;
        }
        let Phase::Step(run) = std::mem::replace(&mut self.phase, Phase::Ready) else {
            return;
        };
        let results: Vec<StepResult> = self
            .agents
            .iter_mut()
            .filter_map(|a| a.result.take())
            .collect();
        let refs: Vec<&StepResult> = results.iter().collect();
        let merged =
            (!refs.is_empty()).then(|| merge(run.request.step, &self.settings.latency, &refs));
        self.steps += 1;
        let outcome = StepOutcome {
            step: run.request.step,
            start_ns: run.start_ns,
            stop_ns: run.stop_ns,
            counted: (results.len(), self.agents.len()),
            results,
            merged,
            lost: run.lost,
        };
        self.actions.push_back(Action::StepDone(Box::new(outcome)));
        if self.lost.is_empty() {
            self.actions.push_back(Action::Ready);
        } else {
            self.finish();
        }
    }

    fn finish(&mut self) {
        if matches!(self.phase, Phase::Done) {
            return;
        }
        self.phase = Phase::Done;
        self.actions.push_back(Action::Finished(Finished {
            steps: self.steps,
            lost: self.lost.clone(),
            clocks: self.clocks(),
        }));
    }
}

/// `3 s`, `1.5 s`.
fn seconds(d: Duration) -> String {
    format!("{} s", d.as_secs_f64())
}

#[cfg(test)]
mod sim;
#[cfg(test)]
mod tests;
