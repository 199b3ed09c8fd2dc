//! The churn section of a step's report, from the plan, the PFCP thread's outcomes and the
//! workers' probe records (sans-IO: tested on made-up outcomes and records).
//!
//! Times: the outcomes are from the measured phase's start (the PFCP thread's clock, started
//! with the workers' epoch); the probes' are on the run clock, whose reading at the measured
//! start the record carries; the step's timeline ([`StepSecond`]) counts from its live meter's
//! baseline, `live_start_ns` on the run clock.

use upfbench_report::{
    Activation, ChurnReport, ChurnSecond, ChurnSession, DirectionLoss, Nanos, Percentiles,
    ProcedureFigures, StepReport, StepSecond,
};

use crate::datapath::churn_rx::{ChurnRx, ProbeRecord};
use upfbench_n4::client_side::{ChurnOutcome, ProcedureKind};
use upfbench_run::plan::ChurnStep;

/// What the churn section is made from.
pub struct ChurnInputs<'a> {
    /// The step's churn.
    pub step: &'a ChurnStep,
    /// The PFCP thread's outcomes (none for a step without churn).
    pub outcomes: &'a [ChurnOutcome],
    /// The workers' probe records, merged.
    pub probes: &'a ChurnRx,
    /// The step's timeline.
    pub seconds: &'a [StepSecond],
    /// The run clock's reading at the timeline's zero (ns).
    pub live_start_ns: u64,
    /// The measured phase's length (s), for the achieved rates.
    pub measured_s: f64,
}

fn kind_index(k: ProcedureKind) -> usize {
    match k {
        ProcedureKind::Establishment => 0,
        ProcedureKind::Modification => 1,
        ProcedureKind::Deletion => 2,
    }
}

fn ms(ns: u64) -> f64 {
    ns as f64 / 1e6
}

/// Each direction's loss in `step`.
pub fn direction_loss(step: &StepReport) -> Vec<DirectionLoss> {
    step.directions
        .iter()
        .map(|d| DirectionLoss {
            direction: d.direction,
            sent: d.loss.sent,
            lost: d.loss.lost,
        })
        .collect()
}

fn figures(planned: u64, outcomes: &[&ChurnOutcome]) -> ProcedureFigures {
    ProcedureFigures {
        planned,
        sent: outcomes.len() as u64,
        succeeded: outcomes.iter().filter(|o| o.error.is_none()).count() as u64,
        failed: outcomes.iter().filter(|o| o.error.is_some()).count() as u64,
        latency: Percentiles::of(outcomes.iter().map(|o| Nanos::from(o.latency))),
        first_error: outcomes.iter().filter_map(|o| o.error.clone()).next(),
    }
}

/// The churn section of a step (`loss`: the step's own, by direction).
pub fn churn_report(i: &ChurnInputs<'_>, loss: Vec<DirectionLoss>) -> ChurnReport {
    let plan = &*i.step.plan;
    let of = |k: ProcedureKind| -> Vec<&ChurnOutcome> {
        i.outcomes.iter().filter(|o| o.kind == k).collect()
    };
    let (est, modi, del) = (
        of(ProcedureKind::Establishment),
        of(ProcedureKind::Modification),
        of(ProcedureKind::Deletion),
    );
    let on = i.step.on;
    let planned = |n: usize| if on { n as u64 } else { 0 };
    let (sessions, activation) = activation(i, &est, &del);
    let achieved = |v: &[&ChurnOutcome]| achieved_per_s(v, i.measured_s);
    ChurnReport {
        on,
        rate: plan.rate,
        lifetime_ms: ms(plan.lifetime_ns),
        modify_rate: plan.modify_rate,
        probe_interval_ms: ms(plan.probe_interval_ns),
        establishments: figures(planned(plan.count as usize), &est),
        modifications: figures(planned(plan.modifications.len()), &modi),
        deletions: figures(planned(plan.count as usize), &del),
        achieved_per_s: [achieved(&est), achieved(&modi), achieved(&del)],
        activation,
        loss,
        baseline: None,
        seconds: if on { seconds(i) } else { Vec::new() },
        sessions,
    }
}

/// Every churn session of a step whose churn ran (`est` and `del`: the establishments' and
/// deletions' outcomes), with its activation lag; and the activation over them all.
fn activation(
    i: &ChurnInputs<'_>,
    est: &[&ChurnOutcome],
    del: &[&ChurnOutcome],
) -> (Vec<ChurnSession>, Activation) {
    let plan = &*i.step.plan;
    let mut sessions = Vec::with_capacity(plan.count as usize);
    let (mut lags, mut floors) = (Vec::new(), Vec::new());
    let mut activation = Activation {
        established: 0,
        never_forwarded: 0,
        before_answer: 0,
        lag: None,
        lag_floor: None,
        lost_after_answer: 0,
        probes_sent: 0,
        probes_received: 0,
    };
    if i.step.on {
        for k in 0..plan.count {
            let e = est.iter().find(|o| o.index == k);
            let d = del.iter().find(|o| o.index == k);
            let p = i
                .probes
                .sessions
                .get(k as usize)
                .copied()
                .unwrap_or_default();
            activation.probes_sent += u64::from(p.sent);
            activation.probes_received += u64::from(p.received);
            let mut s = ChurnSession {
                slot: k,
                sent_ms: e.map(|o| o.sent_at.as_secs_f64() * 1e3),
                establishment_ms: e.map(|o| o.latency.as_secs_f64() * 1e3),
                lag_ms: None,
                lag_floor_ms: None,
                probe_late_ms: None,
                lost_after_answer: 0,
                probes_sent: p.sent,
                probes_received: p.received,
                deletion_ms: d.map(|o| o.latency.as_secs_f64() * 1e3),
                error: e
                    .and_then(|o| o.error.clone())
                    .or_else(|| d.and_then(|o| o.error.clone())),
            };
            if let Some(e) = e.filter(|o| o.error.is_none()) {
                activation.established += 1;
                if let Some((lag, floor)) = lag(i, k, e, &p, &mut s, &mut activation) {
                    lags.push(lag);
                    floors.push(floor);
                }
                activation.lost_after_answer += u64::from(s.lost_after_answer);
            }
            sessions.push(s);
        }
    }
    activation.lag = Percentiles::of_ms(lags);
    activation.lag_floor = Percentiles::of_ms(floors);
    (sessions, activation)
}

/// Churn session `k`, established by `e`, whose probes went as `p`: its activation lag at
/// most and at least (ms), when a probe came back (else it is counted as never forwarded);
/// written into `s` and `activation` too, with the probes lost after the answer.
fn lag(
    i: &ChurnInputs<'_>,
    k: u32,
    e: &ChurnOutcome,
    p: &ProbeRecord,
    s: &mut ChurnSession,
    activation: &mut Activation,
) -> Option<(f64, f64)> {
    let plan = &*i.step.plan;
    let interval = plan.probe_interval_ns.max(1);
    let answered = (e.sent_at + e.latency).as_nanos() as u64;
    // The first probe planned at or after the answer.
    let first_after = answered
        .saturating_sub(plan.establish_at(k))
        .div_ceil(interval)
        .min(u64::from(p.sent)) as u32;
    let Some(start) = i
        .probes
        .measure_start_ns
        .filter(|_| p.first_seq != u32::MAX)
    else {
        activation.never_forwarded += 1;
        s.lost_after_answer = p.sent.saturating_sub(first_after);
        return None;
    };
    let first_tx = p.first_tx_ns.saturating_sub(start);
    let due = |seq: u32| plan.establish_at(k) + u64::from(seq) * interval;
    let lag = first_tx.saturating_sub(answered);
    // The probe before it was dropped: the rules came after it was due.
    let floor = match p.first_seq {
        0 => 0,
        f => due(f - 1).saturating_sub(answered),
    };
    activation.before_answer += u64::from(first_tx < answered);
    s.lag_ms = Some(ms(lag));
    s.lag_floor_ms = Some(ms(floor));
    s.probe_late_ms = Some(ms(first_tx.saturating_sub(due(p.first_seq))));
    s.lost_after_answer = p.first_seq.saturating_sub(first_after);
    Some((ms(lag), ms(floor)))
}

/// The successful procedures of `v` per second, over the span from the first request to the
/// last answer of the kind (`measured_s`, the measured phase, for one alone).
fn achieved_per_s(v: &[&ChurnOutcome], measured_s: f64) -> f64 {
    let ok: Vec<_> = v.iter().filter(|o| o.error.is_none()).collect();
    let first = ok.iter().map(|o| o.sent_at).min();
    let last = ok.iter().map(|o| o.sent_at + o.latency).max();
    let span = match (first, last) {
        (Some(a), Some(b)) if ok.len() > 1 && b > a => (b - a).as_secs_f64(),
        _ => measured_s,
    };
    if span > 0.0 {
        ok.len() as f64 / span
    } else {
        0.0
    }
}

/// The outcomes binned into the step's timeline intervals: asked by their request's time,
/// achieved, failed and their latency by their answer's.
fn seconds(i: &ChurnInputs<'_>) -> Vec<ChurnSecond> {
    let mut out: Vec<ChurnSecond> = i
        .seconds
        .iter()
        .map(|s| ChurnSecond {
            t_s: s.t_s,
            interval_s: s.interval_s,
            asked: [0; 3],
            achieved: [0; 3],
            failed: 0,
            latency: None,
        })
        .collect();
    let Some(start) = i.probes.measure_start_ns else {
        return out;
    };
    // The measured start on the timeline (s).
    let zero = start.saturating_sub(i.live_start_ns) as f64 / 1e9;
    let bin = |t: f64| {
        out.iter()
            .position(|s| t <= s.t_s + 1e-9)
            .unwrap_or(out.len().saturating_sub(1))
    };
    let mut latencies: Vec<Vec<Nanos>> = vec![Vec::new(); out.len()];
    let mut asked_in = Vec::with_capacity(i.outcomes.len());
    let mut answered_in = Vec::with_capacity(i.outcomes.len());
    for o in i.outcomes {
        asked_in.push(bin(zero + o.sent_at.as_secs_f64()));
        answered_in.push(bin(zero + (o.sent_at + o.latency).as_secs_f64()));
    }
    if out.is_empty() {
        return out;
    }
    for ((o, a), b) in i.outcomes.iter().zip(asked_in).zip(answered_in) {
        let k = kind_index(o.kind);
        out[a].asked[k] += 1;
        if o.error.is_none() {
            out[b].achieved[k] += 1;
        } else {
            out[b].failed += 1;
        }
        latencies[b].push(Nanos::from(o.latency));
    }
    for (s, l) in out.iter_mut().zip(latencies) {
        s.latency = Percentiles::of(l);
    }
    out
}

#[cfg(test)]
mod tests;
