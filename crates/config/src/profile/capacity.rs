//! The profile's `capacity:` section: how `upfbench capacity` climbs to the UPF's session
//! limit.
//!
//! ```yaml
//! sessions: {count: 1000000}   # the limit of the climb: no more are asked for
//! capacity:
//!   batch: 10000               # sessions established per batch (absent: a tenth of the count)
//!   step: 1s                   # then the streams run over every session so far
//! ```
//!
//! The streams run as written after each batch, spread over the sessions established so far:
//! a modest rate checks that the old sessions keep forwarding as the table grows.

use std::time::Duration;

use serde::Deserialize;

use super::super::issues::Issues;
use super::super::units::serde_text;

/// `upfbench capacity`: the batches and the traffic after each.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CapacitySection {
    /// Sessions established per batch, 1 to `sessions.count` (the limit of the climb). Absent: a
    /// tenth of `sessions.count`, at least 1.
    #[serde(default)]
    pub batch: Option<u32>,
    /// How long the streams send after each batch, over every session established so far
    /// (`duration` is not used); not 0.
    #[serde(default = "default_step", with = "serde_text::duration")]
    pub step: Duration,
}

fn default_step() -> Duration {
    Duration::from_secs(1)
}

impl Default for CapacitySection {
    fn default() -> Self {
        CapacitySection {
            batch: None,
            step: default_step(),
        }
    }
}

impl CapacitySection {
    /// The batch size for a climb to `limit` sessions.
    pub fn batch(&self, limit: u32) -> u32 {
        self.batch.unwrap_or(limit / 10).clamp(1, limit.max(1))
    }

    /// How long each batch's traffic sends.
    pub fn step(&self) -> Duration {
        self.step
    }

    pub(crate) fn check(&self, limit: u32, issues: &mut Issues) {
        match self.batch {
            Some(0) => issues.add("capacity.batch", "give at least 1 session a batch"),
            Some(b) if b > limit => issues.add(
                "capacity.batch",
                format!("{b} is more than sessions.count ({limit}), the limit of the climb"),
            ),
            _ => {}
        }
        if self.step.is_zero() {
            issues.add("capacity.step", "must be longer than 0");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_batch_defaults_to_a_tenth_of_the_limit_and_never_to_zero() {
        let c = CapacitySection::default();
        assert_eq!(
            (c.batch(1_000_000), c.batch(5), c.step()),
            (100_000, 1, Duration::from_secs(1))
        );
        let c = CapacitySection {
            batch: Some(512),
            step: Duration::from_millis(500),
        };
        assert_eq!(
            (c.batch(10_000), c.step()),
            (512, Duration::from_millis(500))
        );
    }
}
