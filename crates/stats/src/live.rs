//! The once-a-second live line of the control thread.
//!
//! The control thread keeps one [`LiveMeter`]. Each second it drains the RX workers' latency
//! intervals into the meter ([`LiveMeter::collect`]), reads every worker's counter snapshot and
//! calls [`LiveMeter::line`], which turns the difference to the previous call into rates and
//! summarises the latency of the intervals received since. Everything here runs on the control
//! thread; it allocates freely.

use std::fmt;

use std::time::Duration;

use crate::direction::Direction;
use crate::hlog::IntervalLog;
use crate::latency::{LatencyConfig, LatencyConfigError, LatencyRecorder};
use crate::loss_text;
use crate::publish::{RxCounters, RxHandle, RxSnapshot, TxSnapshot};
use crate::rate::{TrafficCounters, gbps, kpps, percent};

/// Figures of one direction over the last interval.
#[derive(Debug, Clone, PartialEq)]
pub struct LiveDirection {
    /// The direction.
    pub direction: Direction,
    /// Sent L1 rate over the interval.
    pub tx_gbps_l1: f64,
    /// Sent packet rate.
    pub tx_kpps: f64,
    /// Received L1 rate.
    pub rx_gbps_l1: f64,
    /// Received packet rate.
    pub rx_kpps: f64,
    /// Packets sent over the interval.
    pub tx_packets: u64,
    /// Packets received over the interval (duplicates and late ones included).
    pub rx_packets: u64,
    /// Losses confirmed over the interval: positions that left their flow's reorder window
    /// unreceived, so a loss shows up to a reorder window after the packet was due.
    pub lost: u64,
    /// Losses confirmed since the start (positions that left the reorder window).
    pub lost_total: u64,
    /// `lost_total` against everything sent so far, in percent.
    pub loss_pct_total: f64,
    /// Packets since the start that arrived after their position left the reorder window:
    /// they are in `lost_total` too, which a bare loss figure would hide.
    pub(crate) late_total: u64,
    /// Latency mean over the interval's samples (ns).
    pub lat_avg_ns: Option<f64>,
    /// Latency median over the interval (ns).
    pub lat_p50_ns: Option<u64>,
    /// Latency 99th percentile over the interval (ns).
    pub lat_p99_ns: Option<u64>,
    /// Largest latency of the interval (ns).
    pub lat_max_ns: Option<u64>,
    /// How far behind its schedule the direction's sending is now (ns; the latest of the
    /// workers'): lateness that slipped the schedule and is not made up yet. 0 when on time.
    pub(crate) tx_late_ns: u64,
}

/// One live line: the directions that carried traffic so far.
#[derive(Debug, Clone, PartialEq)]
pub struct LiveLine {
    /// Time since the first call (ns).
    pub elapsed_ns: u64,
    /// Time since the previous call (ns): the interval the rates and the latency are of (0
    /// for the first call, which only sets the baseline).
    pub interval_ns: u64,
    /// Active directions, uplink first.
    pub directions: Vec<LiveDirection>,
}

impl fmt::Display for LiveLine {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:7.1}s", self.elapsed_ns as f64 / 1e9)?;
        if self.directions.is_empty() {
            return write!(f, " no traffic");
        }
        for (i, d) in self.directions.iter().enumerate() {
            if i > 0 {
                write!(f, " |")?;
            }
            write!(
                f,
                " {} tx {:.3} Gbps {:.1} kpps rx {:.3} Gbps {:.1} kpps {}",
                d.direction.short(),
                d.tx_gbps_l1,
                d.tx_kpps,
                d.rx_gbps_l1,
                d.rx_kpps,
                loss_text(d.lost_total, d.loss_pct_total, d.late_total, None)
            )?;
            match (d.lat_avg_ns, d.lat_p99_ns, d.lat_max_ns) {
                (Some(a), Some(p), Some(m)) => write!(
                    f,
                    " lat avg/p99/max {:.1}/{:.1}/{:.1} us",
                    a / 1e3,
                    p as f64 / 1e3,
                    m as f64 / 1e3
                )?,
                _ => write!(f, " lat -")?,
            }
            if d.tx_late_ns > 0 {
                write!(f, " tx behind {}", Lateness(d.tx_late_ns))?;
            }
        }
        Ok(())
    }
}

/// A lateness in ns as the live line shows it: `850.0 us`, `3.2 ms`.
struct Lateness(u64);

impl fmt::Display for Lateness {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.0 < 1_000_000 {
            write!(f, "{:.1} us", self.0 as f64 / 1e3)
        } else {
            write!(f, "{:.1} ms", self.0 as f64 / 1e6)
        }
    }
}

/// Rates and interval latency from successive snapshots.
#[derive(Debug)]
pub struct LiveMeter {
    start_ns: Option<u64>,
    last_ns: u64,
    last_tx: [TrafficCounters; 2],
    last_rx: [TrafficCounters; 2],
    last_lost: [u64; 2],
    latency: [LatencyRecorder; 2],
    log: Option<IntervalLog>,
    log_failures: u64,
}

impl LiveMeter {
    /// A meter whose interval histograms match the workers' configuration.
    pub fn new(latency: &LatencyConfig) -> Result<LiveMeter, LatencyConfigError> {
        let r = LatencyRecorder::new(latency)?;
        Ok(LiveMeter {
            start_ns: None,
            last_ns: 0,
            last_tx: [TrafficCounters::default(); 2],
            last_rx: [TrafficCounters::default(); 2],
            last_lost: [0; 2],
            latency: [r.clone(), r],
            log: None,
            log_failures: 0,
        })
    }

    /// Also writes each line's interval histograms (one per active direction) into `log`;
    /// interval times count from the first line.
    pub fn with_interval_log(mut self, log: IntervalLog) -> LiveMeter {
        self.log = Some(log);
        self
    }

    /// The interval log, if one was given, and how many intervals could not be written to it.
    pub fn take_interval_log(&mut self) -> Option<(IntervalLog, u64)> {
        self.log.take().map(|l| (l, self.log_failures))
    }

    /// The latency collected since the last [`line`](Self::line), per direction (indexed by
    /// [`Direction::index`]): what the next line will summarise and then forget.
    pub fn interval_latency(&self) -> &[LatencyRecorder; 2] {
        &self.latency
    }

    /// Takes the latency intervals waiting on `rx`; returns how many.
    pub fn collect(&mut self, rx: &mut RxHandle) -> usize {
        rx.collect_latency(&mut self.latency)
    }

    /// The line for `now_ns` (the control thread's reading of the workers' clock) from this
    /// second's snapshots. The first call only sets the baseline rates start from.
    pub fn line(&mut self, now_ns: u64, tx: &[TxSnapshot], rx: &[RxSnapshot]) -> LiveLine {
        // The first call has no earlier reading: it reports no rate.
        let dt = match self.start_ns {
            None => {
                self.start_ns = Some(now_ns);
                0
            }
            Some(_) => now_ns.saturating_sub(self.last_ns),
        };
        let start = self.start_ns.unwrap_or(now_ns);
        let mut directions = Vec::new();
        for d in Direction::ALL {
            let i = d.index();
            let mut tx_now = TrafficCounters::default();
            let mut tx_late_ns = 0;
            for s in tx {
                tx_now.merge(&s.directions[i]);
                tx_late_ns = tx_late_ns.max(s.late_ns[i]);
            }
            let mut rx_now = RxCounters::default();
            for s in rx {
                rx_now.merge(&s.directions[i]);
            }
            let dtx = tx_now.since(&self.last_tx[i]);
            let drx = rx_now.traffic.since(&self.last_rx[i]);
            self.last_tx[i] = tx_now;
            self.last_rx[i] = rx_now.traffic;
            let lost = rx_now.lost_confirmed.saturating_sub(self.last_lost[i]);
            self.last_lost[i] = rx_now.lost_confirmed;
            if tx_now.packets == 0 && rx_now.traffic.packets == 0 {
                continue;
            }
            let l = &self.latency[i];
            if dt > 0
                && let Some(log) = &mut self.log
                && log
                    .add(
                        d,
                        Duration::from_nanos(self.last_ns.saturating_sub(start)),
                        Duration::from_nanos(dt),
                        l,
                    )
                    .is_err()
            {
                self.log_failures += 1;
            }
            directions.push(LiveDirection {
                direction: d,
                tx_gbps_l1: gbps(dtx.bytes_l1(), dt),
                tx_kpps: kpps(dtx.packets, dt),
                rx_gbps_l1: gbps(drx.bytes_l1(), dt),
                rx_kpps: kpps(drx.packets, dt),
                tx_packets: dtx.packets,
                rx_packets: drx.packets,
                lost,
                lost_total: rx_now.lost_confirmed,
                loss_pct_total: percent(rx_now.lost_confirmed, tx_now.packets),
                late_total: rx_now.late,
                lat_avg_ns: l.mean_ns(),
                lat_p50_ns: l.quantile_ns(0.5),
                lat_p99_ns: l.quantile_ns(0.99),
                lat_max_ns: l.max_ns(),
                tx_late_ns,
            });
        }
        for l in &mut self.latency {
            l.reset();
        }
        self.last_ns = now_ns;
        LiveLine {
            elapsed_ns: now_ns.saturating_sub(start),
            interval_ns: dt,
            directions,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn direction(tx_late_ns: u64) -> LiveDirection {
        LiveDirection {
            direction: Direction::Downlink,
            tx_gbps_l1: 0.992,
            tx_kpps: 1_000.0,
            rx_gbps_l1: 0.992,
            rx_kpps: 1_000.0,
            tx_packets: 1_000_000,
            rx_packets: 1_000_000,
            lost: 0,
            lost_total: 0,
            loss_pct_total: 0.0,
            late_total: 0,
            lat_avg_ns: Some(1_500.0),
            lat_p50_ns: Some(1_400),
            lat_p99_ns: Some(2_000),
            lat_max_ns: Some(9_000),
            tx_late_ns,
        }
    }

    fn line(directions: Vec<LiveDirection>) -> String {
        LiveLine {
            elapsed_ns: 3_000_000_000,
            interval_ns: 1_000_000_000,
            directions,
        }
        .to_string()
    }

    #[test]
    fn a_sender_behind_its_schedule_is_marked_with_its_lateness() {
        assert_eq!(
            line(vec![direction(3_200_000)]),
            "    3.0s DL tx 0.992 Gbps 1000.0 kpps rx 0.992 Gbps 1000.0 kpps lost 0 (0.000%) \
             lat avg/p99/max 1.5/2.0/9.0 us tx behind 3.2 ms"
        );
        // On time: no marker.
        assert_eq!(
            line(vec![direction(0)]),
            "    3.0s DL tx 0.992 Gbps 1000.0 kpps rx 0.992 Gbps 1000.0 kpps lost 0 (0.000%) \
             lat avg/p99/max 1.5/2.0/9.0 us"
        );
        // Less than a millisecond in microseconds; each direction its own.
        let mut ul = direction(0);
        ul.direction = Direction::Uplink;
        let text = line(vec![ul, direction(850_000)]);
        assert!(
            text.ends_with("9.0 us | DL tx 0.992 Gbps 1000.0 kpps rx 0.992 Gbps 1000.0 kpps lost 0 (0.000%) lat avg/p99/max 1.5/2.0/9.0 us tx behind 850.0 us"),
            "{text}"
        );
        assert_eq!(text.matches("tx behind").count(), 1, "{text}");
    }

    #[test]
    fn late_packets_are_named_beside_the_loss_they_are_part_of() {
        let mut d = direction(0);
        d.lost_total = 9_996;
        d.loss_pct_total = 9.996;
        d.late_total = 9_996;
        assert_eq!(
            line(vec![d]),
            "    3.0s DL tx 0.992 Gbps 1000.0 kpps rx 0.992 Gbps 1000.0 kpps lost 9996 (9.996%; \
             late 9996: arrived after the reorder window, counted lost) lat avg/p99/max \
             1.5/2.0/9.0 us"
        );
    }

    #[test]
    fn the_lateness_of_a_direction_is_its_latest_workers() {
        let mut meter = LiveMeter::new(&LatencyConfig::default()).unwrap();
        let tx = |packets, late_ns| {
            let mut s = TxSnapshot::default();
            s.directions[Direction::Uplink.index()] = TrafficCounters {
                packets,
                bytes_l2: packets * 100,
            };
            s.late_ns[Direction::Uplink.index()] = late_ns;
            s
        };
        meter.line(0, &[tx(0, 0)], &[]);
        let l = meter.line(1_000_000_000, &[tx(10, 40_000), tx(10, 1_260_000)], &[]);
        assert_eq!(l.directions.len(), 1);
        assert_eq!(l.directions[0].tx_late_ns, 1_260_000);
        assert!(l.to_string().ends_with(" lat - tx behind 1.3 ms"), "{l}");
    }
}
