//! Byte and packet counters and the rates derived from them.
//!
//! Convention: the counters take frame lengths as DPDK reports them (`pkt_len`: Ethernet header
//! up to the end of the payload, without the 4-byte FCS) and count each frame as it is on the
//! wire: **L2** bytes include the FCS and a frame shorter than the 64-byte minimum counts as 64
//! (the NIC pads it), so L2 is what a profile's `L2` rates mean; **L1** bytes add the preamble
//! and start-of-frame delimiter (8 B) and the minimum inter-frame gap (12 B) per frame,
//! [`L1_OVERHEAD_BYTES`]. This is the convention of RFC 2544's line-rate figures and of TRex,
//! whose L1 rate is its L2 rate plus 20 bytes a frame.

use serde::{Deserialize, Serialize};

/// The frame check sequence, which `pkt_len` does not count.
pub const FCS_BYTES: u64 = 4;
/// The smallest Ethernet frame, FCS included: shorter ones are padded to it.
pub const MIN_FRAME_BYTES: u64 = 64;
/// Per-frame bytes on the wire beyond the L2 frame: preamble/SFD 8 + IFG 12.
pub const L1_OVERHEAD_BYTES: u64 = 20;

/// The L2 bytes on the wire of a frame whose `pkt_len` is `frame_len`: FCS included, padded to
/// the minimum frame.
#[inline(always)]
pub fn wire_l2_len(frame_len: u32) -> u64 {
    (u64::from(frame_len) + FCS_BYTES).max(MIN_FRAME_BYTES)
}

/// Packets and their L2 bytes on the wire.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
pub struct TrafficCounters {
    /// Frames counted.
    pub packets: u64,
    /// Their L2 bytes on the wire ([`wire_l2_len`] of each).
    pub bytes_l2: u64,
}

impl TrafficCounters {
    /// Counts one frame whose `pkt_len` is `frame_len` (no FCS).
    #[inline]
    pub(crate) fn add_frame(&mut self, frame_len: u32) {
        self.packets += 1;
        self.bytes_l2 += wire_l2_len(frame_len);
    }

    /// Counts `packets` frames whose `pkt_len` is `frame_len` each.
    #[inline]
    pub(crate) fn add_frames(&mut self, packets: u64, frame_len: u32) {
        self.packets += packets;
        self.bytes_l2 += packets * wire_l2_len(frame_len);
    }

    /// Adds another set of counters (merge).
    pub fn merge(&mut self, other: &TrafficCounters) {
        self.packets += other.packets;
        self.bytes_l2 += other.bytes_l2;
    }

    /// L1 bytes: L2 bytes plus [`L1_OVERHEAD_BYTES`] per frame.
    pub fn bytes_l1(&self) -> u64 {
        self.bytes_l2 + self.packets * L1_OVERHEAD_BYTES
    }

    /// Counters accumulated since `earlier` (saturating, for deltas between snapshots).
    pub fn since(&self, earlier: &TrafficCounters) -> TrafficCounters {
        TrafficCounters {
            packets: self.packets.saturating_sub(earlier.packets),
            bytes_l2: self.bytes_l2.saturating_sub(earlier.bytes_l2),
        }
    }
}

/// Gigabits per second for `bytes` over `duration_ns` (bits per nanosecond); 0 for no duration.
pub fn gbps(bytes: u64, duration_ns: u64) -> f64 {
    if duration_ns == 0 {
        return 0.0;
    }
    bytes as f64 * 8.0 / duration_ns as f64
}

/// Thousands of packets per second for `packets` over `duration_ns`; 0 for no duration.
pub fn kpps(packets: u64, duration_ns: u64) -> f64 {
    if duration_ns == 0 {
        return 0.0;
    }
    packets as f64 * 1e6 / duration_ns as f64
}

/// `part` as a percentage of `whole`; 0 when `whole` is 0.
pub fn percent(part: u64, whole: u64) -> f64 {
    if whole == 0 {
        return 0.0;
    }
    part as f64 * 100.0 / whole as f64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn l2_counts_the_fcs_and_l1_adds_20_bytes_per_frame() {
        let mut c = TrafficCounters::default();
        c.add_frame(60);
        c.add_frames(2, 1500);
        assert_eq!(c.packets, 3);
        assert_eq!(c.bytes_l2, 64 + 2 * 1504);
        assert_eq!(c.bytes_l1(), 64 + 2 * 1504 + 60);
    }

    #[test]
    fn short_frames_count_as_the_minimum_frame() {
        // A downlink frame of a 10-byte payload: Ethernet 14 + IPv4 20 + UDP 8 + 10 = 52 bytes
        // of pkt_len, padded on the wire to 60 + FCS: 64 at L2, 84 at L1.
        assert_eq!(wire_l2_len(52), 64);
        assert_eq!(wire_l2_len(59), 64);
        assert_eq!(wire_l2_len(60), 64);
        assert_eq!(wire_l2_len(61), 65);
        let mut c = TrafficCounters::default();
        c.add_frames(1000, 52);
        assert_eq!((c.bytes_l2, c.bytes_l1()), (64_000, 84_000));
    }

    #[test]
    fn line_rate_of_64_byte_frames_is_14_88_mpps_at_10g() {
        // 64-byte frames with FCS are 60 bytes of pkt_len; 84 bytes on the wire.
        let pps = 14_880_952u64;
        let mut c = TrafficCounters::default();
        c.add_frames(pps, 60);
        let g = gbps(c.bytes_l1(), 1_000_000_000);
        assert!((g - 10.0).abs() < 1e-5, "{g}");
        assert!((kpps(pps, 1_000_000_000) - 14_880.952).abs() < 1e-9);
    }

    #[test]
    fn zero_duration_and_zero_whole_give_zero() {
        assert_eq!(gbps(100, 0), 0.0);
        assert_eq!(kpps(100, 0), 0.0);
        assert_eq!(percent(1, 0), 0.0);
        assert_eq!(percent(1, 4), 25.0);
    }

    #[test]
    fn since_saturates() {
        let a = TrafficCounters {
            packets: 5,
            bytes_l2: 500,
        };
        let b = TrafficCounters {
            packets: 7,
            bytes_l2: 600,
        };
        assert_eq!(
            b.since(&a),
            TrafficCounters {
                packets: 2,
                bytes_l2: 100
            }
        );
        assert_eq!(a.since(&b), TrafficCounters::default());
    }
}
