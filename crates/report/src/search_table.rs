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

/// Every trial on a line, its wall time in parts, and the parts' means.
fn trials_table(out: &mut String, c: &SearchCase) {
    let _ = writeln!(
        out,
        "  {:>5} {:>10} {:>10} {:>6} {:>11} {:>6} {:>7} {:>6} {:>6} {:>6} {:>7} {:>6} {:>6}  tester",
        "trial",
        "Mpps",
        "offered",
        "s",
        "loss %",
        "eff s",
        "wall s",
        "setup",
        "warmup",
        "settle",
        "traffic",
        "drain",
        "quiet"
    );
    for (i, t) in c.trials.iter().enumerate() {
        let parts = t.wall.map_or_else(
            || {
                format!(
                    "{:>7} {:>6} {:>6} {:>6} {:>7} {:>6} {:>6}",
                    "-", "-", "-", "-", "-", "-", "-"
                )
            },
            |w| {
                format!(
                    "{:>7.3} {:>6.3} {:>6.3} {:>6.3} {:>7.3} {:>6.3} {:>6.3}",
                    w.total_s, w.setup_s, w.warmup_s, w.settle_s, w.traffic_s, w.drain_s, w.quiet_s
                )
            },
        );
        let _ = writeln!(
            out,
            "  {:>5} {:>10.4} {:>10.4} {:>6.2} {:>11.6} {:>6.2} {parts}  {}",
            i + 1,
            t.intended_load_pps / 1e6,
            t.offered_load_pps / 1e6,
            t.intended_duration_s,
            t.loss_ratio * 100.0,
            t.duration_s,
            t.tester_limited.as_deref().unwrap_or("")
        );
    }
    if let Some(line) = wall_means(c) {
        let _ = writeln!(out, "  {line}");
    }
}

/// The mean of each part of the trials' wall time, when the report recorded them.
fn wall_means(c: &SearchCase) -> Option<String> {
    let walls: Vec<_> = c.trials.iter().filter_map(|t| t.wall).collect();
    if walls.is_empty() {
        return None;
    }
    let mean = |part: fn(&super::search::TrialWall) -> f64| {
        walls.iter().map(part).sum::<f64>() / walls.len() as f64
    };
    let intended =
        c.trials.iter().map(|t| t.intended_duration_s).sum::<f64>() / c.trials.len() as f64;
    Some(format!(
        "wall time per trial (mean s): {:.3} for {:.3} of intended traffic: set-up {:.3}, \
         warm-up {:.3}, settle {:.3}, traffic {:.3}, drain {:.3}, quiet {:.3}",
        mean(|w| w.total_s),
        intended,
        mean(|w| w.setup_s),
        mean(|w| w.warmup_s),
        mean(|w| w.settle_s),
        mean(|w| w.traffic_s),
        mean(|w| w.drain_s),
        mean(|w| w.quiet_s)
    ))
}

#[cfg(test)]
mod tests {
    use super::super::search::{SearchDirections, TrialRecord, TrialWall};
    use super::*;

    fn trial(wall: Option<TrialWall>) -> TrialRecord {
        TrialRecord {
            step: 0,
            intended_load_pps: 10_000.0,
            offered_load_pps: 10_000.0,
            forwarding_rate_pps: 10_000.0,
            sent: 10_000,
            received: 10_000,
            loss_ratio: 0.0,
            intended_duration_s: 1.0,
            duration_s: 1.02,
            latency: Vec::new(),
            tester_limited: None,
            wall,
        }
    }

    #[test]
    fn each_trial_shows_where_its_wall_time_went_and_the_case_the_means() {
        let wall = |quiet_s: f64| TrialWall {
            total_s: 1.03 + quiet_s,
            setup_s: 0.02,
            warmup_s: 0.0,
            settle_s: 0.0,
            traffic_s: 1.001,
            drain_s: 0.009,
            quiet_s,
        };
        let case = SearchCase {
            label: "100 B both".into(),
            payload_bytes: Some(100),
            directions: SearchDirections::Both,
            min_load_pps: 2_000.0,
            max_load_pps: 20_000.0,
            line_rate_pps: None,
            frame_bytes_l2: 146.0,
            results: Vec::new(),
            trials: vec![trial(Some(wall(0.0))), trial(Some(wall(0.05))), trial(None)],
            latency_under_load: Vec::new(),
        };
        let mut out = String::new();
        trials_table(&mut out, &case);
        let lines: Vec<&str> = out.lines().collect();
        assert!(
            lines[0].contains("eff s  wall s  setup warmup settle traffic  drain  quiet"),
            "{out}"
        );
        assert!(
            lines[2].contains("1.02   1.080  0.020  0.000  0.000   1.001  0.009  0.050"),
            "{out}"
        );
        // A trial of a report written before the parts were recorded.
        assert!(lines[3].contains("1.02       -      -"), "{out}");
        assert_eq!(
            lines[4],
            "  wall time per trial (mean s): 1.055 for 1.000 of intended traffic: set-up 0.020, \
             warm-up 0.000, settle 0.000, traffic 1.001, drain 0.009, quiet 0.025"
        );
    }
}
