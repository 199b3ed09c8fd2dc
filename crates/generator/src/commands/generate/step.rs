//! One step from the run's side: its workers launched with the live meter and the counters
//! read at its start; at its end the workers joined, the report's step section made, and the
//! kernel's counters, the latency interval log and the live lines (the step's timeline) added.

use std::time::{Instant, SystemTime};

use anyhow::Result;
use upfbench_dpdk::{LcoreScope, Port, PortStats, tsc};
use upfbench_report::{StepPhase, StepReport, StepSecond};
use upfbench_stats::{IntervalLog, LiveMeter, RxHandle, TxHandle};

use super::interpreter::TestPair;
use super::pair_report::{Measured, PairFigures};
use super::upf_watch::Totals;
use crate::commands::kernel_counters::{KernelCounters, KernelReading};
use crate::commands::live::{LiveBoard, collect_intervals};
use crate::datapath::assembly::{Idle, StepWiring, StepWorkers, join, launch};
use crate::datapath::clock::Clock;
use crate::datapath::worker::WorkerCounters;
use crate::metrics::{GeneratorMetrics, StepMetrics};
use crate::report;
use upfbench_datapath::calibration::{TscCalibration, measure_now};
use upfbench_metrics::histogram::LatencyBuckets;
use upfbench_n4::client_side::{ChurnOutcome, HandoverOutcome, Pending};
use upfbench_run::phase::{Phase, PhaseBoard};
use upfbench_run::plan::Plan;

/// One step's workers while they run.
pub(super) struct Running<'s, 'p> {
    pub(super) workers: StepWorkers<'s, 'p>,
    live: LiveMeter,
    pub(super) measure_started: Option<Instant>,
    pub(super) measure_ended: Option<Instant>,
    /// Each pair's N3 and N6 counters at the step's start.
    ports_before: Vec<[PortStats; 2]>,
    /// The step's clock: its TSC frequency is the one measured when the step started.
    pub(super) clock: Clock,
    kernel_before: KernelReading,
    /// The live lines so far, for the step's timeline in the report.
    seconds: Vec<StepSecond>,
    /// The step's handovers in the PFCP thread, once the measured phase started them.
    pub(super) handovers: Option<Pending<Vec<HandoverOutcome>>>,
    /// The step's churn in the PFCP thread, once the measured phase started it.
    pub(super) churn: Option<Pending<Vec<ChurnOutcome>>>,
    /// The modifications closing the step's gate (`qos_gate`), once the measured phase started
    /// them.
    pub(super) gate: Option<Pending<Vec<HandoverOutcome>>>,
    /// The run clock at the live meter's baseline: the timeline's zero (ns).
    live_start_ns: u64,
}

/// What a step measured.
pub(crate) struct StepResult {
    pub(crate) report: StepReport,
    /// The step's HdrHistogram interval log.
    pub(crate) hlog: Option<Vec<u8>>,
    /// Every latency sample per direction, in the metrics' buckets.
    pub(crate) latency: [LatencyBuckets; 2],
    /// Each pair's raw figures, when the program asked for them (empty otherwise).
    pub(crate) pairs: Vec<PairFigures>,
}

/// Packets the step's workers received so far (any, measured or not), as last published.
pub(super) fn received(r: &Running<'_, '_>) -> u64 {
    r.workers
        .rx
        .iter()
        .map(|h| {
            let s = h.snapshot();
            s.directions.iter().map(|d| d.traffic.packets).sum::<u64>()
                + s.untagged
                + s.unknown_stream
        })
        .sum()
}

/// The step's packets sent and received (measured traffic, every phase), as last published.
pub(super) fn totals(r: &Running<'_, '_>) -> Totals {
    let sent = r
        .workers
        .tx
        .iter()
        .map(|h| {
            h.snapshot()
                .directions
                .iter()
                .map(|d| d.packets)
                .sum::<u64>()
        })
        .sum();
    let received = r
        .workers
        .rx
        .iter()
        .map(|h| {
            let s = h.snapshot();
            s.directions.iter().map(|d| d.traffic.packets).sum::<u64>()
        })
        .sum();
    Totals { sent, received }
}

/// Whether every measured packet the step sent is accounted for, as last published: each
/// worker's ports took all it held in the drain (its transmit counters are final then), and the
/// packets received once or lost beyond the reorder window add up to those sent.
pub(super) fn accounted(r: &Running<'_, '_>, control: &PhaseBoard) -> bool {
    if (control.workers_drained() as usize) < r.workers.handles.len() {
        return false;
    }
    let sent: u64 = r
        .workers
        .tx
        .iter()
        .map(|h| {
            h.snapshot()
                .directions
                .iter()
                .map(|d| d.packets)
                .sum::<u64>()
        })
        .sum();
    let resolved: u64 = r
        .workers
        .rx
        .iter()
        .map(|h| {
            let s = h.snapshot();
            s.directions
                .iter()
                .map(|d| d.unique + d.lost_confirmed)
                .sum::<u64>()
        })
        .sum();
    resolved >= sent
}

/// The clock of a step's edge, now: the TSC frequency measured from the process's start to
/// now, after waiting for the calibration's shortest span if the run got here sooner (EAL's
/// estimate `dpdk_hz` only if the TSC did not move forward).
pub(super) fn step_clock(calibration: &mut TscCalibration, start: u64, dpdk_hz: u64) -> Clock {
    Clock::new(measure_now(calibration, dpdk_hz), start)
}

/// Reads the ports' (each pair's N3 and N6) and the kernel's counters and launches the step's
/// workers, idle.
pub(super) fn start<'s, 'p>(
    scope: &'s LcoreScope<'s, 'p>,
    wiring: &StepWiring<'_, 'p>,
    idle: &mut Idle<'p>,
    ports: &[[&Port<'_>; 2]],
    kernel: &KernelCounters,
) -> Result<Running<'s, 'p>> {
    let mut live = LiveMeter::new(&wiring.plan.latency)?.with_interval_log(IntervalLog::new(
        SystemTime::now(),
        &format!(
            "upfbench {} latency intervals, step {}",
            env!("CARGO_PKG_VERSION"),
            report::step_label(wiring.plan)
        ),
    ));
    let ports_before = ports
        .iter()
        .map(|p| Ok([p[0].stats()?, p[1].stats()?]))
        .collect::<Result<Vec<_>>>()?;
    let kernel_before = kernel.read();
    // The live meter's baseline, and the interval log's time zero.
    let live_start_ns = wiring.clock.ns(tsc());
    live.line(live_start_ns, &[], &[]);
    let workers = launch(scope, wiring, idle)?;
    Ok(Running {
        workers,
        live,
        measure_started: None,
        measure_ended: None,
        ports_before,
        clock: wiring.clock,
        kernel_before,
        seconds: Vec::new(),
        handovers: None,
        churn: None,
        gate: None,
        live_start_ns,
    })
}

/// The live line of a running step (the caller shows it once a second); its latency interval
/// also goes to the metrics, if any. `shown`: the line is printed, and so asks the workers for
/// the latency up to now and waits for it (at most 200 ms); a line made only for the metrics
/// takes the intervals the workers handed over by themselves, and never waits.
pub(super) fn live_line(
    r: &mut Running<'_, '_>,
    control: &PhaseBoard,
    metrics: Option<&GeneratorMetrics>,
    board: Option<(&LiveBoard, u32)>,
    shown: bool,
) -> String {
    if shown {
        collect_intervals(&mut r.live, &mut r.workers.rx);
    } else {
        for h in &mut r.workers.rx {
            r.live.collect(h);
        }
    }
    if let Some(m) = metrics {
        m.add_latency(r.live.interval_latency());
    }
    let tx: Vec<_> = r.workers.tx.iter().map(TxHandle::snapshot).collect();
    let rx: Vec<_> = r.workers.rx.iter().map(RxHandle::snapshot).collect();
    let line = r.live.line(r.clock.ns(tsc()), &tx, &rx);
    let phase = control.phase();
    r.seconds
        .extend(StepSecond::from_live(&line, step_phase(phase)));
    if let Some((board, step)) = board {
        board.post(step, &line);
    }
    if phase == Phase::Warmup {
        // Warm-up packets prime the UPF's flows and are not measured.
        format!(
            "{:>9} {:7.1}s sending, not measured",
            "Warmup",
            line.elapsed_ns as f64 / 1e9
        )
    } else {
        format!("{:>9} {line}", format!("{phase:?}"))
    }
}

/// Stops the workers and makes the step's report of what they measured (and each pair's raw
/// figures when `pair_figures`); `end_clock` has the TSC frequency measured at the step's end,
/// which its duration (and so its rates) are converted with.
#[allow(clippy::too_many_arguments)]
pub(super) fn finish<'p>(
    mut r: Running<'_, 'p>,
    end_clock: Clock,
    control: &PhaseBoard,
    idle: &mut Idle<'p>,
    plan: &Plan,
    pairs: &[TestPair<'_>],
    kernel: &KernelCounters,
    pair_figures: bool,
) -> Result<StepResult> {
    let outcome = join(&mut r.workers, control, idle)?;
    let mut latency = [LatencyBuckets::default(), LatencyBuckets::default()];
    for core in &outcome.rx {
        for (b, l) in latency.iter_mut().zip(&core.latency) {
            b.add_recorder(l);
        }
    }
    let after = pairs
        .iter()
        .map(|p| Ok([p.ports[0].stats()?, p.ports[1].stats()?]))
        .collect::<Result<Vec<_>>>()?;
    let kernel_after = kernel.read();
    let measured = Measured {
        plan,
        workers: &r.workers,
        outcome: &outcome,
        clocks: (r.clock, end_clock),
        before: &r.ports_before,
        after: &after,
    };
    let mut report = measured.totals(pairs)?;
    // A program that keeps each pair's figures has every pair's step already: the sections
    // are theirs.
    let pair_figures = if pair_figures {
        measured.pair_figures(pairs)?
    } else {
        Vec::new()
    };
    report.pairs = match (pairs.len(), pair_figures.is_empty()) {
        (0 | 1, _) => Vec::new(),
        (_, false) => pair_figures.iter().map(PairFigures::section).collect(),
        (_, true) => measured.per_pair(pairs)?,
    };
    kernel.add_to_step(&mut report, &r.kernel_before, &kernel_after);
    add_modifications(&mut r, plan, &outcome.counters, &mut report);
    // The last interval: what arrived after the last live line.
    for h in &mut r.workers.rx {
        r.live.collect(h);
    }
    let tx: Vec<_> = r.workers.tx.iter().map(TxHandle::snapshot).collect();
    let rx: Vec<_> = r.workers.rx.iter().map(RxHandle::snapshot).collect();
    let last = r.live.line(r.clock.ns(tsc()), &tx, &rx);
    r.seconds
        .extend(StepSecond::from_live(&last, StepPhase::End));
    report.seconds = r.seconds;
    if let Some(c) = &plan.churn {
        // Each churn session's deletion was due within the measured phase; what is still out
        // is awaited for a few seconds (a step that ended early leaves the rest unsent).
        let outcomes = r
            .churn
            .take()
            .and_then(|p| wait_for(p, std::time::Duration::from_secs(10)))
            .unwrap_or_default();
        let loss = report::direction_loss(&report);
        report.churn = Some(report::churn_report(
            &report::ChurnInputs {
                step: c,
                outcomes: &outcomes,
                probes: &outcome.counters.churn,
                seconds: &report.seconds,
                live_start_ns: r.live_start_ns,
                measured_s: report.duration_s,
            },
            loss,
        ));
    }
    // The receive tables, measured and reported: the next step's to reset.
    idle.rx_tables = outcome.rx.into_iter().map(|c| c.streams).collect();
    let hlog = r.live.take_interval_log().map(|(log, failures)| {
        if failures > 0 {
            report.warnings.push(format!(
                "{failures} latency intervals could not be written to the interval log"
            ));
        }
        log.to_bytes()
    });
    Ok(StepResult {
        report,
        hlog,
        latency,
        pairs: pair_figures,
    })
}

/// The step's Session Modifications and what came of them: its handovers, its gate.
fn add_modifications(
    r: &mut Running<'_, '_>,
    plan: &Plan,
    counters: &WorkerCounters,
    report: &mut StepReport,
) {
    // Every modification was answered, or timed out, long before the drain ended; a step that
    // ended early leaves the rest unsent (dropping the answer stops them).
    let limit = std::time::Duration::from_secs(5);
    if let Some(h) = &plan.handovers {
        let outcomes = r
            .handovers
            .take()
            .and_then(|p| wait_for(p, limit))
            .unwrap_or_default();
        report.handover = Some(report::handover_report(h, &counters.handover, &outcomes));
    }
    if let (Some(g), Some(q)) = (&plan.qos_gate, &counters.qos) {
        let outcomes = r
            .gate
            .take()
            .and_then(|p| wait_for(p, limit))
            .unwrap_or_default();
        if let Some(qos) = &mut report.qos {
            qos.gate = Some(report::gate_report(g, plan.ues.count, &outcomes, q));
        }
    }
}

/// What the PFCP thread answers, if it comes within `limit`.
fn wait_for<T>(mut p: Pending<T>, limit: std::time::Duration) -> Option<T> {
    let until = Instant::now() + limit;
    while Instant::now() < until {
        match p.try_take() {
            Ok(Some(o)) => return Some(o),
            Ok(None) => std::thread::sleep(std::time::Duration::from_millis(10)),
            Err(_) => return None,
        }
    }
    None
}

/// The report's word for the workers' phase in a second's line.
fn step_phase(p: Phase) -> StepPhase {
    match p {
        Phase::Idle => StepPhase::Idle,
        Phase::Warmup => StepPhase::Warmup,
        Phase::Settle => StepPhase::Settle,
        Phase::Measure => StepPhase::Measure,
        Phase::Drain => StepPhase::Drain,
        Phase::Stop => StepPhase::Stop,
    }
}
