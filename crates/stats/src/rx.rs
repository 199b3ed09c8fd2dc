//! The receive side: one [`RxStats`] per RX worker core, owned by that core alone.
//!
//! Per packet the worker calls [`RxStats::record`] with what it parsed from the measurement tag
//! (stream id, sequence number, transmit timestamp), its receive timestamp and the frame length.
//! That costs one indexed load into a table preallocated at set-up (streams are numbered densely
//! from 0), the [`SeqTracker`] update, the RFC 3550 jitter step, a histogram record and a few
//! counter increments: no hashing, no allocation, no lock, no atomic. Per burst it calls
//! [`RxStats::publish`] (see [`crate::publish`]); at the end [`RxStats::finish`] hands the whole
//! state over for the merge.

use thiserror::Error;

use crate::direction::Direction;
use crate::hot_latency::CumulativeLatency;
use crate::jitter::Jitter;
use crate::latency::{LatencyConfig, LatencyConfigError, LatencyRecorder};
use crate::publish::{RxCounters, RxHandle, RxPublisher, RxSnapshot, StagedInterval, rx_to_words};
use crate::seq::{Arrival, DEFAULT_REORDER_WINDOW, SeqTracker, WindowError};

/// The first [`Arrival`] discriminant counted per direction (the ones before it are unique
/// arrivals in order or after a gap).
const FIRST_RARE: usize = Arrival::Reordered as usize;

/// Default latency interval handed to the control thread: one second.
pub(crate) const DEFAULT_LATENCY_INTERVAL_NS: u64 = 1_000_000_000;

/// What the stats need to know about a stream, indexed by its dense stream id.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StreamSpec {
    /// Which direction the stream flows in.
    pub direction: Direction,
    /// The sequence number of the stream's first packet.
    pub first_seq: u32,
}

/// Receive-side settings, the same for every RX core of a run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RxConfig {
    /// Reorder window per stream (power of two, 64..=65536).
    pub reorder_window: u32,
    /// Latency histogram bounds and precision.
    pub latency: LatencyConfig,
    /// How often the worker hands a latency interval to the control thread (ns).
    pub latency_interval_ns: u64,
}

impl Default for RxConfig {
    fn default() -> Self {
        RxConfig {
            reorder_window: DEFAULT_REORDER_WINDOW,
            latency: LatencyConfig::default(),
            latency_interval_ns: DEFAULT_LATENCY_INTERVAL_NS,
        }
    }
}

/// An RX configuration that cannot be used.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum RxConfigError {
    /// Bad reorder window.
    #[error(transparent)]
    Window(#[from] WindowError),
    /// Bad latency histogram settings.
    #[error(transparent)]
    Latency(#[from] LatencyConfigError),
    /// More streams than 32-bit stream ids can name.
    #[error("{0} streams exceed the 32-bit stream id space")]
    TooManyStreams(usize),
}

/// Receive state of one stream on one core: exactly one cache line. An in-order packet touches
/// no other line of the stream's (the tracker keeps the head's bitmap word inline); the
/// tracker's allocation is read and written once per 64 in-order packets and on the rare paths.
#[derive(Debug, Clone, PartialEq)]
#[repr(align(64))]
pub struct RxStream {
    /// The stream's direction.
    pub direction: Direction,
    /// Its sequence tracker.
    pub tracker: SeqTracker,
    /// Its RFC 3550 jitter estimate.
    pub jitter: Jitter,
}

/// Everything one RX core measured, handed over by [`RxStats::finish`] for the merge.
#[derive(Debug, Clone, PartialEq)]
pub struct RxCoreResult {
    /// The worker's core index.
    pub core: u32,
    /// Per stream id, every stream of the run (untouched ones have `tracker.received() == 0`).
    pub streams: Vec<RxStream>,
    /// Counters per direction.
    pub directions: [RxCounters; 2],
    /// Latency over the whole run per direction.
    pub latency: [LatencyRecorder; 2],
    /// Tagged packets whose stream id is not in the table.
    pub unknown_stream: u64,
    /// Packets without a valid tag.
    pub untagged: u64,
}

/// The per-stream table for `streams`: `recycled` reset when it fits (as many streams, the same
/// `window`), else allocated.
fn stream_table(
    streams: &[StreamSpec],
    window: u32,
    mut recycled: Vec<RxStream>,
) -> Result<Vec<RxStream>, WindowError> {
    let fits = recycled.len() == streams.len()
        && recycled
            .iter()
            .all(|s| s.tracker.window() == u64::from(window));
    if !fits {
        return streams
            .iter()
            .map(|s| {
                Ok(RxStream {
                    direction: s.direction,
                    tracker: SeqTracker::new(s.first_seq, window)?,
                    jitter: Jitter::default(),
                })
            })
            .collect();
    }
    for (r, s) in recycled.iter_mut().zip(streams) {
        r.direction = s.direction;
        r.tracker.reset(s.first_seq);
        r.jitter = Jitter::default();
    }
    Ok(recycled)
}

/// The receive statistics of one RX worker core.
#[derive(Debug)]
pub struct RxStats {
    core: u32,
    streams: Vec<RxStream>,
    /// Counters as the worker updates them.
    live: RxSnapshot,
    /// Per direction, packets of the rare classes (reordered, duplicate, late: indexed by the
    /// discriminant minus [`FIRST_RARE`]); folded into `live` when read. The unique packets are
    /// not counted: every packet of a known stream is exactly one of unique, duplicate, late.
    rare: [[u64; 3]; 2],
    /// The interval being recorded: per-packet latency staging per direction.
    hot: StagedInterval,
    interval_started: bool,
    interval_ns: u64,
    /// Packets seen when the current interval started, and how many it may hold.
    interval_start_seen: u64,
    stage_limit: u64,
    /// The control thread's latest request for an interval that was answered.
    answered: u64,
    /// Every finished interval, added at hand-over (touched range only).
    cumulative: [CumulativeLatency; 2],
    latency_config: LatencyConfig,
    /// Packets seen (all kinds) at the last counter publication.
    published_seen: u64,
    publisher: RxPublisher,
    /// An emptied interval kept when the control thread could not take the last one.
    spare: Option<StagedInterval>,
}

impl RxStats {
    /// Stats for RX core `core` over the run's streams (`streams[id]` describes stream `id`), and
    /// the handle the control thread reads them through. Allocates everything the core will use.
    pub fn new(
        core: u32,
        streams: &[StreamSpec],
        config: &RxConfig,
    ) -> Result<(RxStats, RxHandle), RxConfigError> {
        RxStats::reusing(core, streams, config, Vec::new())
    }

    /// Like [`new`](Self::new), with the per-stream table of an earlier result
    /// ([`RxCoreResult::streams`]) reset and reused when it has as many streams and the same
    /// reorder window (else allocated anew): a step of the same flows as the one before (a
    /// search's next trial) allocates nothing per stream.
    pub fn reusing(
        core: u32,
        streams: &[StreamSpec],
        config: &RxConfig,
        recycled: Vec<RxStream>,
    ) -> Result<(RxStats, RxHandle), RxConfigError> {
        if u32::try_from(streams.len()).is_err() {
            return Err(RxConfigError::TooManyStreams(streams.len()));
        }
        let table = stream_table(streams, config.reorder_window, recycled)?;
        // Validates the latency configuration for every histogram built from it later.
        LatencyRecorder::new(&config.latency)?;
        let (publisher, handle) = RxPublisher::new(core, config.latency);
        let mut stats = RxStats {
            core,
            streams: table,
            live: RxSnapshot {
                core,
                ..RxSnapshot::default()
            },
            rare: [[0; 3]; 2],
            hot: StagedInterval::new(core, &config.latency),
            interval_started: false,
            interval_ns: config.latency_interval_ns.max(1),
            interval_start_seen: 0,
            stage_limit: 0,
            answered: 0,
            cumulative: [
                CumulativeLatency::new(&config.latency),
                CumulativeLatency::new(&config.latency),
            ],
            latency_config: config.latency,
            published_seen: 0,
            publisher,
            spare: None,
        };
        stats.stage_limit = stats.hot.latency[0].stage_limit();
        Ok((stats, handle))
    }

    /// The core index given at construction.
    pub fn core(&self) -> u32 {
        self.core
    }

    /// Records one tagged packet: `stream` and `seq` and `tx_ns` from the tag, `rx_ns` the
    /// receive timestamp on the same clock as the transmitter's, `frame_len` the L2 length
    /// (without FCS). Returns the packet's class, or `None` for a stream id not in the table
    /// (counted in `unknown_stream`).
    #[inline(always)]
    pub fn record(
        &mut self,
        stream: u32,
        seq: u32,
        tx_ns: u64,
        rx_ns: u64,
        frame_len: u32,
    ) -> Option<Arrival> {
        self.record_transit(stream, seq, rx_ns.wrapping_sub(tx_ns) as i64, frame_len)
    }

    /// Like [`record`](Self::record) with the one-way transit time already computed, for tags
    /// that carry a truncated timestamp (e.g. the low 32 bits of the clock: the caller computes
    /// `rx.wrapping_sub(tx)` in 32 bits). A negative transit is counted, not recorded.
    #[inline(always)]
    pub fn record_transit(
        &mut self,
        stream: u32,
        seq: u32,
        transit_ns: i64,
        frame_len: u32,
    ) -> Option<Arrival> {
        let Some(s) = self.streams.get_mut(stream as usize) else {
            self.live.unknown_stream += 1;
            return None;
        };
        let observed = s.tracker.observe(seq);
        s.jitter.update(transit_ns);
        let d = s.direction.index();
        let c = &mut self.live.directions[d];
        c.traffic.add_frame(frame_len);
        if observed.newly_lost != 0 {
            c.lost_confirmed += observed.newly_lost;
        }
        // One well-predicted branch (a match here would become a jump table).
        if let Some(k) = (observed.arrival as usize).checked_sub(FIRST_RARE) {
            self.rare[d][k] += 1;
        }
        self.hot.latency[d].record(transit_ns);
        Some(observed.arrival)
    }

    /// Counts a packet that carried no valid measurement tag.
    #[inline]
    pub fn record_untagged(&mut self) {
        self.live.untagged += 1;
    }

    /// The counters as they stand (the worker's own view; no synchronisation).
    pub fn counters(&self) -> RxSnapshot {
        let mut s = self.live;
        for (c, k) in s.directions.iter_mut().zip(&self.rare) {
            c.reordered = k[Arrival::Reordered as usize - FIRST_RARE];
            c.duplicates = k[Arrival::Duplicate as usize - FIRST_RARE];
            c.late = k[Arrival::Late as usize - FIRST_RARE];
            c.unique = c.traffic.packets - c.duplicates - c.late;
        }
        s
    }

    /// The state of stream `id`, if it exists.
    pub fn stream(&self, id: u32) -> Option<&RxStream> {
        self.streams.get(id as usize)
    }

    /// Call regularly (the generator's worker: every 100 µs of its loop, also on empty polls)
    /// with the worker's clock: publishes the counters
    /// if they changed and hands the latency interval to the control thread when it is due, or
    /// when the control thread asked for it ([`RxHandle::request_interval`]).
    #[inline]
    pub fn publish(&mut self, now_ns: u64) {
        let seen = self.seen();
        if seen != self.published_seen {
            self.publish_counters(now_ns);
        }
        let requested = self.publisher.requested();
        if !self.interval_started {
            self.interval_started = true;
            self.hot.start_ns = now_ns;
        } else if now_ns.saturating_sub(self.hot.start_ns) >= self.interval_ns
            || seen - self.interval_start_seen >= self.stage_limit
            || requested != self.answered
        {
            self.answered = requested;
            self.hand_over_interval(now_ns);
        }
    }

    /// Ends the run on this core: publishes the final counters and returns everything measured.
    /// The interval being recorded is handed over too (when the control thread can take it), so
    /// that the intervals the control thread received add up to the run's histograms.
    pub fn finish(mut self, now_ns: u64) -> RxCoreResult {
        self.publish_counters(now_ns);
        if self.interval_started {
            self.hand_over_interval(now_ns);
        }
        for (c, h) in self.cumulative.iter_mut().zip(&self.hot.latency) {
            c.add(h);
        }
        let latency = [
            self.cumulative[0].to_recorder(&self.latency_config),
            self.cumulative[1].to_recorder(&self.latency_config),
        ];
        RxCoreResult {
            core: self.core,
            directions: self.counters().directions,
            streams: self.streams,
            latency,
            unknown_stream: self.live.unknown_stream,
            untagged: self.live.untagged,
        }
    }

    fn seen(&self) -> u64 {
        self.live.directions[0].traffic.packets
            + self.live.directions[1].traffic.packets
            + self.live.unknown_stream
            + self.live.untagged
    }

    fn publish_counters(&mut self, now_ns: u64) {
        self.live.at_ns = now_ns;
        self.publisher.cell.write(&rx_to_words(&self.counters()));
        self.published_seen = self.seen();
    }

    #[cold]
    fn hand_over_interval(&mut self, now_ns: u64) {
        for (c, h) in self.cumulative.iter_mut().zip(&self.hot.latency) {
            c.add(h);
        }
        let mut next = match self.spare.take().or_else(|| self.publisher.take_recycled()) {
            Some(iv) => iv,
            None => StagedInterval::new(self.core, &self.latency_config),
        };
        next.core = self.core;
        next.start_ns = now_ns;
        next.end_ns = 0;
        self.interval_start_seen = self.seen();
        let mut done = std::mem::replace(&mut self.hot, next);
        done.end_ns = now_ns;
        done.answers = self.answered;
        if let Some(mut back) = self.publisher.offer(done) {
            // The control thread is behind or gone: the live view skips this interval (the
            // cumulative arrays already hold it). Keep the buffers for the next hand-over.
            for h in &mut back.latency {
                h.clear();
            }
            self.spare = Some(back);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn specs() -> Vec<StreamSpec> {
        vec![
            StreamSpec {
                direction: Direction::Uplink,
                first_seq: 0,
            },
            StreamSpec {
                direction: Direction::Downlink,
                first_seq: 100,
            },
        ]
    }

    /// Packets 0..20 of stream 0 with 5 missing and 7 twice, and 100..110 of stream 1 with
    /// 103 late by 3: what a step records.
    fn record_a_step(rx: &mut RxStats) {
        for seq in (0..20).filter(|&q| q != 5) {
            rx.record(0, seq, 1_000, 2_000 + u64::from(seq), 100);
        }
        rx.record(0, 7, 1_000, 3_000, 100);
        for seq in [100, 101, 102, 104, 105, 103, 106, 107, 108, 109] {
            rx.record(1, seq, 1_000, 5_000, 100);
        }
    }

    /// A later step of the same flows reuses the table of the one before, reset: it measures
    /// exactly what a new table would; a table that does not fit is not reused.
    #[test]
    fn a_reused_table_measures_what_a_new_one_does() {
        let config = RxConfig::default();
        let (mut first, _h) = RxStats::new(0, &specs(), &config).unwrap();
        record_a_step(&mut first);
        let before = first.finish(10_000);
        let (mut fresh, _h) = RxStats::new(0, &specs(), &config).unwrap();
        let (mut reused, _h) = RxStats::reusing(0, &specs(), &config, before.streams).unwrap();
        record_a_step(&mut fresh);
        record_a_step(&mut reused);
        let (fresh, reused) = (fresh.finish(10_000), reused.finish(10_000));
        assert_eq!(reused.streams, fresh.streams);
        assert_eq!(reused.directions, fresh.directions);
        // Another window, or another number of streams: allocated anew, as asked.
        let wide = RxConfig {
            reorder_window: 2048,
            ..config
        };
        let (mut other, _h) = RxStats::reusing(0, &specs(), &wide, reused.streams).unwrap();
        record_a_step(&mut other);
        assert!(
            other
                .finish(0)
                .streams
                .iter()
                .all(|s| s.tracker.window() == 2048)
        );
        let (one, _h) = RxStats::reusing(0, &specs()[..1], &config, fresh.streams).unwrap();
        assert_eq!(one.finish(0).streams.len(), 1);
    }

    #[test]
    fn stream_state_is_one_cache_line() {
        assert_eq!(size_of::<RxStream>(), 64);
    }

    #[test]
    fn rejects_bad_configuration() {
        let bad_window = RxConfig {
            reorder_window: 100,
            ..RxConfig::default()
        };
        assert!(matches!(
            RxStats::new(0, &specs(), &bad_window),
            Err(RxConfigError::Window(WindowError(100)))
        ));
        let bad_latency = RxConfig {
            latency: LatencyConfig {
                significant_digits: 2,
                ..LatencyConfig::default()
            },
            ..RxConfig::default()
        };
        assert!(matches!(
            RxStats::new(0, &specs(), &bad_latency),
            Err(RxConfigError::Latency(
                LatencyConfigError::SignificantDigits(2)
            ))
        ));
    }

    #[test]
    fn classifies_counts_and_publishes_per_direction() {
        let (mut rx, handle) = RxStats::new(4, &specs(), &RxConfig::default()).unwrap();
        assert_eq!(rx.record(0, 0, 1_000, 3_000, 100), Some(Arrival::InOrder));
        assert_eq!(rx.record(0, 2, 1_000, 4_000, 100), Some(Arrival::AfterGap));
        assert_eq!(rx.record(0, 1, 1_000, 5_000, 100), Some(Arrival::Reordered));
        assert_eq!(rx.record(0, 1, 1_000, 5_000, 100), Some(Arrival::Duplicate));
        assert_eq!(rx.record(1, 100, 9_000, 8_000, 60), Some(Arrival::InOrder));
        assert_eq!(rx.record(7, 0, 0, 0, 60), None);
        assert_eq!(
            rx.record_transit(1, 101u32, 2_500, 60),
            Some(Arrival::InOrder)
        );
        rx.record_untagged();
        assert_eq!(
            handle.snapshot().directions,
            [RxCounters::default(); 2],
            "not yet published"
        );
        rx.publish(77);
        let s = handle.snapshot();
        assert_eq!(s, rx.counters());
        assert_eq!(s.core, 4);
        assert_eq!(s.at_ns, 77);
        let ul = s.direction(Direction::Uplink);
        assert_eq!(ul.traffic.packets, 4);
        // Frames of 100 bytes of pkt_len: 104 on the wire with the FCS.
        assert_eq!(ul.traffic.bytes_l2, 4 * 104);
        assert_eq!((ul.unique, ul.reordered, ul.duplicates), (3, 1, 1));
        let dl = s.direction(Direction::Downlink);
        assert_eq!((dl.traffic.packets, dl.unique), (2, 2));
        assert_eq!((s.unknown_stream, s.untagged), (1, 1));

        let r = rx.finish(80);
        assert_eq!(r.core, 4);
        assert_eq!(r.unknown_stream, 1);
        assert_eq!(r.untagged, 1);
        let ul = &r.latency[Direction::Uplink.index()];
        assert_eq!(
            (ul.count(), ul.min_ns(), ul.max_ns()),
            (4, Some(2_000), Some(4_000))
        );
        let dl = &r.latency[Direction::Downlink.index()];
        // The packet that arrived "before" it was sent is counted, not recorded.
        assert_eq!(
            (dl.count(), dl.negative(), dl.max_ns()),
            (1, 1, Some(2_500))
        );
        assert_eq!(r.streams[0].tracker.finish(3).lost, 0);
        assert!(r.streams[0].jitter.value_ns().is_some());
        assert_eq!(handle.snapshot().at_ns, 80);
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(256))]

        /// The per-direction counters (rare classes counted per packet, `unique` derived from
        /// the packet count) equal the sums of what the streams' own trackers counted, for
        /// arrivals in order, after gaps, reordered, duplicated and older than the window.
        #[test]
        fn direction_counters_equal_the_sum_of_the_streams(
            steps in proptest::collection::vec((0u32..5, -150i32..40), 0..3000),
        ) {
            // Streams 0 and 2 uplink, 1 and 3 downlink; id 4 is unknown.
            let specs: Vec<StreamSpec> = (0..4)
                .map(|i| StreamSpec {
                    direction: if i % 2 == 0 { Direction::Uplink } else { Direction::Downlink },
                    first_seq: u32::MAX - 500 * i,
                })
                .collect();
            let config = RxConfig { reorder_window: 64, ..RxConfig::default() };
            let (mut rx, _handle) = RxStats::new(0, &specs, &config).unwrap();
            let mut next = [0u32; 4];
            let mut classes = [[0u64; 5]; 2];
            for (stream, step) in steps {
                // Mostly forward (in order or a gap), sometimes back by up to 150 (window 64).
                let i = (stream % 4) as usize;
                let seq = specs[i].first_seq.wrapping_add(next[i]).wrapping_add_signed(step.min(0));
                if step >= 0 {
                    next[i] = next[i].wrapping_add(1 + step as u32 / 8);
                }
                let a = rx.record_transit(stream, seq, 1_000, 100);
                proptest::prop_assert_eq!(a.is_none(), stream == 4);
                if let Some(a) = a {
                    classes[specs[i].direction.index()][a as usize] += 1;
                }
            }
            let live = rx.counters();
            for d in Direction::ALL {
                let mut want = RxCounters::default();
                for (s, spec) in rx.streams.iter().zip(&specs) {
                    if spec.direction != d {
                        continue;
                    }
                    let c = s.tracker.finish(0);
                    want.traffic.add_frames(c.received, 100);
                    want.unique += c.unique;
                    want.duplicates += c.duplicates;
                    want.reordered += c.reordered;
                    want.late += c.late;
                    want.lost_confirmed += s.tracker.lost_confirmed();
                }
                let k = classes[d.index()];
                proptest::prop_assert_eq!(
                    (want.unique, want.reordered, want.duplicates, want.late),
                    (k[0] + k[1] + k[2], k[2], k[3], k[4])
                );
                proptest::prop_assert_eq!(live.direction(d), &want);
            }
        }
    }
}
