use proptest::prelude::*;

use super::*;

const HZ: u64 = 2_450_000_000;
/// A clock on which 1 Mpps is exactly one packet per 1024 ticks (2^54 per tick in 64.64).
const HZ_1024: u64 = 1_024_000_000;
const TICKS_PER_PACKET: u64 = 1024;

fn continuous(packets: u64) -> Schedule {
    Schedule::Continuous { packets }
}

/// What the schedule says at `elapsed` ticks when nothing slipped: floor(elapsed × rate) + 1,
/// at most `total`, with the rate in 64.64 as the pacer holds it.
fn formula(rate: f64, hz: u64, elapsed: u64, total: u64) -> u64 {
    let per_tick = (rate / hz as f64 * 2f64.powi(64)) as u128;
    (((u128::from(elapsed) * per_tick) >> 64) as u64 + 1).min(total)
}

#[test]
fn packets_are_due_at_k_over_rate() {
    let mut p = Pacer::new(1_000_000.0, HZ, &continuous(10_000));
    p.start(1000);
    assert_eq!(p.due(999, 0), 0);
    assert_eq!(p.due(1000, 0), 1);
    // 1 us = 2450 ticks per packet.
    assert_eq!(p.due(1000 + 2449, 0), 1);
    assert_eq!(p.due(1000 + 2450, 0), 2);
    assert_eq!(p.due(1000 + 2450 * 100, 0), 101);
    assert_eq!(p.due(u64::MAX / 2, 0), 10_000);
    assert_eq!(p.slip(), ScheduleSlip::default(), "no allowance, no slip");
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
        let mut p = Pacer::new(rate, HZ, &continuous(u64::MAX));
        // Due after 10 s: 10 * rate + 1 (the first at t = 0).
        let due = p.due(10 * HZ, 0);
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
    let mut p = Pacer::new(1_000_000.0, 1_000_000_000, &s);
    assert_eq!(p.due(0, 0), 1);
    assert_eq!(p.due(9_000, 0), 10);
    assert_eq!(p.due(30_000, 0), 10);
    assert_eq!(p.due(49_999, 0), 10);
    assert_eq!(p.due(50_000, 0), 11);
    assert_eq!(p.due(100_000, 0), 21);
    assert_eq!(p.due(1_000_000, 0), 30);
    assert_eq!(p.total(), 30);
    // A jump over several bursts at once lands in the right one.
    let mut p = Pacer::new(1_000_000.0, 1_000_000_000, &s);
    assert_eq!(p.due(105_000, 0), 26);
}

#[test]
fn zero_rate_zero_packets_or_zero_bursts_send_nothing() {
    let mut p = Pacer::new(0.0, HZ, &continuous(5));
    assert_eq!(p.due(HZ, 0), 0);
    let mut p = Pacer::new(10.0, HZ, &continuous(0));
    assert_eq!(p.due(HZ, 0), 0);
    let none = Schedule::Bursts {
        packets: 5,
        bursts: 0,
        gap_ns: 0,
    };
    let mut p = Pacer::new(10.0, HZ, &none);
    assert_eq!((p.total(), p.due(HZ, 0)), (0, 0));
}

/// A sender that sends everything due at every call.
fn send_all(p: &mut Pacer, now: u64, filled: &mut u64) -> u64 {
    let due = p.due(now, *filled);
    let new = due - *filled;
    *filled = due;
    new
}

#[test]
fn after_a_stall_at_most_the_allowance_is_due_and_the_schedule_slips_by_the_excess() {
    let mut p = Pacer::new(1_000_000.0, HZ_1024, &continuous(100_000)).with_allowance(32);
    p.start(0);
    let mut filled = 0;
    for k in 0..=10 {
        send_all(&mut p, k * TICKS_PER_PACKET, &mut filled);
    }
    assert_eq!((filled, p.slip()), (11, ScheduleSlip::default()));
    // Stalled until packet 1010 is due and half a packet more: 1000 packets late.
    let woke = 1010 * TICKS_PER_PACKET + 500;
    assert_eq!(
        send_all(&mut p, woke, &mut filled),
        32,
        "the allowance, not 1000"
    );
    // Packet 42 (the 32nd waiting) is due now instead of at 42 × 1024: that is the slip.
    let slipped = woke - 42 * TICKS_PER_PACKET;
    assert_eq!(
        p.slip(),
        ScheduleSlip {
            count: 1,
            ticks: slipped,
            max_ticks: slipped,
        }
    );
    // Everything after moved by the same time: packet 43 is due one packet's time later.
    assert_eq!(
        send_all(&mut p, woke + TICKS_PER_PACKET - 1, &mut filled),
        0
    );
    assert_eq!(send_all(&mut p, woke + TICKS_PER_PACKET, &mut filled), 1);
    assert_eq!(
        send_all(&mut p, woke + 5 * TICKS_PER_PACKET, &mut filled),
        4
    );
    assert_eq!(p.slip().count, 1, "on time again: no new slip");
    // A second stall is a second slip, and the slips add up.
    let woke2 = woke + 5000 * TICKS_PER_PACKET;
    assert_eq!(send_all(&mut p, woke2, &mut filled), 32);
    let last = filled - 1;
    let slip = p.slip();
    assert_eq!(slip.count, 2);
    assert_eq!(slip.ticks, woke2 - last * TICKS_PER_PACKET);
}

#[test]
fn a_queue_that_takes_nothing_holds_the_schedule_at_the_allowance() {
    let mut p = Pacer::new(1_000_000.0, HZ_1024, &continuous(100_000)).with_allowance(8);
    p.start(0);
    let mut last_due = 0;
    // Nothing is ever filled: the debt stays at the allowance and the schedule keeps slipping,
    // one slip for the whole time.
    for k in 0..=1000 {
        let due = p.due(k * 300, 0);
        assert!(
            due <= 8 && due >= last_due,
            "call {k}: {due} after {last_due}"
        );
        last_due = due;
    }
    assert_eq!(last_due, 8);
    let slip = p.slip();
    assert_eq!(slip.count, 1);
    // The schedule stands still between packet 7's and packet 8's due times, going back to
    // packet 7's whenever packet 8 would be due (every fourth call, the last one too).
    assert_eq!(slip.ticks, 1000 * 300 - 7 * TICKS_PER_PACKET);
}

#[test]
fn a_sender_that_keeps_up_sends_exactly_what_the_formula_says() {
    // 3 Mpps is no whole number of ticks per packet at 2.45 GHz: the fractions must add up.
    let (rate, total) = (3_000_000.0, 3_000_000);
    let mut p = Pacer::new(rate, HZ, &continuous(total)).with_allowance(32);
    p.start(77);
    let mut filled = 0;
    let mut now = 77;
    while filled < total {
        // Between 1 and 31 packets' time (816 ticks per packet) between calls.
        now += 800 + (now % 24_000);
        let new = send_all(&mut p, now, &mut filled);
        assert!(new <= 32);
        assert_eq!(filled, formula(rate, HZ, now - 77, total), "at {now}");
    }
    assert_eq!(filled, total);
    assert_eq!(p.slip(), ScheduleSlip::default());
}

#[test]
fn a_stall_inside_a_burst_moves_the_rest_of_the_run_and_keeps_the_gap_whole() {
    // Bursts of 100 at 1 packet per 1024 ticks, then a gap of 50,000 ns = 51,200 ticks.
    let s = Schedule::Bursts {
        packets: 100,
        bursts: 3,
        gap_ns: 50_000,
    };
    let mut p = Pacer::new(1_000_000.0, HZ_1024, &s).with_allowance(16);
    p.start(0);
    let mut filled = 0;
    send_all(&mut p, 0, &mut filled);
    // Stalled 80 packets' time into the first burst.
    let woke = 80 * TICKS_PER_PACKET;
    assert_eq!(send_all(&mut p, woke, &mut filled), 16);
    let slipped = woke - 16 * TICKS_PER_PACKET;
    assert_eq!(p.slip().ticks, slipped);
    // The first burst's other packets follow at the rate; its last is due at 99 packets' time
    // plus the slip, and the gap after it is whole.
    let last_of_first = 99 * TICKS_PER_PACKET + slipped;
    let second = 100 * TICKS_PER_PACKET + 51_200 + slipped;
    let mut now = woke;
    while now + 100 < last_of_first {
        now += 100;
        send_all(&mut p, now, &mut filled);
    }
    assert_eq!(filled, 99);
    send_all(&mut p, last_of_first, &mut filled);
    assert_eq!(filled, 100);
    send_all(&mut p, second - 1, &mut filled);
    assert_eq!(filled, 100, "the gap");
    send_all(&mut p, second, &mut filled);
    assert_eq!(filled, 101, "the second burst, as late as the first");
    assert_eq!(p.slip().count, 1);
}

proptest! {
    #[test]
    fn due_never_decreases(rate in 1.0f64..5e7, a in 0u64..(1 << 40), b in 0u64..(1 << 40)) {
        let mut p = Pacer::new(rate, HZ, &continuous(1 << 40));
        let (lo, hi) = (a.min(b), a.max(b));
        let first = p.due(lo, 0);
        prop_assert!(first <= p.due(hi, 0));
    }

    /// Whatever the times of the calls and however much the sender fills: no call makes more
    /// than the allowance due at once, due never decreases, the sender never gets more than the
    /// total, and it gets all of it in the end.
    #[test]
    fn the_allowance_holds_for_any_calls_and_the_total_is_exact(
        rate in 1_000.0f64..5e7,
        allowance in 1u64..200,
        catch_up in prop_oneof![Just(0.0), 0.0f64..=1.0],
        bursts in proptest::option::of((1u32..5, 0u64..100_000)),
        packets in 1u64..5_000,
        calls in proptest::collection::vec((0u64..5_000_000, 0u8..=4), 1..200),
    ) {
        let schedule = match bursts {
            None => continuous(packets),
            Some((bursts, gap_ns)) => Schedule::Bursts { packets, bursts, gap_ns },
        };
        let mut p = Pacer::new(rate, HZ, &schedule)
            .with_allowance(allowance)
            .with_catch_up(catch_up);
        p.start(1_000);
        let total = p.total();
        let (mut now, mut filled, mut last_due) = (1_000u64, 0u64, 0u64);
        for (step, quarters) in calls {
            now += step;
            let due = p.due(now, filled);
            prop_assert!(due >= last_due, "due went from {} to {}", last_due, due);
            prop_assert!(due - filled <= allowance, "{} due with {} filled", due, filled);
            prop_assert!(due <= total);
            if bursts.is_none() {
                // Catching up never runs ahead of the schedule.
                prop_assert!(due <= formula(rate, HZ, now - 1_000, total));
            }
            // The sender fills some quarters of what is due (none: a full queue).
            filled += (due - filled) * u64::from(quarters) / 4;
            last_due = due;
        }
        let mut calls = 0;
        while filled < total {
            now += 1 << 40;
            let due = p.due(now, filled);
            prop_assert!(due - filled <= allowance && due >= last_due);
            filled = due;
            last_due = due;
            calls += 1;
            prop_assert!(calls <= total, "no progress");
        }
        prop_assert_eq!(filled, total);
        prop_assert_eq!(p.due(now + 1, filled), total);
    }
}

#[test]
fn a_slip_is_made_up_at_the_catch_up_rate_and_no_faster() {
    // 1 Mpps, allowance 32, catch-up 25%: late, the schedule runs at 1.25 Mpps.
    let mut p = Pacer::new(1_000_000.0, HZ_1024, &continuous(1_000_000))
        .with_allowance(32)
        .with_catch_up(0.25);
    p.start(0);
    let mut filled = 0;
    send_all(&mut p, 0, &mut filled);
    // Stalled until packet 1010 is due and half a packet more: 32 go, packet 32 is due now.
    let woke = 1010 * TICKS_PER_PACKET + 500;
    assert_eq!(send_all(&mut p, woke, &mut filled), 32);
    let late = woke - 32 * TICKS_PER_PACKET;
    assert_eq!(
        p.slip(),
        ScheduleSlip {
            count: 1,
            ticks: late,
            max_ticks: late,
        }
    );
    // A sender that keeps up, called every packet's time: 1.25 packets per call on average
    // while late (never more than 2 in one call: no train), a quarter of the time made up.
    let mut now = woke;
    let mut sent_while_late = 0;
    let calls_while_late = late * 4 / TICKS_PER_PACKET;
    for _ in 0..calls_while_late {
        now += TICKS_PER_PACKET;
        let new = send_all(&mut p, now, &mut filled);
        assert!(new <= 2, "{new} packets in one packet's time");
        sent_while_late += new;
    }
    assert_eq!(
        sent_while_late,
        calls_while_late * 5 / 4,
        "1.25 per packet time"
    );
    assert!(p.slip().ticks <= TICKS_PER_PACKET, "{:?}", p.slip());
    // Made up: from then on exactly the schedule as if nothing had happened, at 1 Mpps.
    for _ in 0..10_000 {
        now += 3 * TICKS_PER_PACKET;
        let new = send_all(&mut p, now, &mut filled);
        assert!(new <= 3);
        assert_eq!(filled, formula(1_000_000.0, HZ_1024, now, 1_000_000));
    }
    assert_eq!(
        p.slip(),
        ScheduleSlip {
            count: 1,
            ticks: 0,
            max_ticks: late,
        }
    );
}

#[test]
fn a_sender_that_cannot_keep_up_makes_up_nothing() {
    // The queue takes nothing: catching up keeps being taken back, and is no slip of its own.
    let mut p = Pacer::new(1_000_000.0, HZ_1024, &continuous(100_000))
        .with_allowance(8)
        .with_catch_up(0.5);
    p.start(0);
    for k in 0..=1000 {
        assert!(p.due(k * 300, 0) <= 8);
    }
    let slip = p.slip();
    assert_eq!(slip.count, 1);
    assert_eq!(slip.ticks, 1000 * 300 - 7 * TICKS_PER_PACKET);
    assert_eq!(slip.max_ticks, slip.ticks);
}

#[test]
fn catching_up_held_back_by_the_allowance_is_no_new_slip() {
    // Allowance 4, catch-up 100%: late, 3 packets' time makes 6 due, 2 more than the
    // allowance; taking back catch-up is not falling behind again.
    let mut p = Pacer::new(1_000_000.0, HZ_1024, &continuous(100_000))
        .with_allowance(4)
        .with_catch_up(1.0);
    p.start(0);
    let mut filled = 0;
    send_all(&mut p, 0, &mut filled);
    let mut now = 1000 * TICKS_PER_PACKET;
    assert_eq!(send_all(&mut p, now, &mut filled), 4);
    assert_eq!(p.slip().count, 1);
    for _ in 0..50 {
        // 1 packet's time: 2 due (under the allowance), then 3: 6, held at 4.
        now += TICKS_PER_PACKET;
        assert_eq!(send_all(&mut p, now, &mut filled), 2);
        now += 3 * TICKS_PER_PACKET;
        assert_eq!(send_all(&mut p, now, &mut filled), 4);
    }
    let slip = p.slip();
    assert_eq!(slip.count, 1, "{slip:?}");
    // Made up: 2 packets' time in each of the 50 rounds, beyond what the allowance held back.
    assert!(slip.ticks < slip.max_ticks, "{slip:?}");
}
