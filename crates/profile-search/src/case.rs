//! What a search searches: a case per payload size and direction set, each with its streams'
//! mix (how a load is shared among them, what a packet weighs on the wire on average, what the
//! ports carry), and the profile of a trial at a given load.

use std::time::{Duration, Instant};

use upfbench_stats::Direction as StatsDirection;

use upfbench_config::{Direction, DirectionSet, Profile, Rate, TxMode};
use upfbench_report::SearchCase;
use upfbench_run::plan::{Plan, rate_frame_len};
use upfbench_search::Search;

/// One payload size and direction set.
#[derive(Debug, Clone, PartialEq)]
pub struct Case {
    /// "300 B both".
    pub label: String,
    /// The payload every stream has, when the sweep sets it.
    pub payload: Option<u16>,
    /// The directions loaded together.
    pub set: DirectionSet,
    /// The profile with the set's streams alone.
    pub profile: Profile,
}

/// The cases of `profile` at `payloads`: each payload, each direction set of its search.
pub fn cases(profile: &Profile, payloads: &[Option<u16>]) -> Vec<Case> {
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
pub struct Mix {
    /// Each profile stream's rate over the whole (one direction's half for a `both` stream).
    pub shares: Vec<f64>,
    /// Mean L2 frame (with FCS, padded) per packet of the whole (bytes).
    pub frame_bytes_l2: f64,
    /// The load at which the busier port reaches its line rate (pps), if both are known.
    pub line_rate_pps: Option<f64>,
}

impl Mix {
    /// The mix of a case's plan `base` (built from the case's profile), on ports of line rates
    /// `line_bps` (N3, N6; bit/s at L1).
    pub fn of(case: &Case, base: &Plan, line_bps: [Option<f64>; 2]) -> Mix {
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

    /// The mix of `case` from its streams' rates alone, each in pps (`None` names the first
    /// stream that is not): for a coordinator, which has no ports. Its frames are those of an
    /// untagged IPv4 N3 until its trials measure them ([`Mix::measured_frame`]); its line rate
    /// unknown (the profile gives `search.max_load`).
    pub fn of_rates(case: &Case) -> Result<Mix, NotPps> {
        let mut rates = Vec::new();
        for (index, s) in case.profile.streams.iter().enumerate() {
            let Rate::Pps(pps) = s.rate else {
                return Err(NotPps {
                    index,
                    stream: s.name.clone(),
                });
            };
            rates.push(pps);
        }
        // Every rate is in pps (checked above).
        let total = profile_pps(&case.profile).unwrap_or(0.0);
        let share = |r: f64| if total > 0.0 { r / total } else { 0.0 };
        let container = case.profile.sessions.pdu_session_container;
        let mut frame_bytes_l2 = 0.0;
        for (s, &r) in case.profile.streams.iter().zip(&rates) {
            let payload = case.payload.unwrap_or(s.payload);
            let ways: &[StatsDirection] = match s.direction {
                Direction::Uplink => &[StatsDirection::Uplink],
                Direction::Downlink => &[StatsDirection::Downlink],
                Direction::Both => &[StatsDirection::Uplink, StatsDirection::Downlink],
            };
            for &d in ways {
                let up = d == StatsDirection::Uplink;
                frame_bytes_l2 += share(r) * rate_frame_len(d, payload, up && container) as f64;
            }
        }
        Ok(Mix {
            shares: rates.into_iter().map(share).collect(),
            frame_bytes_l2,
            line_rate_pps: None,
        })
    }

    /// The mean frame a trial of the mix measured: `bytes_l2` over its `packets` sent.
    pub fn measured_frame(&mut self, bytes_l2: u64, packets: u64) {
        if packets > 0 {
            self.frame_bytes_l2 = bytes_l2 as f64 / packets as f64;
        }
    }

    /// Gbit/s at L2 and at L1 of `pps` of this mix.
    pub fn gbps(&self, pps: f64) -> (f64, f64) {
        (
            pps * self.frame_bytes_l2 * 8.0 / 1e9,
            pps * (self.frame_bytes_l2 + 20.0) * 8.0 / 1e9,
        )
    }
}

/// The packets a second of `profile` at load 1, every stream's directions together, when
/// every rate is in pps (a rate in bits or in % of a line rate is packets only on a port).
pub fn profile_pps(profile: &Profile) -> Option<f64> {
    profile
        .streams
        .iter()
        .map(|s| {
            let Rate::Pps(pps) = s.rate else {
                return None;
            };
            Some(if s.direction == Direction::Both {
                2.0 * pps
            } else {
                pps
            })
        })
        .sum()
}

/// A stream whose rate is not in pps, where only pps can be shared without the ports.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "streams[{index}] ({stream}).rate: a search across agents shares its load by the streams' \
     rates, which must be in pps there (the frames and line rates are the agents')"
)]
pub struct NotPps {
    /// The stream's index in the profile.
    pub index: usize,
    /// Its name.
    pub stream: String,
}

/// The profile of a trial of `case` at `load` pps for `duration`, `warmup` before it.
pub fn trial_profile(
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
pub struct CaseRun {
    /// The case.
    pub case: Case,
    /// How its load is shared.
    pub mix: Mix,
    /// Its controller.
    pub search: Search,
    /// Its section of the report so far.
    pub report: SearchCase,
    /// When its first trial was chosen.
    pub started: Option<Instant>,
    /// The case's whole time as the model foresaw it after its first trial (s): a search that
    /// keeps re-measuring outruns it, and the trial lines say so.
    pub foreseen_s: Option<f64>,
    /// Latency trials still to run (fractions), once the search ended.
    pub latency_left: Option<Vec<f64>>,
    /// Its search and latency trials are done.
    pub finished: bool,
}

#[cfg(test)]
mod tests;
