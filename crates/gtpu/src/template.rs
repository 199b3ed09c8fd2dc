//! Packet templates for the transmit path: a whole frame built once, copied into each packet
//! buffer and patched per packet (TEID, UE address, measurement tag), the checksums updated
//! incrementally (RFC 1624) rather than recomputed: the inner ones, and the outer UDP checksum
//! of a G-PDU when it is computed (always over IPv6).
//!
//! Inner packets and the transport are IPv4 or IPv6, in any combination. The patch window of
//! [`PacketTemplate::patch_ue`] is IPv4's (an inner IPv4 packet in a G-PDU whose outer UDP
//! checksum is 0, or a plain IPv4 frame); the other templates are written whole by
//! [`write`](PacketTemplate::write) and [`write_ipv6`](PacketTemplate::write_ipv6).

use core::ops::Range;
use std::net::{Ipv4Addr, Ipv6Addr};

use crate::checksum;
use crate::encap::{self, Encapsulator, UdpChecksum, emit_ip_udp};
use crate::error::EmitError;
use crate::ethernet::{self, EthernetRepr};
use crate::family::IpHeader;
use crate::ipv4;
use crate::ipv6;
use crate::udp::{self, UdpRepr};
use upfbench_net::{IpFamily, Teid};

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

/// Offset and length of the UE's address in a frame whose inner header of `family` is at
/// `inner_at`.
const fn ue_field(inner_at: usize, family: IpFamily, ue: UeAddress) -> (usize, usize) {
    match family {
        IpFamily::Ipv4 => (ue_offset(inner_at, ue), 4),
        IpFamily::Ipv6 => (
            inner_at
                + match ue {
                    UeAddress::Source => ipv6::field::SOURCE.start,
                    UeAddress::Destination => ipv6::field::DESTINATION.start,
                },
            16,
        ),
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
    inner_family: IpFamily,
    inner_ip_at: usize,
    ue_at: usize,
    ue_len: usize,
    ue_address: UeAddress,
    inner_udp_at: usize,
    payload_at: usize,
    // The outer UDP header of a G-PDU whose outer checksum is computed: updated per packet,
    // since every patch is under it.
    outer_udp_at: Option<usize>,
    // The template's UE address, an IPv4 one in the low 32 bits.
    ue: u128,
    // The inner IPv4 header checksum (0 for IPv6, which has none).
    ipv4_checksum: u16,
    udp_checksum: u16,
}

impl PacketTemplate {
    /// A G-PDU: the inner IPv4/UDP or IPv6/UDP packet carrying `payload`, behind `encap`'s
    /// outer headers (over IPv4 or IPv6). An inner IPv6 packet needs its UDP checksum.
    pub fn gpdu<H: IpHeader>(
        encap: &Encapsulator,
        inner: &H,
        udp: &UdpRepr,
        payload: &[u8],
        inner_udp_checksum: UdpChecksum,
        ue: UeAddress,
    ) -> Result<Self, EmitError> {
        let outer = encap.outer_len();
        let inner_len = H::FAMILY.header_len() + udp::HEADER_LEN + payload.len();
        let mut bytes = vec![0u8; outer + inner_len];
        emit_ip_udp(&mut bytes[outer..], inner, udp, payload, inner_udp_checksum)?;
        encap.encapsulate(&mut bytes, outer..outer + inner_len)?;
        let outer_udp_at =
            (encap.udp_checksum() == UdpChecksum::Compute).then_some(encap.udp_offset());
        Ok(Self::new(
            bytes,
            Some(encap.teid_offset()),
            (outer, H::FAMILY),
            ue,
            outer_udp_at,
        ))
    }

    /// A plain Ethernet/IPv4/UDP or Ethernet/IPv6/UDP frame (N6 downlink toward the UE); the
    /// EtherType is the header's. An IPv6 packet needs its UDP checksum.
    pub fn plain<H: IpHeader>(
        ethernet: &EthernetRepr,
        ip: &H,
        udp: &UdpRepr,
        payload: &[u8],
        udp_checksum: UdpChecksum,
        ue: UeAddress,
    ) -> Result<Self, EmitError> {
        let at = ethernet::HEADER_LEN;
        let mut bytes = vec![0u8; at + H::FAMILY.header_len() + udp::HEADER_LEN + payload.len()];
        EthernetRepr {
            ethertype: H::FAMILY.ethertype(),
            ..*ethernet
        }
        .emit(&mut bytes)?;
        emit_ip_udp(&mut bytes[at..], ip, udp, payload, udp_checksum)?;
        Ok(Self::new(bytes, None, (at, H::FAMILY), ue, None))
    }

    fn new(
        bytes: Vec<u8>,
        teid_at: Option<usize>,
        (inner_ip_at, inner_family): (usize, IpFamily),
        ue: UeAddress,
        outer_udp_at: Option<usize>,
    ) -> Self {
        let (ue_at, ue_len) = ue_field(inner_ip_at, inner_family, ue);
        let inner_udp_at = inner_ip_at + inner_family.header_len();
        let mut address = [0u8; 16];
        address[16 - ue_len..].copy_from_slice(&bytes[ue_at..ue_at + ue_len]);
        let u16_at = |at: usize| u16::from_be_bytes([bytes[at], bytes[at + 1]]);
        PacketTemplate {
            teid_at,
            inner_family,
            inner_ip_at,
            ue_at,
            ue_len,
            ue_address: ue,
            inner_udp_at,
            payload_at: inner_udp_at + udp::HEADER_LEN,
            outer_udp_at,
            ue: u128::from_be_bytes(address),
            ipv4_checksum: match inner_family {
                IpFamily::Ipv4 => u16_at(inner_ip_at + ipv4::field::CHECKSUM.start),
                IpFamily::Ipv6 => 0,
            },
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

    /// Offset of the inner IP header in the frame.
    pub fn inner_offset(&self) -> usize {
        self.inner_ip_at
    }

    /// The IP version of the inner packets.
    pub fn inner_family(&self) -> IpFamily {
        self.inner_family
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
    /// address, and `tag` at the start of the inner payload; returns the frame length. The
    /// template's inner packets must be IPv4 ([`write_ipv6`](Self::write_ipv6) writes IPv6
    /// ones).
    #[inline]
    pub fn write(
        &self,
        dst: &mut [u8],
        teid: Teid,
        ue: Ipv4Addr,
        tag: &[u8],
    ) -> Result<usize, EmitError> {
        self.check_family(IpFamily::Ipv4)?;
        let (out, tag_end) = self.copy_with_teid(dst, teid, tag)?;
        let (old, ue) = (self.ue as u32, u32::from(ue));
        out[self.ue_at..self.ue_at + 4].copy_from_slice(&ue.to_be_bytes());
        let ip_c = checksum::update_u32(self.ipv4_checksum, old, ue);
        put16(out, self.inner_ip_at + ipv4::field::CHECKSUM.start, ip_c);
        // The UDP checksum covers the address through the pseudo header, and the tag.
        let udp_c = checksum::update_udp_u32(self.udp_checksum, old, ue);
        let written = Written {
            teid: teid.0,
            ue: (old.into(), ue.into()),
            ipv4_checksum: (self.ipv4_checksum, ip_c),
        };
        self.finish_write(out, udp_c, &written, tag, tag_end);
        Ok(out.len())
    }

    /// [`write`](Self::write) for a template whose inner packets are IPv6.
    #[inline]
    pub fn write_ipv6(
        &self,
        dst: &mut [u8],
        teid: Teid,
        ue: Ipv6Addr,
        tag: &[u8],
    ) -> Result<usize, EmitError> {
        self.check_family(IpFamily::Ipv6)?;
        let (out, tag_end) = self.copy_with_teid(dst, teid, tag)?;
        let ue = u128::from(ue);
        out[self.ue_at..self.ue_at + 16].copy_from_slice(&ue.to_be_bytes());
        let udp_c = checksum::update_udp_u128(self.udp_checksum, self.ue, ue);
        let written = Written {
            teid: teid.0,
            ue: (self.ue, ue),
            ipv4_checksum: (0, 0),
        };
        self.finish_write(out, udp_c, &written, tag, tag_end);
        Ok(out.len())
    }

    fn check_family(&self, given: IpFamily) -> Result<(), EmitError> {
        if self.inner_family != given {
            return Err(EmitError::FamilyMismatch {
                template: self.inner_family,
                given,
            });
        }
        Ok(())
    }

    /// The first part of a write: the frame copied into `dst` with the TEID; returns the frame
    /// in `dst` and the end of the tag.
    #[inline(always)]
    fn copy_with_teid<'d>(
        &self,
        dst: &'d mut [u8],
        teid: Teid,
        tag: &[u8],
    ) -> Result<(&'d mut [u8], usize), EmitError> {
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
        Ok((out, tag_end))
    }

    /// The last part of a write: the tag into the inner UDP checksum `udp_c` (the address
    /// already in), both into the frame, and the outer UDP checksum if it is computed.
    #[inline(always)]
    fn finish_write(
        &self,
        out: &mut [u8],
        udp_c: u16,
        written: &Written,
        tag: &[u8],
        tag_end: usize,
    ) {
        let udp_c = checksum::update_udp_slices(
            udp_c,
            self.payload_at - self.inner_udp_at,
            &self.bytes[self.payload_at..tag_end],
            tag,
        );
        out[self.payload_at..tag_end].copy_from_slice(tag);
        put16(out, self.inner_udp_at + udp::field::CHECKSUM.start, udp_c);
        if let Some(at) = self.outer_udp_at {
            self.update_outer_checksum(out, at, written, (udp_c, tag));
        }
    }

    /// The outer UDP checksum (at `outer_udp_at`) of a frame written from the template: RFC
    /// 1624 eqn. 3 with the sums of the old and new 16-bit words of every field written (the
    /// TEID, the UE address, the inner checksums and the tag, all at even offsets from the UDP
    /// header, since the GTP-U header is a multiple of 4 octets long).
    #[inline(always)]
    fn update_outer_checksum(
        &self,
        out: &mut [u8],
        outer_udp_at: usize,
        written: &Written,
        (udp_c, tag): (u16, &[u8]),
    ) {
        let template_teid = self.teid_at.map_or(0, |at| {
            let b = &self.bytes[at..at + 4];
            u32::from_be_bytes([b[0], b[1], b[2], b[3]])
        });
        let template_tag = &self.bytes[self.payload_at..self.payload_at + tag.len()];
        let old = words(written.ue.0)
            + words(template_teid.into())
            + u32::from(written.ipv4_checksum.0)
            + u32::from(self.udp_checksum)
            + slice_words(template_tag);
        let new = words(written.ue.1)
            + words(written.teid.into())
            + u32::from(written.ipv4_checksum.1)
            + u32::from(udp_c)
            + slice_words(tag);
        let c_at = outer_udp_at + udp::field::CHECKSUM.start;
        let c = u16::from_be_bytes([self.bytes[c_at], self.bytes[c_at + 1]]);
        let old = checksum::add((old >> 16) as u16, old as u16);
        put16(
            out,
            c_at,
            checksum::udp_finish_sum(checksum::add(!c, !old), new),
        );
    }

    /// Overwrites `bytes` at `offset` of the inner payload of a frame [`write`](Self::write)
    /// wrote, updating the inner UDP checksum (and the outer one if computed): for the fields
    /// stamped last (the transmit time).
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
        let old_c = [frame[c_at], frame[c_at + 1]];
        let c = checksum::update_udp_slices(
            u16::from_be_bytes(old_c),
            at - self.inner_udp_at,
            &frame[at..end],
            bytes,
        );
        if let Some(outer) = self.outer_udp_at {
            let o_at = outer + udp::field::CHECKSUM.start;
            let o = u16::from_be_bytes([frame[o_at], frame[o_at + 1]]);
            let o = checksum::update_udp_slices(o, at - outer, &frame[at..end], bytes);
            let o = checksum::update_udp(o, c_at - outer, &old_c, &c.to_be_bytes());
            put16(frame, o_at, o);
        }
        frame[at..end].copy_from_slice(bytes);
        put16(frame, c_at, c);
        Ok(())
    }

    /// Offset of the UE address in the frame.
    pub fn ue_offset(&self) -> usize {
        self.ue_at
    }

    /// The byte range of the frame that [`patch`](Self::patch) writes for a tag of `tag_len`
    /// bytes: from the TEID (or the inner IPv4 checksum of a plain frame) to the end of the tag.
    /// `None` when the outer UDP checksum is computed (it covers the whole G-PDU and cannot be
    /// patched within a window: always the case over IPv6) or the inner packets are IPv6 (a
    /// [`UePatch`] holds an IPv4 address): [`write`](Self::write) and
    /// [`write_ipv6`](Self::write_ipv6) write those.
    pub fn patch_range(&self, tag_len: usize) -> Option<Range<usize>> {
        if self.outer_udp_at.is_some()
            || self.inner_family != IpFamily::Ipv4
            || self.payload_at + tag_len > self.bytes.len()
        {
            return None;
        }
        let start = self
            .teid_at
            .unwrap_or(self.inner_ip_at + ipv4::field::CHECKSUM.start);
        Some(start..self.payload_at + tag_len)
    }

    /// What a packet of this template to `ue` (in tunnel `teid`) writes besides its tag of
    /// `TAG` bytes, computed once per UE: then [`Self::patch_ue`] per packet only adds the tag
    /// to a checksum. For the templates that have a [`patch_range`](Self::patch_range).
    pub fn ue_patch<const TAG: usize>(&self, teid: Teid, ue: Ipv4Addr) -> UePatch {
        let ue = u32::from(ue);
        let template_ue = self.ue as u32;
        let template_tag = self
            .bytes
            .get(self.payload_at..self.payload_at + TAG)
            .and_then(|t| <&[u8; TAG]>::try_from(t).ok());
        let udp_sum = match template_tag {
            Some(t) if self.udp_checksum != 0 => {
                checksum::udp_sum_without(self.udp_checksum, template_ue, ue, t)
            }
            _ => 0,
        };
        UePatch {
            teid: teid.0,
            address: ue,
            ipv4_checksum: checksum::update_u32(self.ipv4_checksum, template_ue, ue),
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
    /// `Copy` value a transmit loop keeps in registers. Meaningful for the templates that have a
    /// [`patch_range`](Self::patch_range).
    pub fn window_patcher(&self) -> WindowPatcher {
        WindowPatcher::layout(
            self.teid_at,
            self.inner_ip_at,
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
}

/// The fields a write changed besides the tag, before and after: for the outer UDP checksum.
struct Written {
    /// The TEID written (the template's is in its bytes).
    teid: u32,
    /// The UE address, the template's and the one written (an IPv4 one in the low 32 bits).
    ue: (u128, u128),
    /// The inner IPv4 header checksum, the template's and the one written (0 for IPv6).
    ipv4_checksum: (u16, u16),
}

/// The sum of the 16-bit words of `v`, not folded.
#[inline(always)]
fn words(v: u128) -> u32 {
    (0..8).map(|i| u32::from((v >> (16 * i)) as u16)).sum()
}

/// The sum of the big-endian 16-bit words of `b` (an odd last byte is the high half of a
/// word), not folded.
#[inline(always)]
fn slice_words(b: &[u8]) -> u32 {
    let mut pairs = b.chunks_exact(2);
    let mut acc: u32 = (&mut pairs)
        .map(|w| u32::from(u16::from_be_bytes([w[0], w[1]])))
        .sum();
    if let [last] = pairs.remainder() {
        acc += u32::from(*last) << 8;
    }
    acc
}

#[inline]
fn put16(buf: &mut [u8], at: usize, v: u16) {
    buf[at..at + 2].copy_from_slice(&v.to_be_bytes());
}
