//! The owned packet buffer.

use std::marker::PhantomData;
use std::mem::ManuallyDrop;
use std::ptr::NonNull;

use crate::eal::Eal;
use crate::sys;
use crate::vlan::{StrippedTags, TX_VLAN_FLAGS, TxVlan};
use crate::written_flag::WRITTEN_FLAG;

/// A packet buffer (`struct rte_mbuf`), owned: dropping it returns it to its pool.
///
/// `#[repr(transparent)]` over the C pointer, so that a slice of `Mbuf` is an array of
/// `struct rte_mbuf *` that the burst functions take as is. The lifetime ties it to EAL (or to a
/// started port, for received ones): no mbuf outlives what it came from.
///
/// Data access is for the first segment ([`Mbuf::data`]); lengths that change the end of the packet
/// ([`Mbuf::append`], [`Mbuf::trim`]) act on the last segment, as DPDK's functions do.
#[repr(transparent)]
pub struct Mbuf<'e> {
    raw: NonNull<sys::rte_mbuf>,
    _eal: PhantomData<&'e Eal>,
}

// SAFETY: an Mbuf is the only owner of its rte_mbuf; the mempool it returns to on drop is
// thread-safe. Moving it to another lcore is how packets travel in DPDK.
unsafe impl Send for Mbuf<'_> {}

/// A length change that does not fit in the mbuf.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("{requested} bytes requested, {available} available")]
pub struct NoRoom {
    /// Bytes asked for.
    pub requested: usize,
    /// Bytes there were (headroom, tailroom or data, depending on the call).
    pub available: usize,
}

/// What the NIC found when it checked a checksum on receive (`RTE_MBUF_F_RX_*_CKSUM_*`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RxChecksum {
    /// Not checked.
    Unknown,
    /// Checked and wrong.
    Bad,
    /// Checked and right.
    Good,
    /// The checksum field may be wrong, but the integrity of what it covers was verified
    /// (`..._CKSUM_NONE`).
    NotPresent,
}

impl RxChecksum {
    fn from_flags(flags: u64, bad: u64, good: u64) -> Self {
        match (flags & bad != 0, flags & good != 0) {
            (false, false) => RxChecksum::Unknown,
            (true, false) => RxChecksum::Bad,
            (false, true) => RxChecksum::Good,
            (true, true) => RxChecksum::NotPresent,
        }
    }
}

impl<'e> Mbuf<'e> {
    /// Takes ownership of a raw mbuf.
    ///
    /// # Safety
    /// `raw` points to a valid mbuf that nothing else owns and whose pool lives for `'e`.
    #[inline(always)]
    pub(crate) unsafe fn from_raw(raw: NonNull<sys::rte_mbuf>) -> Self {
        Mbuf {
            raw,
            _eal: PhantomData,
        }
    }

    /// The raw pointer, ownership unchanged.
    #[inline(always)]
    pub(crate) fn as_raw_ptr(&self) -> *mut sys::rte_mbuf {
        self.raw.as_ptr()
    }

    /// Gives up ownership without freeing.
    #[inline(always)]
    pub(crate) fn into_raw(self) -> NonNull<sys::rte_mbuf> {
        ManuallyDrop::new(self).raw
    }

    #[inline(always)]
    fn head(&self) -> &sys::rte_mbuf {
        // SAFETY: raw is a valid mbuf that self owns.
        unsafe { self.raw.as_ref() }
    }

    #[inline(always)]
    fn head_mut(&mut self) -> &mut sys::rte_mbuf {
        // SAFETY: raw is a valid mbuf that self owns exclusively.
        unsafe { self.raw.as_mut() }
    }

    /// The mbuf itself, for the crate's own fast paths (template pools).
    #[inline(always)]
    pub(crate) fn raw_mut(&mut self) -> &mut sys::rte_mbuf {
        self.head_mut()
    }

    /// Marks the packet's bytes as written (see [`WRITTEN_FLAG`]), before writable bytes are
    /// handed out.
    #[inline(always)]
    fn mark_written(&mut self) {
        self.head_mut().ol_flags |= WRITTEN_FLAG;
    }

    /// The last segment (the head itself for a single-segment packet, without touching `next`).
    #[inline(always)]
    fn last_segment(&self) -> NonNull<sys::rte_mbuf> {
        let mut seg = self.raw;
        if self.head().nb_segs > 1 {
            loop {
                // SAFETY: seg is a segment of the chain that self owns.
                let next = unsafe { seg.as_ref().next };
                match NonNull::new(next) {
                    Some(n) => seg = n,
                    None => break,
                }
            }
        }
        seg
    }

    /// Makes a raw mbuf (as a pool hands it out: one segment, `next` NULL, refcnt 1) an empty
    /// packet with the default headroom: `rte_pktmbuf_reset` restricted to the first cache line.
    /// `next` and `nb_segs` are already right in a raw mbuf; `tx_offload` (second cache line) is
    /// left as it was: PMDs read it only under the offload flags cleared here, and
    /// [`Mbuf::request_tx_checksum`] writes it with them.
    #[inline(always)]
    pub(crate) fn reset_raw(&mut self) {
        let m = self.head_mut();
        m.pkt_len = 0;
        m.data_len = 0;
        m.vlan_tci = 0;
        m.vlan_tci_outer = 0;
        m.port = sys::RTE_MBUF_PORT_INVALID as u16;
        m.ol_flags &= sys::RTE_MBUF_F_EXTERNAL;
        m.__bindgen_anon_1.packet_type = 0;
        m.data_off = (sys::RTE_PKTMBUF_HEADROOM as u16).min(m.buf_len);
    }

    /// Packet length, all segments.
    #[inline(always)]
    pub fn len(&self) -> usize {
        self.head().pkt_len as usize
    }

    /// Whether the packet holds no data.
    #[inline(always)]
    pub fn is_empty(&self) -> bool {
        self.head().pkt_len == 0
    }

    /// Number of segments.
    #[inline(always)]
    pub fn segments(&self) -> u16 {
        self.head().nb_segs
    }

    /// Bytes free before the data of the first segment.
    #[inline(always)]
    pub fn headroom(&self) -> usize {
        usize::from(self.head().data_off)
    }

    /// Bytes free after the data of the last segment.
    #[inline]
    pub fn tailroom(&self) -> usize {
        // SAFETY: the last segment belongs to self.
        let last = unsafe { self.last_segment().as_ref() };
        usize::from(last.buf_len) - usize::from(last.data_off) - usize::from(last.data_len)
    }

    /// The data of the first segment (the whole packet unless it is chained).
    #[inline(always)]
    pub fn data(&self) -> &[u8] {
        let m = self.head();
        // SAFETY: data_off is inside the mbuf's buffer.
        let start = unsafe { m.buf_addr.cast::<u8>().add(usize::from(m.data_off)) };
        // SAFETY: start .. start + data_len lies inside the mbuf's buffer, which self owns for as
        // long as the returned borrow.
        unsafe { std::slice::from_raw_parts(start, usize::from(m.data_len)) }
    }

    /// The data of the first segment, writable.
    ///
    /// The mbuf is marked as written: if it came from a [`crate::TemplatePool`], its frame is
    /// restored when the pool hands it out again.
    #[inline(always)]
    pub fn data_mut(&mut self) -> &mut [u8] {
        self.mark_written();
        let m = self.head_mut();
        // SAFETY: data_off is inside the mbuf's buffer.
        let start = unsafe { m.buf_addr.cast::<u8>().add(usize::from(m.data_off)) };
        // SAFETY: as for data(), and self is borrowed mutably, so the slice is the only access.
        unsafe { std::slice::from_raw_parts_mut(start, usize::from(m.data_len)) }
    }

    /// Grows the packet at the front by `n` bytes taken from the headroom and returns them (their
    /// content is whatever the buffer held). `rte_pktmbuf_prepend`. Marks the mbuf as written, as
    /// [`Mbuf::data_mut`] does.
    #[inline]
    pub fn prepend(&mut self, n: usize) -> Result<&mut [u8], NoRoom> {
        let headroom = self.headroom();
        if n > headroom {
            return Err(NoRoom {
                requested: n,
                available: headroom,
            });
        }
        let n16 = n as u16; // n <= data_off, a u16
        let m = self.head_mut();
        m.data_off -= n16;
        m.data_len += n16;
        m.pkt_len += u32::from(n16);
        Ok(&mut self.data_mut()[..n])
    }

    /// Grows the packet at the end by `n` bytes taken from the tailroom of the last segment and
    /// returns them (their content is whatever the buffer held). `rte_pktmbuf_append`. Marks the
    /// mbuf as written, as [`Mbuf::data_mut`] does.
    #[inline]
    pub fn append(&mut self, n: usize) -> Result<&mut [u8], NoRoom> {
        self.mark_written();
        let mut last = self.last_segment();
        // SAFETY: the last segment belongs to self; no other reference to it is alive.
        let seg = unsafe { last.as_mut() };
        let tailroom =
            usize::from(seg.buf_len) - usize::from(seg.data_off) - usize::from(seg.data_len);
        if n > tailroom {
            return Err(NoRoom {
                requested: n,
                available: tailroom,
            });
        }
        let n16 = n as u16; // n <= tailroom, a u16
        let start = usize::from(seg.data_off) + usize::from(seg.data_len);
        seg.data_len += n16;
        // SAFETY: start is inside the last segment's buffer (start + n <= buf_len, checked above).
        let tail = unsafe { seg.buf_addr.cast::<u8>().add(start) };
        // SAFETY: tail .. tail + n lies inside that buffer, owned by self, which stays mutably
        // borrowed for the slice's lifetime.
        let tail = unsafe { std::slice::from_raw_parts_mut(tail, n) };
        self.head_mut().pkt_len += u32::from(n16);
        Ok(tail)
    }

    /// Removes `n` bytes from the front of the first segment. `rte_pktmbuf_adj`.
    #[inline]
    pub fn adj(&mut self, n: usize) -> Result<(), NoRoom> {
        let m = self.head_mut();
        let len = usize::from(m.data_len);
        if n > len {
            return Err(NoRoom {
                requested: n,
                available: len,
            });
        }
        let n16 = n as u16; // n <= data_len, a u16
        m.data_off += n16;
        m.data_len -= n16;
        m.pkt_len -= u32::from(n16);
        Ok(())
    }

    /// Removes `n` bytes from the end of the last segment. `rte_pktmbuf_trim`.
    #[inline]
    pub fn trim(&mut self, n: usize) -> Result<(), NoRoom> {
        let mut last = self.last_segment();
        // SAFETY: the last segment belongs to self; no other reference to it is alive.
        let seg = unsafe { last.as_mut() };
        let len = usize::from(seg.data_len);
        if n > len {
            return Err(NoRoom {
                requested: n,
                available: len,
            });
        }
        let n16 = n as u16; // n <= data_len, a u16
        seg.data_len -= n16;
        self.head_mut().pkt_len -= u32::from(n16);
        Ok(())
    }

    /// Appends `bytes` to the packet ([`Mbuf::append`] and a copy): the way to write a frame from
    /// a template into a fresh mbuf.
    #[inline]
    pub fn extend_from_slice(&mut self, bytes: &[u8]) -> Result<&mut [u8], NoRoom> {
        let out = self.append(bytes.len())?;
        out.copy_from_slice(bytes);
        Ok(out)
    }

    /// The port the packet was received on.
    #[inline(always)]
    pub fn port(&self) -> u16 {
        self.head().port
    }

    /// The RSS hash that the port computed, if it did.
    #[inline(always)]
    pub fn rss_hash(&self) -> Option<u32> {
        let m = self.head();
        // SAFETY: the union's fields are all plain integers: any bits are a valid value.
        let hash = unsafe { m.__bindgen_anon_2.hash };
        // SAFETY: as above, for the inner union.
        let hash = unsafe { hash.rss };
        (m.ol_flags & sys::RTE_MBUF_F_RX_RSS_HASH != 0).then_some(hash)
    }

    /// The receive check of the (outer) IPv4 header checksum.
    #[inline(always)]
    pub fn rx_ip_checksum(&self) -> RxChecksum {
        RxChecksum::from_flags(
            self.head().ol_flags,
            sys::RTE_MBUF_F_RX_IP_CKSUM_BAD,
            sys::RTE_MBUF_F_RX_IP_CKSUM_GOOD,
        )
    }

    /// The receive check of the (outer) L4 checksum.
    #[inline(always)]
    pub fn rx_l4_checksum(&self) -> RxChecksum {
        RxChecksum::from_flags(
            self.head().ol_flags,
            sys::RTE_MBUF_F_RX_L4_CKSUM_BAD,
            sys::RTE_MBUF_F_RX_L4_CKSUM_GOOD,
        )
    }

    /// Asks the port to compute the IPv4 header checksum and/or the UDP checksum of this IPv4
    /// packet on transmit (the port must have been started with the matching
    /// [`crate::Offloads`]). `l2_len` and `l3_len` are the Ethernet and IPv4 header lengths. The
    /// UDP checksum field must hold the pseudo-header checksum, as DPDK requires.
    #[inline]
    pub fn request_tx_checksum(&mut self, l2_len: u8, l3_len: u16, ipv4: bool, udp: bool) {
        let m = self.head_mut();
        let mut flags = sys::RTE_MBUF_F_TX_IPV4;
        if ipv4 {
            flags |= sys::RTE_MBUF_F_TX_IP_CKSUM;
        }
        if udp {
            flags |= sys::RTE_MBUF_F_TX_UDP_CKSUM;
        }
        m.ol_flags =
            (m.ol_flags & !(sys::RTE_MBUF_F_TX_L4_MASK | sys::RTE_MBUF_F_TX_IP_CKSUM)) | flags;
        // tx_offload packs l2_len (7 bits) then l3_len (9 bits), as rte_mbuf_tx_offload() does.
        m.__bindgen_anon_3.tx_offload = u64::from(l2_len & 0x7f) | (u64::from(l3_len & 0x1ff) << 7);
    }
}

impl Mbuf<'_> {
    /// The tags the port stripped from this received frame into the mbuf (none unless it was
    /// started with [`crate::Offloads::rx_vlan_strip`], or strips by itself): the frame's
    /// bytes no longer hold them.
    #[inline(always)]
    pub fn stripped_tags(&self) -> StrippedTags {
        let m = self.head();
        StrippedTags::from_mbuf(m.ol_flags, m.vlan_tci, m.vlan_tci_outer)
    }

    /// Asks the port to insert `vlan`'s tags on transmit (the port must have been started with
    /// [`crate::Offloads::tx_vlan_insert`], and [`crate::Offloads::tx_qinq_insert`] for two),
    /// or none ([`TxVlan::NONE`]). Three stores into the mbuf's first cache line.
    #[inline(always)]
    pub fn set_tx_vlan(&mut self, vlan: &TxVlan) {
        let m = self.head_mut();
        m.ol_flags = (m.ol_flags & !TX_VLAN_FLAGS) | vlan.flags;
        m.vlan_tci = vlan.tci;
        m.vlan_tci_outer = vlan.tci_outer;
    }
}

impl Drop for Mbuf<'_> {
    #[inline]
    fn drop(&mut self) {
        // SAFETY: self owns the mbuf (and its chain) and gives it back exactly once.
        unsafe { sys::upfb_pktmbuf_free(self.raw.as_ptr()) }
    }
}

impl std::fmt::Debug for Mbuf<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Mbuf")
            .field("len", &self.len())
            .field("segments", &self.segments())
            .field("headroom", &self.headroom())
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn checksum_flags_decode_to_the_four_states() {
        let (bad, good) = (
            sys::RTE_MBUF_F_RX_IP_CKSUM_BAD,
            sys::RTE_MBUF_F_RX_IP_CKSUM_GOOD,
        );
        assert_eq!(RxChecksum::from_flags(0, bad, good), RxChecksum::Unknown);
        assert_eq!(RxChecksum::from_flags(bad, bad, good), RxChecksum::Bad);
        assert_eq!(RxChecksum::from_flags(good, bad, good), RxChecksum::Good);
        assert_eq!(
            RxChecksum::from_flags(sys::RTE_MBUF_F_RX_IP_CKSUM_NONE, bad, good),
            RxChecksum::NotPresent
        );
    }

    #[test]
    fn an_mbuf_is_one_pointer() {
        assert_eq!(size_of::<Mbuf<'static>>(), size_of::<*mut sys::rte_mbuf>());
        assert_eq!(size_of::<Option<Mbuf<'static>>>(), size_of::<usize>());
    }
}
