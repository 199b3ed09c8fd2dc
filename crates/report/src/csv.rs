//! CSV: one header row, then one row per step and direction with every figure of the report
//! (raw counts and derived rates; latency in ns; how far TX fell behind its schedule, in us).
//! Each file is a [`Table`] rendered by [`Table::to_csv`] (fields quoted per RFC 4180 when
//! needed).

use super::model::{DirectionReport, Report, StepReport};
use super::rows::{Cell, Column, Table};
use super::slip::TxSlip;

/// The header row's fields, in order. `tx_slip_*` are the direction's TX schedule slips
/// ([`TxSlip`](super::TxSlip)): times its senders fell behind, how late its last packet was
/// due at the end and the most a sender was ever late (us); 0 when they never fell behind.
/// `tester_lost` is the part of the loss the tester's own kernel interfaces account for
/// ([`DirectionReport::tester_lost`]), empty when its ports have none.
pub const CSV_COLUMNS: [&str; 41] = [
    "step",
    "payload_bytes",
    "duration_s",
    "direction",
    "streams",
    "tx_packets",
    "tx_bytes_l2",
    "tx_bytes_l1",
    "tx_gbps_l2",
    "tx_gbps_l1",
    "tx_kpps",
    "rx_packets",
    "rx_bytes_l2",
    "rx_bytes_l1",
    "rx_gbps_l2",
    "rx_gbps_l1",
    "rx_kpps",
    "sent",
    "unique",
    "lost",
    "loss_pct",
    "duplicates",
    "reordered",
    "late",
    "lat_samples",
    "lat_min_ns",
    "lat_avg_ns",
    "lat_max_ns",
    "lat_p50_ns",
    "lat_p90_ns",
    "lat_p99_ns",
    "lat_p99_9_ns",
    "lat_p99_99_ns",
    "jitter_ns",
    "jitter_max_ns",
    "lat_negative",
    "lat_over_range",
    "tx_slip_count",
    "tx_slipped_us",
    "tx_max_late_us",
    "tester_lost",
];

/// A table of `columns` whose rows are `rows`' plain fields.
fn table(columns: &[&str], rows: impl IntoIterator<Item = Vec<String>>) -> Table {
    let mut t = Table::new(columns.iter().map(|c| Column::right(*c)).collect());
    for r in rows {
        t.push(r.into_iter().map(Cell::text).collect());
    }
    t
}

fn opt<T: ToString>(v: Option<T>) -> String {
    v.map_or_else(String::new, |x| x.to_string())
}

fn row(s: &StepReport, d: &DirectionReport) -> Vec<String> {
    let l = d.latency.as_ref();
    let p = l.map(|l| &l.percentiles);
    // No slip recorded: the senders kept to their schedule.
    let slip = d.tx_slip.unwrap_or(TxSlip {
        count: 0,
        slipped_us: 0.0,
        max_late_us: 0.0,
    });
    vec![
        s.label.clone(),
        opt(s.payload_bytes),
        format!("{:.6}", s.duration_s),
        d.direction.name().to_owned(),
        d.streams.to_string(),
        d.tx.packets.to_string(),
        d.tx.bytes_l2.to_string(),
        d.tx.bytes_l1.to_string(),
        format!("{:.6}", d.tx.gbps_l2),
        format!("{:.6}", d.tx.gbps_l1),
        format!("{:.3}", d.tx.kpps),
        d.rx.packets.to_string(),
        d.rx.bytes_l2.to_string(),
        d.rx.bytes_l1.to_string(),
        format!("{:.6}", d.rx.gbps_l2),
        format!("{:.6}", d.rx.gbps_l1),
        format!("{:.3}", d.rx.kpps),
        d.loss.sent.to_string(),
        d.loss.unique.to_string(),
        d.loss.lost.to_string(),
        format!("{:.6}", d.loss.loss_pct),
        d.loss.duplicates.to_string(),
        d.loss.reordered.to_string(),
        d.loss.late.to_string(),
        opt(p.map(|p| p.samples)),
        opt(p.map(|p| p.min.0)),
        opt(l.map(|l| format!("{:.1}", l.avg_ns))),
        opt(p.map(|p| p.max.0)),
        opt(p.map(|p| p.p50.0)),
        opt(p.map(|p| p.p90.0)),
        opt(p.map(|p| p.p99.0)),
        opt(p.and_then(|p| p.p99_9).map(|n| n.0)),
        opt(p.and_then(|p| p.p99_99).map(|n| n.0)),
        opt(l.and_then(|l| l.jitter_ns).map(|j| format!("{j:.1}"))),
        opt(l.and_then(|l| l.jitter_max_ns).map(|j| format!("{j:.1}"))),
        opt(l.map(|l| l.negative)),
        opt(l.map(|l| l.over_range)),
        slip.count.to_string(),
        format!("{:.3}", slip.slipped_us),
        format!("{:.3}", slip.max_late_us),
        opt(d.tester_lost),
    ]
}

/// Renders `report` as CSV with a header row.
pub fn render_csv(report: &Report) -> String {
    let rows = report
        .steps
        .iter()
        .flat_map(|s| s.directions.iter().map(move |d| row(s, d)));
    table(&CSV_COLUMNS, rows).to_csv()
}

/// The header of [`render_ports_csv`]. The last five are the kernel interface under the port
/// ([`KernelInterface`](super::KernelInterface)), empty for a port that has none.
pub const PORTS_CSV_COLUMNS: [&str; 15] = [
    "step",
    "port",
    "ipackets",
    "opackets",
    "ibytes",
    "obytes",
    "imissed",
    "ierrors",
    "rx_nombuf",
    "oerrors",
    "interface",
    "if_rx_packets",
    "if_tx_packets",
    "tester_rx_lost",
    "tester_tx_lost",
];

/// The tester's port counters: a row per step and port.
pub fn render_ports_csv(report: &Report) -> String {
    let rows = report.steps.iter().flat_map(|s| {
        s.ports.iter().map(move |p| {
            let i = p.interface.as_ref();
            vec![
                s.label.clone(),
                p.name.to_string(),
                p.ipackets.to_string(),
                p.opackets.to_string(),
                p.ibytes.to_string(),
                p.obytes.to_string(),
                p.imissed.to_string(),
                p.ierrors.to_string(),
                p.rx_nombuf.to_string(),
                p.oerrors.to_string(),
                i.map_or_else(String::new, |i| i.name.clone()),
                opt(i.map(|i| i.rx_packets)),
                opt(i.map(|i| i.tx_packets)),
                opt(i.map(|i| i.rx_lost)),
                opt(i.map(|i| i.tx_lost)),
            ]
        })
    });
    table(&PORTS_CSV_COLUMNS, rows).to_csv()
}

/// The header of [`render_control_csv`].
pub const CONTROL_CSV_COLUMNS: [&str; 23] = [
    "upf",
    "sessions",
    "established",
    "deleted",
    "establish_s",
    "established_per_s",
    "delete_s",
    "deleted_per_s",
    "est_count",
    "est_min_us",
    "est_p50_us",
    "est_p90_us",
    "est_p99_us",
    "est_max_us",
    "del_p50_us",
    "del_p99_us",
    "requests_sent",
    "retransmissions",
    "timeouts",
    "window_largest",
    "heartbeats_answered",
    "lost_sessions",
    "release",
];

/// The control plane's figures as one row (only the header when the run had no PFCP). The
/// Causes are in the JSON report.
pub fn render_control_csv(report: &Report) -> String {
    let Some(c) = &report.control else {
        return table(&CONTROL_CSV_COLUMNS, []).to_csv();
    };
    let e = c.establishment_latency.as_ref();
    let d = c.deletion_latency.as_ref();
    let row = vec![
        c.upf.clone(),
        c.sessions.to_string(),
        c.established.to_string(),
        c.deleted.to_string(),
        opt(c.establish_s.map(|v| format!("{v:.6}"))),
        opt(c.established_per_s.map(|v| format!("{v:.1}"))),
        opt(c.delete_s.map(|v| format!("{v:.6}"))),
        opt(c.deleted_per_s.map(|v| format!("{v:.1}"))),
        opt(e.map(|l| l.samples)),
        opt(e.map(|l| l.min.us())),
        opt(e.map(|l| l.p50.us())),
        opt(e.map(|l| l.p90.us())),
        opt(e.map(|l| l.p99.us())),
        opt(e.map(|l| l.max.us())),
        opt(d.map(|l| l.p50.us())),
        opt(d.map(|l| l.p99.us())),
        c.requests_sent.to_string(),
        c.retransmissions.to_string(),
        c.timeouts.to_string(),
        c.window_largest.to_string(),
        c.heartbeats_answered.to_string(),
        c.lost_sessions.to_string(),
        c.release.name().to_owned(),
    ];
    table(&CONTROL_CSV_COLUMNS, [row]).to_csv()
}

#[cfg(test)]
mod tests {
    use super::super::rows::csv_field as field;

    #[test]
    fn quotes_only_when_needed() {
        assert_eq!(field("10 B"), "10 B");
        assert_eq!(field("a,b"), "\"a,b\"");
        assert_eq!(field("say \"hi\""), "\"say \"\"hi\"\"\"");
    }
}
