//! The service plane's answers, on bytes: what to reply to a frame addressed to one of our
//! interfaces, and what it teaches about the neighbours. No buffer management here: the caller
//! gives an output buffer and sends what was written.
//!
//! - ARP (RFC 826): a request for our address is answered; the sender of any request or reply
//!   that concerns our subnet is learned.
//! - ICMP echo (RFC 792): a request to our address is answered with the same identifier,
//!   sequence and data.
//! - GTP-U (TS 29.281 §7.2): an Echo Request to our address is answered with an Echo Response
//!   (same sequence number, Recovery 0); Error Indications, End Markers and Echo Responses are
//!   counted.
//!
//! IPv6 (Neighbor Discovery, ICMPv6 echo, GTP-U echo) is answered by
//! [`respond6`](super::respond6) for a port that has an IPv6 address ([`respond_port`]).

use std::net::{IpAddr, Ipv4Addr};

use super::respond6::{Interface6, respond_ipv6};
use upfbench_gtpu::{GTPU_PORT, GtpuRepr, Message, UdpChecksum, emit_ipv4_udp};
use upfbench_net::ethernet::{self, ETHERTYPE_ARP, ETHERTYPE_IPV4, ETHERTYPE_IPV6};
use upfbench_net::ipv4::{self, PROTOCOL_ICMP, PROTOCOL_UDP};
use upfbench_net::{
    ArpOperation, ArpPacket, ArpRepr, EthernetFrame, EthernetRepr, Icmpv4Packet, Icmpv4Repr,
    Ipv4Packet, Ipv4Repr, MacAddr, Teid, UdpPacket, UdpRepr, arp,
};

/// One of our interfaces: the address and MAC we answer for on a port.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Interface {
    /// Our MAC on the port.
    pub mac: MacAddr,
    /// Our IPv4 address on the link.
    pub address: Ipv4Addr,
    /// The link's prefix length.
    pub prefix_len: u8,
    /// A second address on the link that ARP answers for (the generator's handover target
    /// gNB on N3), if any.
    pub secondary: Option<Ipv4Addr>,
}

impl Interface {
    /// Whether `ip` (a big-endian integer) is on this interface's subnet.
    #[inline]
    pub fn on_link(&self, ip: u32) -> bool {
        let mask = u32::MAX
            .checked_shl(32 - u32::from(self.prefix_len))
            .unwrap_or(0);
        (ip ^ u32::from(self.address)) & mask == 0
    }
}

/// What a frame was, for the counters.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum Seen {
    /// An ARP request for our address (answered).
    ArpRequest = 0,
    /// An ARP reply (its sender learned when on our subnet).
    ArpReply,
    /// An ARP request for someone else (its sender learned if it is a gratuitous ARP).
    ArpOther,
    /// An ICMP echo request to us (answered).
    IcmpEchoRequest,
    /// Other ICMP.
    IcmpOther,
    /// A GTP-U Echo Request to us (answered).
    GtpuEchoRequest,
    /// A GTP-U Echo Response.
    GtpuEchoResponse,
    /// A GTP-U Error Indication.
    GtpuErrorIndication,
    /// A GTP-U End Marker.
    GtpuEndMarker,
    /// Other GTP-U signalling.
    GtpuOther,
    /// Not for us or not understood.
    Ignored,
    /// An IPv6 Neighbor Solicitation for our address (answered).
    NdpSolicit,
    /// An IPv6 Neighbor Advertisement (its target learned).
    NdpAdvert,
    /// Neighbor Discovery for someone else, or with a hop limit other than 255.
    NdpOther,
    /// An ICMPv6 echo request to us (answered).
    Icmpv6EchoRequest,
    /// Other ICMPv6.
    Icmpv6Other,
    /// A tagged frame whose VLAN is not the port's, or an untagged frame on a tagged port
    /// (dropped).
    OtherVlan,
}

impl Seen {
    /// Number of kinds.
    pub const COUNT: usize = 17;
    /// Names by discriminant.
    pub const NAMES: [&'static str; Self::COUNT] = [
        "arp_request",
        "arp_reply",
        "arp_other",
        "icmp_echo_request",
        "icmp_other",
        "gtpu_echo_request",
        "gtpu_echo_response",
        "gtpu_error_indication",
        "gtpu_end_marker",
        "gtpu_other",
        "ignored",
        "ndp_solicit",
        "ndp_advert",
        "ndp_other",
        "icmpv6_echo_request",
        "icmpv6_other",
        "other_vlan",
    ];
}

/// The outcome of [`respond`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Outcome {
    /// What the frame was.
    pub seen: Seen,
    /// Bytes of reply written into the output buffer, if any.
    pub reply: Option<usize>,
    /// A neighbour learned: (address, MAC).
    pub learned: Option<(IpAddr, MacAddr)>,
}

impl Outcome {
    pub(super) fn seen(seen: Seen) -> Outcome {
        Outcome {
            seen,
            reply: None,
            learned: None,
        }
    }
}

/// Answers `frame`, received on `iface`'s port, into `out`. Never panics.
pub fn respond(iface: &Interface, frame: &[u8], out: &mut [u8]) -> Outcome {
    respond_port(iface, None, frame, out)
}

/// [`respond`] for a port that may also have an IPv6 address `v6`: IPv6 is answered only
/// then, ARP and IPv4 only when `iface` has an IPv4 address (not 0.0.0.0). `frame` is
/// untagged. Never panics.
pub fn respond_port(
    iface: &Interface,
    v6: Option<&Interface6>,
    frame: &[u8],
    out: &mut [u8],
) -> Outcome {
    let Ok(eth) = EthernetFrame::new_checked(frame) else {
        return Outcome::seen(Seen::Ignored);
    };
    let v4 = !iface.address.is_unspecified();
    match (eth.ethertype(), v6) {
        (ETHERTYPE_ARP, _) if v4 => respond_arp(iface, eth.payload(), out),
        (ETHERTYPE_IPV4, _) if v4 => respond_ipv4(iface, &eth, out),
        (ETHERTYPE_IPV6, Some(v6)) => respond_ipv6(iface, v6, &eth, out),
        _ => Outcome::seen(Seen::Ignored),
    }
}

fn respond_arp(iface: &Interface, p: &[u8], out: &mut [u8]) -> Outcome {
    let Ok(arp) = ArpPacket::new_checked(p).and_then(|p| ArpRepr::parse(&p)) else {
        return Outcome::seen(Seen::Ignored);
    };
    let (sha, spa) = (arp.sender_mac, arp.sender_ip);
    let learned = (iface.on_link(u32::from(spa))
        && spa != iface.address
        && Some(spa) != iface.secondary
        && !spa.is_unspecified())
    .then_some((IpAddr::V4(spa), sha));
    let ours = arp.target_ip == iface.address || Some(arp.target_ip) == iface.secondary;
    if arp.operation == ArpOperation::Request && ours {
        let reply = arp_frame(sha, &arp.reply(iface.mac), out);
        return Outcome {
            seen: Seen::ArpRequest,
            reply,
            learned,
        };
    }
    if arp.operation == ArpOperation::Reply {
        return Outcome {
            seen: Seen::ArpReply,
            reply: None,
            learned,
        };
    }
    Outcome {
        seen: Seen::ArpOther,
        reply: None,
        learned: learned.filter(|_| arp.target_ip == spa),
    }
}

/// Writes `arp` from its sender to `destination` in an Ethernet frame and returns its length.
fn arp_frame(destination: MacAddr, arp: &ArpRepr, out: &mut [u8]) -> Option<usize> {
    EthernetRepr {
        source: arp.sender_mac,
        destination,
        ethertype: ETHERTYPE_ARP,
    }
    .emit(out)
    .ok()?;
    arp.emit(out.get_mut(ethernet::HEADER_LEN..)?).ok()?;
    Some(ethernet::HEADER_LEN + arp::PACKET_LEN)
}

/// A broadcast ARP request for `target` from `iface` into `out`; returns its length.
pub fn arp_request(iface: &Interface, target: Ipv4Addr, out: &mut [u8]) -> Option<usize> {
    let request = ArpRepr::request(iface.mac, iface.address, target);
    arp_frame(MacAddr::BROADCAST, &request, out)
}

fn respond_ipv4(iface: &Interface, eth: &EthernetFrame<&[u8]>, out: &mut [u8]) -> Outcome {
    let Ok(ip) = Ipv4Packet::new_checked(eth.payload()) else {
        return Outcome::seen(Seen::Ignored);
    };
    if ip.destination() != iface.address || ip.is_fragment() {
        return Outcome::seen(match ip.protocol() {
            PROTOCOL_ICMP => Seen::IcmpOther,
            _ => Seen::Ignored,
        });
    }
    match ip.protocol() {
        PROTOCOL_ICMP => respond_icmp(iface, eth, &ip, out),
        PROTOCOL_UDP => respond_gtpu(iface, eth, &ip, out),
        _ => Outcome::seen(Seen::Ignored),
    }
}

fn respond_icmp(
    iface: &Interface,
    eth: &EthernetFrame<&[u8]>,
    ip: &Ipv4Packet<&[u8]>,
    out: &mut [u8],
) -> Outcome {
    let request = Icmpv4Packet::new_checked(ip.payload_slice()).and_then(|m| Icmpv4Repr::parse(&m));
    let Ok(Icmpv4Repr::EchoRequest {
        identifier,
        sequence,
        data,
    }) = request
    else {
        return Outcome::seen(Seen::IcmpOther);
    };
    let reply = Icmpv4Repr::EchoReply {
        identifier,
        sequence,
        data,
    };
    let len = ethernet::HEADER_LEN + ipv4::MIN_HEADER_LEN + reply.buffer_len();
    let Some(f) = out.get_mut(..len) else {
        return Outcome::seen(Seen::IcmpEchoRequest);
    };
    let ok = EthernetRepr {
        source: iface.mac,
        destination: eth.source(),
        ethertype: ETHERTYPE_IPV4,
    }
    .emit(f)
    .is_ok()
        && Ipv4Repr {
            source: iface.address,
            destination: ip.source(),
            protocol: PROTOCOL_ICMP,
            payload_len: reply.buffer_len(),
            ttl: 64,
            dscp_ecn: 0,
            identification: ip.identification(),
            dont_fragment: false,
        }
        .emit(&mut f[ethernet::HEADER_LEN..])
        .is_ok()
        && reply
            .emit(&mut f[ethernet::HEADER_LEN + ipv4::MIN_HEADER_LEN..])
            .is_ok();
    Outcome {
        seen: Seen::IcmpEchoRequest,
        reply: ok.then_some(len),
        learned: None,
    }
}

fn respond_gtpu(
    iface: &Interface,
    eth: &EthernetFrame<&[u8]>,
    ip: &Ipv4Packet<&[u8]>,
    out: &mut [u8],
) -> Outcome {
    let Ok(udp) = UdpPacket::new_checked(ip.payload()) else {
        return Outcome::seen(Seen::Ignored);
    };
    if udp.destination_port() != GTPU_PORT {
        return Outcome::seen(Seen::Ignored);
    }
    let response = match echo_response(udp.payload()) {
        Ok(r) => r,
        Err(seen) => return Outcome::seen(seen),
    };
    let reply = udp_reply(
        iface,
        eth.source(),
        ip.source(),
        (GTPU_PORT, udp.source_port()),
        &response,
        out,
    );
    Outcome {
        seen: Seen::GtpuEchoRequest,
        reply,
        learned: None,
    }
}

/// The Echo Response to a GTP-U message on port 2152 (either family), or what the message
/// was when it asks for none.
pub(super) fn echo_response(udp_payload: &[u8]) -> Result<GtpuRepr<'static>, Seen> {
    let Ok(msg) = GtpuRepr::parse_bytes(udp_payload) else {
        return Err(Seen::GtpuOther);
    };
    match msg.message {
        Message::EchoRequest => {}
        Message::EchoResponse { .. } => return Err(Seen::GtpuEchoResponse),
        Message::ErrorIndication { .. } => return Err(Seen::GtpuErrorIndication),
        Message::EndMarker => return Err(Seen::GtpuEndMarker),
        Message::GPdu { .. } => return Err(Seen::GtpuOther),
    }
    Ok(GtpuRepr {
        teid: Teid::ZERO,
        sequence_number: Some(msg.sequence_number.unwrap_or(0)),
        npdu_number: None,
        pdu_session_container: None,
        udp_port: None,
        message: Message::EchoResponse { recovery: 0 },
    })
}

/// Writes Ethernet/IPv4/UDP around a GTP-U message from `iface` to `(mac, ip)`.
fn udp_reply(
    iface: &Interface,
    to_mac: MacAddr,
    to_ip: Ipv4Addr,
    ports: (u16, u16),
    message: &GtpuRepr<'_>,
    out: &mut [u8],
) -> Option<usize> {
    let mut body = [0u8; 64];
    let n = message.buffer_len();
    message.emit(body.get_mut(..n)?).ok()?;
    EthernetRepr {
        source: iface.mac,
        destination: to_mac,
        ethertype: ETHERTYPE_IPV4,
    }
    .emit(out)
    .ok()?;
    let ip = Ipv4Repr::udp(iface.address, to_ip);
    let udp = UdpRepr {
        source_port: ports.0,
        destination_port: ports.1,
    };
    let len = emit_ipv4_udp(
        out.get_mut(ethernet::HEADER_LEN..)?,
        &ip,
        &udp,
        &body[..n],
        UdpChecksum::Zero,
    )
    .ok()?;
    Some(ethernet::HEADER_LEN + len)
}

/// A GTP-U Error Indication (TS 29.281 §7.3.1) for the G-PDU `frame` that arrived on `iface`
/// for the unknown `teid`: to the G-PDU's sender, port 2152, with the G-PDU's source port in a
/// UDP Port extension header, TEID Data I and GTP-U Peer Address (ours) IEs.
pub fn error_indication(
    iface: &Interface,
    frame: &[u8],
    teid: Teid,
    out: &mut [u8],
) -> Option<usize> {
    let eth = EthernetFrame::new_checked(frame).ok()?;
    let ip = Ipv4Packet::new_checked(eth.payload()).ok()?;
    let udp = UdpPacket::new_checked(ip.payload()).ok()?;
    let message = GtpuRepr {
        teid: Teid::ZERO,
        sequence_number: Some(0),
        npdu_number: None,
        pdu_session_container: None,
        udp_port: Some(udp.source_port()),
        message: Message::ErrorIndication {
            teid_data_i: teid,
            peer_address: iface.address.into(),
        },
    };
    udp_reply(
        iface,
        eth.source(),
        ip.source(),
        (GTPU_PORT, GTPU_PORT),
        &message,
        out,
    )
}

/// A GTP-U End Marker (TS 29.281 §7.3.2) on the tunnel (`teid`, `to_ip`): the last packet a
/// UPF sends on a downlink path it switched away from. No sequence number, no IE.
pub fn end_marker(
    iface: &Interface,
    to_mac: MacAddr,
    to_ip: Ipv4Addr,
    teid: Teid,
    out: &mut [u8],
) -> Option<usize> {
    let message = GtpuRepr {
        teid,
        sequence_number: None,
        npdu_number: None,
        pdu_session_container: None,
        udp_port: None,
        message: Message::EndMarker,
    };
    udp_reply(iface, to_mac, to_ip, (GTPU_PORT, GTPU_PORT), &message, out)
}

#[cfg(test)]
mod tests;
