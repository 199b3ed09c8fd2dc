//! The cluster file (`upfbench run --cluster FILE`, docs/scale.md §3): the agents a coordinator
//! drives, how PFCP is held, and the coordinator's timing.

use std::collections::HashMap;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::Duration;

use serde::{Deserialize, Serialize};

use super::field::{join_index, join_key};
use super::issues::{Check, Issues, nonzero};
use super::kind::FileKind;
use super::system::{OnHost, check_kind, check_n4_address};
use super::units::serde_text;

/// The least length of an agent's token, in bytes, white space around it aside (as the agent's
/// `--token-file` takes it).
pub const TOKEN_MIN_BYTES: usize = 32;
/// The longest agent name.
const NAME_MAX_CHARS: usize = 32;

/// The agents a coordinator drives (`upfbench run --cluster FILE PROFILE`), each an `upfbench
/// agent` on its own box that owns its ports, and how the coordinator holds PFCP and times the
/// steps. The run's UEs are cut into contiguous blocks by agent weight; each agent sends its
/// block, every stream's rate shared by UE count.
///
/// ```yaml
/// kind: cluster
/// agents:
///   - {name: gnb-a, url: "http://127.0.0.1:9801", token_file: /run/secrets/upfbench-token}
///   - {name: gnb-b, url: "http://127.0.0.1:9802", weight: 2}
/// pfcp: {mode: coordinator, local: 127.0.0.1, peer: 127.0.0.2}
/// ```
#[derive(Debug, Clone, PartialEq, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Cluster {
    /// `kind: cluster`, optional when `agents` tells (no other kind has it).
    #[serde(default)]
    pub kind: Option<FileKind>,
    /// The agents, at least one, in the order their blocks of UEs take; or `statefulset`.
    #[serde(default)]
    pub agents: Vec<ClusterAgent>,
    /// A Kubernetes StatefulSet's pods as the agents, in place of `agents` (docs/kubernetes.md):
    /// pod i is agent `NAME-i` at `http://NAME-i.SERVICE:PORT`, weight 1, found by the headless
    /// Service's DNS names.
    #[serde(default)]
    pub statefulset: Option<StatefulSet>,
    /// The token file of every agent that gives none of its own (as `agents[i].token_file`).
    #[serde(default)]
    pub token_file: Option<PathBuf>,
    /// How PFCP is held: by the coordinator as one SMF, or by each agent.
    pub pfcp: ClusterPfcp,
    /// The least time from every agent armed to the common start of a step (the start is also
    /// at least 4 round trips to the slowest agent away); not 0.
    #[serde(default = "default_start_lead", with = "serde_text::duration")]
    pub start_lead: Duration,
    /// An agent that refuses a connection, answers an error, or answers nothing for this long is
    /// lost: the others are stopped at a common time and the run ends after that step,
    /// incomplete. Above 1 s (the agents' status is read each second).
    #[serde(default = "default_agent_timeout", with = "serde_text::duration")]
    pub agent_timeout: Duration,
    /// The directory the coordinator writes the reports to (relative to where upfbench runs).
    #[serde(default = "default_reports")]
    pub reports: PathBuf,
}

/// One agent.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ClusterAgent {
    /// Its name in the report, the live line and events: letters, digits, `-` and `_`, at most
    /// 32 characters, each agent its own.
    pub name: String,
    /// Its API: `http://HOST:PORT` (`upfbench agent --listen`), each agent its own.
    pub url: String,
    /// A file holding its bearer token (at least 32 bytes, white space around it aside: `head -c
    /// 32 /dev/urandom | base64`), as the agent's `--token-file`. Absent: no token (an agent on
    /// loopback).
    #[serde(default)]
    pub token_file: Option<PathBuf>,
    /// Its share of the sessions; at least 1.
    #[serde(default = "default_weight")]
    pub weight: u32,
}

/// A StatefulSet of agents behind a headless Service.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, Serialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct StatefulSet {
    /// The StatefulSet's name: its pods are `NAME-0`, `NAME-1`, ...
    pub name: String,
    /// The headless Service that gives each pod its DNS name `NAME-i.SERVICE` (from a pod of
    /// the same namespace; a coordinator elsewhere gives `SERVICE.NAMESPACE`).
    pub service: String,
    /// Its replicas: the agents; at least 1.
    pub replicas: u32,
    /// The agents' API port (`upfbench agent --listen 0.0.0.0:PORT`).
    pub port: u16,
}

impl Cluster {
    /// The file as the coordinator takes it: a StatefulSet's pods as its agents, and the
    /// file-wide `token_file` given to every agent without one of its own.
    pub(crate) fn expanded(mut self) -> Cluster {
        if let Some(s) = &self.statefulset {
            self.agents = (0..s.replicas)
                .map(|i| ClusterAgent {
                    name: format!("{}-{i}", s.name),
                    url: format!("http://{}-{i}.{}:{}", s.name, s.service, s.port),
                    token_file: None,
                    weight: 1,
                })
                .collect();
        }
        for a in &mut self.agents {
            if a.token_file.is_none() {
                a.token_file.clone_from(&self.token_file);
            }
        }
        self
    }
}

/// Who holds N4.
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize, Serialize, schemars::JsonSchema,
)]
#[serde(rename_all = "lowercase")]
pub enum PfcpMode {
    /// The coordinator holds the one association and every session, as one SMF, and hands each
    /// agent its TEIDs.
    #[default]
    Coordinator,
    /// Each agent associates with its own system file's `pfcp` and establishes its block's
    /// sessions (for UPFs that take several CP peers).
    Agents,
}

/// PFCP as the cluster holds it.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ClusterPfcp {
    /// Who holds N4: `coordinator` (the coordinator holds the one association and every
    /// session, as one SMF, and hands each agent its TEIDs) or `agents` (each agent associates
    /// with its own system file's `pfcp` and establishes its block's sessions, for UPFs that take
    /// several CP peers).
    #[serde(default)]
    pub mode: PfcpMode,
    /// The coordinator's N4 address, also its Node ID (port 8805 unless given): needed with
    /// `mode: coordinator`, refused with `agents`.
    #[serde(default, with = "serde_text::opt_n4_address")]
    pub local: Option<SocketAddr>,
    /// The UPF's N4 address (port 8805 unless given): needed with `mode: coordinator`, refused
    /// with `agents`.
    #[serde(default, with = "serde_text::opt_n4_address")]
    pub peer: Option<SocketAddr>,
}

fn default_start_lead() -> Duration {
    Duration::from_millis(200)
}

fn default_agent_timeout() -> Duration {
    Duration::from_secs(3)
}

fn default_reports() -> PathBuf {
    PathBuf::from("reports")
}

fn default_weight() -> u32 {
    1
}

impl OnHost for Cluster {}

impl Check for Cluster {
    fn check(&self, issues: &mut Issues) {
        check_kind(self.kind, FileKind::Cluster, issues);
        match &self.statefulset {
            Some(_) if !self.agents.is_empty() => issues.add(
                "statefulset",
                "the agents are either listed (`agents`) or a StatefulSet's pods, not both",
            ),
            Some(s) => s.check(issues),
            None if self.agents.is_empty() => {
                issues.add("agents", "at least one agent (or a `statefulset`)");
            }
            None => {}
        }
        if let Some(path) = &self.token_file {
            check_token_file(path, "token_file", issues);
        }
        let mut names = HashMap::new();
        let mut urls = HashMap::new();
        for (i, a) in self.agents.iter().enumerate() {
            let at = join_index("agents", i);
            check_name(&a.name, &join_key(&at, "name"), issues);
            if let Some(first) = names.insert(a.name.as_str(), i) {
                issues.add(
                    join_key(&at, "name"),
                    format!("agent `{}` is named twice (agents[{first}])", a.name),
                );
            }
            let url = a.url.trim().trim_end_matches('/');
            check_url(url, &join_key(&at, "url"), issues);
            if let Some(first) = urls.insert(url, i) {
                issues.add(
                    join_key(&at, "url"),
                    format!("{url} is agent {}'s URL already", self.agents[first].name),
                );
            }
            if a.weight == 0 {
                issues.add(
                    join_key(&at, "weight"),
                    "0: an agent needs a weight of 1 or more",
                );
            }
            if let Some(path) = &a.token_file {
                check_token_file(path, &join_key(&at, "token_file"), issues);
            }
        }
        self.pfcp.check(issues);
        nonzero(
            self.start_lead,
            "start_lead",
            "the agents need time to be told the start",
            issues,
        );
        if self.agent_timeout <= Duration::from_secs(1) {
            issues.add(
                "agent_timeout",
                format!(
                    "{:?}: must be above 1 s (the agents' status is read each second)",
                    self.agent_timeout
                ),
            );
        }
    }
}

impl StatefulSet {
    fn check(&self, issues: &mut Issues) {
        if self.replicas == 0 {
            issues.add("statefulset.replicas", "0: at least one agent");
        }
        let last = format!("{}-{}", self.name, self.replicas.saturating_sub(1));
        check_name(&last, "statefulset.name", issues);
        check_url(
            &format!("http://{last}.{}:{}", self.service, self.port),
            "statefulset.service",
            issues,
        );
        if self.port == 0 {
            issues.add("statefulset.port", "0: give the agents' API port");
        }
    }
}

impl ClusterPfcp {
    fn check(&self, issues: &mut Issues) {
        for (field, addr) in [("local", self.local), ("peer", self.peer)] {
            let at = join_key("pfcp", field);
            match (self.mode, addr) {
                (PfcpMode::Coordinator, None) => issues.add(
                    at,
                    format!(
                        "`mode: coordinator` holds N4 for the agents: give the {}",
                        if field == "local" {
                            "coordinator's N4 address"
                        } else {
                            "UPF's N4 address"
                        }
                    ),
                ),
                (PfcpMode::Coordinator, Some(addr)) => check_n4_address(addr, &at, issues),
                (PfcpMode::Agents, Some(_)) => issues.add(
                    at,
                    "with `mode: agents` each agent's system file gives its N4 addresses: leave \
                     it out",
                ),
                (PfcpMode::Agents, None) => {}
            }
        }
    }
}

fn check_name(name: &str, field: &str, issues: &mut Issues) {
    if name.is_empty()
        || !name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
    {
        issues.add(
            field,
            format!("{name:?}: use letters, digits, '-' and '_' (it labels the report's tables)"),
        );
    } else if name.chars().count() > NAME_MAX_CHARS {
        issues.add(
            field,
            format!("{name:?}: at most {NAME_MAX_CHARS} characters"),
        );
    }
}

fn check_url(url: &str, field: &str, issues: &mut Issues) {
    let Some(rest) = url.strip_prefix("http://") else {
        let why = if url.starts_with("https://") {
            "https is not supported yet: put a TLS proxy in front of the agent, or use http on a \
             trusted network with a token"
        } else {
            "an agent's URL is http://HOST:PORT"
        };
        issues.add(field, format!("{url:?}: {why}"));
        return;
    };
    if rest.is_empty() || rest.contains(['/', '?', '#', ' ']) {
        issues.add(
            field,
            format!("{url:?}: an agent's URL is http://HOST:PORT, without a path"),
        );
    }
}

fn check_token_file(path: &std::path::Path, field: &str, issues: &mut Issues) {
    match std::fs::read(path) {
        Err(e) => issues.add(field, format!("{}: {e}", path.display())),
        Ok(bytes) if bytes.trim_ascii().len() < TOKEN_MIN_BYTES => issues.add(
            field,
            format!(
                "{}: {} bytes, a token needs {TOKEN_MIN_BYTES} or more (head -c 32 /dev/urandom | \
                 base64 > {})",
                path.display(),
                bytes.trim_ascii().len(),
                path.display()
            ),
        ),
        Ok(_) => {}
    }
}

#[cfg(test)]
mod tests;
