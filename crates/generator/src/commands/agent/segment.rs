//! A segment loaded on the agent (`PUT /v1/segment`, docs/scale.md §3 "Segments"): what one
//! agent does of a coordinator's run. Its profile is checked against the agent's own system
//! file as `upfbench run` checks a profile (the cross checks: line rate per pair, frame sizes),
//! its block of UEs against the profile's sessions, its uplink TEIDs decoded; each problem is
//! an issue at its field of the segment (422). The block is cut over the agent's pairs by
//! their weights, as the coordinator cut the run's UEs over the agents.

use std::net::IpAddr;
use std::ops::Range;
use std::path::PathBuf;

use upfbench_api::v1::{PairShare, Segment, SegmentSummary, StreamShare, UeBlock, UplinkTeids};
use upfbench_api::{Problem, ProblemKind};
use upfbench_cluster::segments::{split, teids_of};
use upfbench_config::{Profile, System, TeidAllocation, TeidRange};
use upfbench_run::plan::{self, StreamPlan};

use crate::commands::generate::Mode;
use crate::commands::generate::hosted::{self, Asked, Refusal};

/// The profile's name in the checks' diagnostics: the issues of the segment's profile.
const PROFILE: &str = "profile";

/// What the agent's checks of a segment need of it.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Checks<'a> {
    /// The system file's text and name.
    pub(crate) system_text: &'a str,
    pub(crate) system_name: &'a str,
    /// Each pair's ports' line rates (bit/s), for a profile's rates given as a share of them
    /// (none known: empty).
    pub(crate) links: &'a [[Option<f64>; 2]],
}

/// A segment that passed the checks.
#[derive(Debug, Clone)]
pub(crate) struct Loaded {
    /// As the coordinator sent it.
    pub(crate) segment: Segment,
    /// The agent's system, as its steps are planned on it.
    pub(crate) system: System,
    /// Its profile, checked against the agent's system.
    pub(crate) profile: Profile,
    /// The block's uplink TEIDs, one per UE of the block, in order.
    pub(crate) uplink_teids: Vec<u32>,
    /// The UPF's N3 address, when the coordinator gave it.
    #[cfg_attr(
        not(test),
        expect(dead_code, reason = "the agent's ports' peers are its system file's")
    )]
    pub(crate) upf_n3: Option<IpAddr>,
    /// The plan made of it, as `PUT /v1/segment` answers it.
    pub(crate) summary: SegmentSummary,
}

/// Checks `segment` against the agent's system (see the module's documentation).
pub(crate) fn load(checks: Checks<'_>, segment: Segment) -> Result<Loaded, Problem> {
    let (system, profile) = checked(checks, &teids_given(&segment))?;
    let mut issues = agent_issues(&profile);
    if segment.agents == 0 || segment.index >= segment.agents {
        issues.push((
            "index".to_owned(),
            format!(
                "agent {} of {}: the index counts from 0 and is below the agents",
                segment.index, segment.agents
            ),
        ));
    }
    let sessions = profile.sessions.count;
    let UeBlock { first, count } = segment.ues;
    let block = first..first.saturating_add(count);
    if count == 0 {
        issues.push(("ues.count".to_owned(), "a segment has 1 UE or more".into()));
    } else if first.checked_add(count).is_none_or(|end| end > sessions) {
        issues.push((
            "ues".to_owned(),
            format!(
                "UEs {first} to {} are not all among the profile's {sessions} sessions (0 to {})",
                u64::from(first) + u64::from(count) - 1,
                sessions.saturating_sub(1)
            ),
        ));
    }
    let uplink_teids = teids_of(&segment.uplink_teids, first, count).unwrap_or_else(|e| {
        issues.push(("uplink_teids".to_owned(), e.to_string()));
        Vec::new()
    });
    let upf_n3 = match segment.upf_n3.as_deref().map(str::parse::<IpAddr>) {
        None => None,
        Some(Ok(a)) => Some(a),
        Some(Err(e)) => {
            issues.push(("upf_n3".to_owned(), format!("not an IP address: {e}")));
            None
        }
    };
    if !issues.is_empty() {
        let n = issues.len();
        let mut p = Problem::new(
            ProblemKind::InvalidContent,
            format!(
                "the segment has {n} problem{}",
                if n == 1 { "" } else { "s" }
            ),
        );
        for (field, message) in issues {
            p = p.with_issue(field, message);
        }
        return Err(p);
    }
    let summary = summary(&system, &profile, checks.links, &segment, block)?;
    Ok(Loaded {
        system,
        segment,
        profile,
        uplink_teids,
        upf_n3,
        summary,
    })
}

/// What the segment's profile asks that an agent, which holds no N4, cannot do.
fn agent_issues(profile: &Profile) -> Vec<(String, String)> {
    let mut issues = Vec::new();
    if profile.sessions.uplink_teid == TeidAllocation::ChosenByUpf {
        issues.push((
            "uplink_teids".to_owned(),
            "the profile has the UPF choose the uplink TEIDs (`uplink_teid: upf`): the segment \
             gives them as the UPF chose them (`chosen`), not a sequence"
                .to_owned(),
        ));
    }
    // The agent's session holds no N4 (the coordinator does, as one SMF): what a profile does
    // over PFCP during a step cannot be done by an agent.
    for (field, asks) in [
        ("churn", profile.churn.is_some()),
        ("mobility", profile.mobility.is_some()),
        ("qos_gate", profile.qos_gate.is_some()),
    ] {
        if asks {
            issues.push((
                format!("{PROFILE}.{field}"),
                format!(
                    "`{field}` acts over PFCP during a step, and a segment's agent holds no N4 \
                     (the coordinator does): run it on one box"
                ),
            ));
        }
    }
    issues
}

/// The segment's profile, its uplink TEIDs given when the UPF chose them (CH=1): the
/// coordinator learnt them as it established the sessions and hands them in the segment, and
/// the agent, which holds no N4, sends on those. Its profile is checked as one whose TEIDs are
/// the tester's (a profile that has the UPF choose them needs N4): a range just past the
/// downlink TEIDs stands in for them, so that the checks find no overlap that is not there.
fn teids_given(segment: &Segment) -> serde_json::Value {
    let mut profile = segment.profile.clone();
    if !matches!(segment.uplink_teids, UplinkTeids::Chosen(_)) {
        return profile;
    }
    let Some(sessions) = profile.get_mut("sessions").and_then(|s| s.as_object_mut()) else {
        return profile;
    };
    if sessions.get("uplink_teid").and_then(|t| t.as_str()) != Some("upf") {
        return profile;
    }
    let count = sessions
        .get("count")
        .and_then(serde_json::Value::as_u64)
        .unwrap_or(1);
    let downlink = sessions
        .get("downlink_teid")
        .and_then(|d| serde_json::from_value::<TeidRange>(d.clone()).ok())
        .map_or((2, 2), |d| (u64::from(d.first.0), u64::from(d.step)));
    let past = downlink.0 + downlink.1 * count;
    let first = if past + count <= u64::from(u32::MAX) {
        past
    } else {
        1
    };
    sessions.insert(
        "uplink_teid".into(),
        serde_json::json!({"first": first, "step": 1}),
    );
    profile
}

/// The segment's profile checked as `upfbench run` checks a profile file against the agent's
/// system file.
fn checked(checks: Checks<'_>, profile: &serde_json::Value) -> Result<(System, Profile), Problem> {
    // JSON is YAML: the profile's text is its JSON, one field a line, which the checks read as
    // they read a file.
    let text = serde_json::to_string_pretty(profile).map_err(|e| {
        Problem::new(ProblemKind::InvalidContent, "the profile is not JSON")
            .with_issue(PROFILE, e.to_string())
    })?;
    let asked = Asked {
        mode: Mode::Run,
        duration: None,
        multiplier: None,
        reports: PathBuf::new(),
    };
    hosted::checked_profile(checks.system_text, checks.system_name, &text, &asked)
        .map_err(|r| refused(r, checks.system_name))
}

/// A refused profile as a problem document: each problem an issue at its field of the segment
/// (`profile.streams[0].rate`), or of the agent's system file (`system.n3.address`) for the
/// cross checks that are located there.
fn refused(r: Refusal, system_name: &str) -> Problem {
    match r {
        Refusal::Mode(m) => Problem::new(ProblemKind::InvalidContent, m),
        Refusal::Invalid(diagnostics) => {
            let n = diagnostics.len();
            let mut p = Problem::new(
                ProblemKind::InvalidContent,
                format!(
                    "the segment's profile does not fit this agent: {n} problem{}",
                    if n == 1 { "" } else { "s" }
                ),
            );
            for d in diagnostics {
                let root = if d.file == system_name {
                    "system"
                } else {
                    PROFILE
                };
                let field = if d.field.is_empty() {
                    root.to_owned()
                } else {
                    format!("{root}.{}", d.field)
                };
                p = p.with_issue(field, d.message);
            }
            p
        }
    }
}

/// The block `block` cut over the system's pairs by their weights, and each stream's UEs and
/// rate on each pair: `rate × UEs here / the stream's UEs`.
fn summary(
    system: &System,
    profile: &Profile,
    links: &[[Option<f64>; 2]],
    segment: &Segment,
    block: Range<u32>,
) -> Result<SegmentSummary, Problem> {
    let plan = if links.len() == system.pairs().len() {
        plan::build_pairs(system, profile, None, links)
    } else {
        plan::build(system, profile, None, [None; 2])
    };
    let plan = plan.map_err(|e| {
        Problem::new(
            ProblemKind::InvalidContent,
            "the segment's profile cannot be planned",
        )
        .with_issue(PROFILE, e.to_string())
    })?;
    let pairs = system.pairs();
    let weights: Vec<u32> = pairs.iter().map(|p| p.weight()).collect();
    let blocks = split(block, &weights).map_err(|e| {
        Problem::new(
            ProblemKind::InvalidContent,
            "the segment's UEs cannot be cut over this agent's pairs",
        )
        .with_issue("ues", e.to_string())
    })?;
    Ok(SegmentSummary {
        run: segment.run.clone(),
        ues: segment.ues,
        pairs: pairs
            .iter()
            .zip(blocks)
            .map(|(pair, ues)| PairShare {
                pair: pair.name.clone(),
                streams: plan.streams.iter().map(|s| share(s, &ues)).collect(),
                ues: UeBlock {
                    first: ues.start,
                    count: ues.end - ues.start,
                },
            })
            .collect(),
    })
}

/// Stream `s`'s share of the UEs `block`.
fn share(s: &StreamPlan, block: &Range<u32>) -> StreamShare {
    let n = s.ues.end.saturating_sub(s.ues.start);
    let start = block.start.clamp(s.ues.start, s.ues.end);
    let here = block.end.clamp(start, s.ues.end) - start;
    StreamShare {
        name: s.name.clone(),
        direction: s.direction,
        ues: here,
        rate_pps: if n == 0 {
            0.0
        } else {
            s.rate_pps * f64::from(here) / f64::from(n)
        },
    }
}

#[cfg(test)]
mod tests;
