//! A fixed-capacity array of mbufs: what the burst functions fill and drain.

use std::marker::PhantomData;
use std::mem::ManuallyDrop;
use std::ops::{Deref, DerefMut};
use std::ptr::{self, NonNull};

use crate::error::{Error, Result};
use crate::mbuf::Mbuf;
use crate::mempool::Mempool;
use crate::sys;

/// Up to `N` owned mbufs in an inline array of `struct rte_mbuf *`: received into by
/// [`crate::RxQueue::rx_burst`], sent from by [`crate::TxQueue::tx_burst`] (which leaves the unsent
/// ones here, at the front), allocated into and freed in bulk (one DPDK call per burst).
///
/// Dereferences to `[Mbuf]`. Dropping it frees what it holds.
pub struct MbufBurst<'e, const N: usize> {
    len: usize,
    /// `slots[..len]` are owned, non-null mbufs; the rest are stale.
    slots: [*mut sys::rte_mbuf; N],
    _owns: PhantomData<Mbuf<'e>>,
}

// SAFETY: the burst owns its mbufs as a Vec<Mbuf> would; Mbuf is Send.
unsafe impl<const N: usize> Send for MbufBurst<'_, N> {}

impl<const N: usize> Default for MbufBurst<'_, N> {
    fn default() -> Self {
        Self::new()
    }
}

impl<'e, const N: usize> MbufBurst<'e, N> {
    const CAPACITY_FITS_U16: () = assert!(N <= u16::MAX as usize, "a burst holds at most 65535");

    /// An empty burst.
    pub const fn new() -> Self {
        let () = Self::CAPACITY_FITS_U16;
        MbufBurst {
            len: 0,
            slots: [ptr::null_mut(); N],
            _owns: PhantomData,
        }
    }

    /// The capacity, `N`.
    pub const fn capacity(&self) -> usize {
        N
    }

    /// Number of mbufs held.
    #[inline(always)]
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether no mbuf is held.
    #[inline(always)]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Whether every slot is taken.
    #[inline(always)]
    pub fn is_full(&self) -> bool {
        self.len == N
    }

    /// Number of free slots.
    #[inline(always)]
    pub fn free_slots(&self) -> usize {
        N - self.len
    }

    /// Allocates `n` fresh mbufs from `pool` into the free slots (one bulk call) and returns them.
    /// All or nothing: [`Error::MempoolExhausted`] if the pool has fewer than `n` free.
    #[inline]
    pub fn alloc(&mut self, pool: &Mempool<'e>, n: usize) -> Result<&mut [Mbuf<'e>]> {
        let free = self.free_slots();
        if n > free {
            return Err(Error::BurstFull { requested: n, free });
        }
        let start = self.len;
        let (spare, _) = self.spare_parts();
        // SAFETY: spare has room for free >= n pointers; the pool is a live packet mbuf pool; on
        // success DPDK wrote n valid mbuf pointers there, which the burst now owns.
        let ret = unsafe {
            sys::upfb_pktmbuf_alloc_bulk(pool.as_ptr(), spare, n as u32) // n <= N <= u16::MAX
        };
        if ret != 0 {
            return Err(Error::MempoolExhausted {
                requested: n,
                available: pool.available(),
            });
        }
        self.len += n;
        Ok(&mut self[start..])
    }

    /// Allocates `n` mbufs from `pool` into the free slots (one bulk call) and hands each one,
    /// empty with the default headroom, to `init` in turn. Each mbuf is touched in one pass (the
    /// reset and `init`'s writes together), which is what a TX loop filling bursts from templates
    /// wants. All or nothing, as [`MbufBurst::alloc`].
    #[inline]
    pub fn alloc_with(
        &mut self,
        pool: &Mempool<'e>,
        n: usize,
        mut init: impl FnMut(&mut Mbuf<'e>),
    ) -> Result<()> {
        let free = self.free_slots();
        if n > free {
            return Err(Error::BurstFull { requested: n, free });
        }
        let (spare, _) = self.spare_parts();
        // SAFETY: spare has room for free >= n pointers; the pool is a live packet mbuf pool; on
        // success DPDK wrote n valid raw mbufs there, which the burst now owns.
        let ret = unsafe { sys::upfb_mempool_get_bulk(pool.as_ptr(), spare, n as u32) };
        if ret != 0 {
            return Err(Error::MempoolExhausted {
                requested: n,
                available: pool.available(),
            });
        }
        let start = self.len;
        // Counted at once: should `init` panic, the raw mbufs not yet reset are still freed
        // correctly (a raw mbuf is a valid one-segment mbuf).
        self.len += n;
        for slot in &mut self.slots[start..start + n] {
            let mut loan = SlotLoan::new(slot);
            loan.mbuf.reset_raw();
            init(&mut loan.mbuf);
        }
        Ok(())
    }

    /// Fills every free slot from `pool`, handing each mbuf to `init`; see
    /// [`MbufBurst::alloc_with`].
    #[inline]
    pub fn fill_with(&mut self, pool: &Mempool<'e>, init: impl FnMut(&mut Mbuf<'e>)) -> Result<()> {
        self.alloc_with(pool, self.free_slots(), init)
    }

    /// Fills every free slot from `pool`; see [`MbufBurst::alloc`].
    #[inline]
    pub fn fill(&mut self, pool: &Mempool<'e>) -> Result<&mut [Mbuf<'e>]> {
        self.alloc(pool, self.free_slots())
    }

    /// Adds an mbuf at the end, or gives it back if the burst is full.
    #[inline]
    pub fn push(&mut self, mbuf: Mbuf<'e>) -> std::result::Result<(), Mbuf<'e>> {
        if self.len == N {
            return Err(mbuf);
        }
        self.slots[self.len] = mbuf.into_raw().as_ptr();
        self.len += 1;
        Ok(())
    }

    /// Takes the last mbuf out.
    #[inline]
    pub fn pop(&mut self) -> Option<Mbuf<'e>> {
        if self.len == 0 {
            return None;
        }
        self.len -= 1;
        let raw = NonNull::new(self.slots[self.len]).expect("held slots are non-null");
        // SAFETY: the slot was owned by the burst and is no longer counted in len.
        Some(unsafe { Mbuf::from_raw(raw) })
    }

    /// Hands every mbuf to `take`, front to back, and leaves the burst empty: for a receiver
    /// that keeps some of what arrived (forwards or queues it) in arrival order. Should `take`
    /// panic, the mbufs not yet handed over leak rather than any being freed twice.
    #[inline]
    pub fn drain_each(&mut self, mut take: impl FnMut(Mbuf<'e>)) {
        let len = self.len;
        self.len = 0;
        for &raw in &self.slots[..len] {
            let raw = NonNull::new(raw).expect("held slots are non-null");
            // SAFETY: the slot was owned by the burst and is no longer counted in len; each slot
            // is read once.
            take(unsafe { Mbuf::from_raw(raw) });
        }
    }

    /// Frees every mbuf held (one bulk call).
    #[inline]
    pub fn clear(&mut self) {
        self.truncate(0);
    }

    /// Frees the mbufs past the first `len` (one bulk call).
    #[inline]
    pub fn truncate(&mut self, len: usize) {
        if len >= self.len {
            return;
        }
        let tail = &mut self.slots[len..self.len];
        self.len = len;
        // SAFETY: the tail slots hold owned mbufs that are no longer counted in len.
        unsafe { sys::rte_pktmbuf_free_bulk(tail.as_mut_ptr(), tail.len() as u32) };
    }

    /// Keeps the mbufs for which `keep` returns true, in order, and frees the others (one bulk
    /// call).
    pub fn retain_mut(&mut self, mut keep: impl FnMut(&mut Mbuf<'e>) -> bool) {
        let mut dropped = [ptr::null_mut::<sys::rte_mbuf>(); N];
        let mut n_dropped = 0;
        let mut kept = 0;
        let len = self.len;
        // Should `keep` panic, the mbufs leak rather than any being freed twice.
        self.len = 0;
        for i in 0..len {
            let slot: *mut *mut sys::rte_mbuf = &mut self.slots[i];
            // SAFETY: slot i (< len) holds an owned mbuf and Mbuf is repr(transparent) over its
            // pointer, so the slot itself is lent to `keep` as the Mbuf; nothing else touches it
            // meanwhile. If `keep` swaps another mbuf in, the slot owns that one.
            let keep_it = keep(unsafe { &mut *slot.cast::<Mbuf<'e>>() });
            let raw = self.slots[i];
            if keep_it {
                self.slots[kept] = raw;
                kept += 1;
            } else {
                dropped[n_dropped] = raw;
                n_dropped += 1;
            }
        }
        self.len = kept;
        if n_dropped > 0 {
            // SAFETY: the dropped mbufs were owned by the burst and are in no slot any more.
            unsafe { sys::rte_pktmbuf_free_bulk(dropped.as_mut_ptr(), n_dropped as u32) };
        }
    }

    /// The held mbufs as the raw pointer array for a burst call, and the count.
    #[inline(always)]
    pub(crate) fn raw_parts(&mut self) -> (*mut *mut sys::rte_mbuf, usize) {
        (self.slots.as_mut_ptr(), self.len)
    }

    /// Records that the first `sent` mbufs were handed to DPDK (which now owns them) and moves the
    /// rest to the front.
    #[inline(always)]
    pub(crate) fn consume_front(&mut self, sent: usize) {
        debug_assert!(sent <= self.len);
        if sent < self.len {
            self.slots.copy_within(sent..self.len, 0);
        }
        self.len -= sent;
    }

    /// The free slots, for a receive call, and how many there are.
    #[inline(always)]
    pub(crate) fn spare_parts(&mut self) -> (*mut *mut sys::rte_mbuf, usize) {
        let len = self.len;
        // SAFETY: len <= N, so the pointer is inside the array or one past its end.
        (unsafe { self.slots.as_mut_ptr().add(len) }, N - len)
    }

    /// Records that DPDK wrote `received` owned mbufs into the free slots.
    #[inline(always)]
    pub(crate) fn grow(&mut self, received: usize) {
        debug_assert!(received <= N - self.len);
        self.len += received;
    }
}

/// The mbuf of one burst slot, lent out as a local value while a closure works on it, and put
/// back into the slot (whichever mbuf the local then holds: the closure may swap it) when the
/// loan ends, also when the closure panics. Held in a local, the mbuf pointer stays in a register
/// across the closure's writes into the mbuf; lent as the slot itself, it would be reloaded from
/// the slot after each of them, since those writes might alias the slot array.
struct SlotLoan<'s, 'e> {
    slot: &'s mut *mut sys::rte_mbuf,
    mbuf: ManuallyDrop<Mbuf<'e>>,
}

impl<'s, 'e> SlotLoan<'s, 'e> {
    /// `slot` must hold an owned, non-null mbuf (a slot counted in the burst's length).
    #[inline(always)]
    fn new(slot: &'s mut *mut sys::rte_mbuf) -> Self {
        let raw = NonNull::new(*slot).expect("held slots are non-null");
        // SAFETY: the slot's mbuf is owned by the burst; the loan takes that ownership over and
        // gives it back to the slot in Drop, and the slot is not used meanwhile (borrowed here).
        let mbuf = ManuallyDrop::new(unsafe { Mbuf::from_raw(raw) });
        SlotLoan { slot, mbuf }
    }
}

impl Drop for SlotLoan<'_, '_> {
    #[inline(always)]
    fn drop(&mut self) {
        *self.slot = self.mbuf.as_raw_ptr();
    }
}

impl<'e, const N: usize> Deref for MbufBurst<'e, N> {
    type Target = [Mbuf<'e>];

    #[inline(always)]
    fn deref(&self) -> &[Mbuf<'e>] {
        // SAFETY: Mbuf is repr(transparent) over NonNull<rte_mbuf>, which has the layout of
        // *mut rte_mbuf; slots[..len] are non-null owned mbufs.
        unsafe { std::slice::from_raw_parts(self.slots.as_ptr().cast::<Mbuf<'e>>(), self.len) }
    }
}

impl<'e, const N: usize> DerefMut for MbufBurst<'e, N> {
    #[inline(always)]
    fn deref_mut(&mut self) -> &mut [Mbuf<'e>] {
        // SAFETY: as for deref; the slice borrows the burst mutably, so swapping or replacing
        // elements through it keeps every slot owned exactly once.
        unsafe {
            std::slice::from_raw_parts_mut(self.slots.as_mut_ptr().cast::<Mbuf<'e>>(), self.len)
        }
    }
}

impl<const N: usize> Drop for MbufBurst<'_, N> {
    fn drop(&mut self) {
        self.clear();
    }
}

impl<const N: usize> std::fmt::Debug for MbufBurst<'_, N> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MbufBurst")
            .field("len", &self.len)
            .field("capacity", &N)
            .finish()
    }
}
