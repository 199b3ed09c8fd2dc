//! IPv6 UEs: uplink G-PDUs with an IPv6 inner packet are decapsulated like IPv4 ones; downlink
//! IPv6 packets are matched by the UE prefix that holds their destination.

use std::net::{Ipv4Addr, Ipv6Addr};
use std::sync::Arc;

use super::*;
use crate::datapath::flows::Flow;
use crate::datapath::prefixes::{PrefixRule, PrefixTable};
use upfbench_pfcp::plan::UeIpv6Prefix;

const UE6: Ipv6Addr = Ipv6Addr::new(0x2001, 0xdb8, 0x45, 3, 0, 0, 0, 2);
const DN6: Ipv6Addr = Ipv6Addr::new(0x64, 0xff9b, 0, 0, 0, 0, 0xc0a8, 0x1098);
const GNB6_TUNNEL: u32 = 0xc0a8_0d83;

/// An IPv6/UDP packet (checksum left zero: nothing here reads it).
fn inner6(src: Ipv6Addr, dst: Ipv6Addr, payload: &[u8]) -> Vec<u8> {
    let len = 8 + payload.len();
    let mut p = vec![0x60, 0, 0, 0];
    p.extend_from_slice(&(len as u16).to_be_bytes());
    p.extend_from_slice(&[17, 64]);
    p.extend_from_slice(&src.octets());
    p.extend_from_slice(&dst.octets());
    p.extend_from_slice(&[0x13, 0x88, 0x13, 0x89]);
    p.extend_from_slice(&(len as u16).to_be_bytes());
    p.extend_from_slice(&[0, 0]);
    p.extend_from_slice(payload);
    p
}

/// `ip` behind an Ethernet header with the IPv6 EtherType.
fn plain6(ip: &[u8]) -> Vec<u8> {
    let mut f = plain(ip);
    f[12..14].copy_from_slice(&ETHERTYPE_IPV6.to_be_bytes());
    f
}

fn entry(teid: u32) -> DownlinkEntry {
    DownlinkEntry {
        forward: true,
        teid: Teid(teid),
        gnb: GNB6_TUNNEL,
        qfi: None,
        held: false,
    }
}

/// The IPv4 table with UE6's /64, a dropping /64 and a flows /64 beside.
fn table6() -> ForwardingTable {
    let mut v6 = PrefixTable::default();
    let p = |text: &str| UeIpv6Prefix {
        prefix: text.parse().unwrap(),
        len: 64,
    };
    v6.insert(
        p("2001:db8:45:3::"),
        PrefixRule {
            entry: entry(7),
            flows: None,
        },
    );
    v6.insert(
        p("2001:db8:45:4::"),
        PrefixRule {
            entry: DownlinkEntry::default(),
            flows: None,
        },
    );
    let flow = Flow {
        precedence: 1,
        qfi: None,
        filters: Box::new([]),
        forward: true,
        tunnel: Some((Teid(9), GNB6_TUNNEL)),
        container_qfi: Some(Qfi::from_bits(5)),
        qer: None,
    };
    v6.insert(
        p("2001:db8:45:5::"),
        PrefixRule {
            entry: DownlinkEntry::FLOWS,
            flows: Some(vec![flow].into()),
        },
    );
    ForwardingTable {
        downlink_v6: Arc::new(v6),
        ..table()
    }
}

#[test]
fn uplink_with_an_ipv6_inner_packet_is_decapsulated_whole() {
    let ip = inner6(UE6, DN6, &[7; 30]);
    let f = gpdu(Teid(1), Some(QFI), &ip);
    match from_n3(&table6(), &f, 0) {
        FromN3::Decapsulate {
            inner_offset,
            inner_len,
        } => assert_eq!(&f[inner_offset..inner_offset + inner_len], &ip[..]),
        other => panic!("{other:?}"),
    }
}

#[test]
fn downlink_to_any_address_of_a_ues_prefix_takes_its_tunnel() {
    let t = table6();
    for dst in [UE6, Ipv6Addr::new(0x2001, 0xdb8, 0x45, 3, 1, 2, 3, 4)] {
        let ip = inner6(DN6, dst, &[1; 20]);
        let mut f = plain6(&ip);
        f.extend_from_slice(&[0; 4]); // Ethernet padding is not part of the packet.
        assert_eq!(from_n6(&t, &f, 0), FromN6::Encapsulate(entry(7), ip.len()));
    }
}

#[test]
fn downlink_ipv6_outside_every_prefix_or_not_forwarded_is_dropped_by_kind() {
    let t = table6();
    let to = |dst: Ipv6Addr| from_n6(&t, &plain6(&inner6(DN6, dst, &[0; 8])), 0);
    let other_ue = Ipv6Addr::new(0x2001, 0xdb8, 0x45, 6, 0, 0, 0, 2);
    assert_eq!(to(other_ue), FromN6::Drop(Drop::UnknownUe));
    let dropping = Ipv6Addr::new(0x2001, 0xdb8, 0x45, 4, 0, 0, 0, 2);
    assert_eq!(to(dropping), FromN6::Drop(Drop::NotForwarded));
    // An IPv4 UE's address in the low bits is no IPv6 UE.
    assert_eq!(
        to(Ipv6Addr::from_bits(u128::from(u32::from(Ipv4Addr::new(
            10, 45, 0, 2
        ))))),
        FromN6::Drop(Drop::UnknownUe)
    );
    // A payload length past the frame's end, a version that is not 6.
    let mut long = plain6(&inner6(DN6, UE6, &[0; 8]));
    long[ETHERNET_LEN + 5] = 200;
    assert_eq!(from_n6(&t, &long, 0), FromN6::Drop(Drop::Malformed));
    let mut v4 = plain6(&inner6(DN6, UE6, &[0; 8]));
    v4[ETHERNET_LEN] = 0x45;
    assert_eq!(from_n6(&t, &v4, 0), FromN6::Drop(Drop::Malformed));
    assert_eq!(
        from_n6(&t, &plain6(&[0x60, 0, 0]), 0),
        FromN6::Drop(Drop::Malformed)
    );
}

#[test]
fn downlink_ipv6_to_a_ue_with_flows_is_classified_and_takes_the_flows_tunnel() {
    let ip = inner6(
        DN6,
        Ipv6Addr::new(0x2001, 0xdb8, 0x45, 5, 0, 0, 0, 2),
        &[0; 8],
    );
    match from_n6(&table6(), &plain6(&ip), 0) {
        FromN6::Encapsulate(e, len) => {
            assert_eq!(
                (e.teid, e.qfi, e.forward, len),
                (Teid(9), Some(Qfi::from_bits(5)), true, ip.len())
            );
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn icmpv6_not_to_a_ue_is_for_the_service_plane() {
    let mut ns = inner6(
        DN6,
        Ipv6Addr::new(0xff02, 0, 0, 0, 0, 1, 0xff00, 2),
        &[0; 24],
    );
    ns[ipv6::field::NEXT_HEADER] = PROTOCOL_ICMPV6;
    assert_eq!(
        from_n6(&table6(), &plain6(&ns), 0),
        FromN6::Service(Service::Icmpv6)
    );
    assert_eq!(
        from_n3(&table6(), &plain6(&ns), 0),
        FromN3::Service(Service::Icmpv6)
    );
}

proptest::proptest! {
    #[test]
    fn any_ipv6_frame_decides_without_panic(
        ip in proptest::collection::vec(proptest::prelude::any::<u8>(), 0..120),
        version_6 in proptest::prelude::any::<bool>(),
    ) {
        let mut ip = ip;
        if version_6 && !ip.is_empty() {
            ip[0] = 0x60 | (ip[0] & 0x0f);
        }
        let f = plain6(&ip);
        let t = table6();
        let _ = from_n6(&t, &f, 0);
        let _ = from_n3(&t, &f, 0);
    }
}
