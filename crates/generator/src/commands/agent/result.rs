//! A step's figures as an agent hands them to a coordinator (`GET /v1/steps/{n}/result`,
//! docs/scale.md §3 "The exact merge"): per pair, the raw counters and the latency histograms
//! whole (HDR V2 deflate, lossless), never percentiles, so that the coordinator's merge is what
//! one box would have measured.

use std::collections::BTreeMap;

use upfbench_api::v1::{
    DirectionFigures, HistogramError, LatencyHistogram, PairResult, StepResult, StreamFigures,
};
use upfbench_stats::{LatencyRecorder, RunResult, SeqCounters};

use crate::commands::generate::pair_report::PairFigures;
use crate::commands::generate::step;
use upfbench_run::plan::{Plan, StreamPlan};

/// What a step's result says besides its figures.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Of<'a> {
    pub(crate) agent: &'a str,
    /// The step's number, as the API armed it.
    pub(crate) step: u32,
    pub(crate) plan: &'a Plan,
    /// How late its first phase was posted against the common start time (ns).
    pub(crate) start_late_ns: i64,
    pub(crate) tsc_hz: f64,
}

/// The API's result of a step that `measured` (with each pair's figures kept).
pub(crate) fn step_result(
    of: &Of<'_>,
    measured: &step::StepResult,
) -> Result<StepResult, HistogramError> {
    let mut warnings = measured.report.warnings.clone();
    let mut shared = false;
    let pairs = measured
        .pairs
        .iter()
        .enumerate()
        .map(|(k, p)| pair_result(of.plan, k as u16, p, &mut shared))
        .collect::<Result<Vec<_>, _>>()?;
    if shared {
        warnings.push(
            "the workers measure latency per direction, not per stream: a stream that shares \
             its direction with another on a pair has an empty histogram (the direction's \
             holds its samples)"
                .into(),
        );
    }
    Ok(StepResult {
        step: of.step,
        agent: of.agent.to_owned(),
        latency: upfbench_cluster::merge::settings(&of.plan.latency),
        start_late_ns: of.start_late_ns,
        duration_ns: (measured.report.duration_s * 1e9).round() as u64,
        tsc_hz: of.tsc_hz,
        warnings,
        pairs,
    })
}

/// Pair `k`'s figures; `shared` is set when a stream shares its direction with another.
fn pair_result(
    plan: &Plan,
    k: u16,
    p: &PairFigures,
    shared: &mut bool,
) -> Result<PairResult, HistogramError> {
    let run: &RunResult = &p.run;
    let directions = run
        .directions
        .iter()
        .filter(|d| d.streams > 0)
        .map(|d| {
            Ok(DirectionFigures {
                direction: d.direction,
                tx: d.tx,
                rx: d.rx,
                seq: d.seq,
                latency: LatencyHistogram::of(&d.latency)?,
            })
        })
        .collect::<Result<Vec<_>, HistogramError>>()?;
    let empty = LatencyHistogram::of(&LatencyRecorder::new(&plan.latency)?)?;
    let mut of = Streams {
        plan,
        k,
        pair: p,
        directions: &directions,
        empty: &empty,
        shared: false,
    };
    let streams = plan.streams.iter().map(|s| of.stream(s)).collect();
    *shared |= of.shared;
    let f = &p.figures;
    Ok(PairResult {
        pair: p.name.clone(),
        directions,
        streams,
        qfis: Vec::new(),
        ports: f.ports.clone(),
        frames: f.frames.clone(),
        rx_rejected: f
            .rx_rejected
            .iter()
            .map(|(k, n)| (k.to_string(), *n))
            .collect::<BTreeMap<_, _>>(),
        rx_untagged: f.rx_untagged,
        rx_unknown_stream: f.rx_unknown_stream,
        seconds: Vec::new(),
    })
}

/// What the streams' figures of pair `k` are made from.
struct Streams<'a> {
    plan: &'a Plan,
    k: u16,
    pair: &'a PairFigures,
    /// The pair's directions, their histograms encoded.
    directions: &'a [DirectionFigures],
    /// A histogram without samples.
    empty: &'a LatencyHistogram,
    /// A stream shares its direction with another on the pair.
    shared: bool,
}

impl Streams<'_> {
    /// Stream `planned` over its flows on the pair (the statistics' stream ids are the flows:
    /// a stream's are `flow_base..`, one per UE).
    fn stream(&mut self, planned: &StreamPlan) -> StreamFigures {
        let (plan, k) = (self.plan, self.k);
        let flows = flows_on(plan, k, planned.id);
        let first = planned.flow_base as usize;
        let of_stream = self
            .pair
            .run
            .streams
            .get(first..first + planned.ue_count() as usize)
            .unwrap_or_default();
        let mut seq = SeqCounters::default();
        let (mut jitter_sum, mut jitter_flows) = (0.0, 0u32);
        for f in of_stream {
            seq.merge(&f.seq);
            if let Some(j) = f.jitter_ns {
                jitter_sum += j;
                jitter_flows += 1;
            }
        }
        let alone = plan
            .streams
            .iter()
            .filter(|o| o.direction == planned.direction && flows_on(plan, k, o.id) > 0)
            .count()
            == 1;
        let latency = if alone {
            self.directions
                .iter()
                .find(|d| d.direction == planned.direction)
                .map_or_else(|| self.empty.clone(), |d| d.latency.clone())
        } else {
            self.shared |= flows > 0;
            self.empty.clone()
        };
        StreamFigures {
            stream: u32::from(planned.id),
            name: planned.name.clone(),
            direction: planned.direction,
            flows,
            seq,
            jitter_mean_ns: (jitter_flows > 0).then(|| jitter_sum / f64::from(jitter_flows)),
            jitter_flows,
            latency,
            tx_slip: self
                .pair
                .figures
                .streams
                .iter()
                .find(|f| f.name == planned.name && f.direction == planned.direction)
                .and_then(|f| f.tx_slip),
        }
    }
}

/// The UEs of stream `id` that pair `k`'s workers send for.
fn flows_on(plan: &Plan, k: u16, id: u16) -> u32 {
    plan.workers
        .iter()
        .filter(|w| w.pair == k)
        .flat_map(|w| &w.shares)
        .filter(|s| s.stream == id)
        .map(|s| s.count)
        .sum()
}
