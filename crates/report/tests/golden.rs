//! The renderings of a constructed report, byte for byte. Rendering is deterministic, so these
//! pin the table's layout, the CSV columns and the JSON field names of schema version 1.
//! After an intended change: `UPFBENCH_BLESS=1 cargo test -p upfbench-stats --test golden`,
//! then review the diff of `testdata/`.

use std::path::PathBuf;

use upfbench_report::{
    Cause, ClockReport, ControlReport, DirectionReport, Family, FrameSize, KernelInterface,
    LatencyReport, LossReport, Nanos, Percentiles, PortFrames, PortReport, RejectKind, Rejected,
    Release, Report, RxQueues, StepReport, StreamSummary, ThroughputReport, TxSlip,
};
use upfbench_stats::{Direction, PortName};

fn throughput(packets: u64, frame: u64, secs: f64) -> ThroughputReport {
    let l2 = packets * frame;
    let l1 = packets * (frame + 24);
    ThroughputReport {
        packets,
        bytes_l2: l2,
        bytes_l1: l1,
        gbps_l2: l2 as f64 * 8.0 / secs / 1e9,
        gbps_l1: l1 as f64 * 8.0 / secs / 1e9,
        kpps: packets as f64 / secs / 1e3,
    }
}

fn direction(
    direction: Direction,
    frame: u64,
    sent: u64,
    lost: u64,
    latency: Option<LatencyReport>,
) -> DirectionReport {
    let received = sent - lost;
    DirectionReport {
        direction,
        streams: 4,
        tx: throughput(sent, frame, 10.0),
        rx: throughput(received, frame, 10.0),
        loss: LossReport {
            sent,
            unique: received,
            lost,
            loss_pct: lost as f64 * 100.0 / sent as f64,
            duplicates: 0,
            reordered: 12,
            late: 0,
        },
        latency,
        tx_slip: None,
        tester_lost: None,
    }
}

fn latency(base: u64, jitter: f64) -> LatencyReport {
    let ns = |n: u64| Nanos::from_ns(n);
    LatencyReport {
        percentiles: Percentiles {
            samples: 1_000_000,
            min: ns(base),
            p50: ns(base * 3 / 2),
            p90: ns(base * 2),
            p99: ns(base * 3),
            p99_9: Some(ns(base * 9)),
            p99_99: Some(ns(base * 20)),
            max: ns(base * 40),
        },
        avg_ns: base as f64 * 1.5 + 0.25,
        jitter_ns: Some(jitter),
        jitter_max_ns: Some(jitter * 2.0),
        negative: 0,
        over_range: 0,
    }
}

fn report() -> Report {
    let mut r = Report::new("0.1.0", 1_735_787_045_678);
    r.duration_s = 31.25;
    r.config.insert("upf".into(), "open5gs 2.7.7".into());
    r.config.insert("ues".into(), "4".into());
    small_payload_step(&mut r);
    small_payload_step_findings(&mut r);
    paced_step(&mut r);
    control(&mut r);
    clock(&mut r);
    r
}

/// The 10 B step: both directions with latency, ports, rejected frames and three streams.
fn small_payload_step(r: &mut Report) {
    r.steps.push(StepReport {
        label: "10 B".into(),
        payload_bytes: Some(10),
        duration_s: 10.0,
        tsc_hz: Some(2_793_436_118.0),
        directions: vec![
            direction(
                Direction::Uplink,
                52,
                14_880_952,
                1_234,
                Some(latency(8_500, 312.5)),
            ),
            direction(
                Direction::Downlink,
                52,
                14_880_952,
                0,
                Some(latency(7_900, 98.0)),
            ),
        ],
        rx_untagged: 3,
        rx_unknown_stream: 0,
        warnings: vec![],
        ports: vec![
            port("N3", 14_880_952, 14_879_718, 0),
            port("N6", 14_880_952, 14_880_952, 17),
        ],
        rx_rejected: [
            (Rejected::new(PortName::N3, RejectKind::NotGtpu), 2),
            (Rejected::new(PortName::N6, RejectKind::IcmpOther), 1),
        ]
        .into(),
        streams: vec![
            stream("ul-small", Direction::Uplink, 10, 7_440_476, 1_000),
            stream("ul-large", Direction::Uplink, 10, 7_440_476, 234),
            StreamSummary {
                family: Family::Ipv6,
                frame: Some(FrameSize::of_built(72)),
                ..stream("dl", Direction::Downlink, 10, 14_880_952, 0)
            },
        ],
        frames: vec![
            frames("N3", [14_879_718, 0, 0], [14_880_949, 0, 1, 2]),
            frames("N6", [14_880_950, 0, 2], [14_880_952, 0, 0, 0]),
        ],
        seconds: vec![],
        rx_queues: vec![],
        upf_faults: Vec::new(),
        handover: None,
        churn: None,
        qos: None,
        pairs: Vec::new(),
    });
}

/// What the 10 B step found: a TX slip, late losses, a kernel interface that lost frames and
/// lopsided RX queues.
fn small_payload_step_findings(r: &mut Report) {
    // The uplink senders fell behind: one of its two streams slipped twice.
    let slip = TxSlip {
        count: 2,
        slipped_us: 1_250.5,
        max_late_us: 4_000.25,
    };
    r.steps[0].directions[0].tx_slip = Some(slip);
    r.steps[0].streams[1].tx_slip = Some(slip);
    // 34 of the uplink's losses arrived after the reorder window, all in one stream.
    r.steps[0].directions[0].loss.late = 34;
    r.steps[0].streams[0].late = 34;
    // N3 rides on a kernel interface that sent 200 frames fewer than the PMD, and received 5
    // frames the PMD never delivered; N6 has none.
    let n3 = &r.steps[0].ports[0];
    let n3_kernel = KernelInterface::beside("n3", n3.ipackets + 5, n3.opackets - 200, n3);
    let warning = n3_kernel.warning(n3).expect("a loss");
    r.steps[0].ports[0].interface = Some(n3_kernel);
    r.steps[0].warnings.push(warning);
    r.steps[0].attribute_tester_losses();
    // Two workers: the NIC put nearly all of N3's frames on queue 0, N6's evenly.
    let n3_queues = RxQueues {
        port: PortName::N3,
        spread: "2 queues: RSS on the outer IP/UDP header".into(),
        frames: vec![998_000, 2_000],
        packets: vec![998_000, 2_000],
    };
    r.steps[0].warnings.extend(n3_queues.lopsided());
    r.steps[0].rx_queues.push(n3_queues);
    r.steps[0].rx_queues.push(RxQueues {
        port: PortName::N6,
        spread: "2 queues: RSS on the IP/UDP header (the UEs' addresses)".into(),
        frames: vec![500_112, 499_888],
        packets: vec![],
    });
}

/// The 1400 B step: uplink only, no latency, a warning and nothing else.
fn paced_step(r: &mut Report) {
    r.steps.push(StepReport {
        label: "1400 B, \"paced\"".into(),
        payload_bytes: Some(1400),
        duration_s: 10.0,
        tsc_hz: None,
        directions: vec![direction(Direction::Uplink, 1442, 812_744, 812_744, None)],
        rx_untagged: 0,
        rx_unknown_stream: 0,
        warnings: vec!["2 streams arrived on more than one RX core".into()],
        ports: vec![],
        rx_rejected: Default::default(),
        streams: vec![],
        frames: vec![],
        seconds: vec![],
        rx_queues: vec![],
        upf_faults: Vec::new(),
        handover: None,
        churn: None,
        qos: None,
        pairs: Vec::new(),
    });
}

/// 1,000 sessions over PFCP, two lost, the release not answered.
fn control(r: &mut Report) {
    r.control = Some(ControlReport {
        upf: "192.168.14.151:8805".into(),
        sessions: 1_000,
        established: 1_000,
        deleted: 998,
        establish_s: Some(0.125),
        established_per_s: Some(8_000.0),
        delete_s: Some(0.25),
        deleted_per_s: Some(3_992.0),
        churn_established: 0,
        churn_deleted: 0,
        establishment_latency: Some(Percentiles {
            samples: 1_000,
            min: Nanos::from_us(180),
            p50: Nanos::from_us(2_100),
            p90: Nanos::from_us(3_050),
            p99: Nanos::from_us(3_990),
            p99_9: None,
            p99_99: None,
            max: Nanos::from_us(3_001_000),
        }),
        deletion_latency: None,
        requests_sent: 2_002,
        retransmissions: 3,
        timeouts: 0,
        window_largest: 64,
        heartbeats_answered: 2,
        causes: [
            (Cause::REQUEST_ACCEPTED, 1_998),
            (Cause::SESSION_CONTEXT_NOT_FOUND, 2),
        ]
        .into(),
        lost_sessions: 2,
        release: Release::NotAnswered,
        upf_faults: Vec::new(),
    });
}

fn clock(r: &mut Report) {
    // The host of the finding: EAL rounded 2,793.436 MHz to 2,790 MHz.
    r.clock = Some(ClockReport {
        tsc_hz: 2_793_436_120.4,
        dpdk_tsc_hz: 2_790_000_000,
        dpdk_error_ppm: -1230.09,
        calibrated_over_s: 31.4,
        uncertainty_ppm: 0.0012,
    });
}

fn stream(name: &str, direction: Direction, payload: u32, sent: u64, lost: u64) -> StreamSummary {
    StreamSummary {
        name: name.into(),
        direction,
        payload_bytes: payload,
        family: Default::default(),
        frame: None,
        flows: 2,
        sent,
        received: sent - lost,
        lost,
        loss_pct: lost as f64 * 100.0 / sent as f64,
        duplicates: 0,
        reordered: 6,
        late: 0,
        jitter_ns: Some(250.5),
        tx_slip: None,
    }
}

/// Frames by kind: `tx` measured, warm-up, service; `rx` measured, unmeasured, service, rejected.
fn frames(name: &str, tx: [u64; 3], rx: [u64; 4]) -> PortFrames {
    PortFrames {
        tx_measured: tx[0],
        tx_warmup: tx[1],
        tx_service: tx[2],
        rx_measured: rx[0],
        rx_unmeasured: rx[1],
        rx_service: rx[2],
        rx_rejected: rx[3],
        ..PortFrames::zero(PortName::from_name(name).expect("N3 or N6"))
    }
}

fn port(name: &str, rx: u64, tx: u64, imissed: u64) -> PortReport {
    PortReport {
        name: PortName::from_name(name).expect("N3 or N6"),
        ipackets: rx,
        opackets: tx,
        ibytes: rx * 60,
        obytes: tx * 60,
        imissed,
        ierrors: 0,
        rx_nombuf: 0,
        oerrors: 0,
        interface: None,
    }
}

fn golden(name: &str, actual: &str) {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("testdata")
        .join(name);
    if std::env::var_os("UPFBENCH_BLESS").is_some() {
        std::fs::write(&path, actual).unwrap();
    }
    let expected = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("{}: {e} (bless with UPFBENCH_BLESS=1)", path.display()));
    assert!(
        expected == actual,
        "{name} differs from {}:\n--- expected\n{expected}\n--- actual\n{actual}",
        path.display()
    );
}

#[test]
fn table_matches_golden() {
    golden("report_table.txt", &report().to_table());
}

#[test]
fn csv_matches_golden() {
    golden("report.csv", &report().to_csv());
}

#[test]
fn port_and_control_csv_match_golden() {
    golden("ports.csv", &report().ports_csv());
    golden("control.csv", &report().control_csv());
}

#[test]
fn json_matches_golden_and_reads_back() {
    let r = report();
    golden("report.json", &r.to_json());
    let text = std::fs::read_to_string(
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("testdata/report.json"),
    )
    .unwrap();
    assert_eq!(Report::from_json(&text).unwrap(), r);
}
