//! The run's timeline, `events.jsonl` beside the report: what happened and when, one JSON object
//! a line, the way qlog's JSON-SEQ traces are laid out. The first line says what the file is
//! ([`EventsHeader`]: format `upfbench-events`, its [`EVENTS_VERSION`], the tool, the run's
//! start); every other line is one event ([`EventLine`]): its time on the run's axis (`t_s`,
//! seconds since the run started on a monotonic clock, and `unix_ms`, the wall clock then), its
//! `name` (`category:event`, as qlog names its events) and its typed `data`.
//!
//! The format is documented for other tools in `docs/events.md`, with a JSON Schema of each
//! line (`docs/events.schema.json`) that the tests check written lines against.
//!
//! ```
//! use upfbench_report::events::{Event, EventLine, EventsHeader, RunState, read_events};
//!
//! let header = EventsHeader::new("0.1.0", 1_795_651_738_586);
//! let line = EventLine {
//!     t_s: 0.25,
//!     unix_ms: 1_795_651_738_836,
//!     event: Event::State { state: RunState::Associating },
//! };
//! let text = format!("{}\n{}\n", header.to_json(), line.to_json());
//! assert!(text.contains(r#""name":"run:state","data":{"state":"Associating"}"#));
//! let (read, events) = read_events(&text).unwrap();
//! assert_eq!((read, events), (header, vec![line]));
//! ```

use serde::{Deserialize, Serialize};
use thiserror::Error;
use upfbench_stats::{Direction, PortName};

use super::model::{TOOL_NAME, ToolInfo};
use super::time::rfc3339_utc;

/// The `format` of the first line.
pub const EVENTS_FORMAT: &str = "upfbench-events";

/// The version of the format this crate writes and reads. Raised on any change that renames,
/// removes or changes the meaning of an event or a field (adding an event or a field keeps it:
/// a reader skips the names it does not know).
pub const EVENTS_VERSION: u32 = 1;

/// The first line of `events.jsonl`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct EventsHeader {
    /// Always [`EVENTS_FORMAT`].
    pub format: String,
    /// [`EVENTS_VERSION`] of the writer.
    pub version: u32,
    /// Which tool and version wrote it.
    pub tool: ToolInfo,
    /// The run's start, the zero of `t_s`: Unix time in milliseconds.
    pub started_unix_ms: u64,
    /// The same, RFC 3339 UTC.
    pub started: String,
}

impl EventsHeader {
    /// The header of a run that `tool_version` started at `started_unix_ms`.
    pub fn new(tool_version: impl Into<String>, started_unix_ms: u64) -> EventsHeader {
        EventsHeader {
            format: EVENTS_FORMAT.to_owned(),
            version: EVENTS_VERSION,
            tool: ToolInfo {
                name: TOOL_NAME.to_owned(),
                version: tool_version.into(),
            },
            started_unix_ms,
            started: rfc3339_utc(started_unix_ms),
        }
    }

    /// The line, without its newline.
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).expect("plain fields always serialise")
    }
}

/// One event on the run's time axis.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EventLine {
    /// Seconds since the run started (monotonic clock); lines are in its order.
    pub t_s: f64,
    /// The wall clock at that moment (Unix time, ms).
    pub unix_ms: u64,
    /// What happened: `name` and `data` in the line.
    #[serde(flatten)]
    pub event: Event,
}

impl EventLine {
    /// The line, without its newline.
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).expect("plain fields always serialise")
    }
}

/// What happened: a line's `name` (`category:event`) and its `data`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "name", content = "data")]
pub enum Event {
    /// The run's state machine entered a state.
    #[serde(rename = "run:state")]
    State {
        /// The state entered.
        state: RunState,
    },
    /// Ctrl-C or SIGTERM.
    #[serde(rename = "run:interrupt")]
    Interrupt {},
    /// The workers were told to change phase, effective `epoch_lead_us` later.
    #[serde(rename = "workers:phase")]
    Phase {
        /// The step (0-based), if one was running.
        step: Option<usize>,
        /// The phase.
        phase: WorkerPhase,
        /// How long after this event the phase takes effect (µs).
        epoch_lead_us: u64,
    },
    /// A step's workers were launched.
    #[serde(rename = "step:started")]
    StepStarted {
        /// The step (0-based).
        step: usize,
        /// Its label (`run`, `300 B`).
        label: String,
    },
    /// A step's workers were joined and measured.
    #[serde(rename = "step:collected")]
    StepCollected {
        /// The step (0-based).
        step: usize,
        /// Its label.
        label: String,
        /// Per direction that carried traffic: packets sent, received and lost.
        figures: Vec<StepFigures>,
    },
    /// A PFCP procedure started or ended.
    #[serde(rename = "pfcp:procedure")]
    Pfcp {
        /// Which.
        procedure: Procedure,
        /// How it stands.
        outcome: Outcome,
        /// Sessions concerned, where it applies.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        count: Option<u64>,
        /// The peer asked, what the failure or the answer was.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        detail: Option<String>,
    },
    /// A next hop's MAC address was resolved, or not.
    #[serde(rename = "arp:next_hop")]
    Arp {
        /// The port it is reached by.
        port: PortName,
        /// The address asked for.
        ip: String,
        /// Its MAC, when resolved.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        mac: Option<String>,
        /// Why not, when not.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        detail: Option<String>,
    },
    /// A warning of the report.
    #[serde(rename = "report:warning")]
    Warning {
        /// The step it belongs to, if any (else the run's).
        step: Option<usize>,
        /// The warning.
        message: String,
    },
    /// A failure of the UPF, or the run's recovery from it.
    #[serde(rename = "upf:fault")]
    Upf {
        /// What was seen or done.
        what: UpfChange,
        /// Sessions concerned, where it applies.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        sessions: Option<u64>,
        /// What was seen, and what the run does.
        detail: String,
    },
    /// An agent of a run over agents was lost (docs/scale.md §3 "Failures"): the others are
    /// stopped at one time and the run ends after the step.
    #[serde(rename = "cluster:agent_lost")]
    AgentLost {
        /// Its name.
        agent: String,
        /// The step under way (from 1), if any.
        step: Option<u32>,
        /// When, in seconds since the run started.
        t_s: f64,
        /// Why: "no answer for 3 s", "connection refused", "answered 503: ...".
        reason: String,
    },
}

impl Event {
    /// Its `name`, `category:event`.
    pub fn name(&self) -> &'static str {
        match self {
            Event::State { .. } => "run:state",
            Event::Interrupt {} => "run:interrupt",
            Event::Phase { .. } => "workers:phase",
            Event::StepStarted { .. } => "step:started",
            Event::StepCollected { .. } => "step:collected",
            Event::Pfcp { .. } => "pfcp:procedure",
            Event::Arp { .. } => "arp:next_hop",
            Event::Warning { .. } => "report:warning",
            Event::Upf { .. } => "upf:fault",
            Event::AgentLost { .. } => "cluster:agent_lost",
        }
    }
}

/// The run's state machine's states, by the names the timeline writes (`"Associating"`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum RunState {
    /// Not started.
    Start,
    /// Waiting for the association.
    Associating,
    /// Waiting for the sessions.
    Establishing,
    /// Waiting for MAC resolution.
    Resolving,
    /// Waiting for a step's workers.
    Preparing,
    /// Warm-up traffic.
    Warmup,
    /// Letting the warm-up drain.
    Settle,
    /// Measured traffic.
    Measure,
    /// Receiving what is still in flight.
    Drain,
    /// Waiting until nothing arrives any more.
    Quiet,
    /// Waiting for a step's results.
    Collecting,
    /// Writing the report.
    Reporting,
    /// Deleting sessions.
    Deleting,
    /// Releasing the association.
    Releasing,
    /// Finished.
    Done,
}

/// What the workers were told to do (`"Measure"`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum WorkerPhase {
    /// Answer the service plane; send nothing.
    Idle,
    /// Send at the profile's rates; what comes back is counted, not measured.
    Warmup,
    /// Send nothing; let the warm-up traffic drain.
    Settle,
    /// Send the measured traffic; measure what comes back.
    Measure,
    /// Send nothing; keep measuring what still comes back.
    Drain,
    /// Leave the loop and hand the results over.
    Stop,
}

/// A PFCP procedure of the run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Procedure {
    /// PFCP Association Setup.
    Association,
    /// The batch of Session Establishments.
    Establishment,
    /// The batch of Session Deletions.
    Deletion,
    /// PFCP Association Release.
    Release,
}

/// Where a procedure stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Outcome {
    /// Asked.
    Started,
    /// Answered with success.
    Done,
    /// Refused, or no answer after the retransmissions.
    Failed,
    /// Refused by the UPF where that ends a capacity climb: the limit found, not a failure.
    Refused,
    /// Given up by the run (an interrupt, a stop).
    Cancelled,
    /// No progress for a while (still waiting).
    Stalled,
    /// Not answered, which is no failure (a release Open5GS, eUPF and UPG-VPP never answer).
    Unanswered,
}

/// What happened to the UPF, or what the run did about it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum UpfChange {
    /// It restarted (a new Recovery Time Stamp).
    Restart,
    /// It stopped answering heartbeats.
    HeartbeatLost,
    /// The run established its sessions again.
    Reestablished,
}

/// One direction's figures of a collected step.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct StepFigures {
    /// The direction.
    pub direction: Direction,
    /// Packets sent in the measured phase.
    pub sent: u64,
    /// Packets of them received once.
    pub received: u64,
    /// Packets lost.
    pub lost: u64,
}

/// An `events.jsonl` that cannot be read.
#[derive(Debug, Error)]
pub enum EventsError {
    /// Nothing in it.
    #[error("events.jsonl is empty: its first line says what it is")]
    Empty,
    /// A line that is not JSON, or not of the format.
    #[error("events.jsonl line {line}: {error}")]
    Json {
        /// The line (1-based).
        line: usize,
        /// What was wrong.
        error: serde_json::Error,
    },
    /// Not `upfbench-events`, or another version.
    #[error(
        "events.jsonl is {format} version {version}; this build reads {EVENTS_FORMAT} {EVENTS_VERSION}"
    )]
    Unsupported {
        /// Its format.
        format: String,
        /// Its version.
        version: u32,
    },
}

/// Reads a whole `events.jsonl`: its header and its events, refusing another format or version
/// by name before reading the events. Events whose name this build does not know are an error
/// here (a reader of a later version's file should skip them by name instead).
pub fn read_events(text: &str) -> Result<(EventsHeader, Vec<EventLine>), EventsError> {
    let mut lines = text
        .lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty());
    let (_, first) = lines.next().ok_or(EventsError::Empty)?;
    let header: EventsHeader =
        serde_json::from_str(first).map_err(|error| EventsError::Json { line: 1, error })?;
    if header.format != EVENTS_FORMAT || header.version != EVENTS_VERSION {
        return Err(EventsError::Unsupported {
            format: header.format,
            version: header.version,
        });
    }
    let events = lines
        .map(|(i, l)| {
            serde_json::from_str(l).map_err(|error| EventsError::Json { line: i + 1, error })
        })
        .collect::<Result<Vec<EventLine>, _>>()?;
    Ok((header, events))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn line(t_s: f64, event: Event) -> EventLine {
        EventLine {
            t_s,
            unix_ms: 1_000 + (t_s * 1e3) as u64,
            event,
        }
    }

    #[test]
    fn each_event_is_a_name_and_its_data() {
        let cases = [
            (
                line(
                    0.0,
                    Event::State {
                        state: RunState::Measure,
                    },
                ),
                r#"{"t_s":0.0,"unix_ms":1000,"name":"run:state","data":{"state":"Measure"}}"#,
            ),
            (
                line(0.5, Event::Interrupt {}),
                r#"{"t_s":0.5,"unix_ms":1500,"name":"run:interrupt","data":{}}"#,
            ),
            (
                line(
                    1.0,
                    Event::Pfcp {
                        procedure: Procedure::Deletion,
                        outcome: Outcome::Done,
                        count: Some(3),
                        detail: None,
                    },
                ),
                r#"{"t_s":1.0,"unix_ms":2000,"name":"pfcp:procedure","data":{"procedure":"deletion","outcome":"done","count":3}}"#,
            ),
            (
                line(
                    2.0,
                    Event::Arp {
                        port: PortName::N6,
                        ip: "10.0.6.1".into(),
                        mac: Some("02:00:00:00:00:06".into()),
                        detail: None,
                    },
                ),
                r#"{"t_s":2.0,"unix_ms":3000,"name":"arp:next_hop","data":{"port":"N6","ip":"10.0.6.1","mac":"02:00:00:00:00:06"}}"#,
            ),
            (
                line(
                    3.0,
                    Event::StepCollected {
                        step: 0,
                        label: "run".into(),
                        figures: vec![StepFigures {
                            direction: Direction::Uplink,
                            sent: 10,
                            received: 9,
                            lost: 1,
                        }],
                    },
                ),
                r#"{"t_s":3.0,"unix_ms":4000,"name":"step:collected","data":{"step":0,"label":"run","figures":[{"direction":"uplink","sent":10,"received":9,"lost":1}]}}"#,
            ),
            (
                line(
                    4.0,
                    Event::Upf {
                        what: UpfChange::HeartbeatLost,
                        sessions: None,
                        detail: "no answer".into(),
                    },
                ),
                r#"{"t_s":4.0,"unix_ms":5000,"name":"upf:fault","data":{"what":"heartbeat_lost","detail":"no answer"}}"#,
            ),
        ];
        for (l, json) in cases {
            assert_eq!(l.to_json(), json);
            assert_eq!(
                serde_json::from_str::<EventLine>(json).unwrap(),
                l,
                "{json}"
            );
            let v: serde_json::Value = serde_json::from_str(json).unwrap();
            assert_eq!(v["name"], l.event.name());
        }
    }

    #[test]
    fn an_agent_lost_is_a_name_and_its_data() {
        let l = line(
            3.5,
            Event::AgentLost {
                agent: "gnb-b".into(),
                step: Some(2),
                t_s: 3.4,
                reason: "no answer for 3 s".into(),
            },
        );
        let json = r#"{"t_s":3.5,"unix_ms":4500,"name":"cluster:agent_lost","data":{"agent":"gnb-b","step":2,"t_s":3.4,"reason":"no answer for 3 s"}}"#;
        assert_eq!(l.to_json(), json);
        assert_eq!(serde_json::from_str::<EventLine>(json).unwrap(), l);
        assert_eq!(l.event.name(), "cluster:agent_lost");
    }

    #[test]
    fn the_header_comes_first_and_names_the_format_and_version() {
        let h = EventsHeader::new("0.1.0", 0);
        assert_eq!(
            h.to_json(),
            r#"{"format":"upfbench-events","version":1,"tool":{"name":"upfbench","version":"0.1.0"},"started_unix_ms":0,"started":"1970-01-01T00:00:00.000Z"}"#
        );
        let later = format!(
            "{}\n",
            h.to_json().replace(r#""version":1"#, r#""version":2"#)
        );
        assert!(matches!(
            read_events(&later),
            Err(EventsError::Unsupported { version: 2, .. })
        ));
        assert!(matches!(read_events(""), Err(EventsError::Empty)));
        let bad = format!("{}\n{{\"t_s\":0}}\n", h.to_json());
        assert!(matches!(
            read_events(&bad),
            Err(EventsError::Json { line: 2, .. })
        ));
    }
}
