//! Packet mbuf pools.

use std::ffi::{CString, c_int};
use std::marker::PhantomData;
use std::ptr::NonNull;

use crate::eal::Eal;
use crate::error::{Error, Result};
use crate::mbuf::Mbuf;
use crate::sys;

/// The NUMA socket to allocate on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Socket {
    /// Any socket (`SOCKET_ID_ANY`).
    #[default]
    Any,
    /// This socket.
    Id(u32),
}

impl Socket {
    pub(crate) fn raw(self) -> c_int {
        match self {
            Socket::Any => sys::SOCKET_ID_ANY,
            Socket::Id(id) => c_int::try_from(id).unwrap_or(sys::SOCKET_ID_ANY),
        }
    }
}

/// Data room of an mbuf that holds a standard 1518-byte frame after the default headroom
/// (`RTE_MBUF_DEFAULT_BUF_SIZE`).
pub const DEFAULT_DATA_ROOM: u16 = sys::RTE_MBUF_DEFAULT_BUF_SIZE as u16;

/// Headroom that a freshly allocated mbuf leaves before its data (`RTE_PKTMBUF_HEADROOM`).
pub const HEADROOM: u16 = sys::RTE_PKTMBUF_HEADROOM as u16;

/// A pool of packet mbufs (`rte_pktmbuf_pool_create`).
///
/// A pool lives until EAL is cleaned up: DPDK cannot free a pool while ports or mbufs may still
/// refer to it, so the handle is a `Copy` reference and dropping it frees nothing. Allocation and
/// freeing are thread-safe; each lcore has its own cache.
#[derive(Debug, Clone, Copy)]
pub struct Mempool<'e> {
    raw: NonNull<sys::rte_mempool>,
    _eal: PhantomData<&'e Eal>,
}

// SAFETY: rte_mempool operations are multi-producer/multi-consumer safe (per-lcore caches are
// indexed by the calling lcore), and the pool is never freed while the handle can exist.
unsafe impl Send for Mempool<'_> {}
// SAFETY: as for Send: every operation through a shared handle is thread-safe in DPDK.
unsafe impl Sync for Mempool<'_> {}

impl<'e> Mempool<'e> {
    /// Creates a pool of `n` mbufs (a power of two minus one uses memory best) with a per-lcore
    /// cache of `cache` mbufs (0 for none; at most 512 and n / 1.5), each with `data_room` bytes
    /// of buffer including the headroom (see [`DEFAULT_DATA_ROOM`]), on `socket`.
    pub fn new(
        _eal: &'e Eal,
        name: &str,
        n: u32,
        cache: u32,
        data_room: u16,
        socket: Socket,
    ) -> Result<Self> {
        let cname = CString::new(name).map_err(|_| Error::NulByte {
            what: "mempool name",
        })?;
        // SAFETY: EAL is initialised; cname is a valid C string that DPDK copies.
        let raw = unsafe {
            sys::rte_pktmbuf_pool_create(cname.as_ptr(), n, cache, 0, data_room, socket.raw())
        };
        NonNull::new(raw)
            .map(|raw| Mempool {
                raw,
                _eal: PhantomData,
            })
            .ok_or_else(|| Error::last("rte_pktmbuf_pool_create"))
    }

    pub(crate) fn as_ptr(self) -> *mut sys::rte_mempool {
        self.raw.as_ptr()
    }

    /// Free mbufs in the pool's ring (those in lcore caches are counted too).
    pub fn available(&self) -> usize {
        // SAFETY: raw is a live pool.
        unsafe { sys::rte_mempool_avail_count(self.raw.as_ptr()) as usize }
    }

    /// Mbufs taken from the pool.
    pub fn in_use(&self) -> usize {
        // SAFETY: raw is a live pool.
        unsafe { sys::rte_mempool_in_use_count(self.raw.as_ptr()) as usize }
    }

    /// Bytes of buffer in each mbuf, headroom included.
    pub fn data_room(&self) -> u16 {
        // SAFETY: raw is a live packet mbuf pool (created by rte_pktmbuf_pool_create).
        unsafe { sys::upfb_pktmbuf_data_room_size(self.raw.as_ptr()) }
    }

    /// Takes one mbuf (empty, default headroom). For many, use [`crate::MbufBurst::alloc`].
    pub fn alloc(&self) -> Result<Mbuf<'e>> {
        // SAFETY: raw is a live packet mbuf pool.
        let m = unsafe { sys::upfb_pktmbuf_alloc(self.raw.as_ptr()) };
        match NonNull::new(m) {
            // SAFETY: a freshly allocated mbuf, owned by nobody else, from a pool that lives as
            // long as EAL ('e).
            Some(m) => Ok(unsafe { Mbuf::from_raw(m) }),
            None => Err(Error::MempoolExhausted {
                requested: 1,
                available: self.available(),
            }),
        }
    }
}
