//! Traffic measurement for upfbench: counters, per-stream sequence tracking, latency histograms,
//! per-core snapshots and their merge. The report made of them is the report crate's.
//!
//! Nothing here knows DPDK; timestamps are plain nanoseconds on whatever clock the workers share.
//!
//! # Who calls what
//!
//! * Set-up (control thread): describe the streams densely by id ([`StreamSpec`]), then per
//!   worker core [`RxStats::new`] / [`TxStats::new`], which allocate everything and return the
//!   worker's state and the control thread's [`RxHandle`] / [`TxHandle`].
//! * RX worker, per packet: [`RxStats::record`] (or [`RxStats::record_transit`] when the tag's
//!   timestamp is truncated, [`RxStats::record_untagged`] for packets without a tag); every
//!   100 µs or so of its loop (the generator's worker: `PUBLISH_NS`), also on empty polls:
//!   [`RxStats::publish`]; at the end: [`RxStats::finish`] →
//!   [`RxCoreResult`].
//! * TX worker, per burst: [`TxStats::record_n`] / [`TxStats::record`] for what the NIC took; with
//!   the RX side's publication: [`TxStats::publish`]; at the end: [`TxStats::finish`] → [`TxCoreResult`].
//! * Control thread, each second: [`LiveMeter::collect`] on every [`RxHandle`], the handles'
//!   `snapshot()`, [`LiveMeter::line`] → a printable [`LiveLine`]. At the end:
//!   [`RunResult::merge`] of the core results, which the report crate's `StepReport::from_run`
//!   turns into a step of its `Report`.
//!
//! The definitions of lost, reordered, duplicate and late are in [`seq`]; the lock-free
//! publication scheme in [`publish`]; the merge rules in [`merge`]; byte and rate conventions in
//! [`rate`]; jitter in `jitter`; latency precision and the staging that keeps the RX path short
//! in [`latency`]. The RX path's cost per packet is measured by `benches/rx_record.rs`.
#![forbid(unsafe_code)]

pub mod direction;
mod hlog;
mod hot_latency;
mod jitter;
pub mod latency;
pub mod live;
mod loss_text;
pub mod merge;
mod port;
pub mod publish;
pub mod rate;
mod rx;
pub mod seq;
mod seqlock;
mod tx;
pub mod windows;

pub use direction::Direction;
pub use hlog::{IntervalLog, IntervalLogError};
pub use jitter::Jitter;
pub use latency::{LatencyConfig, LatencyConfigError, LatencyExact, LatencyRecorder};
pub use live::{LiveDirection, LiveLine, LiveMeter};
pub use loss_text::loss_text;
pub use merge::{DirectionResult, MergeError, RunResult, StreamResult};
pub use port::PortName;
pub use publish::{
    LatencyInterval, RxCounters, RxCountersReader, RxHandle, RxSnapshot, TxHandle, TxSnapshot,
};
pub use rate::{FCS_BYTES, L1_OVERHEAD_BYTES, MIN_FRAME_BYTES, TrafficCounters, wire_l2_len};
pub use rx::{RxConfig, RxConfigError, RxCoreResult, RxStats, RxStream, StreamSpec};
pub use seq::{Arrival, SeqCounters, SeqTracker, WindowError};
pub use tx::{TxCoreResult, TxStats};
pub use windows::{
    Conformance, DEFAULT_WINDOW_NS, RateWindows, WindowsConfigError, WindowsMergeError,
};
