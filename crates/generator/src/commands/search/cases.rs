//! What a search searches: a case per payload size and direction set, each with its streams'
//! mix (how a load is shared among them, what a packet weighs on the wire on average, what the
//! ports carry), and the profile of a trial at a given load.

use std::time::{Duration, Instant};

use upfbench_stats::Direction as StatsDirection;

use upfbench_config::{Direction, DirectionSet, Profile, Rate, TxMode};
use upfbench_report::SearchCase;
use upfbench_run::plan::Plan;
use upfbench_search::Search;

/// One payload size and direction set.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Case {
    /// "300 B both".
    pub(crate) label: String,
    /// The payload every stream has, when the sweep sets it.
    pub(crate) payload: Option<u16>,
    /// The directions loaded together.
    pub(crate) set: DirectionSet,
    /// The profile with the set's streams alone.
    pub(crate) profile: Profile,
}

/// The cases of `profile` at `payloads`: each payload, each direction set of its search.
pub(crate) fn cases(profile: &Profile, payloads: &[Option<u16>]) -> Vec<Case> {
    let mut out = Vec::new();
    for &payload in payloads {
        for &set in &profile.search.directions {
            let size = payload.map_or_else(|| "profile".to_owned(), |p| format!("{p} B"));
            out.push(Case {
                label: format!("{size} {}", set.name()),
                payload,
                set,
                profile: case_profile(profile, set),
            });
        }
    }
    out
}

/// `profile` with the streams of `set` alone (a `both` stream keeps its half of the set).
fn case_profile(profile: &Profile, set: DirectionSet) -> Profile {
    let mut p = profile.clone();
    let keep = match set {
        DirectionSet::Both => return p,
        DirectionSet::Uplink => Direction::Uplink,
        DirectionSet::Downlink => Direction::Downlink,
    };
    p.streams
        .retain(|s| s.direction == keep || s.direction == Direction::Both);
    for s in &mut p.streams {
        s.direction = keep;
    }
    p
}

/// How a case's load is shared among its streams, and what it weighs.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Mix {
    /// Each profile stream's rate over the whole (one direction's half for a `both` stream).
    pub(crate) shares: Vec<f64>,
    /// Mean L2 frame (with FCS, padded) per packet of the whole (bytes).
    pub(crate) frame_bytes_l2: f64,
    /// The load at which the busier port reaches its line rate (pps), if both are known.
    pub(crate) line_rate_pps: Option<f64>,
}

impl Mix {
    /// The mix of a case's plan `base` (built from the case's profile), on ports of line rates
    /// `line_bps` (N3, N6; bit/s at L1).
    pub(crate) fn of(case: &Case, base: &Plan, line_bps: [Option<f64>; 2]) -> Mix {
        let total: f64 = base.streams.iter().map(|s| s.rate_pps).sum();
        let mut shares = Vec::new();
        let mut plans = base.streams.iter();
        for s in &case.profile.streams {
            let halves = if s.direction == Direction::Both { 2 } else { 1 };
            let first = plans.next().map_or(0.0, |p| p.rate_pps);
            for _ in 1..halves {
                plans.next();
            }
            shares.push(if total > 0.0 { first / total } else { 0.0 });
        }
        let mut frame_bytes_l2 = 0.0;
        // Bits per second at L1 on each port per pps of the whole.
        let mut port_bits = [0.0f64; 2];
        for p in &base.streams {
            let share = if total > 0.0 { p.rate_pps / total } else { 0.0 };
            let len = p.rate_frame_len() as f64;
            frame_bytes_l2 += share * len;
            let port = match p.direction {
                StatsDirection::Uplink => 0,
                StatsDirection::Downlink => 1,
            };
            port_bits[port] += share * (len + 20.0) * 8.0;
        }
        let mut line_rate_pps: Option<f64> = None;
        for (bits, line) in port_bits.iter().zip(line_bps) {
            if *bits == 0.0 {
                continue;
            }
            let Some(line) = line else {
                line_rate_pps = None;
                break;
            };
            let pps = line / bits;
            line_rate_pps = Some(line_rate_pps.map_or(pps, |l| l.min(pps)));
        }
        Mix {
            shares,
            frame_bytes_l2,
            line_rate_pps,
        }
    }

    /// Gbit/s at L2 and at L1 of `pps` of this mix.
    pub(crate) fn gbps(&self, pps: f64) -> (f64, f64) {
        (
            pps * self.frame_bytes_l2 * 8.0 / 1e9,
            pps * (self.frame_bytes_l2 + 20.0) * 8.0 / 1e9,
        )
    }
}

/// The profile of a trial of `case` at `load` pps for `duration`, `warmup` before it.
pub(crate) fn trial_profile(
    case: &Case,
    mix: &Mix,
    load: f64,
    duration: Duration,
    warmup: Duration,
) -> Profile {
    let mut p = case.profile.clone();
    for (s, share) in p.streams.iter_mut().zip(&mix.shares) {
        s.rate = Rate::Pps(load * share);
    }
    p.duration = duration;
    p.warmup = warmup;
    p.tx_mode = TxMode::Continuous;
    p
}

/// One case while it is searched, and after.
pub(crate) struct CaseRun {
    pub(crate) case: Case,
    pub(crate) mix: Mix,
    pub(crate) search: Search,
    pub(crate) report: SearchCase,
    pub(super) started: Option<Instant>,
    /// The case's whole time as the model foresaw it after its first trial (s): a search that
    /// keeps re-measuring outruns it, and the trial lines say so.
    pub(super) foreseen_s: Option<f64>,
    /// Latency trials still to run (fractions), once the search ended.
    pub(super) latency_left: Option<Vec<f64>>,
    pub(super) finished: bool,
}

#[cfg(test)]
mod tests;
