//! A step's timeline: what the live line showed each second, kept in the report so that a
//! plot can show how the rates, the losses and the latency moved within the step (a UPF that
//! stalls for a second, a sender that fell behind) where the step's totals only show their sum.
//!
//! Made on the control thread from the [`LiveLine`] it prints anyway: nothing is added to the
//! workers' path.

use serde::{Deserialize, Serialize};

use upfbench_stats::direction::Direction;
use upfbench_stats::live::{LiveDirection, LiveLine};

use super::percentiles::Nanos;

/// What the workers were doing when a second's line was taken, written in lower case
/// (`"measure"`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(rename_all = "lowercase")]
pub enum StepPhase {
    /// Answering the service plane, sending nothing.
    Idle,
    /// Sending the warm-up.
    Warmup,
    /// Letting the warm-up drain.
    Settle,
    /// Sending the measured traffic.
    Measure,
    /// Measuring what still comes back.
    Drain,
    /// Leaving their loop.
    Stop,
    /// The last interval, read after they stopped.
    End,
}

impl StepPhase {
    /// Its word (`measure`).
    pub const fn name(self) -> &'static str {
        match self {
            StepPhase::Idle => "idle",
            StepPhase::Warmup => "warmup",
            StepPhase::Settle => "settle",
            StepPhase::Measure => "measure",
            StepPhase::Drain => "drain",
            StepPhase::Stop => "stop",
            StepPhase::End => "end",
        }
    }
}

impl std::fmt::Display for StepPhase {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // `pad`, so that tables can align it.
        f.pad(self.name())
    }
}

/// One interval of a step (a second; the last one may be shorter).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StepSecond {
    /// The interval's end, since the step's workers were launched (s).
    pub t_s: f64,
    /// Its length (s).
    pub interval_s: f64,
    /// What the workers were doing when the line was taken (`end` for the last interval).
    pub phase: StepPhase,
    /// The directions that carried traffic so far, uplink first.
    pub directions: Vec<SecondDirection>,
}

/// One direction over one interval.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SecondDirection {
    /// The direction.
    pub direction: Direction,
    /// Packets sent.
    pub tx_packets: u64,
    /// Packets received (duplicates and late ones included).
    pub rx_packets: u64,
    /// Sent L1 rate (Gbit/s).
    pub tx_gbps_l1: f64,
    /// Sent packet rate (thousands per second).
    pub tx_kpps: f64,
    /// Received L1 rate (Gbit/s).
    pub rx_gbps_l1: f64,
    /// Received packet rate (thousands per second).
    pub rx_kpps: f64,
    /// Losses confirmed over the interval: positions that left their flow's reorder window
    /// unreceived (a loss shows up to a reorder window after its packet was due).
    pub lost: u64,
    /// Latency median of the interval's samples.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lat_p50_ns: Option<Nanos>,
    /// Latency 99th percentile.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lat_p99_ns: Option<Nanos>,
    /// Largest latency.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lat_max_ns: Option<Nanos>,
}

impl SecondDirection {
    /// The interval's losses against what it sent, in percent; `None` when it sent nothing
    /// (a drain's losses are the last second's, confirmed late).
    pub fn loss_pct(&self) -> Option<f64> {
        (self.tx_packets > 0).then(|| self.lost as f64 * 100.0 / self.tx_packets as f64)
    }

    fn from_live(d: &LiveDirection) -> SecondDirection {
        SecondDirection {
            direction: d.direction,
            tx_packets: d.tx_packets,
            rx_packets: d.rx_packets,
            tx_gbps_l1: d.tx_gbps_l1,
            tx_kpps: d.tx_kpps,
            rx_gbps_l1: d.rx_gbps_l1,
            rx_kpps: d.rx_kpps,
            lost: d.lost,
            lat_p50_ns: d.lat_p50_ns.map(Nanos::from_ns),
            lat_p99_ns: d.lat_p99_ns.map(Nanos::from_ns),
            lat_max_ns: d.lat_max_ns.map(Nanos::from_ns),
        }
    }
}

impl StepSecond {
    /// The interval of `line`, taken while the workers were in `phase`; `None` for the first
    /// line, which only sets the baseline (no interval).
    pub fn from_live(line: &LiveLine, phase: StepPhase) -> Option<StepSecond> {
        (line.interval_ns > 0).then(|| StepSecond {
            t_s: line.elapsed_ns as f64 / 1e9,
            interval_s: line.interval_ns as f64 / 1e9,
            phase,
            directions: line
                .directions
                .iter()
                .map(SecondDirection::from_live)
                .collect(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use upfbench_stats::latency::LatencyConfig;
    use upfbench_stats::live::LiveMeter;
    use upfbench_stats::publish::{RxSnapshot, TxSnapshot};
    use upfbench_stats::rate::TrafficCounters;

    fn tx(packets: u64) -> TxSnapshot {
        let mut s = TxSnapshot::default();
        s.directions[Direction::Uplink.index()] = TrafficCounters {
            packets,
            bytes_l2: packets * 100,
        };
        s
    }

    fn rx(packets: u64, lost_confirmed: u64) -> RxSnapshot {
        let mut s = RxSnapshot::default();
        let d = &mut s.directions[Direction::Uplink.index()];
        d.traffic = TrafficCounters {
            packets,
            bytes_l2: packets * 100,
        };
        d.lost_confirmed = lost_confirmed;
        s
    }

    #[test]
    fn each_second_holds_its_own_counts_and_the_baseline_none() {
        let mut meter = LiveMeter::new(&LatencyConfig::default()).unwrap();
        let base = meter.line(0, &[tx(0)], &[rx(0, 0)]);
        assert_eq!(StepSecond::from_live(&base, StepPhase::Warmup), None);
        let first = meter.line(1_000_000_000, &[tx(1_000)], &[rx(990, 10)]);
        let second = meter.line(1_500_000_000, &[tx(1_500)], &[rx(1_480, 15)]);
        let first = StepSecond::from_live(&first, StepPhase::Measure).unwrap();
        let second = StepSecond::from_live(&second, StepPhase::End).unwrap();
        assert_eq!((first.t_s, first.interval_s), (1.0, 1.0));
        assert_eq!((second.t_s, second.interval_s), (1.5, 0.5));
        assert_eq!(second.phase, StepPhase::End);
        assert_eq!(serde_json::to_value(second.phase).unwrap(), "end");
        let (a, b) = (&first.directions[0], &second.directions[0]);
        assert_eq!((a.tx_packets, a.rx_packets, a.lost), (1_000, 990, 10));
        // The second interval's own counts, not the totals.
        assert_eq!((b.tx_packets, b.rx_packets, b.lost), (500, 490, 5));
        assert_eq!(b.tx_kpps, 1.0);
        assert_eq!(a.loss_pct(), Some(1.0));
        assert_eq!(b.loss_pct(), Some(1.0));
        // No sample: no latency.
        assert_eq!(a.lat_p50_ns, None);
    }

    #[test]
    fn a_second_that_sent_nothing_has_no_loss_ratio() {
        let d = SecondDirection {
            direction: Direction::Downlink,
            tx_packets: 0,
            rx_packets: 3,
            tx_gbps_l1: 0.0,
            tx_kpps: 0.0,
            rx_gbps_l1: 0.0,
            rx_kpps: 0.003,
            lost: 2,
            lat_p50_ns: Some(Nanos(1_000)),
            lat_p99_ns: Some(Nanos(2_000)),
            lat_max_ns: Some(Nanos(3_000)),
        };
        assert_eq!(d.loss_pct(), None);
        let json = serde_json::to_string(&d).unwrap();
        let back: SecondDirection = serde_json::from_str(&json).unwrap();
        assert_eq!(back, d);
    }
}
