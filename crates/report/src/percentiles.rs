//! The one shape of every percentile summary in the report: the data plane's one-way latency,
//! a PFCP procedure's latency, a handover's interruption, a churn session's activation lag.
//! Values are [`Nanos`], a duration whose unit is in its type; in JSON each field says its unit
//! (`p50_ns`), the way the data plane's latency always has.

use std::time::Duration;

use serde::{Deserialize, Serialize};

/// A duration in nanoseconds, signed: an interruption is negative when the old and the new
/// path overlap. In JSON a plain integer.
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize,
)]
#[serde(transparent)]
pub struct Nanos(pub i64);

impl Nanos {
    /// `ns` nanoseconds (saturating at `i64::MAX`).
    pub fn from_ns(ns: u64) -> Nanos {
        Nanos(i64::try_from(ns).unwrap_or(i64::MAX))
    }

    /// `us` microseconds.
    pub fn from_us(us: u64) -> Nanos {
        Nanos::from_ns(us.saturating_mul(1_000))
    }

    /// `ms` milliseconds, to the nearest nanosecond.
    pub(crate) fn from_ms(ms: f64) -> Nanos {
        Nanos((ms * 1e6).round() as i64)
    }

    /// In nanoseconds.
    pub fn ns(self) -> f64 {
        self.0 as f64
    }

    /// In microseconds.
    pub fn us(self) -> f64 {
        self.0 as f64 / 1e3
    }

    /// In milliseconds.
    pub fn ms(self) -> f64 {
        self.0 as f64 / 1e6
    }
}

impl From<Duration> for Nanos {
    fn from(d: Duration) -> Nanos {
        Nanos(i64::try_from(d.as_nanos()).unwrap_or(i64::MAX))
    }
}

/// Percentiles of one figure over its samples. The data plane's come from its histogram
/// (within its precision, 3 significant digits by default) and go to p99.99; the others are
/// nearest-rank over every value and stop at p99 (`p99_9` and `p99_99` absent).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Percentiles {
    /// Values summarised (packets, procedures, UEs, sessions).
    pub samples: u64,
    /// Smallest.
    #[serde(rename = "min_ns")]
    pub min: Nanos,
    /// Median.
    #[serde(rename = "p50_ns")]
    pub p50: Nanos,
    /// 90th percentile.
    #[serde(rename = "p90_ns")]
    pub p90: Nanos,
    /// 99th percentile.
    #[serde(rename = "p99_ns")]
    pub p99: Nanos,
    /// 99.9th percentile, where summarised.
    #[serde(rename = "p99_9_ns", default, skip_serializing_if = "Option::is_none")]
    pub p99_9: Option<Nanos>,
    /// 99.99th percentile, where summarised.
    #[serde(rename = "p99_99_ns", default, skip_serializing_if = "Option::is_none")]
    pub p99_99: Option<Nanos>,
    /// Largest.
    #[serde(rename = "max_ns")]
    pub max: Nanos,
}

impl Percentiles {
    /// The nearest-rank percentiles of `values`, up to p99; `None` for none.
    pub fn of(values: impl IntoIterator<Item = Nanos>) -> Option<Percentiles> {
        let mut v: Vec<Nanos> = values.into_iter().collect();
        if v.is_empty() {
            return None;
        }
        v.sort_unstable();
        let rank = |p: f64| v[((p / 100.0 * v.len() as f64).ceil() as usize).clamp(1, v.len()) - 1];
        Some(Percentiles {
            samples: v.len() as u64,
            min: v[0],
            p50: rank(50.0),
            p90: rank(90.0),
            p99: rank(99.0),
            p99_9: None,
            p99_99: None,
            max: v[v.len() - 1],
        })
    }

    /// The same of `ms` milliseconds (finite ones only); `None` for none.
    pub fn of_ms(ms: impl IntoIterator<Item = f64>) -> Option<Percentiles> {
        Percentiles::of(ms.into_iter().filter(|x| x.is_finite()).map(Nanos::from_ms))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percentiles_are_nearest_rank_and_say_their_unit_in_json() {
        let p = Percentiles::of((1..=100).map(Nanos::from_us)).unwrap();
        assert_eq!(
            (p.samples, p.p50, p.p90, p.p99, p.min, p.max),
            (
                100,
                Nanos(50_000),
                Nanos(90_000),
                Nanos(99_000),
                Nanos(1_000),
                Nanos(100_000)
            )
        );
        assert_eq!(
            serde_json::to_value(p).unwrap(),
            serde_json::json!({"samples": 100, "min_ns": 1000, "p50_ns": 50000,
                "p90_ns": 90000, "p99_ns": 99000, "max_ns": 100000})
        );
        let one = Percentiles::of_ms([7.0, f64::NAN]).unwrap();
        assert_eq!(
            (one.samples, one.p50, one.max),
            (1, Nanos(7_000_000), Nanos(7_000_000))
        );
        assert_eq!(Percentiles::of([]), None);
        // An overlap of paths: negative.
        let overlap = Percentiles::of_ms([-0.5, 2.0]).unwrap();
        assert_eq!((overlap.min.ms(), overlap.max.ms()), (-0.5, 2.0));
        let json = serde_json::to_string(&overlap).unwrap();
        assert_eq!(serde_json::from_str::<Percentiles>(&json).unwrap(), overlap);
    }

    #[test]
    fn units_convert_both_ways() {
        assert_eq!(Nanos::from_us(557), Nanos(557_000));
        assert_eq!(Nanos::from_ms(1.2345675), Nanos(1_234_568));
        assert_eq!(Nanos::from(Duration::from_micros(3)).us(), 3.0);
        assert_eq!(Nanos::from_ns(u64::MAX), Nanos(i64::MAX));
    }
}
