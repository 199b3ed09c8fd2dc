//! Receive classification: which flow a received frame belongs to, read from the inner headers
//! and the measurement tag only (the UPF rewrites the outer headers).
//!
//! N3 carries the downlink back from the UPF as G-PDUs: the tunnel must be the UE's downlink
//! TEID and, when the run sets a QFI, a PDU Session Container must carry that QFI (a G-PDU
//! without a container is measured and noted: UPFs differ, see docs/pfcp.md). N6 carries the
//! uplink decapsulated: the inner source must be the UE. On both, the tag's stream must be one of
//! the run's, sent in the direction the port receives, with the stream's UDP ports and a UE of
//! the stream. Everything else is either for the service plane (ARP, ICMP, GTP-U signalling) or
//! rejected and counted by kind; nothing here can fail on any input.
//!
//! The common case is a few fixed-offset reads after the GTP-U and IPv4/UDP shortcuts of
//! `decapsulate` and `udp_payload`; the rarer shapes go the slow way in `other`.
//!
//! IPv6 UE packets (inside G-PDUs over either transport on N3, plain on N6) are read out of
//! line (`classify_n3_v6`, `other_n6`), after one test of the version nibble, so the IPv4 path
//! is what it was. Their UE is found from the address by [`Ue6Map`]. VLAN tags are the
//! worker's: it hands over frames with the port's tags removed.

use upfbench_gtpu::{Decapsulated, GTPU_PORT, MessageType, decapsulate, header, udp_payload};
use upfbench_net::ethernet::{
    self, ETHERTYPE_ARP, ETHERTYPE_IPV4, ETHERTYPE_IPV6, HEADER_LEN as ETHERNET_LEN,
};
use upfbench_net::ipv4::{self, PROTOCOL_ICMP, PROTOCOL_UDP};
use upfbench_net::ipv6::{self, PROTOCOL_ICMPV6};
use upfbench_net::udp;
use upfbench_net::{IpFamily, Qfi};
use upfbench_stats::Direction;

use std::net::{IpAddr, Ipv6Addr};
use std::sync::Arc;

use super::churn_rx::ChurnRx;
use super::handover::{HandoverRx, Leg};
use upfbench_datapath::service::Service;
use upfbench_datapath::vlan::PortVlans;
use upfbench_net::tag::TagView;
use upfbench_run::plan::{ChurnStep, HandoverPlan, StreamPlan, UeTable};

const ETHERTYPE_AT: usize = ethernet::field::ETHERTYPE.start;
const IPV4_SOURCE_AT: usize = ipv4::field::SOURCE.start;
const IPV4_DESTINATION_AT: usize = ipv4::field::DESTINATION.start;
const UDP_SOURCE_PORT_AT: usize = udp::field::SOURCE_PORT.start;
const UDP_DESTINATION_PORT_AT: usize = udp::field::DESTINATION_PORT.start;
const IPV6_SOURCE_AT: usize = ipv6::field::SOURCE.start;
const IPV6_DESTINATION_AT: usize = ipv6::field::DESTINATION.start;

/// The IPv6 UEs: UE `i`'s address is `first + (i << shift)` (`shift` 0: an address per UE;
/// 64: a /64 per UE, the same interface id in each), so that the receive path maps an address
/// back to its UE with a subtraction and a shift, as it does for IPv4.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Ue6Map {
    first: u128,
    shift: u32,
}

impl Ue6Map {
    /// UE 0 at `first`, each UE `prefix_len` bits apart (128: consecutive addresses).
    pub fn new(first: Ipv6Addr, prefix_len: u8) -> Ue6Map {
        Ue6Map {
            first: u128::from(first),
            shift: 128 - u32::from(prefix_len.clamp(1, 128)),
        }
    }

    /// UE `i`'s address.
    pub fn address(&self, i: u32) -> Ipv6Addr {
        Ipv6Addr::from(
            self.first
                .wrapping_add(u128::from(i).checked_shl(self.shift).unwrap_or(0)),
        )
    }

    /// How far `address` is from UE 0's, in UEs (`u32::MAX` when it is no UE's address, which
    /// no stream's UEs reach).
    #[inline]
    pub fn offset_of(&self, address: u128) -> u32 {
        let d = address.wrapping_sub(self.first);
        let low = u128::MAX.checked_shr(128 - self.shift).unwrap_or(0);
        if self.shift < 128 && d & low == 0 {
            u32::try_from(d >> self.shift).unwrap_or(u32::MAX)
        } else {
            u32::MAX
        }
    }
}

/// Why a received frame is not measured. Counted per kind; see [`Reject::NAMES`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum Reject {
    /// Not IPv4 (another EtherType or IP version), and not for the service plane.
    NotIpv4 = 0,
    /// IPv4 but malformed, fragmented, or neither UDP nor ICMP.
    Malformed,
    /// On N3: IPv4/UDP that is not GTP-U on 2152, or a malformed G-PDU.
    NotGtpu,
    /// A G-PDU or N6 datagram whose inner packet is not IPv4/UDP.
    InnerNotIpv4Udp,
    /// A UDP payload shorter than the tag.
    Untagged,
    /// A tag whose stream id is not one of the run's.
    UnknownStream,
    /// A stream received on the port of its sending side (uplink on N3, downlink on N6).
    WrongPort,
    /// Inner UDP ports that are not the stream's.
    WrongUdpPorts,
    /// An inner UE address outside the stream's UEs.
    UnknownUe,
    /// A G-PDU whose TEID is not the UE's downlink TEID.
    WrongTeid,
    /// A PDU Session Container whose QFI is not the run's.
    WrongQfi,
    /// A UE packet of the other IP family than its stream's: the UPF translated it, or sent
    /// one stream's tag in the other family's packet.
    WrongFamily,
}

impl Reject {
    /// Number of kinds.
    pub const COUNT: usize = 12;
    /// Names of the kinds, by discriminant (reports use them).
    pub const NAMES: [&'static str; Self::COUNT] = [
        "not_ipv4",
        "malformed",
        "not_gtpu",
        "inner_not_ipv4_udp",
        "untagged",
        "unknown_stream",
        "wrong_port",
        "wrong_udp_ports",
        "unknown_ue",
        "wrong_teid",
        "wrong_qfi",
        "wrong_family",
    ];
}

/// The verdict on one received frame.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Classified {
    /// A packet of one of the run's flows.
    Measured {
        /// The flow (stats stream id).
        flow: u32,
        /// Its sequence number.
        sequence: u32,
        /// Low 32 bits of its transmit time (ns).
        tx_time: u32,
        /// A downlink G-PDU without a PDU Session Container while the run sets a QFI.
        no_container: bool,
        /// The tunnel a moving UE's downlink came through.
        leg: Leg,
    },
    /// A probe of a churn session ([`upfbench_run::plan::churn`]): not one of the step's flows.
    Probe {
        /// The churn session's slot.
        slot: u32,
        /// Its sequence number.
        sequence: u32,
        /// Low 32 bits of its transmit time (ns).
        tx_time: u32,
    },
    /// For the service plane.
    Service(Service),
    /// Not measured.
    Rejected(Reject),
}

/// What the receive side checks a stream's packets against.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct RxStream {
    /// The port it arrives on and its family, compared at once.
    route: Route,
    source_port: u16,
    destination_port: u16,
    ue_start: u32,
    ue_count: u32,
    flow_base: u32,
    /// Its index among the downlink streams (a moving flow's slot).
    downlink_ordinal: u32,
    /// The churn's probe stream: its packets are probes, not flows.
    probe: bool,
    /// The QFI its downlink G-PDUs must carry when they carry a PDU Session Container.
    qfi: Option<Qfi>,
}

impl RxStream {
    /// A stream id no stream has: no UE, so nothing is measured for it.
    const UNUSED: RxStream = RxStream {
        route: Route::new(Direction::Uplink, false),
        source_port: 0,
        destination_port: 0,
        ue_start: 0,
        ue_count: 0,
        flow_base: 0,
        downlink_ordinal: 0,
        probe: false,
        qfi: None,
    };

    /// What the receive side checks of `s`'s packets (`qfi`: the run's, for a stream that
    /// names none).
    fn of(s: &StreamPlan, downlink_ordinal: u32, probe: bool, qfi: Option<Qfi>) -> RxStream {
        RxStream {
            route: Route::new(s.direction, s.family() == IpFamily::Ipv6),
            source_port: s.source_port,
            destination_port: s.destination_port,
            ue_start: s.ues.start,
            ue_count: s.ue_count(),
            flow_base: s.flow_base,
            downlink_ordinal,
            probe,
            qfi: s.qfi.or(qfi),
        }
    }
}

/// Which port a stream's packets arrive on (its direction) and their family, in one octet: the
/// receive path checks both with one comparison, and tells which failed only for a reject.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Route(u8);

impl Route {
    const DIRECTION: u8 = 1;
    const V6: u8 = 2;

    #[inline(always)]
    const fn new(direction: Direction, v6: bool) -> Route {
        let d = match direction {
            Direction::Uplink => 0,
            Direction::Downlink => Self::DIRECTION,
        };
        Route(d | if v6 { Self::V6 } else { 0 })
    }

    /// Why a packet that arrived as `got` is not one of a stream of this route: the port
    /// first, then the family.
    fn mismatch(self, got: Route) -> Reject {
        if (self.0 ^ got.0) & Self::DIRECTION != 0 {
            Reject::WrongPort
        } else {
            Reject::WrongFamily
        }
    }
}

/// The run's receive rules, shared read-only by every worker.
#[derive(Debug, Clone, PartialEq)]
pub struct RxRules {
    ues: UeTable,
    streams: Box<[RxStream]>,
    handovers: Option<Arc<HandoverPlan>>,
    downlink_streams: u32,
    /// Churn sessions whose probes the step receives (0: no churn).
    churn_sessions: u32,
    /// The IPv6 UEs.
    ues6: Ue6Map,
    /// The ports' VLAN tags (the worker strips them before classifying).
    vlans: PortVlans,
}

impl RxRules {
    /// The rules for `streams` (indexed by their id) over `ues`; downlink G-PDUs that carry a
    /// PDU Session Container must carry their stream's QFI, or `qfi` for a stream that names
    /// none.
    pub fn new(ues: UeTable, qfi: Option<Qfi>, streams: &[StreamPlan]) -> RxRules {
        let mut table = vec![
            RxStream::UNUSED;
            streams
                .iter()
                .map(|s| usize::from(s.id) + 1)
                .max()
                .unwrap_or(0)
        ];
        let mut downlink_streams = 0;
        for s in streams {
            table[usize::from(s.id)] = RxStream::of(s, downlink_streams, false, qfi);
            downlink_streams += u32::from(s.direction == Direction::Downlink);
        }
        let ues6 = match (ues.v6, ues.first_address()) {
            (Some(v6), _) => Ue6Map::new(v6.address(0), v6.prefix_len()),
            (None, IpAddr::V6(a)) => Ue6Map::new(a, 128),
            (None, IpAddr::V4(_)) => Ue6Map::default(),
        };
        RxRules {
            ues,
            streams: table.into_boxed_slice(),
            handovers: None,
            downlink_streams,
            churn_sessions: 0,
            ues6,
            vlans: PortVlans::UNTAGGED,
        }
    }

    /// With the IPv6 UEs at `ues6` (by default the table's: [`UeTable::v6`]).
    pub fn with_ipv6_ues(mut self, ues6: Ue6Map) -> RxRules {
        self.ues6 = ues6;
        self
    }

    /// With the ports' VLAN tags: the worker strips them from what it receives.
    pub fn with_vlans(mut self, vlans: PortVlans) -> RxRules {
        self.vlans = vlans;
        self
    }

    /// The ports' VLAN tags.
    #[inline(always)]
    pub fn vlans(&self) -> &PortVlans {
        &self.vlans
    }

    /// With the step's handovers: a moving UE's downlink is accepted through the source's
    /// tunnel and the target's, each packet told by its [`Leg`].
    pub(crate) fn with_handovers(mut self, handovers: Option<Arc<HandoverPlan>>) -> RxRules {
        self.handovers = handovers;
        self
    }

    /// With the step's churn: the probes of its sessions (UEs after the traffic's) are told
    /// apart as [`Classified::Probe`].
    pub(crate) fn with_churn(mut self, churn: Option<&ChurnStep>) -> RxRules {
        let Some(c) = churn else {
            return self;
        };
        let p = &c.plan.probe;
        let id = usize::from(p.id);
        let mut table = self.streams.into_vec();
        if table.len() <= id {
            table.resize(id + 1, RxStream::UNUSED);
        }
        table[id] = RxStream::of(p, u32::MAX, true, None);
        self.streams = table.into_boxed_slice();
        self.churn_sessions = p.ue_count();
        self
    }

    /// The churn's receive record a worker starts with (empty without churn).
    pub(crate) fn churn_record(&self) -> ChurnRx {
        ChurnRx::new(self.churn_sessions as usize)
    }

    /// The handovers' receive record a worker starts with (empty without handovers).
    pub(crate) fn handover_record(&self) -> HandoverRx {
        self.handovers
            .as_ref()
            .map_or_else(HandoverRx::default, |h| {
                HandoverRx::new(h.moves.len(), self.downlink_streams as usize)
            })
    }

    /// The moving UE's slot whose old tunnel an End Marker `frame` (received on N3) names.
    pub(crate) fn end_marker_slot(&self, frame: &[u8]) -> Option<u32> {
        let h = self.handovers.as_ref()?;
        let ihl = usize::from(frame.get(ETHERNET_LEN)? & 0x0f) * 4;
        let teid = read_u32_at(frame, ETHERNET_LEN + ihl + udp::HEADER_LEN + 4)?;
        let dl = self.ues.downlink_teid;
        let offset = teid.wrapping_sub(dl.first.get());
        let ue = match dl.step {
            0 => (offset == 0).then_some(0)?,
            step => (offset % step == 0).then_some(offset / step)?,
        };
        (ue < self.ues.count).then(|| h.slot(ue)).flatten()
    }

    /// Classifies a frame received on N3 (downlink G-PDUs from the UPF).
    #[inline(always)]
    pub(crate) fn classify_n3(&self, frame: &[u8]) -> Classified {
        let Ok(d) = decapsulate(frame) else {
            return other(frame, true);
        };
        let inner = d.inner();
        let Some(v) = Inner::read_v4(inner) else {
            // Out of line, from the frame: `d` stays in registers on the IPv4 path.
            return self.classify_n3_v6(frame);
        };
        let ue_address = read_u32(inner, IPV4_DESTINATION_AT);
        let ue = self.ues.offset_of(ue_address);
        let hit = match self.flow(&v, Direction::Downlink, ue, false) {
            Ok(hit) => hit,
            Err(r) => return Classified::Rejected(r),
        };
        self.downlink(&d, &hit)
    }

    /// [`classify_n3`](Self::classify_n3) for a G-PDU whose inner packet is not IPv4/UDP:
    /// IPv6/UDP, or rejected.
    #[cold]
    #[inline(never)]
    fn classify_n3_v6(&self, frame: &[u8]) -> Classified {
        let Ok(d) = decapsulate(frame) else {
            return other(frame, true);
        };
        let inner = d.inner();
        let Some(v) = Inner::read_v6(inner) else {
            return Classified::Rejected(Reject::InnerNotIpv4Udp);
        };
        let ue = self.ues6.offset_of(read_u128(inner, IPV6_DESTINATION_AT));
        match self.flow(&v, Direction::Downlink, ue, true) {
            Ok(hit) => self.downlink(&d, &hit),
            Err(r) => Classified::Rejected(r),
        }
    }

    /// The verdict on a downlink G-PDU `d` of a known flow `hit`: its tunnel and QFI checked.
    #[inline(always)]
    fn downlink(&self, d: &Decapsulated<'_>, hit: &Hit<'_>) -> Classified {
        if hit.stream.probe {
            return if d.teid() == self.ues.downlink_teid.get(hit.ue) {
                Classified::Probe {
                    slot: hit.flow,
                    sequence: hit.sequence,
                    tx_time: hit.tx_time,
                }
            } else {
                Classified::Rejected(Reject::WrongTeid)
            };
        }
        let leg = match &self.handovers {
            None if d.teid() == self.ues.downlink_teid.get(hit.ue) => Leg::Fixed,
            None => return Classified::Rejected(Reject::WrongTeid),
            Some(h) => match self.leg(h, hit, d.teid()) {
                Some(leg) => leg,
                None => return Classified::Rejected(Reject::WrongTeid),
            },
        };
        let mut no_container = false;
        if let Some(want) = hit.stream.qfi {
            match d.qfi() {
                Some(q) if q == want => {}
                Some(_) => return Classified::Rejected(Reject::WrongQfi),
                None => no_container = true,
            }
        }
        Classified::Measured {
            flow: hit.flow,
            sequence: hit.sequence,
            tx_time: hit.tx_time,
            no_container,
            leg,
        }
    }

    /// The tunnel `teid` of a downlink packet of `hit` in a step with handovers: a moving UE's
    /// source or target tunnel, another UE's own; `None` for a wrong TEID.
    #[inline(always)]
    fn leg(&self, h: &HandoverPlan, hit: &Hit<'_>, teid: upfbench_net::Teid) -> Option<Leg> {
        let old = teid == self.ues.downlink_teid.get(hit.ue);
        let Some(slot) = h.slot(hit.ue) else {
            return old.then_some(Leg::Fixed);
        };
        let flow_slot = slot * self.downlink_streams + hit.stream.downlink_ordinal;
        if old {
            Some(Leg::Old(flow_slot))
        } else if teid == h.target_teid(hit.ue) {
            Some(Leg::New(flow_slot))
        } else {
            None
        }
    }

    /// Classifies a frame received on N6 (uplink decapsulated by the UPF).
    #[inline(always)]
    pub(crate) fn classify_n6(&self, frame: &[u8]) -> Classified {
        if ethertype(frame) != Some(ETHERTYPE_IPV4) {
            return self.other_n6(frame);
        }
        let packet = &frame[ETHERNET_LEN..];
        let Some(v) = Inner::read(packet) else {
            return other(frame, false);
        };
        let ue_address = read_u32(packet, IPV4_SOURCE_AT);
        self.uplink(self.flow(&v, Direction::Uplink, self.ues.offset_of(ue_address), false))
    }

    /// An N6 frame that is not IPv4: an IPv6 UE's uplink, or the slow path's.
    #[cold]
    #[inline(never)]
    fn other_n6(&self, frame: &[u8]) -> Classified {
        if ethertype(frame) != Some(ETHERTYPE_IPV6) {
            return other(frame, false);
        }
        let packet = &frame[ETHERNET_LEN..];
        let Some(v) = Inner::read_v6(packet) else {
            return other(frame, false);
        };
        let ue = self.ues6.offset_of(read_u128(packet, IPV6_SOURCE_AT));
        self.uplink(self.flow(&v, Direction::Uplink, ue, true))
    }

    /// The verdict on an uplink packet received on N6.
    #[inline(always)]
    fn uplink(&self, hit: Result<Hit<'_>, Reject>) -> Classified {
        match hit {
            Ok(hit) if hit.stream.probe => Classified::Probe {
                slot: hit.flow,
                sequence: hit.sequence,
                tx_time: hit.tx_time,
            },
            Ok(hit) => Classified::Measured {
                flow: hit.flow,
                sequence: hit.sequence,
                tx_time: hit.tx_time,
                no_container: false,
                leg: Leg::Fixed,
            },
            Err(r) => Classified::Rejected(r),
        }
    }

    /// The flow and tag of a packet received in `direction` whose UE is `ue` UEs from UE 0,
    /// of the family `v6` says: a packet of the other family than its stream's is counted as
    /// such, whatever its address (the two families' UEs are numbered apart).
    #[inline(always)]
    fn flow(
        &self,
        v: &Inner<'_>,
        direction: Direction,
        ue: u32,
        v6: bool,
    ) -> Result<Hit<'_>, Reject> {
        let tag = TagView::new_checked(v.payload).map_err(|_| Reject::Untagged)?;
        let s = self
            .streams
            .get(usize::from(tag.stream()))
            .filter(|s| s.ue_count != 0)
            .ok_or(Reject::UnknownStream)?;
        let route = Route::new(direction, v6);
        if s.route != route {
            return Err(s.route.mismatch(route));
        }
        if v.ports != (s.source_port, s.destination_port) {
            return Err(Reject::WrongUdpPorts);
        }
        // The stream's UEs are within the table's, the churn's probes' just after them.
        let local = ue.wrapping_sub(s.ue_start);
        if local >= s.ue_count {
            return Err(Reject::UnknownUe);
        }
        Ok(Hit {
            // A probe's slot, a flow's id.
            flow: if s.probe { local } else { s.flow_base + local },
            ue,
            sequence: tag.sequence(),
            tx_time: tag.tx_time(),
            stream: s,
        })
    }
}

/// A packet of a known flow.
struct Hit<'r> {
    flow: u32,
    ue: u32,
    sequence: u32,
    tx_time: u32,
    /// Its stream's rules.
    stream: &'r RxStream,
}

/// The UDP ports and payload of an IPv4/UDP packet.
struct Inner<'a> {
    ports: (u16, u16),
    payload: &'a [u8],
}

impl<'a> Inner<'a> {
    #[inline(always)]
    fn read(packet: &'a [u8]) -> Option<Inner<'a>> {
        let payload = udp_payload(packet).ok()?;
        // udp_payload checked the header length and the UDP header behind it.
        let ihl = usize::from(packet[0] & 0x0f) * 4;
        Some(Inner {
            ports: (
                read_u16(packet, ihl + UDP_SOURCE_PORT_AT),
                read_u16(packet, ihl + UDP_DESTINATION_PORT_AT),
            ),
            payload,
        })
    }

    /// [`read`](Self::read) for a packet that must be IPv4: `None` for IPv6 (its version tested
    /// on the octet the header length is read from anyway).
    #[inline(always)]
    fn read_v4(packet: &'a [u8]) -> Option<Inner<'a>> {
        let payload = udp_payload(packet).ok()?;
        let first = packet[0];
        if first >> 4 != 4 {
            return None;
        }
        let ihl = usize::from(first & 0x0f) * 4;
        Some(Inner {
            ports: (
                read_u16(packet, ihl + UDP_SOURCE_PORT_AT),
                read_u16(packet, ihl + UDP_DESTINATION_PORT_AT),
            ),
            payload,
        })
    }

    /// [`read`](Self::read) for an IPv6/UDP packet (no extension header).
    fn read_v6(packet: &'a [u8]) -> Option<Inner<'a>> {
        let payload = udp_payload(packet).ok()?;
        let at = ipv6::HEADER_LEN;
        (packet.first()? >> 4 == 6).then(|| Inner {
            ports: (
                read_u16(packet, at + UDP_SOURCE_PORT_AT),
                read_u16(packet, at + UDP_DESTINATION_PORT_AT),
            ),
            payload,
        })
    }
}

fn read_u128(b: &[u8], at: usize) -> u128 {
    b.get(at..at + 16)
        .and_then(|s| <[u8; 16]>::try_from(s).ok())
        .map_or(0, u128::from_be_bytes)
}

#[inline(always)]
fn read_u16(b: &[u8], at: usize) -> u16 {
    u16::from_be_bytes([b[at], b[at + 1]])
}

#[inline(always)]
fn read_u32(b: &[u8], at: usize) -> u32 {
    u32::from_be_bytes([b[at], b[at + 1], b[at + 2], b[at + 3]])
}

fn read_u32_at(b: &[u8], at: usize) -> Option<u32> {
    let s = b.get(at..at + 4)?;
    Some(u32::from_be_bytes([s[0], s[1], s[2], s[3]]))
}

#[inline(always)]
fn ethertype(frame: &[u8]) -> Option<u16> {
    let b = frame.get(ETHERTYPE_AT..ETHERTYPE_AT + 2)?;
    Some(u16::from_be_bytes([b[0], b[1]]))
}

/// Frames the fast path did not take: service-plane traffic or rejects.
#[cold]
#[inline(never)]
fn other(frame: &[u8], n3: bool) -> Classified {
    match ethertype(frame) {
        Some(ETHERTYPE_ARP) => return Classified::Service(Service::Arp),
        Some(ETHERTYPE_IPV4) => {}
        Some(ETHERTYPE_IPV6) => return other_v6(frame, n3),
        _ => return Classified::Rejected(Reject::NotIpv4),
    }
    let ip = &frame[ETHERNET_LEN..];
    let Some(&vihl) = ip.first() else {
        return Classified::Rejected(Reject::Malformed);
    };
    if vihl >> 4 != 4 {
        return Classified::Rejected(Reject::NotIpv4);
    }
    match ip.get(ipv4::field::PROTOCOL) {
        Some(&PROTOCOL_ICMP) => return Classified::Service(Service::Icmp),
        Some(&PROTOCOL_UDP) => {}
        _ => return Classified::Rejected(Reject::Malformed),
    }
    let Ok(payload) = udp_payload(ip) else {
        return Classified::Rejected(Reject::Malformed);
    };
    if !n3 {
        // N6 took the fast path for well-formed UDP; what reaches here has no tag room or so.
        return Classified::Rejected(Reject::InnerNotIpv4Udp);
    }
    let ihl = usize::from(vihl & 0x0f) * 4;
    let destination_port = read_u16(ip, ihl + UDP_DESTINATION_PORT_AT);
    match payload.get(header::field::MESSAGE_TYPE) {
        Some(&t) if destination_port == GTPU_PORT && t != MessageType::G_PDU.0 => {
            Classified::Service(Service::Gtpu(t))
        }
        _ => Classified::Rejected(Reject::NotGtpu),
    }
}

/// An IPv6 frame the fast paths did not take: ICMPv6 (Neighbor Discovery, echo) and GTP-U
/// signalling over IPv6 for the service plane, the rest rejected.
fn other_v6(frame: &[u8], n3: bool) -> Classified {
    let ip = &frame[ETHERNET_LEN..];
    if ip.len() < ipv6::HEADER_LEN || ip[0] >> 4 != 6 {
        return Classified::Rejected(Reject::Malformed);
    }
    match ip[ipv6::field::NEXT_HEADER] {
        PROTOCOL_ICMPV6 => return Classified::Service(Service::Icmpv6),
        PROTOCOL_UDP => {}
        _ => return Classified::Rejected(Reject::Malformed),
    }
    let Ok(payload) = udp_payload(ip) else {
        return Classified::Rejected(Reject::Malformed);
    };
    if !n3 {
        return Classified::Rejected(Reject::InnerNotIpv4Udp);
    }
    let destination_port = read_u16(ip, ipv6::HEADER_LEN + UDP_DESTINATION_PORT_AT);
    match payload.get(header::field::MESSAGE_TYPE) {
        Some(&t) if destination_port == GTPU_PORT && t != MessageType::G_PDU.0 => {
            Classified::Service(Service::Gtpu(t))
        }
        _ => Classified::Rejected(Reject::NotGtpu),
    }
}

#[cfg(test)]
mod tests;
