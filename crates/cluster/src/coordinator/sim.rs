//! A simulated clock and scripted agents for the coordinator's tests: no socket, no thread.
//! Each agent answers after its one-way delay each way, on its own clock (`offset_ns` from the
//! coordinator's), and can die (connection refused from a time on), fall silent, or be slow to
//! hand its result.

use std::collections::{BTreeMap, VecDeque};

use upfbench_api::v1::{
    AgentState, Armed, Clock, DirectionFigures, LatencyHistogram, PairResult, SegmentSummary,
    Status, StepRequest, StepResult, StreamFigures,
};
use upfbench_stats::{Direction, LatencyConfig, LatencyRecorder, SeqCounters, TrafficCounters};

use super::*;
use crate::merge::settings;

pub(super) const S: u64 = 1_000_000_000;
pub(super) const MS: u64 = 1_000_000;
/// The run's start on the coordinator's clock.
pub(super) const T0: u64 = 1_764_417_600 * S;

/// An agent that answers as told.
#[derive(Debug, Clone)]
pub(super) struct Scripted {
    pub name: String,
    /// Its clock − the coordinator's.
    pub offset_ns: i64,
    /// Each way (the way back `back_ns` when given).
    pub one_way_ns: u64,
    /// The way back, when not `one_way_ns`.
    pub back_ns: Option<u64>,
    /// From this coordinator time on, connections are refused.
    pub dies_at: Option<u64>,
    /// From this coordinator time on, it answers nothing.
    pub silent_from: Option<u64>,
    /// Its result answer takes this much longer.
    pub result_delay_ns: u64,
    /// It collects its step this long after the step's end (its drain).
    pub drain_ns: u64,
    /// It answers nothing from its first arming on.
    pub silent_when_armed: bool,
    /// It answers a stop with this error status (409: not running it).
    pub stop_status: Option<u16>,
    /// It answers its segment with this error status.
    pub load_status: Option<u16>,
    ues: u32,
    step: Option<StepRequest>,
    start_at: Option<u64>,
    stop_at: Option<u64>,
}

impl Scripted {
    pub(super) fn new(name: &str) -> Scripted {
        Scripted {
            name: name.to_owned(),
            offset_ns: 0,
            one_way_ns: 100_000,
            back_ns: None,
            dies_at: None,
            silent_from: None,
            result_delay_ns: 0,
            drain_ns: 0,
            silent_when_armed: false,
            stop_status: None,
            load_status: None,
            ues: 0,
            step: None,
            start_at: None,
            stop_at: None,
        }
    }

    /// Its clock at coordinator time `t`.
    fn clock(&self, t: u64) -> u64 {
        t.saturating_add_signed(self.offset_ns)
    }

    /// When its step ends on its own clock: its planned end, or the stop asked for.
    fn end(&self) -> Option<u64> {
        let step = self.step.as_ref()?;
        let planned = self.start_at? + (step.warmup_ms + step.duration_ms) * MS;
        Some(self.stop_at.map_or(planned, |s| s.min(planned)))
    }

    /// What it sent over the step: 100 packets per UE and unit of load over a whole step, less
    /// if stopped early.
    fn sent(&self) -> u64 {
        let step = self.step.as_ref().expect("a step");
        let start = self.start_at.expect("started");
        let planned = (step.warmup_ms + step.duration_ms) * MS;
        let ran = self.end().expect("an end") - start;
        let full = (f64::from(self.ues) * 100.0 * step.load).round() as u64;
        full * ran / planned
    }

    fn result(&self) -> StepResult {
        let step = self.step.as_ref().expect("a step");
        let sent = self.sent();
        let mut r = LatencyRecorder::new(&LatencyConfig::default()).expect("config");
        for i in 0..self.ues {
            r.record(i64::from(10_000 + i));
        }
        let latency = LatencyHistogram::of(&r).expect("encodes");
        let seq = SeqCounters {
            sent,
            received: sent - 1,
            unique: sent - 1,
            lost: 1,
            ..Default::default()
        };
        let traffic = TrafficCounters {
            packets: sent,
            bytes_l2: sent * 100,
        };
        StepResult {
            step: step.step,
            agent: self.name.clone(),
            latency: settings(&LatencyConfig::default()),
            start_late_ns: 1_000,
            duration_ns: step.duration_ms * MS,
            tsc_hz: 2e9,
            warnings: vec![],
            pairs: vec![PairResult {
                pair: "p0".to_owned(),
                directions: vec![DirectionFigures {
                    direction: Direction::Uplink,
                    tx: traffic,
                    rx: traffic,
                    seq,
                    latency: latency.clone(),
                }],
                streams: vec![StreamFigures {
                    stream: 0,
                    name: "ul".to_owned(),
                    direction: Direction::Uplink,
                    flows: self.ues,
                    seq,
                    jitter_mean_ns: None,
                    jitter_flows: 0,
                    latency,
                    tx_slip: None,
                }],
                qfis: vec![],
                ports: vec![],
                frames: vec![],
                rx_rejected: BTreeMap::new(),
                rx_untagged: 0,
                rx_unknown_stream: 0,
                seconds: vec![],
            }],
        }
    }

    /// Its answer to `request` arriving at coordinator time `at`, if it answers.
    fn answer(&mut self, sent: u64, request: &Request) -> Option<(u64, Result<Answer, Failure>)> {
        let at = sent + self.one_way_ns;
        let back = at + self.back_ns.unwrap_or(self.one_way_ns);
        if self.dies_at.is_some_and(|d| at >= d) {
            return Some((at, Err(Failure::Refused)));
        }
        if self.silent_when_armed && matches!(request, Request::Arm(_)) {
            self.silent_from = Some(at);
        }
        if self.silent_from.is_some_and(|s| at >= s) {
            return None;
        }
        let answer = match request {
            Request::Clock => Answer::Clock {
                sent_ns: sent,
                received_ns: back,
                clock: Clock {
                    unix_ns: self.clock(at),
                },
            },
            Request::LoadSegment(segment) => {
                if let Some(code) = self.load_status {
                    return Some((back, Err(Failure::Status(code, "EAL is not up".to_owned()))));
                }
                self.ues = segment.ues.count;
                Answer::Loaded(SegmentSummary {
                    run: segment.run.clone(),
                    ues: segment.ues,
                    pairs: vec![],
                })
            }
            Request::Arm(step) => {
                self.step = Some(step.clone());
                self.start_at = None;
                self.stop_at = None;
                Answer::Armed(Armed {
                    step: step.step,
                    armed: true,
                    prepare_ms: 12,
                })
            }
            Request::Start { at, .. } => {
                self.start_at = Some(at.at_unix_ns);
                Answer::Accepted
            }
            Request::Stop { at, .. } => {
                if let Some(code) = self.stop_status {
                    let why = "no step is running".to_owned();
                    return Some((back, Err(Failure::Status(code, why))));
                }
                self.stop_at = Some(at.at_unix_ns);
                Answer::Accepted
            }
            Request::Status => {
                let now = self.clock(at);
                let collected = self.end().is_some_and(|e| now >= e + self.drain_ns);
                Answer::Status(Status {
                    state: if collected {
                        AgentState::Collected
                    } else {
                        AgentState::Running
                    },
                    step: self.step.as_ref().map(|s| s.step),
                    phase: None,
                    live: None,
                })
            }
            Request::Result { .. } => {
                return Some((
                    back + self.result_delay_ns,
                    Ok(Answer::Result(Box::new(self.result()))),
                ));
            }
        };
        Some((back, Ok(answer)))
    }
}

/// The coordinator, its agents, and what happened when.
pub(super) struct Sim {
    pub now: u64,
    pub coordinator: Coordinator,
    pub agents: Vec<Scripted>,
    /// Events due, by time (in order of scheduling among equal times).
    due: Vec<(u64, u64, Event)>,
    seq: u64,
    /// What to answer [`Action::Ready`] with, in order.
    pub program: VecDeque<Event>,
    /// Every action, with its time.
    pub log: Vec<(u64, Action)>,
}

impl Sim {
    pub(super) fn new(settings: Settings, segments: Vec<Segment>, agents: Vec<Scripted>) -> Sim {
        Sim {
            now: T0,
            coordinator: Coordinator::new(settings, segments, T0),
            agents,
            due: Vec::new(),
            seq: 0,
            program: VecDeque::new(),
            log: Vec::new(),
        }
    }

    fn actions(&mut self) {
        while let Some(action) = self.coordinator.poll_action() {
            match &action {
                Action::Call(call) => {
                    if let Some((t, answer)) =
                        self.agents[call.agent].answer(self.now, &call.request)
                    {
                        let (agent, id) = (call.agent, call.id);
                        let event = match answer {
                            Ok(answer) => Event::Answer { agent, id, answer },
                            Err(failure) => Event::Failed { agent, id, failure },
                        };
                        self.seq += 1;
                        self.due.push((t, self.seq, event));
                    }
                }
                Action::Ready => {
                    if let Some(next) = self.program.pop_front() {
                        self.log.push((self.now, action.clone()));
                        self.coordinator.handle(self.now, next);
                        continue;
                    }
                }
                _ => {}
            }
            self.log.push((self.now, action));
        }
    }

    /// Runs until nothing is due before `until`.
    pub(super) fn run(&mut self, until: u64) {
        loop {
            self.actions();
            let next_event = self.due.iter().map(|d| (d.0, d.1)).min();
            let timeout = self.coordinator.poll_timeout();
            let next = [next_event.map(|e| e.0), timeout]
                .into_iter()
                .flatten()
                .min();
            let Some(t) = next.filter(|&t| t <= until) else {
                return;
            };
            self.now = self.now.max(t);
            if let Some(key) = next_event.filter(|e| e.0 <= self.now) {
                let i = self
                    .due
                    .iter()
                    .position(|d| (d.0, d.1) == key)
                    .expect("due");
                let (_, _, event) = self.due.remove(i);
                self.coordinator.handle(self.now, event);
            } else {
                self.coordinator.handle_timeout(self.now);
            }
        }
    }

    /// The calls made, with their time: (time, agent, request).
    pub(super) fn calls(&self) -> Vec<(u64, usize, &Request)> {
        self.log
            .iter()
            .filter_map(|(t, a)| match a {
                Action::Call(c) => Some((*t, c.agent, &c.request)),
                _ => None,
            })
            .collect()
    }

    /// The actions other than calls and readiness.
    pub(super) fn outcomes(&self) -> Vec<&Action> {
        self.log
            .iter()
            .map(|(_, a)| a)
            .filter(|a| !matches!(a, Action::Call(_) | Action::Ready))
            .collect()
    }
}
