//! The profile's `qos_gate` section: a QoS flow's gates closed by a Session Modification in the
//! measured phase (Update QER with Gate Status CLOSED both ways, TS 29.244 §7.5.4.5 and
//! §8.2.7), and the flow's packets the UPF passes after its answer counted (issue 29;
//! docs/traffic-shapes.md).
//!
//! ```yaml
//! qos_gate: {qfi: 5, close_at: 2s}
//! ```

use std::time::Duration;

use serde::Deserialize;
use upfbench_net::Qfi;

use super::{Profile, TxMode};
use crate::identifiers;
use crate::issues::Issues;
use crate::units::serde_text;

/// A QoS flow's gates, closed in every session during the measured phase.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct QosGate {
    /// The QoS flow whose QER's gates close (both directions): one of `sessions.qos_flows`, or
    /// the session's `qfi` when its QER is on. A QER that several flows share closes for all.
    #[serde(with = "identifiers::qfi")]
    pub qfi: Qfi,
    /// When the Session Modifications are sent, from the measured phase's start: after 0 and
    /// before `duration`.
    #[serde(with = "serde_text::duration")]
    pub close_at: Duration,
}

pub(super) fn check(p: &Profile, g: &QosGate, issues: &mut Issues) {
    let s = &p.sessions;
    let known = if s.qos_flows.is_empty() {
        s.qer.enabled && s.qfi == Some(g.qfi)
    } else {
        s.qos_flow(g.qfi).is_some()
    };
    if !known {
        issues.add(
            "qos_gate.qfi",
            format!(
                "QFI {} has no QER to close: name one of sessions.qos_flows (or sessions.qfi with \
                 its qer on)",
                g.qfi.get()
            ),
        );
    }
    if g.close_at.is_zero() || g.close_at >= p.duration {
        issues.add(
            "qos_gate.close_at",
            format!(
                "{:?} is not inside the measured phase: give more than 0s and less than the \
                 duration ({:?})",
                g.close_at, p.duration
            ),
        );
    }
    if !matches!(p.tx_mode, TxMode::Continuous) {
        issues.add(
            "qos_gate",
            "closing a gate needs `tx_mode: continuous`: it happens during the measured phase",
        );
    }
    if p.mobility.is_some() || p.churn.is_some() {
        issues.add(
            "qos_gate",
            "a gate with mobility or churn in one profile is not supported: measure them apart",
        );
    }
}

#[cfg(test)]
mod tests {
    use crate::profile_from_str;

    const FLOWS: &str = "name: g\nsessions:\n  qos_flows:\n\
        \x20   - {qfi: 5, sdf: 'permit out 17 from any 5005 to assigned', mbr: {uplink: 1Mbps}}\n\
        \x20   - {qfi: 9}\n\
        streams: [{name: a, direction: uplink, qfi: 5, rate: 1kpps, payload: 100, dst_port: 5005}]\n\
        duration: 5s\n";

    fn error(extra: &str) -> String {
        profile_from_str(&format!("{FLOWS}{extra}"), "p.yaml")
            .expect_err("refused")
            .to_string()
    }

    #[test]
    fn a_gate_of_a_flow_inside_the_measured_phase() {
        let p = profile_from_str(
            &format!("{FLOWS}qos_gate: {{qfi: 5, close_at: 2s}}\n"),
            "p.yaml",
        )
        .expect("valid");
        let g = p.qos_gate.unwrap();
        assert_eq!((g.qfi.get(), g.close_at.as_secs()), (5, 2));
    }

    #[test]
    fn located_errors() {
        let e = error("qos_gate: {qfi: 7, close_at: 2s}\n");
        assert!(
            e.contains("qos_gate.qfi") && e.contains("QFI 7 has no QER"),
            "{e}"
        );
        let e = error("qos_gate: {qfi: 5, close_at: 5s}\n");
        assert!(
            e.contains("qos_gate.close_at") && e.contains("not inside"),
            "{e}"
        );
        let e = error("qos_gate: {qfi: 5, close_at: 0s}\n");
        assert!(e.contains("qos_gate.close_at"), "{e}");
        let e = error("qos_gate: {qfi: 5, close_at: 1s}\ntx_mode: {single_burst: {packets: 10}}\n");
        assert!(e.contains("tx_mode: continuous"), "{e}");
    }
}
