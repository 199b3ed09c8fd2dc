//! The figures a comparison's plots draw, by series (a report's direction, or a search's goal)
//! and row (payload), unrounded.

use std::collections::{BTreeMap, BTreeSet};

use upfbench_report::{GoalStatus, Report, SearchDirections, SearchReport, TrialLatency};
use upfbench_stats::Direction;

use super::{Labelled, RowKey, case_row, step_row};

/// What a throughput plot measures.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Throughput {
    /// Gbit/s at layer 1 (the frame with its FCS, preamble and gap): what a link carries.
    GbpsL1,
    /// Millions of packets per second: what a UPF's per-packet work limits.
    Mpps,
}

impl Throughput {
    /// The axis's unit.
    pub(crate) fn unit(self) -> &'static str {
        match self {
            Throughput::GbpsL1 => "Gbps L1",
            Throughput::Mpps => "Mpps",
        }
    }
}

/// One series: a value per row.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Series<T> {
    /// Its name in the legend (`open5gs UL`, `eupf NDR`).
    pub name: String,
    /// Its values by row.
    pub values: BTreeMap<RowKey, T>,
    /// The rows whose value is a lower bound only (a search that reached Max Load or the
    /// tester's limit): drawn marked, never as the UPF's limit.
    pub(crate) lower_only: BTreeSet<RowKey>,
}

/// A latency's median and 99th percentile (µs).
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Spread {
    /// Median (µs).
    pub p50_us: f64,
    /// 99th percentile (µs).
    pub p99_us: f64,
}

/// A search's sets searched, and the name's suffix that tells them apart when it has several.
fn sets(search: &SearchReport) -> Vec<(SearchDirections, String)> {
    let mut sets: Vec<SearchDirections> = Vec::new();
    for c in &search.cases {
        if !sets.contains(&c.directions) {
            sets.push(c.directions);
        }
    }
    let several = sets.len() > 1;
    sets.into_iter()
        .map(|s| {
            (
                s,
                if several {
                    format!(" {s}")
                } else {
                    String::new()
                },
            )
        })
        .collect()
}

fn run_series<T>(
    label: &str,
    report: &Report,
    value: impl Fn(&upfbench_report::DirectionReport) -> Option<T>,
) -> Vec<Series<T>> {
    Direction::ALL
        .into_iter()
        .map(|d| {
            let mut values = BTreeMap::new();
            for step in &report.steps {
                for x in step.directions.iter().filter(|x| x.direction == d) {
                    if let Some(v) = value(x) {
                        values.entry(step_row(step, d)).or_insert(v);
                    }
                }
            }
            Series {
                name: format!("{label} {}", d.short()),
                values,
                lower_only: BTreeSet::new(),
            }
        })
        .filter(|s| !s.values.is_empty())
        .collect()
}

/// What each report forwarded: a run's received rate per direction, a search's conditional
/// throughput per goal (the directions together).
pub(crate) fn throughput(reports: &[Labelled<'_>], unit: Throughput) -> Vec<Series<f64>> {
    let mut out = Vec::new();
    for r in reports {
        let Some(search) = &r.report.search else {
            out.extend(run_series(r.label, r.report, |d| {
                Some(match unit {
                    Throughput::GbpsL1 => d.rx.gbps_l1,
                    Throughput::Mpps => d.rx.kpps / 1e3,
                })
            }));
            continue;
        };
        for (set, suffix) in sets(search) {
            for g in &search.goals {
                let mut values = BTreeMap::new();
                let mut lower_only = BTreeSet::new();
                for c in search.cases.iter().filter(|c| c.directions == set) {
                    let result = c.results.iter().find(|x| x.goal == g.name);
                    let v = result.and_then(|x| match unit {
                        Throughput::GbpsL1 => x.gbps_l1,
                        Throughput::Mpps => x.conditional_throughput_pps.map(|p| p / 1e6),
                    });
                    if let (Some(v), Some(x)) = (v, result) {
                        values.entry(case_row(c)).or_insert(v);
                        if matches!(
                            x.status,
                            GoalStatus::TesterLimited | GoalStatus::MaxLoadLowerBound
                        ) {
                            lower_only.insert(case_row(c));
                        }
                    }
                }
                out.push(Series {
                    name: format!("{} {}{suffix}", r.label, g.name),
                    values,
                    lower_only,
                });
            }
        }
    }
    out.retain(|s| !s.values.is_empty());
    out
}

/// Each report's latency: a run's per direction, a search's under load at the largest
/// fraction of its PDR it measured, per direction.
pub(crate) fn latency(reports: &[Labelled<'_>]) -> Vec<Series<Spread>> {
    let mut out = Vec::new();
    for r in reports {
        let Some(search) = &r.report.search else {
            out.extend(run_series(r.label, r.report, |d| {
                d.latency.as_ref().map(|l| Spread {
                    p50_us: l.percentiles.p50.us(),
                    p99_us: l.percentiles.p99.us(),
                })
            }));
            continue;
        };
        for (set, suffix) in sets(search) {
            for d in Direction::ALL {
                let mut values = BTreeMap::new();
                let mut fraction = None;
                for c in search.cases.iter().filter(|c| c.directions == set) {
                    let Some(under_load) = c
                        .latency_under_load
                        .iter()
                        .max_by(|a, b| a.fraction.total_cmp(&b.fraction))
                    else {
                        continue;
                    };
                    let named = |l: &&TrialLatency| l.direction == d;
                    if let Some(l) = under_load.trial.latency.iter().find(named) {
                        fraction = Some(under_load.fraction);
                        values.entry(case_row(c)).or_insert(Spread {
                            p50_us: l.latency.p50.us(),
                            p99_us: l.latency.p99.us(),
                        });
                    }
                }
                if let Some(f) = fraction {
                    out.push(Series {
                        name: format!("{} {}{suffix} @{:.0}% PDR", r.label, d.short(), f * 100.0),
                        values,
                        lower_only: BTreeSet::new(),
                    });
                }
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::samples::{search, sweep};

    #[test]
    fn runs_give_a_series_per_direction_and_searches_one_per_goal() {
        let (a, s) = (sweep("open5gs", 100), search("upg"));
        let reports = [
            Labelled {
                label: "open5gs",
                report: &a,
            },
            Labelled {
                label: "upg",
                report: &s,
            },
        ];
        let t = throughput(&reports, Throughput::Mpps);
        let names: Vec<&str> = t.iter().map(|s| s.name.as_str()).collect();
        assert_eq!(names, ["open5gs UL", "open5gs DL", "upg NDR", "upg PDR"]);
        assert_eq!(t[0].values.len(), 3);
        assert!((t[0].values[&RowKey::Payload(1400)] - 0.05).abs() < 1e-9);
        assert!((t[3].values[&RowKey::Payload(10)] - 2.997).abs() < 1e-9);
        let g = throughput(&reports, Throughput::GbpsL1);
        assert_eq!(
            g[0].values[&RowKey::Payload(10)],
            a.steps[0].directions[0].rx.gbps_l1
        );
        let l = latency(&reports);
        let names: Vec<&str> = l.iter().map(|s| s.name.as_str()).collect();
        // The search measured its latency under load at 90 % of its PDR, uplink only, at 10 B.
        assert_eq!(names, ["open5gs UL", "open5gs DL", "upg UL @90% PDR"]);
        assert_eq!(l[2].values.len(), 1);
        assert_eq!(
            l[2].values[&RowKey::Payload(10)],
            Spread {
                p50_us: 3.0,
                p99_us: 12.0
            }
        );
        // A search's trial names its direction.
        let s = search("upg");
        let l = latency(&[Labelled {
            label: "upg",
            report: &s,
        }]);
        assert_eq!(l.len(), 1);
        assert_eq!(l[0].name, "upg UL @90% PDR");
    }
}
