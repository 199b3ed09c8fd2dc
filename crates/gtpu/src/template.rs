//! Packet templates for the transmit path: a whole frame built once, copied into each packet
//! buffer and patched per packet (TEID, UE address, measurement tag), the checksums updated
//! incrementally (RFC 1624) rather than recomputed.

use std::net::Ipv4Addr;

use crate::checksum;
use crate::encap::{self, Encapsulator, UdpChecksum, emit_ipv4_udp};
use crate::error::EmitError;
use crate::ethernet::{self, EthernetRepr};
use crate::ipv4::{self, Ipv4Repr};
use crate::udp::{self, UdpRepr};
use upfbench_net::Teid;

/// Which inner address is the UE's: the source of uplink, the destination of downlink.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum UeAddress {
    /// The inner source address (uplink, gNB side).
    Source,
    /// The inner destination address (downlink, data network side).
    Destination,
}

/// What a packet of a template to one UE writes besides its tag
/// ([`PacketTemplate::ue_patch`]): 12 bytes, kept per UE by a transmitter.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct UePatch {
    teid: u32,
    address: u32,
    ipv4_checksum: u16,
    /// The inner UDP checksum's one's-complement sum with this UE's address and without the
    /// template's tag bytes (RFC 1624); 0 when the template's UDP checksum is off.
    udp_sum: u16,
}

/// Where a template's per-packet fields lie in its patch window
/// ([`PacketTemplate::window_patcher`]).
///
/// A transmitter that knows its frames' layout at compile time passes one of the `const`
/// patchers ([`gpdu`](Self::gpdu), [`plain`](Self::plain)) to an inlined loop: the offsets
/// become immediates and the window is bounds-checked once per packet instead of once per
/// field.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WindowPatcher {
    teid: Option<usize>,
    ue: usize,
    ipv4_checksum: usize,
    payload: usize,
    udp_checksum: usize,
    udp_checksum_on: bool,
}

impl WindowPatcher {
    /// The patcher of a G-PDU template ([`PacketTemplate::gpdu`]) whose GTP-U header, with its
    /// optional fields and extension headers, is `gtpu_header_len` bytes, the inner UDP
    /// checksum on or off.
    pub const fn gpdu(gtpu_header_len: usize, ue: UeAddress, udp_checksum_on: bool) -> Self {
        Self::layout(
            Some(encap::layout::TEID),
            encap::layout::GTPU + gtpu_header_len,
            ue,
            udp_checksum_on,
        )
    }

    /// The patcher of a plain template ([`PacketTemplate::plain`]).
    pub const fn plain(ue: UeAddress, udp_checksum_on: bool) -> Self {
        Self::layout(None, ethernet::HEADER_LEN, ue, udp_checksum_on)
    }

    /// The window starts at the TEID, or at the inner IPv4 checksum of a plain frame.
    const fn layout(
        teid_at: Option<usize>,
        inner_ipv4_at: usize,
        ue: UeAddress,
        udp_checksum_on: bool,
    ) -> Self {
        let ipv4_checksum_at = inner_ipv4_at + ipv4::field::CHECKSUM.start;
        let base = match teid_at {
            Some(at) => at,
            None => ipv4_checksum_at,
        };
        let inner_udp_at = inner_ipv4_at + ipv4::MIN_HEADER_LEN;
        WindowPatcher {
            teid: match teid_at {
                Some(at) => Some(at - base),
                None => None,
            },
            ue: ue_offset(inner_ipv4_at, ue) - base,
            ipv4_checksum: ipv4_checksum_at - base,
            payload: inner_udp_at + udp::HEADER_LEN - base,
            udp_checksum: inner_udp_at + udp::field::CHECKSUM.start - base,
            udp_checksum_on,
        }
    }

    /// Length of the window with a tag of `tag_len` bytes.
    pub const fn len(&self, tag_len: usize) -> usize {
        self.payload + tag_len
    }

    /// See [`PacketTemplate::patch_ue`].
    #[inline(always)]
    pub fn patch<const TAG: usize>(&self, window: &mut [u8], ue: &UePatch, tag: &[u8; TAG]) {
        self.patch_summed(window, ue, tag, checksum::word_sum(tag));
    }

    /// [`patch`](Self::patch) with the tag's sum of 16-bit words
    /// ([`checksum::word_sum`]) given: a caller that builds the tag from integers sums them
    /// without reading the bytes back, and hoists the parts that stay the same over a burst.
    #[inline(always)]
    pub fn patch_summed<const TAG: usize>(
        &self,
        window: &mut [u8],
        ue: &UePatch,
        tag: &[u8; TAG],
        tag_sum: u32,
    ) {
        // One check for the whole window; with constant offsets none is left below it.
        let window = &mut window[..self.payload + TAG];
        if let Some(at) = self.teid {
            window[at..at + 4].copy_from_slice(&ue.teid.to_be_bytes());
        }
        window[self.ue..self.ue + 4].copy_from_slice(&ue.address.to_be_bytes());
        put16(window, self.ipv4_checksum, ue.ipv4_checksum);
        window[self.payload..self.payload + TAG].copy_from_slice(tag);
        // The payload starts 8 bytes into the UDP header: an even offset, so the tag's bytes
        // enter the checksum as whole 16-bit words.
        let udp_c = if self.udp_checksum_on {
            checksum::udp_finish_sum(ue.udp_sum, tag_sum)
        } else {
            0
        };
        put16(window, self.udp_checksum, udp_c);
    }
}

/// Offset of the UE's address in a frame whose inner IPv4 header is at `inner_ipv4_at`.
const fn ue_offset(inner_ipv4_at: usize, ue: UeAddress) -> usize {
    inner_ipv4_at
        + match ue {
            UeAddress::Source => ipv4::field::SOURCE.start,
            UeAddress::Destination => ipv4::field::DESTINATION.start,
        }
}

impl UePatch {
    /// The TEID written.
    pub fn teid(&self) -> Teid {
        Teid(self.teid)
    }

    /// The UE address written.
    pub fn address(&self) -> Ipv4Addr {
        Ipv4Addr::from(self.address)
    }
}

/// A frame built once, with the offsets and template values needed to patch it per packet.
///
/// Built at set-up time (it owns its bytes); [`write`](Self::write) and
/// [`stamp`](Self::stamp) allocate nothing.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PacketTemplate {
    bytes: Vec<u8>,
    teid_at: Option<usize>,
    inner_ipv4_at: usize,
    ue_at: usize,
    ue_address: UeAddress,
    inner_udp_at: usize,
    payload_at: usize,
    // The outer UDP header of a G-PDU whose outer checksum is computed: recomputed per packet,
    // since every patch is under it.
    outer_udp_at: Option<usize>,
    ue: u32,
    ipv4_checksum: u16,
    udp_checksum: u16,
}

impl PacketTemplate {
    /// A G-PDU: the inner IPv4/UDP packet carrying `payload`, behind `encap`'s outer headers.
    pub fn gpdu(
        encap: &Encapsulator,
        inner: &Ipv4Repr,
        udp: &UdpRepr,
        payload: &[u8],
        inner_udp_checksum: UdpChecksum,
        ue: UeAddress,
    ) -> Result<Self, EmitError> {
        let outer = encap.outer_len();
        let mut bytes = vec![0u8; outer + ipv4::MIN_HEADER_LEN + udp::HEADER_LEN + payload.len()];
        let inner_len =
            emit_ipv4_udp(&mut bytes[outer..], inner, udp, payload, inner_udp_checksum)?;
        encap.encapsulate(&mut bytes, outer..outer + inner_len)?;
        let outer_udp_at =
            (encap.udp_checksum() == UdpChecksum::Compute).then_some(encap::layout::UDP);
        Ok(Self::new(
            bytes,
            Some(encap::layout::TEID),
            outer,
            ue,
            outer_udp_at,
        ))
    }

    /// A plain Ethernet/IPv4/UDP frame (N6 downlink toward the UE).
    pub fn plain(
        ethernet: &EthernetRepr,
        ipv4: &Ipv4Repr,
        udp: &UdpRepr,
        payload: &[u8],
        udp_checksum: UdpChecksum,
        ue: UeAddress,
    ) -> Result<Self, EmitError> {
        let at = ethernet::HEADER_LEN;
        let mut bytes = vec![0u8; at + ipv4::MIN_HEADER_LEN + udp::HEADER_LEN + payload.len()];
        EthernetRepr {
            ethertype: ethernet::ETHERTYPE_IPV4,
            ..*ethernet
        }
        .emit(&mut bytes)?;
        emit_ipv4_udp(&mut bytes[at..], ipv4, udp, payload, udp_checksum)?;
        Ok(Self::new(bytes, None, at, ue, None))
    }

    fn new(
        bytes: Vec<u8>,
        teid_at: Option<usize>,
        inner_ipv4_at: usize,
        ue: UeAddress,
        outer_udp_at: Option<usize>,
    ) -> Self {
        let ue_at = ue_offset(inner_ipv4_at, ue);
        let inner_udp_at = inner_ipv4_at + ipv4::MIN_HEADER_LEN;
        let u32_at = |at: usize| {
            u32::from_be_bytes([bytes[at], bytes[at + 1], bytes[at + 2], bytes[at + 3]])
        };
        let u16_at = |at: usize| u16::from_be_bytes([bytes[at], bytes[at + 1]]);
        PacketTemplate {
            teid_at,
            inner_ipv4_at,
            ue_at,
            ue_address: ue,
            inner_udp_at,
            payload_at: inner_udp_at + udp::HEADER_LEN,
            outer_udp_at,
            ue: u32_at(ue_at),
            ipv4_checksum: u16_at(inner_ipv4_at + ipv4::field::CHECKSUM.start),
            udp_checksum: u16_at(inner_udp_at + udp::field::CHECKSUM.start),
            bytes,
        }
    }

    /// Length of the frame.
    pub fn len(&self) -> usize {
        self.bytes.len()
    }

    /// Whether the frame is empty (never: it has headers).
    pub fn is_empty(&self) -> bool {
        self.bytes.is_empty()
    }

    /// The frame as built.
    pub fn bytes(&self) -> &[u8] {
        &self.bytes
    }

    /// Offset of the inner IPv4 header in the frame.
    pub fn inner_offset(&self) -> usize {
        self.inner_ipv4_at
    }

    /// Offset of the inner UDP payload (where the tag goes) in the frame.
    pub fn payload_offset(&self) -> usize {
        self.payload_at
    }

    /// Length of the inner UDP payload.
    pub fn payload_len(&self) -> usize {
        self.bytes.len() - self.payload_at
    }

    /// Writes the frame into the start of `dst` with the TEID (ignored for plain frames), the UE
    /// address, and `tag` at the start of the inner payload; returns the frame length.
    #[inline]
    pub fn write(
        &self,
        dst: &mut [u8],
        teid: Teid,
        ue: Ipv4Addr,
        tag: &[u8],
    ) -> Result<usize, EmitError> {
        let n = self.bytes.len();
        let available = dst.len();
        let Some(out) = dst.get_mut(..n) else {
            return Err(EmitError::BufferTooSmall {
                needed: n,
                available,
            });
        };
        let tag_end = self.payload_at + tag.len();
        if tag_end > n {
            return Err(EmitError::BufferTooSmall {
                needed: tag.len(),
                available: self.payload_len(),
            });
        }
        out.copy_from_slice(&self.bytes);
        if let Some(at) = self.teid_at {
            out[at..at + 4].copy_from_slice(&teid.0.to_be_bytes());
        }
        let ue = u32::from(ue);
        out[self.ue_at..self.ue_at + 4].copy_from_slice(&ue.to_be_bytes());
        let ip_c = checksum::update_u32(self.ipv4_checksum, self.ue, ue);
        put16(out, self.inner_ipv4_at + ipv4::field::CHECKSUM.start, ip_c);
        // The UDP checksum covers the address through the pseudo header, and the tag.
        let udp_c = checksum::update_udp_u32(self.udp_checksum, self.ue, ue);
        let udp_c = checksum::update_udp_slices(
            udp_c,
            self.payload_at - self.inner_udp_at,
            &self.bytes[self.payload_at..tag_end],
            tag,
        );
        out[self.payload_at..tag_end].copy_from_slice(tag);
        put16(out, self.inner_udp_at + udp::field::CHECKSUM.start, udp_c);
        self.fill_outer_udp_checksum(out);
        Ok(n)
    }

    /// Overwrites `bytes` at `offset` of the inner payload of a frame [`write`](Self::write)
    /// wrote, updating the inner UDP checksum: for the fields stamped last (the transmit time).
    #[inline]
    pub fn stamp(&self, frame: &mut [u8], offset: usize, bytes: &[u8]) -> Result<(), EmitError> {
        let at = self.payload_at + offset;
        let end = at + bytes.len();
        if end > self.bytes.len() || frame.len() < self.bytes.len() {
            return Err(EmitError::BufferTooSmall {
                needed: end.max(self.bytes.len()),
                available: frame.len().min(self.bytes.len()),
            });
        }
        let c_at = self.inner_udp_at + udp::field::CHECKSUM.start;
        let old_c = u16::from_be_bytes([frame[c_at], frame[c_at + 1]]);
        let c = checksum::update_udp_slices(old_c, at - self.inner_udp_at, &frame[at..end], bytes);
        frame[at..end].copy_from_slice(bytes);
        put16(frame, c_at, c);
        self.fill_outer_udp_checksum(frame);
        Ok(())
    }

    /// Offset of the UE address in the frame.
    pub fn ue_offset(&self) -> usize {
        self.ue_at
    }

    /// The byte range of the frame that [`patch`](Self::patch) writes for a tag of `tag_len`
    /// bytes: from the TEID (or the inner IPv4 checksum of a plain frame) to the end of the tag.
    /// `None` when the outer UDP checksum is computed: it covers the whole G-PDU and cannot be
    /// patched within a window.
    pub fn patch_range(&self, tag_len: usize) -> Option<core::ops::Range<usize>> {
        if self.outer_udp_at.is_some() || self.payload_at + tag_len > self.bytes.len() {
            return None;
        }
        let start = self
            .teid_at
            .unwrap_or(self.inner_ipv4_at + ipv4::field::CHECKSUM.start);
        Some(start..self.payload_at + tag_len)
    }

    /// What a packet of this template to `ue` (in tunnel `teid`) writes besides its tag of
    /// `TAG` bytes, computed once per UE: then [`Self::patch_ue`] per packet only adds the tag
    /// to a checksum.
    pub fn ue_patch<const TAG: usize>(&self, teid: Teid, ue: Ipv4Addr) -> UePatch {
        let ue = u32::from(ue);
        let template_tag = self
            .bytes
            .get(self.payload_at..self.payload_at + TAG)
            .and_then(|t| <&[u8; TAG]>::try_from(t).ok());
        let udp_sum = match template_tag {
            Some(t) if self.udp_checksum != 0 => {
                checksum::udp_sum_without(self.udp_checksum, self.ue, ue, t)
            }
            _ => 0,
        };
        UePatch {
            teid: teid.0,
            address: ue,
            ipv4_checksum: checksum::update_u32(self.ipv4_checksum, self.ue, ue),
            udp_sum,
        }
    }

    /// Patches a window that holds a packet of this template (its bytes of
    /// [`patch_range`](Self::patch_range), offsets relative to the window's start) for the UE
    /// of `ue` and the tag `tag`: the TEID, the UE address, both checksums and the tag. Every
    /// field is written with its absolute value, so the window may hold an earlier packet of
    /// this template as well as the template's bytes.
    #[inline(always)]
    pub fn patch_ue<const TAG: usize>(&self, window: &mut [u8], ue: &UePatch, tag: &[u8; TAG]) {
        self.window_patcher().patch(window, ue, tag);
    }

    /// The offsets [`Self::patch_ue`] writes at, relative to the patch window, as a small
    /// `Copy` value a transmit loop keeps in registers.
    pub fn window_patcher(&self) -> WindowPatcher {
        WindowPatcher::layout(
            self.teid_at,
            self.inner_ipv4_at,
            self.ue_address,
            self.udp_checksum != 0,
        )
    }

    /// [`Self::ue_patch`] and [`Self::patch_ue`] in one (for one-off packets and tests).
    pub fn patch<const TAG: usize>(
        &self,
        window: &mut [u8],
        teid: Teid,
        ue: Ipv4Addr,
        tag: &[u8; TAG],
    ) {
        self.patch_ue(window, &self.ue_patch::<TAG>(teid, ue), tag);
    }

    fn fill_outer_udp_checksum(&self, frame: &mut [u8]) {
        let Some(at) = self.outer_udp_at else { return };
        let n = self.bytes.len();
        let addr = |f: core::ops::Range<usize>| {
            let b = &frame[ethernet::HEADER_LEN + f.start..ethernet::HEADER_LEN + f.end];
            Ipv4Addr::new(b[0], b[1], b[2], b[3])
        };
        let (src, dst) = (addr(ipv4::field::SOURCE), addr(ipv4::field::DESTINATION));
        let c = checksum::udp_ipv4(src, dst, &frame[at..n]);
        put16(frame, at + udp::field::CHECKSUM.start, c);
    }
}

#[inline]
fn put16(buf: &mut [u8], at: usize, v: u16) {
    buf[at..at + 2].copy_from_slice(&v.to_be_bytes());
}
