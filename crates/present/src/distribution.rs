//! A latency percentile distribution as HdrHistogram plots it: the percentile on a log axis of
//! 1/(1−q), so that 90 %, 99 %, 99.9 %, ... are equally spaced and the tail, where UPFs differ,
//! gets as much room as the median.

use hdrhistogram::Histogram;
use upfbench_report::{LatencyReport, Nanos};

/// Points per decade of 1/(1−q) when sampling a histogram: a smooth curve, a few hundred
/// points at most.
const STEPS_PER_DECADE: u32 = 20;

/// One point of a distribution.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct PercentilePoint {
    /// log10(1/(1−q)): 0 at the minimum, 1 at 90 %, 2 at 99 %, ...
    pub x: f64,
    /// The latency at that percentile (µs).
    pub latency_us: f64,
}

/// x of quantile `q` (0 ≤ q < 1).
pub(crate) fn percentile_x(q: f64) -> f64 {
    -(1.0 - q).log10()
}

/// The tick label of `x` on the percentile axis: `0%`, `90%`, `99%`, `99.9%`, ...
pub(crate) fn percentile_label(x: f64) -> String {
    let decades = x.round().max(0.0) as usize;
    match decades {
        0 => "0%".to_owned(),
        1 => "90%".to_owned(),
        d => format!("99.{}%", "9".repeat(d - 2)).replace(".%", "%"),
    }
}

/// Where the last sample sits: with n samples the largest is the quantile 1 − 1/n.
fn x_of_max(samples: u64) -> f64 {
    (samples.max(1) as f64).log10()
}

/// The distribution of a histogram (values in ns): sampled at even steps of x up to the
/// quantile its sample count supports, then its maximum. Empty for an empty histogram.
pub(crate) fn from_histogram(h: &Histogram<u64>) -> Vec<PercentilePoint> {
    if h.is_empty() {
        return Vec::new();
    }
    let x_max = x_of_max(h.len());
    let steps = (x_max * f64::from(STEPS_PER_DECADE)).floor() as u32;
    let mut points: Vec<PercentilePoint> = (0..=steps)
        .map(|i| {
            let x = f64::from(i) / f64::from(STEPS_PER_DECADE);
            let q = 1.0 - 10f64.powf(-x);
            let ns = h.value_at_quantile(q).clamp(h.min(), h.max());
            PercentilePoint {
                x,
                latency_us: ns as f64 / 1e3,
            }
        })
        .collect();
    points.push(PercentilePoint {
        x: x_max,
        latency_us: h.max() as f64 / 1e3,
    });
    points
}

/// The distribution from a report's summary when there is no interval log: the minimum, the
/// percentiles the sample count supports (p50 to p99.99) and the maximum.
pub(crate) fn from_summary(l: &LatencyReport) -> Vec<PercentilePoint> {
    let p = &l.percentiles;
    let x_max = x_of_max(p.samples);
    let at = |q: f64, ns: Nanos| PercentilePoint {
        x: percentile_x(q),
        latency_us: ns.us(),
    };
    let mut points = vec![at(0.0, p.min)];
    points.extend(
        [
            (0.5, Some(p.p50)),
            (0.9, Some(p.p90)),
            (0.99, Some(p.p99)),
            (0.999, p.p99_9),
            (0.9999, p.p99_99),
        ]
        .into_iter()
        .filter_map(|(q, ns)| Some(at(q, ns?)))
        .filter(|p| p.x < x_max),
    );
    points.push(at(0.0, p.max));
    points.last_mut().expect("just pushed").x = x_max;
    points
}

#[cfg(test)]
mod tests {
    use super::*;
    use upfbench_report::Percentiles;

    #[test]
    fn the_axis_is_labelled_in_nines() {
        let labels: Vec<String> = (0..=5).map(|x| percentile_label(f64::from(x))).collect();
        assert_eq!(labels, ["0%", "90%", "99%", "99.9%", "99.99%", "99.999%"]);
        assert!((percentile_x(0.999) - 3.0).abs() < 1e-9);
    }

    #[test]
    fn a_histogram_is_sampled_up_to_what_its_count_supports_then_its_max() {
        let mut h = Histogram::<u64>::new(3).unwrap();
        for v in 1..=10_000u64 {
            h.record(v * 100).unwrap();
        }
        let points = from_histogram(&h);
        // x from 0 to 4 (10,000 samples) by 1/20, and the maximum at 4 again.
        assert_eq!(points.len(), 4 * 20 + 1 + 1);
        assert_eq!(points[0].x, 0.0);
        assert!(
            (points[0].latency_us - 0.1).abs() < 0.001,
            "{:?}",
            points[0]
        );
        let p90 = points[20];
        assert!((p90.x - 1.0).abs() < 1e-9);
        assert!((p90.latency_us - 900.0).abs() < 1.0, "{p90:?}");
        let last = points[points.len() - 1];
        assert!((last.latency_us - 1_000.0).abs() < 1.0, "{last:?}");
        assert!(
            points
                .windows(2)
                .all(|w| w[0].latency_us <= w[1].latency_us)
        );
        assert!(from_histogram(&Histogram::<u64>::new(3).unwrap()).is_empty());
    }

    #[test]
    fn the_summary_gives_the_percentiles_its_samples_support() {
        let l = LatencyReport {
            percentiles: Percentiles {
                samples: 500,
                min: Nanos(1_000),
                p50: Nanos(1_500),
                p90: Nanos(2_000),
                p99: Nanos(5_000),
                p99_9: Some(Nanos(80_000)),
                p99_99: Some(Nanos(90_000)),
                max: Nanos(90_000),
            },
            avg_ns: 2_000.0,
            jitter_ns: None,
            jitter_max_ns: None,
            negative: 0,
            over_range: 0,
        };
        let points = from_summary(&l);
        // 500 samples: min, p50, p90, p99 and the max at log10(500); p99.9 needs 1,000.
        let xs: Vec<f64> = points
            .iter()
            .map(|p| (p.x * 100.0).round() / 100.0)
            .collect();
        assert_eq!(xs, [0.0, 0.3, 1.0, 2.0, 2.7]);
        assert_eq!(points[3].latency_us, 5.0);
        assert_eq!(points[4].latency_us, 90.0);
    }
}
