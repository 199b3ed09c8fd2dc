//! Interarrival jitter as RFC 3550 §6.4.1 defines it, on one-way transit times in nanoseconds.
//!
//! For consecutive arrivals i-1 and i of one stream, `D = (Ri - Si) - (Ri-1 - Si-1)`, the change
//! of the transit time `R - S` (receive time minus the tag's transmit time; any constant clock
//! offset between sender and receiver cancels out). The estimate moves a sixteenth of the way to
//! each new `|D|`: `J += (|D| - J) / 16`. Arrival order is used, whatever the sequence numbers,
//! as RFC 3550 does. Like its sample code (§A.8) the state is kept scaled by 16 in an integer, so
//! no floating point runs per packet and the result does not depend on the platform.

/// Running RFC 3550 jitter estimate for one stream.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Jitter {
    last_transit: i64,
    /// The estimate times 16.
    scaled: u64,
    /// Arrivals seen, counted up to 2 only (so the hot path stores nothing once it is 2).
    seen: u8,
}

impl Jitter {
    /// Feeds the transit time (receive minus transmit timestamp, ns) of the next arrival.
    #[inline(always)]
    pub fn update(&mut self, transit_ns: i64) {
        if self.seen != 0 {
            let d = transit_ns.wrapping_sub(self.last_transit).unsigned_abs();
            self.scaled = self.scaled.saturating_add(d) - ((self.scaled + 8) >> 4);
        }
        if self.seen < 2 {
            self.seen += 1;
        }
        self.last_transit = transit_ns;
    }

    /// The estimate in nanoseconds, once at least two arrivals have been seen.
    pub(crate) fn value_ns(&self) -> Option<f64> {
        (self.seen >= 2).then(|| self.scaled as f64 / 16.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn constant_transit_has_no_jitter() {
        let mut j = Jitter::default();
        assert_eq!(j.value_ns(), None);
        j.update(5_000);
        assert_eq!(
            j.value_ns(),
            None,
            "one arrival has no interarrival difference"
        );
        for _ in 0..100 {
            j.update(5_000);
        }
        assert_eq!(j.value_ns(), Some(0.0));
    }

    #[test]
    fn converges_to_constant_alternation() {
        // Transit alternating 1000 / 2000 ns: |D| is always 1000, J converges to 1000.
        let mut j = Jitter::default();
        for i in 0..2000 {
            j.update(if i % 2 == 0 { 1000 } else { 2000 });
        }
        let v = j.value_ns().unwrap();
        assert!((v - 1000.0).abs() <= 1.0, "{v}");
    }

    #[test]
    fn follows_the_rfc_recurrence() {
        // Against the floating point recurrence of RFC 3550 §6.4.1 on a fixed series.
        let transits = [
            100i64, 250, 180, 900, 120, 130, 5000, 4000, 300, 310, 305, 800,
        ];
        let mut j = Jitter::default();
        let mut f = 0.0f64;
        for w in transits.windows(2) {
            f += ((w[1] - w[0]).abs() as f64 - f) / 16.0;
        }
        for t in transits {
            j.update(t);
        }
        let v = j.value_ns().unwrap();
        // The integer form rounds each step by at most half a scaled unit.
        assert!((v - f).abs() < 1.0, "{v} vs {f}");
    }

    #[test]
    fn constant_clock_offset_cancels() {
        let mut a = Jitter::default();
        let mut b = Jitter::default();
        for t in [10i64, 40, 15, 70, 20] {
            a.update(t);
            b.update(t - 1_000_000_000);
        }
        assert_eq!(a.value_ns(), b.value_ns());
    }
}
