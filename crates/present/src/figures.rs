//! Which plots a report folder and a comparison get, under which file names and captions:
//! one list that the page embeds and the writer saves beside it.

use upfbench_report::{GoalSpec, Report, SearchCase, StepReport};

use crate::compare::Labelled;
use crate::compare::series::{self, Throughput};
use crate::distribution::{from_histogram, from_summary};
use crate::error::PlotError;
use crate::hlog::direction_histograms;
use crate::plot::compare_latency::compare_latency;
use crate::plot::compare_throughput::compare_throughput;
use crate::plot::latency_distribution::{DistributionCurve, latency_distribution};
use crate::plot::n4_timeline::n4_timeline;
use crate::plot::search_loss::search_loss;
use crate::plot::timeline::timeline;

/// One plot of a page.
#[derive(Debug)]
pub struct Figure {
    /// Its file's name beside the page (`latency-300B.svg`).
    pub file_name: String,
    /// What it shows, under it on the page.
    pub caption: String,
    /// The SVG document, or why it could not be drawn.
    pub svg: Result<String, PlotError>,
}

/// A name for files: `300 B` → `300B`, `10 B both` → `10B-both`; other than letters, digits
/// and `-`, `.`, `_` becomes `-`.
pub(crate) fn file_stem(label: &str) -> String {
    let joined = label.replace(" B", "B");
    let stem: String = joined
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || "-._".contains(c) {
                c
            } else {
                '-'
            }
        })
        .collect();
    stem.trim_matches('-').to_owned()
}

/// The latency distribution of `step`, a curve per direction: from its interval log when it
/// has one (the whole distribution), else from the report's percentiles. The caption says
/// which.
fn distribution(step: &StepReport, hlog: Option<&[u8]>, stem: &str, what: &str) -> Option<Figure> {
    let mut note = "from the step's latency interval log (.hlog)".to_owned();
    let histograms = match hlog.map(direction_histograms) {
        Some(Ok(h)) => h,
        Some(Err(e)) => {
            note = format!("from the report's percentiles: {e}");
            Default::default()
        }
        None => {
            note = "from the report's percentiles (no interval log)".to_owned();
            Default::default()
        }
    };
    let curves: Vec<DistributionCurve> = step
        .directions
        .iter()
        .filter_map(|d| {
            let points = match histograms.get(&d.direction) {
                Some(h) if !h.is_empty() => from_histogram(h),
                _ => from_summary(d.latency.as_ref()?),
            };
            Some(DistributionCurve {
                name: d.direction.name().to_owned(),
                points,
            })
        })
        .collect();
    if curves.is_empty() {
        return None;
    }
    Some(Figure {
        file_name: format!("latency-{stem}.svg"),
        caption: format!("{what}: one-way latency by percentile, {note}."),
        svg: latency_distribution(&format!("{what}: latency by percentile"), &curves),
    })
}

/// The plots of a report: a search's loss against load per case and its latency under load;
/// a run's or sweep's latency distribution and timeline per step. `hlogs` holds each step's
/// interval log, by index (missing ones `None`).
pub fn report_figures(report: &Report, hlogs: &[Option<&[u8]>]) -> Vec<Figure> {
    let mut out = Vec::new();
    if let Some(search) = &report.search {
        for case in &search.cases {
            search_case_figures(&mut out, report, hlogs, &search.goals, case);
        }
        return out;
    }
    for (i, step) in report.steps.iter().enumerate() {
        step_figures(&mut out, report, hlogs.get(i).copied().flatten(), step);
    }
    out
}

/// A search case's loss against load, and its latency under load at each fraction.
fn search_case_figures(
    out: &mut Vec<Figure>,
    report: &Report,
    hlogs: &[Option<&[u8]>],
    goals: &[GoalSpec],
    case: &SearchCase,
) {
    let stem = file_stem(&case.label);
    out.push(Figure {
        file_name: format!("search-{stem}.svg"),
        caption: format!(
            "{}: every trial's loss ratio against its offered load; dashed, the goals' \
             loss ratios; solid, each goal's relevant lower and upper bounds.",
            case.label
        ),
        svg: search_loss(goals, case),
    });
    for l in &case.latency_under_load {
        let Some(step) = report.steps.get(l.trial.step) else {
            continue;
        };
        let pct = format!("{:.0}", l.fraction * 100.0);
        let what = format!("{} at {pct} % of the PDR", case.label);
        out.extend(distribution(
            step,
            hlogs.get(l.trial.step).copied().flatten(),
            &format!("{stem}-{pct}pct"),
            &what,
        ));
    }
}

/// A run's or sweep's step: its latency distribution (from `hlog`, its interval log, when
/// there is one) and its timeline, with the control plane's when it had churn.
fn step_figures(out: &mut Vec<Figure>, report: &Report, hlog: Option<&[u8]>, step: &StepReport) {
    let stem = file_stem(&step.label);
    let stem = if report.steps.len() == 1 && step.payload_bytes.is_none() {
        String::new()
    } else {
        stem
    };
    let named = |kind: &str| {
        if stem.is_empty() {
            format!("{kind}.svg")
        } else {
            format!("{kind}-{stem}.svg")
        }
    };
    if let Some(mut f) = distribution(step, hlog, &stem, &step.label) {
        f.file_name = named("latency");
        out.push(f);
    }
    if let Some(c) = step
        .churn
        .as_ref()
        .filter(|c| c.on && !step.seconds.is_empty())
    {
        out.push(Figure {
            file_name: named("timeline"),
            caption: format!(
                "{}: each second, the control plane between the data plane's panels: the \
                 rates; the session procedures asked (dashed) and answered with success \
                 (solid) in the second; their latency; the losses confirmed in the second; \
                 the packets' latency.",
                step.label
            ),
            svg: n4_timeline(
                &format!("{}: each second", step.label),
                &step.seconds,
                &c.seconds,
            ),
        });
    } else if !step.seconds.is_empty() {
        out.push(Figure {
            file_name: named("timeline"),
            caption: format!(
                "{}: each second as the live line showed it (warm-up and drain included): \
                 rates, the losses confirmed in the second, and latency.",
                step.label
            ),
            svg: timeline(&format!("{}: each second", step.label), &step.seconds),
        });
    }
}

/// The plots of a comparison: throughput in Gbps L1 and in Mpps, and latency.
pub fn compare_figures(reports: &[Labelled<'_>]) -> Vec<Figure> {
    let mut out: Vec<Figure> = [Throughput::GbpsL1, Throughput::Mpps]
        .into_iter()
        .map(|unit| Figure {
            file_name: match unit {
                Throughput::GbpsL1 => "compare-throughput-gbps.svg".to_owned(),
                Throughput::Mpps => "compare-throughput-mpps.svg".to_owned(),
            },
            caption: format!(
                "Throughput forwarded per payload ({}): runs and sweeps per direction, \
                 searches per goal (the conditional throughput, directions together); ≥ on a \
                 bar: a lower bound only (the tester's limit or Max Load), not the UPF's.",
                unit.unit()
            ),
            svg: compare_throughput(&series::throughput(reports, unit), unit),
        })
        .collect();
    out.push(Figure {
        file_name: "compare-latency.svg".to_owned(),
        caption: "One-way latency per payload: p50 to p99, runs and sweeps per direction, \
                  searches under load at the largest fraction of their PDR measured."
            .to_owned(),
        svg: compare_latency(&series::latency(reports)),
    });
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::samples::{search, sweep};

    #[test]
    fn file_stems_say_what_they_are() {
        assert_eq!(file_stem("300 B"), "300B");
        assert_eq!(file_stem("10 B both"), "10B-both");
        assert_eq!(file_stem("1400 B, \"paced\""), "1400B---paced");
        assert_eq!(file_stem("run"), "run");
    }

    #[test]
    fn a_sweep_gets_a_distribution_and_a_timeline_per_step() {
        let report = sweep("x", 100);
        let figures = report_figures(&report, &[]);
        let names: Vec<&str> = figures.iter().map(|f| f.file_name.as_str()).collect();
        assert_eq!(
            names,
            [
                "latency-10B.svg",
                "timeline-10B.svg",
                "latency-300B.svg",
                "timeline-300B.svg",
                "latency-1400B.svg",
                "timeline-1400B.svg"
            ]
        );
        assert!(figures.iter().all(|f| f.svg.is_ok()));
        assert!(
            figures[0]
                .caption
                .ends_with("from the report's percentiles (no interval log).")
        );
        // A damaged interval log: the percentiles, and why.
        let damaged: &[u8] = b"not a log\n";
        let figures = report_figures(&report, &[Some(damaged)]);
        assert!(
            figures[0]
                .caption
                .contains("from the report's percentiles: latency interval log:"),
            "{}",
            figures[0].caption
        );
        assert!(figures[0].svg.is_ok());
    }

    #[test]
    fn a_search_gets_its_cases_and_its_latency_under_load() {
        let figures = report_figures(&search("x"), &[]);
        let names: Vec<&str> = figures.iter().map(|f| f.file_name.as_str()).collect();
        assert_eq!(
            names,
            [
                "search-10B-both.svg",
                "latency-10B-both-90pct.svg",
                "search-1400B-both.svg"
            ]
        );
    }

    #[test]
    fn a_comparison_gets_throughput_twice_and_latency() {
        let (a, s) = (sweep("a", 100), search("s"));
        let figures = compare_figures(&[
            Labelled {
                label: "a",
                report: &a,
            },
            Labelled {
                label: "s",
                report: &s,
            },
        ]);
        let names: Vec<&str> = figures.iter().map(|f| f.file_name.as_str()).collect();
        assert_eq!(
            names,
            [
                "compare-throughput-gbps.svg",
                "compare-throughput-mpps.svg",
                "compare-latency.svg"
            ]
        );
        assert!(figures.iter().all(|f| f.svg.is_ok()));
    }
}
