//! Whole N3 packets: IPv4/UDP/GTP-U datagrams and Ethernet frames around them, and the
//! decapsulation of G-PDUs.

use std::net::Ipv4Addr;

use crate::PduSessionContainer;
use crate::error::ParseError;
use crate::ethernet::{self, EthernetFrame};
use crate::header::GtpuPacket;
use crate::ipv4::{self, Ipv4Packet};
use crate::types::{GTPU_PORT, MessageType, Qfi, Teid};
use crate::udp::{self, UdpPacket};

/// Checked views of an IPv4/UDP/GTP-U datagram, the GTP-U message in the UDP payload.
///
/// Parsing checks every header and length and refuses fragments, protocols other than UDP and
/// destination ports other than 2152; it does not verify checksums (see
/// [`verify_checksums`](Self::verify_checksums)) so that the receive path pays for them only if
/// it wants to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GtpuDatagram<'a> {
    ipv4: Ipv4Packet<&'a [u8]>,
    udp: UdpPacket<&'a [u8]>,
    gtpu: GtpuPacket<&'a [u8]>,
    udp_offset: usize,
}

impl<'a> GtpuDatagram<'a> {
    /// Parses a datagram that starts with its IPv4 header. Offsets in errors count from there.
    pub fn parse(packet: &'a [u8]) -> Result<Self, ParseError> {
        let ipv4 = Ipv4Packet::new_checked(packet)?;
        if ipv4.is_fragment() {
            return Err(ParseError::Fragmented {
                offset: 0,
                fragment_offset: ipv4.fragment_offset(),
                more_fragments: ipv4.more_fragments(),
            });
        }
        if ipv4.protocol() != ipv4::PROTOCOL_UDP {
            return Err(ParseError::UnexpectedProtocol {
                offset: ipv4::field::PROTOCOL,
                protocol: ipv4.protocol(),
            });
        }
        let udp_offset = ipv4.header_len();
        let udp =
            UdpPacket::new_checked(ipv4.payload_slice()).map_err(|e| e.offset_by(udp_offset))?;
        if udp.destination_port() != GTPU_PORT {
            return Err(ParseError::UnexpectedPort {
                offset: udp_offset + udp::field::DESTINATION_PORT.start,
                port: udp.destination_port(),
            });
        }
        let gtpu_offset = udp_offset + udp::HEADER_LEN;
        let gtpu =
            GtpuPacket::new_checked(udp.payload_slice()).map_err(|e| e.offset_by(gtpu_offset))?;
        Ok(GtpuDatagram {
            ipv4,
            udp,
            gtpu,
            udp_offset,
        })
    }

    /// The IPv4 header view.
    pub fn ipv4(&self) -> &Ipv4Packet<&'a [u8]> {
        &self.ipv4
    }

    /// The UDP header view.
    pub fn udp(&self) -> &UdpPacket<&'a [u8]> {
        &self.udp
    }

    /// The GTP-U message view.
    pub fn gtpu(&self) -> &GtpuPacket<&'a [u8]> {
        &self.gtpu
    }

    /// Offset of the UDP header from the IPv4 header.
    pub fn udp_offset(&self) -> usize {
        self.udp_offset
    }

    /// Offset of the GTP-U header from the IPv4 header.
    pub fn gtpu_offset(&self) -> usize {
        self.udp_offset + udp::HEADER_LEN
    }

    /// Offset of the GTP-U body (a G-PDU's T-PDU) from the IPv4 header.
    pub fn payload_offset(&self) -> usize {
        self.gtpu_offset() + self.gtpu.header_len()
    }

    /// Outer source address.
    pub fn source(&self) -> Ipv4Addr {
        self.ipv4.source()
    }

    /// Outer destination address.
    pub fn destination(&self) -> Ipv4Addr {
        self.ipv4.destination()
    }

    /// Whether the IPv4 header checksum and the UDP checksum (if not zero) are right.
    pub fn verify_checksums(&self) -> bool {
        self.ipv4.verify_checksum()
            && self
                .udp
                .verify_checksum(self.ipv4.source(), self.ipv4.destination())
    }

    /// The body of a G-PDU (the inner packet) and its offset from the IPv4 header; an error if
    /// the message is not a G-PDU.
    pub fn t_pdu(&self) -> Result<(&'a [u8], usize), ParseError> {
        let message_type = self.gtpu.message_type();
        if message_type != MessageType::G_PDU {
            return Err(ParseError::UnexpectedMessageType {
                offset: self.gtpu_offset() + crate::header::field::MESSAGE_TYPE,
                message_type: message_type.0,
                expected: MessageType::G_PDU.0,
            });
        }
        Ok((self.gtpu.payload_slice(), self.payload_offset()))
    }
}

/// Checked views of an Ethernet II frame that carries an IPv4/UDP/GTP-U datagram.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GtpuFrame<'a> {
    ethernet: EthernetFrame<&'a [u8]>,
    datagram: GtpuDatagram<'a>,
}

impl<'a> GtpuFrame<'a> {
    /// Parses a frame. Offsets in errors count from the start of the frame.
    pub fn parse(frame: &'a [u8]) -> Result<Self, ParseError> {
        let ethernet = EthernetFrame::new_checked(frame)?;
        if ethernet.ethertype() != ethernet::ETHERTYPE_IPV4 {
            return Err(ParseError::UnexpectedEtherType {
                offset: ethernet::field::ETHERTYPE.start,
                ethertype: ethernet.ethertype(),
            });
        }
        let datagram = GtpuDatagram::parse(&frame[ethernet::HEADER_LEN..])
            .map_err(|e| e.offset_by(ethernet::HEADER_LEN))?;
        Ok(GtpuFrame { ethernet, datagram })
    }

    /// The Ethernet header view.
    pub fn ethernet(&self) -> &EthernetFrame<&'a [u8]> {
        &self.ethernet
    }

    /// The IPv4/UDP/GTP-U datagram; its offsets count from the IPv4 header, which is at
    /// [`ethernet::HEADER_LEN`] in the frame.
    pub fn datagram(&self) -> &GtpuDatagram<'a> {
        &self.datagram
    }

    /// The GTP-U message view.
    pub fn gtpu(&self) -> &GtpuPacket<&'a [u8]> {
        &self.datagram.gtpu
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
    /// The inner packet (the T-PDU): for user traffic an IPv4 packet.
    pub fn inner(&self) -> &'a [u8] {
        self.inner
    }

    /// Offset of the inner packet in the frame: what to strip to forward it (the reflector
    /// writes a new Ethernet header in the 14 octets before it).
    pub fn inner_offset(&self) -> usize {
        self.inner_offset
    }

    /// The TEID the G-PDU was sent to.
    pub fn teid(&self) -> Teid {
        self.frame.gtpu().teid()
    }

    /// The QFI of the PDU Session Container, if there is one.
    pub fn qfi(&self) -> Option<Qfi> {
        self.frame.gtpu().qfi()
    }

    /// The whole PDU Session Container, if there is one.
    pub fn pdu_session_container(&self) -> Option<PduSessionContainer> {
        self.frame.gtpu().pdu_session_container()
    }

    /// All the outer headers.
    pub fn frame(&self) -> &GtpuFrame<'a> {
        &self.frame
    }
}

/// Decapsulates an Ethernet/IPv4/UDP/GTP-U G-PDU frame (TS 29.281 §6.1): checks the outer
/// headers and the extension header chain and yields the inner packet without copying.
/// Checksums are not verified ([`GtpuDatagram::verify_checksums`] does that).
pub fn decapsulate(frame: &[u8]) -> Result<Decapsulated<'_>, ParseError> {
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
