//! A search's tables on its page: the goals as configured, each case's results in RFC 9971's
//! terms, the latency under load, and every trial (folded: a search has dozens).

use std::fmt::Write as _;

use upfbench_report::{GoalResult, Nanos, SearchReport, TrialRecord};

use super::table;

/// The unit a search's loads are shown in: Mpps, or kpps when its largest load is under a
/// million a second (a capped reflector, a lab's veths), where Mpps would show `0.0051`.
#[derive(Clone, Copy)]
struct Unit {
    divisor: f64,
    name: &'static str,
    decimals: usize,
}

impl Unit {
    fn of(s: &SearchReport) -> Unit {
        let largest = s.cases.iter().map(|c| c.max_load_pps).fold(0.0, f64::max);
        if largest < 1e6 {
            Unit {
                divisor: 1e3,
                name: "kpps",
                decimals: 3,
            }
        } else {
            Unit {
                divisor: 1e6,
                name: "Mpps",
                decimals: 4,
            }
        }
    }

    fn show(self, pps: Option<f64>) -> String {
        pps.map_or_else(
            || "-".to_owned(),
            |p| format!("{:.*}", self.decimals, p / self.divisor),
        )
    }

    /// `what` with the unit: `Offered kpps`.
    fn head(self, what: &str) -> String {
        format!("{what} {}", self.name)
    }
}

fn opt(v: Option<f64>, decimals: usize) -> String {
    v.map_or_else(|| "-".to_owned(), |v| format!("{v:.decimals$}"))
}

fn header(names: &[&str]) -> Vec<String> {
    names.iter().map(|n| (*n).to_owned()).collect()
}

fn goals(out: &mut String, s: &SearchReport) {
    let rows: Vec<Vec<String>> = s
        .goals
        .iter()
        .map(|g| {
            vec![
                g.name.clone(),
                format!("{}", g.loss_ratio),
                format!("{}", g.exceed_ratio),
                format!("{}", g.relative_width * 100.0),
                format!("{}", g.initial_trial_duration_s),
                format!("{}", g.final_trial_duration_s),
                format!("{}", g.duration_sum_s),
                g.latency.map_or_else(
                    || "-".to_owned(),
                    |l| format!("p{} ≤ {} us", l.percentile, l.max_ns as f64 / 1e3),
                ),
            ]
        })
        .collect();
    out.push_str("<h3>Goals</h3>\n");
    let h = header(&[
        "Goal",
        "Loss ratio",
        "Exceed ratio",
        "Width %",
        "Initial trial s",
        "Final trial s",
        "Duration sum s",
        "Latency bound",
    ]);
    table(out, None, &h, &rows);
}

fn result_row(u: Unit, case: &str, r: &GoalResult) -> Vec<String> {
    vec![
        case.to_owned(),
        r.goal.clone(),
        r.status.name().to_owned(),
        u.show(r.lower_bound_pps),
        u.show(r.upper_bound_pps),
        u.show(r.conditional_throughput_pps),
        opt(r.gbps_l1, 3),
        opt(r.gbps_l2, 3),
        opt(r.line_rate_pct, 2),
        u.show(r.tester_limited_at_pps),
    ]
}

/// The columns of a trial's wall time, its parts after its total (see [`wall_parts`]).
const WALL_COLUMNS: [&str; 7] = [
    "Wall s",
    "Set-up s",
    "Warm-up s",
    "Settle s",
    "Traffic s",
    "Drain s",
    "Quiet s",
];

/// A trial's wall time and its parts, in the order of [`WALL_COLUMNS`] (`-` for a report
/// that did not record them).
fn wall_parts(t: &TrialRecord) -> Vec<String> {
    t.wall.map_or_else(
        || vec!["-".to_owned(); WALL_COLUMNS.len()],
        |w| {
            [
                w.total_s,
                w.setup_s,
                w.warmup_s,
                w.settle_s,
                w.traffic_s,
                w.drain_s,
                w.quiet_s,
            ]
            .iter()
            .map(|s| format!("{s:.3}"))
            .collect()
        },
    )
}

fn trial_row(u: Unit, case: &str, i: usize, t: &TrialRecord) -> Vec<String> {
    let mut row = vec![
        case.to_owned(),
        (i + 1).to_string(),
        u.show(Some(t.intended_load_pps)),
        u.show(Some(t.offered_load_pps)),
        u.show(Some(t.forwarding_rate_pps)),
        format!("{:.6}", t.loss_ratio),
        format!("{:.2}", t.duration_s),
    ];
    row.extend(wall_parts(t));
    row.push(t.tester_limited.clone().unwrap_or_else(|| "-".to_owned()));
    row
}

/// The tables of a search.
pub(crate) fn search_tables(out: &mut String, s: &SearchReport) {
    let u = Unit::of(s);
    if !s.complete {
        out.push_str(
            "<p class=\"warning\">The search did not finish (interrupted or out of time): some \
             bounds are not final.</p>\n",
        );
    }
    results(out, s, u);
    latency_under_load(out, s, u);
    goals(out, s);
    trials(out, s, u);
}

/// Each case's goals' results: bounds, conditional throughput, rates, the tester's limit.
fn results(out: &mut String, s: &SearchReport, u: Unit) {
    out.push_str("<h3>Results</h3>\n");
    let rows: Vec<Vec<String>> = s
        .cases
        .iter()
        .flat_map(|c| c.results.iter().map(|r| result_row(u, &c.label, r)))
        .collect();
    let h = vec![
        "Case".to_owned(),
        "Goal".to_owned(),
        "Status".to_owned(),
        u.head("Lower bound"),
        u.head("Upper bound"),
        u.head("Throughput"),
        "Gbps L1".to_owned(),
        "Gbps L2".to_owned(),
        "% line rate".to_owned(),
        u.head("Tester-limited at"),
    ];
    table(out, None, &h, &rows);
    out.push_str(
        "<p class=\"note\">Per RFC 9971: the relevant lower and upper bounds of each goal's \
         load, and its conditional throughput (at the lower bound, the directions \
         together).</p>\n",
    );
}

/// The latency of the trials at fractions of the PDR's throughput, when there are any.
fn latency_under_load(out: &mut String, s: &SearchReport, u: Unit) {
    let under_load: Vec<Vec<String>> = s
        .cases
        .iter()
        .flat_map(|c| {
            c.latency_under_load.iter().flat_map(move |l| {
                l.trial.latency.iter().map(move |d| {
                    let us = |ns: Nanos| format!("{:.2}", ns.us());
                    let p = &d.latency;
                    vec![
                        c.label.clone(),
                        format!("{:.0} %", l.fraction * 100.0),
                        u.show(Some(l.trial.offered_load_pps)),
                        format!("{:.6}", l.trial.loss_ratio),
                        d.direction.short().to_owned(),
                        us(p.p50),
                        us(p.p90),
                        us(p.p99),
                        p.p99_9.map_or_else(|| "-".to_owned(), us),
                        us(p.max),
                    ]
                })
            })
        })
        .collect();
    if !under_load.is_empty() {
        out.push_str("<h3>Latency under load (fractions of the PDR's throughput)</h3>\n");
        let mut h = header(&["Case", "Load"]);
        h.push(u.head("Offered"));
        h.extend(header(&[
            "Loss ratio",
            "Dir",
            "p50 us",
            "p90 us",
            "p99 us",
            "p99.9 us",
            "Max us",
        ]));
        table(out, None, &h, &under_load);
    }
}

/// Every trial, folded.
fn trials(out: &mut String, s: &SearchReport, u: Unit) {
    let trials: Vec<Vec<String>> = s
        .cases
        .iter()
        .flat_map(|c| {
            c.trials
                .iter()
                .enumerate()
                .map(|(i, t)| trial_row(u, &c.label, i, t))
        })
        .collect();
    let _ = writeln!(
        out,
        "<details>\n<summary>Every trial ({})</summary>",
        trials.len()
    );
    let mut h = header(&["Case", "Trial"]);
    h.extend(["Intended", "Offered", "Forwarded"].map(|w| u.head(w)));
    h.extend(header(&["Loss ratio", "Duration s"]));
    h.extend(header(&WALL_COLUMNS));
    h.push("Tester-limited".to_owned());
    table(out, None, &h, &trials);
    out.push_str(
        "<p class=\"note\">Duration: from the trial's preparation to its collection, what the \
         goals' duration sums add. Wall: from the end of the trial before, in parts: set-up \
         (choosing, preparing and collecting the trial), warm-up, settle (<code>search.settle\
         </code>), traffic, drain (until every packet was accounted for, or the last one \
         arrived) and quiet (the wait for <code>search.quiet</code> of silence when some were \
         never accounted for).</p>\n",
    );
    out.push_str("</details>\n");
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::samples::search;

    #[test]
    fn results_per_case_and_goal_and_every_trial() {
        let s = search("x").search.unwrap();
        let mut out = String::new();
        search_tables(&mut out, &s);
        // Two cases × two goals.
        assert_eq!(out.matches("<tr><td>10 B both</td><td>NDR</td>").count(), 1);
        assert!(out.contains("<td>tester-limited</td>"), "{out}");
        assert!(out.contains("<td class=\"num\">2.6000</td><td class=\"num\">2.7500</td><td class=\"num\">2.5974</td>"), "{out}");
        assert!(out.contains("<summary>Every trial (16)</summary>"), "{out}");
        assert!(out.contains("<td>TX schedule slipped 3 %</td>"), "{out}");
        // Each trial's wall time in its parts.
        assert!(out.contains("<th>Wall s</th><th>Set-up s</th><th>Warm-up s</th><th>Settle s</th><th>Traffic s</th><th>Drain s</th><th>Quiet s</th>"), "{out}");
        assert!(
            out.contains("<td class=\"num\">1.250</td><td class=\"num\">0.020</td><td class=\"num\">0.000</td><td class=\"num\">0.000</td><td class=\"num\">1.001</td><td class=\"num\">0.004</td><td class=\"num\">0.225</td>"),
            "{out}"
        );
        assert!(out.contains("<td class=\"num\">90 %</td>"), "{out}");
        assert!(!out.contains("did not finish"));
        assert!(out.contains("<th>Lower bound Mpps</th>"), "{out}");
    }

    #[test]
    fn loads_under_a_million_a_second_are_in_kpps() {
        let mut s = search("x").search.unwrap();
        for c in &mut s.cases {
            c.max_load_pps = 20_000.0;
            for r in &mut c.results {
                r.lower_bound_pps = Some(5_120.0);
            }
        }
        let mut out = String::new();
        search_tables(&mut out, &s);
        assert!(out.contains("<th>Lower bound kpps</th>"), "{out}");
        assert!(out.contains("<th>Offered kpps</th>"), "{out}");
        assert!(out.contains("<td class=\"num\">5.120</td>"), "{out}");
    }
}
