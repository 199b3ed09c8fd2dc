//! The controller against simulated UPFs: the bounds it reports must satisfy RFC 9971's
//! definitions (checked here by brute force over every load measured), reach each goal's
//! width, and hold the UPF's true limit between them; and it must be deterministic.

use proptest::prelude::*;

use super::super::goal::{LatencyBound, Percentile};
use super::super::load_stats::LatencyPoints;
use super::*;

const MAX: f64 = 10_000_000.0;
const MIN: f64 = 10_000.0;

/// A deterministic noise source (xorshift64*), so that a simulated UPF is reproducible.
struct Noise(u64);

impl Noise {
    fn unit(&mut self) -> f64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        (self.0.wrapping_mul(0x2545_f491_4f6c_dd1d) >> 11) as f64 / (1u64 << 53) as f64
    }
}

/// A UPF that forwards up to `capacity` pps and drops the rest.
fn sharp(capacity: f64) -> impl FnMut(TrialRequest) -> TrialResult {
    move |r| TrialResult::lossy(r.load, r.duration_s, (1.0 - capacity / r.load).max(0.0))
}

/// A UPF whose capacity wanders a little from trial to trial (noise), and that loses a few
/// packets now and then below it.
fn noisy_knee(knee: f64, seed: u64) -> impl FnMut(TrialRequest) -> TrialResult {
    let mut noise = Noise(seed | 1);
    move |r| {
        let capacity = knee * (1.0 - 0.02 * noise.unit());
        let mut loss = (1.0 - capacity / r.load).max(0.0);
        if noise.unit() < 0.1 {
            loss += 1e-4 * noise.unit();
        }
        TrialResult::lossy(r.load, r.duration_s, loss.min(1.0))
    }
}

/// A UPF that never loses a packet below `capacity`, but whose queue grows with the load:
/// p99 = 10 us / (1 − load / capacity).
fn queueing(capacity: f64) -> impl FnMut(TrialRequest) -> TrialResult {
    move |r| {
        let rho = (r.load / capacity).min(0.999_999);
        let p99 = (10_000.0 / (1.0 - rho)) as u64;
        TrialResult {
            latency: Some(LatencyPoints {
                p50_ns: p99 / 4,
                p90_ns: p99 / 2,
                p99_ns: p99,
                p99_9_ns: p99 * 2,
                p99_99_ns: p99 * 3,
                max_ns: p99 * 4,
            }),
            ..TrialResult::lossy(r.load, r.duration_s, (1.0 - capacity / r.load).max(0.0))
        }
    }
}

/// A tester that cannot send more than `limit` pps, in front of `upf`.
fn tester_limited(
    limit: f64,
    mut upf: impl FnMut(TrialRequest) -> TrialResult,
) -> impl FnMut(TrialRequest) -> TrialResult {
    move |r| {
        if r.load > limit {
            TrialResult {
                offered_load: limit,
                tester_limited: true,
                ..upf(TrialRequest { load: limit, ..r })
            }
            .with_intended(r.load)
        } else {
            upf(r)
        }
    }
}

impl TrialResult {
    fn with_intended(self, load: f64) -> TrialResult {
        TrialResult {
            intended_load: load,
            ..self
        }
    }
}

fn search(goals: Vec<SearchGoal>) -> Search {
    Search::new(SearchConfig::new(goals, MIN, MAX)).unwrap()
}

/// Runs `s` against `upf` to its end; the trials' requests, in order.
fn run(s: &mut Search, mut upf: impl FnMut(TrialRequest) -> TrialResult) -> Vec<TrialRequest> {
    let mut asked = Vec::new();
    while let Some(r) = s.poll_trial() {
        assert!(asked.len() < 2_000, "the search does not end");
        assert!(
            (MIN..=MAX).contains(&r.load),
            "load {} out of range",
            r.load
        );
        asked.push(r);
        s.handle_trial(upf(r));
    }
    asked
}

/// RFC 9971's definitions, by brute force over every load measured: the relevant upper bound
/// is the smallest load classified as an upper bound, the relevant lower bound the largest
/// load classified as a lower bound below it; and the conditional throughput is no more than
/// the lower bound.
fn check_definitions(s: &Search) {
    let trials = s.trials();
    for (goal, outcome) in s.config().goals.iter().zip(s.outcomes()) {
        let mut upper = None::<f64>;
        let mut lowers = Vec::new();
        for t in trials {
            let l = t.intended_load;
            match LoadSums::of(goal, trials.iter().filter(|t| t.intended_load == l)).classify(goal)
            {
                LoadClass::UpperBound => upper = Some(upper.map_or(l, |u| u.min(l))),
                LoadClass::LowerBound => lowers.push(l),
                LoadClass::Undecided => {}
            }
        }
        let lower = lowers
            .into_iter()
            .filter(|&l| upper.is_none_or(|u| l < u))
            .max_by(f64::total_cmp);
        assert_eq!(outcome.bounds.upper, upper);
        assert_eq!(outcome.bounds.lower, lower);
        if let (Some(ct), Some(l)) = (outcome.conditional_throughput, lower) {
            assert!(ct <= l && ct >= l * (1.0 - goal.loss_ratio) - 1e-6);
        }
        match outcome.ending {
            Ending::Regular => {
                let (l, u) = (lower.unwrap(), upper.unwrap());
                assert!((u - l) / u <= goal.relative_width, "{l} {u}");
            }
            Ending::MaxLoad => assert_eq!(lower, Some(MAX)),
            Ending::MinLoad => assert!(upper.unwrap() <= MIN),
            Ending::TesterLimited => {
                let c = outcome.tester_limit.unwrap();
                assert!((c - lower.unwrap()) / c <= goal.relative_width);
            }
            Ending::Incomplete => panic!("a search that ended left a goal incomplete"),
        }
    }
}

/// The goal's true limit lies within its bounds.
fn assert_brackets(outcome: &GoalOutcome, limit: f64) {
    let (l, u) = (outcome.bounds.lower.unwrap(), outcome.bounds.upper.unwrap());
    assert!(l <= limit && limit < u, "{l} <= {limit} < {u}");
}

#[test]
fn a_sharp_capacity_is_bracketed_within_the_width() {
    let capacity = 3_456_789.0;
    let mut s = search(vec![SearchGoal::NDR, SearchGoal::PDR]);
    let asked = run(&mut s, sharp(capacity));
    check_definitions(&s);
    let [ndr, pdr] = s.outcomes()[..] else {
        unreachable!()
    };
    assert_eq!(ndr.ending, Ending::Regular);
    assert_brackets(&ndr, capacity);
    // PDR: the load at which 0.5 % is lost.
    assert_brackets(&pdr, capacity / 0.995);
    // The first trial is at Max Load, short; it lost 65 %: the second goes where the
    // packets that got through said.
    assert_eq!(asked[0].load, MAX);
    assert!((asked[1].load - capacity).abs() < 1.0);
    // Few trials: the coarse targets find it, the goals' 21 s go to the two bounds (each
    // needs 11 full-length trials), and a little more.
    assert!(asked.len() < 80, "{} trials", asked.len());
    let ct = ndr.conditional_throughput.unwrap();
    assert_eq!(ct, ndr.bounds.lower.unwrap());
}

#[test]
fn a_noisy_knee_ends_regular_and_near_the_knee() {
    for seed in 1..20 {
        let knee = 2_000_000.0;
        let mut s = search(vec![SearchGoal::NDR, SearchGoal::PDR]);
        run(&mut s, noisy_knee(knee, seed));
        check_definitions(&s);
        for o in s.outcomes() {
            assert_eq!(o.ending, Ending::Regular, "seed {seed}");
            let l = o.bounds.lower.unwrap();
            // The capacity wanders over 2 % below the knee; PDR may reach 0.5 % above it.
            assert!(l > knee * 0.96 && l < knee * 1.006, "seed {seed}: {l}");
        }
    }
}

#[test]
fn a_latency_bound_limits_the_goal_below_the_loss_limit() {
    let capacity = 5_000_000.0;
    let bounded = SearchGoal {
        latency: Some(LatencyBound {
            percentile: Percentile::P99,
            max_ns: 100_000,
        }),
        ..SearchGoal::PDR
    };
    let mut s = search(vec![SearchGoal::PDR, bounded]);
    run(&mut s, queueing(capacity));
    check_definitions(&s);
    let [pdr, latency] = s.outcomes()[..] else {
        unreachable!()
    };
    assert_brackets(&pdr, capacity / 0.995);
    // p99 ≤ 100 us while 10 us / (1 − ρ) ≤ 100 us: ρ ≤ 0.9.
    assert_eq!(latency.ending, Ending::Regular);
    assert_brackets(&latency, capacity * 0.9);
}

#[test]
fn the_tester_limit_is_never_the_upfs_and_never_passed() {
    let limit = 4_000_000.0;
    let mut s = search(vec![SearchGoal::NDR, SearchGoal::PDR]);
    let asked = run(&mut s, tester_limited(limit, sharp(6_000_000.0)));
    check_definitions(&s);
    for o in s.outcomes() {
        assert_eq!(o.ending, Ending::TesterLimited);
        let c = o.tester_limit.unwrap();
        assert!(c > limit && c < limit * 1.02, "{c}");
        let l = o.bounds.lower.unwrap();
        assert!(l <= limit && l >= c * (1.0 - 0.005), "{l}");
    }
    // No trial at or above a load the tester fell short at twice before it.
    let mut ceiling = f64::INFINITY;
    let mut short = Vec::new();
    for (r, t) in asked.iter().zip(s.trials()) {
        assert!(r.load < ceiling, "{} after a limit at {ceiling}", r.load);
        if t.tester_limited {
            if short.contains(&r.load) {
                ceiling = ceiling.min(r.load);
            }
            short.push(r.load);
        }
    }
    assert!(asked.len() < 100, "{} trials", asked.len());
}

#[test]
fn loss_at_every_load_leaves_no_ndr_above_min_load() {
    // Drops 1 in 1,000 at any load (a reflector told to): NDR has no lower bound.
    let mut s = search(vec![SearchGoal::NDR, SearchGoal::PDR]);
    run(&mut s, |r: TrialRequest| {
        TrialResult::lossy(r.load, r.duration_s, 0.001)
    });
    check_definitions(&s);
    let [ndr, pdr] = s.outcomes()[..] else {
        unreachable!()
    };
    assert_eq!(ndr.ending, Ending::MinLoad);
    assert_eq!(ndr.bounds.lower, None);
    assert_eq!(pdr.ending, Ending::MaxLoad);
    assert_eq!(pdr.conditional_throughput, Some(MAX * 0.999));
}

#[test]
fn a_stopped_search_reports_its_bounds_so_far_as_incomplete() {
    let mut s = search(vec![SearchGoal::NDR]);
    let mut upf = sharp(1_000_000.0);
    for _ in 0..15 {
        let r = s.poll_trial().unwrap();
        s.handle_trial(upf(r));
    }
    s.stop();
    assert_eq!(s.poll_trial(), None);
    let [o] = s.outcomes()[..] else {
        unreachable!()
    };
    assert_eq!(o.ending, Ending::Incomplete);
    // 15 trials decided the goal's lower bound (11 s without loss at the capacity, the
    // forwarding rate of the first trial), not yet its upper one.
    assert!(
        o.bounds
            .lower
            .is_some_and(|l| (l - 1_000_000.0).abs() < 1.0)
    );
    assert_eq!(o.bounds.upper, None);
    assert_eq!(s.trials().len(), 15);
    assert!(!s.is_done());
}

#[test]
fn bad_configurations_are_refused() {
    let new = |goals, min, max| Search::new(SearchConfig::new(goals, min, max)).unwrap_err();
    assert_eq!(new(vec![], 1.0, 2.0), ConfigError::NoGoal);
    assert!(matches!(
        new(vec![SearchGoal::NDR], 0.0, 2.0),
        ConfigError::Loads { .. }
    ));
    let bad = SearchGoal {
        relative_width: 0.0,
        ..SearchGoal::NDR
    };
    assert!(matches!(
        new(vec![bad], 1.0, 2.0),
        ConfigError::Goal { index: 0, .. }
    ));
}

#[test]
fn the_estimate_shrinks_to_nothing() {
    let mut s = search(vec![SearchGoal::NDR, SearchGoal::PDR]);
    let first = s.estimate_left_s(0.5);
    assert!(first > 20.0, "{first}");
    run(&mut s, sharp(2_000_000.0));
    assert_eq!(s.estimate_left_s(0.5), 0.0);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// For any UPF of this family (knee, noise, seed), the search ends with bounds that
    /// satisfy the definitions and reach the widths; and given the same trial results it
    /// asks for the same trials.
    #[test]
    fn bounds_satisfy_the_definitions_and_the_search_is_deterministic(
        knee in 20_000.0f64..9_000_000.0,
        seed in any::<u64>(),
        width in prop::sample::select(vec![0.001, 0.005, 0.02]),
        sum in prop::sample::select(vec![1.0, 5.0, 21.0]),
    ) {
        let goals = vec![
            SearchGoal { relative_width: width, duration_sum_s: sum, ..SearchGoal::NDR },
            SearchGoal { relative_width: width, duration_sum_s: sum, ..SearchGoal::PDR },
        ];
        let mut a = search(goals.clone());
        let asked = run(&mut a, noisy_knee(knee, seed));
        check_definitions(&a);
        prop_assert!(a.is_done());
        // The same results, fed again from the record: the same requests.
        let mut b = search(goals);
        let mut replay = a.trials().iter();
        let again = run(&mut b, |_| *replay.next().unwrap());
        prop_assert_eq!(asked, again);
        prop_assert_eq!(a.outcomes(), b.outcomes());
    }
}

#[test]
fn rfc_2544_bisection_halves_from_max_load_to_the_width() {
    let rfc2544 = SearchGoal {
        exceed_ratio: 0.0,
        initial_trial_duration_s: 60.0,
        final_trial_duration_s: 60.0,
        duration_sum_s: 60.0,
        ..SearchGoal::NDR
    };
    let mut config = SearchConfig::new(vec![rfc2544], MIN, MAX);
    config.strategy = super::Strategy::Bisection;
    let mut s = Search::new(config).unwrap();
    let capacity = 3_456_789.0;
    let asked = run(&mut s, sharp(capacity));
    check_definitions(&s);
    assert_brackets(&s.outcomes()[0], capacity);
    // Max Load, then the middle of [Min Load, Max Load], then of each new interval.
    assert_eq!(asked[0].load, MAX);
    assert_eq!(asked[1].load, (MIN + MAX) / 2.0);
    assert!(asked.iter().all(|r| r.duration_s == 60.0));
    // Each trial halves the interval, from 9.99 Mpps to 0.5 % of 3.46 Mpps: log2(578) ≈ 9.2
    // halvings, and the first trial.
    assert!((10..=12).contains(&asked.len()), "{} trials", asked.len());
}

#[test]
fn a_tester_that_stalls_now_and_then_ends_the_search_without_crawling() {
    for seed in 1..30 {
        let mut noise = Noise(seed);
        let mut upf = sharp(3_000_000.0);
        let stalling = move |r: TrialRequest| {
            let mut t = upf(r);
            // One trial in ten: the tester fell behind and sent 30 % less.
            if noise.unit() < 0.1 {
                t.tester_limited = true;
                t.offered_load = r.load * 0.7;
            }
            t
        };
        let mut s = search(vec![SearchGoal::NDR, SearchGoal::PDR]);
        let asked = run(&mut s, stalling);
        check_definitions(&s);
        assert!(asked.len() < 150, "seed {seed}: {} trials", asked.len());
        for o in s.outcomes() {
            assert!(
                matches!(o.ending, Ending::Regular | Ending::TesterLimited),
                "seed {seed}: {o:?}"
            );
            // Whatever the tester did, a lower bound is never above the UPF's capacity.
            assert!(o.bounds.lower.is_none_or(|l| l <= 3_000_000.0 / 0.995));
        }
    }
}
