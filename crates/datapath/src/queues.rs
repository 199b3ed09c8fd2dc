//! The two ports of a run and a worker's queues on them.

use upfbench_dpdk::{RxQueue, TxQueue};

/// Frames taken from a receive queue at once. Through the reflector over memif (both sides
/// use it) a poll of up to 128 instead of 32 carried 12.5 to 13.5 Mpps uplink instead of 10.0 to
/// 10.8 on two vCPUs; 256 gave no more (`benches/reflector_memif.sh`).
pub const RX_BURST: usize = 128;

/// The two ports, as indices into per-port arrays: the one port enum that reports, the
/// generator and the reflector share ([`upfbench_stats::PortName`]: `index()`, `BOTH`,
/// `name()`), under the name the data path has always used.
pub use upfbench_stats::PortName as Side;

/// A worker's queues on one port.
#[derive(Debug)]
pub struct PortQueues<'p> {
    /// Its receive queue.
    pub rx: RxQueue<'p>,
    /// Its transmit queue.
    pub tx: TxQueue<'p>,
}
