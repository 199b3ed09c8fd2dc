//! The profile's `churn` section: sessions that come and go while the measured phase runs.
//! The plan of a step's churn is the run crate's `plan::churn`.
//!
//! ```yaml
//! churn:
//!   rate: 200              # sessions established per second beyond the traffic's
//!   lifetime: 500ms        # each is deleted this long after its establishment was asked for
//!   modify_rate: 100       # Session Modifications per second of the traffic's sessions
//!   probe_interval: 1ms    # each churn session's downlink probes, from its request on
//!   start: 0s              # the first request, from the start of the measured phase
//!   baseline: true         # the same step without churn first, for its loss
//! ```

use std::time::Duration;

use serde::Deserialize;

use super::super::issues::Issues;
use super::super::units::serde_text;
use super::{Profile, Sessions, TxMode};
use crate::issues::Check;

/// Most churn sessions, or modifications, per second a profile asks for.
pub const MAX_CHURN_RATE: f64 = 1e6;
/// Fewest nanoseconds between two probes of a churn session.
pub const MIN_PROBE_INTERVAL: Duration = Duration::from_micros(10);

/// Session churn during the measured phase.
#[derive(Debug, Clone, Copy, PartialEq, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Churn {
    /// Sessions established per second beyond the traffic's, from `start`, each deleted `lifetime`
    /// after it was asked for; only those deleted within `duration` are planned. They are UEs
    /// `sessions.count` on, so the pool and the TEID ranges must have room for them. 0:
    /// modifications only.
    #[serde(default)]
    pub rate: f64,
    /// A churn session's life, from its establishment's request to its deletion's.
    #[serde(default = "one_second", with = "serde_text::duration")]
    pub lifetime: Duration,
    /// Session Modifications per second of the traffic's sessions, round the UEs, each re-sending
    /// the downlink FAR's forwarding parameters unchanged.
    #[serde(default)]
    pub modify_rate: f64,
    /// Each churn session gets a downlink probe this often from its request to its deletion (at
    /// least `10us`): the resolution of its activation lag.
    #[serde(default = "one_millisecond", with = "serde_text::duration")]
    pub probe_interval: Duration,
    /// The first request, from the start of the measured phase.
    #[serde(default, with = "serde_text::duration")]
    pub start: Duration,
    /// Run each step without churn first, for its loss.
    #[serde(default = "yes")]
    pub baseline: bool,
}

fn one_second() -> Duration {
    Duration::from_secs(1)
}

fn one_millisecond() -> Duration {
    Duration::from_millis(1)
}

fn yes() -> bool {
    true
}

impl Churn {
    /// Churn sessions a measured phase of `duration` establishes: one every `1/rate` from
    /// `start`, as long as its deletion is due within the phase.
    pub fn sessions(&self, duration: Duration) -> u32 {
        if self.rate <= 0.0 {
            return 0;
        }
        let room = duration.as_secs_f64() - self.start.as_secs_f64() - self.lifetime.as_secs_f64();
        if room < 0.0 {
            return 0;
        }
        // Establishment k at start + k/rate, deleted before the phase ends: k/rate < room.
        let n = (room * self.rate).ceil();
        n.min(f64::from(u32::MAX)) as u32
    }

    /// Modifications a measured phase of `duration` sends: one every `1/modify_rate` from
    /// `start`.
    pub fn modifications(&self, duration: Duration) -> u32 {
        if self.modify_rate <= 0.0 {
            return 0;
        }
        let room = duration.as_secs_f64() - self.start.as_secs_f64();
        (room * self.modify_rate)
            .ceil()
            .max(0.0)
            .min(f64::from(u32::MAX)) as u32
    }
}

/// The section's checks against the rest of the profile.
pub(super) fn check(profile: &Profile, c: &Churn, issues: &mut Issues) {
    for (field, r) in [("churn.rate", c.rate), ("churn.modify_rate", c.modify_rate)] {
        if !(0.0..=MAX_CHURN_RATE).contains(&r) {
            issues.add(field, format!("{r}: use 0 to {MAX_CHURN_RATE} per second"));
        }
    }
    if c.rate == 0.0 && c.modify_rate == 0.0 {
        issues.add(
            "churn",
            "give `rate` (sessions established and deleted per second) or `modify_rate`",
        );
    }
    if c.probe_interval < MIN_PROBE_INTERVAL {
        issues.add(
            "churn.probe_interval",
            format!("{:?}: at least {MIN_PROBE_INTERVAL:?}", c.probe_interval),
        );
    }
    if c.rate > 0.0 && c.lifetime.is_zero() {
        issues.add("churn.lifetime", "must be longer than 0");
    }
    if !matches!(profile.tx_mode, TxMode::Continuous) {
        issues.add(
            "churn",
            "churn needs `tx_mode: continuous`: it happens during the measured phase",
        );
        return;
    }
    if c.rate > 0.0 && c.sessions(profile.duration) == 0 {
        issues.add(
            "churn.lifetime",
            format!(
                "{:?} from {:?} leaves no room in the measured phase of {:?} (`duration`): a \
                 churn session is deleted within it",
                c.lifetime, c.start, profile.duration
            ),
        );
    }
    if c.start >= profile.duration {
        issues.add(
            "churn.start",
            format!(
                "{:?} is not within the measured phase of {:?} (`duration`)",
                c.start, profile.duration
            ),
        );
    }
    // The churn sessions are UEs after the traffic's: addresses and TEIDs for all of them.
    let extra = c.sessions(profile.duration);
    if extra > 0 {
        let all = Sessions {
            count: profile.sessions.count.saturating_add(extra),
            ..profile.sessions.clone()
        };
        let mut theirs = Issues::default();
        all.check(&mut theirs);
        for message in theirs.messages() {
            issues.add(
                "churn.rate",
                format!(
                    "the traffic's {} sessions and the churn's {extra} do not fit the sessions' \
                     addresses and TEIDs: {message}",
                    profile.sessions.count
                ),
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn churn(rate: f64, lifetime_ms: u64, start_ms: u64) -> Churn {
        Churn {
            rate,
            lifetime: Duration::from_millis(lifetime_ms),
            modify_rate: 0.0,
            probe_interval: Duration::from_millis(1),
            start: Duration::from_millis(start_ms),
            baseline: true,
        }
    }

    #[test]
    fn sessions_are_those_deleted_within_the_phase() {
        let d = Duration::from_secs(3);
        // 100/s from 0 with 500 ms lives: requests at 0, 10, ..., 2490 ms (the last deleted at
        // 2990 ms), 250 sessions.
        assert_eq!(churn(100.0, 500, 0).sessions(d), 250);
        // From 1 s: 150.
        assert_eq!(churn(100.0, 500, 1000).sessions(d), 150);
        assert_eq!(churn(0.0, 500, 0).sessions(d), 0);
        assert_eq!(churn(100.0, 3000, 0).sessions(d), 0);
        let m = Churn {
            modify_rate: 40.0,
            ..churn(0.0, 500, 500)
        };
        assert_eq!(m.modifications(d), 100);
    }
}
