//! The agent's runs as the API sees them (`/v1/runs`): one at a time, each with an id, a phase,
//! its live figures while it runs, and where its report is once it ended. Written by the run's
//! thread, read by the API's; the last [`KEEP`] runs stay known.

use std::collections::VecDeque;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard};

use upfbench_api::v1::{RunId, RunPhase, RunState};
use upfbench_api::{Problem, ProblemKind};
use upfbench_cli::signals::Interrupts;

use crate::commands::live::LiveBoard;

/// How many ended runs stay known (their reports stay on disk regardless).
pub(crate) const KEEP: usize = 32;

/// The files of a run's report folder that the API hands out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ReportFile {
    /// `report.json`.
    Json,
    /// `report.html`.
    Html,
    /// `events.jsonl`.
    Events,
}

impl ReportFile {
    /// Its name in the folder.
    pub(crate) fn name(self) -> &'static str {
        match self {
            ReportFile::Json => "report.json",
            ReportFile::Html => "report.html",
            ReportFile::Events => "events.jsonl",
        }
    }
}

/// What the run's thread needs of a run it was handed.
#[derive(Debug, Clone)]
pub(crate) struct Ticket {
    pub(crate) id: String,
    /// Raised by `POST /v1/runs/{id}/stop` (and by the agent's own Ctrl-C): the run stops as
    /// the command line's does, its report written.
    pub(crate) interrupts: Interrupts,
    pub(crate) live: Arc<LiveBoard>,
}

#[derive(Debug)]
struct Entry {
    ticket: Ticket,
    phase: RunPhase,
    folder: Option<PathBuf>,
    error: Option<String>,
}

/// The agent's runs: see the module's documentation.
#[derive(Debug, Default)]
pub(crate) struct Runs {
    table: Mutex<Table>,
}

#[derive(Debug, Default)]
struct Table {
    entries: VecDeque<Entry>,
    /// Runs begun since the agent started: the next id's number.
    begun: u64,
}

impl Runs {
    fn table(&self) -> MutexGuard<'_, Table> {
        // A panic while the lock was held left the table as it was at the panic: still usable.
        self.table.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// A new run, `starting`; refused (409) while another has not ended. `stamp`
    /// makes ids differ between agent restarts (the start's Unix time in seconds).
    pub(crate) fn begin(&self, stamp: u64) -> Result<Ticket, Problem> {
        let mut t = self.table();
        if let Some(busy) = t.entries.iter().find(|e| !ended(e.phase)) {
            return Err(Problem::new(
                ProblemKind::Conflict,
                format!(
                    "run {} is {}: one run at a time (POST /v1/runs/{}/stop ends it)",
                    busy.ticket.id,
                    phase_word(busy.phase),
                    busy.ticket.id
                ),
            ));
        }
        t.begun += 1;
        let ticket = Ticket {
            id: format!("r{}-{stamp}", t.begun),
            interrupts: Interrupts::new(),
            live: Arc::new(LiveBoard::default()),
        };
        if t.entries.len() == KEEP {
            t.entries.pop_front();
        }
        t.entries.push_back(Entry {
            ticket: ticket.clone(),
            phase: RunPhase::Starting,
            folder: None,
            error: None,
        });
        Ok(ticket)
    }

    /// Whether a run has not ended.
    pub(crate) fn busy(&self) -> bool {
        self.table().entries.iter().any(|e| !ended(e.phase))
    }

    /// The run's thread took it up.
    pub(crate) fn running(&self, id: &str) {
        if let Some(e) = self.table().entries.iter_mut().find(|e| e.ticket.id == id)
            && e.phase == RunPhase::Starting
        {
            e.phase = RunPhase::Running;
        }
    }

    /// The run ended: its report's folder if it wrote one, and its failure if it failed.
    pub(crate) fn ended(&self, id: &str, folder: Option<PathBuf>, error: Option<String>) {
        if let Some(e) = self.table().entries.iter_mut().find(|e| e.ticket.id == id) {
            // With a report it finished (its error, if any, says why it ended early); without
            // one it failed.
            e.phase = if folder.is_some() {
                RunPhase::Finished
            } else {
                RunPhase::Failed
            };
            e.folder = folder;
            e.error = error;
        }
    }

    /// Asks the run to stop (202); it goes on to write its report. 404 for an unknown run, 409
    /// for one that ended.
    pub(crate) fn stop(&self, id: &str) -> Result<(), Problem> {
        let mut t = self.table();
        let e = find_mut(&mut t, id)?;
        if ended(e.phase) {
            return Err(Problem::new(
                ProblemKind::Conflict,
                format!("run {id} has ended already"),
            ));
        }
        e.ticket.interrupts.raise();
        e.phase = RunPhase::Stopping;
        Ok(())
    }

    /// The run's state, with its last second's figures while it runs (404 if unknown).
    pub(crate) fn state(&self, id: &str) -> Result<RunState, Problem> {
        let mut t = self.table();
        let e = find_mut(&mut t, id)?;
        let live = (!ended(e.phase)).then(|| e.ticket.live.last()).flatten();
        Ok(RunState {
            id: id.to_owned(),
            phase: e.phase,
            step: live.as_ref().map(|l| l.step),
            // A sweep's steps are known ahead, a search's trials and a climb's batches are not:
            // the live figures say which step runs.
            steps: None,
            live: live.map(|l| l.figures),
            // A search's progress stays after it ended: its last trial's bounds.
            search: e.ticket.live.search(),
            error: e.error.clone(),
        })
    }

    /// Where `file` of the run's report is: 404 for an unknown run, 409 before its report is
    /// written (or when it failed without one).
    pub(crate) fn report(&self, id: &str, file: ReportFile) -> Result<PathBuf, Problem> {
        let mut t = self.table();
        let e = find_mut(&mut t, id)?;
        match &e.folder {
            Some(folder) => Ok(Path::new(folder).join(file.name())),
            None if ended(e.phase) => Err(Problem::new(
                ProblemKind::Conflict,
                format!(
                    "run {id} failed before it wrote a report: {}",
                    e.error.as_deref().unwrap_or("no reason given")
                ),
            )),
            None => Err(Problem::new(
                ProblemKind::Conflict,
                format!(
                    "run {id} is {}: its report comes when it ends",
                    phase_word(e.phase)
                ),
            )),
        }
    }
}

/// The answer to `POST /v1/runs`.
pub(crate) fn run_id(ticket: &Ticket) -> RunId {
    RunId {
        id: ticket.id.clone(),
    }
}

fn find_mut<'t>(t: &'t mut Table, id: &str) -> Result<&'t mut Entry, Problem> {
    t.entries
        .iter_mut()
        .find(|e| e.ticket.id == id)
        .ok_or_else(|| unknown(id))
}

fn unknown(id: &str) -> Problem {
    Problem::new(
        ProblemKind::NotFound,
        format!("no run {id} (the agent keeps its last {KEEP})"),
    )
}

fn ended(phase: RunPhase) -> bool {
    matches!(phase, RunPhase::Finished | RunPhase::Failed)
}

fn phase_word(phase: RunPhase) -> &'static str {
    match phase {
        RunPhase::Starting => "starting",
        RunPhase::Running => "running",
        RunPhase::Stopping => "stopping",
        RunPhase::Finished => "finished",
        RunPhase::Failed => "failed",
    }
}

#[cfg(test)]
mod tests;
