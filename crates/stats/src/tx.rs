//! The transmit side: one [`TxStats`] per TX worker core, owned by that core alone.
//!
//! The worker counts what the NIC accepted (after `rte_eth_tx_burst` returns), per stream and per
//! direction. The per-stream counts are the `sent` that the loss accounting needs: they must equal
//! the number of sequence numbers, from the stream's first one on, that actually left, so a worker
//! that drops packets the NIC refused must not have consumed their sequence numbers (or must
//! retry them).

use std::sync::Arc;

use crate::direction::Direction;
use crate::publish::{TX_WORDS, TxHandle, TxSnapshot, tx_to_words};
use crate::rate::TrafficCounters;
use crate::rx::StreamSpec;
use crate::seqlock::SeqlockCell;

#[derive(Debug, Clone, Copy)]
struct TxStream {
    sent: u64,
    direction: Direction,
}

/// Everything one TX core counted, handed over by [`TxStats::finish`] for the merge.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TxCoreResult {
    /// The worker's core index.
    pub core: u32,
    /// Packets sent per stream id (every stream of the run, 0 for those this core does not send).
    pub sent: Vec<u64>,
    /// Frames and L2 bytes per direction, indexed by [`Direction::index`].
    pub directions: [TrafficCounters; 2],
    /// Sends recorded for a stream id outside the table (a bug in the caller).
    pub unknown_stream: u64,
}

/// The transmit statistics of one TX worker core.
#[derive(Debug)]
pub struct TxStats {
    core: u32,
    streams: Vec<TxStream>,
    live: TxSnapshot,
    unknown_stream: u64,
    published_packets: u64,
    published_late: [u64; 2],
    cell: Arc<SeqlockCell<TX_WORDS>>,
}

impl TxStats {
    /// Stats for TX core `core` over the run's streams, and the control thread's handle.
    pub fn new(core: u32, streams: &[StreamSpec]) -> (TxStats, TxHandle) {
        let (cell, handle) = TxHandle::new(core);
        let stats = TxStats {
            core,
            streams: streams
                .iter()
                .map(|s| TxStream {
                    sent: 0,
                    direction: s.direction,
                })
                .collect(),
            live: TxSnapshot {
                core,
                ..TxSnapshot::default()
            },
            unknown_stream: 0,
            published_packets: 0,
            published_late: [0; 2],
            cell,
        };
        (stats, handle)
    }

    /// Counts one frame of stream `stream` with L2 length `frame_len` (without FCS) as sent.
    #[inline]
    pub fn record(&mut self, stream: u32, frame_len: u32) {
        self.record_n(stream, 1, frame_len);
    }

    /// Counts `packets` frames of stream `stream`, each `frame_len` L2 bytes, as sent.
    #[inline]
    pub fn record_n(&mut self, stream: u32, packets: u64, frame_len: u32) {
        let Some(s) = self.streams.get_mut(stream as usize) else {
            self.unknown_stream += packets;
            return;
        };
        s.sent += packets;
        self.live.directions[s.direction.index()].add_frames(packets, frame_len);
    }

    /// Counts `packets` frames of `direction`, each `frame_len` L2 bytes, as sent, without a
    /// per-stream count: for a sender that sends each packet of a burst to another stream and
    /// knows the streams' counts otherwise (from their sequence numbers), which it then gives
    /// with [`add_sent`](Self::add_sent) before [`finish`](Self::finish).
    #[inline]
    pub fn record_traffic(&mut self, direction: Direction, packets: u64, frame_len: u32) {
        self.live.directions[direction.index()].add_frames(packets, frame_len);
    }

    /// Adds `packets` to the sent count of stream `stream` without touching the traffic
    /// counters (see [`record_traffic`](Self::record_traffic)).
    pub fn add_sent(&mut self, stream: u32, packets: u64) {
        match self.streams.get_mut(stream as usize) {
            Some(s) => s.sent += packets,
            None => self.unknown_stream += packets,
        }
    }

    /// Packets sent so far on stream `stream` (0 for an unknown id).
    pub fn sent(&self, stream: u32) -> u64 {
        self.streams.get(stream as usize).map_or(0, |s| s.sent)
    }

    /// The counters as they stand (the worker's own view).
    pub fn counters(&self) -> &TxSnapshot {
        &self.live
    }

    /// Sets how far behind its schedule the worker's sending of each direction is now (ns,
    /// indexed by [`Direction::index`]), for the next [`publish`](Self::publish).
    #[inline]
    pub fn set_late_ns(&mut self, late_ns: [u64; 2]) {
        self.live.late_ns = late_ns;
    }

    /// Call regularly (the generator's worker: with the RX side's publication) with the worker's
    /// clock: publishes the counters if they changed.
    #[inline]
    pub fn publish(&mut self, now_ns: u64) {
        let packets = self.live.directions[0].packets + self.live.directions[1].packets;
        if packets != self.published_packets || self.live.late_ns != self.published_late {
            self.publish_now(now_ns, packets);
        }
    }

    /// Ends the run on this core: publishes the final counters and returns them.
    pub fn finish(mut self, now_ns: u64) -> TxCoreResult {
        let packets = self.live.directions[0].packets + self.live.directions[1].packets;
        self.publish_now(now_ns, packets);
        TxCoreResult {
            core: self.core,
            sent: self.streams.iter().map(|s| s.sent).collect(),
            directions: self.live.directions,
            unknown_stream: self.unknown_stream,
        }
    }

    fn publish_now(&mut self, now_ns: u64, packets: u64) {
        self.live.at_ns = now_ns;
        self.cell.write(&tx_to_words(&self.live));
        self.published_packets = packets;
        self.published_late = self.live.late_ns;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_per_stream_and_direction_and_publishes() {
        let specs = [
            StreamSpec {
                direction: Direction::Uplink,
                first_seq: 0,
            },
            StreamSpec {
                direction: Direction::Downlink,
                first_seq: 0,
            },
        ];
        let (mut tx, handle) = TxStats::new(2, &specs);
        tx.record(0, 100);
        tx.record_n(1, 3, 60);
        tx.record(9, 60);
        assert_eq!(
            handle.snapshot().directions,
            [TrafficCounters::default(); 2]
        );
        tx.publish(1234);
        let s = handle.snapshot();
        assert_eq!(s.core, 2);
        assert_eq!(s.at_ns, 1234);
        assert_eq!(
            s.directions[Direction::Uplink.index()],
            TrafficCounters {
                packets: 1,
                bytes_l2: 104
            }
        );
        assert_eq!(
            s.directions[Direction::Downlink.index()],
            TrafficCounters {
                packets: 3,
                // 60 bytes of pkt_len: the 64-byte minimum frame with its FCS.
                bytes_l2: 3 * 64
            }
        );
        assert_eq!(tx.sent(1), 3);
        assert_eq!(tx.sent(9), 0);
        let r = tx.finish(2000);
        assert_eq!(r.sent, vec![1, 3]);
        assert_eq!(r.unknown_stream, 1);
        assert_eq!(handle.snapshot().at_ns, 2000);
    }

    #[test]
    fn lateness_is_published_even_when_nothing_was_sent() {
        let specs = [StreamSpec {
            direction: Direction::Downlink,
            first_seq: 0,
        }];
        let (mut tx, handle) = TxStats::new(1, &specs);
        tx.record(0, 60);
        tx.publish(10);
        // A stalled sender: no packet since, but it is 3.2 ms behind.
        tx.set_late_ns([0, 3_200_000]);
        tx.publish(20);
        let s = handle.snapshot();
        assert_eq!((s.at_ns, s.late_ns), (20, [0, 3_200_000]));
        // Caught up.
        tx.set_late_ns([0, 0]);
        tx.publish(30);
        assert_eq!(handle.snapshot().late_ns, [0, 0]);
        assert_eq!(handle.snapshot().directions[1].packets, 1);
    }

    #[test]
    fn traffic_and_sent_counts_can_be_given_apart() {
        let specs = [StreamSpec {
            direction: Direction::Uplink,
            first_seq: 0,
        }; 3];
        let (mut tx, handle) = TxStats::new(0, &specs);
        tx.record_traffic(Direction::Uplink, 5, 88);
        tx.record_traffic(Direction::Downlink, 2, 52);
        tx.publish(10);
        let s = handle.snapshot();
        assert_eq!(
            s.directions[0],
            TrafficCounters {
                packets: 5,
                bytes_l2: 5 * 92
            }
        );
        assert_eq!(
            s.directions[1],
            TrafficCounters {
                packets: 2,
                // 52 bytes of pkt_len: padded to the 64-byte minimum frame.
                bytes_l2: 2 * 64
            }
        );
        tx.add_sent(0, 2);
        tx.add_sent(2, 3);
        tx.add_sent(7, 1);
        let r = tx.finish(20);
        assert_eq!(r.sent, vec![2, 0, 3]);
        assert_eq!(r.unknown_stream, 1);
        assert_eq!(r.directions[0].packets, 5);
    }
}
