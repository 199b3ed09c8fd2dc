//! `upfbench validate FILE...`: check configuration files of any kind, touching nothing.
//!
//! A profile given with a system file is also planned on it, as a run would plan it before
//! its ports start: the UEs, the streams and their flows, each worker's share, the PFCP
//! session plans and the receive rules. The plan's size and the process's peak memory are
//! printed: what a million UEs cost the tester before a packet is sent.

use std::io::Write;
use std::path::PathBuf;
use std::time::Instant;

use anyhow::{Result, bail};

use upfbench_cli::ValidateArgs;
use upfbench_config::{
    self as config, Cluster, Config, ConfigError, PfcpMode, Profile, ReflectMode, Reflector, System,
};

/// One file's outcome.
struct Checked {
    path: PathBuf,
    text: String,
    result: Result<Config, ConfigError>,
    /// Problems found against the other files (a profile against the system files).
    against: Vec<ConfigError>,
    /// The plans made of a profile on each system file it passed on.
    planned: Vec<String>,
}

/// Checks every file, then every profile against every system file; prints `ok: FILE (...)`
/// on stdout or the diagnostics on stderr, file by file.
pub fn run(args: &ValidateArgs) -> Result<()> {
    let mut checked: Vec<Checked> = args
        .files
        .iter()
        .map(|path| {
            let (text, result) = match std::fs::read_to_string(path) {
                Ok(text) => {
                    let result = config::any_from_str(&text, &path.display().to_string());
                    (text, result)
                }
                Err(source) => (
                    String::new(),
                    Err(ConfigError::Read {
                        path: path.clone(),
                        source,
                    }),
                ),
            };
            Checked {
                path: path.clone(),
                text,
                result,
                against: Vec::new(),
                planned: Vec::new(),
            }
        })
        .collect();
    let systems: Vec<(String, System)> = checked
        .iter()
        .filter_map(|c| match &c.result {
            Ok(Config::System(s)) => Some((c.path.display().to_string(), s.clone())),
            _ => None,
        })
        .collect();
    for c in &mut checked {
        if let Ok(Config::Profile(profile)) = &c.result {
            let name = c.path.display().to_string();
            for (system_name, system) in &systems {
                match config::check_profile_on_system(system, system_name, &c.text, &name) {
                    Err(e) => c.against.push(e),
                    Ok(()) => c.planned.push(plan_line(system, system_name, profile)?),
                }
            }
        }
    }

    let mut out = std::io::stdout().lock();
    let mut err = std::io::stderr().lock();
    let mut bad = 0;
    for c in &checked {
        match (&c.result, c.against.is_empty()) {
            (Ok(cfg), true) => {
                writeln!(out, "ok: {} ({})", c.path.display(), summary(cfg))?;
                for p in &c.planned {
                    writeln!(out, "  {p}")?;
                }
            }
            (Ok(_), false) => {
                bad += 1;
                for e in &c.against {
                    writeln!(err, "{e}")?;
                }
            }
            (Err(e), _) => {
                bad += 1;
                writeln!(err, "{e}")?;
            }
        }
    }
    out.flush()?;
    err.flush()?;
    if bad > 0 {
        bail!("{bad} of {} files did not validate", checked.len());
    }
    if checked.iter().any(|c| !c.planned.is_empty()) {
        let (_, peak) = upfbench_cli::memory::resident();
        writeln!(out, "peak memory {:.1} MB", peak as f64 / 1e6)?;
    }
    Ok(())
}

/// `profile` planned on `system` as a run plans it (the line rates unknown: no port is
/// touched), in a line: what was made and how long it took.
fn plan_line(system: &System, system_name: &str, profile: &Profile) -> Result<String> {
    let started = Instant::now();
    let plan = upfbench_run::plan::build(system, profile, None, [None, None])?;
    // The churn's sessions are planned with the traffic's, as a run plans them.
    let sessions = match system.pfcp {
        Some(_) => {
            upfbench_run::plan::sessions::session_plans(system, profile, &plan.session_ues())?.len()
        }
        None => 0,
    };
    let rules = crate::datapath::classify::RxRules::new(plan.ues, plan.qfi, &plan.streams)
        .with_churn(plan.churn.as_ref());
    drop(rules);
    let churn = match &plan.churn {
        Some(c) => format!(
            " ({} of them churn sessions, with {} modifications)",
            c.plan.count,
            c.plan.modifications.len()
        ),
        None => String::new(),
    };
    Ok(format!(
        "planned on {system_name}: {}, {} over {}, {}{churn}, in {:.2} s",
        plural(u64::from(plan.ues.count), "UE"),
        plural(u64::from(plan.flows), "flow"),
        plural(plan.workers.len() as u64, "worker"),
        plural(sessions as u64, "session plan"),
        started.elapsed().as_secs_f64()
    ))
}

fn plural(n: u64, one: &str) -> String {
    if n == 1 {
        format!("1 {one}")
    } else {
        format!("{n} {one}s")
    }
}

/// What the file holds, in a few words.
fn summary(cfg: &Config) -> String {
    match cfg {
        Config::Profile(p) => profile_summary(p),
        Config::System(s) => system_summary(s),
        Config::Reflector(r) => reflector_summary(r),
        Config::Cluster(c) => cluster_summary(c),
    }
}

fn cluster_summary(c: &Cluster) -> String {
    let agents: Vec<String> = c
        .agents
        .iter()
        .map(|a| format!("{} {} (weight {})", a.name, a.url, a.weight))
        .collect();
    let pfcp = match (c.pfcp.mode, &c.pfcp.local, &c.pfcp.peer) {
        (PfcpMode::Coordinator, Some(local), Some(peer)) => {
            format!("PFCP held by the coordinator {local} -> {peer}")
        }
        _ => "PFCP held by each agent".to_owned(),
    };
    format!(
        "cluster: {}: {}, {pfcp}",
        plural(c.agents.len() as u64, "agent"),
        agents.join(", ")
    )
}

fn profile_summary(p: &Profile) -> String {
    format!(
        "profile {:?}: {}, {}",
        p.name,
        plural(p.streams.len() as u64, "stream"),
        plural(u64::from(p.sessions.count), "UE")
    )
}

fn system_summary(s: &System) -> String {
    let pfcp = match &s.pfcp {
        Some(p) => format!("PFCP {} -> {}", p.local, p.peer),
        None => "no PFCP".to_owned(),
    };
    let ports: Vec<String> = s
        .pairs()
        .iter()
        .map(|p| {
            format!(
                "n3 {} {}, n6 {} {}",
                p.n3.device, p.n3.address, p.n6.device, p.n6.address
            )
        })
        .collect();
    format!("system: {}, {pfcp}", ports.join(", "))
}

fn reflector_summary(r: &Reflector) -> String {
    let mut parts = vec![match r.mode {
        ReflectMode::Upf => "reflector: upf".to_owned(),
        ReflectMode::Echo(port) => format!("reflector: echo on {port}"),
    }];
    for pair in r.pairs() {
        for (name, p) in [("n3", &pair.n3), ("n6", &pair.n6)] {
            parts.push(format!("{name} {} {}", p.device, p.address));
        }
    }
    if let Some(p) = &r.pfcp {
        parts.push(format!("PFCP {} for {}", p.local, p.peer));
    }
    let i = &r.impairments;
    let mut imp = Vec::new();
    if let Some(n) = i.drop_one_in {
        imp.push(format!("drop 1 in {n}"));
    }
    if let Some(n) = i.duplicate_one_in {
        imp.push(format!("duplicate 1 in {n}"));
    }
    if let Some(n) = i.reorder_one_in {
        imp.push(format!("reorder 1 in {n}"));
    }
    if let Some(d) = i.delay {
        imp.push(format!("delay {d:?}"));
    }
    if let Some(pps) = i.rate_cap {
        imp.push(format!("cap {}", config::Rate::Pps(pps)));
    }
    if !imp.is_empty() {
        parts.push(format!("impairments: {}", imp.join(", ")));
    }
    parts.join(", ")
}
