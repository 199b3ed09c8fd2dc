//! Tunnels over IPv6 and UE packets in IPv6, built from the input: the encapsulator over IPv6
//! must give back the inner packet with a right, non-zero UDP checksum, and templates of either
//! family inside either transport, written for any UE, TEID and tag and then stamped, must
//! decapsulate with every checksum right (the outer one updated incrementally).
#![no_main]

use std::net::{Ipv4Addr, Ipv6Addr};

use libfuzzer_sys::fuzz_target;
use upfbench_gtpu::{
    Encapsulator, IpHeader, Ipv4Packet, Ipv4Repr, Ipv6Packet, Ipv6Repr, OuterHeaders,
    PacketTemplate, PduSessionContainer, TunnelAddress, UdpChecksum, UdpPacket, UdpRepr,
    UeAddress, decapsulate,
};
use upfbench_net::{IpFamily, MacAddr, Teid};

const GNB6: Ipv6Addr = Ipv6Addr::new(0x2001, 0xdb8, 0x13, 0, 0, 0, 0, 0x131);
const UPF6: Ipv6Addr = Ipv6Addr::new(0x2001, 0xdb8, 0x13, 0, 0, 0, 0, 0x151);
const GNB4: Ipv4Addr = Ipv4Addr::new(192, 168, 13, 131);
const UPF4: Ipv4Addr = Ipv4Addr::new(192, 168, 13, 151);

fuzz_target!(|data: &[u8]| {
    let [flags, hops, tc, rest @ ..] = data else {
        return;
    };
    let mut h = headers(GNB6, UPF6, *flags, rest);
    h.ttl = *hops;
    h.dscp_ecn = *tc;
    h.flow_label = u32::from(*hops) << 12 | u32::from(*tc);
    let encap = Encapsulator::new(&h).unwrap();
    let mut buf = vec![0u8; encap.outer_len() + rest.len()];
    buf[encap.outer_len()..].copy_from_slice(rest);
    match encap.encapsulate_prepended(&mut buf) {
        Ok(()) => {
            let d = decapsulate(&buf).unwrap();
            assert_eq!(d.inner(), rest);
            assert_eq!(d.pdu_session_container(), h.pdu_session_container);
            let datagram = d.frame().datagram();
            assert_eq!(datagram.family(), IpFamily::Ipv6);
            assert!(datagram.verify_checksums());
            assert_ne!(datagram.udp().checksum(), 0);
        }
        Err(e) => assert!(rest.len() + encap.outer_len() - 54 > 65_535, "{e}"),
    }
    templates(*flags, rest);
});

fn headers<A: TunnelAddress>(s: A, d: A, flags: u8, rest: &[u8]) -> OuterHeaders<A> {
    let mut h = OuterHeaders::new(
        MacAddr([2, 0, 0, 0, 0x13, 0x31]),
        MacAddr([2, 0, 0, 0, 0x13, 0x51]),
        s,
        d,
        Teid(u32::from(flags)),
    );
    let n = 2 + 4 * usize::from(flags >> 6);
    h.pdu_session_container = rest.get(..n).and_then(|c| PduSessionContainer::parse(c).ok());
    h.udp_checksum = UdpChecksum::Compute;
    h
}

/// A template of the family `flags` picks in the transport it picks, written with a UE address
/// and a tag from `rest`, then stamped.
fn templates(flags: u8, rest: &[u8]) {
    let Some((ue, payload)) = rest.split_first_chunk::<16>() else {
        return;
    };
    if payload.len() < 10 || payload.len() > 1400 {
        return;
    }
    let encap = if flags & 1 == 0 {
        Encapsulator::new(&headers(GNB6, UPF6, flags, payload)).unwrap()
    } else {
        Encapsulator::new(&headers(GNB4, UPF4, flags, payload)).unwrap()
    };
    let udp = UdpRepr {
        source_port: 10000,
        destination_port: 20000,
    };
    let tag: [u8; 10] = payload[..10].try_into().unwrap();
    let teid = Teid(u32::from_be_bytes([ue[0], ue[1], ue[2], ue[3]]));
    let mut out = vec![0u8; encap.outer_len() + 48 + payload.len()];
    if flags & 2 == 0 {
        let inner = Ipv6Repr::udp(Ipv6Addr::LOCALHOST, UPF6);
        let t = template(&encap, &inner, &udp, payload);
        t.write_ipv6(&mut out, teid, Ipv6Addr::from(*ue), &tag).unwrap();
        check(&t, &mut out);
    } else {
        let inner = Ipv4Repr::udp(Ipv4Addr::LOCALHOST, UPF4);
        let t = template(&encap, &inner, &udp, payload);
        let ue4 = Ipv4Addr::new(ue[4], ue[5], ue[6], ue[7]);
        t.write(&mut out, teid, ue4, &tag).unwrap();
        check(&t, &mut out);
    }
}

fn template<H: IpHeader>(e: &Encapsulator, inner: &H, udp: &UdpRepr, p: &[u8]) -> PacketTemplate {
    PacketTemplate::gpdu(e, inner, udp, p, UdpChecksum::Compute, UeAddress::Source).unwrap()
}

/// Stamps a transmit time and checks every checksum of the frame.
fn check(t: &PacketTemplate, out: &mut [u8]) {
    t.stamp(out, 6, &[0xde, 0xad, 0xbe, 0xef]).unwrap();
    let d = decapsulate(&out[..t.len()]).unwrap();
    assert!(d.frame().datagram().verify_checksums());
    let inner = d.inner();
    if t.inner_family() == IpFamily::Ipv6 {
        let p = Ipv6Packet::new_checked(inner).unwrap();
        let u = UdpPacket::new_checked(p.payload_slice()).unwrap();
        assert!(UdpRepr::parse_ipv6(&u, &p.source(), &p.destination()).is_ok());
    } else {
        let p = Ipv4Packet::new_checked(inner).unwrap();
        assert!(Ipv4Repr::parse(&p).is_ok());
        let u = UdpPacket::new_checked(p.payload_slice()).unwrap();
        assert!(UdpRepr::parse(&u, p.source(), p.destination()).is_ok());
    }
}
