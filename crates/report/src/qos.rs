//! QoS flows and what the UPF enforced of their QERs (issue 29): per QoS flow and direction,
//! the rate offered and passed against its MBR (and GBR), how the passed rate held second by
//! second and per 10 ms window, the burst the policer let through, and a verdict.
//!
//! Bit rates are over the UE's IP packets (the QoS flow's PDUs, inner IP header to the end of
//! the payload), not the GTP-U encapsulation or the Ethernet frame: what a UPF's QER meters.

use std::fmt::Write as _;

use serde::{Deserialize, Serialize};
use upfbench_stats::{Conformance, Direction};

/// How far a passed rate may be from what it should be and still count as that (the issue's
/// "within 1 % of its MBR").
pub const DEFAULT_TOLERANCE: f64 = 0.01;

/// The QoS part of a step.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct QosReport {
    /// Every figure of each QoS flow and direction that had traffic.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub qfis: Vec<super::qos_qfi::QfiFigures>,
    /// Each QER with an MBR and direction that had traffic, against its MBR.
    pub flows: Vec<QosFlowReport>,
    /// The tolerance the verdicts used (a ratio: 0.01 is 1 %).
    pub tolerance: f64,
    /// Whether every GBR flow kept its guaranteed rate while a non-GBR flow was policed; `None`
    /// when no GBR flow ran beside a policed non-GBR one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gbr_kept_under_policing: Option<bool>,
    /// A flow's gates closed in the measured phase, when the profile asked (`qos_gate`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gate: Option<super::qos_gate::GateReport>,
}

/// One QoS flow in one direction, over all sessions.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct QosFlowReport {
    /// The QoS Flow Identifier.
    pub qfi: u8,
    /// Its direction.
    pub direction: Direction,
    /// The sessions it ran in (each has its own QER, so the limits below are per session
    /// times this).
    pub sessions: u32,
    /// The MBR over all its sessions (bit/s).
    pub mbr_bps: f64,
    /// The GBR over all its sessions (bit/s), for a GBR flow.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gbr_bps: Option<f64>,
    /// The rate the generator sent (bit/s).
    pub offered_bps: f64,
    /// The rate that came through (bit/s).
    pub passed_bps: f64,
    /// `passed_bps / mbr_bps`.
    pub passed_over_mbr: f64,
    /// The lowest and highest rate of a whole second (bit/s), when the step had one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub per_second_bps: Option<[f64; 2]>,
    /// The highest rate of one 10 ms window (bit/s).
    pub peak_window_bps: f64,
    /// The most the passed bytes exceeded the MBR over any run of windows (bytes): the burst
    /// the policer allowed.
    pub burst_bytes: f64,
    /// The most the flow's senders were late in the measured phase (s), 0 when never: a
    /// policer at the MBR passes up to that much of its rate less, since nothing was offered
    /// while they were (their catch-up after it is policed); the verdict allows for it.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub tester_late_s: f64,
    /// What the figures say.
    pub verdict: QerVerdict,
}

fn is_zero(x: &f64) -> bool {
    *x == 0.0
}

/// What a QoS flow's figures say of the QER the UPF enforced on it.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "kind")]
pub enum QerVerdict {
    /// Offered more than its MBR, it passed the MBR (within the tolerance).
    Policed,
    /// Offered more than its MBR, it passed (nearly) all it was offered.
    NotPoliced,
    /// Offered more than its MBR, it passed nearer what it was offered than its MBR, and lost
    /// `lost` of it (a ratio): a UPF that does not police, and loses as much of every flow
    /// whatever its MBR (Open5GS 2.7.7 at its own limit).
    NotPolicedButLost {
        /// `1 - passed / offered`.
        lost: f64,
    },
    /// Offered more than its MBR, it passed more than the MBR, by `over` (a ratio: 0.1 is
    /// 10 %), but not all it was offered.
    PolicedAbove {
        /// `passed / MBR - 1`.
        over: f64,
    },
    /// Offered more than its MBR, it passed less than the MBR, by `under` (a ratio).
    PolicedBelow {
        /// `1 - passed / MBR`.
        under: f64,
    },
    /// Offered at most its MBR (the control), it passed what it was offered.
    Passed,
    /// Offered at most its MBR, it lost `lost` of it (a ratio) all the same.
    LostUnderMbr {
        /// `1 - passed / offered`.
        lost: f64,
    },
}

impl QerVerdict {
    /// The verdict on `passed` bit/s of `offered` against `mbr`, each within `tolerance`.
    pub fn judge(offered: f64, passed: f64, mbr: f64, tolerance: f64) -> QerVerdict {
        if offered <= mbr * (1.0 + tolerance) {
            let lost = if offered > 0.0 {
                1.0 - passed / offered
            } else {
                0.0
            };
            return if lost <= tolerance {
                QerVerdict::Passed
            } else {
                QerVerdict::LostUnderMbr { lost }
            };
        }
        let ratio = passed / mbr;
        if (ratio - 1.0).abs() <= tolerance {
            QerVerdict::Policed
        } else if passed >= offered * (1.0 - tolerance) {
            QerVerdict::NotPoliced
        } else if passed > (mbr + offered) / 2.0 {
            QerVerdict::NotPolicedButLost {
                lost: 1.0 - passed / offered,
            }
        } else if ratio > 1.0 {
            QerVerdict::PolicedAbove { over: ratio - 1.0 }
        } else {
            QerVerdict::PolicedBelow { under: 1.0 - ratio }
        }
    }

    /// The verdict on a flow whose senders were late by up to `late_s` of the `measured_s`
    /// (a stalled core): nothing was offered meanwhile, and the catch-up after it is policed,
    /// so a policer at the MBR passes up to `late_s / measured_s` of its rate less. A flow
    /// short of its MBR by no more than that and the tolerance was policed at the MBR; the
    /// tester's lateness, not the UPF, took the rest.
    pub fn allowing_late(self, late_s: f64, measured_s: f64, tolerance: f64) -> QerVerdict {
        let QerVerdict::PolicedBelow { under } = self else {
            return self;
        };
        if late_s <= 0.0 || measured_s <= 0.0 {
            return self;
        }
        let late = (late_s / measured_s).min(1.0);
        if 1.0 - under >= (1.0 - tolerance) * (1.0 - late) {
            QerVerdict::Policed
        } else {
            self
        }
    }

    /// Whether the UPF held the flow to its MBR (or passed it whole under it).
    pub fn conforms(self) -> bool {
        matches!(self, QerVerdict::Policed | QerVerdict::Passed)
    }
}

/// What a flow is and what it was offered, for [`QosFlowReport::new`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct QosFlowSpec {
    /// The QoS Flow Identifier.
    pub qfi: u8,
    /// Its direction.
    pub direction: Direction,
    /// Sessions it ran in.
    pub sessions: u32,
    /// MBR over all its sessions (bit/s).
    pub mbr_bps: f64,
    /// GBR over all its sessions (bit/s), for a GBR flow.
    pub gbr_bps: Option<f64>,
    /// The rate sent (bit/s).
    pub offered_bps: f64,
    /// The measured phase's length (s).
    pub measured_s: f64,
    /// The most its senders were late in it (s): see [`QosFlowReport::tester_late_s`].
    pub tester_late_s: f64,
}

impl QosFlowReport {
    /// The report of `spec` from its passed bytes' `conformance` against its MBR.
    pub fn new(spec: QosFlowSpec, conformance: &Conformance, tolerance: f64) -> QosFlowReport {
        let seconds = &conformance.per_second_bps;
        let per_second_bps = (!seconds.is_empty()).then(|| {
            let lo = seconds.iter().copied().fold(f64::INFINITY, f64::min);
            let hi = seconds.iter().copied().fold(0.0, f64::max);
            [lo, hi]
        });
        QosFlowReport {
            qfi: spec.qfi,
            direction: spec.direction,
            sessions: spec.sessions,
            mbr_bps: spec.mbr_bps,
            gbr_bps: spec.gbr_bps,
            offered_bps: spec.offered_bps,
            passed_bps: conformance.passed_bps,
            passed_over_mbr: conformance.passed_bps / spec.mbr_bps,
            per_second_bps,
            peak_window_bps: conformance.peak_window_bps,
            burst_bytes: conformance.burst_bytes,
            tester_late_s: spec.tester_late_s,
            verdict: QerVerdict::judge(
                spec.offered_bps,
                conformance.passed_bps,
                spec.mbr_bps,
                tolerance,
            )
            .allowing_late(spec.tester_late_s, spec.measured_s, tolerance),
        }
    }

    /// Whether a GBR flow got its guaranteed rate (or all it was offered, when that was less)
    /// over a measured phase of `measured_s`, less what the tester's lateness took.
    pub fn gbr_kept(&self, tolerance: f64, measured_s: f64) -> Option<bool> {
        let gbr = self.gbr_bps?;
        let late = if measured_s > 0.0 {
            (self.tester_late_s / measured_s).min(1.0)
        } else {
            0.0
        };
        Some(self.passed_bps >= gbr.min(self.offered_bps) * (1.0 - tolerance) * (1.0 - late))
    }
}

impl QosReport {
    /// The report of `flows` over a measured phase of `measured_s`, with the GBR check across
    /// them.
    pub fn new(flows: Vec<QosFlowReport>, tolerance: f64, measured_s: f64) -> QosReport {
        // A non-GBR flow the UPF held back: one it passed whole (under its MBR, or not
        // policed) puts the GBR flows under no pressure.
        let policed_non_gbr = flows.iter().any(|f| {
            f.gbr_bps.is_none()
                && matches!(
                    f.verdict,
                    QerVerdict::Policed
                        | QerVerdict::PolicedAbove { .. }
                        | QerVerdict::PolicedBelow { .. }
                )
        });
        let gbr: Vec<bool> = flows
            .iter()
            .filter_map(|f| f.gbr_kept(tolerance, measured_s))
            .collect();
        let gbr_kept_under_policing =
            (policed_non_gbr && !gbr.is_empty()).then(|| gbr.iter().all(|&k| k));
        QosReport {
            qfis: Vec::new(),
            flows,
            tolerance,
            gbr_kept_under_policing,
            gate: None,
        }
    }
}

impl QerVerdict {
    /// The verdict in a few words, for tables.
    pub fn text(self) -> String {
        match self {
            QerVerdict::Policed => "policed at MBR".to_owned(),
            QerVerdict::NotPoliced => "NOT policed".to_owned(),
            QerVerdict::NotPolicedButLost { lost } => {
                format!("NOT policed, lost {:.1} % all the same", lost * 100.0)
            }
            QerVerdict::PolicedAbove { over } => format!("policed {:.1} % above MBR", over * 100.0),
            QerVerdict::PolicedBelow { under } => {
                format!("policed {:.1} % below MBR", under * 100.0)
            }
            QerVerdict::Passed => "passed (under MBR)".to_owned(),
            QerVerdict::LostUnderMbr { lost } => {
                format!("lost {:.2} % under MBR", lost * 100.0)
            }
        }
    }
}

fn mbps(bps: f64) -> String {
    format!("{:.3}", bps / 1e6)
}

/// The text report's lines of one step's QoS flows.
pub(crate) fn qos_section(out: &mut String, number: usize, label: &str, q: &QosReport) {
    if !q.qfis.is_empty() {
        let _ = writeln!(
            out,
            "Step {number} ({label}): QoS flows, every figure; latency one-way\n"
        );
        super::qos_qfi::qfi_table(out, &q.qfis);
        out.push('\n');
    }
    if q.flows.is_empty() {
        return;
    }
    let _ = writeln!(
        out,
        "Step {number} ({label}): QER conformance, rates in Mbit/s over the UE packets, verdicts \
         within {:.1} %\n",
        q.tolerance * 100.0
    );
    let _ = writeln!(
        out,
        "  {:>4} {:<4} {:>8} {:>9} {:>9} {:>9} {:>8} {:>9} {:>9} {:>10} {:>9}  verdict",
        "qfi",
        "dir",
        "sessions",
        "GBR",
        "MBR",
        "offered",
        "passed",
        "/MBR %",
        "1 s min",
        "10 ms peak",
        "burst B"
    );
    for f in &q.flows {
        let _ = writeln!(
            out,
            "  {:>4} {:<4} {:>8} {:>9} {:>9} {:>9} {:>8} {:>9.2} {:>9} {:>10} {:>9.0}  {}",
            f.qfi,
            f.direction.short(),
            f.sessions,
            f.gbr_bps.map_or_else(|| "-".to_owned(), mbps),
            mbps(f.mbr_bps),
            mbps(f.offered_bps),
            mbps(f.passed_bps),
            f.passed_over_mbr * 100.0,
            f.per_second_bps
                .map_or_else(|| "-".to_owned(), |[lo, _]| mbps(lo)),
            mbps(f.peak_window_bps),
            f.burst_bytes,
            f.verdict.text()
        );
    }
    match q.gbr_kept_under_policing {
        Some(true) => {
            out.push_str("  GBR flows kept their rate while non-GBR flows were policed\n")
        }
        Some(false) => {
            out.push_str("  a GBR flow did NOT keep its rate while non-GBR flows were policed\n")
        }
        None => {}
    }
    for f in q.flows.iter().filter(|f| f.tester_late_s > 0.0) {
        let _ = writeln!(
            out,
            "  QFI {} {}: the tester's senders were late by up to {:.1} ms; a policer at the MBR \
             passes up to that much less, and the verdict allows for it",
            f.qfi,
            f.direction.short(),
            f.tester_late_s * 1e3
        );
    }
    if let Some(g) = &q.gate {
        super::qos_gate::gate_line(out, g);
    }
    out.push('\n');
}

#[cfg(test)]
mod tests {
    use super::*;

    const T: f64 = DEFAULT_TOLERANCE;

    #[test]
    fn verdicts_at_and_around_the_mbr() {
        // 150 % offered.
        assert_eq!(
            QerVerdict::judge(15e6, 10.05e6, 10e6, T),
            QerVerdict::Policed
        );
        assert_eq!(
            QerVerdict::judge(15e6, 9.95e6, 10e6, T),
            QerVerdict::Policed
        );
        assert_eq!(
            QerVerdict::judge(15e6, 14.9e6, 10e6, T),
            QerVerdict::NotPoliced
        );
        // Nearer the offered rate than the MBR: not policed, lost for another reason.
        match QerVerdict::judge(15e6, 14.5e6, 10e6, T) {
            QerVerdict::NotPolicedButLost { lost } => assert!((lost - 1.0 / 30.0).abs() < 1e-9),
            v => panic!("{v:?}"),
        }
        match QerVerdict::judge(15e6, 11e6, 10e6, T) {
            QerVerdict::PolicedAbove { over } => assert!((over - 0.1).abs() < 1e-9),
            v => panic!("{v:?}"),
        }
        match QerVerdict::judge(15e6, 8e6, 10e6, T) {
            QerVerdict::PolicedBelow { under } => assert!((under - 0.2).abs() < 1e-9),
            v => panic!("{v:?}"),
        }
        // 80 %: the control.
        assert_eq!(QerVerdict::judge(8e6, 7.95e6, 10e6, T), QerVerdict::Passed);
        match QerVerdict::judge(8e6, 6e6, 10e6, T) {
            QerVerdict::LostUnderMbr { lost } => assert!((lost - 0.25).abs() < 1e-9),
            v => panic!("{v:?}"),
        }
        assert!(QerVerdict::Policed.conforms() && QerVerdict::Passed.conforms());
        assert!(!QerVerdict::NotPoliced.conforms());
    }

    fn flow(qfi: u8, gbr: Option<f64>, offered: f64, passed_per_window: u64) -> QosFlowReport {
        let windows = vec![passed_per_window; 200];
        let c = Conformance::of(&windows, 10_000_000, 0..200, 10e6).unwrap();
        let spec = QosFlowSpec {
            qfi,
            direction: Direction::Uplink,
            sessions: 1,
            mbr_bps: 10e6,
            gbr_bps: gbr,
            offered_bps: offered,
            measured_s: 2.0,
            tester_late_s: 0.0,
        };
        QosFlowReport::new(spec, &c, T)
    }

    #[test]
    fn a_shortfall_the_tester_s_lateness_explains_is_policed() {
        let below = QerVerdict::judge(15e6, 9.85e6, 10e6, T);
        assert!(
            matches!(below, QerVerdict::PolicedBelow { .. }),
            "{below:?}"
        );
        // 40 ms late in 2 s: a policer at the MBR passes 2 % less, 1 % more with the tolerance.
        assert_eq!(below.allowing_late(0.040, 2.0, T), QerVerdict::Policed);
        // 5 ms late explains 0.25 %: not the 1.5 % missing.
        assert_eq!(below.allowing_late(0.005, 2.0, T), below);
        assert_eq!(below.allowing_late(0.0, 2.0, T), below);
        // A policer at 80 % is not explained by 40 ms.
        let low = QerVerdict::judge(15e6, 8e6, 10e6, T);
        assert_eq!(low.allowing_late(0.040, 2.0, T), low);
        // Lateness never turns anything else into a pass.
        let over = QerVerdict::judge(15e6, 11e6, 10e6, T);
        assert_eq!(over.allowing_late(1.0, 2.0, T), over);
    }

    #[test]
    fn a_late_tester_is_in_the_flow_s_report_and_text() {
        // 12,315 bytes per 10 ms: 98.5 % of 10 Mbit/s, and the senders 40 ms late.
        let windows = vec![12_315u64; 200];
        let c = Conformance::of(&windows, 10_000_000, 0..200, 10e6).unwrap();
        let spec = QosFlowSpec {
            qfi: 1,
            direction: Direction::Uplink,
            sessions: 1,
            mbr_bps: 10e6,
            gbr_bps: None,
            offered_bps: 15e6,
            measured_s: 2.0,
            tester_late_s: 0.040,
        };
        let f = QosFlowReport::new(spec, &c, T);
        assert_eq!(f.verdict, QerVerdict::Policed);
        let json = serde_json::to_value(&f).unwrap();
        assert_eq!(json["tester_late_s"], 0.040);
        let mut out = String::new();
        qos_section(&mut out, 1, "a", &QosReport::new(vec![f.clone()], T, 2.0));
        assert!(
            out.contains("QFI 1 UL: the tester's senders were late by up to 40.0 ms"),
            "{out}"
        );
        // A GBR flow as short: kept, since the tester's lateness explains it.
        let mut gbr = f.clone();
        gbr.gbr_bps = Some(10e6);
        let starved = QosReport::new(vec![flow(5, None, 15e6, 12_500), gbr.clone()], T, 2.0);
        assert_eq!(starved.gbr_kept_under_policing, Some(true));
        gbr.tester_late_s = 0.0;
        let starved = QosReport::new(vec![flow(5, None, 15e6, 12_500), gbr], T, 2.0);
        assert_eq!(starved.gbr_kept_under_policing, Some(false));
        // Never late: no such field.
        let on_time = flow(1, None, 15e6, 12_500);
        let json = serde_json::to_value(&on_time).unwrap();
        assert!(json.get("tester_late_s").is_none(), "{json}");
    }

    #[test]
    fn a_flow_report_from_its_windows() {
        // 12,500 bytes per 10 ms: 10 Mbit/s.
        let f = flow(5, None, 15e6, 12_500);
        assert!((f.passed_bps - 10e6).abs() < 1e-3);
        assert!((f.passed_over_mbr - 1.0).abs() < 1e-9);
        assert_eq!(f.per_second_bps, Some([10e6, 10e6]));
        assert_eq!(f.burst_bytes, 0.0);
        assert_eq!(f.verdict, QerVerdict::Policed);
        let json = serde_json::to_value(&f).unwrap();
        assert_eq!(json["verdict"]["kind"], "policed");
    }

    #[test]
    fn gbr_kept_while_others_are_policed_or_not() {
        let policed = flow(5, None, 15e6, 12_500);
        let gbr_ok = flow(1, Some(10e6), 15e6, 12_500);
        let gbr_starved = flow(1, Some(10e6), 15e6, 6_250);
        let r = QosReport::new(vec![policed.clone(), gbr_ok], T, 2.0);
        assert_eq!(r.gbr_kept_under_policing, Some(true));
        let r = QosReport::new(vec![policed.clone(), gbr_starved], T, 2.0);
        assert_eq!(r.gbr_kept_under_policing, Some(false));
        // No GBR flow: nothing to say.
        assert_eq!(
            QosReport::new(vec![policed], T, 2.0).gbr_kept_under_policing,
            None
        );
        // Beside a non-GBR flow the UPF did not police: nothing to say.
        let unpoliced = flow(5, None, 15e6, 18_750);
        assert_eq!(unpoliced.verdict, QerVerdict::NotPoliced);
        let r = QosReport::new(vec![unpoliced, flow(1, Some(10e6), 15e6, 12_500)], T, 2.0);
        assert_eq!(r.gbr_kept_under_policing, None);
        // A GBR flow beside a control flow only: nothing was policed.
        let control = flow(5, None, 8e6, 10_000);
        let r = QosReport::new(vec![control, flow(1, Some(10e6), 8e6, 10_000)], T, 2.0);
        assert_eq!(r.gbr_kept_under_policing, None);
    }

    #[test]
    fn the_text_section() {
        let r = QosReport::new(
            vec![
                flow(5, None, 15e6, 12_500),
                flow(1, Some(10e6), 15e6, 6_250),
            ],
            T,
            2.0,
        );
        let mut out = String::new();
        qos_section(&mut out, 1, "300 B", &r);
        assert!(out.contains("Step 1 (300 B): QER conformance"), "{out}");
        assert!(out.contains("policed at MBR"), "{out}");
        assert!(out.contains("policed 50.0 % below MBR"), "{out}");
        assert!(out.contains("a GBR flow did NOT keep its rate"), "{out}");
    }
}
