//! What the run shows of the control plane while it works: a progress line for long batches of
//! session procedures, and when such a batch has stalled.

use std::time::{Duration, Instant};

use upfbench_pfcp::driver::BatchProgress;
use upfbench_pfcp::node::Stats;

/// How often a batch's progress is shown.
const EVERY: Duration = Duration::from_secs(1);

/// The progress line of one batch (establishment or deletion).
#[derive(Debug)]
pub struct BatchMeter {
    verb: &'static str,
    started: Instant,
    last: Instant,
    /// When `done` last grew, and its value then.
    last_done: (Instant, usize),
    /// The stall was reported: the batch is being cancelled, its requests in flight still
    /// time out one by one.
    stall_reported: bool,
}

impl BatchMeter {
    /// When the batch started.
    pub fn started(&self) -> Instant {
        self.started
    }

    /// A meter for a batch that started at `started`; `verb` says what a finished item is
    /// ("established", "deleted").
    pub fn new(verb: &'static str, started: Instant) -> BatchMeter {
        BatchMeter {
            verb,
            started,
            last: started,
            last_done: (started, 0),
            stall_reported: false,
        }
    }

    /// Whether the batch stalled at `now`, said once per batch: items have failed and none has
    /// succeeded for `give_up` (a request's whole retransmission time and then some). A UPF
    /// that stopped answering would otherwise hold a batch of thousands for hours, each window
    /// of requests timing out in turn (Open5GS ignores every session request from a CP it
    /// de-associated). Once said, never again: the cancelled batch's requests in flight still
    /// take their time to give up.
    pub fn stalled(&mut self, now: Instant, p: BatchProgress, give_up: Duration) -> bool {
        if p.done != self.last_done.1 {
            self.last_done = (now, p.done);
            return false;
        }
        let stalled =
            !self.stall_reported && p.failed > 0 && now.duration_since(self.last_done.0) >= give_up;
        self.stall_reported |= stalled;
        stalled
    }

    /// The line to show at `now`, once a second: done / total, the rate since the start, the
    /// failures and, from the node's last counters, retransmissions and the window.
    pub fn line(
        &mut self,
        now: Instant,
        p: BatchProgress,
        stats: Option<&Stats>,
    ) -> Option<String> {
        if now.duration_since(self.last) < EVERY {
            return None;
        }
        self.last = now;
        Some(progress_line(self.verb, now - self.started, p, stats))
    }
}

/// `PFCP: established 4000/100000 (3950/s), failed 0, retransmissions 12, window 64`.
pub fn progress_line(
    verb: &str,
    elapsed: Duration,
    p: BatchProgress,
    stats: Option<&Stats>,
) -> String {
    let secs = elapsed.as_secs_f64();
    let rate = if secs > 0.0 {
        p.done as f64 / secs
    } else {
        0.0
    };
    let mut line = format!(
        "PFCP: {verb} {}/{} ({rate:.0}/s), failed {}",
        p.done, p.total, p.failed
    );
    if let Some(s) = stats {
        line.push_str(&format!(
            ", retransmissions {}, window {}",
            s.retransmissions, s.window
        ));
    }
    line
}

/// What the run says when a batch of session procedures stalls.
pub fn stalled_message(what: &str, give_up: Duration) -> String {
    format!(
        "PFCP: the UPF has answered no session request for {give_up:?} while requests time out: \
         stopping the {what}. (Open5GS de-associates a CP whose heartbeats went unanswered between \
         two runs, then ignores its session requests: wait 30 s between runs, or restart it.)"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_line_shows_done_total_rate_and_the_nodes_counters() {
        let p = BatchProgress {
            total: 100_000,
            done: 4_000,
            failed: 2,
            cancelled: 0,
        };
        let stats = Stats {
            retransmissions: 12,
            window: 64,
            ..Stats::default()
        };
        assert_eq!(
            progress_line("established", Duration::from_secs(2), p, Some(&stats)),
            "PFCP: established 4000/100000 (2000/s), failed 2, retransmissions 12, window 64"
        );
        assert_eq!(
            progress_line("deleted", Duration::ZERO, p, None),
            "PFCP: deleted 4000/100000 (0/s), failed 2"
        );
    }

    #[test]
    fn a_batch_stalls_when_items_fail_and_none_succeeds_for_the_give_up_time() {
        let t0 = Instant::now();
        let give_up = Duration::from_secs(12);
        let mut m = BatchMeter::new("deleted", t0);
        let p = |done, failed| BatchProgress {
            total: 1_000,
            done,
            failed,
            cancelled: 0,
        };
        // Slow but answering: never stalled.
        assert!(!m.stalled(t0 + Duration::from_secs(20), p(0, 0), give_up));
        assert!(!m.stalled(t0 + Duration::from_secs(21), p(5, 0), give_up));
        // Failures, but successes within the give-up time.
        assert!(!m.stalled(t0 + Duration::from_secs(30), p(5, 3), give_up));
        assert!(!m.stalled(t0 + Duration::from_secs(32), p(6, 3), give_up));
        // Failures and no success since 32 s: stalled at 44 s, not before.
        assert!(!m.stalled(t0 + Duration::from_secs(43), p(6, 9), give_up));
        assert!(m.stalled(t0 + Duration::from_secs(44), p(6, 9), give_up));
        // Said once: the run polls every 10 ms while the cancelled batch's requests in flight
        // time out (a dead UPF once printed the stall message on every poll for 20 s).
        for ms in 1..2_000 {
            assert!(!m.stalled(
                t0 + Duration::from_secs(44) + Duration::from_millis(ms * 10),
                p(6, 9 + ms as usize),
                give_up
            ));
        }
    }

    #[test]
    fn the_meter_speaks_once_a_second() {
        let t0 = Instant::now();
        let mut m = BatchMeter::new("established", t0);
        let p = BatchProgress::default();
        assert_eq!(m.line(t0 + Duration::from_millis(500), p, None), None);
        assert!(m.line(t0 + Duration::from_millis(1_000), p, None).is_some());
        assert_eq!(m.line(t0 + Duration::from_millis(1_900), p, None), None);
        assert!(m.line(t0 + Duration::from_millis(2_000), p, None).is_some());
    }
}
