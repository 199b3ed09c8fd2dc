//! Before the coordinator runs (docs/scale.md §3 "What a user writes", "PFCP as one SMF"): the
//! cluster file's agents (or `--agents NAME=URL,...` in their place), a client of each with its
//! token and `agent_timeout`, each agent's `GET /v1` (its pairs' N3 addresses, for the
//! sessions' plans), and each agent's segment.

use std::time::Duration;

use thiserror::Error;
use upfbench_api::v1::{AgentInfo, Segment};
use upfbench_cluster::segments::{RunSegments, SplitError, TeidError, cut};
use upfbench_config::{Cluster, ClusterAgent};
use upfbench_remote::{Client, ClientError, ServeError, Token};

/// The API version this coordinator speaks.
pub const API_VERSION: u32 = 1;

/// Why the run cannot start.
#[derive(Debug, Error)]
pub enum SetupError {
    /// `--agents` is not `NAME=URL,...`, or names an agent twice.
    #[error("--agents: {0}")]
    Agents(String),
    /// An agent's token file cannot be read.
    #[error("agents[{index}] ({agent}): token_file: {source}")]
    Token {
        /// Its index in `agents`.
        index: usize,
        /// Its name.
        agent: String,
        /// Why.
        source: ServeError,
    },
    /// An agent's URL is not `http://HOST:PORT`.
    #[error("agents[{index}] ({agent}): url: {source}")]
    Url {
        /// Its index in `agents`.
        index: usize,
        /// Its name.
        agent: String,
        /// Why.
        source: ClientError,
    },
    /// An agent did not answer `GET /v1`.
    #[error("agent {agent}: GET /v1: {source}")]
    Info {
        /// Its name.
        agent: String,
        /// Why.
        source: ClientError,
    },
    /// An agent speaks another version of the API.
    #[error("agent {agent}: API version {got}; this coordinator speaks {API_VERSION}")]
    Version {
        /// Its name.
        agent: String,
        /// Its version.
        got: u32,
    },
    /// The UEs cannot be cut by the agents' weights.
    #[error("the sessions over the agents' weights: {0}")]
    Split(#[from] SplitError),
    /// An agent's uplink TEIDs cannot be given.
    #[error("agent {agent}: uplink TEIDs: {source}")]
    Teids {
        /// Its name.
        agent: String,
        /// Why.
        source: TeidError,
    },
}

/// `--agents NAME=URL,...`: replaces the cluster file's agents (each of weight 1, no token).
pub fn override_agents(cluster: &mut Cluster, spec: &str) -> Result<(), SetupError> {
    let mut agents: Vec<ClusterAgent> = Vec::new();
    for part in spec.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        let (name, url) = part
            .split_once('=')
            .filter(|(n, u)| !n.is_empty() && !u.is_empty())
            .ok_or_else(|| SetupError::Agents(format!("{part:?} is not NAME=URL")))?;
        if agents.iter().any(|a| a.name == name) {
            return Err(SetupError::Agents(format!("{name} is named twice")));
        }
        agents.push(ClusterAgent {
            name: name.to_owned(),
            url: url.to_owned(),
            token_file: None,
            weight: 1,
        });
    }
    if agents.is_empty() {
        return Err(SetupError::Agents("no agent".to_owned()));
    }
    cluster.agents = agents;
    Ok(())
}

/// A client of each agent, in order, each call bounded by `agent_timeout`.
pub fn clients(cluster: &Cluster) -> Result<Vec<Client>, SetupError> {
    clients_within(cluster, cluster.agent_timeout)
}

/// A client of each agent, each call bounded by `timeout`.
pub fn clients_within(cluster: &Cluster, timeout: Duration) -> Result<Vec<Client>, SetupError> {
    cluster
        .agents
        .iter()
        .enumerate()
        .map(|(index, a)| {
            let token = a
                .token_file
                .as_deref()
                .map(Token::from_file)
                .transpose()
                .map_err(|source| SetupError::Token {
                    index,
                    agent: a.name.clone(),
                    source,
                })?;
            Client::new(&a.url, token, timeout).map_err(|source| SetupError::Url {
                index,
                agent: a.name.clone(),
                source,
            })
        })
        .collect()
}

/// Every agent's `GET /v1`, asked side by side; the first agent in order that fails names
/// the error.
pub async fn infos(cluster: &Cluster, clients: &[Client]) -> Result<Vec<AgentInfo>, SetupError> {
    let tasks: Vec<_> = clients
        .iter()
        .cloned()
        .map(|c| tokio::spawn(async move { c.info().await }))
        .collect();
    let mut out = Vec::with_capacity(tasks.len());
    for (a, task) in cluster.agents.iter().zip(tasks) {
        let info = match task.await {
            Ok(answer) => answer.map_err(|source| SetupError::Info {
                agent: a.name.clone(),
                source,
            })?,
            Err(e) => {
                return Err(SetupError::Info {
                    agent: a.name.clone(),
                    source: ClientError::Http {
                        url: a.url.clone(),
                        what: "GET /v1".to_owned(),
                        reason: e.to_string(),
                    },
                });
            }
        };
        if info.api_version != API_VERSION {
            return Err(SetupError::Version {
                agent: a.name.clone(),
                got: info.api_version,
            });
        }
        out.push(info);
    }
    Ok(out)
}

/// Each agent's segment of a run of `sessions` UEs, cut by the agents' weights.
pub fn segments(
    cluster: &Cluster,
    run: &RunSegments<'_>,
    sessions: u32,
) -> Result<Vec<Segment>, SetupError> {
    let weights: Vec<u32> = cluster.agents.iter().map(|a| a.weight).collect();
    let shares = cut(sessions, &weights, &[])?;
    let n = cluster.agents.len();
    cluster
        .agents
        .iter()
        .zip(&shares)
        .enumerate()
        .map(|(i, (a, share))| {
            run.segment(i, n, &a.name, share)
                .map_err(|source| SetupError::Teids {
                    agent: a.name.clone(),
                    source,
                })
        })
        .collect()
}
