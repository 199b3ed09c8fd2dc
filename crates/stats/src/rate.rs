//! Byte and packet counters and the rates derived from them.
//!
//! Convention: frame lengths are L2 lengths as DPDK reports them (`pkt_len`: Ethernet header up to
//! the end of the payload, **without** the 4-byte FCS). On the wire each frame also carries the FCS
//! (4 B), the preamble and start-of-frame delimiter (8 B) and the minimum inter-frame gap (12 B),
//! so L1 bytes = L2 bytes + [`L1_OVERHEAD_BYTES`] (24) per frame. This is the convention of
//! RFC 2544 line-rate figures and of TRex's `*_bps_L1` counters.

use serde::{Deserialize, Serialize};

/// Per-frame bytes on the wire that `pkt_len` does not count: FCS 4 + preamble/SFD 8 + IFG 12.
pub const L1_OVERHEAD_BYTES: u64 = 24;

/// Packets and L2 bytes (frames without FCS).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct TrafficCounters {
    /// Frames counted.
    pub packets: u64,
    /// Sum of their L2 lengths (without FCS).
    pub bytes_l2: u64,
}

impl TrafficCounters {
    /// Counts one frame of `frame_len` L2 bytes.
    #[inline]
    pub fn add_frame(&mut self, frame_len: u32) {
        self.packets += 1;
        self.bytes_l2 += u64::from(frame_len);
    }

    /// Counts `packets` frames of `frame_len` L2 bytes each.
    #[inline]
    pub fn add_frames(&mut self, packets: u64, frame_len: u32) {
        self.packets += packets;
        self.bytes_l2 += packets * u64::from(frame_len);
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
    fn l1_adds_24_bytes_per_frame() {
        let mut c = TrafficCounters::default();
        c.add_frame(60);
        c.add_frames(2, 1500);
        assert_eq!(c.packets, 3);
        assert_eq!(c.bytes_l2, 3060);
        assert_eq!(c.bytes_l1(), 3060 + 72);
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
