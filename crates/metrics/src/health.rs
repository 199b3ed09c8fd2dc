//! What `/health` says: the process's phase (the run's life cycle for the generator, the
//! reflector's own few), and whether it failed.
//!
//! `GET /health` answers 200 with `{"role":"generator","phase":"measuring","step":2,
//! "failure":null}` while all is well, and 503 with the failure's message once the run has
//! failed (a failed run still reports, deletes and releases: the phase goes on).

use serde::Serialize;

use super::families::Role;

/// Where a process is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Phase {
    /// Before the run's phases: EAL, the ports, waiting for memif peers and links.
    Starting,
    /// The PFCP association.
    Associating,
    /// The sessions.
    Establishing,
    /// The UPF's MAC addresses.
    Resolving,
    /// A step's workers are made.
    Preparing,
    /// Warm-up traffic (not measured).
    WarmingUp,
    /// The warm-up drains.
    Settling,
    /// Measured traffic.
    Measuring,
    /// What is in flight arrives.
    Draining,
    /// Until nothing arrives any more (a search's trials).
    AwaitingQuiet,
    /// A step's results are collected.
    Collecting,
    /// The report is written.
    Reporting,
    /// The sessions are deleted.
    Deleting,
    /// The association is released.
    Releasing,
    /// The run's phases are over: the report's files are written, EAL stops; `done` follows
    /// once the final counts are in.
    Finishing,
    /// The reflector forwards (or echoes).
    Running,
    /// The reflector stops its workers.
    Stopping,
    /// Finished (the endpoint lingers for a last scrape).
    Done,
    /// Ended with an error.
    Failed,
}

impl Phase {
    /// The generator's phases, in their order.
    pub(crate) const GENERATOR: [Phase; 17] = [
        Phase::Starting,
        Phase::Associating,
        Phase::Establishing,
        Phase::Resolving,
        Phase::Preparing,
        Phase::WarmingUp,
        Phase::Settling,
        Phase::Measuring,
        Phase::Draining,
        Phase::AwaitingQuiet,
        Phase::Collecting,
        Phase::Reporting,
        Phase::Deleting,
        Phase::Releasing,
        Phase::Finishing,
        Phase::Done,
        Phase::Failed,
    ];

    /// The reflector's phases, in their order.
    pub(crate) const REFLECTOR: [Phase; 5] = [
        Phase::Starting,
        Phase::Running,
        Phase::Stopping,
        Phase::Done,
        Phase::Failed,
    ];

    /// The phases of `role`, each once, in their order.
    pub fn of(role: Role) -> &'static [Phase] {
        match role {
            Role::Generator => &Phase::GENERATOR,
            Role::Reflector => &Phase::REFLECTOR,
        }
    }

    /// Its name in `/health` and in `upfbench_phase{phase}`.
    pub fn name(self) -> &'static str {
        match self {
            Phase::Starting => "starting",
            Phase::Associating => "associating",
            Phase::Establishing => "establishing",
            Phase::Resolving => "resolving",
            Phase::Preparing => "preparing",
            Phase::WarmingUp => "warming_up",
            Phase::Settling => "settling",
            Phase::Measuring => "measuring",
            Phase::Draining => "draining",
            Phase::AwaitingQuiet => "awaiting_quiet",
            Phase::Collecting => "collecting",
            Phase::Reporting => "reporting",
            Phase::Deleting => "deleting",
            Phase::Releasing => "releasing",
            Phase::Finishing => "finishing",
            Phase::Running => "running",
            Phase::Stopping => "stopping",
            Phase::Done => "done",
            Phase::Failed => "failed",
        }
    }
}

/// The process's health as `/health` shows it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub(crate) struct Health {
    /// `generator` or `reflector`.
    pub role: &'static str,
    /// [`Phase::name`].
    pub phase: &'static str,
    /// The generator's step running or last run (1-based), if any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub step: Option<usize>,
    /// Why the run failed, if it did.
    pub failure: Option<String>,
}

impl Health {
    /// The HTTP status: 503 once failed, 200 otherwise.
    pub(crate) fn status(&self) -> u16 {
        if self.failure.is_some() { 503 } else { 200 }
    }

    /// The JSON body.
    pub(crate) fn to_json(&self) -> String {
        serde_json::to_string(self).unwrap_or_else(|_| "{}".to_owned())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn health_is_json_with_503_once_failed() {
        let mut h = Health {
            role: "generator",
            phase: Phase::Measuring.name(),
            step: Some(2),
            failure: None,
        };
        assert_eq!(h.status(), 200);
        assert_eq!(
            h.to_json(),
            r#"{"role":"generator","phase":"measuring","step":2,"failure":null}"#
        );
        h.failure = Some("PFCP association: timed out".into());
        h.phase = Phase::Deleting.name();
        assert_eq!(h.status(), 503);
        assert_eq!(
            h.to_json(),
            r#"{"role":"generator","phase":"deleting","step":2,"failure":"PFCP association: timed out"}"#
        );
        let r = Health {
            role: "reflector",
            phase: Phase::Running.name(),
            step: None,
            failure: None,
        };
        assert_eq!(
            r.to_json(),
            r#"{"role":"reflector","phase":"running","failure":null}"#
        );
    }
}
