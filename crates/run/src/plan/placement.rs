//! Placing the streams on the worker lcores.
//!
//! Every worker polls its own queue of each port and sends on its own queue of each port, so
//! nothing is shared between workers. A stream's UEs are dealt out over the workers (UE `j` of
//! the stream to worker `j mod W`): a flow is sent by exactly one worker, which keeps its
//! sequence numbers in order, and each worker's share of the rate and of the packets is in
//! proportion to the UEs it holds. The shares a worker sends on one port's queue split the
//! profile's `max_burst` between them ([`super::allowance`]).
//!
//! With several port pairs ([`place_pairs`]), each pair holds a contiguous block of the UEs and
//! its own workers: a stream's UEs in a pair's block are dealt out over that pair's workers only,
//! so that every flow is sent (and received) by one pair and one worker (docs/scale.md §2).

use std::ops::Range;

use upfbench_stats::Direction;

use super::allowance::apportion;
use super::stream::{Schedule, StreamPlan};

/// A worker's part of one stream: the stream's UEs `first, first + stride, ...` (local indices
/// within the stream), `count` of them.
#[derive(Debug, Clone, PartialEq)]
pub struct Share {
    /// The stream's id.
    pub stream: u16,
    /// The first local UE index this worker sends to.
    pub first: u32,
    /// Distance between this worker's UEs (the number of workers sharing the stream).
    pub stride: u32,
    /// How many UEs this worker sends to.
    pub count: u32,
    /// Packets per second of this share.
    pub rate_pps: f64,
    /// The share's schedule: the stream's, with this share's packet counts.
    pub schedule: Schedule,
    /// Most packets it puts on its transmit queue at once: its part of `max_burst`.
    pub allowance: u32,
}

impl Share {
    /// Local UE indices (within the stream) this share sends to, in sending order.
    pub fn local_ues(&self) -> impl Iterator<Item = u32> + '_ {
        (0..self.count).map(|k| self.first + k * self.stride)
    }
}

/// What one worker lcore does.
#[derive(Debug, Clone, PartialEq)]
pub struct WorkerPlan {
    /// The port pair it serves (its place in the system file's `pairs`).
    pub pair: u16,
    /// Worker index within its pair: its queue on each of the pair's ports.
    pub index: u16,
    /// The lcore it runs on.
    pub lcore: u32,
    /// Its parts of the streams.
    pub shares: Vec<Share>,
}

/// How many of the `n` items `0..n` fall on `w` when dealt out to `workers` (item `j` to `j mod
/// workers`).
pub(crate) fn dealt(n: u64, w: u64, workers: u64) -> u64 {
    if w >= n { 0 } else { (n - w).div_ceil(workers) }
}

/// Places `streams` on `lcores` (one worker each), each worker sending at most `max_burst`
/// packets at once on each queue: one pair holding every UE.
pub fn place(streams: &[StreamPlan], lcores: &[u32], max_burst: u32) -> Vec<WorkerPlan> {
    place_pairs(streams, &[PairLcores::all(lcores)], max_burst)
}

/// One port pair's workers and its block of the sessions' UEs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PairLcores<'a> {
    /// The pair's worker lcores, worker `i` on its queue `i`.
    pub lcores: &'a [u32],
    /// The UEs (indices of the sessions) the pair sends for.
    pub ues: Range<u32>,
}

impl<'a> PairLcores<'a> {
    /// One pair that holds every UE.
    pub fn all(lcores: &'a [u32]) -> Self {
        PairLcores {
            lcores,
            ues: 0..u32::MAX,
        }
    }
}

/// Places `streams` on the workers of `pairs`, pair by pair in order: a stream's UEs in pair `k`'s
/// block are dealt out over pair `k`'s workers (the block's UE `j` to its worker `j mod W`), each
/// share's packets those of its UEs (the stream's first `total % n` UEs one more, wherever they
/// fall), so that the shares of all pairs add up to the stream.
pub fn place_pairs(
    streams: &[StreamPlan],
    pairs: &[PairLcores<'_>],
    max_burst: u32,
) -> Vec<WorkerPlan> {
    let mut plans = Vec::new();
    for (k, pair) in pairs.iter().enumerate() {
        let first = plans.len();
        plans.extend(
            pair.lcores
                .iter()
                .enumerate()
                .map(|(i, &lcore)| WorkerPlan {
                    pair: k as u16,
                    index: i as u16,
                    lcore,
                    shares: Vec::new(),
                }),
        );
        place_block(streams, &pair.ues, &mut plans[first..], max_burst);
    }
    plans
}

/// The shares of `streams`' UEs in `block` on `plans`, one pair's workers.
fn place_block(
    streams: &[StreamPlan],
    block: &Range<u32>,
    plans: &mut [WorkerPlan],
    max_burst: u32,
) {
    let workers = plans.len() as u64;
    // The direction of each worker's shares, in order: it says which queue they share.
    let mut directions: Vec<Vec<Direction>> = vec![Vec::new(); plans.len()];
    for s in streams {
        let n = u64::from(s.ue_count());
        // The block's UEs of the stream, as local indices `a..b` within the stream.
        let a = u64::from(block.start.max(s.ues.start).saturating_sub(s.ues.start)).min(n);
        let b = u64::from(block.end.min(s.ues.end).saturating_sub(s.ues.start)).min(n);
        let here = b.saturating_sub(a);
        let sharing = workers.min(here);
        for (w, plan) in plans.iter_mut().enumerate().take(sharing as usize) {
            let w = w as u64;
            let count = dealt(here, w, sharing);
            let packets = |total: u64| {
                // Its UEs `a + w + i × sharing` get `total / n` each, and one more below `extra`.
                let extra = (total % n).min(b);
                (total / n) * count + dealt(extra.saturating_sub(a), w, sharing)
            };
            let schedule = match s.schedule {
                Schedule::Continuous { packets: p } => Schedule::Continuous {
                    packets: packets(p),
                },
                Schedule::Bursts {
                    packets: p,
                    bursts,
                    gap_ns,
                } => Schedule::Bursts {
                    packets: packets(p),
                    bursts,
                    gap_ns,
                },
            };
            plan.shares.push(Share {
                stream: s.id,
                first: (a + w) as u32,
                stride: sharing as u32,
                count: count as u32,
                rate_pps: s.rate_pps * count as f64 / n as f64,
                schedule,
                allowance: max_burst,
            });
            directions[w as usize].push(s.direction);
        }
    }
    for (plan, directions) in plans.iter_mut().zip(&directions) {
        // Uplink goes out on N3, downlink on N6: a queue per direction.
        for direction in [Direction::Uplink, Direction::Downlink] {
            let on_queue: Vec<usize> = (0..plan.shares.len())
                .filter(|&i| directions[i] == direction)
                .collect();
            let rates: Vec<f64> = on_queue.iter().map(|&i| plan.shares[i].rate_pps).collect();
            for (&i, part) in on_queue.iter().zip(apportion(max_burst, &rates)) {
                plan.shares[i].allowance = part;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::stream::Spread;

    fn stream(id: u16, ues: u32, packets: u64) -> StreamPlan {
        StreamPlan {
            id,
            name: format!("s{id}"),
            direction: Direction::Uplink,
            payload_len: 10,
            pdu_session_container: false,
            source_port: 1,
            destination_port: 2,
            ues: 0..ues,
            flow_base: 0,
            rate_pps: 1000.0,
            schedule: Schedule::Continuous { packets },
            spread: Spread::RoundRobin,
            shape: upfbench_config::frame::FrameShape::default(),
            qfi: None,
            qer: None,
        }
    }

    #[test]
    fn every_ue_falls_on_exactly_one_worker() {
        let plans = place(&[stream(0, 10, 1003)], &[1, 2, 3], 32);
        let mut seen = vec![0; 10];
        for p in &plans {
            for s in &p.shares {
                for j in s.local_ues() {
                    seen[j as usize] += 1;
                }
            }
        }
        assert_eq!(seen, vec![1; 10]);
        let counts: Vec<u32> = plans.iter().map(|p| p.shares[0].count).collect();
        assert_eq!(counts, [4, 3, 3]);
    }

    #[test]
    fn pairs_deal_their_blocks_ues_over_their_own_workers() {
        // 10 UEs, 1003 packets: UEs 0, 1 and 2 send 101, the others 100. Pair 0 holds UEs 0..4
        // on lcores 1 and 2, pair 1 UEs 4..10 on lcore 3.
        let pairs = [
            PairLcores {
                lcores: &[1, 2],
                ues: 0..4,
            },
            PairLcores {
                lcores: &[3],
                ues: 4..10,
            },
        ];
        let plans = place_pairs(&[stream(0, 10, 1003)], &pairs, 32);
        let at: Vec<(u16, u16, u32)> = plans.iter().map(|p| (p.pair, p.index, p.lcore)).collect();
        assert_eq!(at, [(0, 0, 1), (0, 1, 2), (1, 0, 3)]);
        let ues: Vec<Vec<u32>> = plans
            .iter()
            .map(|p| p.shares[0].local_ues().collect())
            .collect();
        assert_eq!(ues, [vec![0, 2], vec![1, 3], vec![4, 5, 6, 7, 8, 9]]);
        let packets: Vec<u64> = plans.iter().map(|p| p.shares[0].schedule.total()).collect();
        assert_eq!(packets, [202, 201, 600], "UEs 0 and 2, 1 and 3, 4 to 9");
        let rates: Vec<f64> = plans.iter().map(|p| p.shares[0].rate_pps).collect();
        assert_eq!(rates, [200.0, 200.0, 600.0]);
    }

    #[test]
    fn the_pairs_shares_add_up_to_every_stream_and_hold_each_ue_once() {
        for total in [0, 1, 7, 1003] {
            for (first, count) in [(0, 1), (0, 10), (3, 5), (9, 1)] {
                // Block ends: one pair, two, three.
                for ends in [&[10][..], &[4, 10], &[1, 2, 10]] {
                    let blocks: Vec<Range<u32>> = ends
                        .iter()
                        .scan(0, |start, &end| {
                            let b = *start..end;
                            *start = end;
                            Some(b)
                        })
                        .collect();
                    let mut s = stream(0, 0, total);
                    s.ues = first..first + count;
                    let lcores = [1, 2, 3];
                    let pairs: Vec<PairLcores<'_>> = blocks
                        .iter()
                        .enumerate()
                        .map(|(k, b)| PairLcores {
                            lcores: &lcores[..=k.min(1)],
                            ues: b.clone(),
                        })
                        .collect();
                    let plans = place_pairs(&[s], &pairs, 32);
                    let mut seen = vec![0; count as usize];
                    let mut sum = 0;
                    for p in &plans {
                        for share in &p.shares {
                            sum += share.schedule.total();
                            for j in share.local_ues() {
                                seen[j as usize] += 1;
                                let ue = first + j;
                                assert!(pairs[usize::from(p.pair)].ues.contains(&ue));
                            }
                        }
                    }
                    let case = format!("{total} packets, UEs {first}+{count}, {blocks:?}");
                    assert_eq!(sum, total, "{case}");
                    assert_eq!(seen, vec![1; count as usize], "{case}");
                }
            }
        }
    }

    #[test]
    fn packets_and_rate_split_exactly() {
        let plans = place(&[stream(0, 10, 1003)], &[1, 2, 3], 32);
        let total: u64 = plans.iter().map(|p| p.shares[0].schedule.total()).sum();
        assert_eq!(total, 1003);
        let rate: f64 = plans.iter().map(|p| p.shares[0].rate_pps).sum();
        assert!((rate - 1000.0).abs() < 1e-9);
        // 1003 over 10 UEs: 100 each, UEs 0, 1 and 2 one more; worker 0 holds UEs 0, 3, 6, 9.
        assert_eq!(plans[0].shares[0].schedule.total(), 401);
        assert_eq!(plans[1].shares[0].schedule.total(), 301);
        assert_eq!(plans[2].shares[0].schedule.total(), 301);
    }

    #[test]
    fn a_stream_with_fewer_ues_than_workers_uses_fewer_workers() {
        let plans = place(&[stream(0, 1, 50), stream(1, 2, 50)], &[1, 2, 3], 32);
        assert_eq!(plans[0].shares.len(), 2);
        assert_eq!(plans[1].shares.len(), 1);
        assert!(plans[2].shares.is_empty());
        assert_eq!(plans[0].shares[0].stride, 1);
        assert_eq!(plans[0].shares[1].stride, 2);
    }

    #[test]
    fn the_shares_on_one_queue_split_max_burst_by_rate() {
        // Two uplink streams (3:1) and one downlink stream on two workers: each worker's uplink
        // shares split 32, its downlink share has 32 to itself.
        let mut fast = stream(0, 4, 4000);
        fast.rate_pps = 3000.0;
        let slow = stream(1, 4, 4000);
        let mut down = stream(2, 4, 4000);
        down.direction = Direction::Downlink;
        let plans = place(&[fast, slow, down], &[1, 2], 32);
        for p in &plans {
            let parts: Vec<u32> = p.shares.iter().map(|s| s.allowance).collect();
            // 30 after one each: 22.5 and 7.5, the tie to the first.
            assert_eq!(parts, [24, 8, 32], "worker {}", p.index);
        }
    }

    proptest::proptest! {
        #[test]
        fn shares_add_up(
            total in 0u64..1_000_000,
            n in 1u32..5000,
            workers in 1u32..9,
            cut in 0u32..5000,
        ) {
            // Two pairs: `workers` workers for UEs 0..cut, one for the rest.
            let cut = cut.min(n);
            let lcores: Vec<u32> = (1..=workers).collect();
            let pairs = [
                PairLcores { lcores: &lcores, ues: 0..cut },
                PairLcores { lcores: &lcores[..1], ues: cut..n },
            ];
            let plans = place_pairs(&[stream(0, n, total)], &pairs, 32);
            let shares = || plans.iter().flat_map(|p| &p.shares);
            let sum: u64 = shares().map(|s| s.schedule.total()).sum();
            proptest::prop_assert_eq!(sum, total);
            let ues: u32 = shares().map(|s| s.count).sum();
            proptest::prop_assert_eq!(ues, n);
        }
    }
}
