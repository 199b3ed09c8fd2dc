//! Memory per flow, measured: the resident set grows by this much when one worker's receive and
//! transmit statistics are built for N flows (a flow is one stream's traffic of one UE; a run of
//! a million UEs both ways has two million), with the reorder window of the profile.
//!
//! `cargo run --release -p upfbench-generator --example flow_memory -- [FLOWS] [WINDOW]`
#![allow(clippy::print_stdout)]

use upfbench_stats::{Direction, RxConfig, RxStats, StreamSpec, TxStats};

fn rss_bytes() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").expect("/proc/self/status");
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.split_whitespace().next())
        .and_then(|kb| kb.parse::<u64>().ok())
        .map_or(0, |kb| kb * 1024)
}

fn main() {
    let mut args = std::env::args().skip(1);
    let flows: usize = args.next().map_or(2_000_000, |a| a.parse().expect("FLOWS"));
    let window: u32 = args.next().map_or(64, |a| a.parse().expect("WINDOW"));
    let specs: Vec<StreamSpec> = (0..flows)
        .map(|i| StreamSpec {
            direction: if i % 2 == 0 {
                Direction::Uplink
            } else {
                Direction::Downlink
            },
            first_seq: 0,
        })
        .collect();
    let config = RxConfig {
        reorder_window: window,
        ..RxConfig::default()
    };
    let before = rss_bytes();
    let (rx, _rx_handle) = RxStats::new(0, &specs, &config).expect("rx stats");
    let after_rx = rss_bytes();
    let (tx, _tx_handle) = TxStats::new(0, &specs);
    let after_tx = rss_bytes();
    let per = |bytes: u64| bytes as f64 / flows as f64;
    println!(
        "{flows} flows, reorder window {window}: RX stats {:.1} B/flow, TX stats {:.1} B/flow, \
         specs {} B/flow (RSS {:.0} MB in all)",
        per(after_rx - before),
        per(after_tx - after_rx),
        size_of::<StreamSpec>(),
        after_tx as f64 / 1e6
    );
    drop((rx, tx));
}
