//! Segments: a run's UEs cut into contiguous blocks, one per port pair of a tester or one per
//! tester under a coordinator (docs/scale.md, §2 and §3), and each stream's packets over them.
//!
//! One function cuts at both levels, so that a UE's index (and with it its addresses, TEIDs and
//! flows) is the same wherever it is sent from, and the blocks' rates and packets add up to the
//! stream's exactly.

use std::ops::Range;

/// Why UEs cannot be cut into blocks.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SplitError {
    /// No block asked for.
    #[error("no block to cut the UEs into")]
    NoBlocks,
    /// A block of weight 0, at its index.
    #[error("block {index} has weight 0: a block needs a weight of 1 or more")]
    ZeroWeight {
        /// The block's index.
        index: usize,
    },
    /// Fewer UEs than blocks: some block would have none.
    #[error("{ues} UEs for {blocks} blocks: each block needs a UE")]
    TooFewUes {
        /// The UEs to cut.
        ues: u32,
        /// The blocks asked for.
        blocks: usize,
    },
}

/// Cuts `ues` into one contiguous block per weight, in order, each as near its weight's share as
/// whole UEs allow (block `k` ends at the rounded-down share of the weights up to and including
/// its own, the last at `ues.end`), and none empty.
pub fn split(ues: Range<u32>, weights: &[u32]) -> Result<Vec<Range<u32>>, SplitError> {
    if weights.is_empty() {
        return Err(SplitError::NoBlocks);
    }
    if let Some(index) = weights.iter().position(|&w| w == 0) {
        return Err(SplitError::ZeroWeight { index });
    }
    let n = ues.end.saturating_sub(ues.start);
    if (n as usize) < weights.len() {
        return Err(SplitError::TooFewUes {
            ues: n,
            blocks: weights.len(),
        });
    }
    let total: u64 = weights.iter().map(|&w| u64::from(w)).sum();
    let mut blocks = Vec::with_capacity(weights.len());
    let mut start = ues.start;
    let mut cumulative = 0u64;
    for (k, &w) in weights.iter().enumerate() {
        cumulative += u64::from(w);
        let left_after = (weights.len() - k - 1) as u32;
        // The share's end, then kept far enough from both ends that every block gets a UE.
        let share = (u64::from(n) * cumulative / total) as u32;
        let end = (ues.start + share).max(start + 1).min(ues.end - left_after);
        blocks.push(start..end);
        start = end;
    }
    Ok(blocks)
}

/// The packets of a stream that sends `total` packets over `n` UEs (the first `total % n` UEs
/// one more, as a worker's share counts them) that fall on the UEs at `block` (indices from the
/// stream's first UE, within `0..n`).
pub fn packets_of_block(total: u64, n: u32, block: Range<u32>) -> u64 {
    if n == 0 {
        return 0;
    }
    let (start, end) = (u64::from(block.start.min(n)), u64::from(block.end.min(n)));
    let len = end.saturating_sub(start);
    let extra = total % u64::from(n);
    // UEs of the block among the first `extra`.
    let with_extra = extra.min(end).saturating_sub(start.min(extra));
    (total / u64::from(n)) * len + with_extra
}

#[cfg(test)]
mod tests;
