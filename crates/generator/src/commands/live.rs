//! What the live line reads from the RX workers each second: the latency they recorded up to
//! that moment, asked for rather than waited for.
//!
//! A worker hands its latency interval over every second of its own clock, out of step with
//! the control thread's seconds: a line could come just before the hand-over and show no
//! latency (the first line often did), or the previous second's. Asked, a worker hands over at
//! its next loop, microseconds later.

use std::time::{Duration, Instant};

use upfbench_stats::{LiveMeter, RxHandle};

/// How long the line waits for the intervals it asked for: a worker whose core was taken from
/// it answers later, and its interval then goes into the next line.
const INTERVAL_WAIT: Duration = Duration::from_millis(200);

/// Asks every RX worker for the interval it is recording and collects them into `live`,
/// waiting up to `INTERVAL_WAIT` (200 ms) for the answers.
pub(crate) fn collect_intervals(live: &mut LiveMeter, rx: &mut [RxHandle]) {
    for h in rx.iter_mut() {
        h.request_interval();
    }
    let deadline = Instant::now() + INTERVAL_WAIT;
    loop {
        for h in rx.iter_mut() {
            live.collect(h);
        }
        if rx.iter().all(RxHandle::answered) || Instant::now() >= deadline {
            return;
        }
        std::thread::sleep(Duration::from_micros(100));
    }
}

/// The last live line of the running step, for a program that asks for it (an agent's
/// `GET /v1/runs/{id}`) rather than reads the terminal: written once a second by the run, read
/// by the API's thread.
#[derive(Debug, Default)]
pub(crate) struct LiveBoard {
    last: std::sync::Mutex<Option<LiveNow>>,
}

/// A step's live line, with the step it is of.
#[derive(Debug, Clone)]
pub(crate) struct LiveNow {
    /// The step (from 1).
    pub(crate) step: u32,
    /// Its figures over the last second.
    pub(crate) line: upfbench_stats::LiveLine,
}

impl LiveBoard {
    /// Posts step `step`'s line.
    pub(crate) fn post(&self, step: u32, line: upfbench_stats::LiveLine) {
        if let Ok(mut last) = self.last.lock() {
            *last = Some(LiveNow { step, line });
        }
    }

    /// The last line posted, if any.
    pub(crate) fn last(&self) -> Option<LiveNow> {
        self.last.lock().ok().and_then(|l| l.clone())
    }
}
