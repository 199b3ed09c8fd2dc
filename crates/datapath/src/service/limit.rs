//! The rate limit of GTP-U Error Indications (TS 29.281 §7.3.1 leaves the rate to the node; a
//! flood of G-PDUs to unknown TEIDs must not become a flood of answers).
//!
//! A token bucket in integer units, so that what a given arrival pattern lets through is exact:
//! the bucket holds one second of the rate and starts full; a token comes back every
//! `1 / rate` s. The limit is per process: a process of `workers` workers gives each a bucket of
//! `rate / workers` (no state shared between lcores), so the process never sends more than
//! `rate` per second and `rate` at once, wherever the unknown TEIDs arrive. A worker that gets
//! all of them sends only its share.

/// Nanoseconds per second.
const NS: u64 = 1_000_000_000;

/// One worker's share of the Error Indication rate, and what it let through.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ErrorIndicationLimit {
    /// Tokens in units where one Error Indication costs `cost`.
    tokens: u64,
    /// The bucket's size: one second of the worker's share (`rate` units per ns for 1e9 ns).
    capacity: u64,
    /// Units one Error Indication costs: `workers × 1e9`.
    cost: u64,
    /// Units that come back per ns: `rate`.
    per_ns: u64,
    last_ns: u64,
    /// Error Indications allowed.
    pub allowed: u64,
    /// Error Indications refused (over the limit).
    pub suppressed: u64,
}

impl ErrorIndicationLimit {
    /// One of `workers` shares of `per_s` Error Indications per second (0: none at all).
    pub fn new(per_s: u32, workers: u16) -> ErrorIndicationLimit {
        let per_ns = u64::from(per_s);
        let capacity = per_ns * NS;
        ErrorIndicationLimit {
            tokens: capacity,
            capacity,
            cost: u64::from(workers.max(1)) * NS,
            per_ns,
            last_ns: 0,
            allowed: 0,
            suppressed: 0,
        }
    }

    /// Whether an Error Indication may go at `now_ns` (counted either way).
    #[inline]
    pub fn allow(&mut self, now_ns: u64) -> bool {
        // The bucket fills in one second: a longer gap adds no more (and cannot overflow).
        let elapsed = now_ns.saturating_sub(self.last_ns).min(NS);
        self.last_ns = self.last_ns.max(now_ns);
        self.tokens = (self.tokens + elapsed * self.per_ns).min(self.capacity);
        if self.per_ns > 0 && self.tokens >= self.cost {
            self.tokens -= self.cost;
            self.allowed += 1;
            true
        } else {
            self.suppressed += 1;
            false
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `n` unknown-TEID G-PDUs at `at_ns`: how many were allowed.
    fn burst(l: &mut ErrorIndicationLimit, n: u64, at_ns: u64) -> u64 {
        (0..n).filter(|_| l.allow(at_ns)).count() as u64
    }

    #[test]
    fn a_full_bucket_then_the_rate_per_second() {
        let mut l = ErrorIndicationLimit::new(100, 1);
        // t = 1 s: the bucket starts full, a second of the rate.
        assert_eq!(burst(&mut l, 1000, NS), 100);
        // t + 1 s: exactly one second's worth came back.
        assert_eq!(burst(&mut l, 1000, 2 * NS), 100);
        // t + 1.5 s: half of it.
        assert_eq!(burst(&mut l, 1000, 2 * NS + NS / 2), 50);
        // Nothing comes back within the same instant.
        assert_eq!(burst(&mut l, 10, 2 * NS + NS / 2), 0);
        // After a long quiet spell the bucket holds one second again, not more.
        assert_eq!(burst(&mut l, 1000, 3600 * NS), 100);
        assert_eq!(l.allowed, 350);
        assert_eq!(l.suppressed, 4 * 1000 + 10 - 350);
    }

    #[test]
    fn one_every_period_at_a_steady_rate() {
        let mut l = ErrorIndicationLimit::new(10, 1);
        assert_eq!(burst(&mut l, 10, 0), 10, "the initial bucket");
        // One G-PDU every 50 ms for 2 s: a token every 100 ms, so every other one.
        let allowed = (1..=40).filter(|i| l.allow(i * NS / 20)).count();
        assert_eq!(allowed, 20);
        assert_eq!((l.allowed, l.suppressed), (30, 20));
    }

    #[test]
    fn workers_share_the_process_rate() {
        let mut shares = [
            ErrorIndicationLimit::new(100, 3),
            ErrorIndicationLimit::new(100, 3),
            ErrorIndicationLimit::new(100, 3),
        ];
        let at = |t: u64| t * NS;
        let first: Vec<u64> = shares.iter_mut().map(|l| burst(l, 1000, at(1))).collect();
        // 100 / 3 each: 33 whole ones, the third of a token kept for later.
        assert_eq!(first, [33, 33, 33]);
        let second: u64 = shares.iter_mut().map(|l| burst(l, 1000, at(2))).sum();
        // The thirds add up: at most the process's 100 per second, all workers together.
        assert!((99..=100).contains(&second), "{second}");
        let mut alone = ErrorIndicationLimit::new(100, 3);
        assert_eq!(
            burst(&mut alone, 1000, at(1)),
            33,
            "one worker gets only its share"
        );
    }

    #[test]
    fn the_highest_rate_after_hours_of_quiet_still_holds_one_second() {
        let mut l = ErrorIndicationLimit::new(u32::MAX, 1);
        assert!(l.allow(0));
        assert!(l.allow(10 * 3600 * NS));
        assert_eq!(l.tokens, l.capacity - l.cost, "a full bucket, less one");
    }

    #[test]
    fn zero_sends_none() {
        let mut l = ErrorIndicationLimit::new(0, 1);
        assert_eq!(burst(&mut l, 5, 0) + burst(&mut l, 5, 10 * NS), 0);
        assert_eq!((l.allowed, l.suppressed), (0, 10));
    }
}
