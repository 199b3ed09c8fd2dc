//! A step's start at a wall-clock time (a coordinator's common start T, docs/scale.md §3 "Steps
//! and trials at a common time"): T, in Unix ns on this box's clock, turned into the TSC tick
//! at which the workers' first phase begins, through an anchor of the two clocks read together.

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use upfbench_dpdk::tsc;

use crate::datapath::clock::Clock;

/// Reads of the two clocks per anchor: the narrowest bracket is kept.
const TRIES: usize = 16;

/// The TSC and the wall clock (Unix ns) read together: the TSC halfway between the two reads
/// that bracket the wall clock's, in the narrowest of [`TRIES`] brackets.
pub(super) fn wall_anchor() -> (u64, u64) {
    let mut best = (0, 0, u64::MAX);
    for _ in 0..TRIES {
        let before = tsc();
        let wall = unix_ns();
        let width = tsc().wrapping_sub(before);
        if width < best.2 {
            best = (before + width / 2, wall, width);
        }
    }
    (best.0, best.1)
}

/// Now, in Unix ns.
pub(super) fn unix_ns() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as u64)
}

/// The epoch (TSC tick) of the Unix time `at_ns` on `clock`'s frequency, and how late it is
/// against `at_ns` (ns; never earlier than `lead` from now, which the workers need to see it
/// before it is due). `anchor` is the TSC and the wall clock read together.
pub(super) fn epoch_of(
    clock: &Clock,
    anchor: (u64, u64),
    at_ns: u64,
    lead: Duration,
) -> (u64, i64) {
    let (tick, wall) = anchor;
    let wanted = if at_ns >= wall {
        tick + clock.ticks(at_ns - wall)
    } else {
        tick.saturating_sub(clock.ticks(wall - at_ns))
    };
    let soonest = tsc() + clock.ticks(lead.as_nanos() as u64);
    let epoch = wanted.max(soonest);
    (epoch, clock.ticks_to_ns(epoch - wanted) as i64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_time_ahead_is_its_tick_and_one_past_is_posted_late() {
        let clock = Clock::new(2_000_000_000, 0);
        let (tick, wall) = wall_anchor();
        // 50 ms ahead: 100 M ticks after the anchor, on time.
        let (epoch, late) = epoch_of(&clock, (tick, wall), wall + 50_000_000, Duration::ZERO);
        assert_eq!(epoch, tick + 100_000_000);
        assert_eq!(late, 0);
        // 1 s in the past: as soon as the lead allows, some 1 s late.
        let (epoch, late) = epoch_of(
            &clock,
            (tick, wall),
            wall - 1_000_000_000,
            Duration::from_millis(1),
        );
        assert!(epoch >= tick);
        assert!((1_000_000_000..1_500_000_000).contains(&late), "{late}");
    }
}
