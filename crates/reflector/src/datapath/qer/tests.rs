use std::sync::Arc;

use proptest::prelude::*;

use super::*;

/// A TSC of 1 GHz: a tick is a nanosecond.
const HZ: u64 = 1_000_000_000;

fn policy() -> QerPolicy {
    QerPolicy::new(HZ)
}

fn mbr(ul_kbps: u64, dl_kbps: u64) -> Option<BitRate> {
    Some(BitRate { ul_kbps, dl_kbps })
}

#[test]
fn a_known_overload_passes_the_burst_then_every_other_packet() {
    // 8 Mbit/s = 1,000,000 B/s: a 1,000-byte packet costs 1 ms; the burst is 10 ms = 10 packets.
    // Offered: a packet every 0.5 ms (twice the MBR) for 100 ms. The bucket holds 10 - k/2
    // packets at arrival k: arrivals 0 to 18 pass, 19 is policed (0.5 left), and from 20 on
    // every even one passes: 19 + 90 = 109.
    let cell = QerCell::new(GateStatus::OPEN, mbr(8_000, 8_000), &policy());
    let verdicts: Vec<Verdict> = (0..200)
        .map(|k| cell.admit(UPLINK, 1_000, k * 500_000))
        .collect();
    assert!(verdicts[..19].iter().all(|v| *v == Verdict::Pass));
    assert_eq!(verdicts[19], Verdict::Policed);
    for (k, v) in verdicts.iter().enumerate().skip(20) {
        let want = if k % 2 == 0 {
            Verdict::Pass
        } else {
            Verdict::Policed
        };
        assert_eq!(*v, want, "arrival {k}");
    }
    assert_eq!(
        cell.counts(UPLINK),
        QerCounts {
            passed: 109,
            passed_bytes: 109_000,
            policed: 91,
            policed_bytes: 91_000,
            gated: 0,
        }
    );
    // The bound: 109,000 <= 1,000,000 B/s x 99.5 ms + 10,000.
    assert_eq!(cell.counts(DOWNLINK), QerCounts::default(), "the other way");
}

#[test]
fn a_sustained_overload_passes_the_mbr_within_a_packet() {
    // 150 % of 20 Mbit/s for 1 s, 1,250-byte packets: the passed rate is the MBR.
    let cell = QerCell::new(GateStatus::OPEN, mbr(20_000, 20_000), &policy());
    let rate = 20_000_000.0 / 8.0;
    let per_s = (rate * 1.5 / 1_250.0) as u64;
    let gap = HZ / per_s;
    for k in 0..per_s {
        cell.admit(DOWNLINK, 1_250, k * gap);
    }
    let passed = cell.counts(DOWNLINK).passed_bytes as f64;
    let t = ((per_s - 1) * gap) as f64 / HZ as f64;
    let burst = policy().burst_bytes(rate) as f64;
    assert!(passed <= rate * t + burst, "{passed} over the bound");
    assert!(
        passed >= rate * t + burst - 2.0 * 1_250.0,
        "{passed}: the policer held back more than it must"
    );
    assert!((passed / t / rate - 1.0).abs() < 0.011, "{}", passed / t);
}

#[test]
fn a_closed_gate_drops_its_direction_until_opened() {
    let p = policy();
    let closed_ul = GateStatus {
        ul: upfbench_pfcp::ie::Gate::CLOSED,
        dl: upfbench_pfcp::ie::Gate::OPEN,
    };
    let cell = QerCell::new(closed_ul, None, &p);
    assert!(!cell.is_transparent(UPLINK) && cell.is_transparent(DOWNLINK));
    assert_eq!(cell.admit(UPLINK, 100, 0), Verdict::Gated);
    assert_eq!(cell.admit(DOWNLINK, 100, 0), Verdict::Pass);
    cell.configure(GateStatus::CLOSED, None, &p);
    assert_eq!(cell.admit(DOWNLINK, 100, 1), Verdict::Gated);
    cell.configure(GateStatus::OPEN, None, &p);
    assert_eq!(cell.admit(UPLINK, 100, 2), Verdict::Pass);
    assert_eq!(
        (cell.counts(UPLINK).gated, cell.counts(DOWNLINK).gated),
        (1, 1)
    );
    assert_eq!(cell.counts(UPLINK).passed, 1);
    // A closed gate drops even what the bucket would pass, and takes no token for it.
    let cell = QerCell::new(GateStatus::CLOSED, mbr(8, 8), &p);
    assert_eq!(cell.admit(UPLINK, 1_500, 0), Verdict::Gated);
    cell.configure(GateStatus::OPEN, mbr(8, 8), &p);
    assert_eq!(
        cell.admit(UPLINK, 1_500, 0),
        Verdict::Pass,
        "the burst is whole"
    );
}

#[test]
fn misbehaving_on_purpose_polices_at_the_known_rate_or_not_at_all() {
    let off = QerPolicy {
        policing: Policing::Off,
        ..policy()
    };
    let cell = QerCell::new(GateStatus::OPEN, mbr(8, 8), &off);
    assert!(cell.is_transparent(UPLINK));
    assert!((0..1_000).all(|k| cell.admit(UPLINK, 1_500, k) == Verdict::Pass));
    // Off still honours the gate: it is no part of the policing.
    cell.configure(GateStatus::CLOSED, mbr(8, 8), &off);
    assert_eq!(cell.admit(UPLINK, 1_500, 1_000), Verdict::Gated);
    // Gates ignored: a closed gate passes, and the bucket still polices.
    let ignoring = QerPolicy {
        gates_ignored: true,
        ..policy()
    };
    let cell = QerCell::new(GateStatus::CLOSED, mbr(8, 8), &ignoring);
    assert_eq!(cell.admit(UPLINK, 100, 0), Verdict::Pass);
    assert_eq!(cell.admit(DOWNLINK, 100, 0), Verdict::Pass);
    assert!(!cell.is_transparent(UPLINK));

    // 10 % over: 8 Mbit/s policed at 8.8. Over 1 s of packets offered at twice the MBR, the
    // bytes passed are 1.1 x MBR x t plus the burst (11 ms of the policed rate).
    let over = QerPolicy {
        policing: Policing::Over(0.1),
        ..policy()
    };
    assert_eq!(over.rate_bytes_per_s(8_000), Some(1_100_000.0));
    assert_eq!(over.burst_bytes(1_100_000.0), 11_000);
    let cell = QerCell::new(GateStatus::OPEN, mbr(8_000, 0), &over);
    for k in 0..2_000u64 {
        cell.admit(UPLINK, 1_000, k * 500_000);
    }
    let passed = cell.counts(UPLINK).passed_bytes;
    let bound = 1_100_000.0 * 0.9995 + 11_000.0;
    assert!(
        passed as f64 <= bound && passed as f64 > bound - 1_000.0,
        "{passed}"
    );
    // An MBR of 0 polices nothing that way.
    assert!(cell.is_transparent(DOWNLINK));
}

#[test]
fn a_slow_flows_burst_still_takes_a_full_size_packet() {
    // 8 kbit/s: 10 ms of it is 10 bytes; the burst is one 1,500-byte packet.
    let p = policy();
    assert_eq!(p.burst_bytes(1_000.0), MIN_BURST_BYTES);
    let cell = QerCell::new(GateStatus::OPEN, mbr(8, 8), &p);
    assert_eq!(cell.admit(UPLINK, 1_500, 0), Verdict::Pass);
    assert_eq!(cell.admit(UPLINK, 1, 1), Verdict::Policed);
    // 1.5 s later the bucket is full again.
    assert_eq!(cell.admit(UPLINK, 1_500, 1_500_000_001), Verdict::Pass);
}

#[test]
fn workers_sharing_a_qer_police_its_aggregate() {
    // Four threads offer the same QER packets at once, each on its own clock reading of a
    // shared timeline: together they pass no more than the bound.
    let p = policy();
    let cell = Arc::new(QerCell::new(GateStatus::OPEN, mbr(8_000, 8_000), &p));
    let threads: Vec<_> = (0..4u64)
        .map(|w| {
            let cell = Arc::clone(&cell);
            std::thread::spawn(move || {
                for k in 0..20_000u64 {
                    cell.admit(UPLINK, 500, k * 25_000 + w);
                }
            })
        })
        .collect();
    threads.into_iter().for_each(|t| t.join().unwrap());
    let c = cell.counts(UPLINK);
    assert_eq!(c.passed + c.policed, 80_000);
    let t = (19_999.0 * 25_000.0 + 3.0) / HZ as f64;
    assert!(c.passed_bytes as f64 <= 1_000_000.0 * t + 10_000.0, "{c:?}");
    assert!(c.passed_bytes as f64 >= 1_000_000.0 * t * 0.99, "{c:?}");
}

proptest! {
    /// Over any window, what passed is at most MBR x window + burst, whatever the arrivals.
    #[test]
    fn the_passed_bytes_stay_under_mbr_times_t_plus_burst(
        kbps in 1u64..200_000,
        burst_ms in 1u64..50,
        arrivals in proptest::collection::vec((0u64..2_000_000, 40usize..1_500), 1..150),
    ) {
        let p = QerPolicy { burst: Duration::from_millis(burst_ms), ..policy() };
        let cell = QerCell::new(GateStatus::OPEN, mbr(kbps, kbps), &p);
        let mut now = 0;
        let mut passed = Vec::new();
        for (gap, len) in arrivals {
            now += gap;
            if cell.admit(DOWNLINK, len, now) == Verdict::Pass {
                passed.push((now, len as f64));
            }
        }
        let rate = p.rate_bytes_per_s(kbps).unwrap();
        let burst = p.burst_bytes(rate) as f64;
        for i in 0..passed.len() {
            let mut bytes = 0.0;
            for &(t, len) in &passed[i..] {
                bytes += len;
                let window = (t - passed[i].0) as f64 / HZ as f64;
                prop_assert!(
                    bytes <= rate * window + burst + 1e-6,
                    "{} bytes in {} s at {} B/s, burst {}", bytes, window, rate, burst
                );
            }
        }
        let c = cell.counts(DOWNLINK);
        prop_assert_eq!(c.passed as usize, passed.len());
        prop_assert_eq!(c.passed_bytes, passed.iter().map(|p| p.1 as u64).sum::<u64>());
    }
}
