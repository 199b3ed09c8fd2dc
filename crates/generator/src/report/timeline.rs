//! The run's timeline: what happened and when, one JSON object a line (`events.jsonl` beside the
//! report), the way qlog traces are written: a first line naming the format and its version,
//! then an event a line with its time, its `category:event` name and its typed data. The
//! events and their lines are the report crate's ([`upfbench_report::events`]); the format is
//! documented in `docs/events.md`. The report's per-second data and the N4 work under traffic
//! stand on this one time axis.

use std::time::{Duration, Instant};

use upfbench_report::events::{EventLine, EventsHeader, RunState, WorkerPhase};
use upfbench_run::lifecycle::State;
use upfbench_run::phase::Phase;

pub use upfbench_report::events::{Event as RunEvent, Outcome, Procedure, StepFigures, UpfChange};

/// The timeline's name of the run's state `s` (its name in the code: `Associating`).
pub fn run_state(s: State) -> RunState {
    match s {
        State::Start => RunState::Start,
        State::Associating => RunState::Associating,
        State::Establishing => RunState::Establishing,
        State::Resolving => RunState::Resolving,
        State::Preparing => RunState::Preparing,
        State::Warmup => RunState::Warmup,
        State::Settle => RunState::Settle,
        State::Measure => RunState::Measure,
        State::Drain => RunState::Drain,
        State::Quiet => RunState::Quiet,
        State::Collecting => RunState::Collecting,
        State::Reporting => RunState::Reporting,
        State::Deleting => RunState::Deleting,
        State::Releasing => RunState::Releasing,
        State::Done => RunState::Done,
    }
}

/// The timeline's name of the workers' phase `p`.
pub fn worker_phase(p: Phase) -> WorkerPhase {
    match p {
        Phase::Idle => WorkerPhase::Idle,
        Phase::Warmup => WorkerPhase::Warmup,
        Phase::Settle => WorkerPhase::Settle,
        Phase::Measure => WorkerPhase::Measure,
        Phase::Drain => WorkerPhase::Drain,
        Phase::Stop => WorkerPhase::Stop,
    }
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

    /// The events as JSON Lines, after the header line.
    pub(crate) fn to_jsonl(&self) -> String {
        let header = EventsHeader::new(env!("CARGO_PKG_VERSION"), self.start_unix_ms);
        let mut out = header.to_json();
        out.push('\n');
        for (t, event) in &self.events {
            let line = EventLine {
                t_s: t.as_secs_f64(),
                unix_ms: self.start_unix_ms + t.as_millis() as u64,
                event: event.clone(),
            };
            out.push_str(&line.to_json());
            out.push('\n');
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use upfbench_report::events::read_events;

    use super::*;

    #[test]
    fn lines_carry_relative_and_wall_times_in_order_after_the_header() {
        let t0 = Instant::now();
        let mut tl = Timeline::new(t0, 1_000_000);
        tl.record(
            t0 + Duration::from_millis(1500),
            RunEvent::State {
                state: run_state(State::Measure),
            },
        );
        // Out of order by a little: kept in order, at the previous time.
        tl.record(t0 + Duration::from_millis(1400), RunEvent::Interrupt {});
        tl.record(
            t0 + Duration::from_millis(2000),
            RunEvent::Pfcp {
                procedure: Procedure::Deletion,
                outcome: Outcome::Done,
                count: Some(3),
                detail: None,
            },
        );
        let text = tl.to_jsonl();
        let lines: Vec<serde_json::Value> = text
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        assert_eq!(lines.len(), 4);
        assert_eq!(lines[0]["format"], "upfbench-events");
        assert_eq!(lines[0]["version"], 1);
        assert_eq!(lines[0]["started_unix_ms"], 1_000_000);
        assert_eq!(
            lines[1],
            serde_json::json!({"t_s": 1.5, "unix_ms": 1_001_500, "name": "run:state",
                "data": {"state": "Measure"}})
        );
        assert_eq!(
            lines[2],
            serde_json::json!({"t_s": 1.5, "unix_ms": 1_001_500, "name": "run:interrupt",
                "data": {}})
        );
        assert_eq!(
            lines[3],
            serde_json::json!({"t_s": 2.0, "unix_ms": 1_002_000, "name": "pfcp:procedure",
                "data": {"procedure": "deletion", "outcome": "done", "count": 3}})
        );
        let (header, events) = read_events(&text).expect("it reads back");
        assert_eq!(header.started_unix_ms, 1_000_000);
        assert_eq!(events.len(), 3);
    }

    #[test]
    fn states_and_phases_keep_their_names_in_the_code() {
        let states = [
            State::Start,
            State::Associating,
            State::Establishing,
            State::Resolving,
            State::Preparing,
            State::Warmup,
            State::Settle,
            State::Measure,
            State::Drain,
            State::Quiet,
            State::Collecting,
            State::Reporting,
            State::Deleting,
            State::Releasing,
            State::Done,
        ];
        for s in states {
            let json = serde_json::to_value(run_state(s)).unwrap();
            assert_eq!(json, format!("{s:?}"));
        }
        let phases = [
            Phase::Idle,
            Phase::Warmup,
            Phase::Settle,
            Phase::Measure,
            Phase::Drain,
            Phase::Stop,
        ];
        for p in phases {
            let json = serde_json::to_value(worker_phase(p)).unwrap();
            assert_eq!(json, format!("{p:?}"));
        }
    }

    /// A timeline with every kind of event, as the run writes them.
    fn every_event() -> Timeline {
        let t0 = Instant::now();
        let mut tl = Timeline::new(t0, 1_795_651_738_586);
        let at = |ms: u64| t0 + Duration::from_millis(ms);
        let events = [
            RunEvent::State {
                state: run_state(State::Associating),
            },
            RunEvent::Pfcp {
                procedure: Procedure::Association,
                outcome: Outcome::Started,
                count: None,
                detail: Some("127.0.0.2:8805".into()),
            },
            RunEvent::Pfcp {
                procedure: Procedure::Establishment,
                outcome: Outcome::Done,
                count: Some(4),
                detail: None,
            },
            RunEvent::Arp {
                port: upfbench_stats::PortName::N3,
                ip: "10.0.3.2".into(),
                mac: Some("02:00:00:00:03:02".into()),
                detail: None,
            },
            RunEvent::Arp {
                port: upfbench_stats::PortName::N6,
                ip: "10.0.6.2".into(),
                mac: None,
                detail: Some("no ARP reply".into()),
            },
            RunEvent::StepStarted {
                step: 0,
                label: "300 B".into(),
            },
            RunEvent::Phase {
                step: Some(0),
                phase: worker_phase(Phase::Measure),
                epoch_lead_us: 1_000,
            },
            RunEvent::Phase {
                step: None,
                phase: worker_phase(Phase::Idle),
                epoch_lead_us: 1_000,
            },
            RunEvent::StepCollected {
                step: 0,
                label: "300 B".into(),
                figures: vec![StepFigures {
                    direction: upfbench_stats::Direction::Downlink,
                    sent: 1_000,
                    received: 990,
                    lost: 10,
                }],
            },
            RunEvent::Warning {
                step: Some(0),
                message: "N3: queue 0 took everything".into(),
            },
            RunEvent::Warning {
                step: None,
                message: "the run was interrupted".into(),
            },
            RunEvent::Upf {
                what: UpfChange::HeartbeatLost,
                sessions: None,
                detail: "no answer to 3 heartbeats".into(),
            },
            RunEvent::Upf {
                what: UpfChange::Reestablished,
                sessions: Some(4),
                detail: "4 sessions again".into(),
            },
            RunEvent::Interrupt {},
        ];
        for (i, e) in events.into_iter().chain(cluster_events()).enumerate() {
            tl.record(at(100 * i as u64), e);
        }
        tl
    }

    /// A run over agents' events: an agent lost in a step, and one before any.
    fn cluster_events() -> [RunEvent; 2] {
        [
            RunEvent::AgentLost {
                agent: "gnb-b".into(),
                step: Some(2),
                t_s: 3.4,
                reason: "no answer for 3 s".into(),
            },
            RunEvent::AgentLost {
                agent: "gnb-c".into(),
                step: None,
                t_s: 0.2,
                reason: "connection refused".into(),
            },
        ]
    }

    fn docs(file: &str) -> std::path::PathBuf {
        std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../../docs")
            .join(file)
    }

    /// The example lines of `docs/events.md`: every line of its ```json blocks.
    fn documented_lines() -> Vec<String> {
        let text = std::fs::read_to_string(docs("events.md")).expect("docs/events.md");
        let mut out = Vec::new();
        let mut inside = false;
        for l in text.lines() {
            match l.trim() {
                "```json" => inside = true,
                "```" => inside = false,
                _ if inside => out.push(l.to_owned()),
                _ => {}
            }
        }
        out
    }

    #[test]
    #[allow(clippy::print_stdout, reason = "says which checks ran")]
    fn every_line_written_and_documented_matches_the_schema() {
        let tl = every_event();
        let path =
            std::env::temp_dir().join(format!("upfbench-events-{}.jsonl", std::process::id()));
        std::fs::write(&path, tl.to_jsonl()).expect("write events.jsonl");
        let text = std::fs::read_to_string(&path).expect("read it back");
        let schema: serde_json::Value = serde_json::from_str(
            &std::fs::read_to_string(docs("events.schema.json")).expect("docs/events.schema.json"),
        )
        .expect("the schema is JSON");
        let mut names = std::collections::BTreeSet::new();
        let written: Vec<String> = text.lines().map(str::to_owned).collect();
        let documented = documented_lines();
        assert!(documented.len() > 10, "{documented:?}");
        for line in written.iter().chain(&documented) {
            let v: serde_json::Value = serde_json::from_str(line).expect(line);
            if let Err(e) = schema_check::check(&schema, &schema, &v) {
                panic!("{line}\n  does not match docs/events.schema.json: {e}");
            }
            if let Some(n) = v["name"].as_str() {
                names.insert(n.to_owned());
            }
        }
        // Both read as the typed events, too.
        read_events(&text).expect("the written file reads back");
        let example_starts = documented
            .iter()
            .rposition(|l| l.contains(r#""format""#))
            .expect("the example's header");
        read_events(&documented[example_starts..].join("\n"))
            .expect("the documented example reads");
        // Every kind of event was checked.
        let all: std::collections::BTreeSet<String> =
            schema["$defs"]["event"]["properties"]["name"]["enum"]
                .as_array()
                .expect("the names")
                .iter()
                .map(|n| n.as_str().expect("a name").to_owned())
                .collect();
        assert_eq!(names, all);
        println!(
            "{} written and {} documented lines match the schema (Rust check)",
            written.len(),
            documented.len()
        );
        // The same with Python's jsonschema, the reference, when it is installed.
        let script = "import json, sys, jsonschema\n\
            schema = json.load(open(sys.argv[1]))\n\
            jsonschema.Draft202012Validator.check_schema(schema)\n\
            n = 0\n\
            for path in sys.argv[2:]:\n\
            \x20   for line in open(path):\n\
            \x20       if line.strip():\n\
            \x20           jsonschema.validate(json.loads(line), schema, cls=jsonschema.Draft202012Validator)\n\
            \x20           n += 1\n\
            from importlib.metadata import version\n\
            print(n, 'lines valid, jsonschema', version('jsonschema'))\n";
        let example = path.with_extension("example.jsonl");
        std::fs::write(&example, documented.join("\n")).expect("write the example");
        match std::process::Command::new("python3")
            .args(["-c", script])
            .arg(docs("events.schema.json"))
            .arg(&path)
            .arg(&example)
            .output()
        {
            Ok(o) if o.status.success() => {
                println!("python3: {}", String::from_utf8_lossy(&o.stdout).trim());
            }
            Ok(o)
                if String::from_utf8_lossy(&o.stderr).contains("No module named 'jsonschema'") =>
            {
                println!("python3 has no jsonschema: only the Rust check ran");
            }
            Ok(o) => panic!(
                "jsonschema refused a line:\n{}",
                String::from_utf8_lossy(&o.stderr)
            ),
            Err(e) => println!("no python3 ({e}): only the Rust check ran"),
        }
        let _ = std::fs::remove_file(&path);
        let _ = std::fs::remove_file(&example);
    }

    #[test]
    fn the_schema_check_refuses_what_the_schema_refuses() {
        let schema: serde_json::Value = serde_json::from_str(
            &std::fs::read_to_string(docs("events.schema.json")).expect("the schema"),
        )
        .expect("JSON");
        let ok = serde_json::json!({"t_s": 0.5, "unix_ms": 10, "name": "run:state",
            "data": {"state": "Measure"}});
        assert_eq!(schema_check::check(&schema, &schema, &ok), Ok(()));
        for bad in [
            // An unknown state, an unknown name, a field too many, a missing time, a data of
            // another event.
            serde_json::json!({"t_s": 0.5, "unix_ms": 10, "name": "run:state",
                "data": {"state": "Running"}}),
            serde_json::json!({"t_s": 0.5, "unix_ms": 10, "name": "run:nap", "data": {}}),
            serde_json::json!({"t_s": 0.5, "unix_ms": 10, "name": "run:interrupt",
                "data": {"why": "x"}}),
            serde_json::json!({"unix_ms": 10, "name": "run:interrupt", "data": {}}),
            serde_json::json!({"t_s": 0.5, "unix_ms": 10, "name": "step:started",
                "data": {"state": "Measure"}}),
            serde_json::json!({"format": "upfbench-events", "version": 2,
                "tool": {"name": "upfbench", "version": "0.1.0"}, "started_unix_ms": 0,
                "started": "1970-01-01T00:00:00.000Z"}),
        ] {
            assert!(
                schema_check::check(&schema, &schema, &bad).is_err(),
                "accepted {bad}"
            );
        }
    }

    /// The JSON Schema keywords `docs/events.schema.json` uses, checked: `$ref` (to `#/$defs/`),
    /// `oneOf`, `type`, `const`, `enum`, `required`, `properties`, `additionalProperties: false`,
    /// `items` and `minimum`. Enough to check the lines without Python; Python's jsonschema is
    /// the reference where it is installed.
    mod schema_check {
        use serde_json::Value;

        pub(super) fn check(root: &Value, schema: &Value, v: &Value) -> Result<(), String> {
            if let Some(r) = schema.get("$ref").and_then(Value::as_str) {
                let name = r.strip_prefix("#/$defs/").ok_or(format!("ref {r}"))?;
                return check(root, &root["$defs"][name], v);
            }
            if let Some(t) = schema.get("type").and_then(Value::as_str) {
                let fits = match t {
                    "object" => v.is_object(),
                    "array" => v.is_array(),
                    "string" => v.is_string(),
                    "integer" => v.is_u64() || v.is_i64(),
                    "number" => v.is_number(),
                    "null" => v.is_null(),
                    "boolean" => v.is_boolean(),
                    other => return Err(format!("type {other} unknown to the check")),
                };
                if !fits {
                    return Err(format!("{v} is not of type {t}"));
                }
            }
            if let Some(c) = schema.get("const")
                && c != v
            {
                return Err(format!("{v} is not {c}"));
            }
            if let Some(e) = schema.get("enum").and_then(Value::as_array)
                && !e.contains(v)
            {
                return Err(format!("{v} is not one of {e:?}"));
            }
            if let Some(m) = schema.get("minimum").and_then(Value::as_f64)
                && v.as_f64().is_some_and(|x| x < m)
            {
                return Err(format!("{v} is below {m}"));
            }
            if let Some(o) = v.as_object() {
                for r in schema
                    .get("required")
                    .and_then(Value::as_array)
                    .into_iter()
                    .flatten()
                {
                    let r = r.as_str().unwrap_or_default();
                    if !o.contains_key(r) {
                        return Err(format!("no {r}"));
                    }
                }
                let properties = schema.get("properties").and_then(Value::as_object);
                for (k, x) in o {
                    match properties.and_then(|p| p.get(k)) {
                        Some(s) => check(root, s, x).map_err(|e| format!("{k}: {e}"))?,
                        None if schema.get("additionalProperties") == Some(&Value::Bool(false)) => {
                            return Err(format!("{k} is not expected"));
                        }
                        None => {}
                    }
                }
            }
            if let (Some(items), Some(a)) = (schema.get("items"), v.as_array()) {
                for x in a {
                    check(root, items, x)?;
                }
            }
            if let Some(one) = schema.get("oneOf").and_then(Value::as_array) {
                let fits: Vec<String> =
                    one.iter().filter_map(|s| check(root, s, v).err()).collect();
                if one.len() - fits.len() != 1 {
                    return Err(format!(
                        "{} of oneOf's {} fit: {fits:?}",
                        one.len() - fits.len(),
                        one.len()
                    ));
                }
            }
            Ok(())
        }
    }
}
