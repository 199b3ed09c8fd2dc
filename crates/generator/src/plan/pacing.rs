//! Pacing from the TSC: how many packets of a share are due at a given tick.
//!
//! Packet `k` of a continuous share is due `k / rate` after the start (the first at once). The
//! sender asks [`Pacer::due`] once per loop and sends what is due, at most its maximum burst at
//! once, so the packets leave spread over time at the requested rate instead of in one burst per
//! period. The rate is held in packets per tick as a 64.64 fixed-point number: a request of
//! 1 pps or of 100 Mpps keeps its precision (the relative error is below 1e-9), and a run of
//! hours multiplies without overflow in 128 bits.

use super::stream::Schedule;

/// Packets due over time for one share.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Pacer {
    start: u64,
    /// Packets per tick, times 2^64.
    per_tick: u128,
    /// Packets per burst (all of them for a continuous share).
    burst_packets: u64,
    /// Bursts (1 for a continuous share).
    bursts: u64,
    /// Ticks from one burst's start to the next one's.
    period: u64,
}

impl Pacer {
    /// A pacer for `schedule` at `rate_pps` on a clock of `tsc_hz`, started at tick 0 (see
    /// [`start`](Self::start)). A rate of zero or less sends nothing.
    pub fn new(rate_pps: f64, tsc_hz: u64, schedule: &Schedule) -> Pacer {
        // f64 carries 53 bits: the product keeps a relative error near 1e-16.
        let per_tick = if rate_pps > 0.0 && tsc_hz > 0 {
            (rate_pps / tsc_hz as f64 * 2f64.powi(64)) as u128
        } else {
            0
        };
        let (burst_packets, bursts, gap_ns) = match *schedule {
            Schedule::Continuous { packets } => (packets, 1, 0),
            Schedule::Bursts {
                packets,
                bursts,
                gap_ns,
            } => (packets, u64::from(bursts), gap_ns),
        };
        let active = if rate_pps > 0.0 {
            (burst_packets as f64 / rate_pps * tsc_hz as f64).ceil() as u64
        } else {
            0
        };
        let gap = (u128::from(gap_ns) * u128::from(tsc_hz) / 1_000_000_000) as u64;
        Pacer {
            start: 0,
            per_tick,
            burst_packets,
            bursts,
            period: active.saturating_add(gap).max(1),
        }
    }

    /// Sets the tick at which packet 0 is due.
    pub fn start(&mut self, now: u64) {
        self.start = now;
    }

    /// Packets in all.
    pub fn total(&self) -> u64 {
        self.burst_packets * self.bursts
    }

    /// Packets due at tick `now` (counting from the first, which is due at the start).
    #[inline]
    pub fn due(&self, now: u64) -> u64 {
        if self.per_tick == 0 || now < self.start {
            return 0;
        }
        let elapsed = now - self.start;
        // Continuous sending is one burst: no division on the per-burst path.
        let burst = if self.bursts == 1 {
            u64::from(elapsed >= self.period)
        } else {
            elapsed / self.period
        };
        if burst >= self.bursts {
            return self.total();
        }
        let within = elapsed - burst * self.period;
        let paced = ((u128::from(within) * self.per_tick) >> 64) as u64 + 1;
        burst * self.burst_packets + paced.min(self.burst_packets)
    }

    /// The tick at which everything will have been due.
    pub fn end(&self) -> u64 {
        self.start
            .saturating_add(self.period.saturating_mul(self.bursts.saturating_sub(1)))
            .saturating_add(self.period_active())
    }

    fn period_active(&self) -> u64 {
        if self.per_tick == 0 || self.burst_packets == 0 {
            return 0;
        }
        // Ticks until packet burst_packets - 1 is due: ceil((n - 1) / per_tick).
        let n = u128::from(self.burst_packets - 1) << 64;
        n.div_ceil(self.per_tick) as u64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const HZ: u64 = 2_450_000_000;

    #[test]
    fn packets_are_due_at_k_over_rate() {
        let mut p = Pacer::new(1_000_000.0, HZ, &Schedule::Continuous { packets: 10_000 });
        p.start(1000);
        assert_eq!(p.due(999), 0);
        assert_eq!(p.due(1000), 1);
        // 1 us = 2450 ticks per packet.
        assert_eq!(p.due(1000 + 2449), 1);
        assert_eq!(p.due(1000 + 2450), 2);
        assert_eq!(p.due(1000 + 2450 * 100), 101);
        assert_eq!(p.due(u64::MAX / 2), 10_000);
    }

    #[test]
    fn rates_keep_their_precision_from_1_pps_to_100_mpps() {
        for rate in [
            1.0,
            7.0,
            100_000.0,
            1_000_000.0,
            20_000_000.0,
            100_000_000.0,
        ] {
            let p = Pacer::new(rate, HZ, &Schedule::Continuous { packets: u64::MAX });
            // Due after 10 s: 10 * rate + 1 (the first at t = 0).
            let due = p.due(10 * HZ);
            let want = (10.0 * rate) as u64 + 1;
            assert!(
                due.abs_diff(want) <= 1,
                "rate {rate}: {due} due, {want} wanted"
            );
        }
    }

    #[test]
    fn bursts_pause_for_their_gap() {
        // 10 packets per burst at 1 Mpps (10 us), 40 us gap: bursts start every 50 us.
        let s = Schedule::Bursts {
            packets: 10,
            bursts: 3,
            gap_ns: 40_000,
        };
        let p = Pacer::new(1_000_000.0, 1_000_000_000, &s);
        assert_eq!(p.due(0), 1);
        assert_eq!(p.due(9_000), 10);
        assert_eq!(p.due(30_000), 10);
        assert_eq!(p.due(49_999), 10);
        assert_eq!(p.due(50_000), 11);
        assert_eq!(p.due(100_000), 21);
        assert_eq!(p.due(1_000_000), 30);
        assert_eq!(p.total(), 30);
    }

    #[test]
    fn the_end_is_when_the_last_packet_is_due() {
        let mut p = Pacer::new(1_000.0, 1_000_000_000, &Schedule::Continuous { packets: 5 });
        p.start(7);
        let end = p.end();
        assert_eq!(p.due(end), 5);
        assert_eq!(p.due(end - 1), 4);
    }

    #[test]
    fn zero_rate_or_zero_packets_send_nothing() {
        let p = Pacer::new(0.0, HZ, &Schedule::Continuous { packets: 5 });
        assert_eq!(p.due(HZ), 0);
        let p = Pacer::new(10.0, HZ, &Schedule::Continuous { packets: 0 });
        assert_eq!(p.due(HZ), 0);
    }

    proptest::proptest! {
        #[test]
        fn due_never_decreases(rate in 1.0f64..5e7, a in 0u64..(1 << 40), b in 0u64..(1 << 40)) {
            let p = Pacer::new(rate, HZ, &Schedule::Continuous { packets: 1 << 40 });
            let (lo, hi) = (a.min(b), a.max(b));
            proptest::prop_assert!(p.due(lo) <= p.due(hi));
        }
    }
}
