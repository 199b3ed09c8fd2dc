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
    /// Losses confirmed since the start (positions that left the reorder window).
    pub lost_total: u64,
    /// `lost_total` against everything sent so far, in percent.
    pub loss_pct_total: f64,
    /// Latency mean over the interval's samples (ns).
    pub lat_avg_ns: Option<f64>,
    /// Latency 99th percentile over the interval (ns).
    pub lat_p99_ns: Option<u64>,
    /// Largest latency of the interval (ns).
    pub lat_max_ns: Option<u64>,
}

/// One live line: the directions that carried traffic so far.
#[derive(Debug, Clone, PartialEq)]
pub struct LiveLine {
    /// Time since the first call (ns).
    pub elapsed_ns: u64,
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
                " {} tx {:.3} Gbps {:.1} kpps rx {:.3} Gbps {:.1} kpps lost {} ({:.3}%)",
                d.direction.short(),
                d.tx_gbps_l1,
                d.tx_kpps,
                d.rx_gbps_l1,
                d.rx_kpps,
                d.lost_total,
                d.loss_pct_total
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
        }
        Ok(())
    }
}

/// Rates and interval latency from successive snapshots.
#[derive(Debug)]
pub struct LiveMeter {
    start_ns: Option<u64>,
    last_ns: u64,
    last_tx: [TrafficCounters; 2],
    last_rx: [TrafficCounters; 2],
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
            for s in tx {
                tx_now.merge(&s.directions[i]);
            }
            let mut rx_now = RxCounters::default();
            for s in rx {
                rx_now.merge(&s.directions[i]);
            }
            let dtx = tx_now.since(&self.last_tx[i]);
            let drx = rx_now.traffic.since(&self.last_rx[i]);
            self.last_tx[i] = tx_now;
            self.last_rx[i] = rx_now.traffic;
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
                lost_total: rx_now.lost_confirmed,
                loss_pct_total: percent(rx_now.lost_confirmed, tx_now.packets),
                lat_avg_ns: l.mean_ns(),
                lat_p99_ns: l.quantile_ns(0.99),
                lat_max_ns: l.max_ns(),
            });
        }
        for l in &mut self.latency {
            l.reset();
        }
        self.last_ns = now_ns;
        LiveLine {
            elapsed_ns: now_ns.saturating_sub(start),
            directions,
        }
    }
}
