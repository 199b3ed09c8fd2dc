//! Traffic measurement for upfbench: counters, per-stream sequence tracking, latency histograms,
//! per-core snapshots, their merge, and the report model with its renderings.
//!
//! Nothing here knows DPDK. It is empty until issue 2 fills it.
#![forbid(unsafe_code)]
