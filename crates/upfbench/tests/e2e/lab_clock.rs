//! upfbench's clock against an independent one: dumpcap in the UPF's namespace timestamps every
//! measured frame the generator sends (uplink G-PDUs arriving on dut's n3, downlink packets on
//! dut's n6) with the kernel's clock, and the packet rate and the sending time that the report
//! gives must agree with the capture's within 100 ppm. EAL's TSC frequency, rounded, was
//! 1,230 ppm off on one host; upfbench measures it against CLOCK_MONOTONIC_RAW.
//!
//! The capture's timestamps are CLOCK_REALTIME, which NTP may slew: its rate against
//! CLOCK_MONOTONIC_RAW over the capture is measured too (Python reads both clocks before and
//! after) and taken out.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use serde_json::Value;
use upfbench_config as config;

use crate::harness::{Scratch, direction, num, read_report, serial, tshark_fields};
use crate::lab::{Lab, LabFiles, capture};

/// Packets per second each way, and seconds.
const RATE: u64 = 10_000;
const SECONDS: u64 = 8;
/// The agreement asked for.
const TOLERANCE_PPM: f64 = 100.0;

/// CLOCK_REALTIME and CLOCK_MONOTONIC_RAW, in nanoseconds, read together.
fn clocks() -> (i128, i128) {
    let out = Command::new("python3")
        .args([
            "-c",
            "import time\n\
             best = None\n\
             for _ in range(100):\n\
             \x20   a = time.clock_gettime_ns(time.CLOCK_MONOTONIC_RAW)\n\
             \x20   r = time.clock_gettime_ns(time.CLOCK_REALTIME)\n\
             \x20   b = time.clock_gettime_ns(time.CLOCK_MONOTONIC_RAW)\n\
             \x20   if best is None or b - a < best[0]: best = (b - a, r, (a + b) // 2)\n\
             print(best[1], best[2])",
        ])
        .output()
        .expect("python3");
    let text = String::from_utf8_lossy(&out.stdout);
    let v: Vec<i128> = text
        .split_whitespace()
        .map(|x| x.parse().expect("a number"))
        .collect();
    assert_eq!(v.len(), 2, "python3 printed {text:?}");
    (v[0], v[1])
}

/// A measured frame as the capture saw it.
#[derive(Debug, Clone, Copy)]
struct Arrival {
    /// The tag's sequence number (one flow per direction: the direction's packets from 0).
    seq: u64,
    /// The tag's transmit time: upfbench's clock when it sent the packet, in ns (unwrapped from
    /// the tag's low 32 bits).
    tx_ns: f64,
    /// The capture's timestamp (s).
    at: f64,
}

/// The measured frames captured on `interface`, in capture order; the tag is at the head of
/// the inner UDP payload.
fn arrivals(file: &Path, interface: &str) -> Vec<Arrival> {
    let mut out: Vec<Arrival> = Vec::new();
    let mut previous: Option<u64> = None;
    let mut wraps = 0u64;
    for l in tshark_fields(
        file,
        "/t",
        &["frame.interface_name", "frame.time_epoch", "udp.payload"],
    ) {
        let f: Vec<&str> = l.split('\t').collect();
        if f.first() != Some(&interface) {
            continue;
        }
        let at: f64 = f[1].parse().expect("a timestamp");
        // A G-PDU has two UDP payloads (the tunnel's, then the inner packet's): the last.
        let payload = f[2].rsplit(',').next().unwrap_or_default();
        let hex = |r: std::ops::Range<usize>| u64::from_str_radix(&payload[r], 16).expect("hex");
        let (seq, tx) = (hex(4..12), hex(12..20));
        // Packets arrive in the order they were sent, far less than 2^32 ns apart.
        if previous.is_some_and(|p| tx < p) {
            wraps += 1;
        }
        previous = Some(tx);
        out.push(Arrival {
            seq,
            tx_ns: (tx + (wraps << 32)) as f64,
            at,
        });
    }
    out
}

/// The slope of `y` against `x` on the lower envelope of the points: the least-squares line
/// through the lowest point (against a slope of `nominal`) of each of 16 stretches of `x`.
/// Points that a busy CPU or a schedule slip held back lie above the envelope and do not move
/// it.
fn envelope_slope(points: &[(f64, f64)], nominal: f64) -> f64 {
    const STRETCHES: usize = 16;
    let (x0, y0) = points[0];
    let width = points.iter().map(|p| p.0 - x0).fold(0.0, f64::max) / STRETCHES as f64;
    let mut lowest: Vec<Option<(f64, f64)>> = vec![None; STRETCHES];
    for &(x, y) in points {
        let (x, y) = (x - x0, y - y0);
        let k = ((x / width) as usize).min(STRETCHES - 1);
        let residual = y - x * nominal;
        if lowest[k].is_none_or(|(_, r)| residual < r) {
            lowest[k] = Some((x, residual));
        }
    }
    let pts: Vec<(f64, f64)> = lowest.into_iter().flatten().collect();
    let n = pts.len() as f64;
    let mx = pts.iter().map(|p| p.0).sum::<f64>() / n;
    let my = pts.iter().map(|p| p.1).sum::<f64>() / n;
    let sxy: f64 = pts.iter().map(|(x, y)| (x - mx) * (y - my)).sum();
    let sxx: f64 = pts.iter().map(|(x, _)| (x - mx) * (x - mx)).sum();
    nominal + sxy / sxx
}

#[test]
fn lab_reported_rate_and_duration_agree_with_a_capture_within_100_ppm() {
    let _serial = serial();
    let scratch = Scratch::new("lab-clock");
    let lab = Lab::up("clock");
    let files = LabFiles::new(&scratch, "clock", &[]);
    let profile = clock_profile(&scratch, &files);
    let reports = scratch.path().join("reports");
    let (file, realtime_rate) = run_with_capture(&scratch, &lab, &files, &profile, &reports);
    let report = read_report(&reports);
    let (tsc_hz, dpdk_hz) = check_report_clock(&report, realtime_rate);
    let clock = Clock {
        realtime_rate,
        tsc_hz,
        dpdk_hz,
    };
    for (name, interface) in [("uplink", "n3"), ("downlink", "n6")] {
        check_direction_against_capture(&report, name, &arrivals(&file, interface), &clock);
    }
}

/// One session, RATE each way for SECONDS.
fn clock_profile(scratch: &Scratch, files: &LabFiles) -> PathBuf {
    let profile = scratch.write(
        "profile.yaml",
        &format!(
            "name: clock\n\
             sessions: {{count: 1}}\n\
             streams:\n  \
               - {{name: ul, direction: uplink, rate: {RATE}pps, payload: 100}}\n  \
               - {{name: dl, direction: downlink, rate: {RATE}pps, payload: 100}}\n\
             duration: {SECONDS}s\n\
             warmup: 0s\n\
             drain: 300ms\n"
        ),
    );
    config::load_run(&files.system, &profile).unwrap_or_else(|e| panic!("{e}"));
    profile
}

/// Runs the generator against the reflector, dumpcap capturing what the generator sends as
/// dut's ends of the veths receive it; returns the capture file and CLOCK_REALTIME's seconds
/// per CLOCK_MONOTONIC_RAW second over the run.
fn run_with_capture(
    scratch: &Scratch,
    lab: &Lab,
    files: &LabFiles,
    profile: &Path,
    reports: &Path,
) -> (PathBuf, f64) {
    let tg_macs = [Lab::mac(&lab.tg, "n3"), Lab::mac(&lab.tg, "n6")];
    let (mut capture, file) = capture(
        scratch,
        &lab.dut,
        "sent",
        [
            &format!("udp port 2152 and ether src {}", tg_macs[0]),
            &format!("udp and ether src {}", tg_macs[1]),
        ],
    );
    let mut refl = files.reflector(scratch, lab, "reflector");
    let before = clocks();
    let mut generator = files.generator(scratch, lab, "generator", profile, reports);
    let status = generator.wait(Duration::from_secs(60));
    let after = clocks();
    refl.stop(Duration::from_secs(15));
    capture.stop(Duration::from_secs(10));
    assert!(
        status.success(),
        "generator: {status}\n{}",
        generator.logs()
    );
    // CLOCK_REALTIME's seconds per CLOCK_MONOTONIC_RAW second over the run.
    let realtime_rate = (after.0 - before.0) as f64 / (after.1 - before.1) as f64;
    (file, realtime_rate)
}

/// The report's TSC frequency, calibrated over at least 0.25 s; returns it and DPDK's.
fn check_report_clock(report: &Value, realtime_rate: f64) -> (f64, f64) {
    let clock = &report["clock"];
    let tsc_hz = clock["tsc_hz"]
        .as_f64()
        .expect("the report's TSC frequency");
    let dpdk_hz = num(clock, &["dpdk_tsc_hz"]) as f64;
    println!(
        "clock: TSC {tsc_hz:.0} Hz over {:.2} s, DPDK {dpdk_hz:.0} Hz ({:+.1} ppm); realtime runs \
         {:+.2} ppm against MONOTONIC_RAW",
        clock["calibrated_over_s"].as_f64().unwrap_or(f64::NAN),
        (dpdk_hz - tsc_hz) / tsc_hz * 1e6,
        (realtime_rate - 1.0) * 1e6
    );
    assert!(clock["calibrated_over_s"].as_f64().unwrap_or(0.0) >= 0.25);
    (tsc_hz, dpdk_hz)
}

/// The clocks a direction's figures are checked with.
struct Clock {
    /// CLOCK_REALTIME's seconds per CLOCK_MONOTONIC_RAW second over the run.
    realtime_rate: f64,
    tsc_hz: f64,
    dpdk_hz: f64,
}

/// A direction's clock, rate and duration against the capture's, within TOLERANCE_PPM.
fn check_direction_against_capture(
    report: &Value,
    name: &str,
    arrivals: &[Arrival],
    clock: &Clock,
) {
    let Clock {
        realtime_rate,
        tsc_hz,
        dpdk_hz,
    } = *clock;
    let duration = report["steps"][0]["duration_s"].as_f64().expect("duration");
    let d = direction(report, name);
    let sent = num(d, &["tx", "packets"]);
    // dumpcap drops what it cannot keep up with on a busy host: enough to fit is enough.
    assert!(
        arrivals.len() as u64 * 10 >= sent * 8,
        "{name}: the capture holds {} of {sent} packets",
        arrivals.len()
    );
    // upfbench's nanoseconds against the kernel's: the tag's transmit times against the
    // capture's timestamps (taken back to CLOCK_MONOTONIC_RAW).
    let points: Vec<(f64, f64)> = arrivals
        .iter()
        .map(|a| (a.tx_ns / 1e9, a.at / realtime_rate))
        .collect();
    let clock_ppm = (1.0 / envelope_slope(&points, 1.0) - 1.0) * 1e6;
    let (captured_duration, first_late) = captured_duration(arrivals, sent, realtime_rate);
    let captured_pps = sent as f64 / captured_duration;
    let reported_pps = d["tx"]["kpps"].as_f64().expect("kpps") * 1e3;
    let rate_ppm = (reported_pps - captured_pps) / captured_pps * 1e6;
    let duration_ppm = (duration - captured_duration) / captured_duration * 1e6;
    println!(
        "clock: {name} {sent} packets, {} captured; upfbench's clock runs {clock_ppm:+.1} ppm \
         against the capture's; the first packet left {:.1} us late; reported {reported_pps:.3} pps over {duration:.6} s, \
         captured {captured_pps:.3} pps over {captured_duration:.6} s: rate {rate_ppm:+.1} \
         ppm, duration {duration_ppm:+.1} ppm; with DPDK's frequency the reported rate \
         would have been {:+.1} ppm",
        arrivals.len(),
        first_late * 1e6,
        (reported_pps * tsc_hz / dpdk_hz - captured_pps) / captured_pps * 1e6
    );
    assert!(
        clock_ppm.abs() < TOLERANCE_PPM,
        "{name}: upfbench's clock runs {clock_ppm:+.1} ppm against the capture's"
    );
    assert!(
        rate_ppm.abs() < TOLERANCE_PPM,
        "{name}: reported {reported_pps} pps, captured {captured_pps} pps ({rate_ppm:+.1} ppm)"
    );
    assert!(
        duration_ppm.abs() < TOLERANCE_PPM,
        "{name}: reported {duration} s, captured {captured_duration} s ({duration_ppm:+.1} ppm)"
    );
}

/// The sending time as upfbench counts it: from when the first packet was due (a late
/// start that was caught up is in the rate) to when the last left, stretched by a packet
/// (n packets span n - 1 gaps). The capture sees the first and the last packet leave (or,
/// if it missed them, the nearest, moved by their mean gap); how late the first left is
/// in the tags: the schedule's start is the earliest of the first tenth's transmit times
/// less their place in it.
///
/// Returns the captured duration and how late the first packet left, in seconds.
fn captured_duration(arrivals: &[Arrival], sent: u64, realtime_rate: f64) -> (f64, f64) {
    let first = arrivals.iter().min_by_key(|a| a.seq).expect("first");
    let last = arrivals.iter().max_by_key(|a| a.seq).expect("last");
    let gap = (last.at - first.at) / realtime_rate / (last.seq - first.seq) as f64;
    let period_ns = 1e9 / RATE as f64;
    let due = arrivals
        .iter()
        .filter(|a| a.seq < sent / 10)
        .map(|a| a.tx_ns - a.seq as f64 * period_ns)
        .fold(f64::INFINITY, f64::min);
    let first_late = (first.tx_ns - first.seq as f64 * period_ns - due) / 1e9;
    let span = (last.at - first.at) / realtime_rate
        + (sent - 1 - last.seq + first.seq) as f64 * gap
        + first_late;
    let captured_duration = span * sent as f64 / (sent - 1) as f64;
    (captured_duration, first_late)
}
