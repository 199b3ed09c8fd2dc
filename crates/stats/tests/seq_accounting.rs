//! The sequence tracker against the truth and against an independent reference model, for any
//! pattern of drops, reorders and duplicates, including displacements beyond the window and
//! sequence numbers that wrap.

use std::collections::{BTreeMap, BTreeSet};

use proptest::prelude::*;
use upfbench_stats::{Arrival, SeqCounters, SeqTracker};

/// What happens to one sent packet.
#[derive(Debug, Clone)]
struct Fate {
    dropped: bool,
    /// Delay of each copy (1 + duplicates), in packet slots.
    delays: Vec<u32>,
}

fn fate(max_delay: u32) -> impl Strategy<Value = Fate> {
    (
        prop::bool::weighted(0.15),
        prop::collection::vec(0..=max_delay, 1..=3usize),
        prop::bool::weighted(0.8),
    )
        .prop_map(|(dropped, mut delays, single)| {
            if single {
                delays.truncate(1);
            }
            Fate { dropped, delays }
        })
}

#[derive(Debug, Clone)]
struct Scenario {
    first_seq: u32,
    window: u32,
    /// Arrival order as true positions 0..sent.
    arrivals: Vec<u64>,
    sent: u64,
}

fn scenario() -> impl Strategy<Value = Scenario> {
    let first = prop_oneof![any::<u32>(), (u32::MAX - 3000)..=u32::MAX, Just(0u32)];
    let window = prop::sample::select(vec![64u32, 128, 1024]);
    let max_delay = prop::sample::select(vec![0u32, 3, 40, 200, 3000]);
    (first, window, max_delay, 0usize..1500)
        .prop_flat_map(|(first, window, max_delay, n)| {
            (
                Just(first),
                Just(window),
                prop::collection::vec(fate(max_delay), n),
                any::<u64>(),
            )
        })
        .prop_map(|(first_seq, window, fates, salt)| {
            // Each copy arrives at slot (position + delay); ties broken by a salted hash.
            let mut keyed: Vec<(u64, u64, u64)> = Vec::new();
            for (i, f) in fates.iter().enumerate() {
                if f.dropped {
                    continue;
                }
                for (k, d) in f.delays.iter().enumerate() {
                    let tie = (i as u64 * 31 + k as u64)
                        .wrapping_mul(salt | 1)
                        .rotate_left(17);
                    keyed.push((i as u64 + u64::from(*d), tie, i as u64));
                }
            }
            keyed.sort_unstable();
            Scenario {
                first_seq,
                window,
                arrivals: keyed.into_iter().map(|(_, _, i)| i).collect(),
                sent: fates.len() as u64,
            }
        })
}

/// The definitions of `seq.rs`, written the obvious way over true positions with a set.
fn reference(window: u64, arrivals: &[u64], sent: u64) -> SeqCounters {
    let mut c = SeqCounters {
        sent,
        ..SeqCounters::default()
    };
    let mut head = 0u64;
    let mut seen = BTreeSet::new();
    for &p in arrivals {
        c.received += 1;
        if p >= head {
            head = p + 1;
            seen.insert(p);
            c.unique += 1;
        } else if p >= head.saturating_sub(window) {
            if seen.insert(p) {
                c.unique += 1;
                c.reordered += 1;
            } else {
                c.duplicates += 1;
            }
        } else {
            c.late += 1;
        }
    }
    c.lost = sent - c.unique;
    c
}

fn track(s: &Scenario) -> (SeqCounters, u64, Vec<Arrival>) {
    let mut t = SeqTracker::new(s.first_seq, s.window).unwrap();
    let mut newly_lost = 0;
    let mut classes = Vec::with_capacity(s.arrivals.len());
    for &p in &s.arrivals {
        let o = t.observe(s.first_seq.wrapping_add(p as u32));
        newly_lost += o.newly_lost;
        classes.push(o.arrival);
    }
    assert_eq!(newly_lost, t.lost_confirmed());
    (t.finish(s.sent), newly_lost, classes)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn identities_hold_exactly_and_match_the_reference(s in scenario()) {
        let (c, confirmed, classes) = track(&s);
        // The accounting identity, exact.
        prop_assert_eq!(c.unique + c.lost, s.sent);
        prop_assert_eq!(c.unique + c.duplicates + c.late, c.received);
        prop_assert_eq!(c.received, s.arrivals.len() as u64);
        prop_assert_eq!(c.sent_raised, 0);
        prop_assert!(c.reordered <= c.unique);
        prop_assert!(confirmed <= c.lost);
        // Every counter as the reference model computes it.
        prop_assert_eq!(c, reference(u64::from(s.window), &s.arrivals, s.sent));
        // The per-packet classes add up to the counters.
        let late = classes.iter().filter(|a| **a == Arrival::Late).count() as u64;
        let dup = classes.iter().filter(|a| **a == Arrival::Duplicate).count() as u64;
        prop_assert_eq!((late, dup), (c.late, c.duplicates));
    }

    #[test]
    fn counters_bound_the_truth(s in scenario()) {
        let (c, _, _) = track(&s);
        let mut copies: BTreeMap<u64, u64> = BTreeMap::new();
        for &p in &s.arrivals {
            *copies.entry(p).or_default() += 1;
        }
        let true_unique = copies.len() as u64;
        let true_lost = s.sent - true_unique;
        let true_dup = s.arrivals.len() as u64 - true_unique;
        prop_assert!(c.lost >= true_lost);
        prop_assert!(c.lost.saturating_sub(c.late) <= true_lost);
        prop_assert!(c.duplicates <= true_dup);
        prop_assert!(true_dup <= c.duplicates + c.late);
        if c.late == 0 {
            prop_assert_eq!(c.lost, true_lost);
            prop_assert_eq!(c.duplicates, true_dup);
        }
    }

    #[test]
    fn identities_hold_for_arbitrary_numbers(
        first in any::<u32>(),
        window in prop::sample::select(vec![64u32, 256, 4096]),
        seqs in prop::collection::vec(any::<u32>(), 0..400),
        sent in 0u64..(1u64 << 33),
    ) {
        // Random 32-bit numbers jump by up to 2^31 at a time: gaps, wraps, "late" packets.
        let mut t = SeqTracker::new(first, window).unwrap();
        for &q in &seqs {
            t.observe(q);
        }
        let c = t.finish(sent);
        prop_assert_eq!(c.unique + c.lost, c.sent);
        prop_assert_eq!(c.unique + c.duplicates + c.late, c.received);
        prop_assert_eq!(c.received, seqs.len() as u64);
        prop_assert_eq!(c.sent, sent.max(t.head()));
        prop_assert_eq!(c.sent_raised, c.sent - sent);
    }

    #[test]
    fn near_numbers_stay_exact_across_the_wrap(
        offset in 0u32..5000,
        n in 1u64..3000,
        skip_every in 2u64..50,
    ) {
        let first = u32::MAX - offset;
        let mut t = SeqTracker::new(first, 128).unwrap();
        let mut received = 0;
        for i in (0..n).filter(|i| i % skip_every != 1) {
            t.observe(first.wrapping_add(i as u32));
            received += 1;
        }
        let c = t.finish(n);
        prop_assert_eq!(c.unique, received);
        prop_assert_eq!(c.lost, n - received);
        prop_assert_eq!(c.late + c.duplicates + c.reordered, 0);
    }
}

/// The classes the reference model gives each arrival, and its `unique` after each one.
fn reference_classes(window: u64, arrivals: &[u64]) -> Vec<(Arrival, u64)> {
    let mut head = 0u64;
    let mut seen = BTreeSet::new();
    arrivals
        .iter()
        .map(|&p| {
            let a = if p == head {
                Arrival::InOrder
            } else if p > head {
                Arrival::AfterGap
            } else if p >= head.saturating_sub(window) {
                if seen.contains(&p) {
                    Arrival::Duplicate
                } else {
                    Arrival::Reordered
                }
            } else {
                Arrival::Late
            };
            if p >= head {
                head = p + 1;
            }
            if a != Arrival::Late {
                seen.insert(p);
            }
            (a, seen.len() as u64)
        })
        .collect()
}

/// One step of a stream that dwells on the bitmap's 64-position word boundaries.
#[derive(Debug, Clone)]
enum Step {
    /// `n` positions in order.
    Run(u64),
    /// A gap to `words` boundaries ahead, then `off - 1` positions off it (just before, on,
    /// just after the boundary).
    Gap { words: u64, off: u64 },
    /// A packet `back` positions below the head (reordered, duplicate or late).
    Back(u64),
}

fn step(window: u64) -> impl Strategy<Value = Step> {
    let near = prop::sample::select(vec![1u64, 2, 63, 64, 65, window - 1, window, window + 1]);
    prop_oneof![
        4 => (0u64..140).prop_map(Step::Run),
        2 => (0u64..3, 0u64..3).prop_map(|(words, off)| Step::Gap { words, off }),
        1 => (0u64..20).prop_map(|words| Step::Gap { words, off: 1 }),
        3 => near.prop_map(Step::Back),
        2 => (1u64..2 * window).prop_map(Step::Back),
    ]
}

/// Arrival positions for `steps`; `Back` steps also land relative to the boundary of the head's
/// word (`head % 64` and one more: the current word's first slot and the previous word's last).
fn boundary_arrivals(steps: &[Step]) -> Vec<u64> {
    let mut next = 0u64;
    let mut out = Vec::new();
    for s in steps {
        match *s {
            Step::Run(n) => {
                out.extend(next..next + n);
                next += n;
            }
            Step::Gap { words, off } => {
                let p = ((next / 64 + 1 + words) * 64 + off)
                    .saturating_sub(1)
                    .max(next);
                out.push(p);
                next = p + 1;
            }
            Step::Back(back) => {
                for b in [back, next % 64, next % 64 + 1] {
                    if (1..=next).contains(&b) {
                        out.push(next - b);
                    }
                }
            }
        }
    }
    out
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    /// The in-order path keeps the head's bitmap word inline and writes it back when the head
    /// enters the next word; the rare paths write it back and reload it. Streams made of in-order
    /// runs, gaps ending just before, on and after word boundaries, and packets reaching back to
    /// the current word, the one just written back and the window's edge: every class and the
    /// running `unique` as the reference model has them, then every counter.
    #[test]
    fn word_boundaries_match_the_reference(
        first in prop_oneof![any::<u32>(), (u32::MAX - 300)..=u32::MAX],
        (window, steps) in prop::sample::select(vec![64u32, 128, 256])
            .prop_flat_map(|w| (Just(w), prop::collection::vec(step(u64::from(w)), 0..60))),
        extra_sent in 0u64..100,
    ) {
        let arrivals = boundary_arrivals(&steps);
        let want = reference_classes(u64::from(window), &arrivals);
        let mut t = SeqTracker::new(first, window).unwrap();
        let mut confirmed = 0;
        for (&p, &(class, unique)) in arrivals.iter().zip(&want) {
            let o = t.observe(first.wrapping_add(p as u32));
            confirmed += o.newly_lost;
            prop_assert_eq!((o.arrival, t.unique()), (class, unique), "position {}", p);
        }
        prop_assert_eq!(confirmed, t.lost_confirmed());
        let sent = t.head() + extra_sent;
        prop_assert_eq!(t.finish(sent), reference(u64::from(window), &arrivals, sent));
    }
}
