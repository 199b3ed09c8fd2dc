//! The endpoint as a scraper sees it: the exposition parsed back (and checked by Prometheus'
//! own `promtool` where installed), the HTTP answers, the linger at the end.

use std::collections::BTreeMap;
use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use super::families::{self, Role};
use super::health::Phase;
use super::*;
use crate::datapath::reflector::counters::{CounterCell, ReflectorCounters};

/// One sample as the text format writes it.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct ParsedSample {
    pub(super) name: String,
    pub(super) labels: BTreeMap<String, String>,
    pub(super) value: f64,
}

/// One family: `# HELP`, `# TYPE` and its samples.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct ParsedFamily {
    pub(super) name: String,
    pub(super) kind: String,
    pub(super) samples: Vec<ParsedSample>,
}

/// Parses Prometheus' text format 0.0.4 as a scraper does, strictly: every sample after its
/// family's `# HELP` and `# TYPE`, named as its type allows, labels quoted and escaped.
pub(super) fn parse(text: &str) -> Result<Vec<ParsedFamily>, String> {
    let mut out: Vec<ParsedFamily> = Vec::new();
    let mut help: Option<String> = None;
    for (n, line) in text.lines().enumerate() {
        let at = |m: &str| format!("line {}: {m}: {line:?}", n + 1);
        if let Some(rest) = line.strip_prefix("# HELP ") {
            let (name, _) = rest
                .split_once(' ')
                .ok_or_else(|| at("help without text"))?;
            help = Some(name.to_owned());
        } else if let Some(rest) = line.strip_prefix("# TYPE ") {
            let (name, kind) = rest
                .split_once(' ')
                .ok_or_else(|| at("type without kind"))?;
            if help.as_deref() != Some(name) {
                return Err(at("TYPE not after its HELP"));
            }
            if !["counter", "gauge", "histogram"].contains(&kind) {
                return Err(at("unknown type"));
            }
            out.push(ParsedFamily {
                name: name.to_owned(),
                kind: kind.to_owned(),
                samples: Vec::new(),
            });
        } else if line.starts_with('#') || line.is_empty() {
            return Err(at("unexpected line"));
        } else {
            let family = out.last_mut().ok_or_else(|| at("sample before TYPE"))?;
            let sample = parse_sample(line).map_err(|e| at(&e))?;
            let allowed: Vec<String> = match family.kind.as_str() {
                "histogram" => ["_bucket", "_sum", "_count"]
                    .iter()
                    .map(|s| format!("{}{s}", family.name))
                    .collect(),
                _ => vec![family.name.clone()],
            };
            if !allowed.contains(&sample.name) {
                return Err(at("sample of another family"));
            }
            family.samples.push(sample);
        }
    }
    Ok(out)
}

fn parse_sample(line: &str) -> Result<ParsedSample, String> {
    let name_end = line.find(['{', ' ']).ok_or_else(|| "no value".to_owned())?;
    let name = &line[..name_end];
    if name.is_empty()
        || !name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b':')
    {
        return Err("bad metric name".into());
    }
    let mut rest = &line[name_end..];
    let mut labels = BTreeMap::new();
    if let Some(r) = rest.strip_prefix('{') {
        rest = r;
        loop {
            if let Some(r) = rest.strip_prefix('}') {
                rest = r;
                break;
            }
            let (key, r) = rest.split_once("=\"").ok_or("label without =\"")?;
            let mut value = String::new();
            let mut chars = r.char_indices();
            let end = loop {
                match chars.next().ok_or("unterminated label value")? {
                    (i, '"') => break i,
                    (_, '\\') => match chars.next().ok_or("dangling escape")?.1 {
                        'n' => value.push('\n'),
                        c @ ('\\' | '"') => value.push(c),
                        c => return Err(format!("bad escape \\{c}")),
                    },
                    (_, c) => value.push(c),
                }
            };
            if labels.insert(key.to_owned(), value).is_some() {
                return Err(format!("label {key} twice"));
            }
            rest = &r[end + 1..];
            rest = rest.strip_prefix(',').unwrap_or(rest);
        }
    }
    let value = rest.strip_prefix(' ').ok_or("no space before the value")?;
    let value = match value {
        "+Inf" => f64::INFINITY,
        "-Inf" => f64::NEG_INFINITY,
        v => v.parse().map_err(|_| format!("bad value {v:?}"))?,
    };
    Ok(ParsedSample {
        name: name.to_owned(),
        labels,
        value,
    })
}

/// The value of sample `name` with exactly these labels, if the scrape has it.
pub(super) fn value(parsed: &[ParsedFamily], name: &str, labels: &[(&str, &str)]) -> Option<f64> {
    let want: BTreeMap<String, String> = labels
        .iter()
        .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
        .collect();
    parsed
        .iter()
        .flat_map(|f| &f.samples)
        .find(|s| s.name == name && s.labels == want)
        .map(|s| s.value)
}

/// Checks what a scraper relies on beyond the syntax: every family one of the table's, with
/// its labels; each histogram's buckets cumulative, ending at `+Inf` = `_count`.
pub(super) fn check_semantics(role: Role, parsed: &[ParsedFamily]) {
    let expected: Vec<String> = families::of(role)
        .iter()
        .map(|f| match f.kind {
            families::Kind::Counter => format!("{}_total", f.name),
            _ => f.name.to_owned(),
        })
        .collect();
    let names: Vec<&str> = parsed.iter().map(|f| f.name.as_str()).collect();
    assert_eq!(names, expected, "every family of the role, in order");
    for (f, table) in parsed.iter().zip(families::of(role)) {
        for s in &f.samples {
            let mut keys: Vec<&str> = s.labels.keys().map(String::as_str).collect();
            let mut want: Vec<&str> = table.labels.to_vec();
            if s.name.ends_with("_bucket") {
                want.push("le");
            }
            keys.sort_unstable();
            want.sort_unstable();
            assert_eq!(keys, want, "labels of {}", s.name);
        }
        if f.kind != "histogram" {
            continue;
        }
        // Series by their labels less `le`.
        let mut series: BTreeMap<Vec<(String, String)>, Vec<&ParsedSample>> = BTreeMap::new();
        for s in &f.samples {
            let key = s
                .labels
                .iter()
                .filter(|(k, _)| *k != "le")
                .map(|(k, v)| (k.clone(), v.clone()))
                .collect();
            series.entry(key).or_default().push(s);
        }
        for (key, samples) in series {
            let buckets: Vec<(f64, f64)> = samples
                .iter()
                .filter(|s| s.name.ends_with("_bucket"))
                .map(|s| (s.labels["le"].parse::<f64>().expect("le"), s.value))
                .collect();
            let count = samples
                .iter()
                .find(|s| s.name.ends_with("_count"))
                .expect("_count")
                .value;
            assert!(
                buckets
                    .windows(2)
                    .all(|w| w[0].0 < w[1].0 && w[0].1 <= w[1].1)
            );
            assert_eq!(
                buckets.last().copied(),
                Some((f64::INFINITY, count)),
                "{key:?}"
            );
        }
    }
}

/// `promtool check metrics` (Debian's `prometheus` package) on `text`: `None` when promtool is
/// not installed (outside CI; under CI it must be), else its verdict and output.
pub(super) fn promtool(text: &str) -> Option<(bool, String)> {
    let child = std::process::Command::new("promtool")
        .args(["check", "metrics"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn();
    let mut child = match child {
        Ok(c) => c,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            assert!(
                std::env::var_os("CI").is_none_or(|v| v.is_empty()),
                "promtool is needed under CI (deploy/setup.sh --test installs prometheus)"
            );
            return None;
        }
        Err(e) => panic!("promtool: {e}"),
    };
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(text.as_bytes())
        .expect("write to promtool");
    let out = child.wait_with_output().expect("promtool");
    let said = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    Some((out.status.success() && said.trim().is_empty(), said))
}

/// An endpoint on a free loopback port that does not linger.
pub(super) fn endpoint(role: Role, linger: Duration) -> Metrics {
    let args = MetricsArgs {
        metrics: Some("127.0.0.1:0".parse().expect("address")),
        metrics_linger: linger,
    };
    Metrics::start(&args, role)
        .expect("starts")
        .expect("asked for")
}

/// `GET path` over HTTP/1.1: the status, the content type and the body.
pub(super) fn get(addr: SocketAddr, path: &str) -> (u16, String, String) {
    request(addr, "GET", path)
}

fn request(addr: SocketAddr, method: &str, path: &str) -> (u16, String, String) {
    let mut s = TcpStream::connect(addr).expect("connect");
    write!(
        s,
        "{method} {path} HTTP/1.1\r\nHost: {addr}\r\nAccept: text/plain\r\n\r\n"
    )
    .expect("request");
    let mut answer = String::new();
    s.read_to_string(&mut answer).expect("answer");
    let (head, body) = answer.split_once("\r\n\r\n").expect("head and body");
    let status = head
        .split(' ')
        .nth(1)
        .expect("status")
        .parse()
        .expect("u16");
    let content_type = head
        .lines()
        .find_map(|l| l.strip_prefix("Content-Type: "))
        .unwrap_or_default()
        .to_owned();
    let length: usize = head
        .lines()
        .find_map(|l| l.strip_prefix("Content-Length: "))
        .expect("Content-Length")
        .parse()
        .expect("length");
    assert_eq!(length, body.len(), "Content-Length");
    (status, content_type, body.to_owned())
}

fn reflector_counters(up: u64, down: u64, tx_full: u64) -> ReflectorCounters {
    let mut c = ReflectorCounters {
        received: [up + tx_full, down],
        uplink: up,
        downlink: down,
        ..ReflectorCounters::default()
    };
    c.dropped[6] = tx_full;
    c.impair.delayed = up + down;
    c
}

#[test]
fn the_reflectors_scrape_reads_its_cells_then_its_totals() {
    let m = endpoint(Role::Reflector, Duration::ZERO);
    let cells = Arc::new(vec![CounterCell::default(), CounterCell::default()]);
    cells[0].publish(&reflector_counters(100, 90, 3));
    cells[1].publish(&reflector_counters(50, 40, 0));
    m.reflector_running(Arc::clone(&cells));
    let (status, content_type, text) = get(m.address(), "/metrics");
    assert_eq!(status, 200);
    assert_eq!(content_type, "text/plain; version=0.0.4; charset=utf-8");
    let parsed = parse(&text).unwrap_or_else(|e| panic!("{e}\n{text}"));
    check_semantics(Role::Reflector, &parsed);
    let v = |name: &str, labels: &[(&str, &str)]| value(&parsed, name, labels);
    let forwarded = "upfbench_reflector_forwarded_packets_total";
    assert_eq!(v(forwarded, &[("direction", "uplink")]), Some(150.0));
    assert_eq!(v(forwarded, &[("direction", "downlink")]), Some(130.0));
    let dropped = "upfbench_reflector_dropped_packets_total";
    assert_eq!(v(dropped, &[("kind", "tx_full")]), Some(3.0));
    assert_eq!(v(dropped, &[("kind", "unknown_teid")]), Some(0.0));
    let impaired = "upfbench_reflector_impaired_packets_total";
    assert_eq!(v(impaired, &[("kind", "delayed")]), Some(280.0));
    let received = "upfbench_reflector_received_packets_total";
    assert_eq!(v(received, &[("port", "n3")]), Some(153.0));
    assert_eq!(v("upfbench_phase", &[("phase", "running")]), Some(1.0));
    assert_eq!(v("upfbench_phase", &[("phase", "starting")]), Some(0.0));
    let info = [
        ("version", env!("CARGO_PKG_VERSION")),
        ("role", "reflector"),
    ];
    assert_eq!(v("upfbench_build_info", &info), Some(1.0));
    // Read at scrape time: a publication shows in the next scrape.
    cells[1].publish(&reflector_counters(60, 40, 0));
    let text = get(m.address(), "/metrics").2;
    let parsed = parse(&text).expect("parses");
    assert_eq!(
        value(&parsed, forwarded, &[("direction", "uplink")]),
        Some(160.0)
    );
    // At exit the totals, whatever the cells say.
    m.reflector_stopped(reflector_counters(1_000, 999, 1));
    m.set_phase(Phase::Done, None);
    let text = get(m.address(), "/metrics").2;
    let parsed = parse(&text).expect("parses");
    assert_eq!(
        value(&parsed, forwarded, &[("direction", "uplink")]),
        Some(1_000.0)
    );
    assert_eq!(
        value(&parsed, "upfbench_phase", &[("phase", "done")]),
        Some(1.0)
    );
    if let Some((ok, said)) = promtool(&text) {
        assert!(ok, "promtool check metrics:\n{said}\n{text}");
    }
}

#[test]
fn health_says_the_phase_and_503_once_failed() {
    let m = endpoint(Role::Generator, Duration::ZERO);
    let (status, content_type, body) = get(m.address(), "/health");
    assert_eq!((status, content_type.as_str()), (200, "application/json"));
    assert_eq!(
        body,
        "{\"role\":\"generator\",\"phase\":\"starting\",\"failure\":null}\n"
    );
    m.set_phase(Phase::Measuring, None);
    assert!(
        get(m.address(), "/health")
            .2
            .contains("\"phase\":\"measuring\"")
    );
    m.set_phase(Phase::Deleting, Some("N3: no ARP reply"));
    let (status, _, body) = get(m.address(), "/health");
    assert_eq!(status, 503);
    assert!(body.contains("\"failure\":\"N3: no ARP reply\""), "{body}");
    // The first failure stays: the teardown's own do not hide it.
    m.set_phase(Phase::Failed, Some("another"));
    assert!(get(m.address(), "/health").2.contains("no ARP reply"));
    assert_eq!(get(m.address(), "/nothing").0, 404);
    assert_eq!(get(m.address(), "/metrics?x=1").0, 200);
    assert_eq!(request(m.address(), "POST", "/metrics").0, 405);
}

#[test]
fn a_client_that_sends_nothing_does_not_stop_the_server() {
    let m = endpoint(Role::Reflector, Duration::ZERO);
    // Connected and silent, then gone: the server reads nothing and goes on.
    drop(TcpStream::connect(m.address()).expect("connect"));
    let mut half = TcpStream::connect(m.address()).expect("connect");
    half.write_all(b"GET /metr").expect("part of a request");
    drop(half);
    assert_eq!(get(m.address(), "/health").0, 200);
}

#[test]
fn the_linger_ends_with_a_scrape_after_the_final_counts() {
    let m = endpoint(Role::Reflector, Duration::from_secs(60));
    let interrupts = Interrupts::new();
    // A scraper every 50 ms, as Prometheus with a short interval.
    let stop = Arc::new(AtomicBool::new(false));
    let scraper = {
        let (addr, stop) = (m.address(), Arc::clone(&stop));
        std::thread::spawn(move || {
            let mut scrapes = 0;
            while !stop.load(Ordering::SeqCst) {
                std::thread::sleep(Duration::from_millis(50));
                let (_, _, body) = get(addr, "/metrics");
                scrapes += 1;
                if body.contains("upfbench_phase{phase=\"done\"} 1") {
                    return (scrapes, true);
                }
            }
            (scrapes, false)
        })
    };
    let started = Instant::now();
    m.finish(&Ok(()), &interrupts);
    // Well before the 60 s: the first scrape that began after the end.
    assert!(started.elapsed() < Duration::from_secs(30));
    stop.store(true, Ordering::SeqCst);
    let (_, saw_done) = scraper.join().expect("scraper");
    assert!(
        saw_done,
        "the scrape that ended the linger read the final state"
    );
}

#[test]
fn the_linger_without_a_scraper_ends_at_its_limit_or_an_interrupt() {
    let m = endpoint(Role::Generator, Duration::from_millis(300));
    let interrupts = Interrupts::new();
    let started = Instant::now();
    m.finish(&Err(anyhow::anyhow!("it broke")), &interrupts);
    assert!(started.elapsed() >= Duration::from_millis(300));
    let (status, _, body) = get(m.address(), "/health");
    assert_eq!(status, 503);
    assert!(
        body.contains("\"phase\":\"failed\"") && body.contains("it broke"),
        "{body}"
    );
    // An interrupt during the wait ends it.
    let m = endpoint(Role::Generator, Duration::from_secs(600));
    let raise = {
        let i = interrupts.clone();
        std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(100));
            i.raise();
        })
    };
    let started = Instant::now();
    m.finish(&Ok(()), &interrupts);
    assert!(started.elapsed() < Duration::from_secs(300));
    raise.join().expect("raise");
}

#[test]
fn no_address_no_endpoint_and_an_address_in_use_is_an_error() {
    let args = MetricsArgs {
        metrics: None,
        metrics_linger: Duration::ZERO,
    };
    assert!(
        Metrics::start(&args, Role::Generator)
            .expect("ok")
            .is_none()
    );
    let m = endpoint(Role::Generator, Duration::ZERO);
    let args = MetricsArgs {
        metrics: Some(m.address()),
        metrics_linger: Duration::ZERO,
    };
    let e = Metrics::start(&args, Role::Generator).expect_err("in use");
    assert!(
        e.to_string()
            .contains(&format!("--metrics {}: cannot listen there", m.address())),
        "{e}"
    );
}

#[test]
fn the_command_line_takes_an_address_and_a_linger() {
    use clap::Parser;

    use crate::cli::{Cli, Command};
    let cli = Cli::try_parse_from([
        "upfbench",
        "run",
        "s.yaml",
        "p.yaml",
        "--metrics",
        "127.0.0.1:9464",
        "--metrics-linger",
        "2s",
    ])
    .expect("parses");
    let Command::Run(args) = cli.command else {
        panic!("run expected");
    };
    assert_eq!(
        args.metrics.metrics,
        Some("127.0.0.1:9464".parse().unwrap())
    );
    assert_eq!(args.metrics.metrics_linger, Duration::from_secs(2));
    let cli = Cli::try_parse_from(["upfbench", "reflect", "r.yaml"]).expect("parses");
    let Command::Reflect(args) = cli.command else {
        panic!("reflect expected");
    };
    assert_eq!(args.metrics.metrics, None);
    assert_eq!(args.metrics.metrics_linger, Duration::from_secs(15));
    assert!(Cli::try_parse_from(["upfbench", "sweep", "s", "p", "--metrics", "nowhere"]).is_err());
}
