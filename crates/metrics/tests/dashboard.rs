//! The Grafana dashboard (deploy/grafana/upfbench.json): it is JSON Grafana can import, every
//! metric its queries name is one the endpoint exposes (the families' table in
//! `app::metrics::families`), it has the panels the operators need, and every query is valid
//! PromQL by Prometheus' own `promtool check rules` (Debian's `prometheus`; required under CI).
#![allow(clippy::print_stdout)]

use std::collections::BTreeSet;
use std::path::Path;

use serde_json::Value;
use upfbench_metrics::families;

fn dashboard() -> Value {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../deploy/grafana/upfbench.json");
    let text = std::fs::read_to_string(&path).expect("deploy/grafana/upfbench.json");
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// Every string under a key `expr`, `definition` or `query` (the panels' queries and the
/// variables'), anywhere in `v`.
fn queries(v: &Value, out: &mut Vec<String>) {
    match v {
        Value::Object(m) => {
            for (k, x) in m {
                match (k.as_str(), x) {
                    ("expr" | "definition" | "query", Value::String(s)) => out.push(s.clone()),
                    _ => queries(x, out),
                }
            }
        }
        Value::Array(a) => a.iter().for_each(|x| queries(x, out)),
        _ => {}
    }
}

/// The metric names a query uses: the `upfbench_...` identifiers in it.
fn metric_names(query: &str) -> Vec<String> {
    let mut names = Vec::new();
    let mut rest = query;
    while let Some(i) = rest.find("upfbench_") {
        let tail = &rest[i..];
        let end = tail
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .unwrap_or(tail.len());
        names.push(tail[..end].to_owned());
        rest = &tail[end..];
    }
    names
}

/// The panels, rows' own included.
fn panels(d: &Value) -> Vec<&Value> {
    let mut out = Vec::new();
    for p in d["panels"].as_array().expect("panels") {
        out.push(p);
        out.extend(p["panels"].as_array().into_iter().flatten());
    }
    out
}

#[test]
fn every_metric_the_dashboard_queries_is_one_the_endpoint_exposes() {
    let d = dashboard();
    let mut all = Vec::new();
    queries(&d, &mut all);
    let exposed = families::sample_names();
    let mut used = BTreeSet::new();
    for q in &all {
        for name in metric_names(q) {
            assert!(
                exposed.contains(&name),
                "{name} (in {q:?}) is not exposed; the exposed names are {exposed:#?}"
            );
            used.insert(name);
        }
    }
    println!(
        "the dashboard uses {} of {} names",
        used.len(),
        exposed.len()
    );
    // The families an operator watches are all on it.
    for needed in [
        "upfbench_sent_packets_total",
        "upfbench_received_packets_total",
        "upfbench_received_bytes_total",
        "upfbench_lost_packets_total",
        "upfbench_latency_seconds_bucket",
        "upfbench_tx_behind_seconds",
        "upfbench_tx_slips_total",
        "upfbench_pfcp_requests_total",
        "upfbench_pfcp_retransmissions_total",
        "upfbench_pfcp_responses_total",
        "upfbench_pfcp_sessions",
        "upfbench_reflector_forwarded_packets_total",
        "upfbench_reflector_dropped_packets_total",
        "upfbench_phase",
    ] {
        assert!(used.contains(needed), "no panel shows {needed}");
    }
    let exprs: Vec<&String> = all.iter().filter(|q| q.contains('(')).collect();
    assert!(exprs.iter().any(|q| q.contains("histogram_quantile(0.99,")));
    assert!(
        exprs
            .iter()
            .any(|q| q.contains("rate(upfbench_lost_packets_total"))
    );
}

#[test]
fn the_dashboard_is_grafanas_json_with_a_query_per_panel() {
    let d = dashboard();
    assert_eq!(d["uid"], "upfbench");
    assert!(d["schemaVersion"].as_u64().is_some_and(|v| v >= 30));
    let vars: Vec<&str> = d["templating"]["list"]
        .as_array()
        .expect("variables")
        .iter()
        .map(|v| v["name"].as_str().expect("name"))
        .collect();
    assert_eq!(vars, ["datasource", "job"]);
    let mut ids = BTreeSet::new();
    for p in panels(&d) {
        let title = p["title"].as_str().expect("a title");
        assert!(
            ids.insert(p["id"].as_u64().expect("an id")),
            "{title}: id twice"
        );
        let g = &p["gridPos"];
        assert!(
            ["h", "w", "x", "y"].iter().all(|k| g[k].is_u64()),
            "{title}: gridPos"
        );
        assert!(
            g["x"].as_u64().unwrap() + g["w"].as_u64().unwrap() <= 24,
            "{title}"
        );
        if p["type"] == "row" {
            continue;
        }
        assert_eq!(p["datasource"]["uid"], "${datasource}", "{title}");
        let targets = p["targets"].as_array().expect("targets");
        assert!(!targets.is_empty(), "{title}: no query");
        for t in targets {
            let expr = t["expr"].as_str().expect("expr");
            // Every query is of the chosen jobs.
            assert!(expr.contains("job=~\"$job\""), "{title}: {expr}");
        }
    }
}

#[test]
fn every_query_is_valid_promql() {
    let d = dashboard();
    let mut exprs = Vec::new();
    for p in panels(&d) {
        for t in p["targets"].as_array().into_iter().flatten() {
            exprs.push(t["expr"].as_str().expect("expr").to_owned());
        }
    }
    // As Grafana sends them: its variables replaced.
    let rules: String = exprs
        .iter()
        .enumerate()
        .map(|(i, e)| {
            let e = e.replace("$__rate_interval", "1m").replace("$job", ".*");
            format!(
                "      - record: dashboard_query_{i}\n        expr: {}\n",
                serde_json::to_string(&e).expect("a JSON string is a YAML one")
            )
        })
        .collect();
    let dir = std::env::temp_dir().join(format!("upfbench-dashboard-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let file = dir.join("rules.yml");
    std::fs::write(
        &file,
        format!("groups:\n  - name: dashboard\n    rules:\n{rules}"),
    )
    .expect("rules file");
    let out = std::process::Command::new("promtool")
        .args(["check", "rules"])
        .arg(&file)
        .output();
    let _ = std::fs::remove_dir_all(&dir);
    let out = match out {
        Ok(o) => o,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            assert!(
                std::env::var_os("CI").is_none_or(|v| v.is_empty()),
                "promtool is needed under CI (deploy/setup.sh --test installs prometheus)"
            );
            println!("promtool not installed: the queries' syntax is not checked");
            return;
        }
        Err(e) => panic!("promtool: {e}"),
    };
    let said = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(out.status.success(), "promtool check rules:\n{said}");
    assert!(
        said.contains(&format!("{} rules found", exprs.len())),
        "{said}"
    );
}
