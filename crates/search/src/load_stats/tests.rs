use proptest::prelude::*;

use super::*;

const LOAD: f64 = 1_000_000.0;

fn trial(duration_s: f64, loss_ratio: f64) -> TrialResult {
    TrialResult::lossy(LOAD, duration_s, loss_ratio)
}

fn class(goal: &SearchGoal, trials: &[TrialResult]) -> LoadClass {
    LoadSums::of(goal, trials).classify(goal)
}

#[test]
fn defaults_are_csits_and_valid() {
    for g in [SearchGoal::NDR, SearchGoal::PDR] {
        g.check().unwrap();
        assert_eq!((g.final_trial_duration_s, g.duration_sum_s), (1.0, 21.0));
        assert_eq!((g.exceed_ratio, g.relative_width), (0.5, 0.005));
    }
    assert_eq!(SearchGoal::PDR.loss_ratio, 0.005);
    let bad = SearchGoal {
        exceed_ratio: 1.0,
        ..SearchGoal::NDR
    };
    assert_eq!(bad.check().unwrap_err().field, "exceed_ratio");
}

#[test]
fn a_load_is_decided_only_by_enough_time() {
    let g = SearchGoal::PDR;
    // No trial, or 1 s low-loss of the 21 s: could still go either way.
    assert_eq!(class(&g, &[]), LoadClass::Undecided);
    assert_eq!(class(&g, &[trial(1.0, 0.0)]), LoadClass::Undecided);
    // 11 s low-loss: even 10 s of high-loss to come would be under half of 21 s.
    let low: Vec<_> = (0..11).map(|_| trial(1.0, 0.001)).collect();
    assert_eq!(class(&g, &low), LoadClass::LowerBound);
    // 10 s: 11 s of high-loss could still come.
    assert_eq!(class(&g, &low[..10]), LoadClass::Undecided);
    // 11 s high-loss is more than half of 21 s whatever comes: an upper bound at once.
    let high: Vec<_> = (0..11).map(|_| trial(1.0, 0.006)).collect();
    assert_eq!(class(&g, &high), LoadClass::UpperBound);
    assert_eq!(class(&g, &high[..10]), LoadClass::Undecided);
    // The loss ratio itself is low-loss (not above it).
    assert_eq!(class(&g, &[trial(11.0, 0.005)]), LoadClass::LowerBound);
}

#[test]
fn short_high_loss_counts_only_beyond_what_short_low_loss_balances() {
    let g = SearchGoal::NDR; // exceed ratio 0.5: 1 s of short low-loss balances 1 s of high-loss
    let short = |loss| TrialResult {
        intended_duration_s: 0.5,
        duration_s: 6.0,
        ..trial(6.0, loss)
    };
    // 12 s short high-loss, balanced by 6 s short low-loss: 6 s effective, under 10.5 s.
    let sums = LoadSums::of(&g, &[short(0.1), short(0.1), short(0.0)]);
    assert_eq!((sums.bad_short, sums.good_short), (12.0, 6.0));
    assert_eq!(sums.classify(&g), LoadClass::Undecided);
    // 18 s short high-loss, 6 s balanced: 12 s effective, over 10.5 s: an upper bound.
    let sums = LoadSums::of(&g, &[short(0.1), short(0.1), short(0.1), short(0.0)]);
    assert_eq!(sums.classify(&g), LoadClass::UpperBound);
    // Short low-loss time never makes a lower bound: only full-length time does.
    let many: Vec<_> = (0..10).map(|_| short(0.0)).collect();
    assert_eq!(class(&g, &many), LoadClass::Undecided);
}

#[test]
fn conditional_throughput_is_the_load_less_the_quantile_loss() {
    let g = SearchGoal::PDR;
    // 21 trials of 1 s, sorted by loss: the quantile is the 11th (10.5 s used up after it).
    let mut trials: Vec<_> = (0..10).map(|_| trial(1.0, 0.0)).collect();
    trials.extend((0..11).map(|_| trial(1.0, 0.002)));
    assert_eq!(
        conditional_throughput(&g, &trials),
        Some(LOAD * (1.0 - 0.002))
    );
    let mut trials: Vec<_> = (0..11).map(|_| trial(1.0, 0.0)).collect();
    trials.extend((0..10).map(|_| trial(1.0, 0.004)));
    assert_eq!(conditional_throughput(&g, &trials), Some(LOAD));
    // Too little full-length time to reach the quantile: the rest counts as lost.
    assert_eq!(conditional_throughput(&g, &trials[..10]), Some(0.0));
    // Short trials are not looked at; none full-length: no value.
    let short = TrialResult {
        intended_duration_s: 0.1,
        ..trial(0.1, 0.0)
    };
    assert_eq!(conditional_throughput(&g, &[short]), None);
}

#[test]
fn relevant_bounds_take_the_smallest_upper_and_the_largest_lower_below_it() {
    let g = SearchGoal::PDR;
    let at = |load: f64, loss: f64| -> Vec<TrialResult> {
        (0..21)
            .map(|_| TrialResult {
                intended_load: load,
                ..trial(1.0, loss)
            })
            .collect()
    };
    let mut trials = Vec::new();
    for (load, loss) in [(100.0, 0.0), (200.0, 0.001), (300.0, 0.01), (250.0, 0.02)] {
        trials.extend(at(load, loss));
    }
    // A lower bound above the smallest upper bound (a noisy UPF) is not relevant.
    trials.extend(at(400.0, 0.0));
    let b = super::super::relevant_bounds(&g, &trials);
    assert_eq!((b.lower, b.upper), (Some(200.0), Some(250.0)));
    let ndr = super::super::relevant_bounds(&SearchGoal::NDR, &trials);
    assert_eq!((ndr.lower, ndr.upper), (Some(100.0), Some(200.0)));
}

fn arb_trial() -> impl Strategy<Value = TrialResult> {
    (
        prop::sample::select(vec![0.5, 1.0, 2.0]),
        0.1f64..3.0,
        prop::sample::select(vec![0.0, 0.001, 0.005, 0.01, 0.5]),
    )
        .prop_map(|(intended, extra, loss)| TrialResult {
            duration_s: intended + extra * 0.1,
            ..TrialResult::lossy(LOAD, intended, loss)
        })
}

proptest! {
    /// More full-length low-loss time never makes a load worse for a goal, and more
    /// full-length high-loss time never makes it better.
    #[test]
    fn classification_is_monotone_in_the_evidence(
        trials in prop::collection::vec(arb_trial(), 0..40),
        extra in 0.5f64..5.0,
    ) {
        let rank = |c: LoadClass| match c {
            LoadClass::UpperBound => 0,
            LoadClass::Undecided => 1,
            LoadClass::LowerBound => 2,
        };
        for g in [SearchGoal::NDR, SearchGoal::PDR] {
            let before = rank(class(&g, &trials));
            let mut good = trials.clone();
            good.push(trial(extra.max(1.0), 0.0));
            prop_assert!(rank(class(&g, &good)) >= before);
            let mut bad = trials.clone();
            bad.push(trial(extra.max(1.0), 0.9));
            prop_assert!(rank(class(&g, &bad)) <= before);
        }
    }

    /// The conditional throughput lies between the load less its worst and its best
    /// full-length loss ratio, or is 0 when the full-length time is short of the quantile; and
    /// it does not depend on the trials' order.
    #[test]
    fn conditional_throughput_is_a_quantile(
        mut trials in prop::collection::vec(arb_trial(), 1..40),
    ) {
        let g = SearchGoal::PDR;
        let Some(ct) = conditional_throughput(&g, &trials) else {
            prop_assert!(trials.iter().all(|t| t.intended_duration_s < 1.0));
            return Ok(());
        };
        let losses: Vec<f64> = trials
            .iter()
            .filter(|t| t.intended_duration_s >= 1.0)
            .map(|t| t.loss_ratio)
            .collect();
        let worst = losses.iter().copied().fold(0.0, f64::max);
        let best = losses.iter().copied().fold(1.0, f64::min);
        prop_assert!(ct == 0.0 || (LOAD * (1.0 - worst) <= ct && ct <= LOAD * (1.0 - best)));
        trials.reverse();
        prop_assert_eq!(conditional_throughput(&g, &trials), Some(ct));
    }
}
