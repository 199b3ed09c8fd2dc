//! Latency as a Prometheus histogram: the samples of the HDR histograms counted into a fixed set
//! of buckets, which add up across workers, intervals and steps without the HDR histograms
//! themselves (a few hundred kilobytes each) being kept.
//!
//! The bounds are 1, 2, 3, 5 and 7 × 10^k ns from 100 ns to 7 s, then 10 s (41 buckets and
//! `+Inf`): memif latencies of half a microsecond and a UPF's stalls of seconds both fall into
//! buckets of their own. An HDR bucket (0.1 % wide at 3 significant digits) is counted at or
//! below a bound when it starts at or below it, so a sample is placed within the HDR
//! histogram's own precision; below 2,048 ns HDR buckets are single values, and every bound up
//! to 2 µs is exact. `_count` is the number of samples and `_sum` their exact sum (the
//! recorder's, not the buckets'), as the report's count and mean are.

use upfbench_stats::LatencyRecorder;

/// The multiples of each power of ten that are bounds.
const MULTIPLES: [u64; 5] = [1, 2, 3, 5, 7];
/// Decades from 100 ns up (100 ns to 1 s and beyond, the last one's 1 × 10 s alone).
const DECADES: usize = 8;
/// Finite bucket bounds.
pub(crate) const BUCKETS: usize = DECADES * MULTIPLES.len() + 1;

/// The buckets' upper bounds in ns, ascending: 100, 200, 300, 500, 700, 1000, ..., 7e9, 1e10.
pub const BOUNDS_NS: [u64; BUCKETS] = bounds();

const fn bounds() -> [u64; BUCKETS] {
    let mut b = [0u64; BUCKETS];
    let mut decade = 100u64;
    let mut i = 0;
    while i < DECADES * MULTIPLES.len() {
        b[i] = MULTIPLES[i % MULTIPLES.len()] * decade;
        if i % MULTIPLES.len() == MULTIPLES.len() - 1 {
            decade *= 10;
        }
        i += 1;
    }
    b[BUCKETS - 1] = decade;
    b
}

/// Latency samples by bucket, with their exact count and sum.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LatencyBuckets {
    /// Samples per bucket, not cumulative: `[i]` those above bound `i - 1` and at or below
    /// bound `i`; the last, those above every bound.
    per_bucket: [u64; BUCKETS + 1],
    /// Samples.
    count: u64,
    /// Their exact sum (ns).
    sum_ns: u128,
}

impl Default for LatencyBuckets {
    fn default() -> Self {
        LatencyBuckets {
            per_bucket: [0; BUCKETS + 1],
            count: 0,
            sum_ns: 0,
        }
    }
}

impl LatencyBuckets {
    /// The samples of `r`.
    pub fn from_recorder(r: &LatencyRecorder) -> LatencyBuckets {
        let mut b = LatencyBuckets::default();
        b.add_recorder(r);
        b
    }

    /// Adds the samples of `r`.
    pub fn add_recorder(&mut self, r: &LatencyRecorder) {
        let h = r.histogram();
        for v in h.iter_recorded() {
            let start = h.lowest_equivalent(v.value_iterated_to());
            let i = BOUNDS_NS.partition_point(|&b| b < start);
            let n = v.count_at_value();
            self.per_bucket[i] += n;
            self.count += n;
        }
        self.sum_ns += r.sum_ns();
    }

    /// Adds another set's samples.
    pub fn add(&mut self, o: &LatencyBuckets) {
        for (a, b) in self.per_bucket.iter_mut().zip(&o.per_bucket) {
            *a += b;
        }
        self.count += o.count;
        self.sum_ns += o.sum_ns;
    }

    /// Samples.
    pub fn count(&self) -> u64 {
        self.count
    }

    /// Their sum in seconds.
    pub(crate) fn sum_seconds(&self) -> f64 {
        self.sum_ns as f64 / 1e9
    }

    /// Each finite bound in seconds with the samples above the previous bound and at or below
    /// it (not cumulative): what the exposition's encoder takes, which adds them up and ends
    /// with `+Inf` = [`count`](Self::count).
    pub(crate) fn per_bound(&self) -> Vec<(f64, u64)> {
        BOUNDS_NS
            .iter()
            .zip(&self.per_bucket)
            .map(|(&b, &n)| (b as f64 / 1e9, n))
            .collect()
    }

    /// Each finite bound in seconds with the samples at or below it (cumulative), then
    /// `+Inf` with every sample: the `_bucket` series.
    pub fn cumulative(&self) -> Vec<(f64, u64)> {
        let mut total = 0;
        let mut out: Vec<(f64, u64)> = self
            .per_bound()
            .into_iter()
            .map(|(b, n)| {
                total += n;
                (b, total)
            })
            .collect();
        out.push((f64::INFINITY, self.count));
        out
    }
}

#[cfg(test)]
mod tests {
    use upfbench_stats::LatencyConfig;

    use super::*;

    fn recorder(samples: &[(i64, u64)]) -> LatencyRecorder {
        let mut r = LatencyRecorder::new(&LatencyConfig::default()).expect("default config");
        for &(v, n) in samples {
            for _ in 0..n {
                r.record(v);
            }
        }
        r
    }

    /// The cumulative count at `bound_ns`.
    fn at(b: &LatencyBuckets, bound_ns: u64) -> u64 {
        let i = BOUNDS_NS
            .iter()
            .position(|&x| x == bound_ns)
            .expect("a bound");
        b.cumulative()[i].1
    }

    #[test]
    fn the_bounds_are_one_two_three_five_seven_per_decade_from_100_ns_to_10_s() {
        assert_eq!(BOUNDS_NS[..6], [100, 200, 300, 500, 700, 1_000]);
        assert_eq!(BOUNDS_NS[BUCKETS - 2..], [7_000_000_000, 10_000_000_000]);
        assert!(BOUNDS_NS.windows(2).all(|w| w[0] < w[1]));
        // In seconds (the `le` labels) each is the double nearest to its ns bound.
        for ((s, _), ns) in LatencyBuckets::default().per_bound().iter().zip(BOUNDS_NS) {
            assert_eq!((s * 1e9).round() as u64, ns);
        }
    }

    #[test]
    fn a_known_histogram_fills_the_buckets_it_should_cumulatively() {
        // 3 at 150 ns, 2 at exactly 1 µs, 4 at 1.5 µs, 1 at 2.5 ms (an HDR bucket 2 µs wide),
        // 1 at 12 s (clamped to the histogram's 10 s bound), one negative (not a sample).
        let r = recorder(&[
            (150, 3),
            (1_000, 2),
            (1_500, 4),
            (2_500_000, 1),
            (12_000_000_000, 1),
            (-5, 1),
        ]);
        let b = LatencyBuckets::from_recorder(&r);
        assert_eq!(b.count(), 11);
        assert_eq!(b.count(), r.count());
        assert_eq!(at(&b, 100), 0);
        assert_eq!(at(&b, 200), 3);
        assert_eq!(at(&b, 700), 3);
        // A bound is "at or below": the samples at exactly 1 µs are in le=1e-6.
        assert_eq!(at(&b, 1_000), 5);
        assert_eq!(at(&b, 2_000), 9);
        assert_eq!(at(&b, 2_000_000), 9);
        assert_eq!(at(&b, 3_000_000), 10);
        assert_eq!(at(&b, 7_000_000_000), 10);
        // The clamped sample sits at the histogram's bound: 10 s is within its HDR bucket's
        // range, which starts at or below 10 s.
        assert_eq!(at(&b, 10_000_000_000), 11);
        let c = b.cumulative();
        assert_eq!(c.len(), BUCKETS + 1);
        assert_eq!(*c.last().expect("+Inf"), (f64::INFINITY, 11));
        assert!(c.windows(2).all(|w| w[0].1 <= w[1].1), "cumulative: {c:?}");
        // The sum is the recorder's exact one (the clamped sample at its 10 s bound).
        let exact = 3 * 150 + 2 * 1_000 + 4 * 1_500 + 2_500_000 + 10_000_000_000u64;
        assert_eq!(b.sum_seconds(), exact as f64 / 1e9);
        assert_eq!(r.sum_ns(), u128::from(exact));
    }

    #[test]
    fn buckets_add_up_as_the_recorders_they_came_from_merge() {
        let a = recorder(&[(300, 10), (40_000, 5)]);
        let b = recorder(&[(300, 1), (900_000, 2), (20_000_000_000, 1)]);
        let mut merged = a.clone();
        merged.merge(&b);
        let mut added = LatencyBuckets::from_recorder(&a);
        added.add(&LatencyBuckets::from_recorder(&b));
        assert_eq!(added, LatencyBuckets::from_recorder(&merged));
        assert_eq!(added.count(), 19);
        assert_eq!(at(&added, 300), 11);
    }

    #[test]
    fn nothing_recorded_is_an_empty_histogram() {
        let b = LatencyBuckets::from_recorder(&recorder(&[]));
        assert_eq!(b.count(), 0);
        assert_eq!(b.sum_seconds(), 0.0);
        assert!(b.cumulative().iter().all(|&(_, n)| n == 0));
    }
}
