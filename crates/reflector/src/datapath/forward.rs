//! The reflector's forwarding decisions, on frame bytes: what a minimal UPF does with a frame
//! received on N3 or N6, before the worker moves the mbuf.
//!
//! - N3: a G-PDU whose TEID has an uplink rule is decapsulated: its inner packet goes out N6
//!   behind a new Ethernet header. A G-PDU to an unknown TEID is dropped and answered with an
//!   Error Indication (rate-limited by the worker).
//! - N6: an IPv4 packet to a UE with a downlink rule is encapsulated with the rule's tunnel (and
//!   a DL PDU Session Container when the session's QER sets a QFI) and goes out N3. An IPv6
//!   packet is looked up by the UE prefix that holds its destination (out of line, after the
//!   IPv4 test, so the IPv4 path is what it was), and goes the same way.
//! - The inner packet of an uplink G-PDU may be of either family (the worker gives it the
//!   EtherType of its version).
//! - A TEID or UE whose entry has flows (several PDRs, SDF filters, a QER to enforce) is
//!   classified by [`super::flows`]: the matching PDR's FAR and QER decide, and a downlink
//!   G-PDU carries that flow's QFI.
//! - Anything else is for the service plane or dropped, counted by kind.

use upfbench_gtpu::{GTPU_PORT, MessageType, decapsulate, header};
use upfbench_net::Teid;
use upfbench_net::ethernet::{
    ETHERTYPE_ARP, ETHERTYPE_IPV4, ETHERTYPE_IPV6, HEADER_LEN as ETHERNET_LEN,
};
use upfbench_net::ipv4::{MIN_HEADER_LEN, PROTOCOL_ICMP, PROTOCOL_UDP};
use upfbench_net::ipv6::PROTOCOL_ICMPV6;
use upfbench_net::{ethernet, ipv4, ipv6, udp};

use super::flows::{Classified, Flow, classify};
use super::rules::{DownlinkEntry, ForwardingTable};
use upfbench_datapath::service::Service;

const ETHERTYPE_AT: usize = ethernet::field::ETHERTYPE.start;
const IPV4_TOTAL_LENGTH_AT: usize = ipv4::field::TOTAL_LENGTH.start;
const IPV4_DESTINATION_AT: usize = ipv4::field::DESTINATION.start;
const IPV6_PAYLOAD_LENGTH_AT: usize = ipv6::field::PAYLOAD_LENGTH.start;
const IPV6_DESTINATION_AT: usize = ipv6::field::DESTINATION.start;
const UDP_DESTINATION_PORT_AT: usize = udp::field::DESTINATION_PORT.start;
/// The GTP-U message type, counted from the UDP header.
const GTPU_MESSAGE_TYPE_AT: usize = udp::HEADER_LEN + header::field::MESSAGE_TYPE;

/// Why a frame was not forwarded.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[repr(u8)]
pub(crate) enum Drop {
    /// A G-PDU to a TEID with no uplink rule (answered with an Error Indication).
    UnknownTeid = 0,
    /// A packet to an address with no downlink rule.
    UnknownUe,
    /// A rule whose FAR does not forward.
    NotForwarded,
    /// Neither a G-PDU on N3 nor IP on N6, and not for the service plane.
    NotUserTraffic,
    /// Malformed.
    Malformed,
    /// The next hop's MAC address is not known yet (an ARP request went out).
    NoNeighbor,
    /// The transmit queue and the backlog behind it were full.
    TxFull,
    /// No mbuf or no headroom for the new headers.
    NoRoom,
    /// A downlink rule whose update the impairment `far_update_delay` holds back.
    FarUpdateHeld,
    /// A packet of a TEID or UE with several PDRs that none of them matches.
    NoPdr,
    /// Over its QER's MBR.
    QerPoliced,
    /// At its QER's closed gate.
    QerGated,
    /// No route: the destination (a downlink's gNB) is off the subnet of the port it would
    /// leave by, and that port has no gateway (`peer`). With several pairs a frame leaves by
    /// the pair it came in on, so a session whose gNB is on another pair's N3 lands here.
    NoRoute,
}

impl Drop {
    /// Number of kinds.
    pub(crate) const COUNT: usize = 13;
    /// Names by discriminant.
    pub(crate) const NAMES: [&'static str; Self::COUNT] = [
        "unknown_teid",
        "unknown_ue",
        "not_forwarded",
        "not_user_traffic",
        "malformed",
        "no_neighbor",
        "tx_full",
        "no_room",
        "far_update_held",
        "no_pdr",
        "qer_policed",
        "qer_gated",
        "no_route",
    ];
}

/// What to do with a frame received on N3.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum FromN3 {
    /// Strip `inner_offset` bytes (the outer headers through GTP-U); the inner packet is
    /// `inner_len` bytes; send it out N6.
    Decapsulate {
        /// Offset of the inner packet in the frame.
        inner_offset: usize,
        /// Length of the inner packet.
        inner_len: usize,
    },
    /// Drop; for [`Drop::UnknownTeid`] also the TEID (for the Error Indication).
    Drop(Drop, Teid),
    /// For the service plane.
    Service(Service),
}

/// What to do with a frame received on N6.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum FromN6 {
    /// Strip the Ethernet header and encapsulate the `len`-byte IP packet into this tunnel.
    Encapsulate(DownlinkEntry, usize),
    /// Drop.
    Drop(Drop),
    /// For the service plane.
    Service(Service),
}

#[inline(always)]
fn read_u16(b: &[u8], at: usize) -> Option<u16> {
    let s = b.get(at..at + 2)?;
    Some(u16::from_be_bytes([s[0], s[1]]))
}

#[inline(always)]
fn read_u32(b: &[u8], at: usize) -> Option<u32> {
    let s = b.get(at..at + 4)?;
    Some(u32::from_be_bytes([s[0], s[1], s[2], s[3]]))
}

/// The decision for a frame received on N3 at TSC tick `now` (a QER's bucket counts time).
#[inline]
pub(crate) fn from_n3(table: &ForwardingTable, frame: &[u8], now: u64) -> FromN3 {
    let Ok(d) = decapsulate(frame) else {
        return match service_kind(frame, true) {
            Some(s) => FromN3::Service(s),
            None => FromN3::Drop(Drop::NotUserTraffic, Teid::ZERO),
        };
    };
    let teid = d.teid();
    match table.uplink.get(teid.get()) {
        None => FromN3::Drop(Drop::UnknownTeid, teid),
        Some(u) if u.forward => FromN3::Decapsulate {
            inner_offset: d.inner_offset(),
            inner_len: d.inner().len(),
        },
        Some(u) if u.flows => {
            let inner = d.inner();
            let flows = table
                .uplink_flows
                .get(&teid.get())
                .map_or(&[][..], |f| &f[..]);
            match classify(flows, inner, inner.len(), d.qfi(), true, now) {
                Classified::Pass(_) => FromN3::Decapsulate {
                    inner_offset: d.inner_offset(),
                    inner_len: inner.len(),
                },
                other => FromN3::Drop(drop_of(other), teid),
            }
        }
        Some(_) => FromN3::Drop(Drop::NotForwarded, teid),
    }
}

/// The drop counted for a packet its flows did not pass.
fn drop_of(c: Classified<'_>) -> Drop {
    match c {
        Classified::Policed => Drop::QerPoliced,
        Classified::Gated => Drop::QerGated,
        Classified::NoFlow => Drop::NoPdr,
        Classified::NotForwarded | Classified::Pass(_) => Drop::NotForwarded,
    }
}

/// The decision for a downlink IP packet `ip` of `total` bytes to a UE whose entry has
/// `flows`, at TSC tick `now`.
fn downlink_flows(flows: &[Flow], ip: &[u8], total: usize, now: u64) -> FromN6 {
    match classify(flows, &ip[..total], total, None, false, now) {
        Classified::Pass(f) => match f.tunnel {
            Some((teid, gnb)) => FromN6::Encapsulate(
                DownlinkEntry {
                    forward: true,
                    teid,
                    gnb,
                    qfi: f.container_qfi,
                    held: false,
                },
                total,
            ),
            None => FromN6::Drop(Drop::NotForwarded),
        },
        other => FromN6::Drop(drop_of(other)),
    }
}

/// The decision for a frame received on N6 at TSC tick `now` (a held-back rule forwards from
/// its release tick on).
#[inline]
pub(crate) fn from_n6(table: &ForwardingTable, frame: &[u8], now: u64) -> FromN6 {
    if read_u16(frame, ETHERTYPE_AT) != Some(ETHERTYPE_IPV4) {
        return other_n6(table, frame, now);
    }
    let ip = &frame[ETHERNET_LEN..];
    let (Some(&vihl), Some(total), Some(dst)) = (
        ip.first(),
        read_u16(ip, IPV4_TOTAL_LENGTH_AT),
        read_u32(ip, IPV4_DESTINATION_AT),
    ) else {
        return FromN6::Drop(Drop::Malformed);
    };
    let total = usize::from(total);
    if vihl >> 4 != 4
        || usize::from(vihl & 0x0f) * 4 < MIN_HEADER_LEN
        || total > ip.len()
        || total < MIN_HEADER_LEN
    {
        return FromN6::Drop(Drop::Malformed);
    }
    match table.downlink.get(dst) {
        Some(e) if e.forward => FromN6::Encapsulate(*e, total),
        Some(e) if e.held && now >= table.release_at(dst) => FromN6::Encapsulate(
            DownlinkEntry {
                forward: true,
                held: false,
                ..*e
            },
            total,
        ),
        Some(e) if e.held => FromN6::Drop(Drop::FarUpdateHeld),
        Some(e) if e.flows() => {
            let flows = table.downlink_flows.get(&dst).map_or(&[][..], |f| &f[..]);
            downlink_flows(flows, ip, total, now)
        }
        Some(_) => FromN6::Drop(Drop::NotForwarded),
        None => match service_kind(frame, false) {
            Some(s) => FromN6::Service(s),
            None => FromN6::Drop(Drop::UnknownUe),
        },
    }
}

/// A frame received on N6 that is not IPv4: an IPv6 UE's downlink, or the service plane's.
#[cold]
#[inline(never)]
fn other_n6(table: &ForwardingTable, frame: &[u8], now: u64) -> FromN6 {
    if read_u16(frame, ETHERTYPE_AT) == Some(ETHERTYPE_IPV6) {
        return from_n6_v6(table, frame, now);
    }
    match service_kind(frame, false) {
        Some(s) => FromN6::Service(s),
        None => FromN6::Drop(Drop::NotUserTraffic),
    }
}

/// The decision for an IPv6 packet received on N6: to the UE whose prefix holds its
/// destination, else for the service plane (ICMPv6) or dropped.
fn from_n6_v6(table: &ForwardingTable, frame: &[u8], now: u64) -> FromN6 {
    let ip = frame.get(ETHERNET_LEN..).unwrap_or_default();
    let (Some(&version), Some(payload), Some(dst)) = (
        ip.first(),
        read_u16(ip, IPV6_PAYLOAD_LENGTH_AT),
        ip.get(IPV6_DESTINATION_AT..IPV6_DESTINATION_AT + 16),
    ) else {
        return FromN6::Drop(Drop::Malformed);
    };
    let total = ipv6::HEADER_LEN + usize::from(payload);
    if version >> 4 != 6 || total > ip.len() {
        return FromN6::Drop(Drop::Malformed);
    }
    let dst = u128::from_be_bytes(dst.try_into().unwrap_or_default());
    match table.downlink_v6.get(dst) {
        Some(r) if r.entry.forward => FromN6::Encapsulate(r.entry, total),
        Some(r) if r.entry.flows() => {
            let flows = r.flows.as_ref().map_or(&[][..], |f| &f[..]);
            downlink_flows(flows, ip, total, now)
        }
        Some(_) => FromN6::Drop(Drop::NotForwarded),
        None => match service_kind(frame, false) {
            Some(s) => FromN6::Service(s),
            None => FromN6::Drop(Drop::UnknownUe),
        },
    }
}

/// ARP, ICMP, ICMPv6, and on N3 GTP-U signalling: what the service plane looks at.
fn service_kind(frame: &[u8], n3: bool) -> Option<Service> {
    match read_u16(frame, ETHERTYPE_AT)? {
        ETHERTYPE_ARP => Some(Service::Arp),
        ETHERTYPE_IPV6 => {
            let ip = frame.get(ETHERNET_LEN..)?;
            match *ip.get(ipv6::field::NEXT_HEADER)? {
                PROTOCOL_ICMPV6 => Some(Service::Icmpv6),
                PROTOCOL_UDP
                    if n3
                        && read_u16(ip, ipv6::HEADER_LEN + UDP_DESTINATION_PORT_AT)?
                            == GTPU_PORT =>
                {
                    let t = *ip.get(ipv6::HEADER_LEN + GTPU_MESSAGE_TYPE_AT)?;
                    (t != MessageType::G_PDU.0).then_some(Service::Gtpu(t))
                }
                _ => None,
            }
        }
        ETHERTYPE_IPV4 => {
            let ip = frame.get(ETHERNET_LEN..)?;
            let ihl = usize::from(ip.first()? & 0x0f) * 4;
            match *ip.get(ipv4::field::PROTOCOL)? {
                PROTOCOL_ICMP => Some(Service::Icmp),
                PROTOCOL_UDP if n3 && read_u16(ip, ihl + UDP_DESTINATION_PORT_AT)? == GTPU_PORT => {
                    let t = *ip.get(ihl + GTPU_MESSAGE_TYPE_AT)?;
                    (t != MessageType::G_PDU.0).then_some(Service::Gtpu(t))
                }
                _ => None,
            }
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use std::net::Ipv4Addr;

    use super::*;
    use crate::datapath::sharded_map::ShardedMap;
    use upfbench_net::Qfi;

    use crate::datapath::rules::UplinkEntry;
    use upfbench_testkit::upf_frames::{gpdu, inner, plain};

    const UE: Ipv4Addr = Ipv4Addr::new(10, 45, 0, 2);
    const DN: Ipv4Addr = Ipv4Addr::new(192, 168, 16, 152);
    const GNB: Ipv4Addr = Ipv4Addr::new(192, 168, 13, 131);
    const QFI: Qfi = Qfi::from_bits(9);
    const HELD_UE: Ipv4Addr = Ipv4Addr::new(10, 45, 0, 4);

    fn table() -> ForwardingTable {
        let dl = DownlinkEntry {
            forward: true,
            teid: Teid(2),
            gnb: u32::from(GNB),
            qfi: Some(QFI),
            held: false,
        };
        ForwardingTable {
            uplink: ShardedMap::build([
                (
                    1,
                    UplinkEntry {
                        forward: true,
                        qfi: None,
                        flows: false,
                    },
                ),
                (
                    3,
                    UplinkEntry {
                        forward: false,
                        qfi: None,
                        flows: false,
                    },
                ),
            ]),
            downlink: ShardedMap::build([
                (u32::from(UE), dl),
                (
                    u32::from(Ipv4Addr::new(10, 45, 0, 3)),
                    DownlinkEntry::default(),
                ),
                (
                    u32::from(HELD_UE),
                    DownlinkEntry {
                        held: true,
                        teid: Teid(0x2000_0002),
                        gnb: u32::from(GNB),
                        ..DownlinkEntry::default()
                    },
                ),
            ]),
            sessions: 2,
            gnbs: std::sync::Arc::new([u32::from(GNB)]),
            gnbs_v6: std::sync::Arc::new([]),
            releases: std::sync::Arc::new([(u32::from(HELD_UE), 1_000)]),
            uplink_flows: Default::default(),
            downlink_flows: Default::default(),
            downlink_v6: Default::default(),
        }
    }

    #[test]
    fn uplink_to_a_known_teid_is_decapsulated() {
        let ip = inner(UE, DN, (1, 2), &[7; 10]);
        let f = gpdu(Teid(1), Some(QFI), &ip);
        match from_n3(&table(), &f, 0) {
            FromN3::Decapsulate {
                inner_offset,
                inner_len,
            } => {
                assert_eq!(&f[inner_offset..inner_offset + inner_len], &ip[..]);
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn uplink_to_an_unknown_or_dropping_teid_is_dropped() {
        let ip = inner(UE, DN, (1, 2), &[7; 10]);
        assert_eq!(
            from_n3(&table(), &gpdu(Teid(5), None, &ip), 0),
            FromN3::Drop(Drop::UnknownTeid, Teid(5))
        );
        assert_eq!(
            from_n3(&table(), &gpdu(Teid(3), None, &ip), 0),
            FromN3::Drop(Drop::NotForwarded, Teid(3))
        );
        assert_eq!(
            from_n3(&table(), &plain(&ip), 0),
            FromN3::Drop(Drop::NotUserTraffic, Teid::ZERO)
        );
    }

    #[test]
    fn downlink_to_a_known_ue_is_encapsulated_with_its_tunnel() {
        let ip = inner(DN, UE, (2, 1), &[7; 10]);
        let mut f = plain(&ip);
        f.extend_from_slice(&[0; 6]); // Ethernet padding is not part of the packet.
        match from_n6(&table(), &f, 0) {
            FromN6::Encapsulate(e, len) => {
                assert_eq!(
                    (e.teid, e.gnb, e.qfi, len),
                    (Teid(2), u32::from(GNB), Some(QFI), ip.len())
                );
            }
            other => panic!("{other:?}"),
        }
        let held = plain(&inner(DN, HELD_UE, (2, 1), &[0; 10]));
        assert_eq!(
            from_n6(&table(), &held, 999),
            FromN6::Drop(Drop::FarUpdateHeld)
        );
        match from_n6(&table(), &held, 1_000) {
            FromN6::Encapsulate(e, _) => {
                assert_eq!(
                    (e.teid, e.forward, e.held),
                    (Teid(0x2000_0002), true, false)
                );
            }
            other => panic!("released at its tick: {other:?}"),
        }
        let other_ue = plain(&inner(DN, Ipv4Addr::new(10, 45, 0, 9), (2, 1), &[0; 10]));
        assert_eq!(
            from_n6(&table(), &other_ue, 0),
            FromN6::Drop(Drop::UnknownUe)
        );
        let no_tunnel = plain(&inner(DN, Ipv4Addr::new(10, 45, 0, 3), (2, 1), &[0; 10]));
        assert_eq!(
            from_n6(&table(), &no_tunnel, 0),
            FromN6::Drop(Drop::NotForwarded)
        );
    }

    #[test]
    fn service_traffic_is_recognised_on_both_ports() {
        let mut arp = vec![0xff; 12];
        arp.extend_from_slice(&[0x08, 0x06]);
        arp.extend_from_slice(&[0; 28]);
        assert_eq!(from_n3(&table(), &arp, 0), FromN3::Service(Service::Arp));
        assert_eq!(from_n6(&table(), &arp, 0), FromN6::Service(Service::Arp));
        let mut icmp = inner(DN, Ipv4Addr::new(192, 168, 16, 151), (0, 0), &[0; 8]);
        icmp[9] = 1;
        assert_eq!(
            from_n6(&table(), &plain(&icmp), 0),
            FromN6::Service(Service::Icmp)
        );
        let echo = inner(
            GNB,
            Ipv4Addr::new(192, 168, 13, 151),
            (2152, 2152),
            &[0x32, 1, 0, 4, 0, 0, 0, 0, 0, 1, 0, 0],
        );
        assert_eq!(
            from_n3(&table(), &plain(&echo), 0),
            FromN3::Service(Service::Gtpu(1))
        );
    }

    mod v6;

    proptest::proptest! {
        #[test]
        fn any_bytes_decide_without_panic(frame in proptest::collection::vec(proptest::prelude::any::<u8>(), 0..160)) {
            let t = table();
            let _ = from_n3(&t, &frame, 0);
            let _ = from_n6(&t, &frame, 0);
        }
    }
}
