//! A churn step's tables on its page: each session procedure asked and answered with its
//! latency; the churn sessions' activation lag; the loss with churn beside the loss without.

use std::fmt::Write as _;

use upfbench_report::{ChurnReport, DirectionLoss, Nanos, Percentiles, Report};

use super::{escape, table};

fn ms(p: &Option<Percentiles>, f: impl Fn(&Percentiles) -> Nanos) -> String {
    p.as_ref()
        .map_or_else(|| "-".to_owned(), |p| format!("{:.3}", f(p).ms()))
}

fn loss(l: &[DirectionLoss]) -> String {
    l.iter()
        .map(|d| format!("{} {} of {}", d.direction.short(), d.lost, d.sent))
        .collect::<Vec<_>>()
        .join(", ")
}

fn one(out: &mut String, label: &str, c: &ChurnReport) {
    let _ = writeln!(
        out,
        "<h3>Session churn: {}</h3>\n<p>{}/s established and deleted ({} ms each), {}/s of the \
         traffic's sessions modified; a probe every {} ms to each churn session.</p>",
        escape(label),
        c.rate,
        c.lifetime_ms,
        c.modify_rate,
        c.probe_interval_ms
    );
    let header: Vec<String> = [
        "Procedure",
        "Planned",
        "Sent",
        "Succeeded",
        "Failed",
        "Done/s",
        "p50 ms",
        "p99 ms",
        "Max ms",
    ]
    .map(str::to_owned)
    .to_vec();
    let rows: Vec<Vec<String>> = [
        ("Establishment", &c.establishments, c.achieved_per_s[0]),
        ("Modification", &c.modifications, c.achieved_per_s[1]),
        ("Deletion", &c.deletions, c.achieved_per_s[2]),
    ]
    .into_iter()
    .map(|(name, f, rate)| {
        vec![
            name.to_owned(),
            f.planned.to_string(),
            f.sent.to_string(),
            f.succeeded.to_string(),
            f.failed.to_string(),
            format!("{rate:.1}"),
            ms(&f.latency, |p| p.p50),
            ms(&f.latency, |p| p.p99),
            ms(&f.latency, |p| p.max),
        ]
    })
    .collect();
    table(out, None, &header, &rows);
    let a = &c.activation;
    let header: Vec<String> = ["Activation lag", "p50 ms", "p90 ms", "p99 ms", "Max ms"]
        .map(str::to_owned)
        .to_vec();
    let rows = [("at most", &a.lag), ("at least", &a.lag_floor)]
        .into_iter()
        .map(|(name, p)| {
            vec![
                name.to_owned(),
                ms(p, |p| p.p50),
                ms(p, |p| p.p90),
                ms(p, |p| p.p99),
                ms(p, |p| p.max),
            ]
        })
        .collect::<Vec<_>>();
    table(out, None, &header, &rows);
    let _ = writeln!(
        out,
        "<p>{} of {} churn sessions forwarded before their Establishment Response came, {} \
         never; {} probes sent after a response met no rule. Loss with churn: {}.{}</p>",
        a.before_answer,
        a.established,
        a.never_forwarded,
        a.lost_after_answer,
        escape(&loss(&c.loss)),
        c.baseline.as_ref().map_or_else(String::new, |b| format!(
            " Without churn ({}): {}.",
            escape(&b.label),
            escape(&loss(&b.loss))
        ))
    );
}

/// The churn tables of `report`'s steps that ran churn.
pub(crate) fn churn_tables(out: &mut String, report: &Report) {
    for s in &report.steps {
        if let Some(c) = s.churn.as_ref().filter(|c| c.on) {
            one(out, &s.label, c);
        }
    }
}

#[cfg(test)]
mod tests {
    use upfbench_report::{Activation, Baseline, ProcedureFigures};
    use upfbench_stats::Direction;

    use super::*;
    use crate::samples::sweep;

    fn figures(n: u64, failed: u64) -> ProcedureFigures {
        ProcedureFigures {
            planned: n,
            sent: n,
            succeeded: n - failed,
            failed,
            latency: Percentiles::of_ms([0.25, 0.5, 4.0]),
            first_error: None,
        }
    }

    #[test]
    fn a_churn_step_has_its_procedures_lag_and_both_losses() {
        let mut r = sweep("x", 100);
        let loss = |lost| {
            vec![DirectionLoss {
                direction: Direction::Downlink,
                sent: 1_000,
                lost,
            }]
        };
        r.steps[1].churn = Some(ChurnReport {
            on: true,
            rate: 50.0,
            lifetime_ms: 1000.0,
            modify_rate: 25.0,
            probe_interval_ms: 0.1,
            establishments: figures(450, 0),
            modifications: figures(250, 2),
            deletions: figures(450, 0),
            achieved_per_s: [50.0, 24.8, 50.0],
            activation: Activation {
                established: 450,
                never_forwarded: 1,
                before_answer: 300,
                lag: Percentiles::of_ms([0.0, 0.1, 0.3]),
                lag_floor: Percentiles::of_ms([0.0, 0.0, 0.2]),
                lost_after_answer: 3,
                probes_sent: 100,
                probes_received: 90,
            },
            loss: loss(7),
            baseline: Some(Baseline {
                label: "300 B, no churn".into(),
                loss: loss(0),
            }),
            seconds: Vec::new(),
            sessions: Vec::new(),
        });
        let mut out = String::new();
        churn_tables(&mut out, &r);
        assert_eq!(out.matches("<h3>Session churn: ").count(), 1);
        assert_eq!(out.matches("<table>").count(), 2);
        assert!(
            out.contains(
                "<tr><td>Modification</td><td class=\"num\">250</td><td class=\"num\">250</td>\
                 <td class=\"num\">248</td><td class=\"num\">2</td><td class=\"num\">24.8</td>"
            ),
            "{out}"
        );
        assert!(out.contains("<tr><td>at least</td><td class=\"num\">0.000</td>"));
        assert!(out.contains("300 of 450 churn sessions forwarded before"));
        assert!(out.contains(
            "Loss with churn: DL 7 of 1000. Without churn (300 B, no churn): DL 0 of 1000."
        ));
    }
}
