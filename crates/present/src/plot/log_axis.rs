//! A log axis, ticked at 1, 2 and 5 times each power of ten (at every whole multiple when that
//! leaves fewer than three ticks, at its ends when even that does). Plotters' own log
//! coordinate ticks a range that starts between powers of ten only from the first power on,
//! and marks some values twice; this one is the few lines it takes to do it as log paper does.

use std::ops::Range;

use plotters::coord::ranged1d::{DefaultFormatting, KeyPointHint, Ranged};

/// A log axis (latencies over whole decades, see [`super::log_range`]; loads over theirs).
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct LogAxis {
    lo: f64,
    hi: f64,
}

impl LogAxis {
    /// The axis over `range` (both ends positive; an empty range is widened by 1 %).
    pub(crate) fn new(range: Range<f64>) -> LogAxis {
        LogAxis {
            lo: range.start,
            hi: range.end.max(range.start * 1.01),
        }
    }

    /// Every `mantissas` multiple of each power of ten in the range.
    fn ticks(&self, mantissas: &[f64]) -> Vec<f64> {
        let first = self.lo.log10().floor() as i32;
        let last = self.hi.log10().ceil() as i32;
        (first..=last)
            .flat_map(|e| mantissas.iter().map(move |m| m * 10f64.powi(e)))
            // Tolerance: 10^e is not exact for negative e.
            .filter(|v| *v >= self.lo * (1.0 - 1e-9) && *v <= self.hi * (1.0 + 1e-9))
            .collect()
    }
}

impl Ranged for LogAxis {
    type FormatOption = DefaultFormatting;
    type ValueType = f64;

    fn map(&self, value: &f64, limit: (i32, i32)) -> i32 {
        let (a, b) = (self.lo.log10(), self.hi.log10());
        // Nothing is drawn at or under zero; such a value lands far under the axis.
        let v = value.max(self.lo / 1e3).log10();
        let t = (v - a) / (b - a);
        limit.0 + (f64::from(limit.1 - limit.0) * t).round() as i32
    }

    fn key_points<Hint: KeyPointHint>(&self, hint: Hint) -> Vec<f64> {
        let max = hint.max_num_points();
        let one_two_five = self.ticks(&[1.0, 2.0, 5.0]);
        if one_two_five.len() > max {
            return self.ticks(&[1.0]);
        }
        if one_two_five.len() >= 3 {
            return one_two_five;
        }
        // A range narrower than a decade: every whole multiple, else its two ends.
        let whole = self.ticks(&[1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0]);
        if whole.len() >= 2 && whole.len() <= max {
            whole
        } else {
            vec![self.lo, self.hi]
        }
    }

    fn range(&self) -> Range<f64> {
        self.lo..self.hi
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ticks_at_one_two_and_five_then_decades_when_crowded() {
        let axis = LogAxis::new(1.0..100.0);
        assert_eq!(
            axis.key_points(10),
            [1.0, 2.0, 5.0, 10.0, 20.0, 50.0, 100.0]
        );
        assert_eq!(axis.key_points(5), [1.0, 10.0, 100.0]);
        // Bottom to top: the limit runs from the bottom pixel up.
        assert_eq!(axis.map(&1.0, (400, 0)), 400);
        assert_eq!(axis.map(&10.0, (400, 0)), 200);
        assert_eq!(axis.map(&100.0, (400, 0)), 0);
        let small = LogAxis::new(0.1..1.0);
        assert_eq!(small.key_points(10).len(), 4);
        // Loads: 1-2-5 over 40 to 990 kpps; under a decade, whole multiples; else the ends.
        assert_eq!(
            LogAxis::new(40.0..990.0).key_points(10),
            [50.0, 100.0, 200.0, 500.0]
        );
        assert_eq!(LogAxis::new(1.8..4.4).key_points(10), [2.0, 3.0, 4.0]);
        assert_eq!(LogAxis::new(100.0..105.0).key_points(10), [100.0, 105.0]);
    }
}
