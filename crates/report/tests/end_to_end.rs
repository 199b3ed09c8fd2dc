//! A whole simulated sweep through the public API: TX and RX workers on two cores each, the
//! merge, the report and its three renderings, every figure checked against the simulated
//! packets themselves.

use upfbench_report::{CSV_COLUMNS, ReportError};
use upfbench_report::{Nanos, Report, StepReport};
use upfbench_stats::{Direction, RunResult, RxConfig, RxStats, TxStats};
use upfbench_testkit::sim::{Impairment, Simulation, simulate};

const PAYLOADS: [u32; 3] = [10, 300, 1400];
const DURATION_NS: u64 = 2_000_000_000;

/// Ether 14 + IPv4 20 + UDP 8 + payload: the frame both sides see in this simulation.
fn frame(payload: u32) -> u32 {
    42 + payload
}

fn run_step(sim: &Simulation, config: &RxConfig) -> RunResult {
    let (mut tx0, _) = TxStats::new(0, &sim.specs);
    let (mut tx1, _) = TxStats::new(1, &sim.specs);
    for (s, &n) in sim.sent.iter().enumerate() {
        let t = if s % 2 == 0 { &mut tx0 } else { &mut tx1 };
        t.record_n(s as u32, n, sim.frame_len[s]);
    }
    let (mut rx0, _) = RxStats::new(0, &sim.specs, config).unwrap();
    let (mut rx1, _) = RxStats::new(1, &sim.specs, config).unwrap();
    for (i, p) in sim.arrivals.iter().enumerate() {
        let r = if p.stream % 2 == 0 {
            &mut rx0
        } else {
            &mut rx1
        };
        r.record(p.stream, p.seq, p.tx_ns, p.rx_ns, p.frame_len);
        if i % 32 == 0 {
            r.publish(p.rx_ns);
        }
    }
    rx0.record_untagged();
    RunResult::merge(
        &sim.specs,
        &[tx0.finish(0), tx1.finish(0)],
        &[rx0.finish(0), rx1.finish(0)],
        &config.latency,
    )
    .unwrap()
}

fn sweep() -> (Report, Vec<Simulation>) {
    let config = RxConfig::default();
    let mut report = Report::new("0.1.0", 1_735_787_045_678);
    report.duration_s = 6.5;
    report.config.insert("upf".into(), "reflector".into());
    let mut sims = Vec::new();
    for (i, payload) in PAYLOADS.into_iter().enumerate() {
        let imp = Impairment {
            drop_per_mille: 10 * i as u64,
            dup_per_mille: 5,
            reorder_per_mille: 30,
            max_displacement: 20,
        };
        let sim = simulate(100 + i as u64, 8, 3_000, imp, |_| frame(payload));
        let run = run_step(&sim, &config);
        report.steps.push(StepReport::from_run(
            format!("{payload} B"),
            Some(payload),
            DURATION_NS,
            &run,
        ));
        sims.push(sim);
    }
    (report, sims)
}

#[test]
fn report_figures_are_the_simulated_ones() {
    let (report, sims) = sweep();
    assert_eq!(report.steps.len(), 3);
    for (step, sim) in report.steps.iter().zip(&sims) {
        for d in &step.directions {
            let ids: Vec<usize> = (0..sim.specs.len())
                .filter(|&s| sim.specs[s].direction == d.direction)
                .collect();
            let sent: u64 = ids.iter().map(|&s| sim.sent[s]).sum();
            let delivered: u64 = ids.iter().map(|&s| sim.delivered[s]).sum();
            let arrivals: Vec<_> = sim
                .arrivals
                .iter()
                .filter(|p| sim.specs[p.stream as usize].direction == d.direction)
                .collect();
            let len = u64::from(sim.frame_len[ids[0]]);
            // On the wire: the FCS, the frame padded to 64 bytes; 20 more bytes a frame at L1.
            let wire = (len + 4).max(64);

            assert_eq!(d.streams as usize, ids.len());
            assert_eq!(d.tx.packets, sent);
            assert_eq!(d.tx.bytes_l2, sent * wire);
            assert_eq!(d.tx.bytes_l1, sent * (wire + 20));
            let gbps = (sent * (wire + 20)) as f64 * 8.0 / DURATION_NS as f64;
            assert!((d.tx.gbps_l1 - gbps).abs() < 1e-12);
            assert!((d.tx.kpps - sent as f64 / 2.0 / 1e3).abs() < 1e-9);
            assert_eq!(d.rx.packets, arrivals.len() as u64);

            // Displacements (at most 20 slots) stay inside the 1024 window: loss is exact.
            assert_eq!(d.loss.late, 0);
            assert_eq!(d.loss.sent, sent);
            assert_eq!(d.loss.lost, sent - delivered);
            assert_eq!(d.loss.unique, delivered);
            assert_eq!(d.loss.duplicates, arrivals.len() as u64 - delivered);
            let pct = (sent - delivered) as f64 * 100.0 / sent as f64;
            assert!((d.loss.loss_pct - pct).abs() < 1e-12);

            let mut lat: Vec<u64> = arrivals.iter().map(|p| p.rx_ns - p.tx_ns).collect();
            lat.sort_unstable();
            let l = d.latency.as_ref().unwrap();
            let p = &l.percentiles;
            let ns = |n: Nanos| n.0 as u64;
            assert_eq!(p.samples, lat.len() as u64);
            assert_eq!(ns(p.min), lat[0]);
            assert_eq!(ns(p.max), *lat.last().unwrap());
            let avg = lat.iter().sum::<u64>() as f64 / lat.len() as f64;
            assert!((l.avg_ns - avg).abs() < 1e-6);
            let p99_9 = ns(p.p99_9.expect("the data plane's p99.9"));
            for (q, got) in [(0.5, ns(p.p50)), (0.99, ns(p.p99)), (0.999, p99_9)] {
                let want = lat[((q * lat.len() as f64).ceil() as usize).max(1) - 1];
                assert!(
                    got >= want && got - want <= want / 1000,
                    "q {q}: {got} vs {want}"
                );
            }
            assert!(l.jitter_ns.unwrap() > 0.0);
            assert!(l.jitter_max_ns.unwrap() >= l.jitter_ns.unwrap());
        }
    }
}

#[test]
fn json_round_trips_and_checks_the_schema_version() {
    let (report, _) = sweep();
    let json = report.to_json();
    assert_eq!(Report::from_json(&json).unwrap(), report);
    assert!(json.contains("\"schema_version\": 3"));
    assert!(json.contains("\"started\": \"2025-01-02T03:04:05.678Z\""));

    let newer = json.replacen("\"schema_version\": 3", "\"schema_version\": 4", 1);
    assert!(matches!(
        Report::from_json(&newer),
        Err(ReportError::UnsupportedSchema {
            found: 4,
            supported: 3
        })
    ));
    let none = json.replacen("\"schema_version\": 3,", "", 1);
    assert!(matches!(
        Report::from_json(&none),
        Err(ReportError::MissingSchemaVersion)
    ));
    assert!(matches!(
        Report::from_json("{\"schema_version\": 3}"),
        Err(ReportError::Json(_))
    ));
    assert!(matches!(
        Report::from_json("not json"),
        Err(ReportError::Json(_))
    ));
}

#[test]
fn csv_rows_carry_the_report_values() {
    let (report, _) = sweep();
    let csv = report.to_csv();
    let mut lines = csv.lines();
    let header: Vec<&str> = lines.next().unwrap().split(',').collect();
    assert_eq!(header, CSV_COLUMNS);
    let col = |name: &str| header.iter().position(|h| *h == name).unwrap();
    let rows: Vec<Vec<&str>> = lines.map(|l| l.split(',').collect()).collect();
    let flat: Vec<_> = report
        .steps
        .iter()
        .flat_map(|s| s.directions.iter().map(move |d| (s, d)))
        .collect();
    assert_eq!(rows.len(), flat.len());
    for (row, (step, d)) in rows.iter().zip(flat) {
        assert_eq!(row.len(), CSV_COLUMNS.len());
        assert_eq!(row[col("step")], step.label);
        assert_eq!(row[col("direction")], d.direction.name());
        assert_eq!(row[col("tx_packets")].parse::<u64>().unwrap(), d.tx.packets);
        assert_eq!(
            row[col("rx_bytes_l1")].parse::<u64>().unwrap(),
            d.rx.bytes_l1
        );
        assert_eq!(row[col("lost")].parse::<u64>().unwrap(), d.loss.lost);
        let l = d.latency.as_ref().unwrap();
        assert_eq!(
            row[col("lat_p99_ns")].parse::<i64>().unwrap(),
            l.percentiles.p99.0
        );
        let g: f64 = row[col("rx_gbps_l1")].parse().unwrap();
        assert!((g - d.rx.gbps_l1).abs() < 1e-6);
    }
}

#[test]
fn table_has_a_table_per_direction_and_a_comparison_row_per_payload() {
    let (report, _) = sweep();
    let table = report.to_table();
    // Each table starts after its title line; rows are the lines starting with "| " that are
    // not the header.
    let section = |title: &str| -> Vec<Vec<String>> {
        let start = table
            .find(title)
            .unwrap_or_else(|| panic!("no {title} in\n{table}"));
        table[start..]
            .lines()
            .skip(2)
            .take_while(|l| l.starts_with('|'))
            .skip(2)
            .map(|l| l.split('|').map(|c| c.trim().to_owned()).collect())
            .collect()
    };
    for dir in Direction::ALL {
        let title = match dir {
            Direction::Uplink => "Uplink:",
            Direction::Downlink => "Downlink:",
        };
        let rows = section(title);
        assert_eq!(rows.len(), 3, "{table}");
        for (cells, step) in rows.iter().zip(&report.steps) {
            let d = step.directions.iter().find(|d| d.direction == dir).unwrap();
            assert_eq!(cells[1], step.label);
            assert_eq!(cells[2], step.payload_bytes.unwrap().to_string());
            assert_eq!(cells[3], format!("{:.3}", d.tx.gbps_l1));
            assert_eq!(cells[7], format!("{:.3}", d.loss.loss_pct));
            let l = d.latency.as_ref().unwrap();
            assert_eq!(cells[8], format!("{:.2}", l.percentiles.min.us()));
            assert_eq!(cells[15], d.loss.lost.to_string());
            assert_eq!(cells[16], d.loss.late.to_string());
            assert_eq!(cells[17], d.loss.duplicates.to_string());
            assert_eq!(cells[18], d.loss.reordered.to_string());
        }
    }
    let comparison = section("Comparison:");
    assert_eq!(comparison.len(), 3, "{table}");
    for (cells, step) in comparison.iter().zip(&report.steps) {
        assert_eq!(cells[1], step.payload_bytes.unwrap().to_string());
        let ul = &step.directions[0];
        let dl = &step.directions[1];
        assert_eq!(ul.direction, Direction::Uplink);
        assert_eq!(cells[2], format!("{:.3}", ul.tx.gbps_l1));
        assert_eq!(cells[6], format!("{:.3}", ul.loss.loss_pct));
        assert_eq!(cells[8], format!("{:.3}", dl.tx.gbps_l1));
        assert_eq!(cells[10], format!("{:.1}", dl.tx.kpps));
    }
    // Within one table all lines have the same width: the tables are aligned.
    for block in table.split("\n\n") {
        let widths: Vec<usize> = block
            .lines()
            .filter(|l| l.starts_with('|'))
            .map(|l| l.chars().count())
            .collect();
        assert!(widths.windows(2).all(|w| w[0] == w[1]), "{block}");
    }
    // Untagged packets are counted, not warned about; nothing else was inexact.
    assert!(!table.contains("warning:"), "{table}");
    assert!(
        report
            .steps
            .iter()
            .all(|s| s.rx_untagged == 1 && s.rx_unknown_stream == 0)
    );
    assert!(table.contains("10 B: untagged 1"), "{table}");
}

#[test]
fn a_stream_summary_over_all_flows_of_a_direction_is_the_directions_accounting() {
    use upfbench_report::StreamSummary;
    let sim = simulate(
        77,
        8,
        3_000,
        Impairment {
            drop_per_mille: 20,
            dup_per_mille: 5,
            reorder_per_mille: 30,
            max_displacement: 20,
        },
        |_| frame(10),
    );
    let run = run_step(&sim, &RxConfig::default());
    for d in Direction::ALL {
        let flows: Vec<_> = run
            .streams
            .iter()
            .filter(|s| s.direction == d)
            .cloned()
            .collect();
        if flows.is_empty() {
            continue;
        }
        let s = StreamSummary::from_flows("all", d, 10, &flows);
        let r = &run.directions[d.index()];
        assert_eq!(s.flows, r.streams);
        assert_eq!(
            (s.sent, s.lost, s.duplicates, s.reordered, s.late),
            (
                r.seq.sent,
                r.seq.lost,
                r.seq.duplicates,
                r.seq.reordered,
                r.seq.late
            )
        );
        assert!(s.lost > 0 && s.duplicates > 0 && s.reordered > 0, "{s:?}");
    }
}
