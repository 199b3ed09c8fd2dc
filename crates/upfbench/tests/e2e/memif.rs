//! The generator against the reflector over memif, two processes: the embedded default's files
//! (deploy/systems/memif.yaml and memif-reflector.yaml) with the sockets in the case's scratch
//! directory, DPDK file prefixes and N4 addresses of their own, and the reflector's impairments.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::process::ExitStatus;
use std::time::Duration;

use serde_json::Value;
use upfbench_config as config;

use crate::harness::{
    Figures, Process, Scratch, UPFBENCH, assert_sessions, besides_tx_slips, n4_pair, num, patch,
    read_report, reflector_drops, reflector_totals, repo, report_folder, runtime_dir, serial,
    total, try_figures, unique, warnings,
};

/// Packets per second per direction in every case: modest, so that neither process is ever the
/// bottleneck on a 2-vCPU machine (debug build included).
pub(crate) const RATE: u64 = 50_000;

/// A profile of `ues` UEs (both streams over all of them: one flow per direction with one UE),
/// uplink and downlink at [`RATE`], 100-byte payloads.
pub(crate) fn profile(ues: u32, seconds: u64, warmup: &str) -> String {
    format!(
        "name: e2e\n\
         sessions: {{count: {ues}}}\n\
         streams:\n  \
           - {{name: ul, direction: uplink, rate: {RATE}pps, payload: 100}}\n  \
           - {{name: dl, direction: downlink, rate: {RATE}pps, payload: 100}}\n\
         duration: {seconds}s\n\
         warmup: {warmup}\n\
         drain: 300ms\n"
    )
}

/// One case's files: the shipped memif pair, moved out of the way of a user's quickstart.
pub(crate) struct Memif {
    pub(crate) scratch: Scratch,
    pub(crate) system: PathBuf,
    pub(crate) reflector: PathBuf,
    pub(crate) profile: PathBuf,
    pub(crate) gen_prefix: String,
    pub(crate) refl_prefix: String,
}

impl Memif {
    /// The files of `case`, the reflector with `impairments` (YAML flow mapping), checked by
    /// the configuration loader before anything starts.
    pub(crate) fn new(case: &str, impairments: &str, profile: &str) -> Memif {
        let files = ["memif.yaml", "memif-reflector.yaml"];
        let prefixes = ["upfbench-gen", "upfbench-reflect"];
        Memif::shipped(case, files, prefixes, profile, |system, reflector| {
            let reflector = patch(
                &reflector,
                "impairments: {}",
                &format!("impairments: {impairments}"),
            );
            (system, reflector)
        })
    }

    /// The shipped pair `files` (a system and a reflector file of `deploy/systems`) for `case`:
    /// their sockets in its scratch directory, its own DPDK file prefixes (in place of the
    /// files' `prefixes`) and N4 addresses, then changed by `adapt`; written and checked by the
    /// configuration loader before anything starts.
    pub(crate) fn shipped(
        case: &str,
        files: [&str; 2],
        prefixes: [&str; 2],
        profile: &str,
        adapt: impl FnOnce(String, String) -> (String, String),
    ) -> Memif {
        let scratch = Scratch::new(case);
        let sockets = format!("{}/", scratch.path().display());
        let (gen_n4, refl_n4) = n4_pair();
        let gen_prefix = unique(&format!("{case}-gen"));
        let refl_prefix = unique(&format!("{case}-refl"));
        let shipped = |f: &str| {
            std::fs::read_to_string(repo().join("deploy/systems").join(f)).expect("shipped file")
        };
        let system = shipped(files[0]);
        let system = patch(&system, "/tmp/upfbench/", &sockets);
        let system = patch(
            &system,
            &format!("file_prefix: {}", prefixes[0]),
            &format!("file_prefix: {gen_prefix}"),
        );
        let system = patch(&system, "127.0.0.1:8805", &format!("{gen_n4}:8805"));
        let system = patch(&system, "127.0.0.2:8805", &format!("{refl_n4}:8805"));
        let reflector = shipped(files[1]);
        let reflector = patch(&reflector, "/tmp/upfbench/", &sockets);
        let reflector = patch(
            &reflector,
            &format!("file_prefix: {}", prefixes[1]),
            &format!("file_prefix: {refl_prefix}"),
        );
        let reflector = patch(
            &reflector,
            "local: 127.0.0.2:8805",
            &format!("local: {refl_n4}:8805"),
        );
        let reflector = patch(&reflector, "peer: 127.0.0.1", &format!("peer: {gen_n4}"));
        let (system, reflector) = adapt(system, reflector);
        let m = Memif {
            system: scratch.write("system.yaml", &system),
            reflector: scratch.write("reflector.yaml", &reflector),
            profile: scratch.write("profile.yaml", profile),
            scratch,
            gen_prefix,
            refl_prefix,
        };
        config::load_run(&m.system, &m.profile).unwrap_or_else(|e| panic!("{e}"));
        config::load_reflector(&m.reflector).unwrap_or_else(|e| panic!("{e}"));
        m
    }

    pub(crate) fn reports(&self) -> PathBuf {
        self.scratch.path().join("reports")
    }

    /// The reflector, running and serving N4 (the memif server: it starts first).
    pub(crate) fn reflector(&self) -> Process {
        self.reflector_with(&[])
    }

    /// [`reflector`](Self::reflector) with `extra` arguments.
    pub(crate) fn reflector_with(&self, extra: &[&str]) -> Process {
        let mut args = vec![UPFBENCH, "reflect", self.reflector.to_str().expect("utf-8")];
        args.extend_from_slice(extra);
        let mut p = Process::spawn(
            "reflector",
            &self.scratch,
            None,
            &args,
            Some(&self.refl_prefix),
        );
        p.wait_until(Duration::from_secs(20), |out, _| {
            out.contains("reflect: upf mode")
        });
        p
    }

    /// `upfbench run`, started.
    pub(crate) fn generator(&self) -> Process {
        self.command_with("run", &[])
    }

    /// `upfbench <command>` (`run`, `sweep`) with the case's files, started.
    pub(crate) fn command(&self, command: &str) -> Process {
        self.command_with(command, &[])
    }

    /// `upfbench run` with `extra` arguments, started.
    fn generator_with(&self, extra: &[&str]) -> Process {
        self.command_with("run", extra)
    }

    /// `upfbench <command>` with the case's files and `extra` arguments, started.
    pub(crate) fn command_with(&self, command: &str, extra: &[&str]) -> Process {
        let reports = self.reports();
        let mut args = vec![
            UPFBENCH,
            command,
            self.system.to_str().expect("utf-8"),
            self.profile.to_str().expect("utf-8"),
            "--reports",
            reports.to_str().expect("utf-8"),
        ];
        args.extend_from_slice(extra);
        Process::spawn(
            "generator",
            &self.scratch,
            None,
            &args,
            Some(&self.gen_prefix),
        )
    }
}

/// What a case saw.
pub(crate) struct Outcome {
    pub(crate) status: ExitStatus,
    pub(crate) stdout: String,
    pub(crate) report: Value,
    pub(crate) uplink: Figures,
    pub(crate) downlink: Figures,
    /// The reflector's counters at exit.
    pub(crate) reflector: BTreeMap<String, u64>,
    /// Its standard output: the per-second lines and the totals.
    pub(crate) reflector_out: String,
    /// Its log (standard error).
    pub(crate) reflector_log: String,
    /// The latency interval log, if the generator wrote one.
    pub(crate) hlog: Option<Vec<u8>>,
    /// The run's timeline (`events.jsonl`), a value per event (its header line checked and
    /// left out).
    pub(crate) events: Vec<Value>,
}

/// The generator runs the profile to its end against the reflector; then the reflector stops.
/// Both leave no DPDK runtime files.
pub(crate) fn run(case: &str, impairments: &str, profile: &str) -> Outcome {
    let bed = Memif::new(case, impairments, profile);
    let mut reflector = bed.reflector();
    let mut generator = bed.generator();
    let status = generator.wait(Duration::from_secs(60));
    finish(&bed, &mut reflector, &generator, status)
}

/// Whether the report is a run's of one step, whose figures [`Outcome`] carries.
fn one_step(report: &Value) -> bool {
    report["search"].is_null()
        && report["capacity"].is_null()
        && report["steps"][0]["churn"].is_null()
}

pub(crate) fn finish(
    bed: &Memif,
    reflector: &mut Process,
    generator: &Process,
    status: ExitStatus,
) -> Outcome {
    assert!(
        !runtime_dir(&bed.gen_prefix).exists(),
        "the generator left {}",
        runtime_dir(&bed.gen_prefix).display()
    );
    let refl_status = reflector.stop(Duration::from_secs(15));
    assert!(
        refl_status.success(),
        "reflector: {refl_status}\n{}",
        reflector.logs()
    );
    assert!(
        !runtime_dir(&bed.refl_prefix).exists(),
        "the reflector left {}",
        runtime_dir(&bed.refl_prefix).display()
    );
    let report = read_report(&bed.reports());
    let hlog = std::fs::read(report_folder(&bed.reports()).join("latency.hlog")).ok();
    let events_text = std::fs::read_to_string(report_folder(&bed.reports()).join("events.jsonl"))
        .expect("events.jsonl beside the report");
    // Every line reads as the documented format: the header, then typed events.
    let (header, typed) = upfbench_report::events::read_events(&events_text)
        .unwrap_or_else(|e| panic!("{e}\n{events_text}"));
    assert_eq!(header.tool.name, "upfbench", "{header:?}");
    let events: Vec<Value> = events_text
        .lines()
        .skip(1)
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .collect();
    assert_eq!(events.len(), typed.len());
    Outcome {
        hlog,
        events,
        status,
        stdout: generator.stdout(),
        // A profile of one direction leaves the other at zero; a search has a step a trial, a
        // capacity climb a step a batch, a churn its baseline step first, and their own
        // figures.
        uplink: one_step(&report)
            .then(|| try_figures(&report, "uplink"))
            .flatten()
            .unwrap_or_default(),
        downlink: one_step(&report)
            .then(|| try_figures(&report, "downlink"))
            .flatten()
            .unwrap_or_default(),
        report,
        reflector: reflector_totals(&reflector.stdout()),
        reflector_out: reflector.stdout(),
        reflector_log: reflector.stderr(),
    }
}

impl Outcome {
    pub(crate) fn both(&self) -> [(&'static str, &Figures); 2] {
        [("UL", &self.uplink), ("DL", &self.downlink)]
    }

    pub(crate) fn print(&self, case: &str) {
        for (name, f) in self.both() {
            println!(
                "{case}: {name} sent {} received {} lost {} duplicates {} reordered {} late {} \
                 latency samples {} p50 {:.2} us",
                f.sent,
                f.received,
                f.lost,
                f.duplicates,
                f.reordered,
                f.late,
                f.samples,
                f.p50_ns as f64 / 1e3
            );
        }
        println!("{case}: reflector {:?}", self.reflector);
    }

    /// A clean end: exit 0, every session established and deleted (the reflector's release
    /// found none left), nothing dropped by the reflector but by its impairments, no warning,
    /// a latency sample for every packet received.
    pub(crate) fn assert_clean_end(&self, sessions: u32) {
        assert!(
            self.status.success(),
            "generator: {}\n{}",
            self.status,
            self.stdout
        );
        assert_sessions(&self.stdout, &self.reflector_log, sessions);
        assert_eq!(reflector_drops(&self.reflector), BTreeMap::new());
        assert_eq!(
            besides_tx_slips(warnings(&self.report)),
            Vec::<String>::new()
        );
        for (name, f) in self.both() {
            assert_eq!(f.samples, f.received, "{name}: a latency sample per packet");
            assert_eq!(f.late, 0, "{name}: nothing older than the reorder window");
        }
    }
}

#[test]
fn memif_every_session_zero_loss_latency_of_every_packet() {
    let _serial = serial();
    let seconds = 3;
    let o = run("clean", "{}", &profile(4, seconds, "500ms"));
    o.print("clean");
    o.assert_clean_end(4);
    for (name, f) in o.both() {
        assert_eq!(f.streams, 4, "{name}: one flow per UE");
        assert_eq!(f.sent, RATE * seconds, "{name}: sent exactly");
        assert_eq!((f.received, f.lost), (f.sent, 0), "{name}: zero loss");
        assert_eq!((f.duplicates, f.reordered), (0, 0), "{name}");
    }
    check_frames(&o);
    check_clock(&o, seconds);
    crate::timeline::assert_clean_run(&o.events, 4, seconds, RATE);
    check_control(&o);
    check_ports(&o);
    check_interval_log(&o, seconds);
    check_live_lines(&o, seconds);
}

/// Every frame on the tester's ports by kind: the measured ones are the report's, the
/// warm-up went out too, and the reflector forwarded exactly those two (nothing else of
/// ours is forwarded: ARP is answered, not forwarded).
fn check_frames(o: &Outcome) {
    let step = &o.report["steps"][0];
    assert_frames_add_up(step);
    for (side, f, forwarded) in [
        (0, &o.uplink, "uplink forwarded"),
        (1, &o.downlink, "downlink forwarded"),
    ] {
        let fr = &step["frames"][side];
        assert_eq!(num(fr, &["tx_measured"]), f.sent, "{fr}");
        assert!(
            num(fr, &["tx_warmup"]) > RATE / 4,
            "a warm-up of 500 ms: {fr}"
        );
        assert_eq!(
            total(&o.reflector, forwarded),
            num(fr, &["tx_measured"]) + num(fr, &["tx_warmup"]),
            "{forwarded}: {fr}"
        );
    }
    // What came back: the measured packets on the other port, and the warm-up's as unmeasured.
    assert_eq!(num(&step["frames"][1], &["rx_measured"]), o.uplink.received);
    assert_eq!(
        num(&step["frames"][0], &["rx_measured"]),
        o.downlink.received
    );
    assert_eq!(
        num(&step["frames"][1], &["rx_unmeasured"]),
        num(&step["frames"][0], &["tx_warmup"])
    );
}

/// The TSC's frequency, measured against the kernel's clock from the process's start to the
/// step's end, with EAL's estimate beside it (lab_clock checks it against a capture).
fn check_clock(o: &Outcome, seconds: u64) {
    let clock = &o.report["clock"];
    let hz = clock["tsc_hz"].as_f64().expect("tsc_hz");
    let dpdk = num(clock, &["dpdk_tsc_hz"]) as f64;
    assert!(((hz - dpdk) / hz).abs() < 0.01, "{clock}");
    assert!(
        clock["calibrated_over_s"].as_f64().expect("span") >= seconds as f64,
        "{clock}"
    );
    assert!(
        clock["uncertainty_ppm"].as_f64().expect("bound") < 1.0,
        "{clock}"
    );
    assert!(
        o.stdout.contains(&format!(
            "clock: TSC {hz:.0} Hz against CLOCK_MONOTONIC_RAW"
        )),
        "{}",
        o.stdout
    );
}

/// The control plane's figures: 4 establishments and 4 deletions accepted, nothing lost.
fn check_control(o: &Outcome) {
    let c = &o.report["control"];
    assert_eq!(num(c, &["sessions"]), 4, "{c}");
    assert_eq!(num(c, &["established"]), 4, "{c}");
    assert_eq!(num(c, &["deleted"]), 4, "{c}");
    assert_eq!(num(c, &["causes", "Request accepted (1)"]), 8, "{c}");
    assert_eq!(num(c, &["establishment_latency", "samples"]), 4, "{c}");
    assert_eq!(num(c, &["timeouts"]), 0, "{c}");
    assert_eq!(num(c, &["lost_sessions"]), 0, "{c}");
    assert_eq!(c["release"], "answered", "{c}");
}

/// The tester's ports saw every measured packet and dropped none.
fn check_ports(o: &Outcome) {
    let ports = o.report["steps"][0]["ports"].as_array().expect("ports");
    assert_eq!(ports.len(), 2);
    for p in ports {
        assert!(num(p, &["ipackets"]) >= o.uplink.sent, "{p}");
        assert_eq!(
            num(p, &["imissed"]) + num(p, &["rx_nombuf"]) + num(p, &["oerrors"]),
            0,
            "{p}"
        );
    }
}

/// The interval log: one interval per direction a second, adding up to every latency sample.
fn check_interval_log(o: &Outcome, seconds: u64) {
    let hlog = o.hlog.as_deref().expect("latency.hlog");
    let intervals = hlog_intervals(hlog);
    for (name, f) in o.both() {
        let tag = if name == "UL" { "uplink" } else { "downlink" };
        let mine: Vec<_> = intervals.iter().filter(|i| i.0 == tag).collect();
        assert!(
            mine.len() as u64 >= seconds,
            "{tag}: {} intervals",
            mine.len()
        );
        let samples: u64 = mine.iter().map(|i| i.1).sum();
        assert_eq!(samples, f.samples, "{tag}: the intervals hold every sample");
    }
}

/// The live line: a direction that received measured packets in the second it covers shows
/// their latency, the first line included (the RX workers hand their interval over when the
/// line asks, not on a clock of their own).
fn check_live_lines(o: &Outcome, seconds: u64) {
    let live = live_lines(&o.stdout);
    println!("clean: live lines {live:#?}");
    assert!(live.len() as u64 >= seconds - 1, "{}", o.stdout);
    for line in &live {
        for segment in line.split(" | ") {
            let rx_kpps = segment
                .split(" rx ")
                .nth(1)
                .and_then(|r| r.split(" Gbps ").nth(1))
                .and_then(|r| r.split(" kpps").next())
                .and_then(|k| k.parse::<f64>().ok())
                .unwrap_or_else(|| panic!("no rx kpps in {segment:?}"));
            if rx_kpps > 0.0 {
                assert!(
                    segment.contains(" lat avg/p99/max "),
                    "received {rx_kpps} kpps and no latency: {line:?}"
                );
            }
        }
    }
}

/// The live lines of the measured phase and the drain in a generator's standard output.
fn live_lines(stdout: &str) -> Vec<&str> {
    stdout
        .lines()
        .map(str::trim_start)
        .filter(|l| l.starts_with("Measure ") || l.starts_with("Drain "))
        .collect()
}

/// (tag, samples) of each interval of an HdrHistogram interval log.
pub(crate) fn hlog_intervals(bytes: &[u8]) -> Vec<(String, u64)> {
    hlog_histograms(bytes)
        .into_iter()
        .map(|(tag, h)| (tag, h.len()))
        .collect()
}

/// (tag, histogram) of each interval of an HdrHistogram interval log.
pub(crate) fn hlog_histograms(bytes: &[u8]) -> Vec<(String, hdrhistogram::Histogram<u64>)> {
    use base64::Engine as _;
    use hdrhistogram::Histogram;
    use hdrhistogram::serialization::Deserializer;
    use hdrhistogram::serialization::interval_log::{IntervalLogIterator, LogEntry};
    IntervalLogIterator::new(bytes)
        .filter_map(|e| match e.expect("a valid interval log") {
            LogEntry::Interval(iv) => {
                let raw = base64::engine::general_purpose::STANDARD
                    .decode(iv.encoded_histogram())
                    .expect("base64");
                let h: Histogram<u64> = Deserializer::new()
                    .deserialize(&mut raw.as_slice())
                    .expect("a histogram");
                Some((iv.tag().expect("tagged").as_str().to_owned(), h))
            }
            _ => None,
        })
        .collect()
}

#[test]
fn memif_drop_one_in_100_is_the_generators_loss() {
    let _serial = serial();
    let o = run("drop", "{drop_one_in: 100}", &profile(4, 2, "0s"));
    o.print("drop");
    o.assert_clean_end(4);
    let dropped = total(&o.reflector, "impaired: dropped");
    assert!(dropped > 0, "the reflector dropped nothing");
    assert_eq!(o.uplink.lost + o.downlink.lost, dropped);
    for (name, f) in o.both() {
        assert_eq!(f.received + f.lost, f.sent, "{name}");
        assert_eq!((f.duplicates, f.reordered), (0, 0), "{name}");
    }
}

/// With one UE each direction is one flow: the reflector's duplicates and reorders, which it
/// counts per direction, are exactly what the flow's sequence numbers show. 1 in 97: the
/// 100,000 packets of a direction are not a multiple, so no packet is left held for reordering
/// at the end.
#[test]
fn memif_duplicates_are_reported_exactly() {
    let _serial = serial();
    let o = run("dup", "{duplicate_one_in: 97}", &profile(1, 2, "0s"));
    o.print("dup");
    o.assert_clean_end(1);
    assert_eq!(
        o.uplink.duplicates + o.downlink.duplicates,
        total(&o.reflector, "impaired: duplicated")
    );
    for (name, f) in o.both() {
        assert!(f.duplicates > 0, "{name}: no duplicate seen");
        assert_eq!(f.received, f.sent + f.duplicates, "{name}");
        assert_eq!((f.lost, f.reordered), (0, 0), "{name}");
    }
}

#[test]
fn memif_reordering_is_reported_exactly() {
    let _serial = serial();
    let o = run("reorder", "{reorder_one_in: 97}", &profile(1, 2, "0s"));
    o.print("reorder");
    o.assert_clean_end(1);
    assert_eq!(
        o.uplink.reordered + o.downlink.reordered,
        total(&o.reflector, "impaired: reordered")
    );
    for (name, f) in o.both() {
        assert!(f.reordered > 0, "{name}: nothing reordered");
        assert_eq!((f.received, f.lost, f.duplicates), (f.sent, 0, 0), "{name}");
    }
}

/// The reflector capped at 20 kpps per direction while the generator sends 50 kpps each way for
/// 2 s: about 40,000 arrive per direction (2 s of the cap and its bucket of 200), and the
/// generator's loss is exactly what the reflector says it capped.
#[test]
fn memif_rate_cap_is_the_received_rate_and_the_loss_is_what_was_capped() {
    let _serial = serial();
    let o = run("cap", "{rate_cap: 20kpps}", &profile(1, 2, "0s"));
    o.print("cap");
    o.assert_clean_end(1);
    let capped = total(&o.reflector, "impaired: rate capped");
    assert_eq!(o.uplink.lost + o.downlink.lost, capped);
    // 2 s, or longer when the generator fell behind its schedule on a busy machine.
    let secs = o.report["steps"][0]["duration_s"]
        .as_f64()
        .expect("duration");
    let expected = (20_000.0 * secs) as u64;
    for (name, f) in o.both() {
        assert_eq!(f.sent, RATE * 2, "{name}");
        assert!(
            (expected - 2_000..=expected + 1_000).contains(&f.received),
            "{name}: received {} at a cap of 20 kpps for {secs} s",
            f.received
        );
        assert_eq!(f.received + f.lost, f.sent, "{name}");
    }
}

/// With `--no-pfcp` the reflector has no session: every uplink G-PDU goes to an unknown TEID.
/// The reflector counts each one, answers as many with a GTP-U Error Indication as its limit
/// allows (100 per second, a second's worth at once: 100 + 100 per second of sending) and counts
/// the rest suppressed; the generator receives exactly the Error Indications sent and reports
/// them under "received, not measured".
#[test]
fn memif_unknown_teids_get_rate_limited_error_indications() {
    let _serial = serial();
    let rate = 2000;
    let profile = format!(
        "name: e2e\n\
         sessions: {{count: 4}}\n\
         streams:\n  \
           - {{name: ul, direction: uplink, rate: {rate}pps, payload: 100}}\n\
         duration: 2s\n\
         warmup: 0s\n\
         drain: 300ms\n"
    );
    let bed = Memif::new("error-ind", "{}", &profile);
    let limit = config::load_reflector(&bed.reflector)
        .expect("reflector file")
        .error_indications_per_s;
    assert_eq!(limit, 100, "the shipped file's limit");
    let mut reflector = bed.reflector();
    let mut generator = bed.generator_with(&["--no-pfcp"]);
    let status = generator.wait(Duration::from_secs(60));
    let o = finish(&bed, &mut reflector, &generator, status);
    o.print("error-ind");
    assert!(o.status.success(), "generator: {}\n{}", o.status, o.stdout);
    assert!(
        !o.stdout.contains("sessions established"),
        "no PFCP with --no-pfcp:\n{}",
        o.stdout
    );
    let sent = o.uplink.sent;
    assert_eq!(sent, rate * 2, "uplink sent");
    assert_eq!(o.uplink.received, 0, "nothing forwarded without a session");

    // The reflector: every G-PDU to an unknown TEID, each answered or suppressed.
    let unknown = total(&o.reflector, "dropped unknown_teid");
    let answered = total(&o.reflector, "error indications sent");
    let suppressed = total(&o.reflector, "error indications suppressed");
    assert_eq!(unknown, sent, "every G-PDU counted unknown-TEID");
    assert_eq!(answered + suppressed, unknown);
    // Within the limit: the full bucket, then 100 a second over the time the G-PDUs came in
    // (the generator's sending time, give or take 50 ms of scheduling on either side).
    let span = o.report["steps"][0]["duration_s"]
        .as_f64()
        .expect("duration_s");
    let expected = limit as f64 * (1.0 + span);
    let slack = limit as f64 * 0.05;
    println!(
        "error-ind: {sent} G-PDUs over {span:.3} s: {answered} Error Indications sent, \
         {suppressed} suppressed (limit {limit}/s: {expected:.0} expected)"
    );
    assert!(
        (answered as f64 - expected).abs() <= slack,
        "{answered} Error Indications for {span:.3} s of sending at {limit}/s"
    );
    // The per-second line says the same as the totals at the end.
    let last = reflector
        .stdout()
        .lines()
        .rfind(|l| l.contains(" err-ind "))
        .map(str::to_owned)
        .expect("a per-second line");
    assert!(
        last.contains(&format!(" err-ind {answered}/{suppressed} ")),
        "{last}"
    );

    // The generator received every one of them, and says so.
    let rejected = &o.report["steps"][0]["rx_rejected"];
    assert_eq!(
        num(rejected, &["N3 gtpu_error_indication"]),
        answered,
        "{rejected}"
    );
    let text = std::fs::read_to_string(report_folder(&bed.reports()).join("report.txt"))
        .expect("report.txt");
    assert!(
        text.contains(&format!("N3 gtpu_error_indication {answered}")),
        "{text}"
    );
}

/// The frames by kind of `step` add up to its ports' counters, port by port.
pub(crate) fn assert_frames_add_up(step: &Value) {
    let ports = step["ports"].as_array().expect("ports");
    let frames = step["frames"].as_array().expect("frames");
    assert_eq!(frames.len(), 2, "{step}");
    for (p, f) in ports.iter().zip(frames) {
        assert_eq!(p["name"], f["name"]);
        let sum = |keys: &[&str]| keys.iter().map(|k| num(f, &[k])).sum::<u64>();
        assert_eq!(
            sum(&["tx_measured", "tx_warmup", "tx_service"]),
            num(p, &["opackets"]) + num(p, &["oerrors"]),
            "{p} {f}"
        );
        assert_eq!(
            sum(&["rx_measured", "rx_unmeasured", "rx_service", "rx_rejected"]),
            num(p, &["ipackets"]),
            "{p} {f}"
        );
    }
}

/// A sweep of two payloads with a step hook: the hook runs at the start and the end of each
/// step, in order, with the step's number and label; each step's frames add up to its ports'
/// counters and carry no warning.
#[test]
fn memif_sweep_runs_the_step_hook_at_each_edge() {
    let _serial = serial();
    let bed = Memif::new("sweep-hook", "{}", &profile(2, 1, "200ms"));
    let edges = bed.scratch.path().join("edges");
    let hook = format!(
        "echo \"$UPFBENCH_STEP_EDGE $UPFBENCH_STEP/$UPFBENCH_STEPS $UPFBENCH_STEP_LABEL\" >> {}",
        edges.display()
    );
    let mut reflector = bed.reflector();
    let mut generator = bed.command_with("sweep", &["--payloads", "10,300", "--step-hook", &hook]);
    let status = generator.wait(Duration::from_secs(60));
    assert!(
        status.success(),
        "generator: {status}\n{}",
        generator.stdout()
    );
    let refl_status = reflector.stop(Duration::from_secs(15));
    assert!(refl_status.success(), "reflector: {refl_status}");
    assert_sessions(&generator.stdout(), &reflector.stderr(), 2);
    let report = read_report(&bed.reports());
    assert_eq!(besides_tx_slips(warnings(&report)), Vec::<String>::new());
    assert_eq!(
        std::fs::read_to_string(&edges).expect("the hook ran"),
        "start 1/2 10 B\nend 1/2 10 B\nstart 2/2 300 B\nend 2/2 300 B\n"
    );
    let steps = report["steps"].as_array().expect("steps");
    assert_eq!(steps.len(), 2);
    for step in steps {
        assert_frames_add_up(step);
        for side in 0..2 {
            assert_eq!(
                num(&step["frames"][side], &["tx_measured"]),
                RATE,
                "1 s at {RATE} pps: {step}"
            );
        }
    }
}
