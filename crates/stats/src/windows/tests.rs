use super::*;
use proptest::prelude::*;

#[test]
fn arrivals_fall_in_their_windows() {
    let mut t = RateWindows::new(2, 10, 3).unwrap();
    t.start(1_000);
    t.record(0, 1_000, 100); // window 0, its first ns
    t.record(0, 1_009, 1); // window 0, its last ns
    t.record(1, 1_010, 7); // window 1
    t.record(0, 1_025, 5); // window 2
    t.record(0, 1_004, 2); // back in window 0: a core's clock is not always monotonic
    t.record(0, 999, 50); // before the start
    t.record(0, 1_030, 50); // after the last window
    t.record(2, 1_012, 50); // no such group
    assert_eq!(t.group(0), &[103, 0, 5]);
    assert_eq!(t.group(1), &[0, 7, 0]);
    assert_eq!(t.group(2), &[] as &[u64]);
    assert_eq!(t.outside(), (1, 1, 1));
}

#[test]
fn start_empties_the_table() {
    let mut t = RateWindows::new(1, 10, 2).unwrap();
    t.record(0, 5, 9);
    t.start(100);
    assert_eq!(t.group(0), &[0, 0]);
    // The window found before the restart is not reused.
    t.record(0, 5, 9);
    t.record(0, 115, 4);
    assert_eq!(t.group(0), &[0, 4]);
    assert_eq!(t.outside(), (1, 0, 0));
}

#[test]
fn merge_adds_tables_of_one_shape_only() {
    let mut a = RateWindows::new(1, 10, 2).unwrap();
    let mut b = RateWindows::new(1, 10, 2).unwrap();
    a.record(0, 1, 3);
    b.record(0, 12, 4);
    b.record(0, 99, 4);
    a.merge(&b).unwrap();
    assert_eq!(a.group(0), &[3, 4]);
    assert_eq!(a.outside(), (0, 1, 0));
    let mut c = RateWindows::new(1, 10, 2).unwrap();
    c.start(5);
    assert_eq!(a.merge(&c), Err(WindowsMergeError::Shape));
    let d = RateWindows::new(1, 10, 3).unwrap();
    assert_eq!(a.merge(&d), Err(WindowsMergeError::Shape));
}

#[test]
fn tables_too_large_or_empty_are_refused() {
    assert_eq!(
        RateWindows::new(3_000, DEFAULT_WINDOW_NS, 6_000).unwrap_err(),
        WindowsConfigError::TooLarge {
            groups: 3_000,
            windows: 6_000
        }
    );
    assert_eq!(
        RateWindows::new(1, 0, 1).unwrap_err(),
        WindowsConfigError::ZeroWindow
    );
    assert_eq!(
        RateWindows::new(0, 1, 1).unwrap_err(),
        WindowsConfigError::Empty
    );
    assert_eq!(RateWindows::windows_for(1_000_000_001, 10_000_000), 101);
    assert_eq!(RateWindows::windows_for(1_000_000_000, 10_000_000), 100);
}

#[test]
fn conformance_of_a_known_flow() {
    // 2 s of 10 ms windows: 1,250 bytes each (1 Mbit/s), but 5,000 in the 10th.
    let mut w = vec![1_250u64; 200];
    w[10] = 5_000;
    let c = Conformance::of(&w, DEFAULT_WINDOW_NS, 0..200, 1e6).unwrap();
    assert_eq!(c.per_second_bps.len(), 2);
    assert!((c.per_second_bps[0] - (1e6 + 3_750.0 * 8.0)).abs() < 1e-6);
    assert!((c.per_second_bps[1] - 1e6).abs() < 1e-6);
    assert!((c.burst_bytes - 3_750.0).abs() < 1e-6);
    assert!((c.peak_window_bps - 4e6).abs() < 1e-6);
    assert!((c.ratio - (1.0 + 3_750.0 * 8.0 / 2e6)).abs() < 1e-9);
    // Under the limit: no burst.
    let c = Conformance::of(&[100; 50], DEFAULT_WINDOW_NS, 0..50, 1e6).unwrap();
    assert_eq!(c.burst_bytes, 0.0);
    assert!(Conformance::of(&w, DEFAULT_WINDOW_NS, 5..5, 1e6).is_none());
    assert!(Conformance::of(&w, DEFAULT_WINDOW_NS, 0..201, 1e6).is_none());
    assert!(Conformance::of(&w, DEFAULT_WINDOW_NS, 0..10, 0.0).is_none());
}

/// A token bucket of `rate` bytes per ns and `depth` bytes, full at the start, offered a packet
/// of `size` bytes every `gap` ns for `n` packets: the bytes it passed per window of `window`.
fn policed(rate: f64, depth: f64, size: u32, gap: u64, n: u64, window: u64) -> (Vec<u64>, f64) {
    let mut t = RateWindows::new(1, window, RateWindows::windows_for(n * gap, window)).unwrap();
    let (mut tokens, mut last) = (depth, 0u64);
    let mut passed = 0.0;
    for k in 0..n {
        let now = k * gap;
        tokens = (tokens + (now - last) as f64 * rate).min(depth);
        last = now;
        if tokens >= f64::from(size) {
            tokens -= f64::from(size);
            passed += f64::from(size);
            t.record(0, now, size);
        }
    }
    (t.group(0).to_vec(), passed)
}

proptest! {
    /// The burst is the brute force's most over any run of windows.
    #[test]
    fn burst_is_the_most_over_any_run(
        w in proptest::collection::vec(0u64..10_000, 1..80),
        limit in 1.0f64..1e7,
    ) {
        let c = Conformance::of(&w, 1_000_000, 0..w.len(), limit).unwrap();
        let allowed = limit / 8.0 * 1e-3;
        let mut brute = 0.0f64;
        for i in 0..w.len() {
            for j in i..w.len() {
                let sum: u64 = w[i..=j].iter().sum();
                brute = brute.max(sum as f64 - allowed * (j - i + 1) as f64);
            }
        }
        prop_assert!((c.burst_bytes - brute).abs() <= 1e-6 * brute.max(1.0));
    }

    /// Against a token bucket offered more than its rate: the burst seen is at most its depth,
    /// and at least the depth less what one window and one packet can hide; the rate passed is
    /// the bucket's.
    #[test]
    fn a_token_bucket_shows_its_depth(
        rate_mbps in 1.0f64..100.0,
        depth_pkts in 2u32..50,
        over in 1.2f64..3.0,
    ) {
        let size = 1_000u32;
        let rate = rate_mbps * 1e6 / 8.0 / 1e9; // bytes per ns
        let depth = f64::from(depth_pkts * size);
        let gap = (f64::from(size) / (rate * over)) as u64;
        let n = 2_000_000_000 / gap; // 2 s
        let window = 10_000_000;
        let (w, passed) = policed(rate, depth, size, gap, n, window);
        let whole = w.len() - 1; // the last window is partial
        let c = Conformance::of(&w, window, 0..whole, rate_mbps * 1e6).unwrap();
        prop_assert!(c.burst_bytes <= depth + 1e-6, "{} > {}", c.burst_bytes, depth);
        prop_assert!(c.burst_bytes >= depth - 2.0 * f64::from(size) - 1e-6,
            "{} much under {}", c.burst_bytes, depth);
        prop_assert!((c.ratio - 1.0).abs() < 0.02 + depth * 8.0 / 2.0 / (rate_mbps * 1e6),
            "ratio {}", c.ratio);
        prop_assert!(passed > 0.0);
    }
}
