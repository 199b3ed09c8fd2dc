//! Every decoder of the crate on arbitrary bytes, read as an Ethernet frame and as each layer
//! on its own: none may panic, and whatever decodes must re-emit to the same bytes.
#![no_main]

use std::net::Ipv4Addr;

use libfuzzer_sys::fuzz_target;
use upfbench_net::ethernet::{ETHERTYPE_ARP, ETHERTYPE_IPV4};
use upfbench_net::ipv4::{PROTOCOL_ICMP, PROTOCOL_UDP};
use upfbench_net::{
    ArpPacket, ArpRepr, EthernetFrame, EthernetRepr, Icmpv4Packet, Icmpv4Repr, Ipv4Packet,
    Ipv4Repr, UdpPacket, UdpRepr,
};

fuzz_target!(|data: &[u8]| {
    if let Ok(eth) = EthernetFrame::new_checked(data) {
        let repr = EthernetRepr::parse(&eth);
        let mut out = [0u8; 14];
        repr.emit(&mut out).unwrap();
        assert_eq!(&out[..], &data[..14]);
        match eth.ethertype() {
            ETHERTYPE_ARP => arp(eth.payload()),
            ETHERTYPE_IPV4 => ipv4(eth.payload()),
            _ => {}
        }
    }
    arp(data);
    ipv4(data);
    icmp(data);
    udp(
        data,
        Ipv4Addr::new(192, 168, 13, 131),
        Ipv4Addr::new(192, 168, 13, 151),
    );
});

fn arp(data: &[u8]) {
    let Ok(p) = ArpPacket::new_checked(data) else {
        return;
    };
    if let Ok(repr) = ArpRepr::parse(&p) {
        let mut out = [0u8; 28];
        repr.emit(&mut out).unwrap();
        assert_eq!(&out[..], &data[..28]);
        assert_eq!(repr.reply(repr.target_mac).target_ip, repr.sender_ip);
    }
}

fn ipv4(data: &[u8]) {
    let Ok(p) = Ipv4Packet::new_checked(data) else {
        return;
    };
    assert!(p.header_len() <= p.total_len() && p.total_len() <= data.len());
    let _ = p.options();
    if let Ok(repr) = Ipv4Repr::parse(&p) {
        assert!(p.verify_checksum() && !p.is_fragment());
        if p.header_len() == 20 {
            let mut out = [0u8; 20];
            repr.emit(&mut out).unwrap();
            // Re-emitted headers carry no reserved flag bit; the rest is the same, but for the
            // checksum: a received 0xffff verifies as well as the 0x0000 an emitter computes
            // (the two zeros of one's complement), so the fields are compared, and the
            // re-emitted header must verify.
            let mut want = [0u8; 20];
            want.copy_from_slice(&data[..20]);
            if want[6] & 0x80 == 0 {
                assert_eq!(out[..10], want[..10]);
                assert_eq!(out[12..], want[12..]);
            }
            assert_eq!(
                upfbench_net::checksum::sum(&out),
                0xffff,
                "re-emitted header verifies"
            );
        }
        match repr.protocol {
            PROTOCOL_ICMP => icmp(p.payload()),
            PROTOCOL_UDP => udp(p.payload(), repr.source, repr.destination),
            _ => {}
        }
    }
}

fn icmp(data: &[u8]) {
    let Ok(p) = Icmpv4Packet::new_checked(data) else {
        return;
    };
    let _ = (
        p.msg_type(),
        p.code(),
        p.identifier(),
        p.sequence(),
        p.data(),
    );
    match Icmpv4Repr::parse(&p) {
        Ok(repr) => {
            assert!(p.verify_checksum());
            let mut out = vec![0u8; repr.buffer_len()];
            repr.emit(&mut out).unwrap();
            // The same message; its checksum may be the other zero of one's complement
            // (0xffff where the sum gives 0x0000), which verifies as well.
            assert_eq!(out[4..], data[4..]);
            let emitted = Icmpv4Packet::new_checked(&out[..]).unwrap();
            assert_eq!(Icmpv4Repr::parse(&emitted), Ok(repr));
        }
        Err(_) => assert!(!p.verify_checksum()),
    }
}

fn udp(data: &[u8], src: Ipv4Addr, dst: Ipv4Addr) {
    let Ok(u) = UdpPacket::new_checked(data) else {
        return;
    };
    assert!(u.len() <= data.len());
    let _ = u.payload();
    assert_eq!(
        UdpRepr::parse(&u, src, dst).is_ok(),
        u.verify_checksum(src, dst)
    );
}
