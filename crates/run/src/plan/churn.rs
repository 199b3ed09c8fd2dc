//! The session churn of a step, planned before it starts (sans-IO): when each churn session is
//! asked for and deleted, which of the traffic's sessions are modified when, and the probe
//! stream that finds each churn session's first forwarded packet. Times are from the start of
//! the measured phase; the PFCP thread sends each request at its time, the workers send each
//! churn session's probes from its request to its deletion on their own clock.
//!
//! Churn session `k` is UE `first_ue + k`: its address, TEIDs and CP SEID follow the traffic's.

use std::ops::Range;

use upfbench_stats::Direction;

use super::stream::{Schedule, Spread, StreamPlan};
use upfbench_config::Churn;

/// UDP ports of the probes (inner source and destination).
pub(crate) const PROBE_PORTS: (u16, u16) = (5998, 5999);

/// The churn of one step.
#[derive(Debug, Clone, PartialEq)]
pub struct ChurnPlan {
    /// The first churn session's UE (the traffic's UE count).
    pub first_ue: u32,
    /// Churn sessions in all.
    pub count: u32,
    /// Sessions established per second.
    pub rate: f64,
    /// When session `k` is asked for: `start_ns + k × gap_ns` (ns from the measured start).
    pub start_ns: u64,
    /// The gap between two establishments (ns).
    pub gap_ns: u64,
    /// A session's life, from its establishment's request to its deletion's (ns).
    pub lifetime_ns: u64,
    /// The modifications: which traffic UE, when (ns), in time order.
    pub modifications: Vec<(u32, u64)>,
    /// Modifications per second.
    pub modify_rate: f64,
    /// Between two probes of a session (ns).
    pub probe_interval_ns: u64,
    /// The probe stream: downlink, one flow per churn session, never in the step's streams.
    pub probe: StreamPlan,
}

impl ChurnPlan {
    /// The churn `c` asks of a measured phase of `duration_ns` over `traffic_ues` UEs whose
    /// streams have ids below `stream_id` and flows below `flow_base`; probes carry
    /// `payload_len` bytes.
    pub fn new(
        c: &Churn,
        duration: std::time::Duration,
        traffic_ues: u32,
        stream_id: u16,
        flow_base: u32,
        payload_len: u16,
    ) -> ChurnPlan {
        let count = c.sessions(duration);
        let start_ns = c.start.as_nanos() as u64;
        let gap = |rate: f64| {
            if rate > 0.0 {
                (1e9 / rate).round() as u64
            } else {
                0
            }
        };
        let modify_gap = gap(c.modify_rate);
        let modifications = (0..c.modifications(duration))
            .map(|i| (i % traffic_ues.max(1), start_ns + u64::from(i) * modify_gap))
            .collect();
        ChurnPlan {
            first_ue: traffic_ues,
            count,
            rate: c.rate,
            start_ns,
            gap_ns: gap(c.rate),
            lifetime_ns: c.lifetime.as_nanos() as u64,
            modifications,
            modify_rate: c.modify_rate,
            probe_interval_ns: c.probe_interval.as_nanos() as u64,
            probe: StreamPlan {
                id: stream_id,
                name: "churn probes".into(),
                direction: Direction::Downlink,
                payload_len,
                pdu_session_container: false,
                source_port: PROBE_PORTS.0,
                destination_port: PROBE_PORTS.1,
                ues: traffic_ues..traffic_ues + count,
                flow_base,
                rate_pps: 0.0,
                schedule: Schedule::Continuous { packets: 0 },
                spread: Spread::RoundRobin,
                shape: upfbench_config::frame::FrameShape::default(),
                qfi: None,
                qer: None,
            },
        }
    }

    /// When churn session `k` is asked for (ns from the measured start).
    pub fn establish_at(&self, k: u32) -> u64 {
        self.start_ns + u64::from(k) * self.gap_ns
    }

    /// When it is deleted.
    pub fn delete_at(&self, k: u32) -> u64 {
        self.establish_at(k) + self.lifetime_ns
    }

    /// The churn sessions' UEs.
    pub fn ues(&self) -> Range<u32> {
        self.first_ue..self.first_ue + self.count
    }

    /// Probes a session is sent: one every interval from its request to its deletion.
    pub fn probes_per_session(&self) -> u64 {
        self.lifetime_ns.div_ceil(self.probe_interval_ns.max(1))
    }
}

/// A step's churn, and whether it runs (the baseline step has the plan but no churn).
#[derive(Debug, Clone, PartialEq)]
pub struct ChurnStep {
    /// The plan.
    pub plan: std::sync::Arc<ChurnPlan>,
    /// Whether the churn runs in this step (false: the same step without it, for comparison).
    pub on: bool,
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;

    #[test]
    fn requests_deletions_and_modifications_fall_in_the_phase() {
        let c = Churn {
            rate: 100.0,
            lifetime: Duration::from_millis(500),
            modify_rate: 40.0,
            probe_interval: Duration::from_millis(1),
            start: Duration::from_millis(200),
            baseline: true,
        };
        let d = Duration::from_secs(3);
        let p = ChurnPlan::new(&c, d, 10, 2, 20, 18);
        assert_eq!(p.count, 230);
        assert_eq!(p.ues(), 10..240);
        assert_eq!(
            (p.establish_at(0), p.delete_at(0)),
            (200_000_000, 700_000_000)
        );
        let last = p.count - 1;
        assert_eq!(p.establish_at(last), 200_000_000 + 229 * 10_000_000);
        assert!(p.delete_at(last) < 3_000_000_000);
        assert_eq!(p.modifications.len(), 112);
        // Round the traffic's UEs, 25 ms apart.
        assert_eq!(p.modifications[0], (0, 200_000_000));
        assert_eq!(p.modifications[11], (1, 200_000_000 + 11 * 25_000_000));
        assert!(p.modifications.last().unwrap().1 < 3_000_000_000);
        assert_eq!(p.probes_per_session(), 500);
        assert_eq!(
            (p.probe.id, p.probe.flow_base, p.probe.ues.clone()),
            (2, 20, 10..240)
        );
    }
}
