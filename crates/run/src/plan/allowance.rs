//! The profile's `max_burst` split over the shares that send on one transmit queue.
//!
//! `max_burst` is the longest train one worker puts back to back on one queue. A worker sends
//! its shares of every stream of a direction on the same queue, one after the other in each
//! loop, so their allowances add up to `max_burst`: one each, and the rest in proportion to
//! their rates, so that each share's allowance lasts about as long at its rate as the others'
//! do at theirs (a slow share is not held to a shorter stall than a fast one).

/// Splits `total` over shares of the given `rates`: at least 1 each, the rest in proportion to
/// the rates (the largest remainders get the leftover units, the first share on ties). With
/// more shares than `total`, each gets 1.
pub(crate) fn apportion(total: u32, rates: &[f64]) -> Vec<u32> {
    let n = rates.len();
    let rest = u64::from(total).saturating_sub(n as u64);
    let weights: Vec<f64> = rates.iter().map(|&r| r.max(0.0)).collect();
    let sum: f64 = weights.iter().sum();
    let mut parts = vec![1u32; n];
    if rest == 0 || n == 0 {
        return parts;
    }
    // No rate anywhere: equal parts.
    let quota = |i: usize| {
        if sum > 0.0 {
            rest as f64 * weights[i] / sum
        } else {
            rest as f64 / n as f64
        }
    };
    let mut given = 0u64;
    for (i, part) in parts.iter_mut().enumerate() {
        let whole = quota(i).floor() as u64;
        *part += whole as u32;
        given += whole;
    }
    let mut by_remainder: Vec<usize> = (0..n).collect();
    by_remainder.sort_by(|&a, &b| {
        let (ra, rb) = (quota(a) - quota(a).floor(), quota(b) - quota(b).floor());
        rb.total_cmp(&ra).then(a.cmp(&b))
    });
    for &i in by_remainder
        .iter()
        .cycle()
        .take(rest.saturating_sub(given) as usize)
    {
        parts[i] += 1;
    }
    parts
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_share_gets_it_all() {
        assert_eq!(apportion(32, &[1e6]), [32]);
        assert_eq!(apportion(1024, &[5.0]), [1024]);
    }

    #[test]
    fn shares_split_in_proportion_to_their_rates() {
        // The IMIX's 7:4:1: 29 after one each, 16.9 / 9.7 / 2.4.
        assert_eq!(apportion(32, &[7e6, 4e6, 1e6]), [18, 11, 3]);
        assert_eq!(apportion(10, &[1.0, 1.0]), [5, 5]);
        // Equal remainders: the first share first.
        assert_eq!(apportion(4, &[1.0, 1.0, 1.0]), [2, 1, 1]);
    }

    #[test]
    fn every_share_gets_at_least_one() {
        assert_eq!(apportion(32, &[1e9, 1.0]), [31, 1]);
        assert_eq!(apportion(2, &[1.0, 1.0, 1.0]), [1, 1, 1]);
        assert_eq!(apportion(3, &[0.0, 0.0, 0.0]), [1, 1, 1]);
        assert_eq!(apportion(9, &[0.0, 0.0, 0.0]), [3, 3, 3]);
        assert_eq!(apportion(8, &[]), Vec::<u32>::new());
    }

    proptest::proptest! {
        #[test]
        fn parts_add_up_to_the_total(
            total in 1u32..2000,
            rates in proptest::collection::vec(0.0f64..1e8, 1..20),
        ) {
            let parts = apportion(total, &rates);
            proptest::prop_assert_eq!(parts.len(), rates.len());
            proptest::prop_assert!(parts.iter().all(|&p| p >= 1));
            let sum: u32 = parts.iter().sum();
            proptest::prop_assert_eq!(sum, total.max(rates.len() as u32));
        }
    }
}
