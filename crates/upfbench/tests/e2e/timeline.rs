//! The run's timeline (`events.jsonl`) as a user reads it: one JSON object a line, on one time
//! axis, the run's story in order. Each event is `{"t_s", "unix_ms", "name", "data"}` (the
//! header line is left out of `events`: see `memif::finish`).

use serde_json::Value;

/// The event's name (`pfcp:procedure`).
fn name(e: &Value) -> &str {
    e["name"].as_str().unwrap_or_default()
}

/// A text field of the event's data.
fn text<'a>(e: &'a Value, key: &str) -> &'a str {
    e["data"][key].as_str().unwrap_or_default()
}

fn time(e: &Value) -> f64 {
    e["t_s"].as_f64().unwrap_or_else(|| panic!("no t_s: {e}"))
}

/// The events named `kind` whose data's `key` is `value`, in order.
fn find<'a>(events: &'a [Value], kind: &str, key: &str, value: &str) -> Vec<&'a Value> {
    events
        .iter()
        .filter(|e| name(e) == kind && text(e, key) == value)
        .collect()
}

/// The one event named `kind`.
fn named<'a>(events: &'a [Value], kind: &str) -> &'a Value {
    let found: Vec<&Value> = events.iter().filter(|e| name(e) == kind).collect();
    assert_eq!(found.len(), 1, "one {kind}: {found:?}");
    found[0]
}

fn one<'a>(events: &'a [Value], kind: &str, key: &str, value: &str) -> &'a Value {
    let found = find(events, kind, key, value);
    assert_eq!(found.len(), 1, "one {kind} {key}={value}: {found:?}");
    found[0]
}

/// A run of one step with `ues` sessions, `seconds` of measured traffic at `rate` each way and
/// nothing wrong: its timeline tells it, in order and on a time axis that matches the run.
pub(crate) fn assert_clean_run(events: &[Value], ues: u64, seconds: u64, rate: u64) {
    assert!(!events.is_empty());
    check_one_time_axis(events);
    check_states_in_order(events);
    check_procedures_and_phases(events, ues, seconds, rate);
}

/// The events on one time axis, the wall clock a constant offset from it.
fn check_one_time_axis(events: &[Value]) {
    // One time axis: non-decreasing, and the wall clock a constant offset from it.
    let offset = |e: &Value| e["unix_ms"].as_f64().expect("unix_ms") - time(e) * 1e3;
    for w in events.windows(2) {
        assert!(
            time(&w[0]) <= time(&w[1]),
            "out of order: {} {}",
            w[0],
            w[1]
        );
        assert!(
            (offset(&w[0]) - offset(&w[1])).abs() <= 1.0,
            "{} {}",
            w[0],
            w[1]
        );
    }
}

/// The state machine's states, in the order of the life cycle.
fn check_states_in_order(events: &[Value]) {
    // The machine's states, in the order of the life cycle.
    let states: Vec<&str> = events
        .iter()
        .filter(|e| name(e) == "run:state")
        .map(|e| text(e, "state"))
        .collect();
    let expected = [
        "Associating",
        "Establishing",
        "Resolving",
        "Preparing",
        "Warmup",
        "Settle",
        "Measure",
        "Drain",
        "Done",
    ];
    let mut at = states.iter();
    for s in expected {
        assert!(
            at.any(|x| *x == s),
            "state {s} missing or out of order: {states:?}"
        );
    }
}

/// The PFCP procedures with their sessions, ARP before the step, the workers' phases with the
/// measured one as long as the profile asks, and the step collected with the report's figures
/// before the sessions were deleted.
fn check_procedures_and_phases(events: &[Value], ues: u64, seconds: u64, rate: u64) {
    // PFCP: each procedure started, then done, with the sessions counted.
    let pfcp = |procedure: &str, outcome: &str| -> Vec<&Value> {
        events
            .iter()
            .filter(|e| {
                name(e) == "pfcp:procedure"
                    && text(e, "procedure") == procedure
                    && text(e, "outcome") == outcome
            })
            .collect()
    };
    for (procedure, count) in [
        ("association", None),
        ("establishment", Some(ues)),
        ("deletion", Some(ues)),
    ] {
        let (started, done) = (pfcp(procedure, "started"), pfcp(procedure, "done"));
        assert_eq!(
            (started.len(), done.len()),
            (1, 1),
            "{procedure}: {events:?}"
        );
        assert!(time(started[0]) <= time(done[0]));
        if let Some(n) = count {
            assert_eq!(done[0]["data"]["count"].as_u64(), Some(n), "{}", done[0]);
        }
    }
    assert_eq!(pfcp("release", "started").len(), 1);
    // ARP: both next hops resolved, before the step started.
    let step_started = named(events, "step:started");
    for port in ["N3", "N6"] {
        let arp = one(events, "arp:next_hop", "port", port);
        assert!(arp["data"]["mac"].is_string(), "{arp}");
        assert!(time(arp) <= time(step_started));
    }
    // The workers' phases: the measured one lasted the profile's duration (it cannot be
    // shorter: the packets are paced), and at most the state machine's limit.
    let phase = |p: &str| one(events, "workers:phase", "phase", p);
    let (warmup, measure, drain) = (phase("Warmup"), phase("Measure"), phase("Drain"));
    assert_eq!(measure["data"]["step"].as_u64(), Some(0), "{measure}");
    assert!(time(warmup) < time(measure));
    let measured = time(drain) - time(measure);
    let s = seconds as f64;
    assert!(
        (s - 0.001..=s * 1.5 + 2.0).contains(&measured),
        "measured phase {measured} s for a {seconds} s profile"
    );
    // The step collected with the report's figures, before the sessions were deleted.
    let collected = named(events, "step:collected");
    let figures = collected["data"]["figures"].as_array().expect("figures");
    assert_eq!(figures.len(), 2, "{collected}");
    for f in figures {
        assert_eq!(f["sent"].as_u64(), Some(rate * seconds), "{f}");
        assert_eq!(f["received"].as_u64(), Some(rate * seconds), "{f}");
        assert_eq!(f["lost"].as_u64(), Some(0), "{f}");
    }
    assert!(time(drain) <= time(collected));
    assert!(time(collected) <= time(pfcp("deletion", "started")[0]));
}
