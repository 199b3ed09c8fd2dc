//! The profile's `mobility` section: handovers under traffic (path switches). Which UEs move,
//! when, and to which target gNB; the plan of the handovers is the run crate's `plan::mobility`.
//!
//! ```yaml
//! mobility:
//!   ues: 50%                 # or all
//!   handovers: {rate: 100, arrivals: poisson, start: 1s}   # or {at: 2s}: each moving UE once
//!   seed: 7
//!   end_marker: true         # SNDEM in the modification
//!   target: {address: 192.168.13.132, downlink_teid: {first: 0x20000002, step: 2}}
//! ```

use std::net::Ipv4Addr;
use std::time::Duration;

use serde::Deserialize;
use serde::de::Deserializer;

use super::teid::{TeidRange, check_teid_range, ranges_share_a_teid};
use super::{Profile, TeidAllocation, TxMode};
use crate::issues::Issues;
use crate::units::{parse_percent, serde_text};

/// Most handovers per second a profile asks for.
pub const MAX_HANDOVER_RATE: f64 = 1e6;

/// Handovers under traffic: each moving UE's downlink moves to the target gNB once in the
/// measured phase (a Session Modification that updates its downlink FAR) and its uplink leaves
/// from the target's address from then on.
#[derive(Debug, Clone, PartialEq, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Mobility {
    /// Which UEs move: `all`, or a percentage of them (`25%`, at least one UE), chosen with the
    /// seed.
    #[serde(default)]
    pub ues: MovingUes,
    /// When they move: `{at: 2s}` (each moving UE once, all then) or `{rate: 100}` (handovers per
    /// second, one moving UE after the other).
    pub handovers: Handovers,
    /// Where they move to: the target gNB.
    pub target: TargetGnb,
    /// Ask the UPF for an End Marker on the old tunnel: PFCPSMReq-Flags SNDEM in each modification.
    #[serde(default = "yes")]
    pub end_marker: bool,
    /// The seed of the choice of UEs, of their order and of Poisson arrivals: the same seed, the
    /// same plan.
    #[serde(default)]
    pub seed: u64,
}

fn yes() -> bool {
    true
}

/// Which UEs move.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub enum MovingUes {
    /// Every UE: `ues: all`.
    #[default]
    All,
    /// This percentage of them (at least one): `ues: 25%`.
    Percent(f64),
}

impl<'de> Deserialize<'de> for MovingUes {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let text = String::deserialize(d)?;
        if text.trim() == "all" {
            return Ok(MovingUes::All);
        }
        parse_percent(&text)
            .map(MovingUes::Percent)
            .map_err(|e| serde::de::Error::custom(format!("`all` or a percentage: {e}")))
    }
}

impl MovingUes {
    /// How many of `sessions` UEs move.
    pub fn count(self, sessions: u32) -> u32 {
        match self {
            MovingUes::All => sessions,
            MovingUes::Percent(p) => {
                let n = (f64::from(sessions) * p / 100.0).round() as u32;
                n.clamp(u32::from(sessions > 0), sessions)
            }
        }
    }
}

/// When the handovers happen, from the start of the measured phase: `{at: 2s}` (each moving UE
/// once, all at that time) or `{rate: 100}` handovers per second from `start`, `uniform`
/// or `poisson` arrivals.
#[derive(Debug, Clone, Copy, PartialEq, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Handovers {
    /// Every moving UE once, this long after the measured phase starts (`2s`, within `duration`).
    /// Absent: `rate` is given instead.
    #[serde(default, with = "serde_text::opt_duration")]
    pub at: Option<Duration>,
    /// Or one moving UE after the other at this many handovers per second, instead of `at`; a
    /// uniform rate's last handover must fall within `duration`.
    #[serde(default)]
    pub rate: Option<f64>,
    /// With `rate`: `uniform` (1/rate apart) or `poisson` (exponential gaps of mean 1/rate, from
    /// the seed).
    #[serde(default)]
    pub arrivals: Arrivals,
    /// With `rate`: the first handover, from the measured phase's start.
    #[serde(default, with = "serde_text::duration")]
    pub start: Duration,
}

/// How handovers at a rate are spaced.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize, schemars::JsonSchema, serde::Serialize,
)]
#[serde(rename_all = "lowercase")]
pub enum Arrivals {
    /// Exactly 1/rate apart.
    #[default]
    Uniform,
    /// Exponential gaps of mean 1/rate (a Poisson process), from the seed.
    Poisson,
}

/// The target gNB: a second N3 address of the tester, on the same port.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TargetGnb {
    /// A second address of the tester on the N3 subnet (not its N3 address nor the UPF's); the
    /// tester answers ARP for it and announces it with its own ARP requests.
    pub address: Ipv4Addr,
    /// Its downlink TEIDs `{first, step}`, UE i's `first + i·step`; they must not share a TEID with
    /// the sessions' uplink or downlink range (the receiver tells the paths apart by TEID).
    pub downlink_teid: TeidRange,
}

/// The section's checks against the rest of the profile.
pub(super) fn check(profile: &Profile, m: &Mobility, issues: &mut Issues) {
    if let MovingUes::Percent(p) = m.ues
        && !(p > 0.0 && p <= 100.0)
    {
        issues.add(
            "mobility.ues",
            format!("{p}%: use more than 0% and at most 100%"),
        );
    }
    check_handovers(&m.handovers, issues);
    match profile.tx_mode {
        TxMode::Continuous => check_handovers_in_time(profile, m, issues),
        _ => issues.add(
            "mobility",
            "handovers need `tx_mode: continuous`: they happen during the measured phase",
        ),
    }
    check_target_teids(profile, m, issues);
    if !profile.streams.iter().any(|st| st.direction.downlink()) {
        issues.add(
            "mobility",
            "a handover is measured on the downlink: add a downlink stream",
        );
    }
}

/// The handovers' own fields: `at` or `rate`, a rate in bounds, `start` only with `rate`.
fn check_handovers(h: &Handovers, issues: &mut Issues) {
    match (h.at, h.rate) {
        (Some(_), Some(_)) => issues.add(
            "mobility.handovers",
            "give either `at` (each moving UE once, then) or `rate` (one after the other)",
        ),
        (None, None) => issues.add(
            "mobility.handovers",
            "give `at: 2s` (each moving UE once, then) or `rate: 100` (handovers per second)",
        ),
        _ => {}
    }
    if let Some(r) = h.rate
        && !(r > 0.0 && r <= MAX_HANDOVER_RATE)
    {
        issues.add(
            "mobility.handovers.rate",
            format!("{r}: use more than 0 and at most {MAX_HANDOVER_RATE} per second"),
        );
    }
    if h.at.is_some() && h.start != Duration::ZERO {
        issues.add(
            "mobility.handovers.start",
            "`start` goes with `rate`: `at` is the time already",
        );
    }
}

/// A continuous run's handovers, the first and (at a uniform rate) the last, fall in its
/// measured phase.
fn check_handovers_in_time(profile: &Profile, m: &Mobility, issues: &mut Issues) {
    let h = &m.handovers;
    let first = h.at.unwrap_or(h.start);
    if first >= profile.duration {
        issues.add(
            if h.at.is_some() {
                "mobility.handovers.at"
            } else {
                "mobility.handovers.start"
            },
            format!(
                "{first:?} is not within the measured phase of {:?} (`duration`)",
                profile.duration
            ),
        );
    }
    if let (Some(r), Arrivals::Uniform) = (h.rate, h.arrivals) {
        let n = m.ues.count(profile.sessions.count);
        let last = h.start.as_secs_f64() + f64::from(n.saturating_sub(1)) / r;
        if n > 0 && last >= profile.duration.as_secs_f64() {
            issues.add(
                "mobility.handovers.rate",
                format!(
                    "{n} handovers at {r}/s from {:?} end at {last:.3}s, after the \
                     measured phase of {:?}",
                    h.start, profile.duration
                ),
            );
        }
    }
}

/// The target gNB's downlink TEIDs: a valid range, apart from the sessions' TEIDs.
fn check_target_teids(profile: &Profile, m: &Mobility, issues: &mut Issues) {
    let s = &profile.sessions;
    let n = s.count;
    check_teid_range(
        m.target.downlink_teid,
        n,
        "mobility.target.downlink_teid",
        issues,
    );
    let mut others = vec![("sessions.downlink_teid", s.downlink_teid)];
    if let TeidAllocation::Range(ul) = s.uplink_teid {
        others.push(("sessions.uplink_teid", ul));
    }
    for (name, r) in others {
        if let Some(teid) = ranges_share_a_teid(m.target.downlink_teid, r, n) {
            issues.add(
                "mobility.target.downlink_teid",
                format!(
                    "TEID {:#x} is in {name} too: the receiver tells the paths apart by TEID",
                    teid.get()
                ),
            );
        }
    }
}
