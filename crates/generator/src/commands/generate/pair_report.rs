//! A step's report from its workers' figures: the totals over every worker (the step's own
//! fields, as with one pair) and, with several port pairs, each pair's section from its own
//! workers and ports (docs/scale.md §2). Each flow's UE is on one pair and one worker, so the
//! pairs' figures add up to the totals: `RunResult::merge` adds counts and histograms alike.

use anyhow::Result;
use upfbench_dpdk::PortStats;
use upfbench_report::{PairSection, StepFigures, StepReport};
use upfbench_stats::{RunResult, RxCoreResult, TxCoreResult};

use super::interpreter::TestPair;
use crate::datapath::assembly::{StepOutcome, StepWorkers};
use crate::datapath::clock::Clock;
use crate::datapath::worker::WorkerCounters;
use crate::report::{self, StepMeasurements};
use upfbench_run::plan::Plan;

/// What a step's workers and ports measured, to be reported in total and per pair.
pub(super) struct Measured<'a, 's, 'p> {
    pub(super) plan: &'a Plan,
    pub(super) workers: &'a StepWorkers<'s, 'p>,
    pub(super) outcome: &'a StepOutcome,
    /// The clocks of the step's start and end.
    pub(super) clocks: (Clock, Clock),
    /// Each pair's N3 and N6 counters at the step's start and end.
    pub(super) before: &'a [[PortStats; 2]],
    pub(super) after: &'a [[PortStats; 2]],
}

/// One pair's raw figures over a step, for a program that hands them on (an agent's
/// `GET /v1/steps/{n}/result`): its counters and latency recorders merged over its workers,
/// and its section of the report (ports, frames, rejects).
#[derive(Debug, Clone)]
pub(crate) struct PairFigures {
    /// The pair's name.
    pub(crate) name: String,
    /// Its workers' figures merged: per direction and stream, the recorders whole.
    pub(crate) run: RunResult,
    /// Its report, as a pair's section has it.
    pub(crate) figures: StepFigures,
}

impl PairFigures {
    /// The pair's section of the step's report.
    pub(super) fn section(&self) -> PairSection {
        PairSection {
            name: self.name.clone(),
            figures: self.figures.clone(),
        }
    }
}

/// One pair's workers' part of a step's outcome.
#[derive(Debug, Default)]
pub(crate) struct PairPart {
    pub(crate) tx: Vec<TxCoreResult>,
    pub(crate) rx: Vec<RxCoreResult>,
    pub(crate) counters: WorkerCounters,
    pub(crate) rx_by_worker: Vec<[u64; 2]>,
}

/// The figures of the workers of pair `pair` (`of_worker[w]`: worker `w`'s pair).
pub(crate) fn pair_part(outcome: &StepOutcome, of_worker: &[u16], pair: u16) -> PairPart {
    let mut part = PairPart::default();
    for (w, _) in of_worker.iter().enumerate().filter(|(_, p)| **p == pair) {
        part.tx.push(outcome.tx[w].clone());
        part.rx.push(outcome.rx[w].clone());
        part.counters.add(&outcome.by_worker[w]);
        part.rx_by_worker.push(outcome.rx_by_worker[w]);
    }
    part
}

impl Measured<'_, '_, '_> {
    /// The step's report over every worker: with one pair its ports' and queues' figures as
    /// ever; with several, each side's port counters summed over the pairs, its queues in the
    /// pairs' sections only.
    pub(super) fn totals(&self, pairs: &[TestPair<'_>]) -> Result<StepReport> {
        let sides = [0, 1].map(|s| {
            let sum = |stats: &[[PortStats; 2]]| {
                stats
                    .iter()
                    .map(|p| p[s])
                    .reduce(add_stats)
                    .unwrap_or_default()
            };
            (sum(self.before), sum(self.after))
        });
        let several = pairs.len() > 1;
        let o = self.outcome;
        report::step_report(&StepMeasurements {
            plan: self.plan,
            specs: &self.workers.specs,
            tx: &o.tx,
            rx: &o.rx,
            counters: &o.counters,
            start_clock: self.clocks.0,
            end_clock: self.clocks.1,
            ports: sides,
            rx_by_worker: if several { &[] } else { &o.rx_by_worker },
            rx_spread: [0, 1].map(|s| pairs.first().map_or("", |p| p.rx_spread[s].as_str())),
            one_port: pairs.iter().all(|p| p.ports[0].id() == p.ports[1].id()),
        })
    }

    /// Each pair's raw figures (see [`PairFigures`]), one pair or several.
    pub(super) fn pair_figures(&self, pairs: &[TestPair<'_>]) -> Result<Vec<PairFigures>> {
        pairs
            .iter()
            .enumerate()
            .map(|(k, p)| {
                let (part, step) = self.pair_step(k, p)?;
                let run =
                    RunResult::merge(&self.workers.specs, &part.tx, &part.rx, &self.plan.latency)?;
                Ok(PairFigures {
                    name: p.name.to_owned(),
                    run,
                    figures: StepFigures::of(step),
                })
            })
            .collect()
    }

    /// Each pair's section, when there are several pairs (none with one).
    pub(super) fn per_pair(&self, pairs: &[TestPair<'_>]) -> Result<Vec<PairSection>> {
        if pairs.len() < 2 {
            return Ok(Vec::new());
        }
        pairs
            .iter()
            .enumerate()
            .map(|(k, p)| {
                Ok(PairSection {
                    name: p.name.to_owned(),
                    figures: StepFigures::of(self.pair_step(k, p)?.1),
                })
            })
            .collect()
    }

    /// Pair `k`'s workers' part of the step, and the step as that pair measured it.
    fn pair_step(&self, k: usize, p: &TestPair<'_>) -> Result<(PairPart, StepReport)> {
        let part = pair_part(self.outcome, &self.workers.pairs, k as u16);
        let step = report::step_report(&StepMeasurements {
            plan: self.plan,
            specs: &self.workers.specs,
            tx: &part.tx,
            rx: &part.rx,
            counters: &part.counters,
            start_clock: self.clocks.0,
            end_clock: self.clocks.1,
            ports: [0, 1].map(|s| (self.before[k][s], self.after[k][s])),
            rx_by_worker: &part.rx_by_worker,
            rx_spread: [0, 1].map(|s| p.rx_spread[s].as_str()),
            one_port: p.ports[0].id() == p.ports[1].id(),
        })?;
        Ok((part, step))
    }
}

/// Two ports' counters added: the totals of one side over the pairs.
fn add_stats(a: PortStats, b: PortStats) -> PortStats {
    let mut rx_queues = a.rx_queues;
    for (x, y) in rx_queues.iter_mut().zip(b.rx_queues) {
        *x += y;
    }
    PortStats {
        ipackets: a.ipackets + b.ipackets,
        opackets: a.opackets + b.opackets,
        ibytes: a.ibytes + b.ibytes,
        imissed: a.imissed + b.imissed,
        obytes: a.obytes + b.obytes,
        ierrors: a.ierrors + b.ierrors,
        oerrors: a.oerrors + b.oerrors,
        rx_nombuf: a.rx_nombuf + b.rx_nombuf,
        rx_queues,
    }
}

#[cfg(test)]
mod tests;
