//! The generator's PFCP control thread against a UPF side on loopback that never answers the
//! Association Release Request (as Open5GS and eUPF): the system file's `pfcp.window.initial`
//! and `pfcp.release_wait` take effect, the first as the control report's largest window, the
//! second as the time the unanswered release is waited for.
#![allow(clippy::print_stdout)]

use std::net::{Ipv4Addr, SocketAddr, UdpSocket};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use upfbench_generator::report::{ControlTimes, control_report};
use upfbench_n4::client_side::{ClientSide, ClientThread};
use upfbench_pfcp::MessageType;
use upfbench_pfcp::driver::{Release, recovery_time_stamp_now};
use upfbench_pfcp::node::{Upf, UpfConfig};

#[path = "support/pfcp_pair.rs"]
mod pfcp_pair;

use pfcp_pair::session_plans;

const LOOPBACK: Ipv4Addr = Ipv4Addr::LOCALHOST;

/// A UPF side on a loopback socket of its own that drops every Association Release Request.
struct SilentOnRelease {
    address: SocketAddr,
    releases_seen: Arc<AtomicU32>,
    stop: Arc<AtomicBool>,
    thread: Option<JoinHandle<()>>,
}

impl SilentOnRelease {
    fn start() -> SilentOnRelease {
        let socket = UdpSocket::bind((LOOPBACK, 0)).expect("bind the UPF side");
        socket
            .set_read_timeout(Some(Duration::from_millis(5)))
            .expect("read timeout");
        let address = socket.local_addr().expect("address");
        let mut config = UpfConfig::new(
            LOOPBACK,
            Ipv4Addr::new(192, 168, 13, 151),
            recovery_time_stamp_now(),
            LOOPBACK.into(),
        );
        config.node.heartbeat_interval = None;
        let releases_seen = Arc::new(AtomicU32::new(0));
        let stop = Arc::new(AtomicBool::new(false));
        let (seen, halt) = (releases_seen.clone(), stop.clone());
        let thread = std::thread::spawn(move || {
            let mut upf = Upf::new(config);
            let mut buf = [0u8; 4096];
            while !halt.load(Ordering::Relaxed) {
                if let Ok((n, from)) = socket.recv_from(&mut buf) {
                    let bytes = &buf[..n];
                    // The message type is the header's second octet.
                    if bytes.get(1) == Some(&MessageType::ASSOCIATION_RELEASE_REQUEST.0) {
                        seen.fetch_add(1, Ordering::Relaxed);
                        continue;
                    }
                    upf.handle_datagram(Instant::now(), from, bytes);
                }
                upf.handle_timeout(Instant::now());
                while let Some(t) = upf.poll_transmit() {
                    let _ = socket.send_to(&t.contents, t.destination);
                }
            }
        });
        SilentOnRelease {
            address,
            releases_seen,
            stop,
            thread: Some(thread),
        }
    }
}

impl Drop for SilentOnRelease {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

#[test]
fn the_initial_window_and_the_release_wait_of_the_system_file_take_effect() {
    let upf = SilentOnRelease::start();
    let release_wait = Duration::from_millis(300);
    let client = ClientThread::start(Some(ClientSide {
        local: SocketAddr::new(LOOPBACK.into(), 0),
        peer: upf.address,
        t1: Duration::from_secs(1),
        n1: 1,
        heartbeat: None,
        // Neither is the default (16, 1 s).
        initial_window: 40,
        window: 64,
        release_wait,
    }))
    .expect("the control thread");
    client.associate().wait().unwrap().expect("associated");

    let mut times = ControlTimes {
        establish_started: Some(Instant::now()),
        ..ControlTimes::default()
    };
    let mut batch = client
        .establish(session_plans(
            LOOPBACK,
            Ipv4Addr::new(127, 0, 0, 2),
            3,
            "uplink",
        ))
        .expect("a PFCP client");
    let until = Instant::now() + Duration::from_secs(10);
    let sessions = loop {
        if let Some(r) = batch.try_result() {
            break r.expect("every session established");
        }
        assert!(Instant::now() < until, "no answer: {:?}", batch.progress());
        std::thread::sleep(Duration::from_millis(5));
    };
    times.establish_ended = Some(Instant::now());
    assert_eq!(sessions.len(), 3);

    let asked = Instant::now();
    let release = client.release().wait().unwrap().expect("the release ends");
    let waited = asked.elapsed();
    println!("release: {release:?} after {waited:?}");
    assert_eq!(release, Release::Unanswered);
    assert!(
        waited >= release_wait && waited < Duration::from_secs(1),
        "the unanswered release was waited for {waited:?}, not {release_wait:?}"
    );
    assert_eq!(upf.releases_seen.load(Ordering::Relaxed), 1, "sent once");

    times.release = Some(upfbench_report::Release::NotAnswered);
    let figures = client.figures().wait().unwrap().expect("figures");
    let stats = client.stats().wait().unwrap().expect("stats");
    let report = control_report(upf.address.to_string(), 3, &times, &figures, &stats);
    println!(
        "control: established {}, largest window {}",
        report.established, report.window_largest
    );
    assert_eq!(report.established, 3);
    assert_eq!(report.window_largest, 40, "the window started at 40");
}
