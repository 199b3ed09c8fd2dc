//! The endpoint as a scraper sees it: the exposition parsed back (and checked by Prometheus'
//! own `promtool` where installed), the HTTP answers, the linger at the end.

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

mod text;

pub(super) use text::{ParsedFamily, check_semantics, parse, promtool, value};

use super::families::Role;
use super::health::Phase;
use super::*;
use crate::datapath::reflector::counters::{CounterCell, ReflectorCounters};

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
