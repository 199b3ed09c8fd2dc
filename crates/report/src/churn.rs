//! Session churn under traffic in a step's report: the churn sessions' establishments and
//! deletions and the traffic sessions' modifications (asked, answered, their latency), each
//! churn session's activation lag (from the UPF's Establishment Response to the first probe it
//! forwarded), the control plane and the data plane second by second on the step's time axis,
//! and the same step's loss without churn beside it.

use std::fmt::Write as _;

use serde::{Deserialize, Serialize};

use super::percentiles::Percentiles;
use super::seconds::StepSecond;
use upfbench_stats::direction::Direction;

/// One kind of session procedure over the step.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ProcedureFigures {
    /// Planned for the step.
    pub planned: u64,
    /// Sent to the UPF.
    pub sent: u64,
    /// Answered with success.
    pub succeeded: u64,
    /// Refused or timed out.
    pub failed: u64,
    /// From request to answer, of every procedure answered.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub latency: Option<Percentiles>,
    /// The first failure's reason.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub first_error: Option<String>,
}

/// How soon the churn sessions forwarded after their Establishment Response.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Activation {
    /// Sessions established.
    pub established: u64,
    /// Of those, sessions none of whose probes came back.
    pub never_forwarded: u64,
    /// Sessions whose first forwarded probe was sent before the response came (the rules were
    /// in effect before the answer reached us).
    pub before_answer: u64,
    /// At most: from the response to the first forwarded probe's sending, 0 for those sent
    /// before it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lag: Option<Percentiles>,
    /// At least: from the response to when the probe before it, which the UPF dropped, was due
    /// (0 when that was before the response). A session's lag lies between the two: a
    /// probe interval apart, more when the tester sent late.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lag_floor: Option<Percentiles>,
    /// Probes sent after their session's response and before its first forwarded one: traffic
    /// started on the answer that met no rule.
    pub lost_after_answer: u64,
    /// Probes sent, in all.
    pub probes_sent: u64,
    /// Probes received, in all.
    pub probes_received: u64,
}

/// One churn session.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ChurnSession {
    /// Its slot (UE: the traffic's count + slot).
    pub slot: u32,
    /// When its establishment was sent, from the measured phase's start (ms).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sent_ms: Option<f64>,
    /// From request to response (ms).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub establishment_ms: Option<f64>,
    /// Activation lag at most (ms, 0 when the first forwarded probe left before the
    /// response).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lag_ms: Option<f64>,
    /// Activation lag at least (ms).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lag_floor_ms: Option<f64>,
    /// How much later than due the first forwarded probe left (ms): the tester's part of
    /// `lag_ms`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub probe_late_ms: Option<f64>,
    /// Probes sent after the response that were not forwarded before the first one that was.
    pub lost_after_answer: u32,
    /// Probes sent.
    pub probes_sent: u32,
    /// Probes received.
    pub probes_received: u32,
    /// Its deletion's latency (ms).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub deletion_ms: Option<f64>,
    /// Why a procedure of it failed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// The control plane over one interval of the step's timeline ([`super::StepSecond`]).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ChurnSecond {
    /// The interval's end, on the step's time axis (s).
    pub t_s: f64,
    /// Its length (s).
    pub interval_s: f64,
    /// Establishments, modifications and deletions sent in it.
    pub asked: [u64; 3],
    /// Of those answered in it, with success.
    pub achieved: [u64; 3],
    /// Failures answered in it.
    pub failed: u64,
    /// Latency of the procedures answered in it, all kinds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub latency: Option<Percentiles>,
}

/// One direction's loss in a step.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct DirectionLoss {
    /// The direction.
    pub direction: Direction,
    /// Packets sent.
    pub sent: u64,
    /// Packets lost.
    pub lost: u64,
}

impl DirectionLoss {
    /// Lost against sent (%).
    pub fn pct(&self) -> f64 {
        if self.sent == 0 {
            0.0
        } else {
            self.lost as f64 * 100.0 / self.sent as f64
        }
    }
}

/// The step without churn, run just before.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Baseline {
    /// Its label.
    pub label: String,
    /// Its loss, by direction.
    pub loss: Vec<DirectionLoss>,
}

/// A step's session churn.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ChurnReport {
    /// Whether the churn ran in this step (false: the baseline step, run without it).
    pub on: bool,
    /// Sessions established (and deleted) per second, asked.
    pub rate: f64,
    /// A churn session's life (ms).
    pub lifetime_ms: f64,
    /// Modifications per second, asked.
    pub modify_rate: f64,
    /// Between two probes of a session (ms): the activation lag's resolution.
    pub probe_interval_ms: f64,
    /// The establishments.
    pub establishments: ProcedureFigures,
    /// The modifications.
    pub modifications: ProcedureFigures,
    /// The deletions.
    pub deletions: ProcedureFigures,
    /// Achieved rates (per second): establishments, modifications, deletions answered with
    /// success, over the span from the kind's first request to its last answer.
    pub achieved_per_s: [f64; 3],
    /// The activation of the churn sessions.
    pub activation: Activation,
    /// This step's loss, by direction.
    pub loss: Vec<DirectionLoss>,
    /// The same step without churn, when the profile asked for it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub baseline: Option<Baseline>,
    /// The control plane second by second, on the step's timeline.
    pub seconds: Vec<ChurnSecond>,
    /// Every churn session.
    pub sessions: Vec<ChurnSession>,
}

/// A percentile of `p` in ms, or `-`.
fn pct(p: &Option<Percentiles>, f: impl Fn(&Percentiles) -> super::Nanos) -> String {
    p.as_ref()
        .map_or("-".into(), |p| format!("{:.3}", f(p).ms()))
}

fn loss_text(l: &[DirectionLoss]) -> String {
    l.iter()
        .map(|d| {
            format!(
                "{} {} of {} ({:.4} %)",
                d.direction.name(),
                d.lost,
                d.sent,
                d.pct()
            )
        })
        .collect::<Vec<_>>()
        .join(", ")
}

/// The churn lines of step `number` (from 1), `label`, whose timeline is `seconds`.
pub(super) fn churn_section(
    out: &mut String,
    number: usize,
    label: &str,
    c: &ChurnReport,
    seconds: &[StepSecond],
) {
    let _ = writeln!(
        out,
        "Step {} ({}): session churn, {}/s established and deleted ({} ms each), {}/s \
         modified\n",
        number, label, c.rate, c.lifetime_ms, c.modify_rate
    );
    churn_procedures(out, c);
    churn_activation(out, c);
    churn_seconds(out, c, seconds);
    out.push('\n');
}

/// The procedures' table: planned, sent, answered, latency and rate of each kind.
fn churn_procedures(out: &mut String, c: &ChurnReport) {
    let _ = writeln!(
        out,
        "  {:<15} {:>8} {:>8} {:>10} {:>7} {:>9} {:>9} {:>9} {:>9}",
        "procedure", "planned", "sent", "succeeded", "failed", "p50 ms", "p99 ms", "max ms", "ok/s"
    );
    for (name, f, rate) in [
        ("establishment", &c.establishments, c.achieved_per_s[0]),
        ("modification", &c.modifications, c.achieved_per_s[1]),
        ("deletion", &c.deletions, c.achieved_per_s[2]),
    ] {
        let _ = writeln!(
            out,
            "  {:<15} {:>8} {:>8} {:>10} {:>7} {:>9} {:>9} {:>9} {:>9.1}",
            name,
            f.planned,
            f.sent,
            f.succeeded,
            f.failed,
            pct(&f.latency, |p| p.p50),
            pct(&f.latency, |p| p.p99),
            pct(&f.latency, |p| p.max),
            rate
        );
        if let Some(e) = &f.first_error {
            let _ = writeln!(out, "    first failure: {e}");
        }
    }
}

/// The activation lag, and the step's loss with churn and without.
fn churn_activation(out: &mut String, c: &ChurnReport) {
    let a = &c.activation;
    let _ = writeln!(
        out,
        "\n  activation lag, response to the first forwarded probe (probes every {} ms):\n    \
         at most  p50 {} p90 {} p99 {} max {} ms\n    at least p50 {} p90 {} p99 {} max {} \
         ms\n  {} of {} sessions forwarded before the response came, {} never; {} probes \
         sent after a response met no rule",
        c.probe_interval_ms,
        pct(&a.lag, |p| p.p50),
        pct(&a.lag, |p| p.p90),
        pct(&a.lag, |p| p.p99),
        pct(&a.lag, |p| p.max),
        pct(&a.lag_floor, |p| p.p50),
        pct(&a.lag_floor, |p| p.p90),
        pct(&a.lag_floor, |p| p.p99),
        pct(&a.lag_floor, |p| p.max),
        a.before_answer,
        a.established,
        a.never_forwarded,
        a.lost_after_answer
    );
    let _ = writeln!(out, "  loss with churn: {}", loss_text(&c.loss));
    if let Some(b) = &c.baseline {
        let _ = writeln!(
            out,
            "  loss without churn ({}): {}",
            b.label,
            loss_text(&b.loss)
        );
    }
}

/// The control plane and the data plane second by second (`seconds`: the step's timeline).
fn churn_seconds(out: &mut String, c: &ChurnReport, seconds: &[StepSecond]) {
    let _ = writeln!(
        out,
        "\n  {:>6} {:>9} {:>13} {:>13} {:>13} {:>9} {:>9} {:>9} {:>9} {:>11} {:>11}",
        "t s",
        "phase",
        "estab ask/ok",
        "modif ask/ok",
        "delet ask/ok",
        "n4 p50",
        "n4 p99",
        "ul kpps",
        "dl kpps",
        "ul lost",
        "dl lost"
    );
    for (cs, ds) in c.seconds.iter().zip(seconds) {
        let dir = |d: Direction| ds.directions.iter().find(|x| x.direction == d);
        let kpps = |d| dir(d).map_or("-".into(), |x| format!("{:.1}", x.rx_kpps));
        let lost = |d| dir(d).map_or("-".into(), |x| x.lost.to_string());
        let _ = writeln!(
            out,
            "  {:>6.1} {:>9} {:>13} {:>13} {:>13} {:>9} {:>9} {:>9} {:>9} {:>11} {:>11}",
            cs.t_s,
            ds.phase,
            format!("{}/{}", cs.asked[0], cs.achieved[0]),
            format!("{}/{}", cs.asked[1], cs.achieved[1]),
            format!("{}/{}", cs.asked[2], cs.achieved[2]),
            pct(&cs.latency, |p| p.p50),
            pct(&cs.latency, |p| p.p99),
            kpps(Direction::Uplink),
            kpps(Direction::Downlink),
            lost(Direction::Uplink),
            lost(Direction::Downlink)
        );
    }
}
