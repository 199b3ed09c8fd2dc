//! Whole N3 packets: IPv4/UDP/GTP-U and IPv6/UDP/GTP-U datagrams and Ethernet frames around
//! them, and the decapsulation of G-PDUs.

use std::net::{IpAddr, Ipv4Addr};

use crate::PduSessionContainer;
use crate::error::ParseError;
use crate::ethernet::{self, EthernetFrame};
use crate::header::{self, GtpuPacket, Layout};
use crate::ipv4::Ipv4Packet;
use crate::ipv6::Ipv6Packet;
use crate::types::{GTPU_PORT, MessageType};
use crate::udp::{self, UdpPacket};
use crate::udp_payload::{UdpSpan, check_datagram, check_datagram_of};
use upfbench_net::error as net;
use upfbench_net::{IpFamily, Qfi, Teid};

mod fast_path;

/// Checked views of an IPv4/UDP/GTP-U or IPv6/UDP/GTP-U datagram, the GTP-U message in the UDP
/// payload.
///
/// Parsing checks every header and length and refuses fragments, IPv6 extension headers,
/// protocols other than UDP and destination ports other than 2152; it does not verify
/// checksums (see [`verify_checksums`](Self::verify_checksums)) so that the receive path pays
/// for them only if it wants to. It keeps offsets, not views: the views are rebuilt by the
/// accessors for free.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GtpuDatagram<'a> {
    // From the IP header to the end of the buffer.
    packet: &'a [u8],
    family: IpFamily,
    // Offsets from the IP header; all fit in u32 (a datagram is at most 40 + 65 535 octets).
    udp_offset: u32,
    ip_end: u32,
    udp_end: u32,
    gtpu_end: u32,
    gtpu: Layout,
}

impl<'a> GtpuDatagram<'a> {
    /// Parses a datagram that starts with its IP header, IPv6 if its version is 6, else IPv4.
    /// Offsets in errors count from there.
    #[inline]
    pub fn parse(packet: &'a [u8]) -> Result<Self, ParseError> {
        Self::from_span(packet, check_datagram(packet)?)
    }

    /// Parses a datagram of `family` (the family its EtherType names).
    #[inline]
    pub fn parse_family(packet: &'a [u8], family: IpFamily) -> Result<Self, ParseError> {
        Self::from_span(packet, check_datagram_of(packet, family)?)
    }

    fn from_span(packet: &'a [u8], span: UdpSpan) -> Result<Self, ParseError> {
        let UdpSpan {
            family,
            udp_offset,
            udp_end,
            ip_end,
        } = span;
        let udp = &packet[udp_offset..udp_end];
        let port = u16::from_be_bytes([udp[2], udp[3]]);
        if port != GTPU_PORT {
            return Err(ParseError::UnexpectedPort {
                offset: udp_offset + udp::field::DESTINATION_PORT.start,
                port,
            });
        }
        let gtpu_offset = udp_offset + udp::HEADER_LEN;
        let gtpu =
            header::check(&packet[gtpu_offset..udp_end]).map_err(|e| e.offset_by(gtpu_offset))?;
        let gtpu_len = header::MANDATORY_HEADER_LEN
            + usize::from(u16::from_be_bytes([
                packet[gtpu_offset + 2],
                packet[gtpu_offset + 3],
            ]));
        Ok(GtpuDatagram {
            packet,
            family,
            udp_offset: udp_offset as u32,
            ip_end: ip_end as u32,
            udp_end: udp_end as u32,
            gtpu_end: (gtpu_offset + gtpu_len) as u32,
            gtpu,
        })
    }

    /// The IP version of the transport.
    #[inline]
    pub fn family(&self) -> IpFamily {
        self.family
    }

    /// The IPv4 header view (its payload ends at the total length), if the transport is IPv4.
    #[inline]
    pub fn ipv4(&self) -> Option<Ipv4Packet<&'a [u8]>> {
        (self.family == IpFamily::Ipv4)
            .then(|| Ipv4Packet::new_unchecked(&self.packet[..self.ip_end as usize]))
    }

    /// The IPv6 header view (its payload ends at the payload length), if the transport is
    /// IPv6.
    #[inline]
    pub fn ipv6(&self) -> Option<Ipv6Packet<&'a [u8]>> {
        (self.family == IpFamily::Ipv6)
            .then(|| Ipv6Packet::new_unchecked(&self.packet[..self.ip_end as usize]))
    }

    /// The UDP header view (its payload ends at the UDP length).
    #[inline]
    pub fn udp(&self) -> UdpPacket<&'a [u8]> {
        UdpPacket::new_unchecked(&self.packet[self.udp_offset as usize..self.udp_end as usize])
    }

    /// The GTP-U message view.
    #[inline]
    pub fn gtpu(&self) -> GtpuPacket<&'a [u8]> {
        GtpuPacket::from_checked(
            &self.packet[self.gtpu_offset()..self.udp_end as usize],
            self.gtpu,
        )
    }

    /// Offset of the UDP header from the IP header.
    #[inline]
    pub fn udp_offset(&self) -> usize {
        self.udp_offset as usize
    }

    /// Offset of the GTP-U header from the IP header.
    #[inline]
    pub fn gtpu_offset(&self) -> usize {
        self.udp_offset as usize + udp::HEADER_LEN
    }

    /// Offset of the GTP-U body (a G-PDU's T-PDU) from the IP header.
    #[inline]
    pub fn payload_offset(&self) -> usize {
        self.gtpu_offset() + self.gtpu.header_len as usize
    }

    /// Outer IPv4 source address; 0.0.0.0 over IPv6 ([`source_ip`](Self::source_ip) gives
    /// either).
    #[inline]
    pub fn source(&self) -> Ipv4Addr {
        match self.source_ip() {
            IpAddr::V4(a) => a,
            IpAddr::V6(_) => Ipv4Addr::UNSPECIFIED,
        }
    }

    /// Outer IPv4 destination address; 0.0.0.0 over IPv6
    /// ([`destination_ip`](Self::destination_ip) gives either).
    #[inline]
    pub fn destination(&self) -> Ipv4Addr {
        match self.destination_ip() {
            IpAddr::V4(a) => a,
            IpAddr::V6(_) => Ipv4Addr::UNSPECIFIED,
        }
    }

    /// Outer source address, of either family.
    #[inline]
    pub fn source_ip(&self) -> IpAddr {
        match self.family {
            IpFamily::Ipv4 => IpAddr::V4(Ipv4Packet::new_unchecked(self.packet).source()),
            IpFamily::Ipv6 => IpAddr::V6(Ipv6Packet::new_unchecked(self.packet).source()),
        }
    }

    /// Outer destination address, of either family.
    #[inline]
    pub fn destination_ip(&self) -> IpAddr {
        match self.family {
            IpFamily::Ipv4 => IpAddr::V4(Ipv4Packet::new_unchecked(self.packet).destination()),
            IpFamily::Ipv6 => IpAddr::V6(Ipv6Packet::new_unchecked(self.packet).destination()),
        }
    }

    /// Whether the checksums are right: over IPv4 the header checksum and the UDP checksum if
    /// not zero; over IPv6 the UDP checksum, which must not be zero (RFC 8200 §8.1).
    #[inline]
    pub fn verify_checksums(&self) -> bool {
        let udp = self.udp();
        match (self.ipv4(), self.ipv6()) {
            (Some(ip), _) => {
                ip.verify_checksum() && udp.verify_checksum(ip.source(), ip.destination())
            }
            (None, Some(ip)) => udp.verify_checksum_ipv6(&ip.source(), &ip.destination()),
            (None, None) => false,
        }
    }

    /// The message type of the GTP-U message.
    #[inline]
    pub fn message_type(&self) -> MessageType {
        MessageType(self.packet[self.gtpu_offset() + header::field::MESSAGE_TYPE])
    }

    /// The body of a G-PDU (the inner packet) and its offset from the IP header; an error if
    /// the message is not a G-PDU.
    #[inline]
    pub fn t_pdu(&self) -> Result<(&'a [u8], usize), ParseError> {
        let message_type = self.message_type();
        if message_type != MessageType::G_PDU {
            return Err(ParseError::UnexpectedMessageType {
                offset: self.gtpu_offset() + header::field::MESSAGE_TYPE,
                message_type: message_type.0,
                expected: MessageType::G_PDU.0,
            });
        }
        let start = self.payload_offset();
        Ok((&self.packet[start..self.gtpu_end as usize], start))
    }
}

/// Checked views of an Ethernet II frame that carries an IPv4/UDP/GTP-U or IPv6/UDP/GTP-U
/// datagram (no VLAN tag: a tagged frame is read with
/// [`TaggedEthernetRepr`](upfbench_net::TaggedEthernetRepr) and its payload with
/// [`GtpuDatagram::parse_family`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GtpuFrame<'a> {
    frame: &'a [u8],
    datagram: GtpuDatagram<'a>,
}

impl<'a> GtpuFrame<'a> {
    /// Parses a frame. Offsets in errors count from the start of the frame.
    #[inline]
    pub fn parse(frame: &'a [u8]) -> Result<Self, ParseError> {
        if frame.len() < ethernet::HEADER_LEN {
            return Err(ParseError::Net(net::ParseError::Truncated {
                layer: net::Layer::Ethernet,
                offset: 0,
                needed: ethernet::HEADER_LEN,
                available: frame.len(),
            }));
        }
        let at = ethernet::field::ETHERTYPE.start;
        let ethertype = u16::from_be_bytes([frame[at], frame[at + 1]]);
        let family = match ethertype {
            ethernet::ETHERTYPE_IPV4 => IpFamily::Ipv4,
            ethernet::ETHERTYPE_IPV6 => IpFamily::Ipv6,
            _ => {
                return Err(ParseError::UnexpectedEtherType {
                    offset: at,
                    ethertype,
                });
            }
        };
        let datagram = GtpuDatagram::parse_family(&frame[ethernet::HEADER_LEN..], family)
            .map_err(|e| e.offset_by(ethernet::HEADER_LEN))?;
        Ok(GtpuFrame { frame, datagram })
    }

    /// The Ethernet header view.
    #[inline]
    pub fn ethernet(&self) -> EthernetFrame<&'a [u8]> {
        EthernetFrame::new_unchecked(self.frame)
    }

    /// The IP/UDP/GTP-U datagram; its offsets count from the IP header, which is at
    /// [`ethernet::HEADER_LEN`] in the frame.
    #[inline]
    pub fn datagram(&self) -> &GtpuDatagram<'a> {
        &self.datagram
    }

    /// The GTP-U message view.
    #[inline]
    pub fn gtpu(&self) -> GtpuPacket<&'a [u8]> {
        self.datagram.gtpu()
    }
}

/// A decapsulated G-PDU: the tunnel it came through and the inner packet, a subslice of the
/// frame.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Decapsulated<'a> {
    frame: GtpuFrame<'a>,
    inner: &'a [u8],
    inner_offset: usize,
}

impl<'a> Decapsulated<'a> {
    /// The inner packet (the T-PDU): for user traffic an IPv4 or IPv6 packet.
    #[inline]
    pub fn inner(&self) -> &'a [u8] {
        self.inner
    }

    /// Offset of the inner packet in the frame: what to strip to forward it (the reflector
    /// writes a new Ethernet header in the 14 octets before it).
    #[inline]
    pub fn inner_offset(&self) -> usize {
        self.inner_offset
    }

    /// The TEID the G-PDU was sent to.
    #[inline]
    pub fn teid(&self) -> Teid {
        let at = ethernet::HEADER_LEN + self.frame.datagram.gtpu_offset() + 4;
        let b = &self.frame.frame[at..at + 4];
        Teid(u32::from_be_bytes([b[0], b[1], b[2], b[3]]))
    }

    /// The QFI of the PDU Session Container, if there is one.
    #[inline]
    pub fn qfi(&self) -> Option<Qfi> {
        let at = self.frame.datagram.gtpu.pdu_session_container_at as usize;
        if at == 0 {
            return None;
        }
        let at = ethernet::HEADER_LEN + self.frame.datagram.gtpu_offset() + at + 2;
        Some(Qfi::from_bits(self.frame.frame[at]))
    }

    /// The whole PDU Session Container, if there is one.
    #[inline]
    pub fn pdu_session_container(&self) -> Option<PduSessionContainer> {
        self.frame.gtpu().pdu_session_container()
    }

    /// All the outer headers.
    #[inline]
    pub fn frame(&self) -> &GtpuFrame<'a> {
        &self.frame
    }
}

/// Decapsulates an Ethernet/IPv4/UDP/GTP-U or Ethernet/IPv6/UDP/GTP-U G-PDU frame (TS 29.281
/// §6.1): checks the outer headers and the extension header chain and yields the inner packet
/// without copying. Checksums are not verified ([`GtpuDatagram::verify_checksums`] does that).
///
/// Frames of the shapes UPFs send (IPv4 without options or IPv6 without extension headers, no
/// GTP-U extension header or one PDU Session Container) take a fixed-offset shortcut, IPv4's
/// first; every other frame, and every error, goes through the layer-by-layer parser. All give
/// the same result.
#[inline(always)]
pub fn decapsulate(frame: &[u8]) -> Result<Decapsulated<'_>, ParseError> {
    match fast_path::decapsulate_common(frame) {
        Some(d) => Ok(d),
        None => decapsulate_other(frame),
    }
}

/// The IPv6 shortcut, then the layered parser: out of line, so that the IPv4 path stays as
/// short as it was.
#[inline(never)]
fn decapsulate_other(frame: &[u8]) -> Result<Decapsulated<'_>, ParseError> {
    match fast_path::decapsulate_common_v6(frame) {
        Some(d) => Ok(d),
        None => decapsulate_layered(frame),
    }
}

/// [`decapsulate`] through the layer views only.
#[inline(never)]
fn decapsulate_layered(frame: &[u8]) -> Result<Decapsulated<'_>, ParseError> {
    let parsed = GtpuFrame::parse(frame)?;
    let (inner, offset) = parsed
        .datagram
        .t_pdu()
        .map_err(|e| e.offset_by(ethernet::HEADER_LEN))?;
    Ok(Decapsulated {
        frame: parsed,
        inner,
        inner_offset: ethernet::HEADER_LEN + offset,
    })
}
