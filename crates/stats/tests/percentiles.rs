//! Latency percentiles against a sorted reference, within the HDR histogram's precision.

use proptest::prelude::*;
use upfbench_stats::{LatencyConfig, LatencyRecorder};

const QUANTILES: [f64; 8] = [0.0, 0.01, 0.5, 0.9, 0.99, 0.999, 0.9999, 1.0];

/// Nearest-rank percentile: the smallest sample with at least `q * n` samples at or below it.
fn nearest_rank(sorted: &[u64], q: f64) -> u64 {
    let rank = ((q * sorted.len() as f64).ceil() as usize).max(1);
    sorted[rank - 1]
}

fn values() -> impl Strategy<Value = Vec<u64>> {
    let one = prop_oneof![
        8 => 0u64..5_000,                 // loopback-like microseconds
        4 => 5_000u64..2_000_000,         // queueing
        1 => 2_000_000u64..5_000_000_000, // stalls
    ];
    prop::collection::vec(one, 1..3000)
}

fn check(values: &[u64], config: &LatencyConfig) -> Result<(), TestCaseError> {
    let mut r = LatencyRecorder::new(config).unwrap();
    for &v in values {
        r.record(v as i64);
    }
    let mut sorted = values.to_vec();
    sorted.sort_unstable();
    // Exact figures are exact.
    prop_assert_eq!(r.count(), values.len() as u64);
    prop_assert_eq!(r.min_ns(), Some(sorted[0]));
    prop_assert_eq!(r.max_ns(), Some(*sorted.last().unwrap()));
    let mean = values.iter().map(|&v| u128::from(v)).sum::<u128>() as f64 / values.len() as f64;
    prop_assert!((r.mean_ns().unwrap() - mean).abs() <= mean * 1e-12);
    // Percentiles: equivalent to the reference sample, never below it, within 10^-digits.
    let rel = 10f64.powi(-i32::from(config.significant_digits));
    for q in QUANTILES {
        let want = nearest_rank(&sorted, q);
        let got = r.quantile_ns(q).unwrap();
        prop_assert!(
            r.histogram().equivalent(got, want),
            "q={} got {} want {}",
            q,
            got,
            want
        );
        prop_assert!(got >= want, "q={} got {} below {}", q, got, want);
        prop_assert!(
            (got - want) as f64 <= (want as f64 * rel).max(0.0),
            "q={} got {} want {}",
            q,
            got,
            want
        );
    }
    Ok(())
}

proptest! {
    // Each case builds and scans histograms of tens of thousands of buckets: fewer cases.
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn percentiles_match_sorted_reference_3_digits(v in values()) {
        check(&v, &LatencyConfig::default())?;
    }

    #[test]
    fn percentiles_match_sorted_reference_4_digits(v in values()) {
        check(&v, &LatencyConfig { significant_digits: 4, ..LatencyConfig::default() })?;
    }

    #[test]
    fn merged_recorders_equal_one_recorder(v in values(), parts in 1usize..5) {
        let config = LatencyConfig::default();
        let mut whole = LatencyRecorder::new(&config).unwrap();
        let mut pieces: Vec<LatencyRecorder> =
            (0..parts).map(|_| LatencyRecorder::new(&config).unwrap()).collect();
        for (i, &x) in v.iter().enumerate() {
            whole.record(x as i64);
            pieces[(x as usize ^ i) % parts].record(x as i64);
        }
        let mut merged = LatencyRecorder::new(&config).unwrap();
        for p in &pieces {
            merged.merge(p);
        }
        prop_assert_eq!(&merged, &whole);
        for q in QUANTILES {
            prop_assert_eq!(merged.quantile_ns(q), whole.quantile_ns(q));
        }
    }
}

#[test]
fn known_distribution() {
    // 1..=100_000 ns, one each: p50 is 50_000, p99 is 99_000, to 3 digits.
    let mut r = LatencyRecorder::new(&LatencyConfig::default()).unwrap();
    for v in 1..=100_000i64 {
        r.record(v);
    }
    let p50 = r.quantile_ns(0.5).unwrap();
    let p99 = r.quantile_ns(0.99).unwrap();
    assert!((50_000..=50_000 + 50).contains(&p50), "{p50}");
    assert!((99_000..=99_000 + 99).contains(&p99), "{p99}");
    assert_eq!(r.quantile_ns(1.0), Some(100_000));
    assert_eq!(r.mean_ns(), Some(50_000.5));
}
