//! The reflector's N4 impairments (`impairments.n4` in the reflector file): a UPF whose N4
//! loses, delays and reorders datagrams, goes silent, or restarts, to test how the generator's
//! PFCP client copes.

use std::time::Duration;

use serde::Deserialize;
use upfbench_pfcp::node::N4Faults;

use super::issues::Issues;
use super::units::serde_text;

/// N4 faults, each off unless given.
///
/// ```yaml
/// impairments:
///   n4: {drop: 30%, delay: 5ms, reorder: 10%, reorder_by: 20ms, silent_after: 20s, restart_at: 8s, seed: 1}
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct N4Impairments {
    /// The share of N4 datagrams lost, each way, each on its own (`30%`), below 100% (a UPF that
    /// never answers is `silent_after: 0s`).
    #[serde(default, with = "serde_text::percent")]
    pub drop: f64,
    /// Every incoming N4 datagram is held this long before it is read (`5ms`, at most `10s`).
    /// Absent: none.
    #[serde(default, with = "serde_text::opt_duration")]
    pub delay: Option<Duration>,
    /// The share of incoming N4 datagrams held `reorder_by` longer, so that later ones overtake
    /// them (`10%`).
    #[serde(default, with = "serde_text::percent")]
    pub reorder: f64,
    /// How much longer a reordered datagram is held; not 0 with `reorder`.
    #[serde(default = "default_reorder_by", with = "serde_text::duration")]
    pub reorder_by: Duration,
    /// From this long after the reflector started, N4 reads nothing and sends nothing, heartbeats
    /// included: a UPF that stopped answering (`20s`). Absent: never.
    #[serde(default, with = "serde_text::opt_duration")]
    pub silent_after: Option<Duration>,
    /// The silence ends after this long (`3s`), with `silent_after`. Absent: it lasts.
    #[serde(default, with = "serde_text::opt_duration")]
    pub silent_for: Option<Duration>,
    /// This long after the reflector started, it restarts as a UPF would: every session and the
    /// association dropped, a new Recovery Time Stamp (`8s`). SIGUSR1 does the same at any time.
    /// Absent: never.
    #[serde(default, with = "serde_text::opt_duration")]
    pub restart_at: Option<Duration>,
    /// The seed of the losses and reorderings: the same seed, the same choices.
    #[serde(default = "default_seed")]
    pub seed: u64,
}

fn default_reorder_by() -> Duration {
    Duration::from_millis(10)
}

fn default_seed() -> u64 {
    1
}

impl Default for N4Impairments {
    fn default() -> Self {
        N4Impairments {
            drop: 0.0,
            delay: None,
            reorder: 0.0,
            reorder_by: default_reorder_by(),
            silent_after: None,
            silent_for: None,
            restart_at: None,
            seed: default_seed(),
        }
    }
}

impl N4Impairments {
    /// The faults for the PFCP server.
    pub fn faults(&self) -> N4Faults {
        N4Faults {
            drop: self.drop / 100.0,
            delay: self.delay.unwrap_or_default(),
            reorder: self.reorder / 100.0,
            reorder_by: self.reorder_by,
            silent_after: self.silent_after,
            silent_for: self.silent_for,
            restart_at: self.restart_at,
            seed: self.seed,
        }
    }

    /// Checks the values, each at its field under `impairments.n4`.
    pub(super) fn check(&self, issues: &mut Issues) {
        for (field, share) in [
            ("impairments.n4.drop", self.drop),
            ("impairments.n4.reorder", self.reorder),
        ] {
            if share > 100.0 {
                issues.add(field, format!("{share}%: at most 100%"));
            }
        }
        if self.drop >= 100.0 {
            issues.add(
                "impairments.n4.drop",
                "every datagram lost is a UPF that never answers: write `silent_after: 0s`",
            );
        }
        if self.delay.is_some_and(|d| d > Duration::from_secs(10)) {
            issues.add(
                "impairments.n4.delay",
                "at most 10s (datagrams are held in memory)",
            );
        }
        if self.silent_for.is_some() && self.silent_after.is_none() {
            issues.add(
                "impairments.n4.silent_for",
                "a silence needs its start: give silent_after",
            );
        }
        if self.reorder > 0.0 && self.reorder_by.is_zero() {
            issues.add(
                "impairments.n4.reorder_by",
                "a reordered datagram must be held longer than 0",
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_file_s_percentages_become_shares() {
        let n4: N4Impairments =
            serde_saphyr::from_str("{drop: 30%, delay: 5ms, reorder: 10%, restart_at: 8s}")
                .unwrap();
        let f = n4.faults();
        assert!((f.drop - 0.3).abs() < 1e-12);
        assert!((f.reorder - 0.1).abs() < 1e-12);
        assert_eq!(f.delay, Duration::from_millis(5));
        assert_eq!(f.reorder_by, Duration::from_millis(10));
        assert_eq!(f.restart_at, Some(Duration::from_secs(8)));
        assert_eq!(f.seed, 1);
        assert!(f.is_active());
        assert!(!N4Impairments::default().faults().is_active());
    }

    #[test]
    fn a_share_over_100_and_a_total_loss_are_refused() {
        let mut issues = Issues::default();
        N4Impairments {
            drop: 100.0,
            reorder: 150.0,
            ..N4Impairments::default()
        }
        .check(&mut issues);
        let text = format!("{issues:?}");
        assert!(!issues.is_empty());
        assert!(text.contains("impairments.n4.reorder"), "{text}");
        assert!(text.contains("silent_after"), "{text}");
    }
}
