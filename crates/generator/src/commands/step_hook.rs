//! `--step-hook CMD`: a command run at the edges of each step, while none of the step's traffic
//! is on the wire, so that counters outside the tester (a veth's, a UPF's) can be read per step
//! and set beside the step's report (`deploy/upflab-compare.sh` does).
//!
//! At the start of a step it runs before the step's workers exist (before the port counters
//! the report subtracts are read); at the end, after the workers stopped and the port counters
//! were read. The run waits for it: the PFCP thread keeps answering heartbeats meanwhile.

use std::process::{Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

use thiserror::Error;

/// How long the command may take before it is killed.
pub(crate) const DEFAULT_TIMEOUT: Duration = Duration::from_secs(30);

/// Which edge of a step.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum StepEdge {
    /// Before the step's first packet (warm-up included).
    Start,
    /// After the step's drain and collection.
    End,
}

impl StepEdge {
    /// As the command sees it in `UPFBENCH_STEP_EDGE`.
    pub(crate) fn name(self) -> &'static str {
        match self {
            StepEdge::Start => "start",
            StepEdge::End => "end",
        }
    }
}

/// Where a step is, as the command sees it.
#[derive(Debug, Clone, Copy)]
pub(crate) struct StepAt<'a> {
    /// Start or end.
    pub edge: StepEdge,
    /// 0-based (the command sees it 1-based).
    pub step: usize,
    /// Steps in the run.
    pub steps: usize,
    /// The step's label in the report ("10 B", "run").
    pub label: &'a str,
}

/// Why the command did not end well (the run goes on; the report says so).
#[derive(Debug, Error)]
pub(crate) enum StepHookError {
    /// It could not be started.
    #[error("step hook `{command}` at the {edge} of step {step}: could not start it: {source}")]
    Spawn {
        /// The command.
        command: String,
        /// `start` or `end`.
        edge: &'static str,
        /// 1-based.
        step: usize,
        /// Why.
        source: std::io::Error,
    },
    /// It exited with a failure.
    #[error("step hook `{command}` at the {edge} of step {step}: {status}")]
    Failed {
        /// The command.
        command: String,
        /// `start` or `end`.
        edge: &'static str,
        /// 1-based.
        step: usize,
        /// Its exit status.
        status: ExitStatus,
    },
    /// It ran longer than allowed and was killed.
    #[error("step hook `{command}` at the {edge} of step {step}: killed after {timeout:?}")]
    TimedOut {
        /// The command.
        command: String,
        /// `start` or `end`.
        edge: &'static str,
        /// 1-based.
        step: usize,
        /// The limit.
        timeout: Duration,
    },
}

/// A shell command run at each step's edges.
#[derive(Debug, Clone)]
pub(crate) struct StepHook {
    command: String,
    timeout: Duration,
}

impl StepHook {
    /// `command` run by `sh -c`, killed after `timeout`.
    pub(crate) fn new(command: impl Into<String>, timeout: Duration) -> StepHook {
        StepHook {
            command: command.into(),
            timeout,
        }
    }

    /// Runs the command for `at` and waits for it. It inherits standard output and error and
    /// finds `UPFBENCH_STEP_EDGE` (`start`/`end`), `UPFBENCH_STEP` (1-based),
    /// `UPFBENCH_STEPS` (0 in a search, whose trials are not known in advance) and `UPFBENCH_STEP_LABEL` in its environment.
    pub(crate) fn run(&self, at: StepAt<'_>) -> Result<(), StepHookError> {
        let (edge, step) = (at.edge.name(), at.step + 1);
        let mut child = Command::new("sh")
            .arg("-c")
            .arg(&self.command)
            .env("UPFBENCH_STEP_EDGE", edge)
            .env("UPFBENCH_STEP", step.to_string())
            .env("UPFBENCH_STEPS", at.steps.to_string())
            .env("UPFBENCH_STEP_LABEL", at.label)
            .stdin(Stdio::null())
            .spawn()
            .map_err(|source| StepHookError::Spawn {
                command: self.command.clone(),
                edge,
                step,
                source,
            })?;
        let deadline = Instant::now() + self.timeout;
        loop {
            match child.try_wait() {
                Ok(Some(status)) if status.success() => return Ok(()),
                Ok(Some(status)) => {
                    return Err(StepHookError::Failed {
                        command: self.command.clone(),
                        edge,
                        step,
                        status,
                    });
                }
                Ok(None) if Instant::now() < deadline => {
                    std::thread::sleep(Duration::from_millis(5));
                }
                // Out of time, or its state cannot be read: it is ours to end.
                Ok(None) | Err(_) => {
                    let _ = child.kill();
                    let _ = child.wait();
                    return Err(StepHookError::TimedOut {
                        command: self.command.clone(),
                        edge,
                        step,
                        timeout: self.timeout,
                    });
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(edge: StepEdge, step: usize) -> StepAt<'static> {
        StepAt {
            edge,
            step,
            steps: 3,
            label: "300 B",
        }
    }

    #[test]
    fn the_command_sees_the_edge_the_step_and_its_label() {
        let log = std::env::temp_dir().join(format!("upfbench-step-hook-{}", std::process::id()));
        let _ = std::fs::remove_file(&log);
        let hook = StepHook::new(
            format!(
                "echo \"$UPFBENCH_STEP_EDGE $UPFBENCH_STEP/$UPFBENCH_STEPS $UPFBENCH_STEP_LABEL\" >> {}",
                log.display()
            ),
            DEFAULT_TIMEOUT,
        );
        hook.run(at(StepEdge::Start, 1)).unwrap();
        hook.run(at(StepEdge::End, 1)).unwrap();
        assert_eq!(
            std::fs::read_to_string(&log).unwrap(),
            "start 2/3 300 B\nend 2/3 300 B\n"
        );
        std::fs::remove_file(&log).unwrap();
    }

    #[test]
    fn a_failing_command_names_itself_the_edge_and_its_status() {
        let hook = StepHook::new("exit 3", DEFAULT_TIMEOUT);
        let e = hook.run(at(StepEdge::End, 0)).unwrap_err();
        assert!(matches!(e, StepHookError::Failed { step: 1, .. }), "{e:?}");
        assert_eq!(
            e.to_string(),
            "step hook `exit 3` at the end of step 1: exit status: 3"
        );
    }

    #[test]
    fn a_command_over_its_time_is_killed() {
        let hook = StepHook::new("sleep 20", Duration::from_millis(100));
        let started = Instant::now();
        let e = hook.run(at(StepEdge::Start, 2)).unwrap_err();
        assert!(
            matches!(e, StepHookError::TimedOut { step: 3, .. }),
            "{e:?}"
        );
        assert!(started.elapsed() < Duration::from_secs(5), "not waited for");
    }
}
