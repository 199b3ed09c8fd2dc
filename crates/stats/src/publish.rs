//! How a worker's numbers reach the control thread while the worker runs, without a lock on the
//! worker's path.
//!
//! * **Counters** (packets, bytes, loss classes) are copied by the worker into a sequence lock
//!   over `AtomicU64`s (`seqlock.rs`: the writer never waits, a reader retries until its copy
//!   was not overlapped by a write) when it calls `publish` (every 100 µs or so of its loop,
//!   and only if something changed): a handful of relaxed stores and two version stores. A reader
//!   ([`RxHandle::snapshot`], [`TxHandle::snapshot`]) gets a consistent copy at any time; it may
//!   retry, the worker never waits.
//! * **Latency** travels per interval (1 s by default). The worker stages each packet's latency
//!   in a flat array with the HDR histogram's bucket layout (see `hot_latency.rs`). When the
//!   interval has passed it adds the touched part of that array into its own cumulative array
//!   (for the final result), swaps in an empty array and offers the full one on a bounded
//!   channel with `try_send`: O(1) plus the touched range, no histogram work. The control thread
//!   takes intervals with [`RxHandle::collect_latency`] or [`RxHandle::try_interval`], which turn
//!   them into HDR histograms on the control thread and send the emptied arrays back on a second
//!   bounded channel, so that in steady state the worker allocates nothing; when none has come
//!   back it allocates one, at most once per interval and never per packet. Both ends use only
//!   `try_send` / `try_recv`, which neither block nor, with no thread parked on the channel, take
//!   the channel's internal lock. If the control thread falls [`INTERVAL_QUEUE`] intervals
//!   behind, the worker drops the newest interval from the live view; its cumulative array (and
//!   so the final report) never loses a sample.
//! * **An interval on request**: the control thread may ask for the interval now
//!   ([`RxHandle::request_interval`], a counter the worker loads once per `publish`) instead of
//!   waiting for the worker's period to end, so that a live line holds every sample up to the
//!   moment it is printed, the first one included ([`RxHandle::answered`] says when it came).

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::{Receiver, SyncSender, TrySendError};

use crate::direction::Direction;
use crate::hot_latency::HotLatency;
use crate::latency::{LatencyConfig, LatencyRecorder};
use crate::rate::TrafficCounters;
use crate::seqlock::SeqlockCell;

/// Intervals that can wait for the control thread before the live view starts skipping.
pub const INTERVAL_QUEUE: usize = 4;

/// Live receive counters of one direction on one core.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct RxCounters {
    /// Every tagged packet of a known stream, and their L2 bytes.
    pub traffic: TrafficCounters,
    /// First receptions.
    pub unique: u64,
    /// Receptions already seen within the window.
    pub duplicates: u64,
    /// First receptions after a higher sequence number.
    pub reordered: u64,
    /// Receptions older than the window.
    pub late: u64,
    /// Sequence positions that left the window unreceived (grows only; the final figure also
    /// counts the gaps still open at the end).
    pub lost_confirmed: u64,
}

impl RxCounters {
    const WORDS: usize = 7;

    fn write_to(&self, out: &mut [u64]) {
        out[..Self::WORDS].copy_from_slice(&[
            self.traffic.packets,
            self.traffic.bytes_l2,
            self.unique,
            self.duplicates,
            self.reordered,
            self.late,
            self.lost_confirmed,
        ]);
    }

    fn read_from(w: &[u64]) -> RxCounters {
        RxCounters {
            traffic: TrafficCounters {
                packets: w[0],
                bytes_l2: w[1],
            },
            unique: w[2],
            duplicates: w[3],
            reordered: w[4],
            late: w[5],
            lost_confirmed: w[6],
        }
    }

    /// Adds another core's counters.
    pub fn merge(&mut self, o: &RxCounters) {
        self.traffic.merge(&o.traffic);
        self.unique += o.unique;
        self.duplicates += o.duplicates;
        self.reordered += o.reordered;
        self.late += o.late;
        self.lost_confirmed += o.lost_confirmed;
    }
}

/// A consistent copy of one RX core's counters.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct RxSnapshot {
    /// The worker's core index.
    pub core: u32,
    /// The worker's clock when it published (ns).
    pub at_ns: u64,
    /// Per direction, indexed by [`Direction::index`].
    pub directions: [RxCounters; 2],
    /// Tagged packets whose stream id is not in the table.
    pub unknown_stream: u64,
    /// Packets without a valid tag.
    pub untagged: u64,
}

impl RxSnapshot {
    /// The counters of one direction.
    pub fn direction(&self, d: Direction) -> &RxCounters {
        &self.directions[d.index()]
    }
}

pub(crate) const RX_WORDS: usize = 2 * RxCounters::WORDS + 3;

pub(crate) fn rx_to_words(s: &RxSnapshot) -> [u64; RX_WORDS] {
    let mut w = [0u64; RX_WORDS];
    s.directions[0].write_to(&mut w[0..]);
    s.directions[1].write_to(&mut w[RxCounters::WORDS..]);
    let base = 2 * RxCounters::WORDS;
    w[base] = s.unknown_stream;
    w[base + 1] = s.untagged;
    w[base + 2] = s.at_ns;
    w
}

fn rx_from_words(core: u32, w: &[u64; RX_WORDS]) -> RxSnapshot {
    let base = 2 * RxCounters::WORDS;
    RxSnapshot {
        core,
        at_ns: w[base + 2],
        directions: [
            RxCounters::read_from(&w[0..]),
            RxCounters::read_from(&w[RxCounters::WORDS..]),
        ],
        unknown_stream: w[base],
        untagged: w[base + 1],
    }
}

/// A consistent copy of one TX core's counters.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct TxSnapshot {
    /// The worker's core index.
    pub core: u32,
    /// The worker's clock when it published (ns).
    pub at_ns: u64,
    /// Frames handed to the NIC per direction, indexed by [`Direction::index`].
    pub directions: [TrafficCounters; 2],
    /// How far behind its schedule the worker's sending of each direction is now (ns; the
    /// latest of its senders): lateness that slipped the schedule and is not made up yet.
    pub late_ns: [u64; 2],
}

pub(crate) const TX_WORDS: usize = 7;

pub(crate) fn tx_to_words(s: &TxSnapshot) -> [u64; TX_WORDS] {
    [
        s.directions[0].packets,
        s.directions[0].bytes_l2,
        s.directions[1].packets,
        s.directions[1].bytes_l2,
        s.at_ns,
        s.late_ns[0],
        s.late_ns[1],
    ]
}

/// The latency samples one RX core recorded over one interval.
#[derive(Debug, Clone, PartialEq)]
pub struct LatencyInterval {
    /// The worker's core index.
    pub core: u32,
    /// Worker clock at the start of the interval (ns).
    pub start_ns: u64,
    /// Worker clock at its end (ns).
    pub end_ns: u64,
    /// Per direction, indexed by [`Direction::index`].
    pub latency: [LatencyRecorder; 2],
}

/// An interval as the worker hands it over: staged counts, not yet a histogram.
#[derive(Debug)]
pub(crate) struct StagedInterval {
    pub(crate) core: u32,
    pub(crate) start_ns: u64,
    pub(crate) end_ns: u64,
    /// The latest request of the control thread this interval answers (0: none).
    pub(crate) answers: u64,
    pub(crate) latency: [HotLatency; 2],
}

impl StagedInterval {
    pub(crate) fn new(core: u32, config: &LatencyConfig) -> StagedInterval {
        StagedInterval {
            core,
            start_ns: 0,
            end_ns: 0,
            answers: 0,
            latency: [HotLatency::new(config), HotLatency::new(config)],
        }
    }
}

/// The control thread's view of one RX worker. `Send`, not shared: one per worker.
#[derive(Debug)]
pub struct RxHandle {
    core: u32,
    latency_config: LatencyConfig,
    cell: Arc<SeqlockCell<RX_WORDS>>,
    intervals: Receiver<StagedInterval>,
    recycle: SyncSender<StagedInterval>,
    /// Requests for an interval now, counted: the worker reads it.
    requested: Arc<AtomicU64>,
    /// The latest request made, and the latest an interval received answered.
    asked: u64,
    answered: u64,
}

impl RxHandle {
    /// The worker's core index.
    pub fn core(&self) -> u32 {
        self.core
    }

    /// The counters as last published by the worker.
    pub fn snapshot(&self) -> RxSnapshot {
        rx_from_words(self.core, &self.cell.read())
    }

    /// A reader of the same counters for another thread (a metrics endpoint reading them at
    /// scrape time): it shares the worker's cell and takes nothing from this handle.
    pub fn counters(&self) -> RxCountersReader {
        RxCountersReader {
            core: self.core,
            cell: Arc::clone(&self.cell),
        }
    }

    /// Asks the worker to hand over the interval it is recording at its next `publish`,
    /// whether or not its period has ended.
    pub fn request_interval(&mut self) {
        self.asked = self.requested.fetch_add(1, Ordering::Relaxed) + 1;
    }

    /// Whether an interval answering the last [`request_interval`](Self::request_interval) has
    /// been collected (true when none was made). The answer may never come: from a worker that
    /// has stopped, or when the intervals' queue was full.
    pub fn answered(&self) -> bool {
        self.answered >= self.asked
    }

    /// The oldest latency interval waiting, as histograms (never blocks; allocates them).
    pub fn try_interval(&mut self) -> Option<LatencyInterval> {
        let mut staged = self.intervals.try_recv().ok()?;
        let empty = LatencyRecorder::new(&self.latency_config)
            .expect("configuration validated by RxStats::new");
        let mut latency = [empty.clone(), empty];
        for (l, h) in latency.iter_mut().zip(&mut staged.latency) {
            h.drain_into(l);
        }
        let iv = LatencyInterval {
            core: staged.core,
            start_ns: staged.start_ns,
            end_ns: staged.end_ns,
            latency,
        };
        self.give_back(staged);
        Some(iv)
    }

    /// Adds every waiting interval into `into` (per direction); returns how many.
    pub fn collect_latency(&mut self, into: &mut [LatencyRecorder; 2]) -> usize {
        let mut n = 0;
        while let Ok(mut staged) = self.intervals.try_recv() {
            for (l, h) in into.iter_mut().zip(&mut staged.latency) {
                h.drain_into(l);
            }
            self.give_back(staged);
            n += 1;
        }
        n
    }

    /// Notes the request a collected interval answered, and returns its drained (empty)
    /// staging to the worker for reuse.
    fn give_back(&mut self, staged: StagedInterval) {
        self.answered = self.answered.max(staged.answers);
        // A full queue or a finished worker: the buffer is simply dropped.
        let _ = self.recycle.try_send(staged);
    }
}

/// A shareable reader of one RX worker's published counters (see [`RxHandle::counters`]):
/// [`snapshot`](Self::snapshot) as the handle's, from any thread, without its latency
/// intervals.
#[derive(Debug, Clone)]
pub struct RxCountersReader {
    core: u32,
    cell: Arc<SeqlockCell<RX_WORDS>>,
}

impl RxCountersReader {
    /// The counters as last published by the worker.
    pub fn snapshot(&self) -> RxSnapshot {
        rx_from_words(self.core, &self.cell.read())
    }
}

/// The worker's half of the RX publication.
#[derive(Debug)]
pub(crate) struct RxPublisher {
    pub(crate) cell: Arc<SeqlockCell<RX_WORDS>>,
    to_control: SyncSender<StagedInterval>,
    recycled: Receiver<StagedInterval>,
    control_gone: bool,
    requested: Arc<AtomicU64>,
}

impl RxPublisher {
    pub(crate) fn new(core: u32, latency_config: LatencyConfig) -> (RxPublisher, RxHandle) {
        let cell = Arc::new(SeqlockCell::new());
        let (to_control, intervals) = std::sync::mpsc::sync_channel(INTERVAL_QUEUE);
        let (recycle, recycled) = std::sync::mpsc::sync_channel(INTERVAL_QUEUE);
        let requested = Arc::new(AtomicU64::new(0));
        (
            RxPublisher {
                cell: Arc::clone(&cell),
                to_control,
                recycled,
                control_gone: false,
                requested: Arc::clone(&requested),
            },
            RxHandle {
                core,
                latency_config,
                cell,
                intervals,
                recycle,
                requested,
                asked: 0,
                answered: 0,
            },
        )
    }

    /// The control thread's latest request for an interval (0: none yet).
    #[inline]
    pub(crate) fn requested(&self) -> u64 {
        self.requested.load(Ordering::Relaxed)
    }

    /// An empty interval handed back by the control thread, if any.
    pub(crate) fn take_recycled(&mut self) -> Option<StagedInterval> {
        self.recycled.try_recv().ok()
    }

    /// Offers a finished interval; returns it if the control thread cannot take it now.
    pub(crate) fn offer(&mut self, iv: StagedInterval) -> Option<StagedInterval> {
        if self.control_gone {
            return Some(iv);
        }
        match self.to_control.try_send(iv) {
            Ok(()) => None,
            Err(TrySendError::Full(iv)) => Some(iv),
            Err(TrySendError::Disconnected(iv)) => {
                self.control_gone = true;
                Some(iv)
            }
        }
    }
}

/// The control thread's view of one TX worker.
#[derive(Debug, Clone)]
pub struct TxHandle {
    core: u32,
    cell: Arc<SeqlockCell<TX_WORDS>>,
}

impl TxHandle {
    pub(crate) fn new(core: u32) -> (Arc<SeqlockCell<TX_WORDS>>, TxHandle) {
        let cell = Arc::new(SeqlockCell::new());
        (Arc::clone(&cell), TxHandle { core, cell })
    }

    /// The worker's core index.
    pub fn core(&self) -> u32 {
        self.core
    }

    /// The counters as last published by the worker.
    pub fn snapshot(&self) -> TxSnapshot {
        let w = self.cell.read();
        TxSnapshot {
            core: self.core,
            at_ns: w[4],
            late_ns: [w[5], w[6]],
            directions: [
                TrafficCounters {
                    packets: w[0],
                    bytes_l2: w[1],
                },
                TrafficCounters {
                    packets: w[2],
                    bytes_l2: w[3],
                },
            ],
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rx_words_round_trip() {
        let s = RxSnapshot {
            core: 3,
            at_ns: 99,
            directions: [
                RxCounters {
                    traffic: TrafficCounters {
                        packets: 1,
                        bytes_l2: 2,
                    },
                    unique: 3,
                    duplicates: 4,
                    reordered: 5,
                    late: 6,
                    lost_confirmed: 7,
                },
                RxCounters {
                    traffic: TrafficCounters {
                        packets: 11,
                        bytes_l2: 12,
                    },
                    unique: 13,
                    duplicates: 14,
                    reordered: 15,
                    late: 16,
                    lost_confirmed: 17,
                },
            ],
            unknown_stream: 21,
            untagged: 22,
        };
        assert_eq!(rx_from_words(3, &rx_to_words(&s)), s);
    }

    #[test]
    fn a_counters_reader_sees_what_the_worker_publishes() {
        let (publisher, handle) = RxPublisher::new(2, LatencyConfig::default());
        let reader = handle.counters();
        assert_eq!(reader.snapshot(), handle.snapshot());
        let mut s = RxSnapshot {
            core: 2,
            ..RxSnapshot::default()
        };
        s.directions[1].traffic.packets = 42;
        s.untagged = 7;
        publisher.cell.write(&rx_to_words(&s));
        // From another thread, after the handle that made it is gone.
        drop(handle);
        let read = std::thread::spawn(move || reader.snapshot())
            .join()
            .expect("reader thread");
        assert_eq!(read, s);
    }
}
