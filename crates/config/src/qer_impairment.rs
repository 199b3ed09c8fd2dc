//! The reflector's QER policers: their burst, and the impairment that makes them misbehave on
//! purpose, so that a tester's QoS conformance report can be checked against a known answer
//! both ways (docs/traffic-shapes.md).

use std::time::Duration;

use serde::Deserialize;

use super::issues::Issues;
use super::units::serde_text;

/// Whether the reflector polices its QERs at all.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize, schemars::JsonSchema, serde::Serialize,
)]
#[serde(rename_all = "lowercase")]
pub enum Policing {
    /// A token bucket per QER and direction at its MBR.
    #[default]
    On,
    /// None: every packet passes whatever its QER's MBR (closed gates still drop).
    Off,
}

/// Whether the reflector closes a QER's gates when a Session Modification says so.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize, schemars::JsonSchema, serde::Serialize,
)]
#[serde(rename_all = "lowercase")]
pub enum Gates {
    /// A closed gate drops its direction's packets.
    #[default]
    Obeyed,
    /// Every gate stays open, whatever the QERs say (the modification is still answered).
    Ignored,
}

/// `impairments.qer`: the QER policers misbehave on purpose, `{policing: off}` or `{over: 10%}`;
/// `{gates: ignored}` keeps every gate open.
#[derive(Debug, Clone, Copy, PartialEq, Default, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct QerImpairment {
    /// `off`: no policing (the gates still apply). Absent: `on`.
    #[serde(default)]
    pub policing: Policing,
    /// Police at the MBR plus this much (`10%`: 1.1 × MBR), up to 1000%. Absent: at the MBR.
    #[serde(default, with = "serde_text::opt_percent")]
    pub over: Option<f64>,
    /// `ignored`: gates stay open when a QER closes them. Absent: `obeyed`.
    #[serde(default)]
    pub gates: Gates,
}

impl QerImpairment {
    /// The factor the policers apply to each QER's MBR: 1 as planned, `1 + over`; `None`
    /// with policing off.
    pub fn mbr_factor(&self) -> Option<f64> {
        match self.policing {
            Policing::Off => None,
            Policing::On => Some(1.0 + self.over.unwrap_or(0.0) / 100.0),
        }
    }

    pub(crate) fn check(&self, issues: &mut Issues) {
        match (self.policing, self.over) {
            (Policing::Off, Some(_)) => issues.add(
                "impairments.qer.over",
                "with policing off nothing is policed: give `policing: off` or `over`, not both",
            ),
            (_, Some(0.0)) => issues.add(
                "impairments.qer.over",
                "0% polices at the MBR, as with no impairment: leave the field out",
            ),
            (_, Some(p)) if p > 1000.0 => issues.add("impairments.qer.over", "at most 1000%"),
            _ => {}
        }
    }
}

/// `qer_burst`'s default: 10 ms of each QER's MBR.
pub(crate) fn default_qer_burst() -> Duration {
    Duration::from_millis(10)
}

/// `qer_burst`: not 0, at most 1 s.
pub(crate) fn check_qer_burst(burst: Duration, issues: &mut Issues) {
    if burst.is_zero() {
        issues.add(
            "qer_burst",
            "a bucket of 0 passes nothing: at least one packet's time at the MBR",
        );
    } else if burst > Duration::from_secs(1) {
        issues.add("qer_burst", "at most 1s of the MBR");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_factor_follows_the_impairment() {
        assert_eq!(QerImpairment::default().mbr_factor(), Some(1.0));
        let over = QerImpairment {
            policing: Policing::On,
            over: Some(10.0),
            gates: Gates::Obeyed,
        };
        assert!((over.mbr_factor().unwrap() - 1.1).abs() < 1e-12);
        let off = QerImpairment {
            policing: Policing::Off,
            over: None,
            gates: Gates::Ignored,
        };
        // Gates are no part of the policing.
        assert_eq!(off.mbr_factor(), None);
    }
}
