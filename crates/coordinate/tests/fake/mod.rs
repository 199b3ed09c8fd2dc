//! A fake agent behind `crates/remote`'s real server on loopback: it loads a segment, arms,
//! starts and stops steps on the wall clock as an agent does, and hands real [`StepResult`]s
//! whose figures are known: `per_ue` packets per UE of its block and unit of load over a
//! whole step (fewer if stopped early), one lost, and a latency sample per UE
//! ([`sample_ns`]).
#![allow(dead_code)]

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::sync::oneshot;
use upfbench_api::v1::{
    AgentInfo, AgentState, Armed, At, DirectionFigures, Health, LatencyHistogram, PairInfo,
    PairResult, PortInfo, RunId, RunRequest, RunState, SecondDirection, SecondFigures, Segment,
    SegmentSummary, Status, StepRequest, StepResult, StreamFigures,
};
use upfbench_api::{Problem, ProblemKind};
use upfbench_cluster::merge::settings;
use upfbench_coordinate::call::now_ns;
use upfbench_remote::{Agent, Answer, Server, ServerConfig};
use upfbench_report::StepPhase;
use upfbench_stats::{Direction, LatencyConfig, LatencyRecorder, SeqCounters, TrafficCounters};

const MS: u64 = 1_000_000;

/// The latency sample of global UE `ue`.
pub(crate) fn sample_ns(ue: u32) -> i64 {
    10_000 + i64::from(ue) * 37
}

#[derive(Debug, Default)]
struct State {
    ues: Option<(u32, u32)>,
    step: Option<StepRequest>,
    start_at: Option<u64>,
    stop_at: Option<u64>,
}

/// A fake agent.
#[derive(Debug)]
pub(crate) struct Fake {
    name: String,
    per_ue: u64,
    /// With a cap: `per_ue` is packets a second, and what it sends over `cap` pps is lost.
    cap_pps: Option<f64>,
    /// Every segment it was given, for a test that looks.
    segments: Arc<Mutex<Vec<Segment>>>,
    /// How many times its segment was unloaded.
    unloads: Arc<std::sync::atomic::AtomicUsize>,
    latency: LatencyConfig,
    state: Mutex<State>,
}

impl Fake {
    pub(crate) fn new(name: &str, per_ue: u64) -> Fake {
        Fake {
            name: name.to_owned(),
            per_ue,
            cap_pps: None,
            segments: Arc::default(),
            unloads: Arc::default(),
            latency: LatencyConfig::default(),
            state: Mutex::new(State::default()),
        }
    }

    /// Its histograms of `latency` (a profile's), not the default's.
    pub(crate) fn recording(mut self, latency: LatencyConfig) -> Fake {
        self.latency = latency;
        self
    }

    /// Its segment's unloads, counted in `count`.
    pub(crate) fn counting_unloads(mut self, count: Arc<std::sync::atomic::AtomicUsize>) -> Fake {
        self.unloads = count;
        self
    }

    /// Every segment it is given, kept in `log`.
    pub(crate) fn logging(mut self, log: Arc<Mutex<Vec<Segment>>>) -> Fake {
        self.segments = log;
        self
    }

    /// A UPF behind it that forwards `cap_pps` of its packets a second and loses the rest; it
    /// sends `per_ue` packets a UE a second at load 1.
    pub(crate) fn capped(mut self, cap_pps: f64) -> Fake {
        self.cap_pps = Some(cap_pps);
        self
    }

    /// When its step ends: its planned end, or the stop asked for.
    fn end(s: &State) -> Option<u64> {
        let step = s.step.as_ref()?;
        let planned = s.start_at? + (step.warmup_ms + step.duration_ms) * MS;
        Some(s.stop_at.map_or(planned, |t| t.min(planned)))
    }

    /// Packets sent and lost in its step so far.
    fn packets(&self, s: &State) -> (u64, u64) {
        let step = s.step.as_ref().expect("a step");
        let (_, count) = s.ues.expect("a segment");
        let start = s.start_at.expect("started");
        let planned = (step.warmup_ms + step.duration_ms) * MS;
        let ran = Self::end(s).expect("an end") - start;
        let seconds = if self.cap_pps.is_some() {
            step.duration_ms as f64 / 1e3
        } else {
            1.0
        };
        let full = (f64::from(count) * self.per_ue as f64 * step.load * seconds).round() as u64;
        let sent = full * ran / planned;
        let lost = self.cap_pps.map_or(1, |cap| {
            sent.saturating_sub((cap * ran as f64 / 1e9).round() as u64)
        });
        (sent, lost)
    }

    fn result(&self, s: &State) -> StepResult {
        let step = s.step.as_ref().expect("a step");
        let (first, count) = s.ues.expect("a segment");
        let (sent, lost) = self.packets(s);
        let mut r = LatencyRecorder::new(&self.latency).expect("config");
        for ue in first..first + count {
            r.record(sample_ns(ue));
        }
        let latency = LatencyHistogram::of(&r).expect("encodes");
        let seq = SeqCounters {
            sent,
            received: sent - lost,
            unique: sent - lost,
            lost,
            ..Default::default()
        };
        let tx = TrafficCounters {
            packets: sent,
            bytes_l2: sent * 100,
        };
        let rx = TrafficCounters {
            packets: sent - lost,
            bytes_l2: (sent - lost) * 100,
        };
        StepResult {
            step: step.step,
            agent: self.name.clone(),
            latency: settings(&self.latency),
            start_late_ns: 1_000,
            duration_ns: step.duration_ms * MS,
            tsc_hz: 2e9,
            warnings: vec![],
            pairs: vec![PairResult {
                pair: "p0".to_owned(),
                directions: vec![DirectionFigures {
                    direction: Direction::Uplink,
                    tx,
                    rx,
                    seq,
                    latency: latency.clone(),
                }],
                streams: vec![StreamFigures {
                    stream: 0,
                    name: "ul".to_owned(),
                    direction: Direction::Uplink,
                    flows: count,
                    seq,
                    jitter_mean_ns: None,
                    jitter_flows: 0,
                    latency: latency.clone(),
                    tx_slip: None,
                }],
                qfis: vec![],
                ports: vec![],
                frames: vec![],
                rx_rejected: BTreeMap::new(),
                rx_untagged: 0,
                rx_unknown_stream: 0,
                // One second holding the whole step (the merge aligns seconds by index).
                seconds: vec![SecondFigures {
                    index: 0,
                    duration_ns: step.duration_ms * MS,
                    phase: StepPhase::Measure,
                    directions: vec![SecondDirection {
                        direction: Direction::Uplink,
                        tx,
                        rx,
                        lost,
                        latency: latency.clone(),
                    }],
                }],
            }],
        }
    }
}

fn not_here() -> Problem {
    Problem::new(ProblemKind::NotFound, "the fake runs no whole runs")
}

impl Agent for Fake {
    fn health(&self) -> Health {
        Health {
            state: AgentState::Idle,
        }
    }
    fn metrics(&self) -> Answer<String> {
        Ok(String::new())
    }
    fn info(&self) -> Answer<AgentInfo> {
        // Agent i's N3 is 10.3.0.(i+1), named by the per_ue it was given.
        Ok(AgentInfo {
            name: self.name.clone(),
            version: "0.1.0".to_owned(),
            api_version: 1,
            tsc_hz: 2e9,
            pairs: vec![PairInfo {
                name: "p0".to_owned(),
                weight: 1,
                workers: vec![1],
                n3: PortInfo {
                    device: "net_memif0".to_owned(),
                    address: format!("10.3.0.{}/24", self.per_ue),
                    peer: "10.3.0.254".to_owned(),
                },
                n6: PortInfo {
                    device: "net_memif1".to_owned(),
                    address: "10.6.0.1/24".to_owned(),
                    peer: "10.6.0.254".to_owned(),
                },
            }],
        })
    }
    fn load_segment(&self, segment: Segment) -> Answer<SegmentSummary> {
        let mut s = self.state.lock().unwrap();
        s.ues = Some((segment.ues.first, segment.ues.count));
        self.segments.lock().unwrap().push(segment.clone());
        Ok(SegmentSummary {
            run: segment.run,
            ues: segment.ues,
            pairs: vec![],
        })
    }
    fn unload_segment(&self) -> Answer<()> {
        self.state.lock().unwrap().ues = None;
        self.unloads
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        Ok(())
    }
    fn arm_step(&self, step: StepRequest) -> Answer<Armed> {
        let mut s = self.state.lock().unwrap();
        let n = step.step;
        s.step = Some(step);
        s.start_at = None;
        s.stop_at = None;
        Ok(Armed {
            step: n,
            armed: true,
            prepare_ms: 3,
        })
    }
    fn start_step(&self, _step: u32, at: At) -> Answer<()> {
        self.state.lock().unwrap().start_at = Some(at.at_unix_ns);
        Ok(())
    }
    fn stop_step(&self, _step: u32, at: At) -> Answer<()> {
        self.state.lock().unwrap().stop_at = Some(at.at_unix_ns);
        Ok(())
    }
    fn status(&self) -> Answer<Status> {
        let s = self.state.lock().unwrap();
        let collected = Self::end(&s).is_some_and(|e| now_ns() >= e);
        Ok(Status {
            state: if collected {
                AgentState::Collected
            } else if s.start_at.is_some() {
                AgentState::Running
            } else {
                AgentState::Armed
            },
            step: s.step.as_ref().map(|st| st.step),
            phase: None,
            live: None,
        })
    }
    fn step_result(&self, step: u32) -> Answer<StepResult> {
        let s = self.state.lock().unwrap();
        match &s.step {
            Some(st) if st.step == step && Self::end(&s).is_some_and(|e| now_ns() >= e) => {
                Ok(self.result(&s))
            }
            _ => Err(Problem::new(
                ProblemKind::Conflict,
                format!("step {step} not collected"),
            )),
        }
    }
    fn start_run(&self, _run: RunRequest) -> Answer<RunId> {
        Err(not_here())
    }
    fn run_state(&self, _id: &str) -> Answer<RunState> {
        Err(not_here())
    }
    fn stop_run(&self, _id: &str) -> Answer<()> {
        Err(not_here())
    }
    fn run_report(&self, _id: &str) -> Answer<String> {
        Err(not_here())
    }
    fn run_report_html(&self, _id: &str) -> Answer<String> {
        Err(not_here())
    }
    fn run_events(&self, _id: &str) -> Answer<String> {
        Err(not_here())
    }
}

/// A fake agent served on loopback: its URL, and a switch that shuts its server down (its
/// port then refuses connections).
pub(crate) struct Served {
    pub url: String,
    pub kill: Option<oneshot::Sender<()>>,
}

pub(crate) async fn serve(fake: Fake) -> Served {
    let server = Server::bind(ServerConfig {
        listen: "127.0.0.1:0".parse().expect("an address"),
        ..ServerConfig::loopback()
    })
    .await
    .expect("binds");
    let url = format!("http://{}", server.local_addr().expect("bound"));
    let (kill, killed) = oneshot::channel::<()>();
    let agent: Arc<dyn Agent> = Arc::new(fake);
    tokio::spawn(server.serve(agent, async move {
        let _ = killed.await;
    }));
    Served {
        url,
        kill: Some(kill),
    }
}

/// Waits `ms`.
pub(crate) async fn wait_ms(ms: u64) {
    tokio::time::sleep(Duration::from_millis(ms)).await;
}
