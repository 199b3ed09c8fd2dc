//! The frame each stream sends, built once from the plan and the resolved addresses: an uplink
//! G-PDU on N3 (outer Ethernet/IPv4/UDP/GTP-U, optionally a UL PDU Session Container, inner
//! IPv4/UDP from the UE to the data network host) or a downlink frame on N6 (Ethernet/IPv4/UDP
//! from the data network host to the UE). The payload starts with the measurement tag; the rest
//! is zeros. Per packet the TX path patches only the UE, the TEID, the checksums and the tag.
//!
//! IPv6 ([`stream_frame`]): the UE's packets are IPv6 when its address is, the N3 transport is
//! IPv6 when our N3 port and the UPF's have IPv6 addresses ([`Endpoints6`]), in any
//! combination; the UDP checksums over IPv6 are always computed. A tagged port's frames carry
//! its VLAN tags after the Ethernet addresses ([`StreamFrame`]): counted in every length.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};
use std::ops::Range;

use upfbench_gtpu::{
    EmitError, Encapsulator, EthernetRepr, Ipv4Repr, Ipv6Repr, OuterHeaders, PacketTemplate,
    PduSessionContainer, UdpChecksum, UdpRepr, UeAddress,
};
use upfbench_net::ethernet::{self, ETHERTYPE_IPV4};
use upfbench_net::{MacAddr, Qfi, Teid};
use upfbench_stats::Direction;

use upfbench_datapath::queues::Side;
use upfbench_datapath::service::Interface;
use upfbench_datapath::vlan::PortTags;
use upfbench_dpdk::TxVlan;
use upfbench_run::plan::StreamPlan;

/// Our interfaces and the UPF's, as the frames need them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Endpoints {
    /// Our interfaces, by [`Side`].
    pub local: [Interface; 2],
    /// The UPF's N3 address (outer destination of uplink G-PDUs).
    pub upf_n3: Ipv4Addr,
    /// The next hop's MAC on each port (the UPF's, or a router's), by [`Side`].
    pub next_hop_mac: [MacAddr; 2],
    /// The IPv6 addresses, where the ports have them.
    pub v6: Endpoints6,
    /// Each port's VLAN tags, by [`Side`].
    pub tags: [PortTags; 2],
}

/// The IPv6 side of [`Endpoints`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Endpoints6 {
    /// Our N3 address and the UPF's: uplink G-PDUs go over IPv6 when set.
    pub n3: Option<(Ipv6Addr, Ipv6Addr)>,
    /// Our N6 IPv6 address: the data network host of IPv6 UEs.
    pub dn_host: Option<Ipv6Addr>,
}

impl Endpoints6 {
    /// No IPv6 address on either port.
    pub const NONE: Endpoints6 = Endpoints6 {
        n3: None,
        dn_host: None,
    };

    /// The IPv6 side of ports whose addresses are `n3` (ours, the UPF's) and `n6` (ours): N3
    /// over IPv6 when both N3 addresses are IPv6; the data network host of IPv6 UEs N6's IPv6
    /// address, or over an IPv4 N6 [`over_ipv4`](Self::over_ipv4)'s.
    pub fn of_ports(n3: (IpAddr, IpAddr), n6: IpAddr) -> Endpoints6 {
        let n3 = match n3 {
            (IpAddr::V6(ours), IpAddr::V6(upf)) => Some((ours, upf)),
            _ => None,
        };
        let dn_host = match n6 {
            IpAddr::V4(a) => Endpoints6::over_ipv4(a).dn_host,
            IpAddr::V6(a) => Some(a),
        };
        Endpoints6 { n3, dn_host }
    }

    /// Both ports over IPv4, N6's address `n6`: the data network host of IPv6 UEs is that
    /// address in the NAT64 well-known prefix 64:ff9b::/96 (RFC 6052), the address by which an
    /// IPv6 UE reaches an IPv4 host.
    pub fn over_ipv4(n6: Ipv4Addr) -> Endpoints6 {
        let [a, b, c, d] = n6.octets();
        Endpoints6 {
            n3: None,
            dn_host: Some(Ipv6Addr::new(
                0x64,
                0xff9b,
                0,
                0,
                0,
                0,
                u16::from_be_bytes([a, b]),
                u16::from_be_bytes([c, d]),
            )),
        }
    }
}

impl Endpoints {
    /// The data network host the uplink goes to and the downlink comes from: our N6 address.
    pub(crate) fn dn_host(&self) -> Ipv4Addr {
        self.local[Side::N6.index()].address
    }
}

/// A stream's frame as it goes on the wire: the template (untagged: the gtpu crate's offsets)
/// and its bytes with the port's VLAN tags, or untagged with the tags the NIC inserts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StreamFrame {
    /// The untagged template.
    pub template: PacketTemplate,
    /// The frame as handed to the port: the template's bytes with the tags after the addresses
    /// (untagged when the NIC inserts them).
    pub bytes: Vec<u8>,
    /// Octets of tags in `bytes` (0, 4 or 8).
    pub tags_len: usize,
    /// The tags the NIC inserts ([`TxVlan::NONE`] when they are in `bytes`, or none).
    pub tx_vlan: TxVlan,
    /// Octets of tags the NIC inserts.
    inserted_len: usize,
}

impl StreamFrame {
    /// `template` tagged with `tags`: in its bytes, or by the NIC where it inserts them.
    pub fn new(template: PacketTemplate, tags: &PortTags) -> StreamFrame {
        let in_bytes = tags.software_len() != 0;
        StreamFrame {
            bytes: if in_bytes {
                tags.tagged(template.bytes())
            } else {
                template.bytes().to_vec()
            },
            tags_len: tags.software_len(),
            tx_vlan: tags.tx_vlan(),
            inserted_len: tags.len() - tags.software_len(),
            template,
        }
    }

    /// The range a TX pool patches per packet: the template's patch window moved behind the
    /// tags, or, for a template without one (IPv6 inside or outside), the whole frame, written
    /// per packet.
    pub fn patch_range(&self, tag_len: usize) -> Range<usize> {
        match self.template.patch_range(tag_len) {
            Some(r) => r.start + self.tags_len..r.end + self.tags_len,
            None => 0..self.bytes.len(),
        }
    }

    /// Whether each packet is written whole (no patch window).
    pub fn written_whole(&self, tag_len: usize) -> bool {
        self.template.patch_range(tag_len).is_none()
    }

    /// The frame's length on the wire (L2 without FCS, tags included, those the NIC inserts
    /// too).
    pub fn len(&self) -> usize {
        self.bytes.len() + self.inserted_len
    }

    /// Whether it is empty (never).
    pub fn is_empty(&self) -> bool {
        self.bytes.is_empty()
    }

    /// The addresses and tags: what a packet written whole from the untagged template gets back
    /// in front of it.
    pub fn head(&self) -> &[u8] {
        &self.bytes[..ethernet::field::ETHERTYPE.start + self.tags_len]
    }
}

/// The frame of `stream` to UE `ue` (its first UE) of either family, over N3's transport of
/// either family, tagged as its port is: see [`stream_template`] for the rest.
pub fn stream_frame(
    stream: &StreamPlan,
    ue: IpAddr,
    teid: Teid,
    qfi: Option<Qfi>,
    e: &Endpoints,
) -> Result<StreamFrame, EmitError> {
    let side = match stream.direction {
        Direction::Uplink => Side::N3,
        Direction::Downlink => Side::N6,
    };
    // Without an IPv6 address on N6 there is no data network host for IPv6 UEs.
    let dn6 = || {
        e.v6.dn_host.ok_or(EmitError::FamilyMismatch {
            template: upfbench_net::IpFamily::Ipv6,
            given: upfbench_net::IpFamily::Ipv4,
        })
    };
    let template = match (ue, stream.direction) {
        (IpAddr::V4(ue), _) => stream_template(stream, ue, teid, qfi, e)?,
        (IpAddr::V6(ue), Direction::Uplink) => {
            uplink_template(stream, &Ipv6Repr::udp(ue, dn6()?), teid, qfi, e)?
        }
        (IpAddr::V6(ue), Direction::Downlink) => {
            downlink_template(stream, &Ipv6Repr::udp(dn6()?, ue), e)?
        }
    };
    Ok(StreamFrame::new(template, &e.tags[side.index()]))
}

/// An uplink G-PDU carrying `inner`, over N3's transport (IPv6 when [`Endpoints6::n3`] is set).
fn uplink_template<H: upfbench_gtpu::IpHeader>(
    stream: &StreamPlan,
    inner: &H,
    teid: Teid,
    qfi: Option<Qfi>,
    e: &Endpoints,
) -> Result<PacketTemplate, EmitError> {
    let n3 = &e.local[Side::N3.index()];
    let mac = e.next_hop_mac[Side::N3.index()];
    let container = stream
        .pdu_session_container
        .then(|| PduSessionContainer::uplink(stream.qfi.or(qfi).unwrap_or(Qfi::from_bits(0))));
    let encap = match e.v6.n3 {
        Some((ours, upf)) => {
            let mut outer = OuterHeaders::new(n3.mac, mac, ours, upf, teid);
            outer.pdu_session_container = container;
            Encapsulator::new(&outer)?
        }
        None => {
            let mut outer = OuterHeaders::new(n3.mac, mac, n3.address, e.upf_n3, teid);
            outer.pdu_session_container = container;
            Encapsulator::new(&outer)?
        }
    };
    PacketTemplate::gpdu(
        &encap,
        inner,
        &udp_of(stream),
        &vec![0u8; usize::from(stream.payload_len)],
        UdpChecksum::Compute,
        UeAddress::Source,
    )
}

/// A downlink frame on N6 carrying `ip`.
fn downlink_template<H: upfbench_gtpu::IpHeader>(
    stream: &StreamPlan,
    ip: &H,
    e: &Endpoints,
) -> Result<PacketTemplate, EmitError> {
    let n6 = &e.local[Side::N6.index()];
    let eth = EthernetRepr {
        source: n6.mac,
        destination: e.next_hop_mac[Side::N6.index()],
        ethertype: ETHERTYPE_IPV4,
    };
    PacketTemplate::plain(
        &eth,
        ip,
        &udp_of(stream),
        &vec![0u8; usize::from(stream.payload_len)],
        UdpChecksum::Compute,
        UeAddress::Destination,
    )
}

fn udp_of(stream: &StreamPlan) -> UdpRepr {
    UdpRepr {
        source_port: stream.source_port,
        destination_port: stream.destination_port,
    }
}

/// The frame of `stream`, to UE `ue` (its first UE, whose values per packet replace), with
/// `teid` as the uplink TEID and `qfi` in the PDU Session Container when the stream carries one:
/// untagged, over N3's transport (IPv6 when [`Endpoints6::n3`] is set).
pub fn stream_template(
    stream: &StreamPlan,
    ue: Ipv4Addr,
    teid: Teid,
    qfi: Option<Qfi>,
    e: &Endpoints,
) -> Result<PacketTemplate, EmitError> {
    match stream.direction {
        Direction::Uplink => uplink_template(stream, &Ipv4Repr::udp(ue, e.dn_host()), teid, qfi, e),
        Direction::Downlink => downlink_template(stream, &Ipv4Repr::udp(e.dn_host(), ue), e),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_port_brings_its_family() {
        let v6 = |t: &str| t.parse::<Ipv6Addr>().unwrap();
        let (ours, upf) = (v6("2001:db8:13::131"), v6("2001:db8:13::151"));
        let n6 = IpAddr::V6(v6("2001:db8:16::152"));
        let both = Endpoints6::of_ports((ours.into(), upf.into()), n6);
        assert_eq!(both.n3, Some((ours, upf)));
        assert_eq!(
            both.dn_host,
            Some(v6("2001:db8:16::152")),
            "N6's own address"
        );
        let n3_v4 = (
            IpAddr::V4(Ipv4Addr::new(192, 168, 13, 131)),
            IpAddr::V4(Ipv4Addr::new(192, 168, 13, 151)),
        );
        let n3_only = Endpoints6::of_ports(n3_v4, n6);
        assert_eq!(n3_only.n3, None);
        assert_eq!(n3_only.dn_host, both.dn_host);
        let n6_v4 = Ipv4Addr::new(192, 168, 16, 152);
        let none = Endpoints6::of_ports(n3_v4, n6_v4.into());
        assert_eq!(none, Endpoints6::over_ipv4(n6_v4));
        let n6_only = Endpoints6::of_ports((ours.into(), upf.into()), n6_v4.into());
        assert_eq!(n6_only.n3, Some((ours, upf)));
        assert_eq!(
            n6_only.dn_host, none.dn_host,
            "the NAT64 host over an IPv4 N6"
        );
    }

    #[test]
    fn over_ipv4_the_ipv6_host_is_n6s_address_in_the_nat64_prefix() {
        let e = Endpoints6::over_ipv4(Ipv4Addr::new(192, 168, 16, 152));
        assert_eq!(e.n3, None, "N3 stays IPv4");
        assert_eq!(
            e.dn_host,
            Some("64:ff9b::c0a8:1098".parse::<Ipv6Addr>().unwrap())
        );
        let other = Endpoints6::over_ipv4(Ipv4Addr::new(10, 0, 0, 1)).dn_host;
        assert_eq!(other, Some("64:ff9b::a00:1".parse::<Ipv6Addr>().unwrap()));
    }
}
