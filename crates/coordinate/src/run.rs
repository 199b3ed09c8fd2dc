//! A run over agents from start to report (docs/scale.md §3): the agents' clients and
//! `GET /v1`, their segments, PFCP as one SMF when the cluster file holds N4 (one association,
//! every UE's session with its agent's pair as its gNB), the steps driven at common times, the
//! sessions deleted and the association released (a lost agent's sessions too), and the report
//! a single box would write, with each agent's section and what an incomplete run left out.
//! `run --cluster` in the binary writes its files.

use std::time::Duration;

use thiserror::Error;
use upfbench_api::v1::StepRequest;
use upfbench_cluster::Coordinator;
use upfbench_cluster::coordinator::{Lost, Settings};
use upfbench_config::{Cluster, Profile};
use upfbench_pfcp::driver::Release;
use upfbench_report::Report;
use upfbench_report::events::EventLine;
use upfbench_stats::LatencyConfig;

use crate::call::now_ns;
use crate::drive::{Driven, drive};
use crate::gnbs::GnbError;
use crate::held::hold_n4;
use crate::interval_log::interval_log;
use crate::live::Watcher;
use crate::sections::{agent_sections, incomplete, lost_event};
use crate::setup::{SetupError, clients, infos};
use crate::smf::SmfError;
use crate::step_report::step_report;
use crate::teardown::end_run;

/// Why a run over agents could not be made (a lost agent is not one: its run ends incomplete).
#[derive(Debug, Error)]
pub enum RunError {
    /// The agents, their clients or their segments.
    #[error(transparent)]
    Setup(#[from] SetupError),
    /// The sessions' plans over the agents' pairs.
    #[error(transparent)]
    Gnbs(#[from] GnbError),
    /// N4.
    #[error(transparent)]
    Smf(#[from] SmfError),
    /// The profile has the UPF choose the uplink TEIDs (CH=1) without the coordinator on N4.
    #[error(
        "sessions.uplink_teid: chosen by the UPF: over agents the coordinator learns them as \
         it establishes the sessions, so the cluster file needs `pfcp.mode: coordinator`"
    )]
    ChosenTeids,
    /// A session established with CH=1 whose Created PDR gave no uplink F-TEID.
    #[error("the session of CP SEID {0} was established without an uplink F-TEID from the UPF")]
    NoChosenTeid(u64),
}

/// What a run over agents is given, whatever it runs (steps, or a search's trials).
#[derive(Debug, Clone, Copy)]
pub struct RunInputs<'a> {
    /// The run's name, given to every agent with its segment.
    pub name: &'a str,
    /// The cluster file, `--agents` already applied.
    pub cluster: &'a Cluster,
    /// The profile.
    pub profile: &'a Profile,
    /// The profile as JSON of its file's schema: what each agent checks against its system.
    pub profile_json: &'a serde_json::Value,
    /// This build's version, for the report.
    pub tool_version: &'a str,
    /// When the run started (Unix ms), for the report.
    pub started_unix_ms: u64,
}

impl RunInputs<'_> {
    /// The agents' names, in the cluster file's order.
    pub fn agent_names(&self) -> Vec<String> {
        self.cluster.agents.iter().map(|a| a.name.clone()).collect()
    }

    /// The report so far: each agent's section (its results of `latency`) and what a lost one
    /// left out, after `driven`.
    pub(crate) fn report(&self, driven: Option<&Driven>) -> Report {
        let mut report = Report::new(self.tool_version, self.started_unix_ms);
        if let Some(driven) = driven {
            let agents: Vec<(String, String)> = self
                .cluster
                .agents
                .iter()
                .map(|a| (a.name.clone(), a.url.clone()))
                .collect();
            let latency = settings(self.cluster, self.profile).latency;
            report.agents = agent_sections(driven, &agents, &latency);
            report.incomplete = incomplete(driven);
        }
        report
    }
}

/// What a run over agents is asked to do.
#[derive(Debug, Clone)]
pub struct ClusterRun<'a> {
    /// The run's cluster, profile and name.
    pub inputs: RunInputs<'a>,
    /// The steps, in order, each with its label.
    pub steps: Vec<(String, StepRequest)>,
}

/// What came of it.
#[derive(Debug)]
pub struct ClusterOutcome {
    /// The report: each step merged over the agents that were counted, each agent's section.
    pub report: Report,
    /// events.jsonl's lines of the run (agents lost), timed from its start.
    pub events: Vec<EventLine>,
    /// 0, or 3 when an agent was lost (1 when N4's end failed).
    pub exit_status: i32,
    /// Each of the report's steps' merged interval log (`latency-<step>.hlog`), if it has one.
    pub interval_logs: Vec<Option<Vec<u8>>>,
    /// With the coordinator on N4: the sessions it deleted at the end, and how the release
    /// went.
    pub n4_end: Option<(usize, Release)>,
}

/// The steps of `profile` for `run` (one step of the streams' own payloads) or `sweep` (a step
/// per payload), at `load` times the profile's rates.
pub fn steps_of(
    profile: &Profile,
    payloads: &[Option<u16>],
    load: f64,
) -> Vec<(String, StepRequest)> {
    payloads
        .iter()
        .enumerate()
        .map(|(i, &payload)| {
            let label = payload.map_or_else(|| profile.name.clone(), |p| format!("{p} B"));
            let step = StepRequest {
                step: i as u32 + 1,
                payload,
                load,
                duration_ms: profile.duration.as_millis() as u64,
                warmup_ms: profile.warmup.as_millis() as u64,
            };
            (label, step)
        })
        .collect()
}

/// Runs `run` over its cluster's agents; `say` is told each line as it comes (every agent lost,
/// the agents' summed seconds).
pub async fn run_over_agents(
    run: ClusterRun<'_>,
    say: impl Fn(&str) + Sync,
) -> Result<ClusterOutcome, RunError> {
    let begun = std::time::Instant::now();
    let i = run.inputs;
    let clients = clients(i.cluster)?;
    let infos = infos(i.cluster, &clients).await?;
    let held = hold_n4(i.cluster, i.profile, (i.name, i.profile_json), &infos).await?;
    let segments =
        held.teids
            .segments(i.cluster, i.name, i.profile_json, i.profile.sessions.count)?;
    let coordinator = Coordinator::new(settings(i.cluster, i.profile), segments, now_ns());
    let labels: Vec<String> = run.steps.iter().map(|(l, _)| l.clone()).collect();
    let payloads: Vec<Option<u32>> = run
        .steps
        .iter()
        .map(|(_, s)| s.payload.map(u32::from))
        .collect();
    let mut requests = run.steps.into_iter().map(|(_, s)| s);
    let names = i.agent_names();
    let mut watcher = Watcher::new(names.clone(), i.started_unix_ms, &say);
    let driven = drive(
        coordinator,
        clients.clone(),
        move |_| requests.next(),
        &mut watcher,
    )
    .await;
    let lost: Vec<String> = driven
        .finished
        .lost
        .iter()
        .map(|l| l.agent.clone())
        .collect();
    let ended = end_run(&clients, (&names, &lost), held.smf, &say).await;
    let mut report = i.report(Some(&driven));
    let interval_logs = add_steps(&mut report, &driven, &labels, &payloads);
    report.warnings.extend(ended.warnings.iter().cloned());
    report.duration_s = begun.elapsed().as_secs_f64();
    Ok(ClusterOutcome {
        report,
        events: watcher.events,
        exit_status: ended.exit_status(driven.exit_status()),
        interval_logs,
        n4_end: ended.n4_end,
    })
}

/// Each step's merged figures as the single box's step (`labels[i]` and `payloads[i]` of step
/// i + 1), and its merged interval log; a step that could not be merged, or had no result, as a
/// warning.
fn add_steps(
    report: &mut Report,
    driven: &Driven,
    labels: &[String],
    payloads: &[Option<u32>],
) -> Vec<Option<Vec<u8>>> {
    let mut logs = Vec::new();
    for outcome in &driven.steps {
        let i = outcome.step.saturating_sub(1) as usize;
        let label = labels.get(i).cloned().unwrap_or_default();
        match &outcome.merged {
            Some(Ok(merged)) => {
                let payload = payloads.get(i).copied().flatten();
                let start = outcome.start_ns.unwrap_or(0);
                logs.push(interval_log(merged, start, &label));
                report.steps.push(step_report(label, payload, merged));
            }
            Some(Err(e)) => report
                .warnings
                .push(format!("step {} ({label}): not merged: {e}", outcome.step)),
            None => report.warnings.push(format!(
                "step {} ({label}): no agent's result came",
                outcome.step
            )),
        }
    }
    logs
}

/// The live line of an agent lost.
pub(crate) fn lost_line(l: &Lost) -> String {
    let step = l
        .step
        .map_or_else(|| "set-up".to_owned(), |s| format!("step {s}"));
    format!(
        "lost {} at {step}, t = {:.2} s: {}",
        l.agent, l.t_s, l.reason
    )
}

/// events.jsonl's line of an agent lost now, in a run begun at `started_unix_ms`.
pub(crate) fn lost_event_line(l: &Lost, started_unix_ms: u64) -> EventLine {
    let unix_ms = now_ns() / 1_000_000;
    EventLine {
        t_s: unix_ms.saturating_sub(started_unix_ms) as f64 / 1e3,
        unix_ms,
        event: lost_event(l),
    }
}

/// The coordinator's settings: the cluster file's, the profile's histograms, and a step's
/// overrun: its drain past its warm-up and duration, and a second for its agent to end it.
pub(crate) fn settings(cluster: &Cluster, profile: &Profile) -> Settings {
    let latency = LatencyConfig {
        max_ns: profile.latency.max.as_nanos() as u64,
        significant_digits: profile.latency.digits,
    };
    Settings::of(cluster, latency, profile.drain + Duration::from_secs(1))
}
