//! The human report: a table per direction with the columns of the published UPF comparisons
//! first (Tx/Rx Gbps, Kpps, loss, latency min/avg/max) and percentiles, jitter and sequence
//! counts after them (lost, late, duplicated, reordered), with a line under the table for each
//! step whose loss is partly late packets or the tester's own interfaces; for a sweep, the comparison table (a row per payload size, uplink and
//! downlink side by side); then the control plane's figures, the tester's port counters, what
//! was received but not measured, and the warnings. Tables are aligned Markdown: they read in a
//! terminal and paste into a README.

use std::fmt::Write as _;

use super::direction_table::{direction_table, direction_title};
use super::model::{ControlReport, Report};
use super::percentiles::{Nanos, Percentiles};
pub(super) use super::rows::Align;
use super::rows::{Cell, Column, Table};
use super::stream_shape::Family;
use upfbench_stats::direction::Direction;
use upfbench_stats::loss_text;

/// Per direction in the comparison table.
const COMPARISON_FIGURES: [&str; 6] = [
    "Tx Gbps", "Rx Gbps", "Tx Kpps", "Rx Kpps", "Loss %", "Avg us",
];

const PORT_COLUMNS: [(&str, Align); 8] = [
    ("Step", Align::Left),
    ("Port", Align::Left),
    ("Rx pkts", Align::Right),
    ("Tx pkts", Align::Right),
    ("imissed", Align::Right),
    ("ierrors", Align::Right),
    ("rx_nombuf", Align::Right),
    ("oerrors", Align::Right),
];

/// The kernel interface under a port: its counts, and the tester's losses between it and the
/// PMD (Rx: it received, the PMD did not deliver; Tx: the PMD sent, it did not).
const INTERFACE_COLUMNS: [(&str, Align); 5] = [
    ("Interface", Align::Left),
    ("If Rx pkts", Align::Right),
    ("If Tx pkts", Align::Right),
    ("Tester lost Rx", Align::Right),
    ("Tester lost Tx", Align::Right),
];

const FRAME_COLUMNS: [(&str, Align); 9] = [
    ("Step", Align::Left),
    ("Port", Align::Left),
    ("Tx measured", Align::Right),
    ("Tx warm-up", Align::Right),
    ("Tx service", Align::Right),
    ("Rx measured", Align::Right),
    ("Rx unmeasured", Align::Right),
    ("Rx service", Align::Right),
    ("Rx rejected", Align::Right),
];

fn us(ns: f64) -> String {
    format!("{:.2}", ns / 1000.0)
}

fn dash() -> String {
    "-".to_owned()
}

/// Under a direction's table, a line for each step whose loss is not all the UPF's doing (late
/// packets, the tester's own interfaces), in the words of the live line.
fn loss_notes(out: &mut String, report: &Report, dir: Direction) {
    for s in &report.steps {
        for d in s.directions.iter().filter(|d| d.direction == dir) {
            if d.loss.late > 0 || (d.loss.lost > 0 && d.tester_lost.is_some_and(|t| t > 0)) {
                let _ = writeln!(
                    out,
                    "  {}: {}",
                    s.label,
                    loss_text(d.loss.lost, d.loss.loss_pct, d.loss.late, d.tester_lost)
                );
            }
        }
    }
}

/// An aligned Markdown table of plain cells (see [`Table::to_markdown`]).
pub(super) fn grid(out: &mut String, columns: &[(String, Align)], rows: &[Vec<String>]) {
    let mut t = Table::new(
        columns
            .iter()
            .map(|(h, a)| match a {
                Align::Left => Column::left(h.clone()),
                Align::Right => Column::right(h.clone()),
            })
            .collect(),
    );
    for r in rows {
        t.push(r.iter().map(|c| Cell::text(c.clone())).collect());
    }
    out.push_str(&t.to_markdown());
}

fn owned(columns: &[(&str, Align)]) -> Vec<(String, Align)> {
    columns.iter().map(|(h, a)| ((*h).to_owned(), *a)).collect()
}

fn direction_tables(out: &mut String, report: &Report) {
    for dir in Direction::ALL {
        let Some(table) = direction_table(report, dir) else {
            continue;
        };
        let _ = writeln!(out, "{}\n", direction_title(dir));
        out.push_str(&table.to_markdown());
        out.push('\n');
        let before = out.len();
        loss_notes(out, report, dir);
        if out.len() > before {
            out.push('\n');
        }
    }
}

/// A row per payload size, uplink and downlink side by side: the shape of the published
/// comparisons. Only for runs of more than one step.
fn comparison_table(out: &mut String, report: &Report) {
    if report.steps.len() < 2 {
        return;
    }
    let present: Vec<Direction> = Direction::ALL
        .into_iter()
        .filter(|d| {
            report
                .steps
                .iter()
                .any(|s| s.directions.iter().any(|x| x.direction == *d))
        })
        .collect();
    let mut columns = vec![("Payload B".to_owned(), Align::Right)];
    for d in &present {
        for f in COMPARISON_FIGURES {
            columns.push((format!("{} {f}", d.short()), Align::Right));
        }
    }
    let rows: Vec<Vec<String>> = report
        .steps
        .iter()
        .map(|s| {
            let mut r = vec![
                s.payload_bytes
                    .map_or_else(|| s.label.clone(), |p| p.to_string()),
            ];
            for dir in &present {
                match s.directions.iter().find(|x| x.direction == *dir) {
                    Some(d) => r.extend([
                        format!("{:.3}", d.tx.gbps_l1),
                        format!("{:.3}", d.rx.gbps_l1),
                        format!("{:.1}", d.tx.kpps),
                        format!("{:.1}", d.rx.kpps),
                        format!("{:.3}", d.loss.loss_pct),
                        d.latency.as_ref().map_or_else(dash, |l| us(l.avg_ns)),
                    ]),
                    None => r.extend(std::iter::repeat_n(dash(), COMPARISON_FIGURES.len())),
                }
            }
            r
        })
        .collect();
    let _ = writeln!(out, "Comparison: a row per step\n");
    grid(out, &columns, &rows);
    out.push('\n');
}

fn latency_line(name: &str, l: Option<&Percentiles>) -> String {
    let us = |n: Nanos| n.us();
    match l {
        Some(l) if l.samples > 0 => format!(
            "{name} latency us: min {} p50 {} p90 {} p99 {} max {} ({} procedures)",
            us(l.min),
            us(l.p50),
            us(l.p90),
            us(l.p99),
            us(l.max),
            l.samples
        ),
        _ => format!("{name} latency: -"),
    }
}

fn rate(n: u64, secs: Option<f64>, per_s: Option<f64>) -> String {
    match (secs, per_s) {
        (Some(s), Some(r)) => format!("{n} in {s:.3} s ({r:.0}/s)"),
        _ => n.to_string(),
    }
}

fn control_section(out: &mut String, c: &ControlReport) {
    let _ = writeln!(out, "Control plane: PFCP with {}\n", c.upf);
    let _ = writeln!(
        out,
        "  sessions: {} asked, established {}, deleted {}",
        c.sessions,
        rate(
            c.established - c.churn_established.min(c.established),
            c.establish_s,
            c.established_per_s
        ),
        rate(
            c.deleted - c.churn_deleted.min(c.deleted),
            c.delete_s,
            c.deleted_per_s
        )
    );
    if c.churn_established + c.churn_deleted > 0 {
        let _ = writeln!(
            out,
            "  churn: {} more established and {} deleted during the steps (their procedures \
             are in the latencies below)",
            c.churn_established, c.churn_deleted
        );
    }
    let _ = writeln!(
        out,
        "  {}",
        latency_line("establishment", c.establishment_latency.as_ref())
    );
    let _ = writeln!(
        out,
        "  {}",
        latency_line("deletion", c.deletion_latency.as_ref())
    );
    let _ = writeln!(
        out,
        "  requests {}, retransmissions {}, timeouts {}, largest window {}, UPF heartbeats answered {}",
        c.requests_sent, c.retransmissions, c.timeouts, c.window_largest, c.heartbeats_answered
    );
    let causes: Vec<String> = c.causes.iter().map(|(k, v)| format!("{k}: {v}")).collect();
    let _ = writeln!(
        out,
        "  causes: {}",
        if causes.is_empty() {
            "-".to_owned()
        } else {
            causes.join(", ")
        }
    );
    let _ = writeln!(
        out,
        "  sessions lost behind our back (Cause 65): {}; association release: {}\n",
        c.lost_sessions,
        c.release.describe()
    );
    if !c.upf_faults.is_empty() {
        let _ = writeln!(out, "UPF failures seen (times since the run started)\n");
        for f in &c.upf_faults {
            let _ = writeln!(out, "{}", f.line());
        }
        let _ = writeln!(out);
    }
}

/// The port counters; with the kernel interface's columns when some port rides on one
/// (af_packet, af_xdp): its own counts, and what the tester lost between it and the PMD.
fn port_table(out: &mut String, report: &Report) {
    let kernel = report
        .steps
        .iter()
        .any(|s| s.ports.iter().any(|p| p.interface.is_some()));
    let rows: Vec<Vec<String>> = report
        .steps
        .iter()
        .flat_map(|s| {
            s.ports.iter().map(move |p| {
                let mut row = vec![
                    s.label.clone(),
                    p.name.to_string(),
                    p.ipackets.to_string(),
                    p.opackets.to_string(),
                    p.imissed.to_string(),
                    p.ierrors.to_string(),
                    p.rx_nombuf.to_string(),
                    p.oerrors.to_string(),
                ];
                if kernel {
                    row.extend(match &p.interface {
                        Some(i) => [
                            i.name.clone(),
                            i.rx_packets.to_string(),
                            i.tx_packets.to_string(),
                            i.rx_lost.to_string(),
                            i.tx_lost.to_string(),
                        ],
                        None => std::array::from_fn(|_| dash()),
                    });
                }
                row
            })
        })
        .collect();
    if rows.is_empty() {
        return;
    }
    let _ = writeln!(
        out,
        "The tester's ports (drops here are the tester's, not the UPF's)\n"
    );
    let mut columns = owned(&PORT_COLUMNS);
    if kernel {
        columns.extend(owned(&INTERFACE_COLUMNS));
    }
    grid(out, &columns, &rows);
    out.push('\n');
}

/// The frames on each port by kind: each row adds up to the port table's counts.
fn frame_table(out: &mut String, report: &Report) {
    // Churn probes get their columns only in a run that sent some.
    let probes = report
        .steps
        .iter()
        .flat_map(|s| &s.frames)
        .any(|f| f.tx_probes + f.rx_probes > 0);
    let rows: Vec<Vec<String>> = report
        .steps
        .iter()
        .flat_map(|s| {
            s.frames.iter().map(move |f| {
                let mut row = vec![
                    s.label.clone(),
                    f.name.to_string(),
                    f.tx_measured.to_string(),
                    f.tx_warmup.to_string(),
                    f.tx_service.to_string(),
                    f.rx_measured.to_string(),
                    f.rx_unmeasured.to_string(),
                    f.rx_service.to_string(),
                    f.rx_rejected.to_string(),
                ];
                if probes {
                    row.extend([f.tx_probes.to_string(), f.rx_probes.to_string()]);
                }
                row
            })
        })
        .collect();
    if rows.is_empty() {
        return;
    }
    let _ = writeln!(
        out,
        "Frames on the tester's ports by kind (each row adds up to the port's Tx and Rx pkts)\n"
    );
    let mut columns = owned(&FRAME_COLUMNS);
    if probes {
        columns.extend(owned(&[
            ("Tx probes", Align::Right),
            ("Rx probes", Align::Right),
        ]));
    }
    grid(out, &columns, &rows);
    out.push('\n');
}

/// The receive-queue table: a row per step, port and queue, when some port has two queues or
/// more.
fn queue_table(out: &mut String, report: &Report) {
    let rows: Vec<[String; 6]> = report
        .steps
        .iter()
        .flat_map(|s| s.rx_queues.iter().map(move |q| (s, q)))
        .filter(|(_, q)| q.frames.len() >= 2)
        .flat_map(|(s, q)| {
            let total: u64 = q.frames.iter().sum();
            q.frames.iter().enumerate().map(move |(i, &n)| {
                [
                    s.label.clone(),
                    q.port.to_string(),
                    i.to_string(),
                    n.to_string(),
                    q.packets
                        .get(i)
                        .map_or_else(|| "-".to_owned(), u64::to_string),
                    if total > 0 {
                        format!("{:.1}", n as f64 * 100.0 / total as f64)
                    } else {
                        "-".to_owned()
                    },
                ]
            })
        })
        .collect();
    if rows.is_empty() {
        return;
    }
    let _ = writeln!(
        out,
        "Receive by queue (queue i is worker i's; how each port spreads its frames is in the \
         run's configuration)\n"
    );
    let columns: Vec<(String, Align)> = QUEUE_COLUMNS
        .iter()
        .enumerate()
        .map(|(i, h)| {
            (
                (*h).to_owned(),
                if i < 2 { Align::Left } else { Align::Right },
            )
        })
        .collect();
    let rows: Vec<Vec<String>> = rows.into_iter().map(Vec::from).collect();
    grid(out, &columns, &rows);
    out.push('\n');
}

const QUEUE_COLUMNS: [&str; 6] = [
    "Step",
    "Port",
    "Queue",
    "Frames (worker)",
    "Packets (port)",
    "Share %",
];

/// A line per direction that slipped, and per stream when its direction has several.
fn slip_section(out: &mut String, report: &Report) {
    let mut lines = Vec::new();
    for s in &report.steps {
        for d in &s.directions {
            let Some(slip) = d.tx_slip else { continue };
            let mut line = format!("  {} {}: {slip}", s.label, d.direction.name());
            if s.duration_s > 0.0 {
                let share = 100.0 * slip.slipped_us / 1e6 / s.duration_s;
                let _ = write!(line, " ({share:.3}% of the {:.3} s sent)", s.duration_s);
            }
            lines.push(line);
            let streams: Vec<_> = s
                .streams
                .iter()
                .filter(|x| x.direction == d.direction)
                .collect();
            if streams.len() < 2 {
                continue;
            }
            for x in streams {
                if let Some(slip) = x.tx_slip {
                    lines.push(format!("    stream {}: {slip}", x.name));
                }
            }
        }
    }
    if lines.is_empty() {
        return;
    }
    let _ = writeln!(
        out,
        "TX schedule: senders late by more than max_burst let their schedule slip (the packets \
         went later, none was dropped) and made it up at no more than catch_up above their rate; \
         the rates are over the actual sending time\n"
    );
    for l in lines {
        let _ = writeln!(out, "{l}");
    }
    out.push('\n');
}

/// The handover lines of every step that had handovers.
fn handover_sections(out: &mut String, report: &Report) {
    for s in &report.steps {
        if let Some(h) = &s.handover {
            super::handover::handover_section(out, &s.label, h);
        }
    }
}

/// The churn lines of every step that churned sessions.
fn churn_sections(out: &mut String, report: &Report) {
    for (i, step) in report.steps.iter().enumerate() {
        if let Some(c) = step.churn.as_ref().filter(|c| c.on) {
            super::churn::churn_section(out, i + 1, &step.label, c, &step.seconds);
        }
    }
}

/// The QoS flows of every step that had them.
fn qos_sections(out: &mut String, report: &Report) {
    for (i, step) in report.steps.iter().enumerate() {
        if let Some(q) = &step.qos {
            super::qos::qos_section(out, i + 1, &step.label, q);
        }
    }
}

const STREAM_COLUMNS: [(&str, Align); 15] = [
    ("Step", Align::Left),
    ("Stream", Align::Left),
    ("Dir", Align::Left),
    ("IP", Align::Left),
    ("Payload B", Align::Right),
    ("L1 frame B", Align::Right),
    ("Flows", Align::Right),
    ("Sent", Align::Right),
    ("Received", Align::Right),
    ("Lost", Align::Right),
    ("Late", Align::Right),
    ("Loss %", Align::Right),
    ("Dup", Align::Right),
    ("Reord", Align::Right),
    ("Jitter us", Align::Right),
];

/// A row per profile stream, when some direction has more than one (the direction tables
/// already show a lone stream) or a stream is IPv6 (the direction tables do not say).
fn stream_table(out: &mut String, report: &Report) {
    let several = report.steps.iter().any(|s| {
        s.streams.iter().any(|x| x.family == Family::Ipv6)
            || Direction::ALL
                .iter()
                .any(|d| s.streams.iter().filter(|x| x.direction == *d).count() > 1)
    });
    if !several {
        return;
    }
    let rows: Vec<Vec<String>> = report
        .steps
        .iter()
        .flat_map(|s| {
            s.streams.iter().map(move |x| {
                vec![
                    s.label.clone(),
                    x.name.clone(),
                    x.direction.short().to_owned(),
                    x.family.name().to_owned(),
                    x.payload_bytes.to_string(),
                    x.frame.map_or_else(dash, |f| f.l1_bytes.to_string()),
                    x.flows.to_string(),
                    x.sent.to_string(),
                    x.received.to_string(),
                    x.lost.to_string(),
                    x.late.to_string(),
                    format!("{:.3}", x.loss_pct),
                    x.duplicates.to_string(),
                    x.reordered.to_string(),
                    x.jitter_ns.map_or_else(dash, us),
                ]
            })
        })
        .collect();
    let _ = writeln!(out, "Streams of the profile\n");
    grid(out, &owned(&STREAM_COLUMNS), &rows);
    out.push('\n');
}

fn rejected_section(out: &mut String, report: &Report) {
    let lines: Vec<String> = report
        .steps
        .iter()
        .filter(|s| !s.rx_rejected.is_empty() || s.rx_untagged + s.rx_unknown_stream > 0)
        .map(|s| {
            let mut kinds: Vec<String> = s
                .rx_rejected
                .iter()
                .map(|(k, v)| format!("{k} {v}"))
                .collect();
            if s.rx_untagged > 0 {
                kinds.push(format!("untagged {}", s.rx_untagged));
            }
            if s.rx_unknown_stream > 0 {
                kinds.push(format!("unknown stream {}", s.rx_unknown_stream));
            }
            format!("  {}: {}", s.label, kinds.join(", "))
        })
        .collect();
    if lines.is_empty() {
        return;
    }
    let _ = writeln!(out, "Received, not measured (counted and dropped)\n");
    for l in lines {
        let _ = writeln!(out, "{l}");
    }
    out.push('\n');
}

/// Renders `report`: header, direction tables, streams, TX schedule slips, comparison, control
/// plane, ports, rejects, each port pair's tables (with several), warnings.
pub fn render_table(report: &Report) -> String {
    let mut out = String::new();
    header(&mut out, report);
    if let Some(m) = &report.multiplier {
        super::multiplier::multiplier_section(&mut out, m);
    }
    if let Some(c) = &report.capacity {
        super::capacity::capacity_section(&mut out, c);
    }
    if let Some(s) = &report.search {
        // A search's steps are its trials: they are in the search's tables, one a line.
        super::search_table::search_section(&mut out, s);
    } else {
        direction_tables(&mut out, report);
        stream_table(&mut out, report);
        slip_section(&mut out, report);
        handover_sections(&mut out, report);
        churn_sections(&mut out, report);
        qos_sections(&mut out, report);
        comparison_table(&mut out, report);
        upf_faults_section(&mut out, report);
    }
    super::agents::agents_section(&mut out, &report.agents);
    if let Some(c) = &report.control {
        control_section(&mut out, c);
    }
    if report.search.is_none() {
        port_table(&mut out, report);
        frame_table(&mut out, report);
        queue_table(&mut out, report);
        rejected_section(&mut out, report);
        pair_sections(&mut out, report);
        agent_tables(&mut out, report);
    }
    for w in warnings(report) {
        let _ = writeln!(out, "warning: {w}");
    }
    while out.ends_with("\n\n") {
        out.pop();
    }
    out
}

/// With several port pairs, after the totals' sections: each pair's direction tables, streams
/// and ports, as its workers measured them on its ports.
fn pair_sections(out: &mut String, report: &Report) {
    for name in report.pair_names() {
        let mut view = report.clone();
        view.steps = report.of_pair(&name);
        view.warnings.clear();
        let _ = writeln!(out, "Pair {name}: what its workers measured on its ports\n");
        direction_tables(out, &view);
        stream_table(out, &view);
        port_table(out, &view);
    }
}

/// In a run over agents, after the totals' sections: each agent's direction tables, streams
/// and ports, as it measured them itself.
fn agent_tables(out: &mut String, report: &Report) {
    for a in &report.agents {
        let steps = report.of_agent(&a.name);
        if steps.is_empty() {
            continue;
        }
        let mut view = report.clone();
        view.steps = steps;
        view.warnings.clear();
        let _ = writeln!(out, "Agent {}: what it measured itself\n", a.name);
        direction_tables(out, &view);
        stream_table(out, &view);
        port_table(out, &view);
    }
}

/// The report's first lines: the tool, the label, the configuration, the clock, the units.
fn header(out: &mut String, report: &Report) {
    let _ = writeln!(
        out,
        "{} {} report (schema {}), started {}, {:.3} s",
        report.tool.name,
        report.tool.version,
        report.schema_version,
        report.started,
        report.duration_s
    );
    if let Some(label) = report.config.get("label") {
        let _ = writeln!(out, "label: {label}");
    }
    if !report.config.is_empty() {
        let cfg: Vec<String> = report
            .config
            .iter()
            .map(|(k, v)| format!("{k}={v}"))
            .collect();
        let _ = writeln!(out, "config: {}", cfg.join(", "));
    }
    if let Some(c) = &report.clock {
        super::clock::clock_line(out, c);
    }
    let _ = writeln!(
        out,
        "Gbps at L1 (frame with FCS, padded to 64 B, + 20 B of preamble and IFG); loss from sequence numbers; \
         latency one-way in us\n"
    );
}

/// Each step's loss split at the UPF's failures, for the steps that saw any.
fn upf_faults_section(out: &mut String, report: &Report) {
    for (i, step) in report.steps.iter().enumerate() {
        if !step.upf_faults.is_empty() {
            let _ = writeln!(
                out,
                "Step {} ({}): loss split at the UPF's failures",
                i + 1,
                step.label
            );
            for f in &step.upf_faults {
                let _ = writeln!(out, "{}", f.line());
            }
            out.push('\n');
        }
    }
}

/// The report's warnings, then its steps': each with its step's label, or for a search (whose
/// trials are many: their warnings stay in report.json, their flags in the table) how many
/// trials have some.
fn warnings(report: &Report) -> Vec<String> {
    let step_warnings = if report.search.is_some() {
        let n = report
            .steps
            .iter()
            .filter(|s| !s.warnings.is_empty())
            .count();
        (n > 0)
            .then(|| format!("{n} trials have warnings of their own: see report.json"))
            .into_iter()
            .collect()
    } else {
        report
            .steps
            .iter()
            .flat_map(|s| s.warnings.iter().map(move |w| format!("{}: {w}", s.label)))
            .collect::<Vec<_>>()
    };
    report
        .incomplete
        .iter()
        .map(super::Incomplete::warning)
        .chain(report.warnings.iter().cloned())
        .chain(step_warnings)
        .collect()
}
