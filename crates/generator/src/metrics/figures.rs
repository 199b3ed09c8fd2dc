//! The generator's metrics: each step's traffic per direction, read from the running step's
//! workers at scrape time and from its report once collected; the PFCP node's counters.
//!
//! A step's series carry `step="N"` (1-based): a sweep's payloads and a search's trials are
//! apart, and each series only goes up. While a step runs its counters are the workers' last
//! publications (every 100 µs) and its latency the live lines' intervals so far; when it is
//! collected they become the report's figures and the exact histogram of every sample, which
//! are never below them.

use upfbench_report::{StepReport, ThroughputReport};
use upfbench_stats::{
    Direction, LatencyRecorder, RxCounters, RxCountersReader, RxHandle, TrafficCounters, TxHandle,
};

use upfbench_metrics::families::{self as f, Role};
use upfbench_metrics::histogram::LatencyBuckets;
use upfbench_metrics::{Exposition, Metrics, RoleFigures, Value};

use super::pfcp::PfcpFigures;

/// What the generator's scrape shows.
#[derive(Debug, Clone, Default)]
pub(crate) struct GeneratorFigures {
    running: Option<RunningStep>,
    finished: Vec<StepFigures>,
    /// Each step started so far (0-based) with its label.
    names: Vec<(usize, String)>,
    pub(super) pfcp: PfcpFigures,
}

/// The step whose workers run now: readers of their published counters.
#[derive(Debug, Clone)]
struct RunningStep {
    step: usize,
    rx: Vec<RxCountersReader>,
    tx: Vec<TxHandle>,
    /// The live lines' latency intervals so far, per direction.
    latency: [LatencyBuckets; 2],
}

/// A step's figures per direction.
#[derive(Debug, Clone)]
struct StepFigures {
    step: usize,
    directions: Vec<DirectionFigures>,
    /// Collected: the TX slip figures are known (zero when it did not slip).
    finished: bool,
}

/// One direction of a step.
#[derive(Debug, Clone)]
struct DirectionFigures {
    direction: Direction,
    sent: TrafficCounters,
    received: TrafficCounters,
    lost: u64,
    late: u64,
    duplicated: u64,
    reordered: u64,
    latency: LatencyBuckets,
    /// How far behind its schedule the sending is now (ns; a running step's).
    behind_ns: Option<u64>,
    /// Slips: times, seconds not made up at the end, most seconds late (a finished step's).
    slip: (u64, f64, f64),
}

impl RunningStep {
    /// The figures as the workers last published them.
    fn figures(&self) -> StepFigures {
        let tx: Vec<_> = self.tx.iter().map(TxHandle::snapshot).collect();
        let rx: Vec<_> = self.rx.iter().map(RxCountersReader::snapshot).collect();
        let mut directions = Vec::new();
        for d in Direction::ALL {
            let i = d.index();
            let mut sent = TrafficCounters::default();
            let mut behind_ns = 0;
            for s in &tx {
                sent.merge(&s.directions[i]);
                behind_ns = behind_ns.max(s.late_ns[i]);
            }
            let mut received = RxCounters::default();
            for s in &rx {
                received.merge(&s.directions[i]);
            }
            // A direction shows from its first packet, as on the live line.
            if sent.packets == 0 && received.traffic.packets == 0 {
                continue;
            }
            directions.push(DirectionFigures {
                direction: d,
                sent,
                received: received.traffic,
                lost: received.lost_confirmed,
                late: received.late,
                duplicated: received.duplicates,
                reordered: received.reordered,
                latency: self.latency[i].clone(),
                behind_ns: Some(behind_ns),
                slip: (0, 0.0, 0.0),
            });
        }
        StepFigures {
            step: self.step,
            directions,
            finished: false,
        }
    }
}

impl StepFigures {
    /// A collected step's figures: its report's, and the exact histograms of its samples.
    fn from_report(step: usize, report: &StepReport, latency: &[LatencyBuckets; 2]) -> Self {
        let directions = report
            .directions
            .iter()
            .map(|d| {
                let traffic = |t: &ThroughputReport| TrafficCounters {
                    packets: t.packets,
                    bytes_l2: t.bytes_l2,
                };
                DirectionFigures {
                    direction: d.direction,
                    sent: traffic(&d.tx),
                    received: traffic(&d.rx),
                    lost: d.loss.lost,
                    late: d.loss.late,
                    duplicated: d.loss.duplicates,
                    reordered: d.loss.reordered,
                    latency: latency[d.direction.index()].clone(),
                    behind_ns: None,
                    slip: d.tx_slip.map_or((0, 0.0, 0.0), |s| {
                        (s.count, s.slipped_us / 1e6, s.max_late_us / 1e6)
                    }),
                }
            })
            .collect();
        StepFigures {
            step,
            directions,
            finished: true,
        }
    }

    fn expose(&self, e: &mut Exposition) {
        let step = (self.step + 1).to_string();
        for d in &self.directions {
            let labels = [d.direction.name(), step.as_str()];
            let counters = [
                (&f::SENT_PACKETS, d.sent.packets),
                (&f::SENT_BYTES, d.sent.bytes_l2),
                (&f::RECEIVED_PACKETS, d.received.packets),
                (&f::RECEIVED_BYTES, d.received.bytes_l2),
                (&f::LOST_PACKETS, d.lost),
                (&f::LATE_PACKETS, d.late),
                (&f::DUPLICATED_PACKETS, d.duplicated),
                (&f::REORDERED_PACKETS, d.reordered),
            ];
            for (family, v) in counters {
                e.add(family, &labels, Value::Counter(v));
            }
            e.add(
                &f::LATENCY,
                &labels,
                Value::Histogram(Box::new(d.latency.clone())),
            );
            if let Some(ns) = d.behind_ns {
                e.add(&f::TX_BEHIND, &labels, Value::Gauge(ns as f64 / 1e9));
            }
            if self.finished {
                let (count, slipped, max_late) = d.slip;
                e.add(&f::TX_SLIPS, &labels, Value::Counter(count));
                e.add(&f::TX_SLIPPED, &labels, Value::Gauge(slipped));
                e.add(&f::TX_MAX_LATE, &labels, Value::Gauge(max_late));
            }
        }
    }
}

impl RoleFigures for GeneratorFigures {
    const ROLE: Role = Role::Generator;

    /// The step running or last run (1-based), if any started.
    fn step_now(&self) -> Option<usize> {
        self.names.last().map(|(s, _)| s + 1)
    }

    /// Adds the generator's samples to `e` (the running step's read now).
    fn expose(&self, e: &mut Exposition) {
        e.add(
            &f::STEP_NOW,
            &[],
            Value::Gauge(self.step_now().unwrap_or(0) as f64),
        );
        for (step, name) in &self.names {
            let step = (step + 1).to_string();
            e.add(&f::STEP_INFO, &[&step, name], Value::Gauge(1.0));
        }
        for s in &self.finished {
            s.expose(e);
        }
        if let Some(r) = &self.running {
            r.figures().expose(e);
        }
        self.pfcp.expose(e);
    }
}

/// The generator's endpoint.
pub(crate) type GeneratorMetrics = Metrics<GeneratorFigures>;

/// What a run tells its endpoint of its steps.
pub(crate) trait StepMetrics {
    /// Step `step` (0-based) started with these workers; `name` is its label.
    fn step_started(&self, step: usize, name: String, rx: &[RxHandle], tx: &[TxHandle]);
    /// A live line's latency interval of the running step (per direction).
    fn add_latency(&self, interval: &[LatencyRecorder; 2]);
    /// Step `step` was collected: its report and the histograms of every sample it measured.
    fn step_collected(&self, step: usize, report: &StepReport, latency: &[LatencyBuckets; 2]);
}

impl StepMetrics for GeneratorMetrics {
    fn step_started(&self, step: usize, name: String, rx: &[RxHandle], tx: &[TxHandle]) {
        let running = RunningStep {
            step,
            rx: rx.iter().map(RxHandle::counters).collect(),
            tx: tx.to_vec(),
            latency: [LatencyBuckets::default(), LatencyBuckets::default()],
        };
        self.update(|g| {
            g.names.push((step, name));
            g.running = Some(running);
        });
    }

    fn add_latency(&self, interval: &[LatencyRecorder; 2]) {
        let buckets = interval.each_ref().map(LatencyBuckets::from_recorder);
        self.update(|g| {
            if let Some(r) = &mut g.running {
                for (a, b) in r.latency.iter_mut().zip(&buckets) {
                    a.add(b);
                }
            }
        });
    }

    fn step_collected(&self, step: usize, report: &StepReport, latency: &[LatencyBuckets; 2]) {
        let figures = StepFigures::from_report(step, report, latency);
        self.update(|g| {
            if g.running.as_ref().is_some_and(|r| r.step == step) {
                g.running = None;
            }
            g.finished.push(figures);
        });
    }
}

#[cfg(test)]
mod tests;
