//! The RX worker's latency recording: flat counter arrays laid out exactly like the HDR
//! histogram's buckets, so that the worker never touches `hdrhistogram` on its hot path nor does
//! O(buckets) work when an interval ends.
//!
//! * Per packet, [`HotLatency::record`] computes the bucket index inline with HDR's formula (for
//!   a lowest discernible value of 1 ns: `bucket = ilog2(v | sub_bucket_mask) - half_magnitude`,
//!   `index = (bucket << half_magnitude) + (v >> bucket)`) and bumps a `u32`,
//!   beside exact count/min/max/sum. `hdrhistogram`'s own `record` is an out-of-line call that
//!   keeps rounded min/max and a total too; on the RX path it cost 6.7 ns of a 16.6 ns packet.
//! * When an interval ends the worker adds the interval's array into its `u64`
//!   [`CumulativeLatency`] over the touched index range only (from the exact min and max), then
//!   swaps in an empty array and sends the full one to the control thread, which converts it into
//!   an HDR histogram. Recording every sample into `hdrhistogram` directly, draining all buckets
//!   on the worker, cost about 250 µs per interval; a stall that long at 15 Mpps overflows an RX
//!   ring.
//! * Draining a slot into `hdrhistogram` at the slot's lowest value lands in the very same HDR
//!   bucket, so the histograms are identical to recording each sample (tests check it for 3 to 5
//!   significant digits).

use std::ops::RangeInclusive;

use crate::latency::{LatencyConfig, LatencyRecorder};

/// Samples an interval may stage before the worker must end it early, far below the point where
/// one `u32` slot could overflow (the `u64` sum sets a lower limit for large maxima).
const STAGE_LIMIT: u64 = 1 << 31;

/// HDR bucket layout for a lowest discernible value of 1 and a given precision and maximum.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Layout {
    max_ns: u64,
    sub_bucket_mask: u64,
    half_magnitude: u32,
    half_count: u64,
    len: usize,
}

impl Layout {
    fn new(config: &LatencyConfig) -> Layout {
        // HDR: sub_bucket_count = 2^ceil(log2(2 * 10^digits)); unit magnitude 0.
        let largest_single_unit = 2 * 10u64.pow(u32::from(config.significant_digits));
        let count_magnitude = 64 - (largest_single_unit - 1).leading_zeros();
        let half_magnitude = count_magnitude - 1;
        let mut l = Layout {
            max_ns: config.max_ns,
            sub_bucket_mask: (1u64 << count_magnitude) - 1,
            half_magnitude,
            half_count: 1u64 << half_magnitude,
            len: 0,
        };
        l.len = l.index(config.max_ns) + 1;
        l
    }

    /// HDR's `((bucket + 1) << half_magnitude) + (v >> bucket) - half_count` with
    /// `half_count = 1 << half_magnitude` folded in, and its `(63 - half_magnitude) - lzcnt(x)`
    /// written as `ilog2(x) - half_magnitude` (one `bsr` on any x86-64; the `| 1` only tells the
    /// compiler that `x` is not zero, the mask's low bit being set already).
    #[inline(always)]
    fn index(&self, v: u64) -> usize {
        let bucket = (v | self.sub_bucket_mask | 1).ilog2() - self.half_magnitude;
        ((u64::from(bucket) << self.half_magnitude) + (v >> bucket)) as usize
    }

    /// The lowest value of slot `i` (the inverse of `index`).
    fn value_at(&self, i: usize) -> u64 {
        let i = i as u64;
        let bucket_plus_one = i >> self.half_magnitude;
        if bucket_plus_one == 0 {
            return i;
        }
        let sub = (i & (self.half_count - 1)) + self.half_count;
        sub << (bucket_plus_one - 1)
    }
}

/// Exact figures kept beside the bucket counts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Exact {
    count: u64,
    min: u64,
    max: u64,
    sum: u128,
    negative: u64,
    over_range: u64,
}

impl Exact {
    const EMPTY: Exact = Exact {
        count: 0,
        min: u64::MAX,
        max: 0,
        sum: 0,
        negative: 0,
        over_range: 0,
    };

    fn add(&mut self, o: &Exact) {
        self.count += o.count;
        self.min = self.min.min(o.min);
        self.max = self.max.max(o.max);
        self.sum += o.sum;
        self.negative += o.negative;
        self.over_range += o.over_range;
    }

    fn into_recorder(self, into: &mut LatencyRecorder) {
        into.absorb_exact(
            self.count,
            self.min,
            self.max,
            self.sum,
            self.negative,
            self.over_range,
        );
    }
}

/// One interval's latencies of one direction on one RX core.
///
/// Per packet it stores only the slot and the sum (min and max only when they change, the rare
/// classes only when they happen): stores are what limits the RX path's throughput. The sample
/// count is the sum of the slots, taken when the interval is added or drained.
#[derive(Debug, Clone)]
pub(crate) struct HotLatency {
    layout: Layout,
    min: u64,
    max: u64,
    /// Sum of the recorded (clamped) values; cannot overflow within [`Self::stage_limit`].
    sum: u64,
    negative: u64,
    over_range: u64,
    counts: Box<[u32]>,
}

impl HotLatency {
    /// Empty staging for a histogram of `config` (validated by the caller through
    /// [`LatencyRecorder::new`]).
    pub(crate) fn new(config: &LatencyConfig) -> HotLatency {
        let layout = Layout::new(config);
        HotLatency {
            layout,
            min: u64::MAX,
            max: 0,
            sum: 0,
            negative: 0,
            over_range: 0,
            counts: vec![0u32; layout.len].into_boxed_slice(),
        }
    }

    /// How many samples an interval may hold: no `u32` slot and no `u64` sum can overflow.
    pub(crate) fn stage_limit(&self) -> u64 {
        STAGE_LIMIT.min(u64::MAX / self.layout.max_ns.max(1))
    }

    /// Records one transit time `rx - tx` in ns (negative: counted, not recorded; above the
    /// maximum: clamped to it and counted, the exact max still sees it).
    #[inline(always)]
    pub(crate) fn record(&mut self, transit_ns: i64) {
        if transit_ns < 0 {
            self.negative += 1;
            return;
        }
        let mut v = transit_ns as u64;
        if v < self.min {
            self.min = v;
        }
        if v > self.max {
            self.max = v;
        }
        if v > self.layout.max_ns {
            self.over_range += 1;
            v = self.layout.max_ns;
        }
        self.sum += v;
        // The table was built for max_ns, so the index of a clamped value is always inside it.
        if let Some(c) = self.counts.get_mut(self.layout.index(v)) {
            *c += 1;
        }
    }

    fn touched(&self) -> Option<RangeInclusive<usize>> {
        touched(&self.layout, self.min, self.max)
    }

    fn exact(&self, count: u64) -> Exact {
        Exact {
            count,
            min: self.min,
            max: self.max,
            sum: u128::from(self.sum),
            negative: self.negative,
            over_range: self.over_range,
        }
    }

    fn reset_exact(&mut self) {
        self.min = u64::MAX;
        self.max = 0;
        self.sum = 0;
        self.negative = 0;
        self.over_range = 0;
    }

    /// Empties the staging (touched slots only).
    pub(crate) fn clear(&mut self) {
        if let Some(r) = self.touched() {
            self.counts[r].fill(0);
        }
        self.reset_exact();
    }

    /// Moves every staged sample into `into` and empties the staging.
    pub(crate) fn drain_into(&mut self, into: &mut LatencyRecorder) {
        let mut count = 0u64;
        if let Some(r) = self.touched() {
            for i in r {
                let n = std::mem::take(&mut self.counts[i]);
                if n > 0 {
                    count += u64::from(n);
                    into.record_slot(self.layout.value_at(i), u64::from(n));
                }
            }
        }
        self.exact(count).into_recorder(into);
        self.reset_exact();
    }
}

/// Slots that may be non-zero given the exact min and max (none when min > max: empty).
fn touched(layout: &Layout, min: u64, max: u64) -> Option<RangeInclusive<usize>> {
    (min <= max)
        .then(|| layout.index(min.min(layout.max_ns))..=layout.index(max.min(layout.max_ns)))
}

/// A core's latencies of one direction over the whole run, in the same layout with `u64` slots.
#[derive(Debug, Clone)]
pub(crate) struct CumulativeLatency {
    layout: Layout,
    exact: Exact,
    counts: Box<[u64]>,
}

impl CumulativeLatency {
    pub(crate) fn new(config: &LatencyConfig) -> CumulativeLatency {
        let layout = Layout::new(config);
        CumulativeLatency {
            layout,
            exact: Exact::EMPTY,
            counts: vec![0u64; layout.len].into_boxed_slice(),
        }
    }

    /// Adds an interval, touching only its non-empty index range.
    pub(crate) fn add(&mut self, hot: &HotLatency) {
        debug_assert_eq!(self.layout, hot.layout);
        let mut count = 0u64;
        if let Some(r) = hot.touched() {
            for (c, h) in self.counts[r.clone()].iter_mut().zip(&hot.counts[r]) {
                *c += u64::from(*h);
                count += u64::from(*h);
            }
        }
        self.exact.add(&hot.exact(count));
    }

    /// The HDR histogram of everything added (done once, at the end of the run).
    pub(crate) fn to_recorder(&self, config: &LatencyConfig) -> LatencyRecorder {
        let mut r = LatencyRecorder::new(config).expect("configuration validated by RxStats::new");
        if let Some(range) = touched(&self.layout, self.exact.min, self.exact.max) {
            for i in range {
                if self.counts[i] > 0 {
                    r.record_slot(self.layout.value_at(i), self.counts[i]);
                }
            }
        }
        self.exact.into_recorder(&mut r);
        r
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn configs() -> Vec<LatencyConfig> {
        let mut v = Vec::new();
        for digits in 3..=5 {
            for max_ns in [1_000_000, 10_000_000_000, 60_000_000_000] {
                v.push(LatencyConfig {
                    max_ns,
                    significant_digits: digits,
                });
            }
        }
        v
    }

    fn probe_values(max: u64) -> Vec<i64> {
        let mut v: Vec<u64> = (0..5000).collect();
        let mut x = 1u64;
        while x < max {
            for d in [x - 1, x, x + 1, x + x / 3] {
                if d <= max {
                    v.push(d);
                }
            }
            x *= 2;
        }
        v.push(max);
        v.into_iter()
            .map(|x| x as i64)
            .chain([-3, -1, max as i64 + 5, i64::MAX])
            .collect()
    }

    #[test]
    fn layout_matches_hdrhistogram() {
        for c in configs() {
            let l = Layout::new(&c);
            let r = LatencyRecorder::new(&c).unwrap();
            for v in probe_values(c.max_ns)
                .into_iter()
                .filter(|v| (0..=c.max_ns as i64).contains(v))
            {
                let v = v as u64;
                let i = l.index(v);
                assert!(i < l.len, "{c:?} {v}");
                assert_eq!(
                    l.value_at(i),
                    r.histogram().lowest_equivalent(v),
                    "{c:?} value {v}"
                );
            }
        }
    }

    #[test]
    fn staged_and_cumulative_equal_direct_recording() {
        for c in configs() {
            let mut hot = HotLatency::new(&c);
            let mut cumulative = CumulativeLatency::new(&c);
            let mut direct = LatencyRecorder::new(&c).unwrap();
            let mut drained = LatencyRecorder::new(&c).unwrap();
            for (k, v) in probe_values(c.max_ns).into_iter().enumerate() {
                hot.record(v);
                direct.record(v);
                if k % 1000 == 999 {
                    // An interval ends: into the cumulative, then drained like the control does.
                    cumulative.add(&hot);
                    hot.drain_into(&mut drained);
                }
            }
            cumulative.add(&hot);
            hot.drain_into(&mut drained);
            assert_eq!(drained, direct, "{c:?}");
            assert_eq!(cumulative.to_recorder(&c), direct, "{c:?}");
            // Drained staging is empty.
            let before = drained.clone();
            hot.drain_into(&mut drained);
            assert_eq!(drained, before);
            assert!(hot.counts.iter().all(|&x| x == 0));
        }
    }

    #[test]
    fn clear_empties_the_touched_range() {
        let c = LatencyConfig::default();
        let mut hot = HotLatency::new(&c);
        for v in [5i64, 70_000, 9_999_999_999, 20_000_000_000, -4] {
            hot.record(v);
        }
        assert_eq!(hot.over_range, 1);
        assert_eq!(hot.negative, 1);
        hot.clear();
        assert!(hot.counts.iter().all(|&x| x == 0));
        assert_eq!(hot.touched(), None);
        assert_eq!((hot.sum, hot.negative, hot.over_range), (0, 0, 0));
    }

    #[test]
    fn stage_limit_keeps_the_sum_in_range() {
        for max_ns in [1_000_000u64, 10_000_000_000, 60_000_000_000] {
            let h = HotLatency::new(&LatencyConfig {
                max_ns,
                significant_digits: 3,
            });
            assert!(h.stage_limit() <= STAGE_LIMIT);
            assert!(h.stage_limit().checked_mul(max_ns).is_some());
        }
    }
}
