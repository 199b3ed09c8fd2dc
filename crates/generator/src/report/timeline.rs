//! The run's timeline: what happened and when, one JSON object a line (`events.jsonl` beside the
//! report), the way quinn writes a connection's qlog trace. The report's per-second data and
//! the N4 work under traffic to come stand on this one time axis.
//!
//! Every line has `t_s`, seconds since the run started (monotonic clock), `unix_ms`, the wall
//! clock at that moment, and `event`, the kind; the other fields depend on the kind:
//!
//! | event | fields | when |
//! | --- | --- | --- |
//! | `state` | `state` | the run's state machine entered a state (`Associating`, `Warmup`, `Measure`, ...) |
//! | `phase` | `step`, `phase`, `epoch_lead_us` | the workers were told to change phase (`Warmup`, `Measure`, `Drain`, `Idle`, `Stop`), effective after the lead |
//! | `step` | `step`, `label`, `what` (`started`, `collected`), figures when collected | a step's workers were launched, or joined and measured |
//! | `pfcp` | `procedure`, `outcome`, `count`, `detail` | a PFCP procedure started or ended |
//! | `arp` | `port`, `ip`, `mac` or `detail` | a next hop was resolved (or not) |
//! | `warning` | `step`, `message` | anything the report warns of |
//! | `interrupt` | | Ctrl-C or SIGTERM |

use std::time::{Duration, Instant};

use serde::Serialize;

/// One thing that happened.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "event", rename_all = "snake_case")]
pub enum RunEvent {
    /// The run's state machine entered `state`.
    State {
        /// The state's name.
        state: String,
    },
    /// The workers were told to change phase.
    Phase {
        /// The step (0-based), if one was running.
        step: Option<usize>,
        /// The phase's name.
        phase: String,
        /// How long after this event the phase takes effect (µs).
        epoch_lead_us: u64,
    },
    /// A step's workers started, or were collected.
    Step {
        /// The step (0-based).
        step: usize,
        /// Its label (`run`, `300 B`).
        label: String,
        /// `started` or `collected`.
        what: &'static str,
        /// Collected: packets sent, received and lost, per direction.
        #[serde(skip_serializing_if = "Vec::is_empty")]
        figures: Vec<StepFigures>,
    },
    /// A PFCP procedure started or ended.
    Pfcp {
        /// `association`, `establishment`, `deletion`, `release`.
        procedure: &'static str,
        /// `started`, `done`, `failed`, `cancelled`, `stalled`, `unanswered`.
        outcome: &'static str,
        /// Sessions concerned, where it applies.
        #[serde(skip_serializing_if = "Option::is_none")]
        count: Option<u64>,
        /// What the failure or the answer was.
        #[serde(skip_serializing_if = "Option::is_none")]
        detail: Option<String>,
    },
    /// A next hop's MAC address.
    Arp {
        /// `N3` or `N6`.
        port: &'static str,
        /// The address asked for.
        ip: String,
        /// Its MAC, when resolved.
        #[serde(skip_serializing_if = "Option::is_none")]
        mac: Option<String>,
        /// Why not, when not.
        #[serde(skip_serializing_if = "Option::is_none")]
        detail: Option<String>,
    },
    /// A warning of the report.
    Warning {
        /// The step it belongs to, if any.
        step: Option<usize>,
        /// The warning.
        message: String,
    },
    /// Ctrl-C or SIGTERM.
    Interrupt,
    /// A failure of the UPF, or the run's recovery from it.
    Upf {
        /// `restart`, `heartbeat lost`, `released`, `reestablished`, `traffic again`.
        what: &'static str,
        /// Sessions concerned, where it applies.
        #[serde(skip_serializing_if = "Option::is_none")]
        sessions: Option<u64>,
        /// What was seen, and what the run does.
        detail: String,
    },
}

/// One direction's figures of a collected step.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct StepFigures {
    /// `uplink` or `downlink`.
    pub direction: &'static str,
    /// Packets sent in the measured phase.
    pub sent: u64,
    /// Packets of them received once.
    pub received: u64,
    /// Packets lost.
    pub lost: u64,
}

#[derive(Serialize)]
struct Line<'a> {
    t_s: f64,
    unix_ms: u64,
    #[serde(flatten)]
    event: &'a RunEvent,
}

/// The run's events in the order they happened.
#[derive(Debug, Clone)]
pub struct Timeline {
    start: Instant,
    start_unix_ms: u64,
    events: Vec<(Duration, RunEvent)>,
}

impl Timeline {
    /// An empty timeline whose time zero is `start`, which the wall clock read as
    /// `start_unix_ms`.
    pub fn new(start: Instant, start_unix_ms: u64) -> Timeline {
        Timeline {
            start,
            start_unix_ms,
            events: Vec::new(),
        }
    }

    /// Records `event` at `at` (an instant before the start counts as the start; an instant
    /// before the last event's as the last event's, so that the lines stay in time order).
    pub fn record(&mut self, at: Instant, event: RunEvent) {
        let mut t = at.saturating_duration_since(self.start);
        if let Some((last, _)) = self.events.last() {
            t = t.max(*last);
        }
        self.events.push((t, event));
    }

    /// The events as JSON Lines.
    pub fn to_jsonl(&self) -> String {
        let mut out = String::new();
        for (t, event) in &self.events {
            let line = Line {
                t_s: t.as_secs_f64(),
                unix_ms: self.start_unix_ms + t.as_millis() as u64,
                event,
            };
            // Serialising plain fields into a string cannot fail.
            out.push_str(&serde_json::to_string(&line).unwrap_or_default());
            out.push('\n');
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_carry_relative_and_wall_times_in_order() {
        let t0 = Instant::now();
        let mut tl = Timeline::new(t0, 1_000_000);
        tl.record(
            t0 + Duration::from_millis(1500),
            RunEvent::State {
                state: "Measure".into(),
            },
        );
        // Out of order by a little: kept in order, at the previous time.
        tl.record(t0 + Duration::from_millis(1400), RunEvent::Interrupt);
        tl.record(
            t0 + Duration::from_millis(2000),
            RunEvent::Pfcp {
                procedure: "deletion",
                outcome: "done",
                count: Some(3),
                detail: None,
            },
        );
        let text = tl.to_jsonl();
        let lines: Vec<serde_json::Value> = text
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        assert_eq!(lines.len(), 3);
        assert_eq!(
            lines[0],
            serde_json::json!({"t_s": 1.5, "unix_ms": 1_001_500, "event": "state", "state": "Measure"})
        );
        assert_eq!(
            lines[1],
            serde_json::json!({"t_s": 1.5, "unix_ms": 1_001_500, "event": "interrupt"})
        );
        assert_eq!(
            lines[2],
            serde_json::json!({"t_s": 2.0, "unix_ms": 1_002_000, "event": "pfcp",
                "procedure": "deletion", "outcome": "done", "count": 3})
        );
    }
}
