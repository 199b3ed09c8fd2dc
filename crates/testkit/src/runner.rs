//! The runner of the `harness = false` test binaries: named cases run in sequence on the main
//! thread (EAL initialises once per process, and the thread that initialised it is the main
//! lcore), each catching its own panics, with libtest's command line and output, so that
//! `cargo test -- NAME` filters them and whatever reads libtest's lines counts them.
//!
//! ```no_run
//! use std::process::ExitCode;
//! use upfbench_testkit::runner::{CaseResult, Runner};
//!
//! fn adds(_: &u32) -> CaseResult {
//!     assert_eq!(1 + 1, 2);
//!     Ok(())
//! }
//!
//! fn main() -> ExitCode {
//!     let runner = Runner::new([("adds", adds as fn(&u32) -> CaseResult)]);
//!     // Set up what the cases share only when one is to run (not for `--list`).
//!     let shared = if runner.needs_setup() { 7 } else { 0 };
//!     runner.run(|case| case(&shared).into())
//! }
//! ```
//!
//! The command line, as libtest reads it: `NAME...` runs the cases whose names contain one of
//! them (`--exact`: equal to one), `--skip NAME` leaves out those containing it, `--list` lists
//! the cases (`NAME: test`) and runs none, `--ignored` runs none (no case is ignored
//! beforehand). Libtest's other options (`--nocapture`, `--test-threads N`, `--color C`, ...)
//! are accepted and have no effect: the cases run in sequence and print as they go. Any other
//! option is an error, as in libtest.
//!
//! The output: `running N tests`, a line `test NAME ... ok` (`FAILED`, `ignored, WHY`) as each
//! case ends, the failures with their messages, and the closing line
//! `test result: ok. P passed; F failed; I ignored; 0 measured; X filtered out; finished in
//! S.SSs`. The exit status is 0 when no case failed, 1 when one did, 101 for a bad command line.
#![allow(clippy::print_stdout, clippy::print_stderr)]

use std::fmt::Display;
use std::io::Write;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::process::ExitCode;
use std::time::Instant;

/// What a case returns: `Ok` passes; an error fails the case with its message, as a panic does.
pub type CaseResult = Result<(), Box<dyn std::error::Error>>;

/// How a case ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    /// It passed.
    Passed,
    /// It failed, and why.
    Failed(String),
    /// It did not run, and why (a tool missing outside CI): counted as ignored, not passed.
    Ignored(String),
}

impl<E: Display> From<Result<(), E>> for Outcome {
    fn from(r: Result<(), E>) -> Outcome {
        match r {
            Ok(()) => Outcome::Passed,
            Err(e) => Outcome::Failed(e.to_string()),
        }
    }
}

/// Libtest's options that take a value, accepted and ignored.
const IGNORED_WITH_VALUE: &[&str] = &[
    "--test-threads",
    "--color",
    "--format",
    "--logfile",
    "--shuffle-seed",
    "-Z",
];

/// Libtest's options without a value, accepted and ignored.
const IGNORED_FLAGS: &[&str] = &[
    "--nocapture",
    "--no-capture",
    "--show-output",
    "--include-ignored",
    "--quiet",
    "-q",
    "--test",
    "--bench",
    "--report-time",
    "--ensure-time",
    "--shuffle",
    "--force-run-in-process",
    "--exclude-should-panic",
];

/// The command line of a test binary, as libtest reads it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Args {
    /// `--list`: list the cases, run none.
    pub list: bool,
    /// `--exact`: a filter selects the case of that exact name.
    pub exact: bool,
    /// `--ignored`: run only the ignored cases, which here are none.
    pub ignored: bool,
    /// The names given: a case runs when its name contains one of them (none: every case).
    pub filters: Vec<String>,
    /// `--skip NAME`: the cases whose names contain one of these do not run.
    pub skip: Vec<String>,
}

impl Args {
    /// The command line of this process (without the program's name); a bad option ends the
    /// process with status 101 and libtest's message.
    pub fn from_env() -> Args {
        Args::parse(std::env::args().skip(1)).unwrap_or_else(|e| {
            eprintln!("error: {e}");
            std::process::exit(101)
        })
    }

    /// Reads `args`, as libtest does.
    pub fn parse<I, S>(args: I) -> Result<Args, String>
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        let mut parsed = Args::default();
        let mut args = args.into_iter().map(Into::into);
        while let Some(arg) = args.next() {
            let (option, inline) = match arg.split_once('=') {
                Some((o, v)) if o.starts_with('-') => (o.to_owned(), Some(v.to_owned())),
                _ => (arg.clone(), None),
            };
            let mut value = |name: &str| {
                inline
                    .clone()
                    .or_else(|| args.next())
                    .ok_or_else(|| format!("Argument to option '{name}' missing"))
            };
            match option.as_str() {
                "--list" => parsed.list = true,
                "--exact" => parsed.exact = true,
                "--ignored" => parsed.ignored = true,
                "--skip" => parsed.skip.push(value("skip")?),
                o if IGNORED_WITH_VALUE.contains(&o) => {
                    value(o.trim_start_matches('-'))?;
                }
                o if IGNORED_FLAGS.contains(&o) => {}
                o if o.starts_with('-') && o.len() > 1 => {
                    return Err(format!(
                        "Unrecognized option: '{}'",
                        o.trim_start_matches('-')
                    ));
                }
                _ => parsed.filters.push(arg),
            }
        }
        Ok(parsed)
    }

    /// Whether the case `name` is to run.
    pub fn selects(&self, name: &str) -> bool {
        let matches = |f: &String| {
            if self.exact {
                name == f
            } else {
                name.contains(f.as_str())
            }
        };
        !self.ignored
            && (self.filters.is_empty() || self.filters.iter().any(matches))
            && !self.skip.iter().any(matches)
    }
}

/// The counts of a run of cases, as the closing line has them.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Summary {
    /// Cases that passed.
    pub passed: usize,
    /// Cases that failed.
    pub failed: usize,
    /// Cases that did not run, saying why.
    pub ignored: usize,
    /// Cases the command line left out.
    pub filtered_out: usize,
}

impl Summary {
    /// 0 when no case failed, 1 otherwise.
    pub fn exit_code(&self) -> ExitCode {
        if self.failed == 0 {
            ExitCode::SUCCESS
        } else {
            ExitCode::FAILURE
        }
    }
}

/// Named cases of type `C` (usually a `fn` taking what the cases share) and the command line
/// that selects among them.
pub struct Runner<C> {
    cases: Vec<(&'static str, C)>,
    args: Args,
}

impl<C> Runner<C> {
    /// `cases`, in the order they run, selected by this process's command line.
    ///
    /// # Panics
    ///
    /// If two cases have the same name.
    pub fn new(cases: impl IntoIterator<Item = (&'static str, C)>) -> Runner<C> {
        Runner::with_args(cases, Args::from_env())
    }

    /// `cases`, selected by `args`.
    ///
    /// # Panics
    ///
    /// If two cases have the same name.
    pub fn with_args(cases: impl IntoIterator<Item = (&'static str, C)>, args: Args) -> Runner<C> {
        let cases: Vec<_> = cases.into_iter().collect();
        for (i, (name, _)) in cases.iter().enumerate() {
            assert!(
                cases[..i].iter().all(|(n, _)| n != name),
                "two cases are named {name}"
            );
        }
        Runner { cases, args }
    }

    /// The names of the cases the command line selects, in order.
    pub fn selected(&self) -> Vec<&'static str> {
        self.cases
            .iter()
            .map(|(name, _)| *name)
            .filter(|name| self.args.selects(name))
            .collect()
    }

    /// Whether a case is to run: not `--list`, and the filters select one. Make what the cases
    /// share (EAL) only then: `cargo test -- other_name` runs every test binary, this one too.
    pub fn needs_setup(&self) -> bool {
        !self.args.list && !self.selected().is_empty()
    }

    /// Runs every selected case through `run` in order, on this thread, catching its panic;
    /// prints libtest's lines to standard output. `--list` lists the cases instead.
    pub fn run(self, run: impl FnMut(&C) -> Outcome) -> ExitCode {
        let mut out = std::io::stdout();
        self.run_to(&mut out, run).exit_code()
    }

    /// Every selected case FAILED for `why` (what the cases share could not be made: EAL did not
    /// initialise, a pool could not be created), so that nothing passes untested.
    pub fn fail_all(self, why: impl Display) -> ExitCode {
        let why = why.to_string();
        eprintln!("{why}");
        self.run(|_| Outcome::Failed(why.clone()))
    }

    /// [`run`](Self::run), writing to `out`; the counts.
    pub fn run_to(self, out: &mut dyn Write, mut run: impl FnMut(&C) -> Outcome) -> Summary {
        // The output is the test's: a closed pipe is no reason to fail a case.
        macro_rules! say {
            ($($arg:tt)*) => {{
                let _ = writeln!(out, $($arg)*);
                let _ = out.flush();
            }};
        }
        if self.args.list {
            for (name, _) in &self.cases {
                say!("{name}: test");
            }
            return Summary::default();
        }
        let started = Instant::now();
        let total = self.cases.len();
        let selected: Vec<_> = self
            .cases
            .into_iter()
            .filter(|(name, _)| self.args.selects(name))
            .collect();
        let mut summary = Summary {
            filtered_out: total - selected.len(),
            ..Summary::default()
        };
        say!(
            "\nrunning {} test{}",
            selected.len(),
            if selected.len() == 1 { "" } else { "s" }
        );
        let mut failures = Vec::new();
        for (name, case) in &selected {
            let outcome = catch_unwind(AssertUnwindSafe(|| run(case)))
                .unwrap_or_else(|panic| Outcome::Failed(format!("panicked: {}", message(&*panic))));
            match outcome {
                Outcome::Passed => {
                    summary.passed += 1;
                    say!("test {name} ... ok");
                }
                Outcome::Ignored(why) => {
                    summary.ignored += 1;
                    say!("test {name} ... ignored, {why}");
                }
                Outcome::Failed(why) => {
                    summary.failed += 1;
                    say!("test {name} ... FAILED");
                    failures.push((*name, why));
                }
            }
        }
        if !failures.is_empty() {
            say!("\nfailures:\n");
            for (name, why) in &failures {
                say!("---- {name} ----\n{why}\n");
            }
            say!("failures:");
            for (name, _) in &failures {
                say!("    {name}");
            }
        }
        say!(
            "\ntest result: {}. {} passed; {} failed; {} ignored; 0 measured; {} filtered out; \
             finished in {:.2}s\n",
            if summary.failed == 0 { "ok" } else { "FAILED" },
            summary.passed,
            summary.failed,
            summary.ignored,
            summary.filtered_out,
            started.elapsed().as_secs_f64()
        );
        summary
    }
}

/// A panic's message (`panic!`'s text, or an `assert!`'s).
fn message(panic: &(dyn std::any::Any + Send)) -> String {
    panic
        .downcast_ref::<String>()
        .cloned()
        .or_else(|| panic.downcast_ref::<&str>().map(|s| (*s).to_owned()))
        .unwrap_or_else(|| "(not a text)".to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    type Case = fn() -> Outcome;

    fn cases() -> Vec<(&'static str, Case)> {
        vec![
            ("lcores::a", || Outcome::Passed),
            ("lcores::b", || Err::<(), _>("no lcore 1").into()),
            ("ports::c", || panic!("port 3 is down")),
            ("ports::d", || Outcome::Ignored("no tool".into())),
        ]
    }

    fn run(args: &[&str]) -> (Summary, String) {
        let args = Args::parse(args.iter().copied()).expect("good arguments");
        let mut out = Vec::new();
        let summary = Runner::with_args(cases(), args).run_to(&mut out, |case| case());
        (summary, String::from_utf8(out).expect("UTF-8"))
    }

    #[test]
    fn every_case_runs_and_the_closing_line_counts_them() {
        let (summary, out) = run(&[]);
        let want = Summary {
            passed: 1,
            failed: 2,
            ignored: 1,
            filtered_out: 0,
        };
        assert_eq!(summary, want);
        assert_eq!(summary.exit_code(), ExitCode::FAILURE);
        let lines: Vec<&str> = out.lines().collect();
        assert_eq!(
            lines[..6],
            [
                "",
                "running 4 tests",
                "test lcores::a ... ok",
                "test lcores::b ... FAILED",
                "test ports::c ... FAILED",
                "test ports::d ... ignored, no tool",
            ]
        );
        assert!(out.contains("---- lcores::b ----\nno lcore 1\n"), "{out}");
        assert!(
            out.contains("---- ports::c ----\npanicked: port 3 is down\n"),
            "{out}"
        );
        assert!(
            out.contains("failures:\n    lcores::b\n    ports::c\n"),
            "{out}"
        );
        let last = lines.iter().rev().find(|l| !l.is_empty()).expect("a line");
        assert!(
            last.starts_with(
                "test result: FAILED. 1 passed; 2 failed; 1 ignored; 0 measured; 0 filtered out; \
                 finished in "
            ),
            "{last}"
        );
    }

    #[test]
    fn filters_select_by_substring_or_exactly_and_skip_leaves_out() {
        let (summary, out) = run(&["lcores"]);
        assert_eq!(
            (summary.passed, summary.failed, summary.filtered_out),
            (1, 1, 2)
        );
        assert!(out.contains(
            "test result: FAILED. 1 passed; 1 failed; 0 ignored; 0 measured; 2 filtered out"
        ));
        let (summary, _) = run(&["lcores::a", "ports::d", "--exact"]);
        assert_eq!(
            (summary.passed, summary.ignored, summary.filtered_out),
            (1, 1, 2)
        );
        let (summary, _) = run(&["lcores", "--exact"]);
        assert_eq!(summary.filtered_out, 4);
        let (summary, out) = run(&["--skip", "::b", "--skip=ports"]);
        assert_eq!(
            (summary.passed, summary.failed, summary.filtered_out),
            (1, 0, 3)
        );
        assert_eq!(summary.exit_code(), ExitCode::SUCCESS);
        assert!(out.contains("\nrunning 1 test\n"), "{out}");
        assert!(out.contains(
            "test result: ok. 1 passed; 0 failed; 0 ignored; 0 measured; 3 filtered out"
        ));
    }

    #[test]
    fn list_and_ignored_run_nothing_and_need_no_setup() {
        let (summary, out) = run(&["--list"]);
        assert_eq!(summary, Summary::default());
        assert_eq!(
            out,
            "lcores::a: test\nlcores::b: test\nports::c: test\nports::d: test\n"
        );
        let args = |a: &[&str]| Args::parse(a.iter().copied()).expect("good arguments");
        assert!(!Runner::with_args(cases(), args(&["--list"])).needs_setup());
        assert!(!Runner::with_args(cases(), args(&["nothing_is_called_so"])).needs_setup());
        assert!(Runner::with_args(cases(), args(&["ports"])).needs_setup());
        let (summary, _) = run(&["--ignored"]);
        assert_eq!((summary.passed, summary.filtered_out), (0, 4));
    }

    #[test]
    fn libtests_other_options_are_accepted_and_unknown_ones_refused() {
        let args = Args::parse([
            "--nocapture",
            "--test-threads",
            "1",
            "--color=never",
            "-q",
            "--include-ignored",
            "name",
        ])
        .expect("libtest's options");
        assert_eq!(args.filters, ["name"]);
        assert_eq!(
            Args::parse(["--frobnicate"]),
            Err("Unrecognized option: 'frobnicate'".to_owned())
        );
        assert_eq!(
            Args::parse(["--skip"]),
            Err("Argument to option 'skip' missing".to_owned())
        );
    }
}
