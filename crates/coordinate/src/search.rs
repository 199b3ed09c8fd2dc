//! `search --cluster` (docs/scale.md §3 "The search across agents"): the search of the profile
//! ([`ProfileSearch`], the one `upfbench search` runs) with its trials measured on every agent
//! at once. A trial at total load L is a step whose `load` gives each agent L × its share (its
//! UEs over all UEs); its figures are the merged step's, as the single box's; it is
//! tester-limited when any agent is, that agent named. Each case (a payload and direction set)
//! is a segment of its own on every agent, the sessions held once for all. An agent lost ends
//! the search, with what was measured and the bounds marked not final.

mod case_trials;

use std::time::Instant;

use thiserror::Error;
use upfbench_cluster::Coordinator;
use upfbench_profile_search::ProfileSearch;
use upfbench_profile_search::case::{Mix, NotPps, cases, profile_pps};
use upfbench_remote::Client;
use upfbench_report::StepReport;
use upfbench_report::events::EventLine;

use case_trials::CaseTrials;
pub use case_trials::case_json;

use crate::call::now_ns;
use crate::drive::{Driven, drive};
use crate::held::{Teids, hold_n4};
use crate::live::Watcher;
use crate::run::{ClusterOutcome, RunError, RunInputs, settings};
use crate::setup::{SetupError, clients, infos};
use crate::teardown::end_run;

/// Why a search over agents could not be made.
#[derive(Debug, Error)]
pub enum SearchError {
    /// What a run over agents could not do.
    #[error(transparent)]
    Run(Box<RunError>),
    /// A stream's rate the coordinator cannot share without the ports.
    #[error(transparent)]
    NotPps(#[from] NotPps),
    /// The search cannot begin.
    #[error(transparent)]
    Setup(#[from] upfbench_profile_search::SetupError),
    /// No `search.max_load`: the agents' line rates are theirs.
    #[error(
        "a search across agents needs search.max_load in the profile (the total over the \
         agents, in pps): the coordinator does not know their ports' line rates"
    )]
    NoMaxLoad,
}

impl From<RunError> for SearchError {
    fn from(e: RunError) -> SearchError {
        SearchError::Run(Box::new(e))
    }
}

/// What a search over agents is asked to do.
#[derive(Debug, Clone)]
pub struct ClusterSearch<'a> {
    /// The run's cluster, profile and name.
    pub inputs: RunInputs<'a>,
    /// The payloads searched (`None`: the streams' own).
    pub payloads: Vec<Option<u16>>,
}

/// What a search over agents measured.
#[derive(Default)]
struct Measured {
    /// Every trial's merged step.
    steps: Vec<StepReport>,
    /// events.jsonl's lines (agents lost).
    events: Vec<EventLine>,
    /// Every case's drive, one after the other.
    all: Option<Driven>,
    /// Why the search ended early, if it did.
    warnings: Vec<String>,
}

/// Runs the search of `s`'s profile over its cluster's agents; `say` is told each line (the
/// search's, and every agent lost) as it comes.
pub async fn search_over_agents(
    s: ClusterSearch<'_>,
    say: impl Fn(&str) + Sync,
) -> Result<ClusterOutcome, SearchError> {
    let begun = Instant::now();
    let i = s.inputs;
    let mut search = begin(&s)?;
    let clients = clients(i.cluster).map_err(RunError::from)?;
    let infos = infos(i.cluster, &clients).await.map_err(RunError::from)?;
    let held = hold_n4(i.cluster, i.profile, (i.name, i.profile_json), &infos).await?;
    let measured = measure(&i, &mut search, &clients, &held.teids, &say).await;
    let lost: Vec<String> = measured
        .as_ref()
        .ok()
        .and_then(|m| m.all.as_ref())
        .map(|d| d.finished.lost.iter().map(|l| l.agent.clone()).collect())
        .unwrap_or_default();
    let ended = end_run(&clients, (&i.agent_names(), &lost), held.smf, &say).await;
    let measured = measured.map_err(RunError::from)?;
    let mut report = i.report(measured.all.as_ref());
    report.warnings.clone_from(&measured.warnings);
    search.finish(&mut report);
    report.warnings.extend(ended.warnings.iter().cloned());
    report.steps = measured.steps;
    // A search's trials keep no interval log (as on one box, its latency trials aside: not
    // built over agents).
    let interval_logs = vec![None; report.steps.len()];
    report.duration_s = begun.elapsed().as_secs_f64();
    Ok(ClusterOutcome {
        report,
        events: measured.events,
        exit_status: ended.exit_status(measured.all.as_ref().map_or(0, Driven::exit_status)),
        interval_logs,
        n4_end: ended.n4_end,
    })
}

/// The search of `s`'s profile, checked for a coordinator: a Max Load given, every rate in
/// pps.
fn begin(s: &ClusterSearch<'_>) -> Result<ProfileSearch, SearchError> {
    let profile = s.inputs.profile;
    if profile.search.max_load.is_none() {
        return Err(SearchError::NoMaxLoad);
    }
    let mut mixed = Vec::new();
    for case in cases(profile, &s.payloads) {
        let mix = Mix::of_rates(&case)?;
        mixed.push((case, mix));
    }
    Ok(ProfileSearch::new(&profile.search, mixed, profile.warmup)?)
}

/// Measures every trial `search` chooses, a case at a time on a coordinator of its own (the
/// case's segments), until the search ends, an agent is lost or a step cannot be merged.
async fn measure(
    s: &RunInputs<'_>,
    search: &mut ProfileSearch,
    clients: &[Client],
    teids: &Teids,
    say: &(dyn Fn(&str) + Sync),
) -> Result<Measured, SetupError> {
    let segments_of = |json: &serde_json::Value| {
        teids.segments(s.cluster, s.name, json, s.profile.sessions.count)
    };
    let shares: Vec<(String, f64)> = segments_of(s.profile_json)?
        .iter()
        .map(|g| {
            let share = f64::from(g.ues.count) / f64::from(s.profile.sessions.count.max(1));
            (g.agent.clone(), share)
        })
        .collect();
    let mut m = Measured::default();
    let mut next = search.next_trial(Instant::now());
    while let Some(line) = search.poll_line() {
        say(&line);
    }
    while let Some(trial) = next.take() {
        let case = search.case(trial.case).case.clone();
        let segs = segments_of(&case_json(s.profile_json, case.set))?;
        let case_start = now_ns();
        let coordinator = Coordinator::new(settings(s.cluster, s.profile), segs, case_start);
        let mut trials = CaseTrials {
            search: &mut *search,
            case: trial.case,
            profile_pps: profile_pps(&case.profile).unwrap_or(0.0),
            shares: &shares,
            pending: None,
            carry: None,
            steps: &mut m.steps,
            say,
            failed: None,
        };
        let mut first = Some(trial);
        let mut watcher = Watcher::new(s.agent_names(), s.started_unix_ms, say);
        let driven = drive(
            coordinator,
            clients.to_vec(),
            |outcomes| match first.take() {
                Some(t) => Some(trials.ask(t)),
                None => trials.next(outcomes),
            },
            &mut watcher,
        )
        .await;
        m.events.append(&mut watcher.events);
        trials.take(&driven.steps);
        next = trials.carry.take();
        let failed = trials.failed.take();
        let lost = driven.finished.incomplete();
        m.all = Some(match m.all.take() {
            None => driven,
            Some(before) => {
                let shift = (case_start / 1_000_000).saturating_sub(s.started_unix_ms);
                before.then(driven, shift as f64 / 1e3)
            }
        });
        if let Some(why) = failed {
            say(&why);
            m.warnings.push(why);
            break;
        }
        if lost {
            say("search: an agent was lost: the search ends with the bounds so far");
            break;
        }
    }
    Ok(m)
}

#[cfg(test)]
mod tests;
