//! The IPv6, ICMPv6/Neighbor Discovery and VLAN decoders on arbitrary bytes, read as a tagged
//! Ethernet frame and as each layer on its own: none may panic, whatever decodes must re-emit
//! to the same bytes or to bytes that decode the same, and an IPv6 prefix that parses prints
//! back to itself.
#![no_main]

use std::net::Ipv6Addr;

use libfuzzer_sys::fuzz_target;
use upfbench_net::ethernet::ETHERTYPE_IPV6;
use upfbench_net::ipv6::{PROTOCOL_ICMPV6, PROTOCOL_UDP};
use upfbench_net::{
    Icmpv6Packet, Icmpv6Repr, Ipv6Cidr, Ipv6Packet, Ipv6Repr, TaggedEthernetRepr, UdpPacket,
    UdpRepr, VlanRepr, VlanTag,
};

fuzz_target!(|data: &[u8]| {
    if let Ok(repr) = TaggedEthernetRepr::parse(data) {
        let mut out = vec![0u8; repr.buffer_len()];
        repr.emit(&mut out).unwrap();
        assert_eq!(&out[..], &data[..repr.header_len()]);
        assert_eq!(TaggedEthernetRepr::parse(&out), Ok(repr));
        if repr.ethertype == ETHERTYPE_IPV6 {
            ipv6(&data[repr.header_len()..]);
        }
    }
    if let Ok(t) = VlanTag::new_checked(data)
        && let Ok(repr) = VlanRepr::parse(&t)
    {
        let mut out = [0u8; 4];
        repr.emit(&mut out).unwrap();
        assert_eq!(&out[..], &data[..4]);
    }
    ipv6(data);
    let (src, dst) = (
        Ipv6Addr::new(0x2001, 0xdb8, 0x13, 0, 0, 0, 0, 0x151),
        Ipv6Addr::new(0xff02, 0, 0, 0, 0, 1, 0xff00, 0x131),
    );
    icmpv6(data, &src, &dst);
    icmpv6(data, &Ipv6Addr::UNSPECIFIED, &dst);
    udp(data, &src, &dst);
    if let Ok(text) = core::str::from_utf8(data)
        && let Ok(prefix) = text.parse::<Ipv6Cidr>()
    {
        assert_eq!(prefix.to_string().parse::<Ipv6Cidr>(), Ok(prefix));
        assert!(prefix.contains(prefix.network()));
    }
});

fn ipv6(data: &[u8]) {
    let Ok(p) = Ipv6Packet::new_checked(data) else {
        return;
    };
    assert!(40 + p.payload_len() <= data.len());
    let Ok(repr) = Ipv6Repr::parse(&p) else {
        return;
    };
    let mut out = [0u8; 40];
    repr.emit(&mut out).unwrap();
    assert_eq!(&out[..], &data[..40]);
    match repr.next_header {
        PROTOCOL_ICMPV6 => icmpv6(p.payload_slice(), &repr.source, &repr.destination),
        PROTOCOL_UDP => udp(p.payload_slice(), &repr.source, &repr.destination),
        _ => {}
    }
}

fn icmpv6(data: &[u8], src: &Ipv6Addr, dst: &Ipv6Addr) {
    let Ok(p) = Icmpv6Packet::new_checked(data) else {
        return;
    };
    let _ = (p.msg_type(), p.code(), p.identifier(), p.sequence(), p.data());
    let Ok(repr) = Icmpv6Repr::parse(&p, src, dst) else {
        return;
    };
    assert!(p.verify_checksum(src, dst));
    let mut out = vec![0u8; repr.buffer_len()];
    repr.emit(&mut out, src, dst).unwrap();
    let emitted = Icmpv6Packet::new_checked(&out[..]).unwrap();
    assert!(emitted.verify_checksum(src, dst));
    assert_eq!(Icmpv6Repr::parse(&emitted, src, dst), Ok(repr));
    // Echo and other messages are kept whole (the checksum may be the other zero of one's
    // complement); a solicitation or advertisement loses the options it skipped.
    if !matches!(
        repr,
        Icmpv6Repr::NeighborSolicit(_) | Icmpv6Repr::NeighborAdvert(_)
    ) {
        assert_eq!(out[4..], data[4..]);
    }
}

fn udp(data: &[u8], src: &Ipv6Addr, dst: &Ipv6Addr) {
    let Ok(u) = UdpPacket::new_checked(data) else {
        return;
    };
    assert_eq!(
        UdpRepr::parse_ipv6(&u, src, dst).is_ok(),
        u.verify_checksum_ipv6(src, dst)
    );
}
