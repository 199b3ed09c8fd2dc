//! What every end-to-end case stands on: a scratch directory, processes that are always
//! stopped and cleaned up (also when the case fails), the files of a run written from the
//! shipped ones, the report JSON and the reflector's counters at exit.

use std::collections::BTreeMap;
use std::fs::File;
use std::net::Ipv4Addr;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::{Mutex, MutexGuard};
use std::time::{Duration, Instant};

use serde_json::Value;
use upfbench_datapath::eal_args::is_root;
pub(crate) use upfbench_datapath::eal_args::runtime_dir;

/// The binary under test.
pub(crate) const UPFBENCH: &str = env!("CARGO_BIN_EXE_upfbench");

/// The repository's root (shipped files, deploy scripts).
pub(crate) fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The cases run one at a time: each process busy-polls a core and the machine may have two.
pub(crate) fn serial() -> MutexGuard<'static, ()> {
    static LOCK: Mutex<()> = Mutex::new(());
    // A failed case poisons the lock; the next one still runs.
    let guard = LOCK.lock().unwrap_or_else(|e| e.into_inner());
    assert!(
        is_root(),
        "the end-to-end tests need root (DPDK, network namespaces)"
    );
    guard
}

/// A name unique to this test process and `case`: DPDK file prefixes, namespaces.
pub(crate) fn unique(case: &str) -> String {
    format!("ube2e{}-{case}", std::process::id())
}

/// The N4 addresses of a memif case (generator, reflector): on loopback under 127.0.1.0/24,
/// apart from the quickstart's 127.0.0.1/127.0.0.2, and different for two test processes
/// running at once (the generator binds port 8805 of its address).
pub(crate) fn n4_pair() -> (Ipv4Addr, Ipv4Addr) {
    let base = 16 + 2 * (std::process::id() % 110) as u8;
    (
        Ipv4Addr::new(127, 0, 1, base),
        Ipv4Addr::new(127, 0, 1, base + 1),
    )
}

/// `text` with `from` replaced by `to`; `from` must be there (the shipped file changed if not).
pub(crate) fn patch(text: &str, from: &str, to: &str) -> String {
    assert!(text.contains(from), "{from:?} not found in:\n{text}");
    text.replace(from, to)
}

/// A directory of the case's own (configuration files, memif sockets, logs, reports), removed
/// at the end.
pub(crate) struct Scratch {
    dir: PathBuf,
}

impl Scratch {
    /// A fresh directory for `case`.
    pub(crate) fn new(case: &str) -> Scratch {
        let dir = std::env::temp_dir().join(format!("upfbench-{}", unique(case)));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("scratch directory");
        Scratch { dir }
    }

    /// The directory.
    pub(crate) fn path(&self) -> &Path {
        &self.dir
    }

    /// Writes `name` with `text`; returns its path.
    pub(crate) fn write(&self, name: &str, text: &str) -> PathBuf {
        let p = self.dir.join(name);
        std::fs::write(&p, text).expect("write scratch file");
        p
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// A process this test started, with its output in files. Dropped while running, it gets
/// SIGINT, then SIGKILL; its DPDK runtime directory is removed whatever happened.
pub(crate) struct Process {
    name: String,
    child: Child,
    stdout: PathBuf,
    stderr: PathBuf,
    prefix: Option<String>,
    status: Option<ExitStatus>,
}

impl Process {
    /// Starts `args[0]` with the rest as arguments (in network namespace `netns` if given);
    /// `prefix` is its DPDK file prefix, if it has one.
    pub(crate) fn spawn(
        name: &str,
        scratch: &Scratch,
        netns: Option<&str>,
        args: &[&str],
        prefix: Option<&str>,
    ) -> Process {
        let stdout = scratch.path().join(format!("{name}.out"));
        let stderr = scratch.path().join(format!("{name}.err"));
        let mut command = match netns {
            // `ip netns exec` execs the program: the pid is the program's own.
            Some(ns) => {
                let mut c = Command::new("ip");
                c.args(["netns", "exec", ns]).args(args);
                c
            }
            None => {
                let mut c = Command::new(args[0]);
                c.args(&args[1..]);
                c
            }
        };
        let child = command
            .env("NO_COLOR", "1")
            .stdin(Stdio::null())
            .stdout(File::create(&stdout).expect("stdout file"))
            .stderr(File::create(&stderr).expect("stderr file"))
            .spawn()
            .unwrap_or_else(|e| panic!("starting {name} ({args:?}): {e}"));
        Process {
            name: name.to_owned(),
            child,
            stdout,
            stderr,
            prefix: prefix.map(str::to_owned),
            status: None,
        }
    }

    /// What it wrote to standard output so far.
    pub(crate) fn stdout(&self) -> String {
        std::fs::read_to_string(&self.stdout).unwrap_or_default()
    }

    /// What it wrote to standard error so far.
    pub(crate) fn stderr(&self) -> String {
        std::fs::read_to_string(&self.stderr).unwrap_or_default()
    }

    /// Both outputs, for a failure message.
    pub(crate) fn logs(&self) -> String {
        format!(
            "---- {} stdout\n{}---- {} stderr\n{}",
            self.name,
            self.stdout(),
            self.name,
            self.stderr()
        )
    }

    /// Waits until `ready` holds on its standard output and standard error; panics if it exits
    /// first or `timeout` passes.
    pub(crate) fn wait_until(&mut self, timeout: Duration, ready: impl Fn(&str, &str) -> bool) {
        let until = Instant::now() + timeout;
        loop {
            if ready(&self.stdout(), &self.stderr()) {
                return;
            }
            if let Some(s) = self.child.try_wait().expect("try_wait") {
                panic!(
                    "{} exited ({s}) before it was ready\n{}",
                    self.name,
                    self.logs()
                );
            }
            assert!(
                Instant::now() < until,
                "{} not ready after {timeout:?}\n{}",
                self.name,
                self.logs()
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// Sends SIGINT (what Ctrl-C does).
    pub(crate) fn interrupt(&self) {
        let _ = Command::new("kill")
            .args(["-INT", &self.child.id().to_string()])
            .status();
    }

    /// Sends the signal `name` (`USR1`).
    pub(crate) fn signal(&self, name: &str) {
        let _ = Command::new("kill")
            .args([&format!("-{name}"), &self.child.id().to_string()])
            .status();
    }

    /// Sends SIGTERM (what a service manager or `kill` does).
    pub(crate) fn terminate(&self) {
        let _ = Command::new("kill")
            .args(["-TERM", &self.child.id().to_string()])
            .status();
    }

    /// Waits for it to exit, at most `timeout` (then panics: the guard kills it).
    pub(crate) fn wait(&mut self, timeout: Duration) -> ExitStatus {
        let until = Instant::now() + timeout;
        loop {
            if let Some(s) = self.child.try_wait().expect("try_wait") {
                self.status = Some(s);
                return s;
            }
            assert!(
                Instant::now() < until,
                "{} still running after {timeout:?}\n{}",
                self.name,
                self.logs()
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// Interrupts it and waits for it to exit.
    pub(crate) fn stop(&mut self, timeout: Duration) -> ExitStatus {
        self.interrupt();
        self.wait(timeout)
    }
}

impl Drop for Process {
    fn drop(&mut self) {
        if self.status.is_none() && matches!(self.child.try_wait(), Ok(None)) {
            self.interrupt();
            let until = Instant::now() + Duration::from_secs(5);
            while Instant::now() < until && matches!(self.child.try_wait(), Ok(None)) {
                std::thread::sleep(Duration::from_millis(20));
            }
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
        if let Some(p) = &self.prefix {
            let _ = std::fs::remove_dir_all(runtime_dir(p));
        }
        if std::thread::panicking() {
            eprintln!("{}", self.logs());
        }
    }
}

/// The folder of the one run under `reports`.
pub(crate) fn report_folder(reports: &Path) -> PathBuf {
    let dirs: Vec<PathBuf> = std::fs::read_dir(reports)
        .unwrap_or_else(|e| panic!("{}: {e}", reports.display()))
        .map(|e| e.expect("entry").path())
        .collect();
    assert_eq!(dirs.len(), 1, "one report folder: {dirs:?}");
    dirs.into_iter().next().expect("checked")
}

/// The report of the one run under `reports`.
pub(crate) fn read_report(reports: &Path) -> Value {
    let text =
        std::fs::read_to_string(report_folder(reports).join("report.json")).expect("report.json");
    serde_json::from_str(&text).expect("report.json is JSON")
}

/// `direction` (`uplink`, `downlink`) of the report's only step, if it has one.
pub(crate) fn try_direction<'a>(report: &'a Value, direction: &str) -> Option<&'a Value> {
    report["steps"][0]["directions"]
        .as_array()
        .expect("directions")
        .iter()
        .find(|d| d["direction"] == direction)
}

/// [`try_direction`], which must be there.
pub(crate) fn direction<'a>(report: &'a Value, direction: &str) -> &'a Value {
    try_direction(report, direction).unwrap_or_else(|| panic!("no {direction} in the report"))
}

/// A number of the report (`path` of keys and indices).
pub(crate) fn num(v: &Value, path: &[&str]) -> u64 {
    let mut at = v;
    for k in path {
        at = match k.parse::<usize>() {
            Ok(i) => &at[i],
            Err(_) => &at[*k],
        };
    }
    at.as_u64()
        .unwrap_or_else(|| panic!("{path:?} is not a count: {at}"))
}

/// The measured figures of one direction of a step, as the report gives them (all zero when
/// nothing was measured).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) struct Figures {
    /// Flows (stream × UE).
    pub(crate) streams: u64,
    /// Sent.
    pub(crate) sent: u64,
    /// Received (duplicates included).
    pub(crate) received: u64,
    /// Lost.
    pub(crate) lost: u64,
    /// Duplicates.
    pub(crate) duplicates: u64,
    /// Reordered.
    pub(crate) reordered: u64,
    /// Late (older than the reorder window).
    pub(crate) late: u64,
    /// Latency samples.
    pub(crate) samples: u64,
    /// Median latency, ns.
    pub(crate) p50_ns: u64,
    /// Lowest latency, ns (exact: not a histogram bucket's).
    pub(crate) min_ns: u64,
    /// Highest latency, ns (exact).
    pub(crate) max_ns: u64,
}

/// The figures of `direction` (`uplink`, `downlink`) in the report's only step (zero without
/// a step: an interruption before any traffic).
pub(crate) fn figures(report: &Value, direction: &str) -> Figures {
    try_figures(report, direction)
        .unwrap_or_else(|| panic!("no {direction} in {}", report["steps"][0]))
}

/// [`figures`], or None when the step has no such direction (a profile of one direction).
pub(crate) fn try_figures(report: &Value, direction: &str) -> Option<Figures> {
    let steps = report["steps"].as_array().expect("steps");
    if steps.is_empty() {
        return Some(Figures::default());
    }
    assert_eq!(steps.len(), 1, "one step");
    let d = try_direction(report, direction)?;
    Some(Figures {
        streams: num(d, &["streams"]),
        sent: num(d, &["loss", "sent"]),
        received: num(d, &["rx", "packets"]),
        lost: num(d, &["loss", "lost"]),
        duplicates: num(d, &["loss", "duplicates"]),
        reordered: num(d, &["loss", "reordered"]),
        late: num(d, &["loss", "late"]),
        // No latency figures when nothing was received.
        samples: d["latency"]["samples"].as_u64().unwrap_or(0),
        p50_ns: d["latency"]["p50_ns"].as_u64().unwrap_or(0),
        min_ns: d["latency"]["min_ns"].as_u64().unwrap_or(0),
        max_ns: d["latency"]["max_ns"].as_u64().unwrap_or(0),
    })
}

/// The warnings of the report and of its steps.
pub(crate) fn warnings(report: &Value) -> Vec<String> {
    let mut all: Vec<&Value> = report["warnings"]
        .as_array()
        .into_iter()
        .flatten()
        .collect();
    for s in report["steps"].as_array().into_iter().flatten() {
        all.extend(s["warnings"].as_array().into_iter().flatten());
    }
    all.iter()
        .map(|w| w.as_str().unwrap_or_default().to_owned())
        .collect()
}

/// `warnings` less those of the TX schedule's slips: the generator's core is not its own on a
/// shared test machine, and a case about something else does not fail because the tester fell
/// behind its schedule (which the report says, and `tx_slip.rs` checks).
pub(crate) fn besides_tx_slips(warnings: Vec<String>) -> Vec<String> {
    warnings
        .into_iter()
        .filter(|w| !w.contains(" TX fell behind its schedule"))
        .collect()
}

/// The reflector's counters at exit (the lines after `reflect: totals`), by name; a counter it
/// leaves out is zero.
pub(crate) fn reflector_totals(stdout: &str) -> BTreeMap<String, u64> {
    let (_, tail) = stdout
        .split_once("reflect: totals")
        .unwrap_or_else(|| panic!("no totals in the reflector's output:\n{stdout}"));
    tail.lines()
        .skip(1)
        .filter_map(|l| {
            // "  impaired: dropped        2000  (1000 + 1000)": the per-core part is left out.
            let l = l.split(" (").next().unwrap_or(l).trim();
            let (name, value) = l.rsplit_once(' ')?;
            Some((name.trim().to_owned(), value.parse().ok()?))
        })
        .collect()
}

/// Counter `name` of [`reflector_totals`].
pub(crate) fn total(totals: &BTreeMap<String, u64>, name: &str) -> u64 {
    totals.get(name).copied().unwrap_or(0)
}

/// The reflector's drops of every kind other than the impairments', those not zero.
pub(crate) fn reflector_drops(totals: &BTreeMap<String, u64>) -> BTreeMap<String, u64> {
    totals
        .iter()
        .filter(|(k, v)| k.starts_with("dropped ") && **v > 0)
        .map(|(k, v)| (k.clone(), *v))
        .collect()
}

/// Every session was established and deleted over PFCP: the generator says so, and the
/// reflector found none left when the association was released.
pub(crate) fn assert_sessions(stdout: &str, reflector_log: &str, sessions: u32) {
    for line in [
        format!("PFCP: {sessions} sessions established"),
        format!("PFCP: {sessions} sessions deleted"),
    ] {
        assert!(
            stdout.lines().any(|l| l == line),
            "no {line:?} in:\n{stdout}"
        );
    }
    assert!(
        reflector_log.contains("released the association (0 sessions removed)"),
        "the reflector's release found sessions left:\n{reflector_log}"
    );
}

/// The fields of every frame in a capture, as tshark decodes them: one line per frame, the
/// `fields` joined by `separator` (tshark's `/t`, `/s`), empty where a frame has none.
pub(crate) fn tshark_fields(file: &Path, separator: &str, fields: &[&str]) -> Vec<String> {
    let mut tshark = Command::new("tshark");
    tshark.args(["-r", file.to_str().expect("utf-8"), "-T", "fields"]);
    tshark.args(["-E", &format!("separator={separator}")]);
    for f in fields {
        tshark.args(["-e", f]);
    }
    let out = tshark.output().expect("tshark");
    assert!(
        out.status.success(),
        "tshark -r {}: {}",
        file.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(str::to_owned)
        .collect()
}

/// `upfbench reflect` of the reflector file `yaml` (written to the scratch as `reflector.yaml`
/// and checked to load), stopped by its own `--duration 2s`: the echo-mode reflectors that read
/// a generator's capture and write their answers to another.
pub(crate) fn reflect_for_2s(scratch: &Scratch, prefix: &str, yaml: &str) -> Process {
    let file = scratch.write("reflector.yaml", yaml);
    upfbench_config::load_reflector(&file).unwrap_or_else(|e| panic!("{e}"));
    let mut p = Process::spawn(
        "reflector",
        scratch,
        None,
        &[
            UPFBENCH,
            "reflect",
            file.to_str().expect("utf-8"),
            "--duration",
            "2s",
        ],
        Some(prefix),
    );
    p.wait(Duration::from_secs(30));
    p
}
