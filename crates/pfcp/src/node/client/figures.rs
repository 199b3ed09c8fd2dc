//! What the client counts of its dealings with the UPF, for the report: every response's Cause,
//! how long session procedures took, and sessions the UPF lost behind our back.

use std::collections::BTreeMap;
use std::time::Duration;

use hdrhistogram::Histogram;

use crate::ie::Cause;

/// Latencies are kept in microseconds, from 1 µs to an hour, to 3 significant digits.
const HIGHEST_US: u64 = 3_600_000_000;

/// Percentiles of one procedure's latency (request first sent to response), in microseconds.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct LatencySummary {
    /// Procedures measured.
    pub count: u64,
    /// Fastest.
    pub min_us: u64,
    /// Median.
    pub p50_us: u64,
    /// 90th percentile.
    pub p90_us: u64,
    /// 99th percentile.
    pub p99_us: u64,
    /// Slowest.
    pub max_us: u64,
}

/// The client's control-plane figures.
#[derive(Debug, Clone)]
pub struct Figures {
    /// Responses to our session requests by Cause value.
    pub causes: BTreeMap<u8, u64>,
    /// Session establishment latencies (µs).
    pub establishment_us: Histogram<u64>,
    /// Session deletion latencies (µs).
    pub deletion_us: Histogram<u64>,
    /// Sessions the UPF no longer knew when we asked (Cause 65 to a modification or deletion):
    /// deleted behind our back, for instance by Open5GS's "PFCP restoration".
    pub lost_sessions: u64,
}

impl Default for Figures {
    fn default() -> Self {
        let h = Histogram::new_with_bounds(1, HIGHEST_US, 3).expect("valid histogram bounds");
        Figures {
            causes: BTreeMap::new(),
            establishment_us: h.clone(),
            deletion_us: h,
            lost_sessions: 0,
        }
    }
}

impl Figures {
    pub(crate) fn cause(&mut self, cause: Cause) {
        *self.causes.entry(cause.0).or_default() += 1;
    }

    pub(crate) fn record(h: &mut Histogram<u64>, took: Duration) {
        let us = (took.as_micros() as u64).clamp(1, HIGHEST_US);
        let _ = h.record(us);
    }

    /// Percentiles of `h`.
    pub fn summary(h: &Histogram<u64>) -> LatencySummary {
        if h.is_empty() {
            return LatencySummary::default();
        }
        LatencySummary {
            count: h.len(),
            min_us: h.min(),
            p50_us: h.value_at_quantile(0.50),
            p90_us: h.value_at_quantile(0.90),
            p99_us: h.value_at_quantile(0.99),
            max_us: h.max(),
        }
    }

    /// The Causes counted, with their names: (value, name, count).
    pub fn named_causes(&self) -> Vec<(u8, String, u64)> {
        self.causes
            .iter()
            .map(|(&c, &n)| (c, Cause(c).to_string(), n))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn causes_and_latencies_are_summarised() {
        let mut f = Figures::default();
        f.cause(Cause::REQUEST_ACCEPTED);
        f.cause(Cause::REQUEST_ACCEPTED);
        f.cause(Cause::SESSION_CONTEXT_NOT_FOUND);
        assert_eq!(
            f.named_causes(),
            [
                (1, "Request accepted (1)".to_owned(), 2),
                (65, "Session context not found (65)".to_owned(), 1)
            ]
        );
        for ms in 1..=100 {
            Figures::record(&mut f.establishment_us, Duration::from_millis(ms));
        }
        let s = Figures::summary(&f.establishment_us);
        assert_eq!(s.count, 100);
        assert_eq!(s.min_us, 1000);
        assert!((49_900..=50_100).contains(&s.p50_us), "{s:?}");
        assert!((98_900..=99_100).contains(&s.p99_us), "{s:?}");
        assert!((99_900..=100_100).contains(&s.max_us), "{s:?}");
        assert_eq!(Figures::summary(&f.deletion_us), LatencySummary::default());
    }
}
