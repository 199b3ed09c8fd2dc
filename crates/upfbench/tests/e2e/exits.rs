//! How a run ends when it cannot measure: a Ctrl-C or SIGTERM before any traffic (waiting for a
//! memif peer, resolving a MAC that nobody answers for), a UPF that nobody answers ARP for, a UPF
//! that rejects the sessions. Each ends promptly, with its exit status (0 for an interruption,
//! 1 for a failure), a report that says what happened, and no DPDK runtime files left.
//!
//! Promptness is bounded by what the process did, not by how long the test waited: the wait it
//! was in ends with "interrupted", not with its own timeout; its timeline (`events.jsonl`) says
//! when it noticed the signal; its capture shows the ARP requests stop at the signal; the
//! rejections it counted show the establishment stopped at the first one. The machine may have
//! two CPUs, busy-polled by other processes' lcores: a wall-time bound on the exit measured by
//! the test would measure the scheduler.
//!
//! The ARP cases run the generator on two `net_pcap` ports: what it sends is written to a
//! capture per port, and it receives nothing (each port reads an empty capture), so no request
//! is ever answered; tshark counts the requests in the captures. The reflector, too, ends the
//! normal way when interrupted while it starts.

use std::path::{Path, PathBuf};
use std::process::ExitStatus;
use std::time::{Duration, Instant, SystemTime};

use serde_json::Value;
use upfbench_config as config;
use upfbench_testkit::eal::process_args_yaml;

use crate::harness::{
    Process, Scratch, UPFBENCH, n4_pair, num, patch, read_report, reflector_totals, report_folder,
    runtime_dir, serial, total, tshark_fields, unique, warnings,
};
use crate::memif::Memif;

/// The longest the generator may take to notice a signal, by its own timeline: from the signal
/// to its `interrupt` event (or the warning of a run interrupted before its phases), both on the
/// machine's wall clock. Measured: tens of ms (the waits for a peer look at the interruptions
/// every 20 ms, the ARP resolution every 200 µs). A wall-time bound, so generous on purpose: on
/// a machine of two CPUs that other tests' lcores busy-poll the process may wait for a CPU for
/// seconds; what it is there to catch is a wait that looks at the interruptions only now and
/// then, or at its end (a peer's 10 s, the ARP resolution's 31 s here).
const NOTICED_WITHIN: Duration = Duration::from_secs(5);

/// How long the test waits for an interrupted process to exit: only so that a process that
/// ignores the signal fails the test instead of hanging it. Exiting takes the report's files and
/// EAL's clean-up, on a machine that may be busy.
const EXIT_WAIT: Duration = Duration::from_secs(30);

/// A capture file with no packet (libpcap's header, Ethernet).
fn empty_pcap(path: &Path) {
    let mut header = Vec::new();
    header.extend(0xa1b2_c3d4u32.to_le_bytes());
    header.extend(2u16.to_le_bytes());
    header.extend(4u16.to_le_bytes());
    header.extend(0i32.to_le_bytes());
    header.extend(0u32.to_le_bytes());
    header.extend(65535u32.to_le_bytes());
    header.extend(1u32.to_le_bytes());
    std::fs::write(path, header).expect("empty capture");
}

/// A generator whose ports write what they send to `n3.pcap` and `n6.pcap` and receive nothing.
struct PcapBed {
    scratch: Scratch,
    system: PathBuf,
    profile: PathBuf,
    prefix: String,
}

impl PcapBed {
    /// The files of `case`, with the system file's `arp` section `arp` (a YAML flow mapping).
    fn new(case: &str, arp: &str) -> PcapBed {
        let scratch = Scratch::new(case);
        let dir = scratch.path().display().to_string();
        empty_pcap(&scratch.path().join("empty.pcap"));
        let prefix = unique(&format!("{case}-gen"));
        let port = |n: u8, side: &str, address: &str, peer: &str| {
            format!(
                "{side}:\n  device: net_pcap{n}\n  \
                 devargs: rx_pcap={dir}/empty.pcap,tx_pcap={dir}/{side}.pcap\n  \
                 address: {address}\n  peer: {peer}\n"
            )
        };
        let system = format!(
            "kind: system\n\
             eal:\n  args: {eal_args}\n  file_prefix: {prefix}\n\
             cores: {{main: 0, workers: [1]}}\n\
             {}{}\
             arp: {arp}\n\
             reports: {dir}/reports\n",
            port(0, "n3", "192.168.13.131/24", "192.168.13.151"),
            port(1, "n6", "192.168.16.152/24", "192.168.16.151"),
            eal_args = process_args_yaml(256),
        );
        let profile = "name: pcap\n\
                       streams: [{name: ul, direction: uplink, rate: 1kpps, payload: 100}]\n\
                       duration: 1s\n";
        let bed = PcapBed {
            system: scratch.write("system.yaml", &system),
            profile: scratch.write("profile.yaml", profile),
            scratch,
            prefix,
        };
        config::load_run(&bed.system, &bed.profile).unwrap_or_else(|e| panic!("{e}"));
        bed
    }

    /// `upfbench run`, started (no PFCP section: the UPF is not programmed).
    fn generator(&self) -> Process {
        Process::spawn(
            "generator",
            &self.scratch,
            None,
            &[
                UPFBENCH,
                "run",
                self.system.to_str().expect("utf-8"),
                self.profile.to_str().expect("utf-8"),
            ],
            Some(&self.prefix),
        )
    }

    fn reports(&self) -> PathBuf {
        self.scratch.path().join("reports")
    }

    /// What port `side` sent, as tshark decodes it: one line per frame, `eth.dst
    /// arp.opcode arp.src.proto_ipv4 arp.dst.proto_ipv4` (empty fields for a frame that is not
    /// ARP).
    fn sent(&self, side: &str) -> Vec<String> {
        let file = self.scratch.path().join(format!("{side}.pcap"));
        tshark_fields(
            &file,
            "/s",
            &[
                "eth.dst",
                "arp.opcode",
                "arp.src.proto_ipv4",
                "arp.dst.proto_ipv4",
            ],
        )
    }

    /// When port `side` sent each of its frames, by the capture's timestamps (the PMD's, on the
    /// machine's wall clock), in seconds since the epoch.
    fn sent_at(&self, side: &str) -> Vec<f64> {
        let file = self.scratch.path().join(format!("{side}.pcap"));
        tshark_fields(&file, "/s", &["frame.time_epoch"])
            .iter()
            .map(|t| {
                t.trim()
                    .parse()
                    .unwrap_or_else(|e| panic!("{side}.pcap: time {t:?}: {e}"))
            })
            .collect()
    }
}

/// The broadcast ARP request from `us` for `peer`, as [`PcapBed::sent`] shows it.
fn request(us: &str, peer: &str) -> String {
    format!("ff:ff:ff:ff:ff:ff 1 {us} {peer}")
}

/// The case's only report, and its warnings.
fn report_of(reports: &Path) -> (Value, Vec<String>) {
    let r = read_report(reports);
    let w = warnings(&r);
    (r, w)
}

fn assert_no_runtime_files(prefix: &str) {
    assert!(
        !runtime_dir(prefix).exists(),
        "{} was left behind",
        runtime_dir(prefix).display()
    );
}

/// Nothing answers ARP: after `retries` + 1 requests `timeout` apart on each port the run fails
/// with a message naming the port and the address; exit status 1; the report holds the failure
/// and nothing measured; the captures hold exactly the requests and nothing else.
#[test]
fn pcap_arp_unanswered_fails_after_every_request_naming_the_peer() {
    let _serial = serial();
    let bed = PcapBed::new("arp-unanswered", "{timeout: 200ms, retries: 3}");
    let mut generator = bed.generator();
    let started = Instant::now();
    let status = generator.wait(Duration::from_secs(30));
    let took = started.elapsed();
    let stdout = generator.stdout();
    let stderr = generator.stderr();
    println!("arp-unanswered: exit {status} after {took:?}");
    let message = "N3: no ARP reply from 192.168.13.151 after 4 requests 200ms apart; check \
                   the link and the peer's address, or give its MAC (peer_mac) in the system \
                   file";
    assert_eq!(status.code(), Some(1), "{}", generator.logs());
    assert!(
        stderr.lines().any(|l| l.ends_with(message)),
        "no {message:?} in:\n{stderr}"
    );
    assert!(
        stdout.lines().any(|l| l
            == "ARP: resolving N3 192.168.13.151, N6 192.168.16.151 (at most 4 requests 200ms \
                apart)"),
        "{stdout}"
    );
    assert_no_runtime_files(&bed.prefix);
    let (report, w) = report_of(&bed.reports());
    assert_eq!(w, [format!("the run failed: {message}")]);
    assert_eq!(report["steps"].as_array().map(Vec::len), Some(0));
    for (side, us, peer) in [
        ("n3", "192.168.13.131", "192.168.13.151"),
        ("n6", "192.168.16.152", "192.168.16.151"),
    ] {
        let sent = bed.sent(side);
        println!(
            "arp-unanswered: {side} sent {} frames: {sent:?}",
            sent.len()
        );
        assert_eq!(
            sent,
            vec![request(us, peer); 4],
            "{side}: 4 requests and nothing else"
        );
    }
}

/// SIGTERM while a MAC is being resolved (the peer never answers; 31 requests 1 s apart would
/// take 31 s): the run ends with exit status 0, a report that says it was interrupted with
/// nothing measured, and no runtime files. Its promptness is on the wire: at most one request
/// left after the signal (one may have been on its way), whenever the test got to send it.
#[test]
fn pcap_sigterm_during_arp_resolution_ends_promptly_with_a_report() {
    let _serial = serial();
    let bed = PcapBed::new("arp-sigterm", "{timeout: 1s, retries: 30}");
    let mut generator = bed.generator();
    generator.wait_until(Duration::from_secs(30), |out, _| {
        out.lines().any(|l| l.starts_with("ARP: resolving "))
    });
    // About two requests per port: at 0 and 1 s.
    std::thread::sleep(Duration::from_millis(1500));
    let signalled = SystemTime::now();
    generator.terminate();
    let status = generator.wait(EXIT_WAIT);
    println!("arp-sigterm: exit {status}");
    assert_interrupted(status, &generator, &bed.prefix, &bed.reports(), signalled);
    let (report, w) = report_of(&bed.reports());
    assert_eq!(w, ["the run was interrupted: nothing was measured"]);
    assert_eq!(report["steps"].as_array().map(Vec::len), Some(0));
    let sent = bed.sent("n3");
    println!("arp-sigterm: n3 sent {} ARP requests", sent.len());
    assert!(
        !sent.is_empty(),
        "the resolution had started before the signal"
    );
    assert!(
        sent.iter()
            .all(|l| *l == request("192.168.13.131", "192.168.13.151"))
    );
    let at = epoch_s(signalled);
    let times = bed.sent_at("n3");
    let after: Vec<f64> = times.iter().map(|t| t - at).filter(|d| *d > 0.0).collect();
    println!("arp-sigterm: n3 requests at {times:?}, the signal at {at:.6}");
    assert!(
        after.len() <= 1,
        "the requests went on after the signal: {after:?} s after it"
    );
}

/// Seconds since the epoch.
fn epoch_s(t: SystemTime) -> f64 {
    t.duration_since(SystemTime::UNIX_EPOCH)
        .expect("after 1970")
        .as_secs_f64()
}

/// When the generator noticed the interruption, by its timeline (docs/events.md): the wall
/// clock (ms since the epoch) of its first `run:interrupt` event, or of the `report:warning` of
/// a run interrupted before its phases (which records no `run:interrupt`).
fn noticed_ms(reports: &Path) -> u64 {
    let path = report_folder(reports).join("events.jsonl");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    text.lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .find(|e| {
            e["name"] == "run:interrupt"
                || (e["name"] == "report:warning"
                    && e["data"]["message"]
                        .as_str()
                        .is_some_and(|m| m.starts_with("the run was interrupted")))
        })
        .and_then(|e| e["unix_ms"].as_u64())
        .unwrap_or_else(|| panic!("no interruption in {}:\n{text}", path.display()))
}

/// Exit status 0, the line that says so, no runtime files, and the interruption noticed within
/// [`NOTICED_WITHIN`] of `signalled` by the generator's own timeline.
fn assert_interrupted(
    status: ExitStatus,
    generator: &Process,
    prefix: &str,
    reports: &Path,
    signalled: SystemTime,
) {
    assert!(
        status.success(),
        "exit status {status}\n{}",
        generator.logs()
    );
    assert!(
        generator
            .stdout()
            .lines()
            .any(|l| l == "interrupted: the report holds what was measured"),
        "{}",
        generator.logs()
    );
    assert_no_runtime_files(prefix);
    let signalled_ms = (epoch_s(signalled) * 1e3) as i128;
    let noticed = i128::from(noticed_ms(reports)) - signalled_ms;
    println!("noticed the signal {noticed} ms after it (its timeline)");
    // Not before the signal: a few ms for the rounding of the timeline's wall clock.
    assert!(
        (-5..NOTICED_WITHIN.as_millis() as i128).contains(&noticed),
        "noticed the signal {noticed} ms after it, by its timeline\n{}",
        generator.logs()
    );
}

/// A profile of one second, for a run that never gets to send.
pub(crate) const ONE_SECOND: &str = "name: e2e\n\
    streams: [{name: ul, direction: uplink, rate: 1kpps, payload: 100}]\n\
    duration: 1s\n";

/// SIGINT while the generator waits for its memif peer, which was never started: the run ends
/// promptly (not after the 10 s timeout) with exit status 0, a report that says where it was
/// interrupted, no PFCP exchanged and no runtime files. `server`: the generator is the memif
/// server (it waits for the link) instead of the client (it waits for the server's socket).
fn interrupt_while_waiting_for_the_memif_peer(
    case: &str,
    server: bool,
    waiting: &str,
    warning: &str,
) {
    let bed = Memif::new(case, "{}", ONE_SECOND);
    if server {
        let system = std::fs::read_to_string(&bed.system).expect("system file");
        let system = patch(&system, "role=client", "role=server");
        std::fs::write(&bed.system, system).expect("write the system file");
    }
    interrupt_while_waiting_for_the_peer(case, &bed, waiting, warning);
}

/// SIGINT while `bed`'s generator waits for its peer, which was never started: the run ends
/// promptly with exit status 0, a report that says where it was interrupted (`warning`), no
/// PFCP exchanged and no runtime files. `waiting` begins the line that says it waits. The
/// warning says the signal ended the wait: its own timeout (10 s) would have failed the run.
pub(crate) fn interrupt_while_waiting_for_the_peer(
    case: &str,
    bed: &Memif,
    waiting: &str,
    warning: &str,
) {
    let mut generator = bed.command("run");
    generator.wait_until(Duration::from_secs(30), |out, _| {
        out.lines().any(|l| l.starts_with(waiting))
    });
    std::thread::sleep(Duration::from_millis(500));
    let signalled = SystemTime::now();
    generator.interrupt();
    let status = generator.wait(EXIT_WAIT);
    println!("{case}: exit {status} after SIGINT");
    assert_interrupted(
        status,
        &generator,
        &bed.gen_prefix,
        &bed.reports(),
        signalled,
    );
    let (report, w) = report_of(&bed.reports());
    assert_eq!(w, [warning]);
    assert_eq!(report["steps"].as_array().map(Vec::len), Some(0));
    assert!(
        report["control"].is_null(),
        "no PFCP: {}",
        report["control"]
    );
    assert!(
        !generator.stdout().contains("PFCP:"),
        "{}",
        generator.stdout()
    );
}

/// The shipped memif system file (the generator is the memif client) with no reflector: the
/// generator waits for the server's socket file, DPDK refusing to start the port without it.
#[test]
fn memif_sigint_while_waiting_for_the_memif_server_ends_promptly_with_a_report() {
    let _serial = serial();
    interrupt_while_waiting_for_the_memif_peer(
        "server-sigint",
        false,
        "N3 (net_memif0): waiting for the memif server's socket ",
        "the run was interrupted waiting for N3's memif server: nothing was measured",
    );
}

/// The generator as the memif server, no client: it waits for the link.
#[test]
fn memif_sigint_while_waiting_for_the_link_ends_promptly_with_a_report() {
    let _serial = serial();
    interrupt_while_waiting_for_the_memif_peer(
        "link-sigint",
        true,
        "N3 (net_memif0): waiting for the link (at most 10s)",
        "the run was interrupted waiting for N3's link: nothing was measured",
    );
}

/// The reflector serves the network instance `internet` only and the profile's 2,000 sessions
/// name `ims`: the UPF rejects each with Cause 73, Offending IE Network Instance and the failed
/// PDR. The establishment stops at the first rejection: the reflector answers only what was in
/// flight then (its totals at exit count the rejected requests: at most the window and one), and
/// the run stops with a message naming the first session (plan index, UE address, CP SEID), the
/// cause and the offending IE; exit status 1; the report holds the failure and the control
/// plane's figures; nothing stays established on the reflector; no runtime files.
#[test]
fn memif_a_session_the_upf_rejects_stops_the_run_naming_session_cause_and_ie() {
    let _serial = serial();
    let sessions = 2_000;
    let profile = format!(
        "name: e2e\n\
         sessions: {{count: {sessions}, dnn: ims, network_instance: ims}}\n\
         streams: [{{name: ul, direction: uplink, rate: 1kpps, payload: 100}}]\n\
         duration: 1s\n"
    );
    let bed = Memif::new("rejected", "{}", &profile);
    let reflector_file = std::fs::read_to_string(&bed.reflector).expect("reflector file");
    let reflector_file = patch(
        &reflector_file,
        "  first_seid: 1\n",
        "  first_seid: 1\n  network_instances: [internet]\n",
    );
    std::fs::write(&bed.reflector, reflector_file).expect("write the reflector file");
    config::load_reflector(&bed.reflector).unwrap_or_else(|e| panic!("{e}"));
    let mut reflector = bed.reflector();
    let started = Instant::now();
    let mut generator = bed.command("run");
    let status = generator.wait(Duration::from_secs(60));
    let took = started.elapsed();
    assert_no_runtime_files(&bed.gen_prefix);
    let refl_status = reflector.stop(Duration::from_secs(15));
    assert!(refl_status.success(), "reflector: {refl_status}");
    assert_no_runtime_files(&bed.refl_prefix);
    let stdout = generator.stdout();
    let stderr = generator.stderr();
    println!("rejected: exit {status} after {took:?}");

    let upf = format!("{}:8805", n4_pair().1);
    let message = format!(
        "PFCP: session 0 (UE 10.45.0.2) was not established (0 of {sessions} were): Session \
         Establishment (CP SEID 0x1) rejected by {upf} (sequence number 3): Rule \
         creation/modification Failure (73), offending IE Network Instance (22), failed rule \
         PDR 1"
    );
    println!("rejected: {message}");
    assert_eq!(status.code(), Some(1), "{}", generator.logs());
    assert!(
        stderr.lines().any(|l| l.ends_with(&message)),
        "no {message:?} in:\n{stderr}"
    );
    // Nothing established, so nothing deleted; the association released with no session left.
    assert!(
        stdout.lines().any(|l| l == "PFCP: 0 sessions deleted"),
        "{stdout}"
    );
    let reflector_log = reflector.stderr();
    assert!(
        reflector_log.contains("released the association (0 sessions removed)"),
        "{reflector_log}"
    );
    let totals = reflector_totals(&reflector.stdout());
    assert_eq!(total(&totals, "uplink forwarded"), 0);

    let (report, w) = report_of(&bed.reports());
    assert_eq!(w, [format!("the run failed: {message}")]);
    assert_eq!(report["steps"].as_array().map(Vec::len), Some(0));
    let c = &report["control"];
    assert_eq!(num(c, &["sessions"]), sessions, "{c}");
    assert_eq!(num(c, &["established"]), 0, "{c}");
    // Only the requests in flight at the first rejection reached the reflector, each rejected
    // once: its own count and the Causes the generator received agree.
    let rejected = reflector_rejected(&reflector_log);
    let window = num(c, &["window_largest"]);
    println!("rejected: the reflector rejected {rejected} of {sessions} requests, window {window}");
    assert!(
        (1..=window + 1).contains(&rejected),
        "{rejected} requests rejected, window {window}: {c}"
    );
    assert_eq!(
        num(c, &["causes", "Rule creation/modification Failure (73)"]),
        rejected,
        "{c}"
    );
    // The 2,000 were not tried one by one: the run ended as soon as the first answers were in,
    // which the count of rejected requests above shows (at most the window and one), whatever
    // the time the machine took.
}

/// The count of rejected requests in the reflector's totals line at exit.
fn reflector_rejected(log: &str) -> u64 {
    let line = log
        .lines()
        .find(|l| l.contains("PFCP: totals: "))
        .unwrap_or_else(|| panic!("no PFCP totals in the reflector's log:\n{log}"));
    let n = line
        .split("requests rejected ")
        .nth(1)
        .and_then(|rest| rest.split(',').next())
        .unwrap_or_else(|| panic!("no rejected count in {line:?}"));
    n.parse()
        .unwrap_or_else(|e| panic!("{n:?} in {line:?}: {e}"))
}

/// SIGINT to the reflector while EAL starts (before its ports, its PFCP server and its workers
/// are up): it still ends the normal way, exit status 0, its totals printed, no runtime files.
/// (It has no timeline to tell when it noticed the signal.)
#[test]
fn memif_reflector_sigint_during_its_start_exits_cleanly() {
    let _serial = serial();
    let profile = "name: e2e\n\
                   streams: [{name: ul, direction: uplink, rate: 1kpps, payload: 100}]\n\
                   duration: 1s\n";
    let bed = Memif::new("reflector-start", "{}", profile);
    let mut reflector = Process::spawn(
        "reflector",
        &bed.scratch,
        None,
        &[UPFBENCH, "reflect", bed.reflector.to_str().expect("utf-8")],
        Some(&bed.refl_prefix),
    );
    reflector.wait_until(Duration::from_secs(20), |_, err| {
        err.contains("EAL: Detected CPU lcores")
    });
    let signalled = Instant::now();
    reflector.interrupt();
    // Without --duration the reflector runs until interrupted: its exit is the signal's doing.
    // EXIT_WAIT only keeps a reflector that ignores the signal from hanging the test.
    let status = reflector.wait(EXIT_WAIT);
    let took = signalled.elapsed();
    println!("reflector-start: exit {status} {took:?} after SIGINT");
    assert!(
        status.success(),
        "exit status {status}\n{}",
        reflector.logs()
    );
    assert!(
        reflector.stdout().contains("reflect: totals"),
        "{}",
        reflector.logs()
    );
    assert_no_runtime_files(&bed.refl_prefix);
}
