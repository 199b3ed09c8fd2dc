//! The search section of the human report: per case, each goal's result, the latency under
//! load, and every trial on a line.

use std::fmt::Write as _;

use super::search::{SearchCase, SearchReport};

fn mpps(v: Option<f64>) -> String {
    v.map_or_else(|| "-".to_owned(), |v| format!("{:.4}", v / 1e6))
}

fn opt(v: Option<f64>, digits: usize) -> String {
    v.map_or_else(|| "-".to_owned(), |v| format!("{v:.digits$}"))
}

/// The search's tables (see the module documentation).
pub(super) fn search_section(out: &mut String, s: &SearchReport) {
    let goals: Vec<String> = s
        .goals
        .iter()
        .map(|g| {
            let mut t = format!(
                "{} (loss {} %, exceed {} %, width {} %, {} s trials, {} s sum",
                g.name,
                g.loss_ratio * 100.0,
                g.exceed_ratio * 100.0,
                g.relative_width * 100.0,
                g.final_trial_duration_s,
                g.duration_sum_s
            );
            if let Some(l) = g.latency {
                let _ = write!(t, ", p{} <= {} us", l.percentile, l.max_ns as f64 / 1e3);
            }
            t.push(')');
            t
        })
        .collect();
    let _ = writeln!(
        out,
        "throughput search (RFC 9971){}: {}\n",
        if s.complete { "" } else { ", INCOMPLETE" },
        goals.join("; ")
    );
    for case in &s.cases {
        case_section(out, case);
    }
}

fn case_section(out: &mut String, c: &SearchCase) {
    let _ = writeln!(
        out,
        "{}: loads {:.4} to {:.4} Mpps{}, {:.1} B a frame at L2, {} trials",
        c.label,
        c.min_load_pps / 1e6,
        c.max_load_pps / 1e6,
        c.line_rate_pps.map_or(String::new(), |l| format!(
            " (line rate {:.4} Mpps)",
            l / 1e6
        )),
        c.frame_bytes_l2,
        c.trials.len()
    );
    goal_results(out, c);
    latency_under_load(out, c);
    trials_table(out, c);
    out.push('\n');
}

/// Each goal's result, in Mpps, Gbps and against the line rate, with its bounds.
fn goal_results(out: &mut String, c: &SearchCase) {
    let _ = writeln!(
        out,
        "  {:<8} {:<15} {:>10} {:>9} {:>9} {:>7} {:>10} {:>10}",
        "goal", "result", "Mpps", "Gbps L1", "Gbps L2", "% line", "lower", "upper"
    );
    for r in &c.results {
        let _ = writeln!(
            out,
            "  {:<8} {:<15} {:>10} {:>9} {:>9} {:>7} {:>10} {:>10}",
            r.goal,
            r.status.name(),
            mpps(r.conditional_throughput_pps),
            opt(r.gbps_l1, 3),
            opt(r.gbps_l2, 3),
            opt(r.line_rate_pct, 1),
            mpps(r.lower_bound_pps),
            mpps(r.upper_bound_pps)
        );
        if let Some(at) = r.tester_limited_at_pps {
            let _ = writeln!(
                out,
                "  {:<8} tester-limited at {:.4} Mpps: the tester could not send more, so this \
                 is not the UPF's throughput",
                "",
                at / 1e6
            );
        }
    }
}

/// The latency of the trials at fractions of the goal's throughput, if any.
fn latency_under_load(out: &mut String, c: &SearchCase) {
    if !c.latency_under_load.is_empty() {
        let _ = writeln!(out, "  latency under load (us):");
        for l in &c.latency_under_load {
            for d in &l.trial.latency {
                let us = |ns: super::Nanos| ns.us();
                let p = &d.latency;
                let _ = writeln!(
                    out,
                    "    {:>3.0} % {:>10} Mpps {} loss {:.4} %  p50 {:.1} p90 {:.1} p99 {:.1} p99.9 {:.1} max {:.1}",
                    l.fraction * 100.0,
                    format!("{:.4}", l.trial.intended_load_pps / 1e6),
                    d.direction.name(),
                    l.trial.loss_ratio * 100.0,
                    us(p.p50),
                    us(p.p90),
                    us(p.p99),
                    p.p99_9.map_or(f64::NAN, us),
                    us(p.max)
                );
            }
        }
    }
}

/// Every trial on a line.
fn trials_table(out: &mut String, c: &SearchCase) {
    let _ = writeln!(
        out,
        "  {:>5} {:>10} {:>10} {:>6} {:>11} {:>8}  tester",
        "trial", "Mpps", "offered", "s", "loss %", "wall s"
    );
    for (i, t) in c.trials.iter().enumerate() {
        let _ = writeln!(
            out,
            "  {:>5} {:>10.4} {:>10.4} {:>6.2} {:>11.6} {:>8.2}  {}",
            i + 1,
            t.intended_load_pps / 1e6,
            t.offered_load_pps / 1e6,
            t.intended_duration_s,
            t.loss_ratio * 100.0,
            t.duration_s,
            t.tester_limited.as_deref().unwrap_or("")
        );
    }
}
