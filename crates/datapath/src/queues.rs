//! The two ports of a run and a worker's queues on them.

use upfbench_dpdk::{RxQueue, TxQueue};

/// Frames taken from a receive queue at once. Through the reflector over memif (both sides
/// use it) a poll of up to 128 instead of 32 carried 12.5 to 13.5 Mpps uplink instead of 10.0 to
/// 10.8 on two vCPUs; 256 gave no more (`benches/reflector_memif.sh`).
pub const RX_BURST: usize = 128;

/// The two ports, as indices into per-port arrays.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum Side {
    /// The gNB side: GTP-U.
    N3 = 0,
    /// The data network side: plain IP.
    N6 = 1,
}

impl Side {
    /// Both, N3 first.
    pub const BOTH: [Side; 2] = [Side::N3, Side::N6];

    /// Index into per-port arrays.
    pub const fn index(self) -> usize {
        self as usize
    }

    /// "N3" or "N6".
    pub const fn name(self) -> &'static str {
        match self {
            Side::N3 => "N3",
            Side::N6 => "N6",
        }
    }
}

/// A worker's queues on one port.
#[derive(Debug)]
pub struct PortQueues<'p> {
    /// Its receive queue.
    pub rx: RxQueue<'p>,
    /// Its transmit queue.
    pub tx: TxQueue<'p>,
}
