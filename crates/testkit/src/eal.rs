//! EAL for tests (feature `eal`): the arguments every test's EAL takes, in the test's own process
//! or in a `upfbench` process it starts, and the set-up of the `harness = false` binaries that
//! initialise it once in their process.
//!
//! The memory every test takes is plain pages, `--no-huge -m MB` ([`memory_args`]): no
//! hugepage to reserve, no hugetlbfs to mount, nothing of the machine's taken from a user's
//! quickstart or lab (DPDK 22.11 backs it with a memfd, which a vhost-user peer can map).
//! With it, no PCI scan (`--no-pci`: no NIC is touched) and no telemetry socket
//! ([`process_args`]); in the test's own process also no shared files (`--no-shconf`), a file
//! prefix of the test's own, and EAL's messages from warnings on ([`EalSetup::args`]).
//!
//! ```no_run
//! use std::process::ExitCode;
//! use upfbench_dpdk::Eal;
//! use upfbench_testkit::eal::{self, EalSetup};
//! use upfbench_testkit::runner::{CaseResult, Runner};
//!
//! fn lcores(eal: &Eal) -> CaseResult {
//!     assert_eq!(eal.lcores(), [0, 1]);
//!     Ok(())
//! }
//!
//! fn main() -> ExitCode {
//!     let runner = Runner::new([("lcores", lcores as fn(&Eal) -> CaseResult)]);
//!     let setup = EalSetup::new("my-tests").lcores("0,1").vdev("net_null0");
//!     eal::main(runner, setup, |eal, runner| runner.run(|case| case(eal).into()))
//! }
//! ```
#![allow(clippy::print_stderr)]

use std::ops::Deref;
use std::path::PathBuf;
use std::process::ExitCode;

use upfbench_dpdk::Eal;

use crate::runner::Runner;

/// The memory of every test's EAL: `mb` MB of plain pages (`--no-huge -m MB`).
pub fn memory_args(mb: u32) -> Vec<String> {
    vec!["--no-huge".into(), "-m".into(), mb.to_string()]
}

/// What every test's EAL takes, in the test's process or in a `upfbench` process it starts:
/// [`memory_args`], `--no-pci` and `--no-telemetry`.
pub fn process_args(mb: u32) -> Vec<String> {
    let mut args = memory_args(mb);
    args.extend(["--no-pci".into(), "--no-telemetry".into()]);
    args
}

/// [`process_args`] as a system file's `eal.args`, a YAML flow sequence:
/// `[--no-huge, -m, "256", --no-pci, --no-telemetry]`.
pub fn process_args_yaml(mb: u32) -> String {
    let quoted: Vec<String> = process_args(mb)
        .into_iter()
        .map(|a| {
            if a.starts_with('-') {
                a
            } else {
                format!("\"{a}\"")
            }
        })
        .collect();
    format!("[{}]", quoted.join(", "))
}

/// The runtime directory EAL makes for `prefix`: root's `/var/run/dpdk/PREFIX`, a user's under
/// `$XDG_RUNTIME_DIR/dpdk` (else `/tmp/dpdk`), as `upfbench_datapath::eal_args::runtime_dir`.
pub fn runtime_dir(prefix: &str) -> PathBuf {
    let base = if is_root() {
        PathBuf::from("/var/run/dpdk")
    } else {
        match std::env::var_os("XDG_RUNTIME_DIR") {
            Some(d) => PathBuf::from(d).join("dpdk"),
            None => PathBuf::from("/tmp/dpdk"),
        }
    };
    base.join(prefix)
}

/// Whether this process runs as root: its effective uid, from `/proc/self/status`.
pub fn is_root() -> bool {
    std::fs::read_to_string("/proc/self/status").is_ok_and(|s| {
        s.lines()
            .find_map(|l| l.strip_prefix("Uid:"))
            .and_then(|ids| ids.split_whitespace().nth(1))
            == Some("0")
    })
}

/// A test process's EAL: its lcores, its memory and its vdevs; a file prefix of its own.
#[derive(Debug, Clone)]
pub struct EalSetup {
    prefix: String,
    lcores: String,
    memory_mb: u32,
    extra: Vec<String>,
}

impl EalSetup {
    /// The EAL of the tests called `name`: lcore 0, 256 MB ([`memory_args`]), no vdev; its file
    /// prefix `upfbench-test-NAME-PID`.
    pub fn new(name: &str) -> EalSetup {
        EalSetup {
            prefix: format!("upfbench-test-{name}-{}", std::process::id()),
            lcores: "0".into(),
            memory_mb: 256,
            extra: Vec::new(),
        }
    }

    /// The lcores (`-l`), `0,1` for a worker lcore beside the main one.
    pub fn lcores(mut self, lcores: &str) -> EalSetup {
        self.lcores = lcores.into();
        self
    }

    /// The memory, in MB.
    pub fn memory_mb(mut self, mb: u32) -> EalSetup {
        self.memory_mb = mb;
        self
    }

    /// A virtual device (`--vdev`), `net_null0`.
    pub fn vdev(mut self, vdev: &str) -> EalSetup {
        self.extra.extend(["--vdev".into(), vdev.into()]);
        self
    }

    /// Its file prefix.
    pub fn file_prefix(&self) -> &str {
        &self.prefix
    }

    /// How many lcores it asks for (`-l 0,1`: 2; `-l 0-3`: 4).
    pub fn lcore_count(&self) -> usize {
        self.lcores
            .split(',')
            .map(|part| match part.split_once('-') {
                Some((a, b)) => match (a.parse::<usize>(), b.parse::<usize>()) {
                    (Ok(a), Ok(b)) if b >= a => b - a + 1,
                    _ => 1,
                },
                None => 1,
            })
            .sum()
    }

    /// Its EAL arguments: `-l`, [`process_args`], `--no-shconf` (nothing is left in the runtime
    /// directory but the directory), the file prefix, EAL's messages from warnings on, the
    /// vdevs.
    pub fn args(&self) -> Vec<String> {
        let mut args = vec!["-l".to_owned(), self.lcores.clone()];
        args.extend(process_args(self.memory_mb));
        args.extend(
            [
                "--no-shconf",
                "--file-prefix",
                &self.prefix,
                "--log-level",
                "lib.eal:warning",
            ]
            .map(str::to_owned),
        );
        args.extend(self.extra.iter().cloned());
        args
    }

    /// Initialises EAL (once per process: the calling thread becomes the main lcore). A failed
    /// initialisation leaves no runtime directory either.
    pub fn init(self) -> upfbench_dpdk::Result<TestEal> {
        match Eal::init(self.args()) {
            Ok(eal) => Ok(TestEal {
                eal: Some(eal),
                prefix: self.prefix,
            }),
            Err(e) => {
                let _ = std::fs::remove_dir(runtime_dir(&self.prefix));
                Err(e)
            }
        }
    }
}

/// EAL initialised for tests; dropping it cleans EAL up and removes its runtime directory.
#[derive(Debug)]
pub struct TestEal {
    eal: Option<Eal>,
    prefix: String,
}

impl Deref for TestEal {
    type Target = Eal;

    fn deref(&self) -> &Eal {
        self.eal.as_ref().expect("EAL until dropped")
    }
}

impl Drop for TestEal {
    fn drop(&mut self) {
        drop(self.eal.take());
        // --no-shconf leaves only EAL's empty runtime directory.
        let _ = std::fs::remove_dir(runtime_dir(&self.prefix));
    }
}

/// The `main` of a `harness = false` binary of EAL tests: when a case is to run (not for
/// `--list`, nor when the filters select none), initialises EAL with `setup` and hands it and
/// the runner to `run`, which makes what the cases share and runs them. If EAL does not
/// initialise (no DPDK, fewer lcores than `setup` asks for, not the memory), every selected case
/// FAILS with EAL's reason: these tests never pass by not running. (They need no root: with
/// `--no-huge`, no PCI and vdevs only, DPDK 22.11 initialises as any user.)
pub fn main<C>(
    runner: Runner<C>,
    setup: EalSetup,
    run: impl FnOnce(&Eal, Runner<C>) -> ExitCode,
) -> ExitCode {
    if !runner.needs_setup() {
        return runner.run(|_| unreachable!("no case is selected"));
    }
    let (lcores, mb) = (setup.lcore_count(), setup.memory_mb);
    let eal = match setup.init() {
        Ok(eal) => eal,
        Err(e) => {
            return runner.fail_all(format!(
                "EAL failed to initialise: {e}\nThese tests need DPDK 22.11 (deploy/setup.sh), \
                 {lcores} lcore{} and {mb} MB for EAL: they fail rather than skip without them.",
                if lcores == 1 { "" } else { "s" }
            ));
        }
    };
    run(&eal, runner)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_arguments_every_test_shares() {
        assert_eq!(memory_args(512), ["--no-huge", "-m", "512"]);
        assert_eq!(
            process_args(256),
            ["--no-huge", "-m", "256", "--no-pci", "--no-telemetry"]
        );
        assert_eq!(
            process_args_yaml(256),
            "[--no-huge, -m, \"256\", --no-pci, --no-telemetry]"
        );
        let setup = EalSetup::new("t")
            .lcores("0,1")
            .memory_mb(512)
            .vdev("net_null0");
        let prefix = format!("upfbench-test-t-{}", std::process::id());
        assert_eq!(setup.file_prefix(), prefix);
        assert_eq!(
            setup.args(),
            [
                "-l",
                "0,1",
                "--no-huge",
                "-m",
                "512",
                "--no-pci",
                "--no-telemetry",
                "--no-shconf",
                "--file-prefix",
                &prefix,
                "--log-level",
                "lib.eal:warning",
                "--vdev",
                "net_null0",
            ]
        );
        assert_eq!(setup.lcore_count(), 2);
        assert_eq!(EalSetup::new("t").lcores("0-3,5").lcore_count(), 5);
    }
}
