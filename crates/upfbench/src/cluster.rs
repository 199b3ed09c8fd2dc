//! `upfbench run|sweep|search --cluster FILE PROFILE` (docs/scale.md §3): the coordinator. It drives
//! the `upfbench agent`s the cluster file lists (or `--agents`), holds N4 when the file says so,
//! and writes the report a single box would write, with each agent's section; exit status 3
//! when an agent was lost (docs/operations.md "Exit statuses").

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::{SystemTime, UNIX_EPOCH};

use anyhow::{Context, Result, anyhow, bail};
mod rates;

use upfbench_cli::{RunArgs, out};
use upfbench_config::{Cluster, PfcpMode, Profile};
use upfbench_coordinate::run::{ClusterRun, RunInputs, run_over_agents, steps_of};
use upfbench_coordinate::search::{ClusterSearch, search_over_agents};
use upfbench_coordinate::setup::override_agents;
use upfbench_present::write::write_files;
use upfbench_report::events::{EventLine, EventsHeader};
use upfbench_report::{Report, StepReport};

/// Which command runs over the agents.
#[derive(Debug, Clone, Copy)]
pub(crate) enum ClusterMode<'a> {
    /// One step, each stream at its own payload.
    Run,
    /// A step per payload: these, or the profile's `sweep.payloads`.
    Sweep(Option<&'a [u16]>),
    /// The profile's search at these payloads, or the profile's `sweep.payloads`.
    Search(Option<&'a [u16]>),
}

/// Runs `args`' profile over its cluster's agents and writes the report.
pub(crate) fn run(args: &RunArgs, mode: ClusterMode<'_>) -> Result<ExitCode> {
    let cluster_path = args.cluster.as_deref().context("--cluster")?;
    let (cluster, profile, json) = inputs(args, cluster_path)?;
    let search = matches!(mode, ClusterMode::Search(_));
    let (load, profile) = rates::load_and_profile(args, search, profile)?;
    let payloads: Vec<Option<u16>> = match mode {
        ClusterMode::Run => vec![None],
        ClusterMode::Sweep(asked) | ClusterMode::Search(asked) => asked
            .unwrap_or(&profile.sweep.payloads)
            .iter()
            .copied()
            .map(Some)
            .collect(),
    };
    let started_unix_ms = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as u64);
    let name = format!("{}-{started_unix_ms}", profile.name);
    // One thread: the calls are few and small; each agent's is a task of its own.
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .context("starting the coordinator's runtime")?;
    let inputs = RunInputs {
        name: &name,
        cluster: &cluster,
        profile: &profile,
        profile_json: &json,
        tool_version: env!("CARGO_PKG_VERSION"),
        started_unix_ms,
    };
    let outcome = match mode {
        ClusterMode::Search(_) => {
            let search = ClusterSearch { inputs, payloads };
            runtime.block_on(search_over_agents(search, out::line))?
        }
        ClusterMode::Run | ClusterMode::Sweep(_) => {
            let steps = steps_of(&profile, &payloads, load);
            runtime.block_on(run_over_agents(ClusterRun { inputs, steps }, out::line))?
        }
    };
    let mut report = outcome.report;
    if let Some(m) = &args.multiplier {
        report.multiplier = Some(rates::record(m.given(), load, &profile, &report.steps));
    }
    describe(&mut report, &cluster, cluster_path, &profile.name);
    let dir = args
        .reports
        .clone()
        .unwrap_or_else(|| cluster.reports.clone());
    let command = match mode {
        ClusterMode::Run => "run",
        ClusterMode::Sweep(_) => "sweep",
        ClusterMode::Search(_) => "search",
    };
    let logs = (&outcome.events[..], &outcome.interval_logs[..]);
    let folder = write(&report, logs, &dir, &profile.name, command)?;
    out::text(&report.to_table());
    out::line(&format!("\nreports: {}", folder.display()));
    Ok(ExitCode::from(outcome.exit_status as u8))
}

/// The report's configuration of a run over agents: the profile, the cluster file, and the UPF
/// as the coordinator programmed it (the page's "UPF"; the agents held no N4).
fn describe(report: &mut Report, cluster: &Cluster, path: &Path, profile: &str) {
    let c = &mut report.config;
    c.insert("profile".to_owned(), profile.to_owned());
    c.insert("cluster".to_owned(), path.display().to_string());
    if let Some(peer) = cluster
        .pfcp
        .peer
        .filter(|_| cluster.pfcp.mode == PfcpMode::Coordinator)
    {
        c.insert(
            "upf".to_owned(),
            format!("N4 peer {peer}, as one SMF (the coordinator)"),
        );
    }
}

/// The cluster file (`--agents` applied), the profile, and the profile as JSON for the
/// agents; what a run over agents does not take refused.
fn inputs(args: &RunArgs, cluster_path: &Path) -> Result<(Cluster, Profile, serde_json::Value)> {
    if args.profile.is_some() {
        bail!(
            "with --cluster give the profile alone (`run --cluster FILE PROFILE`): each agent's \
             own system file gives its ports"
        );
    }
    let mut cluster = upfbench_config::load_cluster(cluster_path).map_err(|e| anyhow!("{e}"))?;
    if let Some(spec) = &args.agents {
        override_agents(&mut cluster, spec)?;
    }
    let profile_path = &args.system;
    let text = std::fs::read_to_string(profile_path)
        .with_context(|| format!("reading {}", profile_path.display()))?;
    let (profile, json) =
        upfbench_config::profile_and_json(&text, &profile_path.display().to_string())
            .map_err(|e| anyhow!("{e}"))?;
    Ok((cluster, profile, json))
}

/// The run's folder under `dir`, with every file a single box's run folder has (each step's
/// interval log merged over the agents).
fn write(
    report: &Report,
    (events, interval_logs): (&[EventLine], &[Option<Vec<u8>>]),
    dir: &Path,
    profile: &str,
    command: &str,
) -> Result<PathBuf> {
    let stamp = report.started.replace(':', "-");
    let folder = dir.join(format!("{stamp}-{profile}-{command}-cluster"));
    std::fs::create_dir_all(&folder)
        .with_context(|| format!("creating the reports folder {}", folder.display()))?;
    let mut lines = EventsHeader::new(&report.tool.version, report.started_unix_ms).to_json();
    lines.push('\n');
    for line in events {
        lines.push_str(&line.to_json());
        lines.push('\n');
    }
    let steps: Vec<(&StepReport, Option<&[u8]>)> = report
        .steps
        .iter()
        .enumerate()
        .map(|(i, s)| (s, interval_logs.get(i).and_then(|l| l.as_deref())))
        .collect();
    write_files(report, &steps, &lines, &folder)?;
    Ok(folder)
}
