//! Placing the streams on the worker lcores.
//!
//! Every worker polls its own queue of each port and sends on its own queue of each port, so
//! nothing is shared between workers. A stream's UEs are dealt out over the workers (UE `j` of
//! the stream to worker `j mod W`): a flow is sent by exactly one worker, which keeps its
//! sequence numbers in order, and each worker's share of the rate and of the packets is in
//! proportion to the UEs it holds. The shares a worker sends on one port's queue split the
//! profile's `max_burst` between them ([`super::allowance`]).

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
    /// Worker index: its queue on every port.
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

/// Splits `total` packets over `n` UEs as evenly as possible (the first `total % n` UEs get one
/// more) and returns the part of the UEs that fall on worker `w` of `workers`.
pub(crate) fn packets_of_share(total: u64, n: u64, w: u64, workers: u64) -> u64 {
    let base = total / n;
    let extra = total % n;
    base * dealt(n, w, workers) + dealt(extra, w, workers)
}

/// Places `streams` on `lcores` (one worker each), each worker sending at most `max_burst`
/// packets at once on each queue.
pub fn place(streams: &[StreamPlan], lcores: &[u32], max_burst: u32) -> Vec<WorkerPlan> {
    let workers = lcores.len() as u64;
    let mut plans: Vec<WorkerPlan> = lcores
        .iter()
        .enumerate()
        .map(|(i, &lcore)| WorkerPlan {
            index: i as u16,
            lcore,
            shares: Vec::new(),
        })
        .collect();
    // The direction of each worker's shares, in order: it says which queue they share.
    let mut directions: Vec<Vec<Direction>> = vec![Vec::new(); plans.len()];
    for s in streams {
        let n = u64::from(s.ue_count());
        let sharing = workers.min(n);
        for (w, plan) in plans.iter_mut().enumerate().take(sharing as usize) {
            let w = w as u64;
            let count = dealt(n, w, sharing);
            let schedule = match s.schedule {
                Schedule::Continuous { packets } => Schedule::Continuous {
                    packets: packets_of_share(packets, n, w, sharing),
                },
                Schedule::Bursts {
                    packets,
                    bursts,
                    gap_ns,
                } => Schedule::Bursts {
                    packets: packets_of_share(packets, n, w, sharing),
                    bursts,
                    gap_ns,
                },
            };
            plan.shares.push(Share {
                stream: s.id,
                first: w as u32,
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
    plans
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
        fn shares_add_up(total in 0u64..1_000_000, n in 1u64..5000, workers in 1u64..9) {
            let sharing = workers.min(n);
            let sum: u64 = (0..sharing).map(|w| packets_of_share(total, n, w, sharing)).sum();
            proptest::prop_assert_eq!(sum, total);
            let ues: u64 = (0..sharing).map(|w| dealt(n, w, sharing)).sum();
            proptest::prop_assert_eq!(ues, n);
        }
    }
}
