//! Reports of an earlier schema, brought to this one before they are read, so that every report
//! written since schema 1 still loads (`upfbench compare` of last year's runs).
//!
//! Schema 1 to 2: every percentile summary became a [`Percentiles`](super::Percentiles) in ns.
//!
//! | where | schema 1 | schema 2 |
//! | --- | --- | --- |
//! | `control.establishment_latency`, `deletion_latency` | `count`, `min_us`, `p50_us`, `p90_us`, `p99_us`, `max_us` | `samples`, `min_ns`, `p50_ns`, `p90_ns`, `p99_ns`, `max_ns` |
//! | `steps[].handover` | `interruption_ms`, `modification_ms`: `count`, `min`, `p50`, `p90`, `p99`, `max` (ms) | `interruption`, `modification`: as above (ns) |
//! | `steps[].churn` | `latency_ms` (of each procedure and second), `activation.lag_ms`, `lag_floor_ms` (ms) | `latency`, `activation.lag`, `lag_floor` (ns) |
//! | `search.cases[]` trials' `latency[]` | `direction`, `p50_ns` to `p99_99_ns`, `max_ns` | with `samples` and `min_ns`, from the trial's step |
//! | `control.release` | `"not answered (Open5GS, ...)"`, `"failed: <why>"` | `"not answered"`, `"failed"` |
//!
//! The data plane's latency (`steps[].directions[].latency`) kept its fields.
//!
//! Schema 2 to 3: a step's figures are the totals over the run's port pairs, and
//! `steps[].pairs` (new) holds each pair's when there are several. A schema 2 report is of one
//! pair (the generator drove no more): its steps' fields are that pair's and the totals, and it
//! takes no `pairs`, so only its version changes.

use serde_json::{Map, Value, json};

/// `value`, a report of schema 1, made one of schema 2.
pub(super) fn v1_to_v2(value: &mut Value) {
    if let Some(control) = value.get_mut("control").and_then(Value::as_object_mut) {
        for key in ["establishment_latency", "deletion_latency"] {
            if let Some(l) = control.get_mut(key).filter(|l| l.is_object()) {
                *l = from_us(l);
            }
        }
        if let Some(r) = control.get_mut("release")
            && let Some(word) = r
                .as_str()
                .and_then(super::Release::from_name)
                .map(super::Release::name)
        {
            *r = Value::from(word);
        }
    }
    let step_latency = step_latencies(value);
    if let Some(steps) = value.get_mut("steps").and_then(Value::as_array_mut) {
        for step in steps {
            if let Some(h) = step.get_mut("handover").and_then(Value::as_object_mut) {
                rename_ms(h, "interruption_ms", "interruption");
                rename_ms(h, "modification_ms", "modification");
            }
            if let Some(c) = step.get_mut("churn").and_then(Value::as_object_mut) {
                for kind in ["establishments", "modifications", "deletions"] {
                    if let Some(p) = c.get_mut(kind).and_then(Value::as_object_mut) {
                        rename_ms(p, "latency_ms", "latency");
                    }
                }
                if let Some(a) = c.get_mut("activation").and_then(Value::as_object_mut) {
                    rename_ms(a, "lag_ms", "lag");
                    rename_ms(a, "lag_floor_ms", "lag_floor");
                }
                for s in c
                    .get_mut("seconds")
                    .and_then(Value::as_array_mut)
                    .into_iter()
                    .flatten()
                {
                    if let Some(s) = s.as_object_mut() {
                        rename_ms(s, "latency_ms", "latency");
                    }
                }
            }
        }
    }
    for case in value
        .pointer_mut("/search/cases")
        .and_then(Value::as_array_mut)
        .into_iter()
        .flatten()
    {
        for t in case
            .get_mut("trials")
            .and_then(Value::as_array_mut)
            .into_iter()
            .flatten()
        {
            complete_trial(t, &step_latency);
        }
        for l in case
            .get_mut("latency_under_load")
            .and_then(Value::as_array_mut)
            .into_iter()
            .flatten()
        {
            if let Some(t) = l.get_mut("trial") {
                complete_trial(t, &step_latency);
            }
        }
    }
    value["schema_version"] = Value::from(2);
}

/// `value`, a report of schema 2, made one of schema 3 (see the module's documentation).
pub(super) fn v2_to_v3(value: &mut Value) {
    value["schema_version"] = Value::from(3);
}

/// A schema 1 PFCP latency (µs) as percentiles in ns.
fn from_us(l: &Value) -> Value {
    let ns = |k: &str| {
        l[k].as_u64()
            .map_or(Value::Null, |us| Value::from(us.saturating_mul(1_000)))
    };
    json!({
        "samples": l["count"],
        "min_ns": ns("min_us"),
        "p50_ns": ns("p50_us"),
        "p90_ns": ns("p90_us"),
        "p99_ns": ns("p99_us"),
        "max_ns": ns("max_us"),
    })
}

/// Field `old` of `m`, schema 1 percentiles in ms, as field `new` in ns.
fn rename_ms(m: &mut Map<String, Value>, old: &str, new: &str) {
    let Some(p) = m.remove(old) else { return };
    if p.is_null() {
        return;
    }
    let ns = |k: &str| {
        p[k].as_f64()
            .map_or(Value::Null, |ms| Value::from((ms * 1e6).round() as i64))
    };
    m.insert(
        new.to_owned(),
        json!({
            "samples": p["count"],
            "min_ns": ns("min"),
            "p50_ns": ns("p50"),
            "p90_ns": ns("p90"),
            "p99_ns": ns("p99"),
            "max_ns": ns("max"),
        }),
    );
}

/// Each step's latency per direction: (`samples`, `min_ns`) by (step, direction).
fn step_latencies(value: &Value) -> Vec<Vec<(String, Value, Value)>> {
    value["steps"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|s| {
            s["directions"]
                .as_array()
                .into_iter()
                .flatten()
                .filter(|d| d["latency"].is_object())
                .map(|d| {
                    (
                        d["direction"].as_str().unwrap_or_default().to_owned(),
                        d["latency"]["samples"].clone(),
                        d["latency"]["min_ns"].clone(),
                    )
                })
                .collect()
        })
        .collect()
}

/// A trial's latency entries with their step's sample count and minimum (schema 1 left them
/// out); an entry whose step has no latency for its direction is dropped.
fn complete_trial(t: &mut Value, steps: &[Vec<(String, Value, Value)>]) {
    let step = t["step"].as_u64().and_then(|s| steps.get(s as usize));
    let Some(latency) = t.get_mut("latency").and_then(Value::as_array_mut) else {
        return;
    };
    latency.retain_mut(|l| {
        let direction = match l["direction"].as_str().unwrap_or_default() {
            "UL" | "uplink" => "uplink",
            "DL" | "downlink" => "downlink",
            _ => return false,
        };
        let Some((_, samples, min)) = step.and_then(|s| s.iter().find(|x| x.0 == direction)) else {
            return false;
        };
        l["direction"] = Value::from(direction);
        l["samples"] = samples.clone();
        l["min_ns"] = min.clone();
        true
    });
}

#[cfg(test)]
mod tests {
    use super::super::{Nanos, Release, Report};

    /// The golden report as schema 1 wrote it, with a handover, a churn and a search's trial
    /// added in schema 1's shapes.
    fn v1() -> serde_json::Value {
        let mut v: serde_json::Value =
            serde_json::from_str(include_str!("../testdata/report-v1.json")).unwrap();
        assert_eq!(v["schema_version"], 1);
        v["control"]["establishment_latency"] = serde_json::json!({"count": 4, "min_us": 557,
            "p50_us": 600, "p90_us": 700, "p99_us": 800, "max_us": 900});
        v["control"]["release"] = "not answered (Open5GS, eUPF and UPG-VPP never answer it)".into();
        let ms = serde_json::json!({"count": 2, "min": -0.5, "p50": 1.25, "p90": 2.0,
            "p99": 2.0, "max": 2.0});
        v["steps"][0]["handover"] = serde_json::json!({"handovers": 2, "modified": 2,
            "failed": 0, "switched": 2, "end_marker_asked": false, "end_markers_received": 0,
            "end_markers_in_order": 0, "end_markers_missing": 0, "lost": 0, "duplicates": 0,
            "reordered": 0, "interruption_ms": ms, "modification_ms": ms, "ues": []});
        v["search"] = serde_json::json!({"goals": [], "complete": true, "cases": [{
            "label": "10 B both", "payload_bytes": 10, "directions": "both",
            "min_load_pps": 1.0, "max_load_pps": 2.0, "frame_bytes_l2": 64.0, "results": [],
            "trials": [{"step": 0, "intended_load_pps": 1.0, "offered_load_pps": 1.0,
                "forwarding_rate_pps": 1.0, "sent": 1, "received": 1, "loss_ratio": 0.0,
                "intended_duration_s": 1.0, "duration_s": 1.0, "latency": [
                    {"direction": "uplink", "p50_ns": 5, "p90_ns": 6, "p99_ns": 7,
                     "p99_9_ns": 8, "p99_99_ns": 9, "max_ns": 10}]}]}]});
        v
    }

    #[test]
    fn a_schema_2_report_reads_as_schema_3_of_one_pair() {
        let v1 = v1();
        let r2 = Report::from_json(&v1.to_string()).expect("schema 1 reads");
        // As schema 2 wrote it: its version 2, no pairs.
        let mut v2: serde_json::Value = serde_json::from_str(&r2.to_json()).unwrap();
        v2["schema_version"] = 2.into();
        assert!(v2["steps"][0].get("pairs").is_none());
        let r3 = Report::from_json(&v2.to_string()).expect("schema 2 reads");
        assert_eq!(r3.schema_version, 3);
        assert!(r3.steps.iter().all(|s| s.pairs.is_empty()));
        // The steps' figures are as schema 2 had them: one pair's, which are the totals.
        assert_eq!(r3.steps, r2.steps);
        assert!(!r3.steps.is_empty());
    }

    #[test]
    fn a_schema_1_report_reads_as_this_schema() {
        let r = Report::from_json(&v1().to_string()).expect("schema 1 reads");
        assert_eq!(r.schema_version, super::super::SCHEMA_VERSION);
        let c = r.control.as_ref().unwrap();
        let e = c.establishment_latency.unwrap();
        assert_eq!(
            (e.samples, e.min, e.p50, e.p99, e.max, e.p99_9),
            (
                4,
                Nanos(557_000),
                Nanos(600_000),
                Nanos(800_000),
                Nanos(900_000),
                None
            )
        );
        assert_eq!(c.release, Release::NotAnswered);
        let h = r.steps[0].handover.as_ref().unwrap();
        let i = h.interruption.unwrap();
        assert_eq!(
            (i.samples, i.min, i.p50),
            (2, Nanos(-500_000), Nanos(1_250_000))
        );
        assert_eq!(h.modification, h.interruption);
        // The trial's latency took its step's sample count and minimum.
        let t = &r.search.as_ref().unwrap().cases[0].trials[0].latency[0];
        let step = r.steps[0].directions[0].latency.as_ref().unwrap();
        assert_eq!(t.latency.samples, step.percentiles.samples);
        assert_eq!(t.latency.min, step.percentiles.min);
        assert_eq!(
            (t.latency.p50, t.latency.p99_99),
            (Nanos(5), Some(Nanos(9)))
        );
        // The data plane's latency reads as it was.
        let v1_latency = &v1()["steps"][0]["directions"][0]["latency"];
        assert_eq!(v1_latency["p99_9_ns"], step.percentiles.p99_9.unwrap().0);
        // Written again, it is this schema and reads back the same.
        let again = Report::from_json(&r.to_json()).unwrap();
        assert_eq!(again, r);
    }

    #[test]
    fn odd_schema_1_shapes_are_refused_without_a_panic() {
        for odd in [
            r#"{"schema_version": 1, "control": {"establishment_latency": {"min_us": 18446744073709551615}}}"#,
            r#"{"schema_version": 1, "search": {"cases": [1, {"trials": [2, {"step": 9, "latency": [3, {"direction": "UL"}]}]}]}}"#,
            r#"{"schema_version": 1, "steps": [1, {"handover": {"interruption_ms": 5}, "churn": {"seconds": [1]}}]}"#,
        ] {
            assert!(Report::from_json(odd).is_err(), "{odd}");
        }
    }
}
