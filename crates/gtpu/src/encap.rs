//! G-PDU encapsulation: outer Ethernet/IP/UDP/GTP-U headers, IPv4 or IPv6, written in front of
//! an inner packet already in the buffer, from a template built once per tunnel.
//!
//! Over IPv6 the outer UDP checksum is mandatory (RFC 8200 §8.1), so every IPv6 G-PDU pays a
//! pass over the whole datagram, inner packet included, which IPv4 G-PDUs skip by sending 0
//! (docs/performance.md, "Codecs and PFCP", has its cost). The templates
//! ([`PacketTemplate`](crate::PacketTemplate)) avoid that pass by updating the checksum.

use core::ops::Range;
use std::net::{Ipv4Addr, Ipv6Addr};

use crate::checksum;
use crate::error::EmitError;
use crate::ethernet::{self, EthernetRepr, MacAddr};
use crate::family::{IpHeader, TunnelAddress};
use crate::header::{self, GtpuHeaderRepr};
use crate::ipv4::{self, Ipv4Repr};
use crate::ipv6::{self, Ipv6Repr};
use crate::pdu_session::PduSessionContainer;
use crate::types::{GTPU_PORT, MessageType};
use crate::udp::{self, UdpRepr};
use upfbench_net::error as net;
use upfbench_net::{IpFamily, Teid};

/// Offsets of the outer headers in a frame built by an [`Encapsulator`] over IPv4 (the outer
/// IPv4 header has no options).
pub mod layout {
    use crate::{ethernet, header, ipv4, udp};
    /// The outer IPv4 header.
    pub const IPV4: usize = ethernet::HEADER_LEN;
    /// The outer IPv4 total length.
    pub(crate) const IPV4_TOTAL_LENGTH: usize = IPV4 + ipv4::field::TOTAL_LENGTH.start;
    /// The outer IPv4 header checksum.
    pub(crate) const IPV4_CHECKSUM: usize = IPV4 + ipv4::field::CHECKSUM.start;
    /// The outer UDP header.
    pub const UDP: usize = IPV4 + ipv4::MIN_HEADER_LEN;
    /// The outer UDP length.
    pub(crate) const UDP_LENGTH: usize = UDP + udp::field::LENGTH.start;
    /// The outer UDP checksum.
    pub(crate) const UDP_CHECKSUM: usize = UDP + udp::field::CHECKSUM.start;
    /// The GTP-U header.
    pub const GTPU: usize = UDP + udp::HEADER_LEN;
    /// The GTP-U length field.
    pub(crate) const GTPU_LENGTH: usize = GTPU + header::field::LENGTH.start;
    /// The TEID.
    pub const TEID: usize = GTPU + header::field::TEID.start;
}

/// Offsets of the outer headers in a frame built by an [`Encapsulator`] over IPv6 (no
/// extension header): those of [`layout`] 20 octets further.
pub mod layout_v6 {
    use crate::{ethernet, header, ipv6, udp};
    /// The outer IPv6 header.
    pub const IPV6: usize = ethernet::HEADER_LEN;
    /// The outer IPv6 payload length.
    pub(crate) const IPV6_PAYLOAD_LENGTH: usize = IPV6 + ipv6::field::PAYLOAD_LENGTH.start;
    /// The outer UDP header.
    pub const UDP: usize = IPV6 + ipv6::HEADER_LEN;
    /// The outer UDP length.
    pub(crate) const UDP_LENGTH: usize = UDP + udp::field::LENGTH.start;
    /// The outer UDP checksum.
    pub(crate) const UDP_CHECKSUM: usize = UDP + udp::field::CHECKSUM.start;
    /// The GTP-U header.
    pub const GTPU: usize = UDP + udp::HEADER_LEN;
    /// The GTP-U length field.
    pub(crate) const GTPU_LENGTH: usize = GTPU + header::field::LENGTH.start;
    /// The TEID.
    pub const TEID: usize = GTPU + header::field::TEID.start;
}

/// Whether the outer UDP checksum is computed or left 0 (allowed over IPv4, RFC 768; usual for
/// GTP-U, and free of a pass over the payload). Over IPv6 it is always computed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum UdpChecksum {
    /// Send 0: no checksum (IPv4 only).
    #[default]
    Zero,
    /// Compute it over the pseudo header, the GTP-U message and the inner packet.
    Compute,
}

/// The outer headers of the G-PDUs of one tunnel, over IPv4 ([`Ipv4Addr`] endpoints, the
/// default) or IPv6 ([`Ipv6Addr`] endpoints).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct OuterHeaders<A = Ipv4Addr> {
    /// Ethernet source address.
    pub source_mac: MacAddr,
    /// Ethernet destination address.
    pub(crate) destination_mac: MacAddr,
    /// Outer source address (the sending tunnel endpoint).
    pub source: A,
    /// Outer destination address (the receiving tunnel endpoint).
    pub destination: A,
    /// Outer time to live (IPv4) or hop limit (IPv6).
    pub ttl: u8,
    /// Outer DSCP and ECN octet: the IPv4 type of service, the IPv6 traffic class.
    pub dscp_ecn: u8,
    /// Outer IPv4 identification (fixed for all packets of the tunnel; not in IPv6).
    pub identification: u16,
    /// Outer DF flag (IPv4; IPv6 routers never fragment).
    pub dont_fragment: bool,
    /// Outer IPv6 flow label (20 bits; not in IPv4).
    pub flow_label: u32,
    /// UDP source port (2152 by default; any port is allowed, TS 29.281 §4.4.2.0).
    pub source_port: u16,
    /// UDP destination port (2152).
    pub destination_port: u16,
    /// Outer UDP checksum policy; over IPv6 only [`UdpChecksum::Compute`] is accepted.
    pub udp_checksum: UdpChecksum,
    /// TEID of the receiving endpoint.
    pub teid: Teid,
    /// PDU Session Container to carry (UL from a gNB, DL from a UPF), if any.
    pub pdu_session_container: Option<PduSessionContainer>,
}

impl<A: TunnelAddress> OuterHeaders<A> {
    /// Headers with TTL 64, ports 2152, no DF, flow label 0, no PDU Session Container, and the
    /// UDP checksum at 0 over IPv4 and computed over IPv6.
    pub const fn new(
        source_mac: MacAddr,
        destination_mac: MacAddr,
        source: A,
        destination: A,
        teid: Teid,
    ) -> Self {
        OuterHeaders {
            source_mac,
            destination_mac,
            source,
            destination,
            ttl: 64,
            dscp_ecn: 0,
            identification: 0,
            dont_fragment: false,
            flow_label: 0,
            source_port: GTPU_PORT,
            destination_port: GTPU_PORT,
            udp_checksum: match A::FAMILY {
                IpFamily::Ipv4 => UdpChecksum::Zero,
                IpFamily::Ipv6 => UdpChecksum::Compute,
            },
            teid,
            pdu_session_container: None,
        }
    }

    fn gtpu(&self) -> GtpuHeaderRepr {
        GtpuHeaderRepr {
            message_type: MessageType::G_PDU,
            teid: self.teid,
            sequence_number: None,
            npdu_number: None,
            pdu_session_container: self.pdu_session_container,
            udp_port: None,
        }
    }
}

/// Room for the largest outer header set: Ethernet, IPv6, UDP, GTP-U with optional fields and
/// the largest PDU Session Container this crate emits (44 octets).
const TEMPLATE_CAPACITY: usize = 128;

/// Writes the outer headers of one tunnel in front of inner packets: a copy of a precomputed
/// template plus the length fields and the checksums: over IPv4 the header checksum from a
/// precomputed partial sum and the UDP checksum if asked for, over IPv6 the UDP checksum.
/// No allocation; the inner packet is not touched.
#[derive(Debug, Clone)]
pub struct Encapsulator {
    template: [u8; TEMPLATE_CAPACITY],
    len: usize,
    family: IpFamily,
    // One's complement sum of the outer IPv4 header with total length and checksum zero.
    ipv4_sum: u16,
    udp_checksum: UdpChecksum,
    // One's complement sum of the UDP pseudo header's addresses and protocol: the length is
    // added per packet.
    pseudo_sum: u16,
}

impl Encapsulator {
    /// Builds the template. Over IPv6, a UDP checksum of [`UdpChecksum::Zero`] is refused.
    pub fn new<A: TunnelAddress>(headers: &OuterHeaders<A>) -> Result<Self, EmitError> {
        let family = A::FAMILY;
        if family == IpFamily::Ipv6 && headers.udp_checksum == UdpChecksum::Zero {
            return Err(ipv6_needs_udp_checksum());
        }
        let gtpu = headers.gtpu();
        let ip_at = ethernet::HEADER_LEN;
        let udp_at = ip_at + family.header_len();
        let gtpu_at = udp_at + udp::HEADER_LEN;
        let len = gtpu_at + gtpu.buffer_len();
        let mut template = [0u8; TEMPLATE_CAPACITY];
        let t = template.get_mut(..len).ok_or(EmitError::BufferTooSmall {
            needed: len,
            available: TEMPLATE_CAPACITY,
        })?;
        EthernetRepr {
            source: headers.source_mac,
            destination: headers.destination_mac,
            ethertype: family.ethertype(),
        }
        .emit(t)?;
        A::emit_outer_ip(headers, &mut t[ip_at..])?;
        UdpRepr {
            source_port: headers.source_port,
            destination_port: headers.destination_port,
        }
        .emit(&mut t[udp_at..], 0)?;
        gtpu.emit(&mut t[gtpu_at..], 0)?;
        let mut ipv4_sum = 0;
        if family == IpFamily::Ipv4 {
            // Total length and checksum are per packet: leave them out of the precomputed sum.
            t[layout::IPV4_TOTAL_LENGTH..layout::IPV4_TOTAL_LENGTH + 2].fill(0);
            t[layout::IPV4_CHECKSUM..layout::IPV4_CHECKSUM + 2].fill(0);
            ipv4_sum = checksum::sum(&t[layout::IPV4..layout::UDP]);
        }
        Ok(Encapsulator {
            template,
            len,
            family,
            ipv4_sum,
            udp_checksum: headers.udp_checksum,
            pseudo_sum: A::udp_pseudo_sum(headers.source, headers.destination),
        })
    }

    /// Length of the outer headers: the headroom each inner packet needs.
    pub fn outer_len(&self) -> usize {
        self.len
    }

    /// The transport's IP version.
    pub fn family(&self) -> IpFamily {
        self.family
    }

    /// The outer UDP checksum policy.
    pub fn udp_checksum(&self) -> UdpChecksum {
        self.udp_checksum
    }

    /// Offset of the outer UDP header in the frames.
    pub fn udp_offset(&self) -> usize {
        ethernet::HEADER_LEN + self.family.header_len()
    }

    /// Offset of the TEID in the frames.
    pub fn teid_offset(&self) -> usize {
        self.udp_offset() + udp::HEADER_LEN + header::field::TEID.start
    }

    /// The TEID written into every packet.
    pub fn teid(&self) -> Teid {
        let at = self.teid_offset();
        let t = &self.template[at..at + 4];
        Teid(u32::from_be_bytes([t[0], t[1], t[2], t[3]]))
    }

    /// Changes the TEID written into every packet.
    pub fn set_teid(&mut self, teid: Teid) {
        let at = self.teid_offset();
        self.template[at..at + 4].copy_from_slice(&teid.0.to_be_bytes());
    }

    /// Writes the outer headers into `buf` just before the inner packet at `inner`, and returns
    /// the range of the whole frame. `inner.start` must be at least
    /// [`outer_len`](Self::outer_len) (the headroom).
    #[inline]
    pub fn encapsulate(
        &self,
        buf: &mut [u8],
        inner: Range<usize>,
    ) -> Result<Range<usize>, EmitError> {
        let Range { start, end } = inner;
        if start > end || end > buf.len() {
            return Err(EmitError::InnerOutOfBounds {
                start,
                end,
                len: buf.len(),
            });
        }
        if start < self.len {
            return Err(EmitError::HeadroomTooSmall {
                needed: self.len,
                available: start,
            });
        }
        let frame_start = start - self.len;
        let out = &mut buf[frame_start..end];
        match self.family {
            IpFamily::Ipv4 => self.write_ipv4(out, end - start)?,
            IpFamily::Ipv6 => self.write_ipv6(out, end - start)?,
        }
        Ok(frame_start..end)
    }

    /// The outer headers of an IPv4 G-PDU at the start of `out`, the inner packet after them.
    #[inline(always)]
    fn write_ipv4(&self, out: &mut [u8], inner_len: usize) -> Result<(), EmitError> {
        let ip_total = self.len - ethernet::HEADER_LEN + inner_len;
        if ip_total > ipv4::MAX_TOTAL_LEN {
            return Err(EmitError::Net(net::EmitError::PayloadTooLong {
                layer: net::Layer::Ipv4,
                len: inner_len,
                max: ipv4::MAX_TOTAL_LEN - (self.len - ethernet::HEADER_LEN),
            }));
        }
        copy_header(&mut out[..self.len], &self.template[..self.len]);
        let ip_total = ip_total as u16;
        let udp_len = ip_total - ipv4::MIN_HEADER_LEN as u16;
        let gtpu_len = udp_len - (udp::HEADER_LEN + header::MANDATORY_HEADER_LEN) as u16;
        let ip_checksum = !checksum::add(self.ipv4_sum, ip_total);
        put16(out, layout::IPV4_TOTAL_LENGTH, ip_total);
        put16(out, layout::IPV4_CHECKSUM, ip_checksum);
        put16(out, layout::UDP_LENGTH, udp_len);
        put16(out, layout::GTPU_LENGTH, gtpu_len);
        if self.udp_checksum == UdpChecksum::Compute {
            let c = self.outer_udp_checksum(udp_len, &out[layout::UDP..]);
            put16(out, layout::UDP_CHECKSUM, c);
        }
        Ok(())
    }

    /// The outer headers of an IPv6 G-PDU at the start of `out`, the inner packet after them.
    #[inline(always)]
    fn write_ipv6(&self, out: &mut [u8], inner_len: usize) -> Result<(), EmitError> {
        let udp_len = self.len - layout_v6::UDP + inner_len;
        if udp_len > ipv6::MAX_PAYLOAD_LEN {
            return Err(EmitError::Net(net::EmitError::PayloadTooLong {
                layer: net::Layer::Ipv6,
                len: inner_len,
                max: ipv6::MAX_PAYLOAD_LEN - (self.len - layout_v6::UDP),
            }));
        }
        copy_header(&mut out[..self.len], &self.template[..self.len]);
        let udp_len = udp_len as u16;
        let gtpu_len = udp_len - (udp::HEADER_LEN + header::MANDATORY_HEADER_LEN) as u16;
        put16(out, layout_v6::IPV6_PAYLOAD_LENGTH, udp_len);
        put16(out, layout_v6::UDP_LENGTH, udp_len);
        put16(out, layout_v6::GTPU_LENGTH, gtpu_len);
        let c = self.outer_udp_checksum(udp_len, &out[layout_v6::UDP..]);
        put16(out, layout_v6::UDP_CHECKSUM, c);
        Ok(())
    }

    /// The UDP checksum of `segment`, whose checksum field is still 0 (the template's).
    #[inline(always)]
    fn outer_udp_checksum(&self, udp_len: u16, segment: &[u8]) -> u16 {
        let pseudo = checksum::add(self.pseudo_sum, udp_len);
        match !checksum::sum_with(pseudo, segment) {
            0 => 0xffff,
            c => c,
        }
    }

    /// [`encapsulate`](Self::encapsulate) for a buffer that starts with exactly
    /// [`outer_len`](Self::outer_len) octets of room followed by the inner packet (what an mbuf
    /// prepend gives).
    pub fn encapsulate_prepended(&self, frame: &mut [u8]) -> Result<(), EmitError> {
        let len = frame.len();
        self.encapsulate(frame, self.len.min(len)..len).map(|_| ())
    }
}

/// `dst.copy_from_slice(src)` for headers of 32 to 128 octets (50 and 58 for the usual IPv4
/// G-PDUs, 70 and 78 over IPv6) as two fixed-size, overlapping copies of 32 or 64 octets: no
/// call to `memcpy` for a variable length.
#[inline]
fn copy_header(dst: &mut [u8], src: &[u8]) {
    if dst.len() != src.len() {
        dst.copy_from_slice(src);
    } else if (32..=64).contains(&dst.len()) {
        copy_ends::<32>(dst, src);
    } else if (64..=128).contains(&dst.len()) {
        copy_ends::<64>(dst, src);
    } else {
        dst.copy_from_slice(src);
    }
}

/// Copies the first and the last `N` octets of `src` (of `dst`'s length, at least `N`).
#[inline(always)]
fn copy_ends<const N: usize>(dst: &mut [u8], src: &[u8]) {
    if let (Some(d), Some(s)) = (dst.first_chunk_mut::<N>(), src.first_chunk::<N>()) {
        *d = *s;
    }
    if let (Some(d), Some(s)) = (dst.last_chunk_mut::<N>(), src.last_chunk::<N>()) {
        *d = *s;
    }
}

#[inline]
fn put16(buf: &mut [u8], at: usize, v: u16) {
    buf[at..at + 2].copy_from_slice(&v.to_be_bytes());
}

/// Writes an IPv4/UDP datagram carrying `payload` into the start of `buf` (IPv4 header without
/// options, checksums filled as `udp_checksum` says) and returns its length: the inner packets
/// of G-PDUs, the N6 packets, and the service plane's replies. [`emit_ipv6_udp`] writes IPv6
/// ones, [`emit_ip_udp`] either.
pub fn emit_ipv4_udp(
    buf: &mut [u8],
    ipv4: &Ipv4Repr,
    udp: &UdpRepr,
    payload: &[u8],
    udp_checksum: UdpChecksum,
) -> Result<usize, EmitError> {
    let udp_len = udp::HEADER_LEN + payload.len();
    let total = ipv4::MIN_HEADER_LEN + udp_len;
    if total > buf.len() {
        return Err(EmitError::BufferTooSmall {
            needed: total,
            available: buf.len(),
        });
    }
    Ipv4Repr {
        payload_len: udp_len,
        protocol: ipv4::PROTOCOL_UDP,
        ..*ipv4
    }
    .emit(buf)?;
    let seg = &mut buf[ipv4::MIN_HEADER_LEN..total];
    udp.emit(seg, payload.len())?;
    seg[udp::HEADER_LEN..].copy_from_slice(payload);
    if udp_checksum == UdpChecksum::Compute {
        let c = checksum::udp_ipv4(ipv4.source, ipv4.destination, seg);
        put16(seg, udp::field::CHECKSUM.start, c);
    }
    Ok(total)
}

/// Writes an IPv6/UDP datagram carrying `payload` into the start of `buf` (the fixed header,
/// no extension header, the UDP checksum computed: it is mandatory, RFC 8200 §8.1) and returns
/// its length.
pub fn emit_ipv6_udp(
    buf: &mut [u8],
    ipv6: &Ipv6Repr,
    udp: &UdpRepr,
    payload: &[u8],
) -> Result<usize, EmitError> {
    let udp_len = udp::HEADER_LEN + payload.len();
    let total = ipv6::HEADER_LEN + udp_len;
    if total > buf.len() {
        return Err(EmitError::BufferTooSmall {
            needed: total,
            available: buf.len(),
        });
    }
    Ipv6Repr {
        payload_len: udp_len,
        next_header: ipv6::PROTOCOL_UDP,
        ..*ipv6
    }
    .emit(buf)?;
    let seg = &mut buf[ipv6::HEADER_LEN..total];
    udp.emit(seg, payload.len())?;
    seg[udp::HEADER_LEN..].copy_from_slice(payload);
    let c = checksum::udp_ipv6(&ipv6.source, &ipv6.destination, seg);
    put16(seg, udp::field::CHECKSUM.start, c);
    Ok(total)
}

/// [`emit_ipv4_udp`] or [`emit_ipv6_udp`] by the header's type; over IPv6 a UDP checksum of
/// [`UdpChecksum::Zero`] is refused.
pub fn emit_ip_udp<H: IpHeader>(
    buf: &mut [u8],
    ip: &H,
    udp: &UdpRepr,
    payload: &[u8],
    udp_checksum: UdpChecksum,
) -> Result<usize, EmitError> {
    ip.emit_udp(buf, udp, payload, udp_checksum)
}

/// The error of a zero UDP checksum asked for over IPv6.
pub(crate) const fn ipv6_needs_udp_checksum() -> EmitError {
    EmitError::Net(net::EmitError::InvalidField {
        layer: net::Layer::Udp,
        field: "checksum",
        value: 0,
        reason: "is mandatory over IPv6 (RFC 8200 §8.1)",
    })
}

/// The UDP pseudo header sum of two IPv4 addresses and protocol UDP, without the length.
pub(crate) fn ipv4_pseudo_sum(source: Ipv4Addr, destination: Ipv4Addr) -> u16 {
    let (s, d) = (source.octets(), destination.octets());
    let addresses = checksum::sum(&[s[0], s[1], s[2], s[3], d[0], d[1], d[2], d[3]]);
    checksum::add(addresses, u16::from(ipv4::PROTOCOL_UDP))
}

/// The UDP pseudo header sum of two IPv6 addresses and next header UDP, without the length.
pub(crate) fn ipv6_pseudo_sum(source: Ipv6Addr, destination: Ipv6Addr) -> u16 {
    checksum::ipv6_pseudo_header(&source, &destination, ipv6::PROTOCOL_UDP, 0)
}
