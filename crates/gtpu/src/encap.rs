//! G-PDU encapsulation: outer Ethernet/IPv4/UDP/GTP-U headers written in front of an inner
//! packet already in the buffer, from a template built once per tunnel.

use core::ops::Range;
use std::net::Ipv4Addr;

use crate::checksum;
use crate::error::EmitError;
use crate::ethernet::{self, EthernetRepr, MacAddr};
use crate::header::{self, GtpuHeaderRepr};
use crate::ipv4::{self, Ipv4Repr};
use crate::pdu_session::PduSessionContainer;
use crate::types::{GTPU_PORT, MessageType};
use crate::udp::{self, UdpRepr};
use upfbench_net::Teid;
use upfbench_net::error as net;

/// Offsets of the outer headers in a frame built by an [`Encapsulator`] (the outer IPv4 header
/// has no options).
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

/// Whether the outer UDP checksum is computed or left 0 (allowed over IPv4, RFC 768; usual for
/// GTP-U, and free of a pass over the payload).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum UdpChecksum {
    /// Send 0: no checksum.
    #[default]
    Zero,
    /// Compute it over the pseudo header, the GTP-U message and the inner packet.
    Compute,
}

/// The outer headers of the G-PDUs of one tunnel.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct OuterHeaders {
    /// Ethernet source address.
    pub source_mac: MacAddr,
    /// Ethernet destination address.
    pub(crate) destination_mac: MacAddr,
    /// Outer IPv4 source address (the sending tunnel endpoint).
    pub source: Ipv4Addr,
    /// Outer IPv4 destination address (the receiving tunnel endpoint).
    pub destination: Ipv4Addr,
    /// Outer time to live.
    pub ttl: u8,
    /// Outer DSCP and ECN octet.
    pub dscp_ecn: u8,
    /// Outer IPv4 identification (fixed for all packets of the tunnel).
    pub identification: u16,
    /// Outer DF flag.
    pub dont_fragment: bool,
    /// UDP source port (2152 by default; any port is allowed, TS 29.281 §4.4.2.0).
    pub source_port: u16,
    /// UDP destination port (2152).
    pub destination_port: u16,
    /// Outer UDP checksum policy.
    pub udp_checksum: UdpChecksum,
    /// TEID of the receiving endpoint.
    pub teid: Teid,
    /// PDU Session Container to carry (UL from a gNB, DL from a UPF), if any.
    pub pdu_session_container: Option<PduSessionContainer>,
}

impl OuterHeaders {
    /// Headers with TTL 64, ports 2152, no DF, no UDP checksum and no PDU Session Container.
    pub const fn new(
        source_mac: MacAddr,
        destination_mac: MacAddr,
        source: Ipv4Addr,
        destination: Ipv4Addr,
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
            source_port: GTPU_PORT,
            destination_port: GTPU_PORT,
            udp_checksum: UdpChecksum::Zero,
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

/// Room for the largest outer header set: Ethernet, IPv4, UDP, GTP-U with optional fields and
/// the largest PDU Session Container this crate emits (44 octets).
const TEMPLATE_CAPACITY: usize = 128;

/// Writes the outer headers of one tunnel in front of inner packets: a copy of a precomputed
/// template plus four length fields and the IPv4 checksum (from a precomputed partial sum).
/// No allocation; the inner packet is not touched.
#[derive(Debug, Clone)]
pub struct Encapsulator {
    template: [u8; TEMPLATE_CAPACITY],
    len: usize,
    // One's complement sum of the outer IPv4 header with total length and checksum zero.
    ipv4_sum: u16,
    udp_checksum: UdpChecksum,
    source: Ipv4Addr,
    destination: Ipv4Addr,
}

impl Encapsulator {
    /// Builds the template.
    pub fn new(headers: &OuterHeaders) -> Result<Self, EmitError> {
        let gtpu = headers.gtpu();
        let len = ethernet::HEADER_LEN + ipv4::MIN_HEADER_LEN + udp::HEADER_LEN + gtpu.buffer_len();
        let mut template = [0u8; TEMPLATE_CAPACITY];
        let t = template.get_mut(..len).ok_or(EmitError::BufferTooSmall {
            needed: len,
            available: TEMPLATE_CAPACITY,
        })?;
        EthernetRepr {
            source: headers.source_mac,
            destination: headers.destination_mac,
            ethertype: ethernet::ETHERTYPE_IPV4,
        }
        .emit(t)?;
        Ipv4Repr {
            source: headers.source,
            destination: headers.destination,
            protocol: ipv4::PROTOCOL_UDP,
            payload_len: 0,
            ttl: headers.ttl,
            dscp_ecn: headers.dscp_ecn,
            identification: headers.identification,
            dont_fragment: headers.dont_fragment,
        }
        .emit(&mut t[layout::IPV4..])?;
        UdpRepr {
            source_port: headers.source_port,
            destination_port: headers.destination_port,
        }
        .emit(&mut t[layout::UDP..], 0)?;
        gtpu.emit(&mut t[layout::GTPU..], 0)?;
        // Total length and checksum are per packet: leave them out of the precomputed sum.
        t[layout::IPV4_TOTAL_LENGTH..layout::IPV4_TOTAL_LENGTH + 2].fill(0);
        t[layout::IPV4_CHECKSUM..layout::IPV4_CHECKSUM + 2].fill(0);
        let ipv4_sum = checksum::sum(&t[layout::IPV4..layout::UDP]);
        Ok(Encapsulator {
            template,
            len,
            ipv4_sum,
            udp_checksum: headers.udp_checksum,
            source: headers.source,
            destination: headers.destination,
        })
    }

    /// Length of the outer headers: the headroom each inner packet needs.
    pub fn outer_len(&self) -> usize {
        self.len
    }

    /// The outer UDP checksum policy.
    pub fn udp_checksum(&self) -> UdpChecksum {
        self.udp_checksum
    }

    /// The TEID written into every packet.
    pub fn teid(&self) -> Teid {
        let t = &self.template[layout::TEID..layout::TEID + 4];
        Teid(u32::from_be_bytes([t[0], t[1], t[2], t[3]]))
    }

    /// Changes the TEID written into every packet.
    pub fn set_teid(&mut self, teid: Teid) {
        self.template[layout::TEID..layout::TEID + 4].copy_from_slice(&teid.0.to_be_bytes());
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
        let inner_len = end - start;
        let ip_total = self.len - ethernet::HEADER_LEN + inner_len;
        if ip_total > ipv4::MAX_TOTAL_LEN {
            return Err(EmitError::Net(net::EmitError::PayloadTooLong {
                layer: net::Layer::Ipv4,
                len: inner_len,
                max: ipv4::MAX_TOTAL_LEN - (self.len - ethernet::HEADER_LEN),
            }));
        }
        let frame_start = start - self.len;
        let out = &mut buf[frame_start..end];
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
            let c = checksum::udp_ipv4(self.source, self.destination, &out[layout::UDP..]);
            put16(out, layout::UDP_CHECKSUM, c);
        }
        Ok(frame_start..end)
    }

    /// [`encapsulate`](Self::encapsulate) for a buffer that starts with exactly
    /// [`outer_len`](Self::outer_len) octets of room followed by the inner packet (what an mbuf
    /// prepend gives).
    pub fn encapsulate_prepended(&self, frame: &mut [u8]) -> Result<(), EmitError> {
        let len = frame.len();
        self.encapsulate(frame, self.len.min(len)..len).map(|_| ())
    }
}

/// `dst.copy_from_slice(src)` for headers of 32 to 64 octets (50 and 58 for the usual G-PDUs)
/// as two fixed-size, overlapping 32-octet copies: no call to `memcpy` for a variable length.
#[inline]
fn copy_header(dst: &mut [u8], src: &[u8]) {
    if (32..=64).contains(&dst.len()) && dst.len() == src.len() {
        if let (Some(d), Some(s)) = (dst.first_chunk_mut::<32>(), src.first_chunk::<32>()) {
            *d = *s;
        }
        if let (Some(d), Some(s)) = (dst.last_chunk_mut::<32>(), src.last_chunk::<32>()) {
            *d = *s;
        }
    } else {
        dst.copy_from_slice(src);
    }
}

#[inline]
fn put16(buf: &mut [u8], at: usize, v: u16) {
    buf[at..at + 2].copy_from_slice(&v.to_be_bytes());
}

/// Writes an IPv4/UDP datagram carrying `payload` into the start of `buf` (IPv4 header without
/// options, checksums filled as `udp_checksum` says) and returns its length: the inner packets
/// of G-PDUs, the N6 packets, and the service plane's replies.
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
