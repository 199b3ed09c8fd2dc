use std::collections::HashSet;
use std::time::Duration;

use super::*;
use upfbench_config::{Handovers, MovingUes, TargetGnb, TeidRange};

fn mobility(ues: MovingUes, handovers: Handovers, seed: u64) -> Mobility {
    Mobility {
        ues,
        handovers,
        target: TargetGnb {
            address: Ipv4Addr::new(192, 168, 13, 132),
            downlink_teid: TeidRange {
                first: Teid(0x2000_0002),
                step: 2,
            },
        },
        end_marker: true,
        seed,
    }
}

fn at(t: Duration) -> Handovers {
    Handovers {
        at: Some(t),
        rate: None,
        arrivals: Arrivals::Uniform,
        start: Duration::ZERO,
    }
}

fn rate(r: f64, arrivals: Arrivals, start: Duration) -> Handovers {
    Handovers {
        at: None,
        rate: Some(r),
        arrivals,
        start,
    }
}

#[test]
fn every_ue_moves_once_at_the_given_time() {
    let p = HandoverPlan::new(&mobility(MovingUes::All, at(Duration::from_secs(2)), 1), 10);
    assert_eq!(p.moves.len(), 10);
    let ues: HashSet<u32> = p.moves.iter().map(|m| m.ue).collect();
    assert_eq!(ues, (0..10).collect());
    assert!(p.moves.iter().all(|m| m.at_ns == 2_000_000_000));
    for (slot, m) in p.moves.iter().enumerate() {
        assert_eq!(p.slot(m.ue), Some(slot as u32));
    }
    assert_eq!(p.slot(10), None);
    assert_eq!(p.target_teid(3), Teid(0x2000_0008));
}

#[test]
fn a_fraction_moves_chosen_by_the_seed() {
    let m = |seed| mobility(MovingUes::Percent(25.0), at(Duration::from_secs(1)), seed);
    let a = HandoverPlan::new(&m(7), 1000);
    assert_eq!(a.moves.len(), 250);
    assert_eq!(a, HandoverPlan::new(&m(7), 1000), "same seed, same plan");
    let b = HandoverPlan::new(&m(8), 1000);
    assert_ne!(a.moves, b.moves, "another seed, other UEs");
    let stay = (0..1000).filter(|&ue| a.slot(ue).is_none()).count();
    assert_eq!(stay, 750);
    // Spread over the UEs, not the first quarter.
    assert!(a.moves.iter().any(|m| m.ue >= 750));
    // At least one UE of a tiny percentage.
    let one = HandoverPlan::new(
        &mobility(MovingUes::Percent(0.1), at(Duration::ZERO), 1),
        10,
    );
    assert_eq!(one.moves.len(), 1);
}

#[test]
fn uniform_arrivals_are_one_over_the_rate_apart_from_the_start() {
    let p = HandoverPlan::new(
        &mobility(
            MovingUes::All,
            rate(100.0, Arrivals::Uniform, Duration::from_millis(500)),
            3,
        ),
        50,
    );
    let times: Vec<u64> = p.moves.iter().map(|m| m.at_ns).collect();
    let want: Vec<u64> = (0..50).map(|k| 500_000_000 + k * 10_000_000).collect();
    assert_eq!(times, want);
}

#[test]
fn poisson_arrivals_have_the_rate_on_average_and_exponential_gaps() {
    let r = 1000.0;
    let p = HandoverPlan::new(
        &mobility(
            MovingUes::All,
            rate(r, Arrivals::Poisson, Duration::ZERO),
            11,
        ),
        20_000,
    );
    let gaps: Vec<f64> = p
        .moves
        .windows(2)
        .map(|w| (w[1].at_ns - w[0].at_ns) as f64 / 1e9)
        .collect();
    assert!(gaps.iter().all(|&g| g >= 0.0));
    let mean = gaps.iter().sum::<f64>() / gaps.len() as f64;
    assert!((mean * r - 1.0).abs() < 0.03, "mean gap {mean}");
    // An exponential distribution's coefficient of variation is 1; P(gap > mean) = 1/e.
    let var = gaps.iter().map(|g| (g - mean).powi(2)).sum::<f64>() / gaps.len() as f64;
    assert!((var.sqrt() / mean - 1.0).abs() < 0.05);
    let above = gaps.iter().filter(|&&g| g > mean).count() as f64 / gaps.len() as f64;
    assert!((above - (-1.0f64).exp()).abs() < 0.02, "{above}");
    assert_eq!(
        p,
        HandoverPlan::new(
            &mobility(
                MovingUes::All,
                rate(r, Arrivals::Poisson, Duration::ZERO),
                11
            ),
            20_000,
        )
    );
}
