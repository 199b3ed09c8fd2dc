//! Bindings to the system DPDK (22.11 LTS) and a small safe API over them: EAL, mempools, ports,
//! queues, bursts, mbufs and lcores. This is the only crate of upfbench with `unsafe`.
//!
//! Shape of a datapath:
//!
//! ```no_run
//! use upfbench_dpdk::{Eal, Mempool, MbufBurst, Port, PortConfig, Socket, StopFlag, DEFAULT_DATA_ROOM};
//!
//! let eal = Eal::init(["-l", "0,1", "--no-huge", "-m", "512", "--no-pci", "--vdev", "net_null0"])?;
//! let pool = Mempool::new(&eal, "tx", 8191, 256, DEFAULT_DATA_ROOM, Socket::Any)?;
//! let mut port = Port::from_name(&eal, "net_null0")?;
//! let started = port.start(&PortConfig::default(), &pool)?;
//! let mut queues = started.queues()?;
//! let mut txq = queues.tx.pop().expect("one tx queue");
//! let stop = StopFlag::new();
//! let frame = [0u8; 60];
//! eal.scope(|s| {
//!     let worker = s.launch(1, || {
//!         let mut burst = MbufBurst::<32>::new();
//!         let mut sent = 0u64;
//!         while !stop.is_stopped() {
//!             let free = burst.free_slots();
//!             if let Ok(fresh) = burst.alloc(&pool, free) {
//!                 for m in fresh {
//!                     m.extend_from_slice(&frame).expect("fits");
//!                 }
//!             }
//!             sent += txq.tx_burst(&mut burst) as u64;
//!         }
//!         sent
//!     })?;
//!     stop.stop();
//!     let sent = worker.join().expect("no panic");
//!     Ok::<u64, upfbench_dpdk::Error>(sent)
//! })?;
//! # Ok::<(), upfbench_dpdk::Error>(())
//! ```
#![deny(unsafe_op_in_unsafe_fn)]

mod burst;
mod config;
mod eal;
mod error;
mod lcore;
mod mbuf;
mod mempool;
mod port;
mod queue;
mod ring_pair;
mod stats;
mod sys;

pub use burst::MbufBurst;
pub use config::{Offloads, PortConfig};
pub use eal::{Eal, current_lcore, tsc};
pub use error::{Error, Result};
pub use lcore::{LcoreHandle, LcoreScope, StopFlag};
pub use mbuf::{Mbuf, NoRoom, RxChecksum};
pub use mempool::{DEFAULT_DATA_ROOM, HEADROOM, Mempool, Socket};
pub use port::{Capabilities, DescLimits, Link, MacAddr, Port, PortInfo};
pub use queue::{Queues, RxQueue, StartedPort, TxQueue};
pub use ring_pair::RING_PAIR_SIZE;
pub use stats::PortStats;
