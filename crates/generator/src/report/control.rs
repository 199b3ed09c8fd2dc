//! The report's control-plane section: the batches' wall times and rates, and what the PFCP node
//! counted.

use std::time::Instant;

use upfbench_pfcp::ie::Cause;
use upfbench_pfcp::node::{Figures, LatencySummary, Stats};
use upfbench_report::{ControlReport, Nanos, Percentiles, Release, UpfFault};

/// When the batches ran and how the release ended.
#[derive(Debug, Default, Clone)]
pub struct ControlTimes {
    /// The establishment batch started.
    pub establish_started: Option<Instant>,
    /// It ended (all answered, failed or cancelled).
    pub establish_ended: Option<Instant>,
    /// The deletion batch started.
    pub delete_started: Option<Instant>,
    /// It ended.
    pub delete_ended: Option<Instant>,
    /// How the Association Release ended, if it was sent.
    pub release: Option<Release>,
    /// The UPF's failures seen during the run.
    pub upf_faults: Vec<UpfFault>,
    /// The time spent establishing, when it came in batches with traffic between them (a
    /// capacity climb): the sum of the batches, not the span from the first to the last.
    pub establish_busy: Option<std::time::Duration>,
    /// Sessions established and deleted by the steps' churn (in the node's counts, not in the
    /// batches' rates).
    pub churn: (u64, u64),
}

fn span(from: Option<Instant>, to: Option<Instant>) -> Option<f64> {
    Some(to?.checked_duration_since(from?)?.as_secs_f64())
}

fn per_s(n: u64, secs: Option<f64>) -> Option<f64> {
    secs.filter(|&s| s > 0.0).map(|s| n as f64 / s)
}

/// The PFCP client's summary (µs) as the report's.
fn latency(s: LatencySummary) -> Option<Percentiles> {
    (s.count > 0).then_some(Percentiles {
        samples: s.count,
        min: Nanos::from_us(s.min_us),
        p50: Nanos::from_us(s.p50_us),
        p90: Nanos::from_us(s.p90_us),
        p99: Nanos::from_us(s.p99_us),
        p99_9: None,
        p99_99: None,
        max: Nanos::from_us(s.max_us),
    })
}

/// The report's control-plane section.
pub fn control_report(
    upf: String,
    sessions: u64,
    times: &ControlTimes,
    figures: &Figures,
    stats: &Stats,
) -> ControlReport {
    let establish_s = times
        .establish_busy
        .map(|d| d.as_secs_f64())
        .or_else(|| span(times.establish_started, times.establish_ended));
    // Sessions established again after a UPF restart are counted, but not in the first batch's
    // rate (its time is the first batch's).
    let again: u64 = times
        .upf_faults
        .iter()
        .filter_map(|f| f.reestablished)
        .sum();
    let delete_s = span(times.delete_started, times.delete_ended);
    ControlReport {
        upf,
        sessions,
        established: stats.sessions_established,
        deleted: stats.sessions_deleted,
        establish_s,
        established_per_s: per_s(
            stats
                .sessions_established
                .saturating_sub(again)
                .saturating_sub(times.churn.0),
            establish_s,
        ),
        delete_s,
        deleted_per_s: per_s(
            stats.sessions_deleted.saturating_sub(times.churn.1),
            delete_s,
        ),
        churn_established: times.churn.0,
        churn_deleted: times.churn.1,
        establishment_latency: latency(Figures::summary(&figures.establishment_us)),
        deletion_latency: latency(Figures::summary(&figures.deletion_us)),
        requests_sent: stats.requests_sent,
        retransmissions: stats.retransmissions,
        timeouts: stats.timeouts,
        window_largest: stats.window_largest,
        heartbeats_answered: stats.heartbeats_answered,
        causes: figures
            .causes
            .iter()
            .map(|(&c, &n)| (Cause(c), n))
            .collect(),
        lost_sessions: figures.lost_sessions,
        release: times.release.unwrap_or(Release::NotSent),
        upf_faults: times.upf_faults.clone(),
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;

    #[test]
    fn the_report_takes_rates_from_the_times_and_counts_from_the_node() {
        let t0 = Instant::now();
        let times = ControlTimes {
            establish_started: Some(t0),
            establish_ended: Some(t0 + Duration::from_millis(250)),
            delete_started: None,
            delete_ended: None,
            release: None,
            upf_faults: Vec::new(),
            establish_busy: None,
            // 200 more came and went during the steps: in the count, not in the batch's rate.
            churn: (200, 200),
        };
        let stats = Stats {
            sessions_established: 1_200,
            retransmissions: 3,
            ..Stats::default()
        };
        let r = control_report("upf".into(), 1_000, &times, &Figures::default(), &stats);
        assert_eq!(r.established, 1_200);
        assert_eq!((r.churn_established, r.churn_deleted), (200, 200));
        assert_eq!(r.establish_s, Some(0.25));
        assert_eq!(r.established_per_s, Some(4_000.0));
        assert_eq!(r.delete_s, None);
        assert_eq!(r.deleted_per_s, None);
        assert_eq!(r.establishment_latency, None);
        assert_eq!(r.retransmissions, 3);
        assert_eq!(r.release, Release::NotSent);
    }
}
