//! Pacing from the TSC: how many packets of a share are due at a given tick, with a bound on how
//! many may be due and not yet sent.
//!
//! Packet `k` of a continuous share is due `k / rate` after the start (the first at once). The
//! sender asks [`Pacer::due`] once per loop and sends what is due, so the packets leave spread
//! over time at the requested rate instead of in one burst per period.
//!
//! A sender that falls behind (a stalled vCPU, a slow loop, a full transmit queue, a rate above
//! what it can reach) must not catch up at line rate: that train is the microburst the profile's
//! `max_burst` forbids. So at most the share's allowance is ever due and unsent; when more would
//! be, the schedule slips: the allowance-th waiting packet becomes due now and everything after
//! it moves later by the same time. No packet is dropped, and the slip is counted
//! ([`Pacer::slip`]).
//!
//! A slipped schedule may then make up its lateness, at a bounded speed: with a catch-up of
//! `k` (the profile's `catch_up`, 10% by default) the schedule runs at `(1 + k)` times the rate
//! until it is back where it would have been, so a sender that lost the core for a moment
//! keeps its average rate, the UPF never sees more than `(1 + k)` times the requested rate,
//! and no train is longer than the allowance. With `k = 0` the slip is kept for good: the
//! phase ends later and the rate over it is lower.
//!
//! The schedule's position is kept in packets, as a 64.64 fixed-point number: ticks since the
//! start, less the ticks slipped, times the rate in packets per tick. Each call adds the ticks
//! since the last one times the rate (a multiply, no division); summed, the products are exactly
//! the elapsed ticks times the rate, so a share that never slips sends exactly what the formula
//! says. A request of 1 pps or of 100 Mpps keeps its precision (the relative error is below
//! 1e-9), and a run of hours fits in 128 bits.

use super::stream::Schedule;

/// How far a share's schedule slipped in a phase.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ScheduleSlip {
    /// Times the sender fell behind by more than its allowance (until it catches up, however
    /// many calls that takes, it counts once).
    pub count: u64,
    /// TSC ticks the schedule is late: how much later its last packet is due than planned
    /// (what the slips took and catching up has not made up).
    pub ticks: u64,
    /// The most TSC ticks the schedule was ever late.
    pub max_ticks: u64,
}

/// Packets due over time for one share.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pacer {
    /// Tick at which packet 0 is due.
    start: u64,
    /// Tick up to which `pos` has been advanced.
    last: u64,
    /// Packets per tick, times 2^64.
    per_tick: u128,
    /// Where the schedule stands, in packets times 2^64.
    pos: u128,
    /// Packets per burst (all of them for a continuous share).
    burst_packets: u64,
    /// Bursts (1 for a continuous share).
    bursts: u64,
    /// From one burst's start to the next one's, in packets times 2^64.
    period: u128,
    /// The burst `pos` is in, and the position at which it started.
    burst: u64,
    burst_start: u128,
    /// Most packets due and not yet filled.
    allowance: u64,
    /// Slips so far.
    slips: u64,
    /// Extra packets per tick (times 2^64) while the schedule is late: the rate times the
    /// catch-up fraction.
    catch_up_per_tick: u128,
    /// Position given back by slips and not yet made up (packets times 2^64), and the most it
    /// has been.
    late: u128,
    max_late: u128,
    /// Whether the sender has been at or over its allowance since its last slip.
    behind: bool,
}

impl Pacer {
    /// A pacer for `schedule` at `rate_pps` on a clock of `tsc_hz`, started at tick 0 (see
    /// [`start`](Self::start)), with no allowance (see [`with_allowance`](Self::with_allowance)).
    /// A rate of zero or less sends nothing.
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
        // No bursts: no packets.
        let burst_packets = if bursts == 0 { 0 } else { burst_packets };
        // A burst lasts as many ticks as its packets take at the rate, then the gap.
        let active = if rate_pps > 0.0 {
            (burst_packets as f64 / rate_pps * tsc_hz as f64).ceil() as u64
        } else {
            0
        };
        let gap = (u128::from(gap_ns) * u128::from(tsc_hz) / 1_000_000_000) as u64;
        let period_ticks = active.saturating_add(gap).max(1);
        Pacer {
            start: 0,
            last: 0,
            per_tick,
            pos: 0,
            burst_packets,
            bursts,
            period: u128::from(period_ticks) * per_tick,
            burst: 0,
            burst_start: 0,
            allowance: u64::MAX,
            slips: 0,
            catch_up_per_tick: 0,
            late: 0,
            max_late: 0,
            behind: false,
        }
    }

    /// The same pacer making up lateness at `fraction` (0 to 1) of its rate on top of it.
    pub fn with_catch_up(mut self, fraction: f64) -> Pacer {
        let fraction = if fraction.is_finite() {
            fraction.clamp(0.0, 1.0)
        } else {
            0.0
        };
        self.catch_up_per_tick = (self.per_tick as f64 * fraction) as u128;
        self
    }

    /// The same pacer with at most `allowance` packets (at least 1) due and unsent at once.
    pub fn with_allowance(mut self, allowance: u64) -> Pacer {
        self.allowance = allowance.max(1);
        self
    }

    /// Sets the tick at which packet 0 is due, and forgets any slip.
    pub fn start(&mut self, now: u64) {
        self.start = now;
        self.last = now;
        self.pos = 0;
        self.burst = 0;
        self.burst_start = 0;
        self.slips = 0;
        self.late = 0;
        self.max_late = 0;
        self.behind = false;
    }

    /// Packets in all.
    pub fn total(&self) -> u64 {
        self.burst_packets * self.bursts
    }

    /// Packets due at tick `now` in all (counting from the first, which is due at the start),
    /// for a sender that has filled `filled` of them: never more than `filled` plus the
    /// allowance (the schedule slips instead), never fewer than the last call said. `now` must
    /// not go back.
    #[inline]
    pub fn due(&mut self, now: u64, filled: u64) -> u64 {
        if self.per_tick == 0 || now < self.start {
            return 0;
        }
        let mut extra = 0;
        if now > self.last {
            let ticks = u128::from(now - self.last);
            self.pos += ticks * self.per_tick;
            if self.late != 0 {
                extra = (ticks * self.catch_up_per_tick).min(self.late);
                self.pos += extra;
                self.late -= extra;
            }
            self.last = now;
        }
        let due = self.due_at_pos();
        let most = filled.saturating_add(self.allowance);
        if due <= most {
            // A sender still at its allowance has not caught up yet.
            self.behind &= due == most;
            return due;
        }
        self.slip_to(most, extra);
        most
    }

    /// How late the schedule is, how late it has been, and how often it slipped.
    pub fn slip(&self) -> ScheduleSlip {
        let ticks = |position: u128| position.checked_div(self.per_tick).unwrap_or(0) as u64;
        ScheduleSlip {
            count: self.slips,
            ticks: ticks(self.late),
            max_ticks: ticks(self.max_late),
        }
    }

    /// Packets due at the schedule's position.
    #[inline(always)]
    fn due_at_pos(&mut self) -> u64 {
        // Continuous sending is one burst: no burst to find.
        if self.bursts == 1 {
            return ((self.pos >> 64) as u64)
                .saturating_add(1)
                .min(self.burst_packets);
        }
        let mut within = self.pos - self.burst_start;
        if within >= self.period && self.burst + 1 < self.bursts {
            let ahead = if within < 2 * self.period {
                1
            } else {
                (within / self.period) as u64
            };
            let ahead = ahead.min(self.bursts - 1 - self.burst);
            self.burst += ahead;
            self.burst_start += u128::from(ahead) * self.period;
            within = self.pos - self.burst_start;
        }
        let paced = ((within >> 64) as u64).saturating_add(1);
        self.burst * self.burst_packets + paced.min(self.burst_packets)
    }

    /// Moves the schedule back so that `target` packets are due, the last of them just now.
    /// (A sender that filled nothing since the last call may find the schedule moved back a
    /// little further than the time since: `target` packets were due then too, and still are.)
    /// Taking back no more than this call's catch-up (`extra`) is no new slip.
    #[cold]
    fn slip_to(&mut self, target: u64, extra: u128) {
        // target >= allowance >= 1; packet `last` is due when the position reaches its start.
        let last = target - 1;
        let (burst, within) = if self.bursts == 1 {
            (0, last)
        } else {
            (last / self.burst_packets, last % self.burst_packets)
        };
        let burst_start = u128::from(burst) * self.period;
        let at = burst_start + (u128::from(within) << 64);
        let back = self.pos - at;
        self.late += back;
        self.max_late = self.max_late.max(self.late);
        self.pos = at;
        self.burst = burst;
        self.burst_start = burst_start;
        if back > extra && !self.behind {
            self.slips += 1;
            self.behind = true;
        }
    }
}

#[cfg(test)]
mod tests;
