//! A step's QoS flows on its page: each flow's MBR and GBR, what it was offered and what came
//! through, how that held per second and per 10 ms window, the burst the policer allowed, and
//! the verdict.

use std::fmt::Write as _;

use upfbench_report::{QfiFigures, QosReport, Report};

use super::{escape, table};

fn mbps(bps: f64) -> String {
    format!("{:.3}", bps / 1e6)
}

/// Every figure of each QoS flow: packets, loss, latency.
fn qfi_table(out: &mut String, label: &str, qfis: &[QfiFigures]) {
    let _ = writeln!(
        out,
        "<h3>QoS flows: {}</h3>\n<p>Every figure of each QoS flow; latency one-way, in µs.</p>",
        escape(label)
    );
    let header: Vec<String> = [
        "QFI",
        "Direction",
        "Sent",
        "Received",
        "Lost",
        "Loss %",
        "p50",
        "p99",
        "p99.9",
        "Max",
        "Streams",
    ]
    .map(str::to_owned)
    .to_vec();
    let rows: Vec<Vec<String>> = qfis
        .iter()
        .map(|q| {
            let [p50, p99, p99_9, max] = q.latency_cells();
            vec![
                q.qfi.to_string(),
                q.direction.short().to_owned(),
                q.sent.to_string(),
                q.received.to_string(),
                q.lost.to_string(),
                format!("{:.3}", q.loss_ratio * 100.0),
                p50,
                p99,
                p99_9,
                max,
                q.streams.join(", "),
            ]
        })
        .collect();
    table(out, None, &header, &rows);
}

fn one(out: &mut String, label: &str, q: &QosReport) {
    if !q.qfis.is_empty() {
        qfi_table(out, label, &q.qfis);
    }
    if q.flows.is_empty() {
        return;
    }
    let _ = writeln!(
        out,
        "<h3>QER conformance: {}</h3>\n<p>Rates in Mbit/s over the UE packets; verdicts within {:.1} %.</p>",
        escape(label),
        q.tolerance * 100.0
    );
    let header: Vec<String> = [
        "QFI",
        "Direction",
        "Sessions",
        "GBR",
        "MBR",
        "Offered",
        "Passed",
        "Passed / MBR %",
        "1 s min",
        "1 s max",
        "10 ms peak",
        "Burst B",
        "Verdict",
    ]
    .map(str::to_owned)
    .to_vec();
    let rows: Vec<Vec<String>> = q
        .flows
        .iter()
        .map(|f| {
            let [lo, hi] = f.per_second_bps.map_or_else(
                || ["-".to_owned(), "-".to_owned()],
                |[l, h]| [mbps(l), mbps(h)],
            );
            vec![
                f.qfi.to_string(),
                f.direction.short().to_owned(),
                f.sessions.to_string(),
                f.gbr_bps.map_or_else(|| "-".to_owned(), mbps),
                mbps(f.mbr_bps),
                mbps(f.offered_bps),
                mbps(f.passed_bps),
                format!("{:.2}", f.passed_over_mbr * 100.0),
                lo,
                hi,
                mbps(f.peak_window_bps),
                format!("{:.0}", f.burst_bytes),
                escape(&f.verdict.text()),
            ]
        })
        .collect();
    table(out, None, &header, &rows);
    match q.gbr_kept_under_policing {
        Some(true) => out.push_str("<p>GBR flows kept their rate while non-GBR flows were policed.</p>\n"),
        Some(false) => out.push_str(
            "<p><strong>A GBR flow did not keep its rate</strong> while non-GBR flows were policed.</p>\n",
        ),
        None => {}
    }
    for f in q.flows.iter().filter(|f| f.tester_late_s > 0.0) {
        let _ = writeln!(
            out,
            "<p>QFI {} {}: the tester's senders were late by up to {:.1} ms; a policer at the \
             MBR passes up to that much less, and the verdict allows for it.</p>",
            f.qfi,
            f.direction.short(),
            f.tester_late_s * 1e3
        );
    }
    if let Some(g) = &q.gate {
        let text = escape(&g.summary());
        if g.closed() {
            let _ = writeln!(out, "<p>{text}.</p>");
        } else {
            let _ = writeln!(out, "<p><strong>{text}</strong>.</p>");
        }
    }
}

/// The QoS tables of every step that had QoS flows.
pub(crate) fn qos_tables(out: &mut String, report: &Report) {
    for s in &report.steps {
        if let Some(q) = &s.qos {
            one(out, &s.label, q);
        }
    }
}

#[cfg(test)]
mod tests {
    use upfbench_report::{QosFlowReport, QosFlowSpec};
    use upfbench_stats::{Conformance, Direction};

    use super::*;
    use crate::samples::sweep;

    #[test]
    fn a_step_with_qos_flows_has_its_table() {
        let mut report = sweep("a", 100);
        let windows = vec![12_500u64; 200];
        let c = Conformance::of(&windows, 10_000_000, 0..200, 10e6).unwrap();
        let spec = QosFlowSpec {
            qfi: 9,
            direction: Direction::Downlink,
            sessions: 2,
            mbr_bps: 10e6,
            gbr_bps: None,
            offered_bps: 15e6,
            measured_s: 2.0,
            tester_late_s: 0.0,
        };
        report.steps[0].qos = Some(QosReport::new(
            vec![QosFlowReport::new(spec, &c, 0.01)],
            0.01,
            2.0,
        ));
        let mut out = String::new();
        qos_tables(&mut out, &report);
        assert!(out.contains("<h3>QER conformance: "), "{out}");
        assert!(out.contains("<td>policed at MBR</td>"), "{out}");
        assert!(out.contains("<td class=\"num\">100.00</td>"), "{out}");
        // Steps without QoS flows have no table.
        report.steps[0].qos = None;
        let mut out = String::new();
        qos_tables(&mut out, &report);
        assert!(out.is_empty());
    }
}
