//! Starting a port, the started port and its queues: the burst functions.

use std::cell::Cell;
use std::marker::PhantomData;
use std::ops::Deref;
use std::sync::atomic::{AtomicU32, Ordering};

use crate::burst::MbufBurst;
use crate::config::PortConfig;
use crate::error::{Error, Result};
use crate::mempool::Mempool;
use crate::port::Port;
use crate::sys;

/// A port that [`Port::start`] configured and started. Dereferences to the [`Port`] (information,
/// statistics); hands out its queues, one handle per queue at any time ([`StartedPort::queues`]:
/// again once every handle of the last set is dropped); stops the port when dropped.
#[derive(Debug)]
pub struct StartedPort<'p, 'e> {
    port: &'p mut Port<'e>,
    rx_queues: u16,
    tx_queues: u16,
    rx_desc: u16,
    tx_desc: u16,
    /// How many queue handles are out: the queues are handed out again only when none is.
    queues_out: AtomicU32,
    /// Whether rte_flow rules were installed ([`StartedPort::steer_gtpu_by_teid`]).
    pub(crate) flows_installed: Cell<bool>,
}

/// A receive queue of a started port. `Send` (give it to the lcore that polls it) but not `Sync`:
/// DPDK queues are single-consumer.
#[derive(Debug)]
pub struct RxQueue<'p> {
    port: u16,
    queue: u16,
    /// The started port's count of handles out, less one when this one is dropped.
    out: &'p AtomicU32,
    _not_sync: PhantomData<Cell<()>>,
}

/// A transmit queue of a started port. `Send` (give it to the lcore that feeds it) but not
/// `Sync`: DPDK queues are single-producer.
#[derive(Debug)]
pub struct TxQueue<'p> {
    port: u16,
    queue: u16,
    /// The started port's count of handles out, less one when this one is dropped.
    out: &'p AtomicU32,
    _not_sync: PhantomData<Cell<()>>,
}

impl Drop for RxQueue<'_> {
    fn drop(&mut self) {
        // Release: the lcore's last burst on the queue happens before the next lease's first.
        self.out.fetch_sub(1, Ordering::Release);
    }
}

impl Drop for TxQueue<'_> {
    fn drop(&mut self) {
        self.out.fetch_sub(1, Ordering::Release);
    }
}

/// The queues of a started port, by queue id.
#[derive(Debug)]
pub struct Queues<'p> {
    /// Receive queues 0..n.
    pub rx: Vec<RxQueue<'p>>,
    /// Transmit queues 0..n.
    pub tx: Vec<TxQueue<'p>>,
}

impl<'e> Port<'e> {
    /// Configures the port (queues, descriptors, RSS, offloads), sets its queues up with `pool`
    /// for received packets, and starts it. The returned [`StartedPort`] hands out the queues and
    /// stops the port when dropped.
    pub fn start<'p>(
        &'p mut self,
        config: &PortConfig,
        pool: &Mempool<'e>,
    ) -> Result<StartedPort<'p, 'e>> {
        let (rx_desc, tx_desc) = self.configure_and_start(config, pool)?;
        Ok(StartedPort::new(
            self,
            config.rx_queues,
            config.tx_queues,
            rx_desc,
            tx_desc,
        ))
    }
}

impl<'p, 'e> StartedPort<'p, 'e> {
    fn new(
        port: &'p mut Port<'e>,
        rx_queues: u16,
        tx_queues: u16,
        rx_desc: u16,
        tx_desc: u16,
    ) -> Self {
        StartedPort {
            port,
            rx_queues,
            tx_queues,
            rx_desc,
            tx_desc,
            queues_out: AtomicU32::new(0),
            flows_installed: Cell::new(false),
        }
    }

    /// Receive queues.
    pub fn rx_queue_count(&self) -> u16 {
        self.rx_queues
    }

    /// Descriptors per receive queue, after adjustment to the port's limits.
    pub fn rx_desc(&self) -> u16 {
        self.rx_desc
    }

    /// Descriptors per transmit queue, after adjustment to the port's limits.
    pub fn tx_desc(&self) -> u16 {
        self.tx_desc
    }

    /// The port's queues, one handle each: [`Error::QueuesTaken`] while any handle of an earlier
    /// call is alive, so each queue has exactly one handle at a time. Once every handle is
    /// dropped (a run's workers ended), the queues can be taken again (the next run on the same
    /// started port: an agent keeps its ports from one run to the next).
    pub fn queues(&self) -> Result<Queues<'_>> {
        let count = u32::from(self.rx_queues) + u32::from(self.tx_queues);
        // Acquire: pairs with the handles' Release on drop.
        if self
            .queues_out
            .compare_exchange(0, count, Ordering::Acquire, Ordering::Relaxed)
            .is_err()
        {
            return Err(Error::QueuesTaken(self.port.id()));
        }
        let port = self.port.id();
        let out = &self.queues_out;
        Ok(Queues {
            rx: (0..self.rx_queues)
                .map(|queue| RxQueue {
                    port,
                    queue,
                    out,
                    _not_sync: PhantomData,
                })
                .collect(),
            tx: (0..self.tx_queues)
                .map(|queue| TxQueue {
                    port,
                    queue,
                    out,
                    _not_sync: PhantomData,
                })
                .collect(),
        })
    }

    /// Turns promiscuous mode on or off while running.
    pub fn set_promiscuous(&mut self, on: bool) -> Result<()> {
        self.port.set_promiscuous(on)
    }

    /// Stops the port (as dropping does), reporting a failure.
    pub fn stop(self) -> Result<()> {
        let id = self.port.id();
        std::mem::forget(self);
        // SAFETY: the port is started; its queue handles borrowed self, which is consumed, so no
        // lcore is bursting on it.
        let ret = unsafe { sys::rte_eth_dev_stop(id) };
        Error::check("rte_eth_dev_stop", ret).map(drop)
    }
}

impl<'e> Deref for StartedPort<'_, 'e> {
    type Target = Port<'e>;

    fn deref(&self) -> &Port<'e> {
        self.port
    }
}

impl Drop for StartedPort<'_, '_> {
    fn drop(&mut self) {
        self.flush_flows();
        // SAFETY: the port is started; its queue handles borrowed self and are gone.
        unsafe {
            sys::rte_eth_dev_stop(self.port.id());
        }
    }
}

impl<'p> RxQueue<'p> {
    /// Port id.
    pub fn port(&self) -> u16 {
        self.port
    }

    /// Queue id.
    pub fn id(&self) -> u16 {
        self.queue
    }

    /// Receives up to `out.free_slots()` packets into the free slots of `out` (one DPDK call) and
    /// returns how many arrived.
    #[inline]
    pub fn rx_burst<const N: usize>(&mut self, out: &mut MbufBurst<'p, N>) -> usize {
        let (slots, free) = out.spare_parts();
        if free == 0 {
            return 0;
        }
        // SAFETY: the port is started (self borrows the StartedPort) and this handle is the only
        // one for the queue; slots has room for `free` (<= u16::MAX) pointers; the received mbufs
        // come from the port's pool, which outlives 'p.
        let n = unsafe { sys::upfb_rx_burst(self.port, self.queue, slots, free as u16) };
        out.grow(usize::from(n));
        usize::from(n)
    }
}

impl<'p> TxQueue<'p> {
    /// Port id.
    pub fn port(&self) -> u16 {
        self.port
    }

    /// Queue id.
    pub fn id(&self) -> u16 {
        self.queue
    }

    /// Hands the mbufs in `pkts` to the port (one DPDK call) and returns how many it took. Those
    /// it did not take stay in `pkts`, moved to the front, still owned by the caller.
    #[inline]
    pub fn tx_burst<const N: usize>(&mut self, pkts: &mut MbufBurst<'p, N>) -> usize {
        let (slots, len) = pkts.raw_parts();
        if len == 0 {
            return 0;
        }
        // SAFETY: the port is started (self borrows the StartedPort) and this handle is the only
        // one for the queue; slots[..len] (<= u16::MAX) are owned mbufs; the port takes ownership
        // of the first n, which consume_front then forgets.
        let n = unsafe { sys::upfb_tx_burst(self.port, self.queue, slots, len as u16) };
        pkts.consume_front(usize::from(n));
        usize::from(n)
    }
}
