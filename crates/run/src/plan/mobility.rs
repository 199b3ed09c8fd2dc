//! The handovers of a step, planned before it starts (sans-IO): which UEs move, in which order,
//! and when, relative to the start of the measured phase; deterministic for a seed. The PFCP
//! thread sends each modification at its time and the workers switch each moving UE's uplink
//! at the same time on their own clock; the receiver finds a UE's handover by its slot.

use std::net::Ipv4Addr;

use upfbench_net::Teid;

use super::ue::TeidSequence;
use upfbench_config::{Arrivals, Mobility};

/// One UE's handover.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Move {
    /// The UE.
    pub ue: u32,
    /// When, from the start of the measured phase (ns).
    pub at_ns: u64,
}

/// The step's handovers.
#[derive(Debug, Clone, PartialEq)]
pub struct HandoverPlan {
    /// The handovers in time order; a moving UE's slot is its index here.
    pub moves: Vec<Move>,
    /// Each UE's slot, `u32::MAX` for a UE that stays.
    slot_of_ue: Box<[u32]>,
    /// The target gNB's address.
    pub target_address: Ipv4Addr,
    /// The target gNB's downlink TEIDs, by UE.
    pub target_teid: TeidSequence,
    /// The modifications ask for an End Marker (SNDEM).
    pub end_marker: bool,
}

impl HandoverPlan {
    /// The handovers `m` asks for among `sessions` UEs.
    pub fn new(m: &Mobility, sessions: u32) -> HandoverPlan {
        let mut rng = SplitMix64(m.seed);
        let count = m.ues.count(sessions);
        // A partial Fisher-Yates shuffle: the first `count` UEs of a seeded permutation, in
        // their order of moving.
        let mut order: Vec<u32> = (0..sessions).collect();
        for i in 0..count as usize {
            let j = i + (rng.below((sessions as usize - i) as u64) as usize);
            order.swap(i, j);
        }
        order.truncate(count as usize);
        let h = &m.handovers;
        let mut t = h.start.as_secs_f64();
        let moves: Vec<Move> = order
            .into_iter()
            .enumerate()
            .map(|(k, ue)| {
                let at = match (h.at, h.rate) {
                    (Some(at), _) => at.as_secs_f64(),
                    (None, Some(rate)) => {
                        if k > 0 {
                            t += match h.arrivals {
                                Arrivals::Uniform => 1.0 / rate,
                                Arrivals::Poisson => -rng.unit_open().ln() / rate,
                            };
                        }
                        t
                    }
                    (None, None) => 0.0,
                };
                Move {
                    ue,
                    at_ns: (at * 1e9).round() as u64,
                }
            })
            .collect();
        let mut slot_of_ue = vec![u32::MAX; sessions as usize].into_boxed_slice();
        for (slot, mv) in moves.iter().enumerate() {
            slot_of_ue[mv.ue as usize] = slot as u32;
        }
        HandoverPlan {
            moves,
            slot_of_ue,
            target_address: m.target.address,
            target_teid: TeidSequence {
                first: m.target.downlink_teid.first,
                step: m.target.downlink_teid.step,
            },
            end_marker: m.end_marker,
        }
    }

    /// The slot of UE `ue` if it moves.
    #[inline(always)]
    pub fn slot(&self, ue: u32) -> Option<u32> {
        self.slot_of_ue
            .get(ue as usize)
            .copied()
            .filter(|&s| s != u32::MAX)
    }

    /// The target gNB's downlink TEID of UE `ue`.
    #[inline(always)]
    pub fn target_teid(&self, ue: u32) -> Teid {
        self.target_teid.get(ue)
    }
}

/// SplitMix64 (Steele, Lea, Flood 2014): a small, fast, seedable generator, enough to choose
/// UEs and spread arrivals reproducibly.
struct SplitMix64(u64);

impl SplitMix64 {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// Uniform in `0..n` (`n` > 0), by rejection: no modulo bias.
    fn below(&mut self, n: u64) -> u64 {
        let zone = u64::MAX - u64::MAX % n;
        loop {
            let x = self.next();
            if x < zone {
                return x % n;
            }
        }
    }

    /// Uniform in (0, 1].
    fn unit_open(&mut self) -> f64 {
        ((self.next() >> 11) + 1) as f64 / (1u64 << 53) as f64
    }
}

#[cfg(test)]
mod tests;
