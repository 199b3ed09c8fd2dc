use proptest::prelude::*;

use super::*;

#[test]
fn equal_weights_cut_evenly_the_last_block_takes_the_rounding() {
    assert_eq!(split(0..10, &[1, 1, 1]).unwrap(), vec![0..3, 3..6, 6..10]);
    assert_eq!(split(100..104, &[1, 1]).unwrap(), vec![100..102, 102..104]);
}

#[test]
fn weights_size_the_blocks() {
    assert_eq!(split(0..1000, &[1, 3]).unwrap(), vec![0..250, 250..1000]);
    assert_eq!(split(0..7, &[2, 1, 4]).unwrap(), vec![0..2, 2..3, 3..7]);
}

#[test]
fn a_tiny_weight_still_gets_a_ue() {
    assert_eq!(split(0..3, &[1000, 1, 1]).unwrap(), vec![0..1, 1..2, 2..3]);
    assert_eq!(split(0..3, &[1, 1, 1000]).unwrap(), vec![0..1, 1..2, 2..3]);
}

#[test]
fn what_cannot_be_cut_is_refused() {
    assert_eq!(split(0..5, &[]), Err(SplitError::NoBlocks));
    assert_eq!(
        split(0..5, &[1, 0]),
        Err(SplitError::ZeroWeight { index: 1 })
    );
    assert_eq!(
        split(0..1, &[1, 1]),
        Err(SplitError::TooFewUes { ues: 1, blocks: 2 })
    );
    assert_eq!(
        split(0..2, &[1, 1, 1]).unwrap_err().to_string(),
        "2 UEs for 3 blocks: each block needs a UE"
    );
}

#[test]
fn the_first_ues_carry_the_extra_packets() {
    // 10 packets over 4 UEs: 3, 3, 2, 2.
    assert_eq!(packets_of_block(10, 4, 0..1), 3);
    assert_eq!(packets_of_block(10, 4, 0..2), 6);
    assert_eq!(packets_of_block(10, 4, 1..3), 5);
    assert_eq!(packets_of_block(10, 4, 2..4), 4);
    assert_eq!(packets_of_block(10, 4, 4..4), 0);
    assert_eq!(packets_of_block(10, 0, 0..0), 0);
}

proptest! {
    #[test]
    fn blocks_cover_every_ue_once_in_order_none_empty(
        start in 0u32..1_000_000,
        n in 1u32..100_000,
        weights in proptest::collection::vec(1u32..1_000, 1..12),
    ) {
        prop_assume!(n as usize >= weights.len());
        let blocks = split(start..start + n, &weights).unwrap();
        prop_assert_eq!(blocks.len(), weights.len());
        prop_assert_eq!(blocks[0].start, start);
        prop_assert_eq!(blocks.last().unwrap().end, start + n);
        for pair in blocks.windows(2) {
            prop_assert_eq!(pair[0].end, pair[1].start);
        }
        for b in &blocks {
            prop_assert!(b.start < b.end, "empty block {:?}", b);
        }
    }

    #[test]
    fn each_block_is_within_one_ue_of_its_weights_share_when_ues_are_many(
        n in 1_000u32..100_000,
        weights in proptest::collection::vec(1u32..100, 1..8),
    ) {
        let blocks = split(0..n, &weights).unwrap();
        let total: u64 = weights.iter().map(|&w| u64::from(w)).sum();
        for (b, &w) in blocks.iter().zip(&weights) {
            let share = u64::from(n) * u64::from(w) / total;
            let len = u64::from(b.end - b.start);
            prop_assert!(len + 1 >= share && len <= share + 1, "{:?} for share {}", b, share);
        }
    }

    #[test]
    fn the_blocks_packets_add_up_to_the_streams(
        total in 0u64..10_000_000_000,
        n in 1u32..100_000,
        weights in proptest::collection::vec(1u32..1_000, 1..12),
    ) {
        prop_assume!(n as usize >= weights.len());
        let blocks = split(0..n, &weights).unwrap();
        let sum: u64 = blocks.iter().map(|b| packets_of_block(total, n, b.clone())).sum();
        prop_assert_eq!(sum, total);
        // Each UE's count is the stream's own rule: one more for the first `total % n`.
        let ue = n - 1;
        prop_assert_eq!(
            packets_of_block(total, n, ue..ue + 1),
            total / u64::from(n) + u64::from(u64::from(ue) < total % u64::from(n))
        );
    }
}
