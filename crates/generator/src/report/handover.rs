//! A step's handovers in its report: the plan's moves, the PFCP thread's outcome of each
//! modification and what the receivers saw of each moving UE's two tunnels, joined per UE.

use upfbench_report::{EndMarkerVerdict, HandoverReport, UeHandover};

use crate::datapath::handover::HandoverRx;
use upfbench_n4::client_side::HandoverOutcome;
use upfbench_run::plan::HandoverPlan;

/// The step's handover section: `rx` merged over the workers, `outcomes` from the PFCP thread
/// (any order).
pub fn handover_report(
    plan: &HandoverPlan,
    rx: &HandoverRx,
    outcomes: &[HandoverOutcome],
) -> HandoverReport {
    let per_ue = if plan.moves.is_empty() {
        0
    } else {
        rx.flows.len() / plan.moves.len()
    };
    let ms = |ns: f64| ns / 1e6;
    let ues = plan
        .moves
        .iter()
        .enumerate()
        .map(|(slot, mv)| {
            let flows = rx
                .flows
                .get(slot * per_ue..(slot + 1) * per_ue)
                .unwrap_or(&[]);
            let old_packets: u64 = flows.iter().map(|f| f.old_count).sum();
            let new_packets: u64 = flows.iter().map(|f| f.new_count).sum();
            let old_last = flows
                .iter()
                .filter(|f| f.old_count > 0)
                .map(|f| f.old_last_ns)
                .max();
            let new_first = flows
                .iter()
                .filter(|f| f.new_count > 0)
                .map(|f| f.new_first_ns)
                .min();
            let interruption_ms = old_last
                .zip(new_first)
                .map(|(o, n)| ms(n as f64 - o as f64));
            let em = rx.end_markers.get(slot).copied().unwrap_or_default();
            let end_marker_after_ms = (em.count > 0)
                .then_some(old_last)
                .flatten()
                .map(|o| ms(em.first_ns as f64 - o as f64));
            let end_marker = match (plan.end_marker, em.count, end_marker_after_ms) {
                (false, 0, _) => EndMarkerVerdict::NotAsked,
                (_, 0, _) => EndMarkerVerdict::Missing,
                (_, _, Some(after)) if after < 0.0 => EndMarkerVerdict::Early,
                _ => EndMarkerVerdict::InOrder,
            };
            let outcome = outcomes.iter().find(|o| o.ue == mv.ue);
            UeHandover {
                ue: mv.ue,
                planned_ms: ms(mv.at_ns as f64),
                sent_ms: outcome.map(|o| o.sent_at.as_secs_f64() * 1e3),
                modification_ms: outcome
                    .filter(|o| o.error.is_none())
                    .map(|o| o.latency.as_secs_f64() * 1e3),
                error: match outcome {
                    None => Some("the modification was not sent".into()),
                    Some(o) => o.error.clone(),
                },
                old_path_packets: old_packets,
                new_path_packets: new_packets,
                interruption_ms,
                lost: flows.iter().map(|f| f.gap()).sum(),
                duplicates: flows.iter().map(|f| f.duplicates).sum(),
                reordered: flows.iter().map(|f| f.reordered.max(f.old_after_new)).sum(),
                end_markers: em.count,
                end_marker,
                end_marker_after_ms,
            }
        })
        .collect();
    HandoverReport::from_ues(ues, plan.end_marker)
}

#[cfg(test)]
mod tests {
    use std::net::Ipv4Addr;
    use std::time::Duration;

    use upfbench_net::Teid;

    use super::*;
    use crate::datapath::handover::Leg;
    use upfbench_config::{Arrivals, Handovers, Mobility, MovingUes, TargetGnb, TeidRange};

    fn plan() -> HandoverPlan {
        HandoverPlan::new(
            &Mobility {
                ues: MovingUes::All,
                handovers: Handovers {
                    at: None,
                    rate: Some(10.0),
                    arrivals: Arrivals::Uniform,
                    start: Duration::from_millis(100),
                },
                target: TargetGnb {
                    address: Ipv4Addr::new(192, 168, 13, 132),
                    downlink_teid: TeidRange {
                        first: Teid(0x2000_0002),
                        step: 2,
                    },
                },
                end_marker: true,
                seed: 0,
            },
            3,
        )
    }

    #[test]
    fn each_ue_joins_its_legs_its_end_marker_and_its_modification() {
        let p = plan();
        // Two downlink streams per UE.
        let mut rx = HandoverRx::new(3, 2);
        // Slot 0: old path to 1.000 ms (stream 0) and 1.010 ms (stream 1), new from 51.010 ms;
        // End Marker at 1.020 ms; seq 0..=9 old, 12.. new on stream 0 (2 lost).
        for s in 0..10u32 {
            rx.record(Leg::Old(0), s, 100_000 * u64::from(s) + 100_000, None);
        }
        rx.record(Leg::Old(1), 0, 1_010_000, None);
        rx.record(Leg::New(0), 12, 51_010_000, None);
        rx.record(Leg::New(1), 1, 51_020_000, None);
        rx.end_marker(0, 1_020_000);
        // Slot 1: End Marker before its last old G-PDU; slot 2: never switched.
        rx.record(Leg::Old(2), 0, 2_000_000, None);
        rx.record(Leg::New(2), 1, 3_000_000, None);
        rx.end_marker(1, 1_500_000);
        rx.record(Leg::Old(4), 0, 5_000_000, None);
        let outcomes: Vec<HandoverOutcome> = p
            .moves
            .iter()
            .map(|m| HandoverOutcome {
                ue: m.ue,
                sent_at: Duration::from_nanos(m.at_ns + 200_000),
                latency: Duration::from_micros(400),
                error: (m.ue == p.moves[2].ue).then(|| "refused".to_owned()),
            })
            .collect();
        let h = handover_report(&p, &rx, &outcomes);
        let u = &h.ues[0];
        assert_eq!(u.ue, p.moves[0].ue);
        assert_eq!((u.planned_ms, u.sent_ms), (100.0, Some(100.2)));
        assert_eq!(u.modification_ms, Some(0.4));
        assert_eq!((u.old_path_packets, u.new_path_packets), (11, 2));
        assert!((u.interruption_ms.unwrap() - 50.0).abs() < 1e-9);
        assert_eq!(u.lost, 2);
        assert_eq!(u.end_marker, EndMarkerVerdict::InOrder);
        assert!((u.end_marker_after_ms.unwrap() - 0.01).abs() < 1e-9);
        assert_eq!(h.ues[1].end_marker, EndMarkerVerdict::Early);
        assert_eq!(h.ues[2].end_marker, EndMarkerVerdict::Missing);
        assert_eq!(h.ues[2].interruption_ms, None);
        assert_eq!(h.ues[2].error.as_deref(), Some("refused"));
        assert_eq!(
            (h.handovers, h.modified, h.failed, h.switched),
            (3, 2, 1, 2)
        );
        assert_eq!(
            (
                h.end_markers_received,
                h.end_markers_in_order,
                h.end_markers_missing
            ),
            (2, 1, 1)
        );
    }
}
