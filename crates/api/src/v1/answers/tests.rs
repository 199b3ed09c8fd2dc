use std::collections::BTreeMap;

use proptest::prelude::*;
use upfbench_report::{PortFrames, PortReport, StepPhase, TxSlip};
use upfbench_stats::{
    Direction, LatencyConfig, LatencyRecorder, PortName, SeqCounters, TrafficCounters,
};

use super::*;
use crate::v1::{LatencyHistogram, UeBlock};

fn histogram(samples: &[u32]) -> LatencyHistogram {
    let mut r = LatencyRecorder::new(&LatencyConfig::default()).unwrap();
    for &s in samples {
        r.record(i64::from(s));
    }
    LatencyHistogram::of(&r).unwrap()
}

fn seq(n: u64) -> SeqCounters {
    SeqCounters {
        sent: n,
        received: n / 2,
        unique: n / 2,
        lost: n - n / 2,
        duplicates: 1,
        reordered: 2,
        late: 3,
        sent_raised: 0,
    }
}

fn traffic(n: u64) -> TrafficCounters {
    TrafficCounters {
        packets: n,
        bytes_l2: n * 64,
    }
}

fn step_result(n: u64, samples: &[u32], jitter: Option<f64>) -> StepResult {
    let direction = DirectionFigures {
        direction: Direction::Uplink,
        tx: traffic(n),
        rx: traffic(n / 2),
        seq: seq(n),
        latency: histogram(samples),
    };
    let mut port = PortReport::zero(PortName::N3);
    port.opackets = n;
    StepResult {
        step: 2,
        agent: "gnb-b".to_owned(),
        latency: LatencySettings {
            max_ns: 10_000_000_000,
            significant_digits: 3,
        },
        start_late_ns: -40,
        duration_ns: 5_000_000_000,
        tsc_hz: 2_400_000_000.5,
        warnings: vec![],
        pairs: vec![PairResult {
            pair: "p0".to_owned(),
            directions: vec![direction],
            streams: vec![StreamFigures {
                stream: 0,
                name: "ul".to_owned(),
                direction: Direction::Uplink,
                flows: 3,
                seq: seq(n),
                jitter_mean_ns: jitter,
                jitter_flows: u32::from(jitter.is_some()) * 3,
                latency: histogram(samples),
                tx_slip: Some(TxSlip {
                    count: 1,
                    slipped_us: 0.25,
                    max_late_us: 3.5,
                }),
            }],
            qfis: vec![QfiFigures {
                qfi: 9,
                direction: Direction::Uplink,
                seq: seq(n),
                latency: histogram(samples),
            }],
            ports: vec![port, PortReport::zero(PortName::N6)],
            frames: vec![PortFrames {
                name: PortName::N3,
                tx_measured: n,
                tx_warmup: 10,
                tx_service: 2,
                rx_measured: 0,
                rx_unmeasured: 0,
                rx_service: 2,
                rx_rejected: 1,
                tx_probes: 0,
                rx_probes: 0,
            }],
            rx_rejected: BTreeMap::from([("N3 not_gtpu".to_owned(), 1)]),
            rx_untagged: 0,
            rx_unknown_stream: 0,
            seconds: vec![SecondFigures {
                index: 0,
                duration_ns: 1_000_000_000,
                phase: StepPhase::Measure,
                directions: vec![SecondDirection {
                    direction: Direction::Uplink,
                    tx: traffic(n),
                    rx: traffic(n),
                    lost: 0,
                    latency: histogram(samples),
                }],
            }],
        }],
    }
}

proptest! {
    #[test]
    fn a_step_result_round_trips_through_json(
        n in 0u64..1 << 40,
        samples in prop::collection::vec(any::<u32>(), 0..50),
        jitter in prop::option::of(0.0f64..1e9),
    ) {
        let r = step_result(n, &samples, jitter);
        let json = serde_json::to_string(&r).unwrap();
        let back: StepResult = serde_json::from_str(&json).unwrap();
        prop_assert_eq!(back, r);
    }

    #[test]
    fn a_status_round_trips_through_json(
        state in prop::sample::select(vec![AgentState::Idle, AgentState::Loaded, AgentState::Armed, AgentState::Running, AgentState::Collected]),
        step in prop::option::of(1u32..100),
        lost in any::<u64>(),
        p99 in prop::option::of(any::<u64>()),
        kpps in 0.0f64..1e6,
    ) {
        let d = LiveDirection {
            direction: Direction::Downlink,
            tx_packets: lost / 2,
            rx_packets: lost / 3,
            tx_gbps_l1: kpps / 1e3,
            tx_kpps: kpps,
            rx_gbps_l1: kpps / 2e3,
            rx_kpps: kpps / 2.0,
            lost,
            lost_total: lost,
            lat_p50_ns: p99.map(|p| p / 2),
            lat_p99_ns: p99,
            lat_max_ns: p99,
        };
        let s = Status {
            state,
            step,
            phase: step.map(|_| StepPhase::Warmup),
            live: Some(LiveFigures {
                elapsed_ns: 1,
                interval_ns: 2,
                total: vec![d.clone()],
                pairs: vec![LivePair { pair: "a".to_owned(), directions: vec![d] }],
            }),
        };
        let back: Status = serde_json::from_str(&serde_json::to_string(&s).unwrap()).unwrap();
        prop_assert_eq!(back, s);
    }
}

#[test]
fn the_other_answers_round_trip_and_read_as_documented() {
    let info = AgentInfo {
        name: "gnb-a".to_owned(),
        version: "0.1.0".to_owned(),
        api_version: 1,
        tsc_hz: 2.4e9,
        pairs: vec![PairInfo {
            name: "p0".to_owned(),
            weight: 1,
            workers: vec![1, 2],
            n3: PortInfo {
                device: "net_memif0".to_owned(),
                address: "192.168.13.131/24".to_owned(),
                peer: "192.168.13.151".to_owned(),
            },
            n6: PortInfo {
                device: "net_memif1".to_owned(),
                address: "192.168.16.152/24".to_owned(),
                peer: "192.168.16.151".to_owned(),
            },
        }],
    };
    let back: AgentInfo = serde_json::from_str(&serde_json::to_string(&info).unwrap()).unwrap();
    assert_eq!(back, info);
    let health = serde_json::to_value(Health {
        state: AgentState::Idle,
    })
    .unwrap();
    assert_eq!(health, serde_json::json!({"state": "idle"}));
    let armed = serde_json::to_value(Armed {
        step: 1,
        armed: true,
        prepare_ms: 12,
    })
    .unwrap();
    assert_eq!(
        armed,
        serde_json::json!({"step": 1, "armed": true, "prepare_ms": 12})
    );
    let summary = SegmentSummary {
        run: "r".to_owned(),
        ues: UeBlock {
            first: 334,
            count: 666,
        },
        pairs: vec![PairShare {
            pair: "p0".to_owned(),
            ues: UeBlock {
                first: 334,
                count: 666,
            },
            streams: vec![StreamShare {
                name: "ul".to_owned(),
                direction: Direction::Uplink,
                ues: 666,
                rate_pps: 66_600.0,
            }],
        }],
    };
    let back: SegmentSummary =
        serde_json::from_str(&serde_json::to_string(&summary).unwrap()).unwrap();
    assert_eq!(back, summary);
    let run = RunState {
        id: "x".to_owned(),
        phase: RunPhase::Running,
        step: Some(1),
        steps: Some(3),
        live: None,
        search: Some(SearchProgress {
            trials: 4,
            goal: "NDR".to_owned(),
            lower_pps: Some(1e6),
            upper_pps: None,
        }),
        error: None,
    };
    let v = serde_json::to_value(&run).unwrap();
    assert_eq!(v["phase"], "running");
    assert!(v.get("live").is_none() && v["search"].get("upper_pps").is_none());
    assert_eq!(serde_json::from_value::<RunState>(v).unwrap(), run);
}
