//! A fake agent: fixed answers, a log of what it was asked, and a few answers that are
//! problems or slow, for the client's tests.
#![allow(dead_code)]

use std::sync::Mutex;
use std::time::Duration;

use upfbench_api::v1::{
    AgentInfo, AgentState, Armed, At, Health, LatencyHistogram, LatencySettings, PairInfo,
    PairResult, PortInfo, RunId, RunPhase, RunRequest, RunState, Segment, SegmentSummary, Status,
    StepRequest, StepResult,
};
use upfbench_api::{Problem, ProblemKind};
use upfbench_remote::{Agent, Answer};
use upfbench_stats::{LatencyConfig, LatencyRecorder};

/// The step whose arming takes [`SLOW`].
pub(crate) const SLOW_STEP: u32 = 99;
/// How long.
pub(crate) const SLOW: Duration = Duration::from_millis(1500);
/// The step that cannot start now (409).
pub(crate) const BUSY_STEP: u32 = 7;

#[derive(Debug, Default)]
pub(crate) struct Fake {
    calls: Mutex<Vec<String>>,
}

impl Fake {
    pub(crate) fn calls(&self) -> Vec<String> {
        self.calls.lock().unwrap().clone()
    }

    fn log(&self, call: String) {
        self.calls.lock().unwrap().push(call);
    }
}

pub(crate) fn port(device: &str, address: &str, peer: &str) -> PortInfo {
    PortInfo {
        device: device.to_owned(),
        address: address.to_owned(),
        peer: peer.to_owned(),
    }
}

pub(crate) fn latency() -> LatencyHistogram {
    let mut r = LatencyRecorder::new(&LatencyConfig::default()).unwrap();
    for v in [12_000, 15_000, 1_000_000] {
        r.record(v);
    }
    LatencyHistogram::of(&r).unwrap()
}

impl Agent for Fake {
    fn health(&self) -> Health {
        Health {
            state: AgentState::Idle,
        }
    }

    fn metrics(&self) -> Answer<String> {
        Ok("upfbench_agent_state{state=\"idle\"} 1\n".to_owned())
    }

    fn info(&self) -> Answer<AgentInfo> {
        self.log("info".to_owned());
        Ok(AgentInfo {
            name: "gnb-a".to_owned(),
            version: "0.1.0".to_owned(),
            api_version: 1,
            tsc_hz: 2.4e9,
            pairs: vec![PairInfo {
                name: "p0".to_owned(),
                weight: 1,
                workers: vec![1],
                n3: port("net_memif0", "192.168.13.131/24", "192.168.13.151"),
                n6: port("net_memif1", "192.168.16.152/24", "192.168.16.151"),
            }],
        })
    }

    fn load_segment(&self, segment: Segment) -> Answer<SegmentSummary> {
        self.log(format!("load_segment {}", segment.run));
        Ok(SegmentSummary {
            run: segment.run,
            ues: segment.ues,
            pairs: vec![],
        })
    }

    fn unload_segment(&self) -> Answer<()> {
        self.log("unload_segment".to_owned());
        Ok(())
    }

    fn arm_step(&self, step: StepRequest) -> Answer<Armed> {
        self.log(format!("arm_step {}", step.step));
        if step.step == SLOW_STEP {
            std::thread::sleep(SLOW);
        }
        Ok(Armed {
            step: step.step,
            armed: true,
            prepare_ms: 3,
        })
    }

    fn start_step(&self, step: u32, at: At) -> Answer<()> {
        self.log(format!("start_step {step} {}", at.at_unix_ns));
        if step == BUSY_STEP {
            return Err(Problem::new(ProblemKind::Conflict, "step 6 is running"));
        }
        Ok(())
    }

    fn stop_step(&self, step: u32, at: At) -> Answer<()> {
        self.log(format!("stop_step {step} {}", at.at_unix_ns));
        Ok(())
    }

    fn status(&self) -> Answer<Status> {
        self.log("status".to_owned());
        Ok(Status {
            state: AgentState::Idle,
            step: None,
            phase: None,
            live: None,
        })
    }

    fn step_result(&self, step: u32) -> Answer<StepResult> {
        self.log(format!("step_result {step}"));
        Ok(StepResult {
            step,
            agent: "gnb-a".to_owned(),
            latency: LatencySettings {
                max_ns: 10_000_000_000,
                significant_digits: 3,
            },
            start_late_ns: 120,
            duration_ns: 1_000_000_000,
            tsc_hz: 2.4e9,
            warnings: vec![],
            pairs: vec![PairResult {
                pair: "p0".to_owned(),
                directions: vec![upfbench_api::v1::DirectionFigures {
                    direction: upfbench_stats::Direction::Uplink,
                    tx: upfbench_stats::TrafficCounters {
                        packets: 3,
                        bytes_l2: 192,
                    },
                    rx: upfbench_stats::TrafficCounters {
                        packets: 3,
                        bytes_l2: 192,
                    },
                    seq: upfbench_stats::SeqCounters {
                        sent: 3,
                        received: 3,
                        unique: 3,
                        ..Default::default()
                    },
                    latency: latency(),
                }],
                streams: vec![],
                qfis: vec![],
                ports: vec![],
                frames: vec![],
                rx_rejected: Default::default(),
                rx_untagged: 0,
                rx_unknown_stream: 0,
                seconds: vec![],
            }],
        })
    }

    fn start_run(&self, run: RunRequest) -> Answer<RunId> {
        self.log(format!("start_run {:?}", run.mode));
        Ok(RunId {
            id: "run-1".to_owned(),
        })
    }

    fn run_state(&self, id: &str) -> Answer<RunState> {
        self.log(format!("run_state {id}"));
        Ok(RunState {
            id: id.to_owned(),
            phase: RunPhase::Running,
            step: Some(1),
            steps: Some(2),
            live: None,
            search: None,
            error: None,
        })
    }

    fn stop_run(&self, id: &str) -> Answer<()> {
        self.log(format!("stop_run {id}"));
        if id != "run-1" {
            return Err(Problem::new(ProblemKind::NotFound, format!("no run {id}")));
        }
        Ok(())
    }

    fn run_report(&self, id: &str) -> Answer<String> {
        self.log(format!("run_report {id}"));
        Ok("{\"schema_version\": 2}".to_owned())
    }

    fn run_report_html(&self, id: &str) -> Answer<String> {
        self.log(format!("run_report_html {id}"));
        Ok("<!doctype html><title>report</title>".to_owned())
    }

    fn run_events(&self, id: &str) -> Answer<String> {
        self.log(format!("run_events {id}"));
        Ok("{\"event\": \"run_start\"}\n".to_owned())
    }
}
