//! The endpoint as a scraper sees it: the exposition parsed back (and checked by Prometheus'
//! own `promtool` where installed), the HTTP answers, the linger at the end.

use std::io::Write;
use std::net::TcpStream;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use super::families::Role;
use super::health::Phase;
use super::scrape::{get, request};
use super::*;

/// A role with no figures of its own: what every role's scrape has.
#[derive(Debug, Clone, Default)]
struct Bare<const REFLECTOR: bool>;

impl<const REFLECTOR: bool> RoleFigures for Bare<REFLECTOR> {
    const ROLE: Role = if REFLECTOR {
        Role::Reflector
    } else {
        Role::Generator
    };
    fn expose(&self, _: &mut Exposition) {}
}
type Generator = Bare<false>;
type Reflector = Bare<true>;

/// An endpoint on a free loopback port that does not linger.
fn endpoint<F: RoleFigures>(linger: Duration) -> Metrics<F> {
    let args = MetricsArgs {
        metrics: Some("127.0.0.1:0".parse().expect("address")),
        metrics_linger: linger,
    };
    Metrics::start(&args).expect("starts").expect("asked for")
}

#[test]
fn health_says_the_phase_and_503_once_failed() {
    let m = endpoint::<Generator>(Duration::ZERO);
    let (status, content_type, body) = get(m.address().expect("served"), "/health");
    assert_eq!((status, content_type.as_str()), (200, "application/json"));
    assert_eq!(
        body,
        "{\"role\":\"generator\",\"phase\":\"starting\",\"failure\":null}\n"
    );
    m.set_phase(Phase::Measuring, None);
    assert!(
        get(m.address().expect("served"), "/health")
            .2
            .contains("\"phase\":\"measuring\"")
    );
    m.set_phase(Phase::Deleting, Some("N3: no ARP reply"));
    let (status, _, body) = get(m.address().expect("served"), "/health");
    assert_eq!(status, 503);
    assert!(body.contains("\"failure\":\"N3: no ARP reply\""), "{body}");
    // The first failure stays: the teardown's own do not hide it.
    m.set_phase(Phase::Failed, Some("another"));
    assert!(
        get(m.address().expect("served"), "/health")
            .2
            .contains("no ARP reply")
    );
    assert_eq!(get(m.address().expect("served"), "/nothing").0, 404);
    assert_eq!(get(m.address().expect("served"), "/metrics?x=1").0, 200);
    assert_eq!(
        request(m.address().expect("served"), "POST", "/metrics").0,
        405
    );
}

#[test]
fn a_client_that_sends_nothing_does_not_stop_the_server() {
    let m = endpoint::<Reflector>(Duration::ZERO);
    // Connected and silent, then gone: the server reads nothing and goes on.
    drop(TcpStream::connect(m.address().expect("served")).expect("connect"));
    let mut half = TcpStream::connect(m.address().expect("served")).expect("connect");
    half.write_all(b"GET /metr").expect("part of a request");
    drop(half);
    assert_eq!(get(m.address().expect("served"), "/health").0, 200);
}

#[test]
fn the_linger_ends_with_a_scrape_after_the_final_counts() {
    let m = endpoint::<Reflector>(Duration::from_secs(60));
    let interrupts = Interrupts::new();
    // A scraper every 50 ms, as Prometheus with a short interval.
    let stop = Arc::new(AtomicBool::new(false));
    let scraper = {
        let (addr, stop) = (m.address().expect("served"), Arc::clone(&stop));
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
    let m = endpoint::<Generator>(Duration::from_millis(300));
    let interrupts = Interrupts::new();
    let started = Instant::now();
    m.finish(&Err(anyhow::anyhow!("it broke")), &interrupts);
    assert!(started.elapsed() >= Duration::from_millis(300));
    let (status, _, body) = get(m.address().expect("served"), "/health");
    assert_eq!(status, 503);
    assert!(
        body.contains("\"phase\":\"failed\"") && body.contains("it broke"),
        "{body}"
    );
    // An interrupt during the wait ends it.
    let m = endpoint::<Generator>(Duration::from_secs(600));
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
    assert!(Metrics::<Generator>::start(&args).expect("ok").is_none());
    let m = endpoint::<Generator>(Duration::ZERO);
    let args = MetricsArgs {
        metrics: Some(m.address().expect("served")),
        metrics_linger: Duration::ZERO,
    };
    let e = Metrics::<Generator>::start(&args).expect_err("in use");
    assert!(
        e.to_string().contains(&format!(
            "--metrics {}: cannot listen there",
            m.address().expect("served")
        )),
        "{e}"
    );
}
