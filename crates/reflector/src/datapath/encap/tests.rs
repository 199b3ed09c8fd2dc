use std::net::Ipv4Addr;

use upfbench_gtpu::{GTPU_PORT, GtpuFrame, GtpuRepr, Message, PduSessionContainer, decapsulate};
use upfbench_net::ethernet::HEADER_LEN as ETHERNET_LEN;

use super::*;
use upfbench_testkit::upf_frames::inner;

const N3: Interface = Interface {
    mac: MacAddr([2, 0, 0, 0, 0x13, 0x51]),
    address: Ipv4Addr::new(192, 168, 13, 151),
    prefix_len: 24,
    secondary: None,
};
const GNB: Ipv4Addr = Ipv4Addr::new(192, 168, 13, 131);
const GNB_MAC: MacAddr = MacAddr([2, 0, 0, 0, 0x13, 0x31]);

/// `packet` encapsulated by `e` as the reflector does it: in a buffer with exactly the outer
/// headers' room in front.
fn encapsulate(e: &Encapsulator, packet: &[u8]) -> Vec<u8> {
    let mut frame = vec![0u8; e.outer_len() + packet.len()];
    frame[e.outer_len()..].copy_from_slice(packet);
    e.encapsulate_prepended(&mut frame).unwrap();
    frame
}

#[test]
fn the_dl_g_pdu_carries_the_sessions_tunnel_and_our_addresses() {
    let packet = inner(
        Ipv4Addr::new(192, 168, 16, 152),
        Ipv4Addr::new(10, 45, 0, 2),
        (2, 1),
        &[7; 300],
    );
    let mut cache = EncapCache::new(N3);
    let e = cache.get(u32::from(GNB), None, GNB_MAC).unwrap();
    e.set_teid(Teid(0x0000_0002));
    let frame = encapsulate(e, &packet);

    let parsed = GtpuFrame::parse(&frame).expect("a G-PDU");
    let eth = parsed.ethernet();
    assert_eq!((eth.source(), eth.destination()), (N3.mac, GNB_MAC));
    let d = parsed.datagram();
    assert_eq!((d.source(), d.destination()), (N3.address, GNB));
    assert!(d.verify_checksums(), "outer IPv4 header checksum");
    assert_eq!(
        (d.udp().source_port(), d.udp().destination_port()),
        (GTPU_PORT, GTPU_PORT)
    );
    let g = GtpuRepr::parse_bytes(&frame[ETHERNET_LEN + d.gtpu_offset()..]).expect("GTP-U");
    assert_eq!(g.teid, Teid(2));
    assert!(matches!(g.message, Message::GPdu { .. }));
    assert_eq!(g.pdu_session_container, None, "no QER QFI: no container");
    let dec = decapsulate(&frame).unwrap();
    assert_eq!(dec.inner(), &packet[..], "the inner packet untouched");
}

#[test]
fn a_qer_qfi_adds_a_dl_pdu_session_container_with_it() {
    let packet = inner(
        Ipv4Addr::new(192, 168, 16, 152),
        Ipv4Addr::new(10, 45, 0, 3),
        (2, 1),
        &[1; 10],
    );
    let mut cache = EncapCache::new(N3);
    let e = cache
        .get(u32::from(GNB), Some(Qfi::new(9).unwrap()), GNB_MAC)
        .unwrap();
    e.set_teid(Teid(0x0102_0304));
    let frame = encapsulate(e, &packet);
    let dec = decapsulate(&frame).unwrap();
    assert_eq!(dec.teid(), Teid(0x0102_0304));
    assert_eq!(dec.qfi().map(Qfi::get), Some(9));
    assert!(matches!(
        dec.pdu_session_container(),
        Some(PduSessionContainer::Downlink(dl)) if dl.qfi.get() == 9
    ));
    assert_eq!(dec.inner(), &packet[..]);
    let g = GtpuRepr::parse_bytes(&frame[ETHERNET_LEN + dec.frame().datagram().gtpu_offset()..])
        .unwrap();
    assert!(matches!(
        g.pdu_session_container,
        Some(PduSessionContainer::Downlink(dl)) if dl.qfi.get() == 9
    ));
}

#[test]
fn entries_are_reused_per_gnb_qfi_and_mac_and_the_oldest_replaced() {
    let mut cache = EncapCache::new(N3);
    cache
        .get(u32::from(GNB), None, GNB_MAC)
        .unwrap()
        .set_teid(Teid(7));
    // The same key gives the same encapsulator back (its TEID is the one set last).
    assert_eq!(
        cache.get(u32::from(GNB), None, GNB_MAC).unwrap().teid(),
        Teid(7)
    );
    assert_eq!(cache.len(), 1);
    // Another QFI, MAC or gNB is another entry, with its own headers.
    assert_eq!(
        cache
            .get(u32::from(GNB), Some(Qfi::new(5).unwrap()), GNB_MAC)
            .unwrap()
            .teid(),
        Teid(0)
    );
    let other_mac = MacAddr([2, 0, 0, 0, 0, 9]);
    let e = cache.get(u32::from(GNB), None, other_mac).unwrap();
    let frame = encapsulate(e, &inner(GNB, GNB, (1, 1), &[0; 10]));
    assert_eq!(
        GtpuFrame::parse(&frame).unwrap().ethernet().destination(),
        other_mac
    );
    assert_eq!(cache.len(), 3);
    for i in 0..ENCAP_CACHE as u32 {
        cache.get(u32::from(GNB) + 1 + i, None, GNB_MAC).unwrap();
    }
    assert_eq!(cache.len(), ENCAP_CACHE);
    // The first entry was replaced: asking for it again builds it anew (TEID 0), in the place
    // of the oldest.
    let again = cache.get(u32::from(GNB), None, GNB_MAC).unwrap();
    assert_eq!(again.teid(), Teid(0));
    again.set_teid(Teid(11));
    // The next newcomer replaces the next oldest, not the entry just built.
    cache.get(u32::from(GNB) + 100, None, GNB_MAC).unwrap();
    assert_eq!(
        cache.get(u32::from(GNB), None, GNB_MAC).unwrap().teid(),
        Teid(11)
    );
    assert_eq!(cache.len(), ENCAP_CACHE);
}

#[test]
fn on_an_ipv6_n3_the_dl_g_pdu_goes_over_ipv6_to_the_gnb_its_key_names() {
    use std::net::{IpAddr, Ipv6Addr};
    let ours: Ipv6Addr = "2001:db8:13::151".parse().unwrap();
    let gnbs: Arc<[Ipv6Addr]> = Arc::new([
        "2001:db8:13::131".parse().unwrap(),
        "2001:db8:13::132".parse().unwrap(),
    ]);
    let packet = inner(
        Ipv4Addr::new(192, 168, 16, 152),
        Ipv4Addr::new(10, 45, 0, 2),
        (2, 1),
        &[7; 300],
    );
    let mut cache = EncapCache::new(N3).with_ipv6(Some(ours));
    assert!(cache.get(1, None, GNB_MAC).is_none(), "no gNB of key 1 yet");
    cache.set_gnbs_v6(&gnbs);
    assert_eq!(cache.gnb_v6(1), Some(gnbs[1]));
    let e = cache.get(1, Some(Qfi::new(9).unwrap()), GNB_MAC).unwrap();
    e.set_teid(Teid(0x22));
    let frame = encapsulate(e, &packet);
    let parsed = GtpuFrame::parse(&frame).expect("a G-PDU over IPv6");
    let d = parsed.datagram();
    assert_eq!(
        (d.source_ip(), d.destination_ip()),
        (IpAddr::V6(ours), IpAddr::V6(gnbs[1]))
    );
    assert!(d.verify_checksums(), "the UDP checksum over IPv6");
    let dec = decapsulate(&frame).unwrap();
    assert_eq!((dec.teid(), dec.inner()), (Teid(0x22), &packet[..]));
    assert_eq!(dec.qfi(), Some(Qfi::new(9).unwrap()));
}
