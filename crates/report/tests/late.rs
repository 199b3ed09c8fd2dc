//! Packets that arrive after the reorder window: the sequence tracker counts each one lost and
//! late, and every place a loss is shown (the live line, the line a step ends with, the text
//! report) says how many of the lost were late, not only the JSON and the CSV.

use upfbench_report::{Report, StepReport};
use upfbench_stats::{Direction, LiveMeter, RunResult, RxConfig, RxStats, StreamSpec, TxStats};

const SENT: u32 = 1_000;
const WINDOW: u32 = 64;
/// Every tenth packet below 900 is held back 100 positions: further than the window.
const HELD_BACK: u32 = 100;
const FRAME: u32 = 128;

fn held(seq: u32) -> bool {
    seq % 10 == 5 && seq + HELD_BACK < SENT
}

/// The arrival order: each held packet comes right after the one `HELD_BACK` positions later.
fn arrivals() -> Vec<u32> {
    let mut order = Vec::new();
    for seq in 0..SENT {
        if !held(seq) {
            order.push(seq);
        }
        if seq >= HELD_BACK && held(seq - HELD_BACK) {
            order.push(seq - HELD_BACK);
        }
    }
    order
}

#[test]
fn late_packets_are_named_in_the_live_line_the_step_line_and_the_text_report() {
    let late = (0..SENT).filter(|&s| held(s)).count() as u64;
    assert_eq!(late, 90);
    let specs = [StreamSpec {
        direction: Direction::Uplink,
        first_seq: 0,
    }];
    let config = RxConfig {
        reorder_window: WINDOW,
        ..RxConfig::default()
    };
    let (mut tx, tx_handle) = TxStats::new(0, &specs);
    let (mut rx, rx_handle) = RxStats::new(0, &specs, &config).unwrap();
    tx.record_n(0, u64::from(SENT), FRAME);
    tx.publish(1);
    let order = arrivals();
    assert_eq!(order.len(), SENT as usize, "every packet arrives");
    for (i, &seq) in order.iter().enumerate() {
        let at = 1_000 * i as u64;
        rx.record(0, seq, at, at + 5_000, FRAME);
    }
    rx.publish(2_000_000);

    // The live line, from the workers' snapshots: every late packet already counted lost.
    let mut meter = LiveMeter::new(&config.latency).unwrap();
    meter.line(0, &[], &[]);
    let line = meter
        .line(
            1_000_000_000,
            &[tx_handle.snapshot()],
            &[rx_handle.snapshot()],
        )
        .to_string();
    let expected = format!(
        "lost {late} (9.000%; late {late}: arrived after the reorder window, counted lost)"
    );
    assert!(line.contains(&expected), "{line}");

    // The step's figures: all 1,000 received, 90 of them late and so 90 lost.
    let merged = RunResult::merge(
        &specs,
        &[tx.finish(3)],
        &[rx.finish(3_000_000)],
        &config.latency,
    )
    .unwrap();
    let step = StepReport::from_run("run", Some(100), 1_000_000_000, &merged);
    let d = &step.directions[0];
    assert_eq!(
        (d.loss.sent, d.rx.packets, d.loss.lost, d.loss.late),
        (1_000, 1_000, late, late)
    );
    assert_eq!(
        step.summary(),
        format!("run UL: sent 1000 received 1000 {expected} reordered 0 duplicates 0")
    );

    // The text report: a Late column, and the loss in words under the direction's table.
    let mut report = Report::new("0.1.0", 0);
    report.steps.push(step);
    let table = report.to_table();
    assert!(table.contains(&format!("  run: {expected}\n")), "{table}");
    let header = table
        .lines()
        .find(|l| l.starts_with("| Step "))
        .expect("a direction table");
    let row = table
        .lines()
        .find(|l| l.starts_with("| run "))
        .expect("the step's row");
    let cell = |line: &str, i: usize| line.split('|').nth(i).unwrap_or("").trim().to_owned();
    let late_column = (1..20)
        .find(|&i| cell(header, i) == "Late")
        .unwrap_or_else(|| panic!("no Late column: {header}"));
    assert_eq!(cell(row, late_column), late.to_string(), "{table}");
    assert_eq!(
        cell(row, late_column - 1),
        late.to_string(),
        "Lost: {table}"
    );
}
