//! `--metrics` on both processes, scraped by a real Prometheus (Debian's `prometheus`, started
//! here with its own configuration and storage in the case's scratch directory): a sweep over
//! memif, then Prometheus' HTTP API asked what it holds. Its counts must be the report's and
//! the reflector's, exactly: both processes linger until a scrape has read their final counts.

use std::collections::BTreeMap;
use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::harness::{Process, num, read_report, reflector_totals, serial, total};
use crate::memif::{Memif, profile};

/// Prometheus scrapes this often: a few times a second, so that the linger is short.
const SCRAPE_INTERVAL: &str = "250ms";

/// A loopback port free now.
fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("a free port")
        .port()
}

/// `GET path` on 127.0.0.1:`port` (HTTP/1.0: the body ends with the connection): the status
/// and the body.
fn http_get(port: u16, path: &str) -> Option<(u16, String)> {
    let mut s = TcpStream::connect(("127.0.0.1", port)).ok()?;
    s.set_read_timeout(Some(Duration::from_secs(10))).ok()?;
    write!(s, "GET {path} HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n").ok()?;
    let mut answer = String::new();
    s.read_to_string(&mut answer).ok()?;
    let (head, body) = answer.split_once("\r\n\r\n")?;
    let status = head.split(' ').nth(1)?.parse().ok()?;
    Some((status, body.to_owned()))
}

/// `s` as a URL query value.
fn percent_encode(s: &str) -> String {
    s.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => {
                (b as char).to_string()
            }
            _ => format!("%{b:02X}"),
        })
        .collect()
}

/// An instant query's vector: each series' labels and value.
fn query(port: u16, promql: &str) -> Vec<(BTreeMap<String, String>, f64)> {
    let path = format!("/api/v1/query?query={}", percent_encode(promql));
    let Some((200, body)) = http_get(port, &path) else {
        return Vec::new();
    };
    let v: Value = serde_json::from_str(&body).unwrap_or_else(|e| panic!("{e}: {body}"));
    assert_eq!(v["status"], "success", "{promql}: {body}");
    v["data"]["result"]
        .as_array()
        .expect("a vector")
        .iter()
        .map(|r| {
            let labels = r["metric"]
                .as_object()
                .expect("labels")
                .iter()
                .map(|(k, v)| (k.clone(), v.as_str().unwrap_or_default().to_owned()))
                .collect();
            let value = r["value"][1].as_str().expect("value").parse().expect("f64");
            (labels, value)
        })
        .collect()
}

/// The value of the series of `promql` with these labels, once Prometheus holds `want` (it
/// may still be appending the last scrape): waits up to 15 s, then returns what it has.
fn settled(port: u16, promql: &str, labels: &[(&str, &str)], want: f64) -> Option<f64> {
    let until = Instant::now() + Duration::from_secs(15);
    loop {
        let got = query(port, promql)
            .into_iter()
            .find(|(l, _)| {
                labels
                    .iter()
                    .all(|(k, v)| l.get(*k).map(String::as_str) == Some(v))
            })
            .map(|(_, v)| v);
        if got == Some(want) || Instant::now() >= until {
            return got;
        }
        std::thread::sleep(Duration::from_millis(200));
    }
}

/// The latest sample of `metric` in `job` (and with `labels`, `name="value"` pairs) over the
/// last 5 minutes: also after the target is gone and its series are marked stale.
fn last(metric: &str, job: &str, labels: &str) -> String {
    let more = if labels.is_empty() {
        String::new()
    } else {
        format!(",{labels}")
    };
    format!("last_over_time({metric}{{job=\"{job}\"{more}}}[5m])")
}

#[test]
fn memif_prometheus_holds_the_reports_and_the_reflectors_counts() {
    let _serial = serial();
    let bed = Memif::new("metrics", "{}", &profile(1, 1, "200ms"));
    let (prom, gen_port, refl_port) = (free_port(), free_port(), free_port());
    let mut prometheus = start_prometheus(&bed, prom, gen_port, refl_port);
    let reflector = sweep_with_metrics(&bed, gen_port, refl_port);
    check_step_figures(prom, &read_report(&bed.reports()));
    check_sessions_and_phase(prom);
    check_reflector_forwarded(prom, &reflector);
    prometheus.stop(Duration::from_secs(20));
}

/// Prometheus on port `prom`, scraping the generator on `gen_port` and the reflector on
/// `refl_port`, once it says it is ready (30 s at most).
fn start_prometheus(bed: &Memif, prom: u16, gen_port: u16, refl_port: u16) -> Process {
    let config = format!(
        "global:\n  scrape_interval: {SCRAPE_INTERVAL}\n  scrape_timeout: 200ms\n\
         scrape_configs:\n\
         \x20 - job_name: upfbench-generator\n    static_configs: [{{targets: ['127.0.0.1:{gen_port}']}}]\n\
         \x20 - job_name: upfbench-reflector\n    static_configs: [{{targets: ['127.0.0.1:{refl_port}']}}]\n"
    );
    let config = bed.scratch.write("prometheus.yml", &config);
    let tsdb = bed.scratch.path().join("tsdb");
    let prometheus = Process::spawn(
        "prometheus",
        &bed.scratch,
        None,
        &[
            "prometheus",
            &format!("--config.file={}", config.display()),
            &format!("--storage.tsdb.path={}", tsdb.display()),
            &format!("--web.listen-address=127.0.0.1:{prom}"),
        ],
        None,
    );
    let until = Instant::now() + Duration::from_secs(30);
    while http_get(prom, "/-/ready").map(|r| r.0) != Some(200) {
        assert!(
            Instant::now() < until,
            "prometheus not ready in 30 s\n{}",
            prometheus.logs()
        );
        std::thread::sleep(Duration::from_millis(100));
    }
    prometheus
}

/// A sweep of two payloads with both processes serving metrics and lingering until scraped;
/// returns the reflector, stopped.
fn sweep_with_metrics(bed: &Memif, gen_port: u16, refl_port: u16) -> Process {
    let refl_addr = format!("127.0.0.1:{refl_port}");
    let mut reflector = bed.reflector_with(&["--metrics", &refl_addr, "--metrics-linger", "30s"]);
    let gen_addr = format!("127.0.0.1:{gen_port}");
    let mut generator = bed.command_with(
        "sweep",
        &[
            "--payloads",
            "100,1400",
            "--metrics",
            &gen_addr,
            "--metrics-linger",
            "30s",
        ],
    );
    let status = generator.wait(Duration::from_secs(90));
    assert!(
        status.success(),
        "generator: {status}\n{}",
        generator.logs()
    );
    assert!(
        generator
            .stdout()
            .contains("metrics: the final counts were scraped"),
        "{}",
        generator.logs()
    );
    let refl_status = reflector.stop(Duration::from_secs(40));
    assert!(refl_status.success(), "reflector: {refl_status}");
    assert!(
        reflector
            .stdout()
            .contains("metrics: the final counts were scraped"),
        "{}",
        reflector.logs()
    );
    reflector
}

/// Every step's figures as the report has them.
fn check_step_figures(prom: u16, report: &Value) {
    let steps = report["steps"].as_array().expect("steps");
    assert_eq!(steps.len(), 2, "two payloads");
    let job = "upfbench-generator";
    for (i, s) in steps.iter().enumerate() {
        let step = (i + 1).to_string();
        for d in s["directions"].as_array().expect("directions") {
            let direction = d["direction"].as_str().expect("direction");
            let labels = [("direction", direction), ("step", step.as_str())];
            for (metric, path) in [
                ("upfbench_received_packets_total", &["rx", "packets"][..]),
                ("upfbench_sent_packets_total", &["tx", "packets"]),
                ("upfbench_lost_packets_total", &["loss", "lost"]),
                ("upfbench_latency_seconds_count", &["latency", "samples"]),
            ] {
                let want = num(d, path) as f64;
                let got = settled(prom, &last(metric, job, ""), &labels, want);
                println!("metrics: step {step} {direction} {metric} {got:?}, report {want}");
                assert_eq!(got, Some(want), "{metric} {labels:?}");
            }
            check_median(prom, d, direction, &step);
        }
    }
}

/// The dashboard's median from the buckets lies in the bucket of the report's.
fn check_median(prom: u16, d: &Value, direction: &str, step: &str) {
    let job = "upfbench-generator";
    let p50 = num(d, &["latency", "p50_ns"]) as f64 / 1e9;
    let buckets = last(
        "upfbench_latency_seconds_bucket",
        job,
        &format!("direction=\"{direction}\",step=\"{step}\""),
    );
    let q = format!("histogram_quantile(0.5, sum by (le) ({buckets}))");
    let est = query(prom, &q).first().map(|(_, v)| *v).expect("a median");
    let bounds = upfbench_metrics::histogram::BOUNDS_NS;
    let hi = bounds.iter().map(|&b| b as f64 / 1e9).find(|&b| b >= p50);
    let lo = bounds.iter().map(|&b| b as f64 / 1e9).rfind(|&b| b < p50);
    println!("metrics: step {step} {direction} p50 {p50} s, histogram_quantile {est} s");
    assert!(
        lo.is_none_or(|lo| est >= lo * 0.999) && hi.is_none_or(|hi| est <= hi * 1.001),
        "p50 {p50} s in ({lo:?}, {hi:?}], the buckets' estimate {est}"
    );
}

/// The PFCP session established and the run's phase done.
fn check_sessions_and_phase(prom: u16) {
    let job = "upfbench-generator";
    let sessions = settled(
        prom,
        &last("upfbench_pfcp_sessions_established_total", job, ""),
        &[],
        1.0,
    );
    assert_eq!(sessions, Some(1.0));
    let done = last("upfbench_phase", job, "phase=\"done\"");
    assert_eq!(settled(prom, &done, &[], 1.0), Some(1.0));
}

/// The reflector's forwarded packets, as it printed them at exit.
fn check_reflector_forwarded(prom: u16, reflector: &Process) {
    let totals = reflector_totals(&reflector.stdout());
    let job = "upfbench-reflector";
    for (direction, printed) in [
        ("uplink", total(&totals, "uplink forwarded")),
        ("downlink", total(&totals, "downlink forwarded")),
    ] {
        assert!(printed > 0, "{direction}: {totals:?}");
        let got = settled(
            prom,
            &last("upfbench_reflector_forwarded_packets_total", job, ""),
            &[("direction", direction)],
            printed as f64,
        );
        println!("metrics: reflector {direction} forwarded {got:?}, printed {printed}");
        assert_eq!(got, Some(printed as f64), "reflector {direction}");
    }
}
