//! Template-prefilled transmit pools: every mbuf holds the whole frame from the pool's creation on,
//! so that sending a packet costs a metadata reset and a few patched bytes, not a frame copy.

use std::ffi::{CString, c_uint, c_void};
use std::marker::PhantomData;
use std::ops::Range;
use std::ptr::NonNull;
use std::sync::atomic::{AtomicU64, Ordering};

use crate::burst::MbufBurst;
use crate::eal::Eal;
use crate::error::{Error, Result};
use crate::mbuf::Mbuf;
use crate::mempool::{HEADROOM, Socket};
use crate::sys;
use crate::vlan::TxVlan;
use crate::written_flag::WRITTEN_FLAG;

/// A pool of transmit mbufs whose data rooms all hold one template frame, written once, into
/// every object, when the pool is created (`rte_pktmbuf_pool_create`, then
/// `rte_mempool_obj_iter`). Sending from it costs per packet a reset of the few mbuf fields a
/// transmit reads and the patching of the per-packet fields, whatever the frame's length: what
/// Pktgen-DPDK and TRex do to reach line rate with whole, correct frames.
///
/// [`TemplatePool::fill`] puts mbufs into an [`MbufBurst`], each one holding the template with
/// the *patch region* (a byte range of the frame chosen at creation: sequence number, tag,
/// timestamp, TEID, addresses, checksums) restored from the template and then handed to a
/// closure, which writes that packet's fields. The burst goes to [`crate::TxQueue::tx_burst`] as
/// any other.
///
/// # Why every frame sent is the template plus its patch
///
/// - Only this type takes mbufs out of the pool, and only through `fill` / `alloc`, which reset
///   the metadata (data offset, lengths, offload flags, packet type, VLAN fields: a packet that
///   was prepended to, adjusted or trimmed last time starts again from the template's offset
///   and length) and restore the patch region before the closure runs. The closure sees the
///   patch region only.
/// - A `TemplatePool` is not a [`crate::Mempool`], so it cannot be given to
///   [`crate::Port::start`]: no PMD receives into it. Mbufs that a PMD has sent go back to the
///   pool they came from (`mbuf->pool`), this one; received mbufs come from the ports' own pools.
/// - The mbufs it hands out are ordinary [`crate::Mbuf`]s: the caller may still write into one
///   (after `fill`, or on the peer of a `net_ring` pair, which receives the very mbufs the other
///   side sent). Every safe accessor that hands out writable packet bytes marks the mbuf as
///   written (a dynamic `ol_flags` bit); `fill` checks that bit, one load from the cache line it
///   writes anyway, and copies the whole template back into a marked mbuf before using it
///   ([`TemplatePool::restored`] counts these). So nothing reachable through the safe API can
///   leave a corrupted frame for a later packet; writing costs a frame copy the next time round.
/// - PMDs read transmit data and do not write it while no offload flag asks for it (`fill`
///   clears them; this crate never calls `rte_eth_tx_prepare`, the one DPDK path that writes
///   pseudo-header checksums into packets). Headers a PMD pushes into the headroom (virtio's)
///   land before the data offset, which `fill` resets: the template starts after the headroom.
/// - Mbufs are never attached to other mbufs' buffers (no clone or attach in this API), so no
///   other mbuf can reach the template's bytes.
/// - A pool whose mbufs ask the port to insert VLAN tags ([`TemplatePool::with_tx_vlan`])
///   may get them back written by the PMD: a PMD without the offload in hardware
///   (`net_af_packet`, virtio, tap) inserts the tag with `rte_vlan_insert`, which prepends 4
///   bytes and moves the Ethernet addresses over the frame's first bytes. Such a pool also
///   restores the whole frame of an mbuf whose data offset moved (one more comparison, on the
///   cache line `fill` reads anyway).
///
/// Its data room is the headroom plus the frame: the mbufs are small, which keeps a burst's mbufs
/// in few cache lines and pages.
///
/// Like [`crate::Mempool`], the DPDK pool lives until EAL is cleaned up (mbufs in flight keep
/// pointing to it); dropping this handle only gives up the ability to take mbufs from it.
///
/// A template pool is no receive pool:
///
/// ```compile_fail,E0308
/// # use upfbench_dpdk::*;
/// # fn f(eal: &Eal, pool: &TemplatePool<'_>) -> Result<()> {
/// let mut port = Port::from_name(eal, "net_null0")?;
/// let started = port.start(&PortConfig::default(), pool)?;
/// # Ok(())
/// # }
/// ```
#[derive(Debug)]
pub struct TemplatePool<'e> {
    raw: NonNull<sys::rte_mempool>,
    frame: Box<[u8]>,
    patch: Range<usize>,
    restored: AtomicU64,
    tx_vlan: TxVlan,
    _eal: PhantomData<&'e Eal>,
}

// SAFETY: rte_mempool operations are multi-producer/multi-consumer safe (per-lcore caches are
// indexed by the calling lcore); the frame is immutable after creation; the counter is atomic.
unsafe impl Send for TemplatePool<'_> {}
// SAFETY: as for Send: every method takes &self and is thread-safe.
unsafe impl Sync for TemplatePool<'_> {}

impl<'e> TemplatePool<'e> {
    /// Creates a pool of `n` mbufs (a power of two minus one uses memory best) with a per-lcore
    /// cache of `cache` (0 for none; at most 512 and n / 1.5) on `socket`, and writes `frame`
    /// into every one of them. `patch` is the byte range of the frame that changes per packet
    /// (restored from `frame` for every packet and handed to [`TemplatePool::fill`]'s closure);
    /// it may be empty.
    ///
    /// [`Error::InvalidTemplate`] if the frame is empty, does not fit in a 16-bit data room after
    /// the headroom, or `patch` is not inside it.
    pub fn new(
        _eal: &'e Eal,
        name: &str,
        n: u32,
        cache: u32,
        frame: &[u8],
        patch: Range<usize>,
        socket: Socket,
    ) -> Result<Self> {
        let data_room = check_template(frame, &patch)?;
        let cname = CString::new(name).map_err(|_| Error::NulByte {
            what: "mempool name",
        })?;
        // SAFETY: EAL is initialised; cname is a valid C string that DPDK copies.
        let raw = unsafe {
            sys::rte_pktmbuf_pool_create(cname.as_ptr(), n, cache, 0, data_room, socket.raw())
        };
        let raw = NonNull::new(raw).ok_or_else(|| Error::last("rte_pktmbuf_pool_create"))?;
        let frame: Box<[u8]> = frame.into();
        let frame_ref: &[u8] = &frame;
        // SAFETY: raw is a live packet mbuf pool whose objects are all initialised mbufs
        // (rte_pktmbuf_init ran on each) with data_room >= HEADROOM + frame.len() bytes of buffer
        // and that nobody has taken yet; the callback only writes into those buffers, and the
        // opaque pointer is to a reference to the frame, alive for the call.
        let written_objects = unsafe {
            sys::rte_mempool_obj_iter(
                raw.as_ptr(),
                Some(write_frame),
                std::ptr::from_ref(&frame_ref).cast_mut().cast::<c_void>(),
            )
        };
        if written_objects != n {
            return Err(Error::InvalidTemplate {
                reason: format!("the frame went into {written_objects} of the {n} mbufs"),
            });
        }
        Ok(TemplatePool {
            raw,
            frame,
            patch,
            restored: AtomicU64::new(0),
            tx_vlan: TxVlan::NONE,
            _eal: PhantomData,
        })
    }

    /// Has every mbuf it hands out ask the port to insert `vlan`'s tags on transmit (the
    /// port's VLAN insert offload): the frame stays untagged in the pool.
    pub fn with_tx_vlan(mut self, vlan: TxVlan) -> Self {
        self.tx_vlan = vlan;
        self
    }

    /// The tags its mbufs ask the port to insert ([`TxVlan::NONE`] for none).
    pub fn tx_vlan(&self) -> TxVlan {
        self.tx_vlan
    }

    /// The template frame.
    pub fn frame(&self) -> &[u8] {
        &self.frame
    }

    /// The byte range of the frame that [`TemplatePool::fill`]'s closure gets.
    pub fn patch_range(&self) -> Range<usize> {
        self.patch.clone()
    }

    /// How many mbufs came back written (see the type's documentation) and had their whole frame
    /// copied back from the template before being handed out again.
    pub fn restored(&self) -> u64 {
        self.restored.load(Ordering::Relaxed)
    }

    /// Free mbufs (those in lcore caches are counted too).
    pub fn available(&self) -> usize {
        // SAFETY: raw is a live pool.
        unsafe { sys::rte_mempool_avail_count(self.raw.as_ptr()) as usize }
    }

    /// Mbufs taken from the pool (in bursts, in flight in ports or rings, held by receivers).
    pub fn in_use(&self) -> usize {
        // SAFETY: raw is a live pool.
        unsafe { sys::rte_mempool_in_use_count(self.raw.as_ptr()) as usize }
    }

    /// Fills every free slot of `burst`; see [`TemplatePool::alloc`].
    #[inline]
    pub fn fill<const N: usize>(
        &self,
        burst: &mut MbufBurst<'e, N>,
        patch: impl FnMut(&mut [u8]),
    ) -> Result<()> {
        self.alloc(burst, burst.free_slots(), patch)
    }

    /// Takes `n` mbufs (one bulk call, all or nothing as [`MbufBurst::alloc`]) into the free slots
    /// of `burst`, each one holding the template frame, and hands each one's patch region, as in
    /// the template, to `patch` in turn (a slice of [`TemplatePool::patch_range`]'s length: its
    /// byte `i` is the frame's byte `patch_range().start + i`).
    ///
    /// Per mbuf, in one pass: the whole frame is copied back only if the mbuf was written since
    /// it was last handed out (or, in a pool with [`TemplatePool::with_tx_vlan`], its data
    /// offset moved); the data offset, lengths, segment count, offload flags, packet type and
    /// VLAN fields are set as for a fresh one-segment packet of the frame's length (the flags
    /// and TCIs of the pool's [`TxVlan`]); the patch region is copied from the template; then
    /// `patch` runs.
    #[inline]
    pub fn alloc<const N: usize>(
        &self,
        burst: &mut MbufBurst<'e, N>,
        n: usize,
        patch: impl FnMut(&mut [u8]),
    ) -> Result<()> {
        self.alloc_with(burst, n, true, patch)
    }

    /// Like [`Self::alloc`], but the patch region is not copied back from the template first:
    /// `patch` sees what the mbuf's previous packet left there and must write every byte it
    /// changes with its absolute value. For patches that only ever write fields (the TX worker's:
    /// TEID, address, checksums computed from the template's values, tag), this saves a copy of
    /// the region per packet. Mbufs written through the safe API are still copied back whole.
    #[inline]
    pub fn alloc_overwriting<const N: usize>(
        &self,
        burst: &mut MbufBurst<'e, N>,
        n: usize,
        patch: impl FnMut(&mut [u8]),
    ) -> Result<()> {
        self.alloc_with(burst, n, false, patch)
    }

    #[inline(always)]
    fn alloc_with<const N: usize>(
        &self,
        burst: &mut MbufBurst<'e, N>,
        n: usize,
        restore_region: bool,
        mut patch: impl FnMut(&mut [u8]),
    ) -> Result<()> {
        let free = burst.free_slots();
        if n > free {
            return Err(Error::BurstFull { requested: n, free });
        }
        let start = burst.len();
        let (spare, _) = burst.spare_parts();
        // SAFETY: spare has room for free >= n pointers; the pool is a live packet mbuf pool; on
        // success DPDK wrote n raw mbufs there (refcnt 1, one segment, next NULL: the state in
        // which mbufs return to a pool), which the burst now owns.
        let ret = unsafe { sys::upfb_mempool_get_bulk(self.raw.as_ptr(), spare, n as u32) };
        if ret != 0 {
            return Err(Error::MempoolExhausted {
                requested: n,
                available: self.available(),
            });
        }
        // Counted at once: should `patch` panic, every mbuf is still a valid one-segment mbuf of
        // this pool, and those not yet prepared keep their written mark.
        burst.grow(n);
        // A pool without tags takes the loop it had before they came, with no per-mbuf test of
        // the data offset: with it, untagged runs sent 0.97 of the rate before the tags
        // (benches/generator_tx.sh, medians of alternating rounds), without it 1.00.
        let mbufs = &mut burst[start..];
        if self.tx_vlan.is_none() {
            self.prepare::<false>(mbufs, restore_region, &mut patch);
        } else {
            self.prepare::<true>(mbufs, restore_region, &mut patch);
        }
        Ok(())
    }

    /// Prepares freshly taken `mbufs` (see [`Self::alloc`]); `VLAN`: whether the pool asks the
    /// port to insert tags, so that a PMD may have prepended them into an mbuf's frame.
    #[inline(always)]
    fn prepare<const VLAN: bool>(
        &self,
        mbufs: &mut [Mbuf<'e>],
        restore_region: bool,
        patch: &mut impl FnMut(&mut [u8]),
    ) {
        let len = self.frame.len() as u16; // checked at creation: HEADROOM + len fits a u16
        let template_patch = &self.frame[self.patch.clone()];
        let vlan = if VLAN { self.tx_vlan } else { TxVlan::NONE };
        for mbuf in mbufs {
            let m = mbuf.raw_mut();
            // SAFETY: a template mbuf is a direct mbuf of this pool (never attached: the API has
            // no attach), so buf_addr is its own buffer of HEADROOM + len or more bytes.
            let data = unsafe { m.buf_addr.cast::<u8>().add(usize::from(HEADROOM)) };
            // A PMD that inserts the tags in software prepends them into the frame's mbuf.
            if (m.ol_flags & WRITTEN_FLAG != 0) | (VLAN && m.data_off != HEADROOM) {
                self.restore(data);
            }
            m.data_off = HEADROOM;
            m.ol_flags = vlan.flags;
            m.__bindgen_anon_1.packet_type = 0;
            m.pkt_len = u32::from(len);
            m.data_len = len;
            m.vlan_tci = vlan.tci;
            m.vlan_tci_outer = vlan.tci_outer;
            // SAFETY: the patch region lies inside the frame (checked at creation), so inside
            // the mbuf's buffer.
            let region_start = unsafe { data.add(self.patch.start) };
            // SAFETY: region_start .. + patch length lies inside the frame (checked at creation),
            // inside the mbuf's buffer, owned by the burst and not otherwise referenced meanwhile.
            let region =
                unsafe { std::slice::from_raw_parts_mut(region_start, template_patch.len()) };
            if restore_region {
                region.copy_from_slice(template_patch);
            }
            patch(region);
        }
    }

    /// Copies the whole frame back into a written mbuf's buffer at `data`.
    #[cold]
    #[inline(never)]
    fn restore(&self, data: *mut u8) {
        // SAFETY: data is the start of the template area of an mbuf of this pool (HEADROOM +
        // frame.len() bytes of buffer) that the caller owns; the frame is a separate allocation.
        unsafe { std::ptr::copy_nonoverlapping(self.frame.as_ptr(), data, self.frame.len()) };
        self.restored.fetch_add(1, Ordering::Relaxed);
    }
}

/// The data room for `frame` (headroom + frame), or why the template cannot be used.
fn check_template(frame: &[u8], patch: &Range<usize>) -> Result<u16> {
    let invalid = |reason: String| Err(Error::InvalidTemplate { reason });
    if frame.is_empty() {
        return invalid("the frame is empty".to_owned());
    }
    let Some(data_room) = u16::try_from(frame.len())
        .ok()
        .and_then(|len| len.checked_add(HEADROOM))
    else {
        return invalid(format!(
            "a frame of {} bytes does not fit in a data room of {} bytes after the {HEADROOM}-byte headroom",
            frame.len(),
            u16::MAX
        ));
    };
    if patch.start > patch.end || patch.end > frame.len() {
        return invalid(format!(
            "the patch region {patch:?} is not inside the {}-byte frame",
            frame.len()
        ));
    }
    Ok(data_room)
}

/// `rte_mempool_obj_iter` callback: writes the frame (`opaque`, a `*const &[u8]`) into the
/// template area of one mbuf (`obj`).
unsafe extern "C" fn write_frame(
    _pool: *mut sys::rte_mempool,
    opaque: *mut c_void,
    obj: *mut c_void,
    _index: c_uint,
) {
    // SAFETY: TemplatePool::new passes a pointer to its frame, alive during the iteration.
    let frame: &[u8] = unsafe { *opaque.cast::<&[u8]>() };
    // SAFETY: obj is an initialised mbuf of the pool, not yet handed out.
    let m = unsafe { &mut *obj.cast::<sys::rte_mbuf>() };
    debug_assert!(usize::from(m.buf_len) >= usize::from(HEADROOM) + frame.len());
    // SAFETY: its buffer holds HEADROOM + frame.len() bytes or more (the pool's data room).
    let area = unsafe { m.buf_addr.cast::<u8>().add(usize::from(HEADROOM)) };
    // SAFETY: area .. + frame.len() is inside that buffer; the frame is a separate allocation.
    unsafe { std::ptr::copy_nonoverlapping(frame.as_ptr(), area, frame.len()) };
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn template_checks_name_what_is_wrong() {
        let frame = [0u8; 64];
        assert_eq!(check_template(&frame, &(42..50)), Ok(HEADROOM + 64));
        assert_eq!(check_template(&frame, &(64..64)), Ok(HEADROOM + 64));
        let reason = |r: Result<u16>| match r {
            Err(Error::InvalidTemplate { reason }) => reason,
            other => panic!("{other:?}"),
        };
        assert_eq!(reason(check_template(&[], &(0..0))), "the frame is empty");
        assert!(reason(check_template(&frame, &(60..65))).contains("60..65"));
        #[allow(clippy::reversed_empty_ranges)]
        let backwards = 50..42;
        assert!(reason(check_template(&frame, &backwards)).contains("50..42"));
        let big = vec![0u8; usize::from(u16::MAX - HEADROOM) + 1];
        assert!(reason(check_template(&big, &(0..0))).contains("does not fit"));
        let biggest = vec![0u8; usize::from(u16::MAX - HEADROOM)];
        assert_eq!(check_template(&biggest, &(0..0)), Ok(u16::MAX));
    }
}
