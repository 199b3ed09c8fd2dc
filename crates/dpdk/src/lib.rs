//! Bindings to the system DPDK (22.11 LTS) and a small safe API over them: EAL, mempools, ports,
//! queues, bursts, mbufs and lcores. This is the only crate of upfbench with `unsafe`.
//!
//! To send whole frames at the rate of a few written bytes per packet, take the mbufs from a
//! [`TemplatePool`]: the frame is in every mbuf from the pool's creation on, and its fill hands
//! each packet's patch region (sequence number, tag, addresses) to a closure.
//!
//! A TX worker and an RX worker (docs/dpdk.md has the whole API in brief):
//!
//! ```no_run
//! # use upfbench_dpdk::*;
//! # fn main() -> Result<(), Error> {
//! let eal = Eal::init(["-l", "0,1,2", "--in-memory", "--vdev", "net_ring0"])?;
//! let pool = Mempool::new(&eal, "pool", 8191, 256, DEFAULT_DATA_ROOM, Socket::Any)?;
//! let mut port = Port::from_name(&eal, "net_ring0")?;
//! let started = port.start(&PortConfig::default(), &pool)?;
//! let Queues { mut rx, mut tx } = started.queues()?;
//! let (mut rxq, mut txq) = (rx.remove(0), tx.remove(0));
//! let stop = StopFlag::new();
//! let template = [0u8; 64];
//! eal.scope(|s| -> Result<(), Error> {
//!     let sender = s.launch(1, || {
//!         let mut burst = MbufBurst::<32>::new();
//!         while !stop.is_stopped() {
//!             // One bulk allocation; each fresh mbuf is reset and written in one pass.
//!             let filled = burst.fill_with(&pool, |m| {
//!                 m.extend_from_slice(&template).expect("fits"); // then patch fields in place
//!             });
//!             if filled.is_ok() {
//!                 txq.tx_burst(&mut burst);                    // unsent ones stay for next time
//!             }
//!         }
//!     })?;
//!     let receiver = s.launch(2, || {
//!         let mut burst = MbufBurst::<32>::new();
//!         let mut packets = 0u64;
//!         while !stop.is_stopped() {
//!             rxq.rx_burst(&mut burst);
//!             for m in burst.iter() {
//!                 packets += u64::from(m.data().len() >= 14);
//!             }
//!             burst.clear();                                   // one bulk free
//!         }
//!         packets
//!     })?;
//!     std::thread::sleep(std::time::Duration::from_secs(1));
//!     stop.stop();
//!     sender.join().expect("sender");
//!     let _packets = receiver.join().expect("receiver");
//!     Ok(())
//! })?;
//! # Ok(())
//! # }
//! ```
#![deny(unsafe_op_in_unsafe_fn)]

mod burst;
mod config;
mod eal;
mod error;
mod flow;
mod lcore;
mod linked;
mod mbuf;
mod mempool;
mod port;
mod queue;
mod quiescence;
mod ring_pair;
mod stats;
mod sys;
mod template;
mod time;
mod vlan;
mod written_flag;

pub use burst::MbufBurst;
pub use config::{Offloads, PortConfig};
pub use eal::{Eal, current_lcore, tsc};
pub use error::{Error, Result};
pub use flow::{MAX_TEID_RULES, SteeringRefused, TeidSteering, teid_rules};
pub use lcore::{LcoreHandle, LcoreScope, StopFlag};
pub use linked::{Pmds, pmds, runtime_version};
pub use mbuf::{Mbuf, NoRoom, RxChecksum};
pub use mempool::{DEFAULT_DATA_ROOM, HEADROOM, Mempool, Socket};
pub use port::{Capabilities, DescLimits, Link, Port, PortInfo};
pub use queue::{Queues, RxQueue, StartedPort, TxQueue};
pub use quiescence::{Quiescent, grace_period};
pub use ring_pair::RING_PAIR_SIZE;
pub use stats::{PortStats, QUEUE_STATS};
pub use template::TemplatePool;
pub use time::{TscAnchor, monotonic_raw_ns};
pub use vlan::{StrippedTags, TxVlan};
