//! One-way latency recording into an HDR histogram, with exact min, max and mean beside it.
//!
//! The histogram (`hdrhistogram`, nanoseconds, 3 significant digits by default) gives the
//! percentiles to within 0.1 % of the value; the exact minimum, maximum and sum are kept next to
//! it because the published comparisons report min/avg/max and the histogram would round those.
//! The histogram is allocated once with fixed bounds (1 ns to [`LatencyConfig::max_ns`]) and never
//! resizes, so recording never allocates. Values above the bound are clamped to it (the exact max
//! still shows them) and counted in `over_range`; negative latencies (receive time before
//! transmit time: clocks that disagree) are counted in `negative` and not recorded.
//!
//! The RX worker does not call [`LatencyRecorder::record`] per packet: it stages samples in an
//! array with the same bucket layout and drains it into a recorder once per interval (see
//! `hot_latency.rs`), which gives the same histogram for a third of the cost.

use hdrhistogram::Histogram;
use thiserror::Error;

/// Default highest trackable latency: 10 s. Anything slower is lost for any practical purpose.
pub(crate) const DEFAULT_MAX_LATENCY_NS: u64 = 10_000_000_000;
/// Default histogram precision: 3 significant digits (0.1 %).
pub(crate) const DEFAULT_SIGNIFICANT_DIGITS: u8 = 3;

/// Histogram bounds and precision.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LatencyConfig {
    /// Highest latency tracked exactly (ns); larger values are clamped and counted.
    pub max_ns: u64,
    /// Significant decimal digits, 3 to 5.
    pub significant_digits: u8,
}

impl Default for LatencyConfig {
    fn default() -> Self {
        LatencyConfig {
            max_ns: DEFAULT_MAX_LATENCY_NS,
            significant_digits: DEFAULT_SIGNIFICANT_DIGITS,
        }
    }
}

/// A latency configuration the histogram cannot be built with.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum LatencyConfigError {
    /// Precision outside 3..=5 digits.
    #[error("latency histogram precision of {0} significant digits is outside 3..=5")]
    SignificantDigits(u8),
    /// The histogram library refused the bounds.
    #[error("latency histogram cannot track 1..={max_ns} ns: {reason}")]
    Bounds {
        /// The requested upper bound.
        max_ns: u64,
        /// The library's reason.
        reason: String,
    },
}

/// The exact figures a [`LatencyRecorder`] keeps beside its histogram: what the histogram
/// would round, and what it does not hold (negative samples).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LatencyExact {
    /// Samples recorded (negative ones excluded).
    pub count: u64,
    /// The smallest sample (ns), if any.
    pub min_ns: Option<u64>,
    /// The largest sample (ns), if any.
    pub max_ns: Option<u64>,
    /// The sum of the recorded samples (ns; clamped ones at the bound).
    pub sum_ns: u128,
    /// Samples with a negative transit time (not recorded).
    pub negative: u64,
    /// Samples above the histogram's bound (recorded as the bound).
    pub over_range: u64,
}

/// Latency samples of one direction on one core (or merged).
#[derive(Debug, Clone)]
pub struct LatencyRecorder {
    hist: Histogram<u64>,
    count: u64,
    min: u64,
    max: u64,
    sum: u128,
    negative: u64,
    over_range: u64,
}

impl PartialEq for LatencyRecorder {
    fn eq(&self, o: &Self) -> bool {
        self.hist == o.hist
            && self.hist.high() == o.hist.high()
            && (
                self.count,
                self.min,
                self.max,
                self.sum,
                self.negative,
                self.over_range,
            ) == (o.count, o.min, o.max, o.sum, o.negative, o.over_range)
    }
}

// Every field compared is an integer (the histogram's counts too): an equivalence.
impl Eq for LatencyRecorder {}

impl LatencyRecorder {
    /// An empty recorder; allocates its histogram now and never again.
    pub fn new(config: &LatencyConfig) -> Result<LatencyRecorder, LatencyConfigError> {
        if !(3..=5).contains(&config.significant_digits) {
            return Err(LatencyConfigError::SignificantDigits(
                config.significant_digits,
            ));
        }
        let hist = Histogram::new_with_bounds(1, config.max_ns, config.significant_digits)
            .map_err(|e| LatencyConfigError::Bounds {
                max_ns: config.max_ns,
                reason: format!("{e:?}"),
            })?;
        Ok(LatencyRecorder {
            hist,
            count: 0,
            min: u64::MAX,
            max: 0,
            sum: 0,
            negative: 0,
            over_range: 0,
        })
    }

    /// A recorder of `config` holding `histogram`'s counts and the exact figures `exact`: the
    /// inverse of [`histogram`](Self::histogram) and [`exact`](Self::exact), for results that
    /// travelled (an agent's, docs/scale.md §3). The histogram's counts are added as
    /// [`merge`](Self::merge) adds them; whether they agree with `exact` is the caller's check.
    pub fn from_parts(
        config: &LatencyConfig,
        histogram: &Histogram<u64>,
        exact: LatencyExact,
    ) -> Result<LatencyRecorder, LatencyConfigError> {
        let mut r = LatencyRecorder::new(config)?;
        for v in histogram.iter_recorded() {
            r.hist
                .saturating_record_n(v.value_iterated_to(), v.count_at_value());
        }
        r.count = exact.count;
        r.min = exact.min_ns.unwrap_or(u64::MAX);
        r.max = exact.max_ns.unwrap_or(0);
        r.sum = exact.sum_ns;
        r.negative = exact.negative;
        r.over_range = exact.over_range;
        Ok(r)
    }

    /// The exact figures beside the histogram.
    pub fn exact(&self) -> LatencyExact {
        LatencyExact {
            count: self.count,
            min_ns: self.min_ns(),
            max_ns: self.max_ns(),
            sum_ns: self.sum,
            negative: self.negative,
            over_range: self.over_range,
        }
    }

    /// Records one transit time `rx - tx` in ns (negative: counted, not recorded).
    #[inline]
    pub fn record(&mut self, transit_ns: i64) {
        if transit_ns < 0 {
            self.negative += 1;
            return;
        }
        let v = transit_ns as u64;
        let high = self.hist.high();
        if v > high {
            self.over_range += 1;
        }
        self.hist.saturating_record(v.min(high));
        self.count += 1;
        self.min = self.min.min(v);
        self.max = self.max.max(v);
        // The mean is of the recorded values: clamped ones count as the bound (and are warned of).
        self.sum += u128::from(v.min(high));
    }

    /// Adds another recorder's samples (same configuration expected; a histogram of a different
    /// range is added value by value and clamped).
    pub fn merge(&mut self, o: &LatencyRecorder) {
        if self.hist.add(&o.hist).is_err() {
            for v in o.hist.iter_recorded() {
                let value = v.value_iterated_to();
                if value > self.hist.high() {
                    self.over_range += v.count_at_value();
                }
                self.hist.saturating_record_n(value, v.count_at_value());
            }
        }
        self.count += o.count;
        self.min = self.min.min(o.min);
        self.max = self.max.max(o.max);
        self.sum += o.sum;
        self.negative += o.negative;
        self.over_range += o.over_range;
    }

    /// Adds `n` samples in the histogram slot of `value` (the exact figures come separately
    /// through [`absorb_exact`](Self::absorb_exact)).
    pub(crate) fn record_slot(&mut self, value: u64, n: u64) {
        self.hist.saturating_record_n(value, n);
    }

    /// Adds exact figures gathered elsewhere for samples whose slots were recorded with
    /// [`record_slot`](Self::record_slot).
    pub(crate) fn absorb_exact(
        &mut self,
        count: u64,
        min: u64,
        max: u64,
        sum: u128,
        negative: u64,
        over_range: u64,
    ) {
        self.count += count;
        self.min = self.min.min(min);
        self.max = self.max.max(max);
        self.sum += sum;
        self.negative += negative;
        self.over_range += over_range;
    }

    /// Forgets every sample, keeping the allocation.
    pub fn reset(&mut self) {
        self.hist.reset();
        self.count = 0;
        self.min = u64::MAX;
        self.max = 0;
        self.sum = 0;
        self.negative = 0;
        self.over_range = 0;
    }

    /// Samples recorded (negative ones excluded).
    pub fn count(&self) -> u64 {
        self.count
    }

    /// Exact smallest sample, if any.
    pub fn min_ns(&self) -> Option<u64> {
        (self.count > 0).then_some(self.min)
    }

    /// Exact largest sample, if any.
    pub fn max_ns(&self) -> Option<u64> {
        (self.count > 0).then_some(self.max)
    }

    /// Exact mean, if any sample.
    pub fn mean_ns(&self) -> Option<f64> {
        (self.count > 0).then(|| self.sum as f64 / self.count as f64)
    }

    /// Exact sum of the recorded samples (ns; clamped ones at the bound), if any: what the
    /// mean is of.
    pub fn sum_ns(&self) -> u128 {
        self.sum
    }

    /// Samples with a negative transit time (not recorded).
    pub fn negative(&self) -> u64 {
        self.negative
    }

    /// Samples above the histogram's bound (recorded as the bound).
    pub fn over_range(&self) -> u64 {
        self.over_range
    }

    /// The value at quantile `q` (0..=1) within the histogram's precision: the highest value
    /// equivalent to the sample of rank `ceil(q * count)` (nearest-rank definition), never
    /// outside the exact min and max (hdrhistogram answers q = 0 with the lowest equivalent
    /// value of the smallest sample's bucket, which can be below the sample).
    pub fn quantile_ns(&self, q: f64) -> Option<u64> {
        (self.count > 0).then(|| self.hist.value_at_quantile(q).clamp(self.min, self.max))
    }

    /// The underlying histogram (read-only), for callers that want more than the summary.
    pub fn histogram(&self) -> &Histogram<u64> {
        &self.hist
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rec() -> LatencyRecorder {
        LatencyRecorder::new(&LatencyConfig::default()).unwrap()
    }

    #[test]
    fn quantile_zero_is_the_exact_minimum() {
        // At 3 digits 2,345 shares a bucket with 2,344: hdrhistogram's q = 0 says 2,344.
        let mut r = rec();
        for v in [2_345, 2_345, 9_000] {
            r.record(v);
        }
        assert_eq!(r.quantile_ns(0.0), Some(2_345));
        assert_eq!(r.quantile_ns(1.0), Some(9_000));
    }

    #[test]
    fn rejects_bad_precision_and_bounds() {
        for d in [0, 1, 2, 6] {
            let c = LatencyConfig {
                significant_digits: d,
                ..Default::default()
            };
            assert_eq!(
                LatencyRecorder::new(&c).unwrap_err(),
                LatencyConfigError::SignificantDigits(d)
            );
        }
        let c = LatencyConfig {
            max_ns: 1,
            ..Default::default()
        };
        assert!(matches!(
            LatencyRecorder::new(&c),
            Err(LatencyConfigError::Bounds { max_ns: 1, .. })
        ));
    }

    #[test]
    fn exact_min_max_mean() {
        let mut r = rec();
        assert_eq!(r.min_ns(), None);
        assert_eq!(r.quantile_ns(0.5), None);
        for v in [1234i64, 999_999, 5, 70_001] {
            r.record(v);
        }
        assert_eq!(r.count(), 4);
        assert_eq!(r.min_ns(), Some(5));
        assert_eq!(r.max_ns(), Some(999_999));
        assert_eq!(
            r.mean_ns(),
            Some((1234.0 + 999_999.0 + 5.0 + 70_001.0) / 4.0)
        );
        // The histogram's own max would round up; ours is clamped to the exact max.
        assert_eq!(r.quantile_ns(1.0), Some(999_999));
        assert_eq!(r.sum_ns(), 1234 + 999_999 + 5 + 70_001);
    }

    #[test]
    fn negative_and_over_range_are_counted() {
        let mut r = LatencyRecorder::new(&LatencyConfig {
            max_ns: 1_000_000,
            significant_digits: 3,
        })
        .unwrap();
        r.record(-1);
        r.record(5_000_000);
        r.record(10);
        assert_eq!(r.negative(), 1);
        assert_eq!(r.over_range(), 1);
        assert_eq!(r.count(), 2);
        assert_eq!(r.max_ns(), Some(5_000_000));
        assert_eq!(r.histogram().len(), 2);
    }

    #[test]
    fn merge_adds_and_reset_clears() {
        let mut a = rec();
        let mut b = rec();
        let mut both = rec();
        for v in 0..1000i64 {
            if v % 3 == 0 {
                a.record(v * 17);
            } else {
                b.record(v * 17);
            }
            both.record(v * 17);
        }
        b.record(-5);
        both.record(-5);
        a.merge(&b);
        assert_eq!(a, both);
        a.reset();
        assert_eq!(a, rec());
    }

    #[test]
    fn merge_across_ranges_clamps() {
        let mut small = LatencyRecorder::new(&LatencyConfig {
            max_ns: 1_000_000,
            significant_digits: 3,
        })
        .unwrap();
        let mut big = rec();
        big.record(50_000_000);
        big.record(100);
        small.merge(&big);
        assert_eq!(small.count(), 2);
        assert_eq!(small.histogram().len(), 2);
        assert_eq!(small.max_ns(), Some(50_000_000));
        assert_eq!(small.over_range(), 1);
    }
}
