//! A step's gate (`qos_gate`): the modifications that closed a QoS flow's gates, and the flow's
//! packets that passed, told apart by their sending time against the last answer.

use upfbench_report::GateReport;
use upfbench_run::plan::GatePlan;

use crate::datapath::qos_rx::{GATE_WINDOW_NS, QosRx};
use upfbench_n4::client_side::HandoverOutcome;

/// The gate report of `gate`, closed in `sessions` sessions, from the modifications'
/// `outcomes` (times from the measured phase's start) and the workers' windows `qos`.
pub fn gate_report(
    gate: &GatePlan,
    sessions: u32,
    outcomes: &[HandoverOutcome],
    qos: &QosRx,
) -> GateReport {
    let answered: Vec<&HandoverOutcome> = outcomes.iter().filter(|o| o.error.is_none()).collect();
    let last_answer_ns = answered
        .iter()
        .map(|o| (o.sent_at + o.latency).as_nanos() as u64)
        .max()
        .unwrap_or(u64::MAX);
    let slowest_ms = answered
        .iter()
        .map(|o| o.latency.as_secs_f64() * 1e3)
        .fold(0.0, f64::max);
    // Windows wholly before the last answer, and wholly after it: the one it falls in is
    // neither.
    let before = (last_answer_ns / GATE_WINDOW_NS) as usize;
    let after = last_answer_ns.div_ceil(GATE_WINDOW_NS) as usize;
    let (mut passed_before, mut passed_after) = (0, 0);
    if let Some(tx) = &qos.gate_tx {
        for (g, group) in qos.layout.qfis.iter().enumerate() {
            if !group.gated {
                continue;
            }
            let windows = tx.group(g as u32);
            passed_before += windows.iter().take(before).sum::<u64>();
            passed_after += windows.iter().skip(after).sum::<u64>();
        }
    }
    GateReport {
        qfi: gate.qfi.get(),
        close_at_s: gate.close_at.as_secs_f64(),
        answered: answered.len() as u32,
        refused: sessions.saturating_sub(answered.len() as u32),
        first_error: outcomes.iter().find_map(|o| o.error.clone()),
        last_answer_s: if answered.is_empty() {
            0.0
        } else {
            last_answer_ns as f64 / 1e9
        },
        slowest_ms,
        passed_before,
        passed_after,
        resolution_ms: GATE_WINDOW_NS as f64 / 1e6,
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;
    use std::time::Duration;

    use upfbench_net::Qfi;

    use super::*;
    use crate::datapath::qos_rx::QosLayout;

    const PROFILE: &str = "name: p\nsessions:\n  count: 2\n  qos_flows:\n\
        \x20   - {qfi: 5, sdf: 'permit out 17 from any 5005 to assigned', mbr: {uplink: 1Mbps, downlink: 1Mbps}}\n\
        \x20   - {qfi: 9, mbr: {uplink: 1Mbps}}\n\
        streams:\n\
        \x20 - {name: a, direction: both, qfi: 5, rate: 1kpps, payload: 100, src_port: 5005, dst_port: 5005}\n\
        \x20 - {name: b, direction: uplink, qfi: 9, rate: 1kpps, payload: 100}\n\
        qos_gate: {qfi: 5, close_at: 2s}\n\
        duration: 5s\n";

    fn qos() -> (GatePlan, QosRx, upfbench_run::plan::Plan) {
        let system = upfbench_config::system_from_str(
            "n3: {device: net_null0, address: 192.168.13.131/24, peer: 192.168.13.151}\n\
             n6: {device: net_null1, address: 192.168.16.152/24, peer: 192.168.16.151}\n\
             pfcp: {local: 127.0.0.1, peer: 127.0.0.2}\n",
            "s.yaml",
        )
        .unwrap();
        let profile = upfbench_config::profile_from_str(PROFILE, "p.yaml").unwrap();
        let plan = upfbench_run::plan::build(&system, &profile, None, [None, None]).unwrap();
        let gate = plan.qos_gate.clone().unwrap();
        let layout = Arc::new(QosLayout::of(&plan).unwrap());
        let mut rx = QosRx::new(layout, 5_000_000_000, &Default::default()).unwrap();
        rx.start(0);
        (gate, rx, plan)
    }

    fn answered(ue: u32, sent_ms: u64, latency_us: u64) -> HandoverOutcome {
        HandoverOutcome {
            ue,
            sent_at: Duration::from_millis(sent_ms),
            latency: Duration::from_micros(latency_us),
            error: None,
        }
    }

    #[test]
    fn packets_sent_after_the_last_answer_are_the_gates_leak() {
        let (gate, mut rx, plan) = qos();
        assert_eq!(gate.qfi, Qfi::new(5).unwrap());
        let gated = plan.stream(1).flows().start; // a/downlink, UE 0
        let other = plan.stream(2).flows().start; // b: QFI 9, not gated
        // The last answer at 2.0015 s: the window 2.001-2.002 s is neither before nor after.
        let outcomes = [answered(0, 2_000, 800), answered(1, 2_000, 1_500)];
        for tx_ns in [
            1_999_000_000,
            2_000_999_999,
            2_001_200_000,
            2_002_000_000,
            3_000_000_000,
        ] {
            rx.record(gated, tx_ns + 50_000, 50_000);
            rx.record(other, tx_ns + 50_000, 50_000);
        }
        let g = gate_report(&gate, 2, &outcomes, &rx);
        assert_eq!((g.answered, g.refused), (2, 0));
        assert!((g.last_answer_s - 2.0015).abs() < 1e-9, "{g:?}");
        assert!((g.slowest_ms - 1.5).abs() < 1e-9);
        assert_eq!((g.passed_before, g.passed_after), (2, 2));
        assert!(!g.closed());
    }

    #[test]
    fn a_gate_that_held_and_one_never_answered() {
        let (gate, mut rx, plan) = qos();
        let gated = plan.stream(0).flows().start; // a/uplink
        rx.record(gated, 1_000_000_000, 0);
        let g = gate_report(
            &gate,
            2,
            &[answered(0, 2_000, 300), answered(1, 2_000, 400)],
            &rx,
        );
        assert!(g.closed(), "{g:?}");
        assert_eq!(g.passed_before, 1);
        let refused = HandoverOutcome {
            error: Some("Request rejected (64)".into()),
            ..answered(1, 2_000, 400)
        };
        let g = gate_report(&gate, 2, &[answered(0, 2_000, 300), refused], &rx);
        assert_eq!((g.answered, g.refused), (1, 1));
        assert_eq!(g.first_error.as_deref(), Some("Request rejected (64)"));
        assert!(!g.closed());
    }
}
