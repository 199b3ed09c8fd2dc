//! Packet templates: a patched template must equal, byte for byte, the frame built from scratch
//! with the same per-packet fields (so the incremental checksums are right).

use std::net::{Ipv4Addr, Ipv6Addr};

use proptest::prelude::*;
use upfbench_gtpu::{
    EmitError, Encapsulator, EthernetRepr, Ipv4Repr, Ipv6Repr, OuterHeaders, PacketTemplate,
    PduSessionContainer, UdpChecksum, UdpRepr, UeAddress, WindowPatcher, checksum, decapsulate,
    emit_ipv4_udp, emit_ipv6_udp, ethernet,
};
use upfbench_net::{MacAddr, Qfi, Teid};

fn checksum_mode() -> impl Strategy<Value = UdpChecksum> {
    prop_oneof![Just(UdpChecksum::Zero), Just(UdpChecksum::Compute)]
}

fn inner_ipv4(source: Ipv4Addr, destination: Ipv4Addr) -> Ipv4Repr {
    Ipv4Repr::udp(source, destination)
}

fn outer(teid: u32, pdusc: Option<u8>, csum: UdpChecksum) -> OuterHeaders {
    let mut h = OuterHeaders::new(
        MacAddr([2, 0, 0, 0, 0x13, 0x31]),
        MacAddr([2, 0, 0, 0, 0x13, 0x51]),
        Ipv4Addr::new(192, 168, 13, 131),
        Ipv4Addr::new(192, 168, 13, 151),
        Teid(teid),
    );
    h.pdu_session_container = pdusc.map(|q| PduSessionContainer::uplink(Qfi::new(q).unwrap()));
    h.udp_checksum = csum;
    h
}

const TEMPLATE_UE: Ipv4Addr = Ipv4Addr::new(10, 45, 0, 2);
const DN: Ipv4Addr = Ipv4Addr::new(192, 168, 16, 152);
const N6_ETHERNET: EthernetRepr = EthernetRepr {
    source: MacAddr([2, 0, 0, 0, 0x16, 0x52]),
    destination: MacAddr([2, 0, 0, 0, 0x16, 0x51]),
    ethertype: ethernet::ETHERTYPE_IPV4,
};
const N3_UDP: UdpRepr = UdpRepr {
    source_port: 10000,
    destination_port: 20000,
};
const N6_UDP: UdpRepr = UdpRepr {
    source_port: 20000,
    destination_port: 10000,
};

/// The uplink template to [`TEMPLATE_UE`] behind `encap`.
fn gpdu_template(encap: &Encapsulator, payload: &[u8], inner_csum: UdpChecksum) -> PacketTemplate {
    PacketTemplate::gpdu(
        encap,
        &inner_ipv4(TEMPLATE_UE, DN),
        &N3_UDP,
        payload,
        inner_csum,
        UeAddress::Source,
    )
    .unwrap()
}

/// The downlink (N6) template to [`TEMPLATE_UE`].
fn plain_template(payload: &[u8], csum: UdpChecksum) -> PacketTemplate {
    PacketTemplate::plain(
        &N6_ETHERNET,
        &inner_ipv4(DN, TEMPLATE_UE),
        &N6_UDP,
        payload,
        csum,
        UeAddress::Destination,
    )
    .unwrap()
}

/// The downlink frame to `ue` built from scratch, `tag` at the start of `payload`.
fn scratch_plain(ue: Ipv4Addr, payload: &[u8], tag: &[u8; 10], csum: UdpChecksum) -> Vec<u8> {
    let mut frame = vec![0u8; 14 + 28 + payload.len()];
    N6_ETHERNET.emit(&mut frame).unwrap();
    let mut p = payload.to_vec();
    p[..10].copy_from_slice(tag);
    emit_ipv4_udp(&mut frame[14..], &inner_ipv4(DN, ue), &N6_UDP, &p, csum).unwrap();
    frame
}

/// The uplink frame built from scratch.
fn scratch_gpdu(
    headers: &OuterHeaders,
    ue: Ipv4Addr,
    payload: &[u8],
    inner_csum: UdpChecksum,
) -> Vec<u8> {
    let encap = Encapsulator::new(headers).unwrap();
    let at = encap.outer_len();
    let mut buf = vec![0u8; at + 28 + payload.len()];
    let n = emit_ipv4_udp(
        &mut buf[at..],
        &inner_ipv4(ue, DN),
        &N3_UDP,
        payload,
        inner_csum,
    )
    .unwrap();
    encap.encapsulate(&mut buf, at..at + n).unwrap();
    buf
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(1000))]

    #[test]
    fn gpdu_template_write_and_stamp_match_scratch(
        (payload, tag, stamp_at, stamp) in (10usize..400).prop_flat_map(|n| (
            proptest::collection::vec(any::<u8>(), n),
            proptest::collection::vec(any::<u8>(), 0..=10),
            0..n - 8,
            any::<[u8; 8]>(),
        )),
        teid in any::<u32>(), ue in any::<u32>(),
        pdusc in proptest::option::of(0u8..=63),
        outer_csum in checksum_mode(), inner_csum in checksum_mode(),
    ) {
        let encap = Encapsulator::new(&outer(1, pdusc, outer_csum)).unwrap();
        let t = gpdu_template(&encap, &payload, inner_csum);
        prop_assert_eq!(t.bytes(), &scratch_gpdu(&outer(1, pdusc, outer_csum), TEMPLATE_UE, &payload, inner_csum)[..]);

        let mut frame = vec![0xaau8; t.len() + 3];
        prop_assert_eq!(t.write(&mut frame, Teid(teid), Ipv4Addr::from(ue), &tag), Ok(t.len()));
        let mut expected_payload = payload.clone();
        expected_payload[..tag.len()].copy_from_slice(&tag);
        let expected = scratch_gpdu(&outer(teid, pdusc, outer_csum), Ipv4Addr::from(ue), &expected_payload, inner_csum);
        prop_assert_eq!(&frame[..t.len()], &expected[..]);
        prop_assert_eq!(&frame[t.len()..], &[0xaa; 3]);

        t.stamp(&mut frame, stamp_at, &stamp).unwrap();
        expected_payload[stamp_at..stamp_at + 8].copy_from_slice(&stamp);
        let expected = scratch_gpdu(&outer(teid, pdusc, outer_csum), Ipv4Addr::from(ue), &expected_payload, inner_csum);
        prop_assert_eq!(&frame[..t.len()], &expected[..]);
        let d = decapsulate(&frame[..t.len()]).unwrap();
        prop_assert!(d.frame().datagram().verify_checksums());
        prop_assert_eq!(d.inner_offset(), t.inner_offset());
    }

    #[test]
    fn plain_template_matches_scratch(
        payload in proptest::collection::vec(any::<u8>(), 10..300),
        tag in any::<[u8; 10]>(), ue in any::<u32>(), csum in checksum_mode(),
    ) {
        let t = plain_template(&payload, csum);
        let mut frame = vec![0u8; t.len()];
        t.write(&mut frame, Teid(99), Ipv4Addr::from(ue), &tag).unwrap();
        prop_assert_eq!(frame, scratch_plain(Ipv4Addr::from(ue), &payload, &tag, csum));
    }
}

#[test]
fn template_errors() {
    let encap = Encapsulator::new(&outer(1, None, UdpChecksum::Zero)).unwrap();
    let t = gpdu_template(&encap, &[0; 10], UdpChecksum::Compute);
    assert_eq!(t.len(), 50 + 38);
    assert_eq!(t.payload_offset(), 50 + 28);
    assert_eq!(t.payload_len(), 10);
    let mut small = [0u8; 87];
    assert_eq!(
        t.write(&mut small, Teid(1), Ipv4Addr::LOCALHOST, &[]),
        Err(EmitError::BufferTooSmall {
            needed: 88,
            available: 87
        })
    );
    let mut frame = [0u8; 88];
    assert_eq!(
        t.write(&mut frame, Teid(1), Ipv4Addr::LOCALHOST, &[0; 11]),
        Err(EmitError::BufferTooSmall {
            needed: 11,
            available: 10
        })
    );
    assert_eq!(
        t.stamp(&mut frame, 5, &[0; 6]),
        Err(EmitError::BufferTooSmall {
            needed: 89,
            available: 88
        })
    );
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(500))]

    /// A window patched per packet (again and again in one buffer, as a pool's mbufs are), with
    /// the template's patcher or with the `const` one of its layout, holds the frame built from
    /// scratch for that UE, TEID and tag.
    #[test]
    fn window_patch_matches_scratch(
        payload in proptest::collection::vec(any::<u8>(), 10..200),
        packets in proptest::collection::vec((any::<u32>(), any::<u32>(), any::<[u8; 10]>()), 1..4),
        pdusc in proptest::option::of(0u8..=63),
        inner_csum in checksum_mode(),
    ) {
        let encap = Encapsulator::new(&outer(1, pdusc, UdpChecksum::Zero)).unwrap();
        let t = gpdu_template(&encap, &payload, inner_csum);
        let gtpu_header_len = encap.outer_len() - upfbench_gtpu::encap::layout::GTPU;
        let on = inner_csum == UdpChecksum::Compute;
        let constant = WindowPatcher::gpdu(gtpu_header_len, UeAddress::Source, on);
        prop_assert_eq!(t.window_patcher(), constant);
        let range = t.patch_range(10).unwrap();
        prop_assert_eq!(range.len(), constant.len(10));
        let mut frame = t.bytes().to_vec();
        for (teid, ue, tag) in packets {
            let p = t.ue_patch::<10>(Teid(teid), Ipv4Addr::from(ue));
            constant.patch_summed(&mut frame[range.clone()], &p, &tag, checksum::word_sum(&tag));
            let mut expected_payload = payload.clone();
            expected_payload[..10].copy_from_slice(&tag);
            let expected = scratch_gpdu(
                &outer(teid, pdusc, UdpChecksum::Zero), Ipv4Addr::from(ue), &expected_payload, inner_csum,
            );
            prop_assert_eq!(&frame, &expected);
        }
    }

    /// The same for a plain frame to the UE (N6 downlink).
    #[test]
    fn plain_window_patch_matches_scratch(
        payload in proptest::collection::vec(any::<u8>(), 10..200),
        packets in proptest::collection::vec((any::<u32>(), any::<[u8; 10]>()), 1..4),
        csum in checksum_mode(),
    ) {
        let t = plain_template(&payload, csum);
        let constant = WindowPatcher::plain(UeAddress::Destination, csum == UdpChecksum::Compute);
        prop_assert_eq!(t.window_patcher(), constant);
        let range = t.patch_range(10).unwrap();
        prop_assert_eq!(range.len(), constant.len(10));
        let mut frame = t.bytes().to_vec();
        for (ue, tag) in packets {
            constant.patch(&mut frame[range.clone()], &t.ue_patch::<10>(Teid(7), Ipv4Addr::from(ue)), &tag);
            prop_assert_eq!(&frame, &scratch_plain(Ipv4Addr::from(ue), &payload, &tag, csum));
        }
    }
}

/// The IPv6 headers of the same tunnel: the outer UDP checksum computed, as IPv6 requires.
fn outer_v6(teid: u32, pdusc: Option<u8>) -> OuterHeaders<Ipv6Addr> {
    let mut h = OuterHeaders::new(
        MacAddr([2, 0, 0, 0, 0x13, 0x31]),
        MacAddr([2, 0, 0, 0, 0x13, 0x51]),
        "2001:db8:13::131".parse().unwrap(),
        "2001:db8:13::151".parse().unwrap(),
        Teid(teid),
    );
    h.pdu_session_container = pdusc.map(|q| PduSessionContainer::uplink(Qfi::new(q).unwrap()));
    h
}

const DN6: Ipv6Addr = Ipv6Addr::new(0x2001, 0xdb8, 0x16, 0, 0, 0, 0, 0x152);

/// The uplink frame with an IPv6 UE packet from `ue`, built from scratch behind `encap`.
fn scratch_gpdu_v6(encap: &Encapsulator, ue: Ipv6Addr, payload: &[u8]) -> Vec<u8> {
    let at = encap.outer_len();
    let mut buf = vec![0u8; at + 48 + payload.len()];
    let n = emit_ipv6_udp(&mut buf[at..], &Ipv6Repr::udp(ue, DN6), &N3_UDP, payload).unwrap();
    encap.encapsulate(&mut buf, at..at + n).unwrap();
    buf
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(1000))]

    /// Templates over IPv6 (outer UDP checksum updated incrementally) with IPv4 or IPv6 UE
    /// packets: writing and stamping gives the frame built from scratch, byte for byte.
    #[test]
    fn ipv6_templates_write_and_stamp_match_scratch(
        teid in any::<u32>(), pdusc in proptest::option::of(0u8..64), v6_ue in any::<bool>(),
        ue in any::<u128>(), tag in any::<[u8; 10]>(), time in any::<[u8; 4]>(),
        payload in proptest::collection::vec(any::<u8>(), 10..300),
    ) {
        let template_encap = Encapsulator::new(&outer_v6(1, pdusc)).unwrap();
        let encap = Encapsulator::new(&outer_v6(teid, pdusc)).unwrap();
        let mut sent = payload.clone();
        sent[..10].copy_from_slice(&tag);
        sent[6..10].copy_from_slice(&time);
        let mut frame = vec![0u8; 2048];
        let expected = if v6_ue {
            let inner = Ipv6Repr::udp("2001:db8:45::2".parse().unwrap(), DN6);
            let t = PacketTemplate::gpdu(&template_encap, &inner, &N3_UDP, &payload, UdpChecksum::Compute, UeAddress::Source).unwrap();
            prop_assert_eq!(t.write_ipv6(&mut frame, Teid(teid), Ipv6Addr::from(ue), &tag), Ok(t.len()));
            t.stamp(&mut frame, 6, &time).unwrap();
            frame.truncate(t.len());
            scratch_gpdu_v6(&encap, Ipv6Addr::from(ue), &sent)
        } else {
            let t = gpdu_template(&template_encap, &payload, UdpChecksum::Compute);
            let ue = Ipv4Addr::from(ue as u32);
            prop_assert_eq!(t.write(&mut frame, Teid(teid), ue, &tag), Ok(t.len()));
            t.stamp(&mut frame, 6, &time).unwrap();
            frame.truncate(t.len());
            let at = encap.outer_len();
            let mut buf = vec![0u8; at + 28 + sent.len()];
            let n = emit_ipv4_udp(&mut buf[at..], &inner_ipv4(ue, DN), &N3_UDP, &sent, UdpChecksum::Compute).unwrap();
            encap.encapsulate(&mut buf, at..at + n).unwrap();
            buf
        };
        prop_assert_eq!(frame, expected);
    }
}
