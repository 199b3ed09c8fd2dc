//! `-m/--multiplier`: what the command line asked of the profile's rates, and the rates it came
//! to at each step.

use std::fmt::Write as _;

use serde::{Deserialize, Serialize};

/// The multiplier a run was given, as given, and what it made of each step's rates.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MultiplierReport {
    /// As given on the command line (`50%`, `2x`, `3Mpps`, `10Gbps`).
    pub given: String,
    /// A row per step (a capacity climb's batches share one: their streams are the same).
    pub steps: Vec<MultipliedStep>,
}

/// The rates a step was planned at under the multiplier: the profile's streams, every
/// direction of each, added up.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MultipliedStep {
    /// The step (`run`, `300 B`, `every batch`).
    pub step: String,
    /// What every stream's rate was multiplied by.
    pub factor: f64,
    /// Packets per second in all.
    pub pps: f64,
    /// Gbit/s at layer 1 in all (frames with FCS, padded, + 20 B each).
    pub gbps_l1: f64,
    /// Gbit/s at layer 2 in all (frames with FCS, padded).
    pub gbps_l2: f64,
}

impl MultiplierReport {
    /// One line: `-m 3Mpps: 10 B x15 (3000.0 Kpps, 2.016 Gbps L1); 1400 B x0.0333 (...)`.
    pub fn summary(&self) -> String {
        let steps: Vec<String> = self
            .steps
            .iter()
            .map(|s| {
                format!(
                    "{} x{} ({:.1} Kpps, {:.3} Gbps L1)",
                    s.step,
                    factor(s.factor),
                    s.pps / 1e3,
                    s.gbps_l1
                )
            })
            .collect();
        format!("-m {}: {}", self.given, steps.join("; "))
    }
}

/// The report's lines for the multiplier: what was asked, and each step's factor and totals.
pub(super) fn multiplier_section(out: &mut String, m: &MultiplierReport) {
    let _ = writeln!(
        out,
        "Rates multiplied by -m {}: each step's streams in all, every direction",
        m.given
    );
    for s in &m.steps {
        let _ = writeln!(
            out,
            "  {}: x{}, {:.1} Kpps, {:.3} Gbps L1, {:.3} Gbps L2",
            s.step,
            factor(s.factor),
            s.pps / 1e3,
            s.gbps_l1,
            s.gbps_l2
        );
    }
    out.push('\n');
}

/// `2.5`, `0.0333`, `5000`: a factor in a few digits.
fn factor(f: f64) -> String {
    let digits = if f >= 100.0 { 1 } else { 4 };
    let t = format!("{f:.digits$}");
    if t.contains('.') {
        t.trim_end_matches('0').trim_end_matches('.').to_owned()
    } else {
        t
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_step_shows_its_factor_and_totals() {
        let m = MultiplierReport {
            given: "3Mpps".into(),
            steps: vec![
                MultipliedStep {
                    step: "10 B".into(),
                    factor: 15.0,
                    pps: 3e6,
                    gbps_l1: 2.016,
                    gbps_l2: 1.536,
                },
                MultipliedStep {
                    step: "1400 B".into(),
                    factor: 1.0 / 30.0,
                    pps: 3e6,
                    gbps_l1: 36.24,
                    gbps_l2: 35.76,
                },
            ],
        };
        let mut out = String::new();
        multiplier_section(&mut out, &m);
        assert_eq!(
            out,
            "Rates multiplied by -m 3Mpps: each step's streams in all, every direction\n  \
             10 B: x15, 3000.0 Kpps, 2.016 Gbps L1, 1.536 Gbps L2\n  \
             1400 B: x0.0333, 3000.0 Kpps, 36.240 Gbps L1, 35.760 Gbps L2\n\n"
        );
        assert_eq!(
            m.summary(),
            "-m 3Mpps: 10 B x15 (3000.0 Kpps, 2.016 Gbps L1); 1400 B x0.0333 (3000.0 Kpps, \
             36.240 Gbps L1)"
        );
        let json = serde_json::to_string(&m).unwrap();
        assert_eq!(serde_json::from_str::<MultiplierReport>(&json).unwrap(), m);
    }

    #[test]
    fn the_text_report_names_the_label_and_the_multiplier() {
        let mut r = super::super::Report::new("0.1.0", 0);
        assert!(!r.to_table().contains("label: "));
        assert!(
            !r.to_json().contains("multiplier"),
            "left out when not given"
        );
        r.config.insert("label".into(), "eupf 0.6 xdp".into());
        r.multiplier = Some(MultiplierReport {
            given: "50%".into(),
            steps: vec![MultipliedStep {
                step: "run".into(),
                factor: 0.5,
                pps: 50e3,
                gbps_l1: 0.05,
                gbps_l2: 0.04,
            }],
        });
        let t = r.to_table();
        assert_eq!(t.lines().nth(1), Some("label: eupf 0.6 xdp"), "{t}");
        assert!(
            t.contains("\n  run: x0.5, 50.0 Kpps, 0.050 Gbps L1, 0.040 Gbps L2\n"),
            "{t}"
        );
        let back = super::super::Report::from_json(&r.to_json()).unwrap();
        assert_eq!(back, r);
    }
}
