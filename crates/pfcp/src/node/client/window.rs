//! How many session requests may be in flight: a window adapted like TCP's congestion window
//! (RFC 5681), because a UPF's UDP receive buffer is a bottleneck nobody announces. With a
//! fixed window of 256, both UPFs measured lost 131 of 1,000 establishments to receive-buffer
//! overflow and each lost one waited T1 (3 s); 64 in flight lost none.
//!
//! PFCP's only loss signal is T1 (3 s), far longer than a round trip to a UPF: a window that
//! doubled every round trip, as TCP's slow start does, would overshoot by thousands before the
//! first loss showed. So the window grows by one per window of answers from the start
//! (congestion avoidance), is halved when a request has to be retransmitted (at most once per
//! T1, since one overflow loses many at once), and restarts from one when a request is given
//! up, then doubles per round trip (slow start) back to half the window that failed. Only
//! answers to requests sent once count (Karn's rule); the window never exceeds the configured
//! maximum.

use core::time::Duration;
use std::time::Instant;

/// The adaptive window of session requests.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Window {
    cwnd: f64,
    ssthresh: f64,
    max: f64,
    largest: usize,
    /// No second decrease before this (the losses of one overflow arrive together).
    calm_until: Option<Instant>,
}

impl Window {
    pub(crate) fn new(initial: usize, max: usize) -> Window {
        let max = max.max(1) as f64;
        let cwnd = (initial.max(1) as f64).min(max);
        Window {
            cwnd,
            ssthresh: cwnd,
            max,
            largest: cwnd as usize,
            calm_until: None,
        }
    }

    /// Requests that may be in flight now.
    pub(crate) fn size(&self) -> usize {
        self.cwnd as usize
    }

    /// The largest size reached.
    pub(crate) fn largest(&self) -> usize {
        self.largest
    }

    /// A session request was answered; `first_try` when it had been sent once.
    pub(crate) fn on_answer(&mut self, first_try: bool) {
        if !first_try {
            return;
        }
        self.cwnd += if self.cwnd < self.ssthresh {
            1.0
        } else {
            1.0 / self.cwnd
        };
        self.cwnd = self.cwnd.min(self.max);
        self.largest = self.largest.max(self.size());
    }

    /// A request had to be retransmitted at `now`.
    pub(crate) fn on_retransmission(&mut self, now: Instant, t1: Duration) {
        if self.calm_until.is_some_and(|t| now < t) {
            return;
        }
        self.ssthresh = (self.cwnd / 2.0).max(1.0);
        self.cwnd = self.ssthresh;
        self.calm_until = Some(now + t1);
    }

    /// A request was given up.
    pub(crate) fn on_timeout(&mut self) {
        self.ssthresh = (self.cwnd / 2.0).max(1.0);
        self.cwnd = 1.0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_window_grows_by_about_one_per_window_of_answers_up_to_its_maximum() {
        let mut w = Window::new(16, 20);
        // A round: as many answers as the window.
        for expected in [16, 17, 18, 19, 20, 20] {
            let n = w.size();
            for _ in 0..n {
                w.on_answer(true);
            }
            assert!(
                w.size().abs_diff(expected) <= 1,
                "{} after a round",
                w.size()
            );
        }
        assert_eq!(w.size(), 20);
        assert_eq!(w.largest(), 20);
    }

    #[test]
    fn a_retransmission_halves_once_per_t1_and_growth_is_then_linear() {
        let t1 = Duration::from_secs(3);
        let now = Instant::now();
        let mut w = Window::new(32, 64);
        w.on_retransmission(now, t1);
        assert_eq!(w.size(), 16);
        // More losses of the same overflow change nothing.
        w.on_retransmission(now + Duration::from_millis(10), t1);
        assert_eq!(w.size(), 16);
        // After the threshold, about one more per window of answers.
        for _ in 0..16 {
            w.on_answer(true);
        }
        assert_eq!(w.size(), 16);
        w.on_answer(true);
        assert_eq!(w.size(), 17);
        // Answers to retransmitted requests do not count.
        for _ in 0..100 {
            w.on_answer(false);
        }
        assert_eq!(w.size(), 17);
        w.on_retransmission(now + t1, t1);
        assert_eq!(w.size(), 8);
        assert_eq!(w.largest(), 32);
    }

    #[test]
    fn a_timeout_restarts_from_one_and_the_window_stays_in_its_bounds() {
        let mut w = Window::new(0, 0);
        assert_eq!(w.size(), 1);
        w.on_timeout();
        assert_eq!(w.size(), 1);
        let mut w = Window::new(500, 64);
        assert_eq!(w.size(), 64);
        w.on_timeout();
        assert_eq!(w.size(), 1);
        for _ in 0..31 {
            w.on_answer(true);
        }
        // Slow start again up to half the window that failed.
        assert_eq!(w.size(), 32);
        w.on_answer(true);
        assert_eq!(w.size(), 32);
    }
}
