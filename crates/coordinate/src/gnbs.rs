//! PFCP as one SMF (docs/scale.md §3): the coordinator's session plans over every agent's
//! pairs. Each agent's block of UEs is cut over its pairs by their weights (`split`, as an
//! agent cuts it), and each (agent, pair) is a gNB of its own: its N3 address and the UPF's
//! address on its link come from the agent's `GET /v1`, and every session of its UEs shares its
//! `SessionTemplate` (`run::plan::sessions::session_plans_over`).

use std::net::{IpAddr, SocketAddr};

use thiserror::Error;
use upfbench_api::v1::{AgentInfo, Segment};
use upfbench_config::{Cluster, Profile};
use upfbench_pfcp::plan::UeSessionPlan;
use upfbench_run::plan::sessions::{Gnb, SessionError, session_plans_over};
use upfbench_run::plan::{segment::split, ue_table};

/// Why the sessions cannot be planned.
#[derive(Debug, Error)]
pub enum GnbError {
    /// An agent's `GET /v1` gives no pair, or an address that is not one.
    #[error("agent {agent}: {message}")]
    Agent {
        /// Its name.
        agent: String,
        /// What is wrong.
        message: String,
    },
    /// `pfcp.mode: coordinator` without an IPv4 `pfcp.local`.
    #[error("pfcp.local: the coordinator's N4 address must be IPv4")]
    NoLocalAddress,
    /// A session setting that cannot be encoded.
    #[error(transparent)]
    Session(#[from] SessionError),
}

/// An address with or without its prefix length (`10.3.0.1/24`).
fn address(agent: &str, field: &str, text: &str) -> Result<IpAddr, GnbError> {
    let bare = text.split_once('/').map_or(text, |(a, _)| a);
    bare.parse().map_err(|_| GnbError::Agent {
        agent: agent.to_owned(),
        message: format!("{field}: {text:?} is not an address"),
    })
}

/// Every (agent, pair): agent `i`'s block (`segments[i].ues`) cut over `infos[i].pairs` by
/// their weights, in the agents' order and then their pairs'.
pub fn gnbs(segments: &[Segment], infos: &[AgentInfo]) -> Result<Vec<Gnb>, GnbError> {
    let mut out = Vec::new();
    for (segment, info) in segments.iter().zip(infos) {
        let agent = &segment.agent;
        let weights: Vec<u32> = info.pairs.iter().map(|p| p.weight).collect();
        let first = segment.ues.first;
        let blocks =
            split(first..first + segment.ues.count, &weights).map_err(|e| GnbError::Agent {
                agent: agent.clone(),
                message: format!("its block of UEs over its pairs: {e}"),
            })?;
        for (i, (pair, ues)) in info.pairs.iter().zip(blocks).enumerate() {
            out.push(Gnb {
                ues,
                gnb_n3: address(agent, &format!("pairs[{i}].n3.address"), &pair.n3.address)?,
                upf_n3: address(agent, &format!("pairs[{i}].n3.peer"), &pair.n3.peer)?,
            });
        }
    }
    Ok(out)
}

/// The session of every UE of the run, the coordinator as the one CP function
/// (`cluster.pfcp.local`), each UE's with its (agent, pair)'s gNB.
pub fn session_plans(
    cluster: &Cluster,
    profile: &Profile,
    segments: &[Segment],
    infos: &[AgentInfo],
) -> Result<Vec<UeSessionPlan>, GnbError> {
    let Some(SocketAddr::V4(local)) = cluster.pfcp.local else {
        return Err(GnbError::NoLocalAddress);
    };
    let gnbs = gnbs(segments, infos)?;
    Ok(session_plans_over(
        profile,
        *local.ip(),
        &gnbs,
        &ue_table(&profile.sessions),
    )?)
}
