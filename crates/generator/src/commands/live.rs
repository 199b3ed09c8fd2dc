//! What the live line reads from the RX workers each second: the latency they recorded up to
//! that moment, asked for rather than waited for.
//!
//! A worker hands its latency interval over every second of its own clock, out of step with
//! the control thread's seconds: a line could come just before the hand-over and show no
//! latency (the first line often did), or the previous second's. Asked, a worker hands over at
//! its next loop, microseconds later.

use std::time::{Duration, Instant};

use upfbench_api::v1::{LiveDirection, LiveFigures, SearchProgress};
use upfbench_stats::{LiveLine, LiveMeter, RxHandle};

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
    search: std::sync::Mutex<Option<SearchProgress>>,
}

/// A step's live figures, with the step they are of.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct LiveNow {
    /// The step (from 1).
    pub(crate) step: u32,
    /// Its figures over the last second, in the API's terms.
    pub(crate) figures: LiveFigures,
}

impl LiveBoard {
    /// Posts step `step`'s line.
    pub(crate) fn post(&self, step: u32, line: &LiveLine) {
        self.post_figures(step, live_figures(line));
    }

    /// Posts step `step`'s figures.
    pub(crate) fn post_figures(&self, step: u32, figures: LiveFigures) {
        if let Ok(mut last) = self.last.lock() {
            *last = Some(LiveNow { step, figures });
        }
    }

    /// Posts a search's progress after a trial.
    pub(crate) fn post_search(&self, progress: SearchProgress) {
        if let Ok(mut s) = self.search.lock() {
            *s = Some(progress);
        }
    }

    /// The search's last progress, if any.
    pub(crate) fn search(&self) -> Option<SearchProgress> {
        self.search.lock().ok().and_then(|s| s.clone())
    }

    /// Forgets the last line (a new step's come).
    pub(crate) fn clear(&self) {
        if let Ok(mut last) = self.last.lock() {
            *last = None;
        }
    }

    /// The last line posted, if any.
    pub(crate) fn last(&self) -> Option<LiveNow> {
        self.last.lock().ok().and_then(|l| l.clone())
    }
}

/// The live line's figures in the API's terms (one pair: `total` is its figures).
fn live_figures(line: &LiveLine) -> LiveFigures {
    LiveFigures {
        elapsed_ns: line.elapsed_ns,
        interval_ns: line.interval_ns,
        total: line
            .directions
            .iter()
            .map(|d| LiveDirection {
                direction: d.direction,
                tx_packets: d.tx_packets,
                rx_packets: d.rx_packets,
                tx_gbps_l1: d.tx_gbps_l1,
                tx_kpps: d.tx_kpps,
                rx_gbps_l1: d.rx_gbps_l1,
                rx_kpps: d.rx_kpps,
                lost: d.lost,
                lost_total: d.lost_total,
                lat_p50_ns: d.lat_p50_ns,
                lat_p99_ns: d.lat_p99_ns,
                lat_max_ns: d.lat_max_ns,
            })
            .collect(),
        pairs: Vec::new(),
    }
}
