//! N4 as one SMF (docs/scale.md §3 "PFCP as one SMF") and the uplink TEIDs it settles: with
//! the tester's TEIDs (CH=0) each agent's segment gives the run's sequence; when the UPF
//! chooses them (CH=1, `sessions.uplink_teid: upf`) the coordinator establishes every session
//! first and hands each agent its block's TEIDs as the UPF chose them (base64 in the segment),
//! with the UPF's N3 address from the F-TEIDs.

use upfbench_api::v1::{AgentInfo, Segment};
use upfbench_cluster::segments::{RunSegments, TeidSource};
use upfbench_config::{Cluster, Profile, TeidAllocation};
use upfbench_pfcp::driver::Release;
use upfbench_pfcp::node::Session;

use crate::gnbs::session_plans;
use crate::run::RunError;
use crate::setup::{SetupError, segments};
use crate::smf::{Smf, client_side};

/// The uplink TEIDs every segment carries.
#[derive(Debug, Clone, PartialEq)]
pub enum Teids {
    /// The tester's: `first + i × step` for UE i.
    Sequence {
        /// UE 0's.
        first: u32,
        /// Between two UEs.
        step: u32,
    },
    /// The UPF's: UE i's at index i, and its N3 address as its F-TEIDs give it.
    Chosen {
        /// One per UE of the run.
        teids: Vec<u32>,
        /// The UPF's N3 address, when its F-TEIDs carry one.
        upf_n3: Option<String>,
    },
}

impl Teids {
    /// Every agent's segment of the profile `json` (the run's, or a search case's), named
    /// `run`, for the `sessions` UEs cut by the cluster's weights.
    pub fn segments(
        &self,
        cluster: &Cluster,
        run: &str,
        json: &serde_json::Value,
        sessions: u32,
    ) -> Result<Vec<Segment>, SetupError> {
        let (teids, upf_n3) = match self {
            Teids::Sequence { first, step } => (
                TeidSource::Sequence {
                    first: *first,
                    step: *step,
                },
                None,
            ),
            Teids::Chosen { teids, upf_n3 } => (TeidSource::Chosen(teids), upf_n3.as_deref()),
        };
        segments(
            cluster,
            &RunSegments {
                run,
                profile: json,
                teids,
                upf_n3,
            },
            sessions,
        )
    }
}

/// What the coordinator holds of N4 for a run.
pub struct Held {
    /// The association and every session, with `pfcp.mode: coordinator`.
    pub smf: Option<Smf>,
    /// The TEIDs the segments carry.
    pub teids: Teids,
}

/// With `pfcp.mode: coordinator`: the one association and every UE's session, each with its
/// agent's pair as its gNB (the UEs' blocks as the cluster's weights cut them), and the uplink
/// TEIDs: the tester's, or the UPF's (CH=1, which needs the coordinator on N4).
pub async fn hold_n4(
    cluster: &Cluster,
    profile: &Profile,
    (run, json): (&str, &serde_json::Value),
    infos: &[AgentInfo],
) -> Result<Held, RunError> {
    let ours = match profile.sessions.uplink_teid {
        TeidAllocation::Range(t) => Some(Teids::Sequence {
            first: t.first.get(),
            step: t.step,
        }),
        TeidAllocation::ChosenByUpf => None,
    };
    let Some(side) = client_side(cluster) else {
        return match ours {
            Some(teids) => Ok(Held { smf: None, teids }),
            None => Err(RunError::ChosenTeids),
        };
    };
    // The blocks do not depend on the TEIDs: plan with any, establish, then hand the UPF's.
    let teids = ours
        .clone()
        .unwrap_or(Teids::Sequence { first: 1, step: 1 });
    let blocks = teids.segments(cluster, run, json, profile.sessions.count)?;
    let plans = session_plans(cluster, profile, &blocks, infos)?;
    let smf = Smf::associate(side).await?;
    let sessions = smf.establish(plans).await?;
    let teids = match ours {
        Some(t) => t,
        None => chosen(&sessions).map_err(RunError::NoChosenTeid)?,
    };
    Ok(Held {
        smf: Some(smf),
        teids,
    })
}

/// The end of N4 after the last step: every session deleted and the association released,
/// or, when that fails, why (said at once with `say`): the run's figures are kept either way,
/// and the report says that sessions may be left on the UPF.
pub async fn end_n4(
    smf: Option<Smf>,
    say: &(dyn Fn(&str) + Sync),
) -> (Option<(usize, Release)>, Option<String>) {
    let Some(smf) = smf else {
        return (None, None);
    };
    match smf.end().await {
        Ok(end) => (Some(end), None),
        Err(e) => {
            let why = format!(
                "N4 at the end of the run: {e}: sessions of this run may be left on the UPF"
            );
            say(&why);
            (None, Some(why))
        }
    }
}

/// UE i's uplink TEID as the UPF chose it (its session's CP SEID is i + 1), and the UPF's N3
/// address of the first; the CP SEID of a session without an uplink F-TEID.
fn chosen(sessions: &[Session]) -> Result<Teids, u64> {
    let mut by_ue: Vec<&Session> = sessions.iter().collect();
    by_ue.sort_by_key(|s| s.cp_seid.0);
    let mut teids = Vec::with_capacity(by_ue.len());
    let mut upf_n3 = None;
    for s in by_ue {
        let Some((teid, address)) = s.uplink_endpoint() else {
            return Err(s.cp_seid.0);
        };
        upf_n3.get_or_insert_with(|| address.to_string());
        teids.push(teid.0);
    }
    Ok(Teids::Chosen { teids, upf_n3 })
}
