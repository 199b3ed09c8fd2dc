//! Merging the per-core results of a run (or of one step of a sweep) into one [`RunResult`].
//!
//! * TX: per-stream `sent` and per-direction counters add up over the TX cores.
//! * Latency: the per-core histograms of each direction add (HDR histograms of one configuration
//!   add exactly), and so do the exact min/max/sum beside them.
//! * Sequence accounting is per stream. **Assumption:** the streams are partitioned over the RX
//!   cores, i.e. all packets of a stream arrive on one core. That holds when each RX queue is
//!   polled by one core and RSS hashes a stream's fixed 5-tuple to one queue (or when one core
//!   polls a port). Then each stream's tracker is finished with its total `sent` and the merge
//!   is exactly what one core seeing all packets would have measured.
//!
//!   If a stream does show up on several cores anyway, each core saw a subset and its window
//!   took the other cores' packets for gaps. The merge then still keeps the identities exact on
//!   the reported numbers: `unique = min(sent, Σ unique)`, any excess counted as duplicates
//!   (the same position received on two cores), `lost = sent - unique`, and `reordered`, `late`
//!   and `received` added up. The stream is counted in [`RunResult::split_streams`] and a warning
//!   says that its loss, reordering and duplicate figures are approximate.
//! * Jitter: each stream has its own RFC 3550 estimate; a direction reports the mean over its
//!   streams that had at least two arrivals, and the largest. (A stream split over cores takes
//!   the arrival-weighted mean of its per-core estimates.)

use thiserror::Error;

use crate::direction::Direction;
use crate::latency::{LatencyConfig, LatencyConfigError, LatencyRecorder};
use crate::rate::TrafficCounters;
use crate::rx::{RxCoreResult, StreamSpec};
use crate::seq::SeqCounters;
use crate::tx::TxCoreResult;

/// Per-core results that do not belong to the given streams.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum MergeError {
    /// A TX core's per-stream table has the wrong length.
    #[error("TX core {core} counted {found} streams, the run has {expected}")]
    TxStreams {
        /// The core.
        core: u32,
        /// Its table length.
        found: usize,
        /// The run's stream count.
        expected: usize,
    },
    /// An RX core's per-stream table has the wrong length.
    #[error("RX core {core} tracked {found} streams, the run has {expected}")]
    RxStreams {
        /// The core.
        core: u32,
        /// Its table length.
        found: usize,
        /// The run's stream count.
        expected: usize,
    },
    /// The latency configuration is unusable.
    #[error(transparent)]
    Latency(#[from] LatencyConfigError),
}

/// Final figures of one stream.
#[derive(Debug, Clone, PartialEq)]
pub struct StreamResult {
    /// Stream id.
    pub stream: u32,
    /// Its direction.
    pub direction: Direction,
    /// Sequence accounting after the final flush.
    pub seq: SeqCounters,
    /// RFC 3550 jitter (ns), if at least two packets arrived.
    pub jitter_ns: Option<f64>,
    /// RX cores the stream arrived on (more than 1 breaks the partitioning assumption).
    pub rx_cores: u32,
}

/// Merged figures of one direction.
#[derive(Debug, Clone, PartialEq)]
pub struct DirectionResult {
    /// The direction.
    pub direction: Direction,
    /// Streams of this direction in the run.
    pub streams: u32,
    /// Frames sent.
    pub tx: TrafficCounters,
    /// Tagged frames received for known streams (duplicates and late ones included).
    pub rx: TrafficCounters,
    /// Sequence accounting summed over the direction's streams.
    pub seq: SeqCounters,
    /// One-way latency over every received packet.
    pub latency: LatencyRecorder,
    /// Mean of the streams' RFC 3550 jitter (ns).
    pub jitter_mean_ns: Option<f64>,
    /// Largest stream jitter (ns).
    pub jitter_max_ns: Option<f64>,
}

/// The merged result of a run or a step.
#[derive(Debug, Clone, PartialEq)]
pub struct RunResult {
    /// Per direction, indexed by [`Direction::index`].
    pub directions: [DirectionResult; 2],
    /// Per stream id.
    pub streams: Vec<StreamResult>,
    /// Tagged packets with a stream id outside the table, over all RX cores.
    pub unknown_stream_rx: u64,
    /// Packets without a valid tag, over all RX cores.
    pub untagged_rx: u64,
    /// Sends recorded for unknown stream ids, over all TX cores.
    pub(crate) unknown_stream_tx: u64,
    /// Streams that arrived on more than one RX core.
    pub split_streams: u32,
    /// Human-readable findings that make some figure less than exact.
    pub warnings: Vec<String>,
}

impl RunResult {
    /// Merges the TX and RX core results of one run over `streams`.
    pub fn merge(
        streams: &[StreamSpec],
        tx: &[TxCoreResult],
        rx: &[RxCoreResult],
        latency: &LatencyConfig,
    ) -> Result<RunResult, MergeError> {
        let n = streams.len();
        check_stream_tables(n, tx, rx)?;
        let empty = LatencyRecorder::new(latency)?;
        let mut dirs = Direction::ALL.map(|d| DirectionResult {
            direction: d,
            streams: 0,
            tx: TrafficCounters::default(),
            rx: TrafficCounters::default(),
            seq: SeqCounters::default(),
            latency: empty.clone(),
            jitter_mean_ns: None,
            jitter_max_ns: None,
        });
        let mut out = RunResult {
            directions: dirs.clone(),
            streams: Vec::with_capacity(n),
            unknown_stream_rx: 0,
            untagged_rx: 0,
            unknown_stream_tx: 0,
            split_streams: 0,
            warnings: Vec::new(),
        };
        out.add_cores(&mut dirs, tx, rx);
        out.add_streams(&mut dirs, streams, tx, rx);
        out.warnings.extend(warnings(&dirs, &out));
        out.directions = dirs;
        Ok(out)
    }

    /// Adds the cores' per-direction traffic and latency into `dirs`, and their counts of
    /// packets outside the streams into `self`.
    fn add_cores(
        &mut self,
        dirs: &mut [DirectionResult; 2],
        tx: &[TxCoreResult],
        rx: &[RxCoreResult],
    ) {
        for t in tx {
            for d in Direction::ALL {
                dirs[d.index()].tx.merge(&t.directions[d.index()]);
            }
            self.unknown_stream_tx += t.unknown_stream;
        }
        for r in rx {
            for d in Direction::ALL {
                dirs[d.index()].rx.merge(&r.directions[d.index()].traffic);
                dirs[d.index()].latency.merge(&r.latency[d.index()]);
            }
            self.unknown_stream_rx += r.unknown_stream;
            self.untagged_rx += r.untagged;
        }
    }

    /// Merges each stream over the cores into `self.streams`, and adds its sequence accounting
    /// and jitter into its direction's figures in `dirs`.
    fn add_streams(
        &mut self,
        dirs: &mut [DirectionResult; 2],
        streams: &[StreamSpec],
        tx: &[TxCoreResult],
        rx: &[RxCoreResult],
    ) {
        let mut jitter_sum = [0.0f64; 2];
        let mut jitter_n = [0u32; 2];
        for (id, spec) in streams.iter().enumerate() {
            let sent: u64 = tx.iter().map(|t| t.sent[id]).sum();
            let stream = merge_stream(id as u32, spec, sent, rx);
            let d = &mut dirs[spec.direction.index()];
            d.streams += 1;
            d.seq.merge(&stream.seq);
            if let Some(j) = stream.jitter_ns {
                jitter_sum[spec.direction.index()] += j;
                jitter_n[spec.direction.index()] += 1;
                d.jitter_max_ns = Some(d.jitter_max_ns.map_or(j, |m| m.max(j)));
            }
            if stream.rx_cores > 1 {
                self.split_streams += 1;
            }
            if stream.seq.sent_raised > 0 {
                self.warnings.push(format!(
                    "stream {id}: received {} sequence numbers beyond the {} packets counted as sent",
                    stream.seq.sent_raised,
                    stream.seq.sent - stream.seq.sent_raised
                ));
            }
            self.streams.push(stream);
        }
        for d in Direction::ALL {
            let i = d.index();
            if jitter_n[i] > 0 {
                dirs[i].jitter_mean_ns = Some(jitter_sum[i] / f64::from(jitter_n[i]));
            }
        }
    }

    /// The figures of one direction.
    pub fn direction(&self, d: Direction) -> &DirectionResult {
        &self.directions[d.index()]
    }
}

/// Checks that every core's per-stream table has the run's `n` streams.
fn check_stream_tables(
    n: usize,
    tx: &[TxCoreResult],
    rx: &[RxCoreResult],
) -> Result<(), MergeError> {
    for t in tx {
        if t.sent.len() != n {
            return Err(MergeError::TxStreams {
                core: t.core,
                found: t.sent.len(),
                expected: n,
            });
        }
    }
    for r in rx {
        if r.streams.len() != n {
            return Err(MergeError::RxStreams {
                core: r.core,
                found: r.streams.len(),
                expected: n,
            });
        }
    }
    Ok(())
}

fn merge_stream(id: u32, spec: &StreamSpec, sent: u64, rx: &[RxCoreResult]) -> StreamResult {
    let seen: Vec<_> = rx
        .iter()
        .map(|r| &r.streams[id as usize])
        .filter(|s| s.tracker.received() > 0)
        .collect();
    match seen.as_slice() {
        [] => StreamResult {
            stream: id,
            direction: spec.direction,
            seq: SeqCounters {
                sent,
                lost: sent,
                ..SeqCounters::default()
            },
            jitter_ns: None,
            rx_cores: 0,
        },
        [one] => StreamResult {
            stream: id,
            direction: spec.direction,
            seq: one.tracker.finish(sent),
            jitter_ns: one.jitter.value_ns(),
            rx_cores: 1,
        },
        many => {
            let mut sum = SeqCounters::default();
            let mut head = 0u64;
            let mut jitter_weighted = 0.0;
            let mut jitter_weight = 0u64;
            for s in many {
                // Finished against 0 sent: only the per-core reception classes are used.
                sum.merge(&s.tracker.finish(0));
                head = head.max(s.tracker.head());
                if let Some(j) = s.jitter.value_ns() {
                    jitter_weighted += j * s.tracker.received() as f64;
                    jitter_weight += s.tracker.received();
                }
            }
            let sent_total = sent.max(head);
            let unique = sum.unique.min(sent_total);
            StreamResult {
                stream: id,
                direction: spec.direction,
                seq: SeqCounters {
                    sent: sent_total,
                    received: sum.received,
                    unique,
                    lost: sent_total - unique,
                    duplicates: sum.duplicates + (sum.unique - unique),
                    reordered: sum.reordered,
                    late: sum.late,
                    sent_raised: sent_total - sent,
                },
                jitter_ns: (jitter_weight > 0).then(|| jitter_weighted / jitter_weight as f64),
                rx_cores: many.len() as u32,
            }
        }
    }
}

fn warnings(dirs: &[DirectionResult; 2], r: &RunResult) -> Vec<String> {
    let mut w = Vec::new();
    if r.split_streams > 0 {
        w.push(format!(
            "{} streams arrived on more than one RX core: their loss, reordering and duplicate \
             figures are approximate",
            r.split_streams
        ));
    }
    for d in dirs {
        if d.latency.negative() > 0 {
            w.push(format!(
                "{}: {} packets had a receive time before their transmit time (clocks disagree); \
                 left out of the latency figures",
                d.direction.name(),
                d.latency.negative()
            ));
        }
        if d.latency.over_range() > 0 {
            w.push(format!(
                "{}: {} latencies exceeded the histogram's range and were clamped",
                d.direction.name(),
                d.latency.over_range()
            ));
        }
    }
    if r.unknown_stream_rx > 0 {
        w.push(format!(
            "{} received packets carried an unknown stream id",
            r.unknown_stream_rx
        ));
    }
    if r.unknown_stream_tx > 0 {
        w.push(format!(
            "{} sent packets were counted for an unknown stream id",
            r.unknown_stream_tx
        ));
    }
    w
}
