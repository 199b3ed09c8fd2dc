//! The frame each stream sends, built once from the plan and the resolved addresses: an uplink
//! G-PDU on N3 (outer Ethernet/IPv4/UDP/GTP-U, optionally a UL PDU Session Container, inner
//! IPv4/UDP from the UE to the data network host) or a downlink frame on N6 (Ethernet/IPv4/UDP
//! from the data network host to the UE). The payload starts with the measurement tag; the rest
//! is zeros. Per packet the TX path patches only the UE, the TEID, the checksums and the tag.

use std::net::Ipv4Addr;

use upfbench_gtpu::{
    EmitError, Encapsulator, EthernetRepr, Ipv4Repr, OuterHeaders, PacketTemplate,
    PduSessionContainer, UdpChecksum, UdpRepr, UeAddress,
};
use upfbench_net::ethernet::ETHERTYPE_IPV4;
use upfbench_net::{MacAddr, Qfi, Teid};
use upfbench_stats::Direction;

use upfbench_datapath::queues::Side;
use upfbench_datapath::service::Interface;
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
}

impl Endpoints {
    /// The data network host the uplink goes to and the downlink comes from: our N6 address.
    pub(crate) fn dn_host(&self) -> Ipv4Addr {
        self.local[Side::N6.index()].address
    }
}

/// The frame of `stream`, to UE `ue` (its first UE, whose values per packet replace), with
/// `teid` as the uplink TEID and `qfi` in the PDU Session Container when the stream carries one.
pub fn stream_template(
    stream: &StreamPlan,
    ue: Ipv4Addr,
    teid: Teid,
    qfi: Option<Qfi>,
    e: &Endpoints,
) -> Result<PacketTemplate, EmitError> {
    let payload = vec![0u8; usize::from(stream.payload_len)];
    let udp = UdpRepr {
        source_port: stream.source_port,
        destination_port: stream.destination_port,
    };
    let inner = |source, destination| Ipv4Repr::udp(source, destination);
    match stream.direction {
        Direction::Uplink => {
            let n3 = &e.local[Side::N3.index()];
            let mut outer = OuterHeaders::new(
                n3.mac,
                e.next_hop_mac[Side::N3.index()],
                n3.address,
                e.upf_n3,
                teid,
            );
            if stream.pdu_session_container {
                outer.pdu_session_container = Some(PduSessionContainer::uplink(
                    qfi.unwrap_or(Qfi::from_bits(0)),
                ));
            }
            let encap = Encapsulator::new(&outer)?;
            PacketTemplate::gpdu(
                &encap,
                &inner(ue, e.dn_host()),
                &udp,
                &payload,
                UdpChecksum::Compute,
                UeAddress::Source,
            )
        }
        Direction::Downlink => {
            let n6 = &e.local[Side::N6.index()];
            let eth = EthernetRepr {
                source: n6.mac,
                destination: e.next_hop_mac[Side::N6.index()],
                ethertype: ETHERTYPE_IPV4,
            };
            PacketTemplate::plain(
                &eth,
                &inner(e.dn_host(), ue),
                &udp,
                &payload,
                UdpChecksum::Compute,
                UeAddress::Destination,
            )
        }
    }
}
