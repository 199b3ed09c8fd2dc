//! Property tests: representation round trips, encapsulation/decapsulation and decoders that
//! never panic. The checksums' and the lower layers' own properties are `upfbench-net`'s tests.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

use proptest::prelude::*;
use upfbench_gtpu::{
    DlPduSessionInformation, Encapsulator, EthernetRepr, GtpuDatagram, GtpuFrame, GtpuHeaderRepr,
    GtpuPacket, GtpuRepr, Ipv4Packet, Ipv4Repr, Ipv6Packet, Ipv6Repr, Message, MessageType,
    OuterHeaders, ParseError, PduSessionContainer, Ppi, QfiSequenceNumber, UdpChecksum, UdpPacket,
    UdpRepr, UlPduSessionInformation, UlQosMonitoring, decapsulate, emit_ipv4_udp, emit_ipv6_udp,
    udp_payload,
};
use upfbench_net::error as net;
use upfbench_net::{MacAddr, Qfi, Teid};

fn qfi() -> impl Strategy<Value = Qfi> {
    (0u8..=63).prop_map(|q| Qfi::new(q).unwrap())
}

fn sn() -> impl Strategy<Value = QfiSequenceNumber> {
    (0u32..=0xff_ffff).prop_map(|s| QfiSequenceNumber::new(s).unwrap())
}

fn container() -> impl Strategy<Value = PduSessionContainer> {
    let dl = (
        qfi(),
        any::<bool>(),
        proptest::option::of((0u8..=7).prop_map(|p| Ppi::new(p).unwrap())),
        proptest::option::of(any::<u64>()),
        proptest::option::of(sn()),
    )
        .prop_map(
            |(qfi, rqi, ppi, dl_sending_time_stamp, dl_qfi_sequence_number)| {
                PduSessionContainer::Downlink(DlPduSessionInformation {
                    qfi,
                    rqi,
                    ppi,
                    dl_sending_time_stamp,
                    dl_qfi_sequence_number,
                })
            },
        );
    let ul = (
        qfi(),
        proptest::option::of(any::<(u64, u64, u64)>()),
        proptest::option::of(any::<u32>()),
        proptest::option::of(any::<u32>()),
        proptest::option::of(sn()),
        proptest::option::of(any::<u32>()),
    )
        .prop_map(
            |(qfi, qm, dl_delay_result, ul_delay_result, ul_qfi_sequence_number, n3)| {
                PduSessionContainer::Uplink(UlPduSessionInformation {
                    qfi,
                    qos_monitoring: qm.map(|(a, b, c)| UlQosMonitoring {
                        dl_sending_time_stamp_repeated: a,
                        dl_received_time_stamp: b,
                        ul_sending_time_stamp: c,
                    }),
                    dl_delay_result,
                    ul_delay_result,
                    ul_qfi_sequence_number,
                    n3_n9_delay_result: n3,
                })
            },
        );
    prop_oneof![dl, ul]
}

/// A message body; G-PDUs carry the T-PDU given to `build`.
#[derive(Debug, Clone)]
enum Body {
    EchoRequest,
    EchoResponse(u8),
    ErrorIndication(u32, IpAddr),
    EndMarker,
    GPdu,
}

fn body() -> impl Strategy<Value = Body> {
    let addr = prop_oneof![
        any::<u32>().prop_map(|a| IpAddr::V4(Ipv4Addr::from(a))),
        any::<u128>().prop_map(|a| IpAddr::V6(Ipv6Addr::from(a))),
    ];
    prop_oneof![
        Just(Body::EchoRequest),
        any::<u8>().prop_map(Body::EchoResponse),
        (any::<u32>(), addr).prop_map(|(t, a)| Body::ErrorIndication(t, a)),
        Just(Body::EndMarker),
        Just(Body::GPdu),
    ]
}

fn message<'a>(body: &Body, t_pdu: &'a [u8]) -> Message<'a> {
    match *body {
        Body::EchoRequest => Message::EchoRequest,
        Body::EchoResponse(recovery) => Message::EchoResponse { recovery },
        Body::ErrorIndication(t, peer_address) => Message::ErrorIndication {
            teid_data_i: Teid(t),
            peer_address,
        },
        Body::EndMarker => Message::EndMarker,
        Body::GPdu => Message::GPdu { t_pdu },
    }
}

fn mac() -> impl Strategy<Value = MacAddr> {
    any::<[u8; 6]>().prop_map(MacAddr)
}

fn outer_headers() -> impl Strategy<Value = OuterHeaders> {
    (
        (mac(), mac(), any::<u32>(), any::<u32>(), any::<u32>()),
        (
            any::<u8>(),
            any::<u8>(),
            any::<u16>(),
            any::<bool>(),
            any::<u16>(),
        ),
        (any::<bool>(), proptest::option::of(container())),
    )
        .prop_map(
            |((sm, dm, s, d, teid), (ttl, tos, id, df, sport), (csum, pdusc))| {
                let mut h =
                    OuterHeaders::new(sm, dm, Ipv4Addr::from(s), Ipv4Addr::from(d), Teid(teid));
                h.ttl = ttl;
                h.dscp_ecn = tos;
                h.identification = id;
                h.dont_fragment = df;
                h.source_port = sport;
                h.udp_checksum = if csum {
                    UdpChecksum::Compute
                } else {
                    UdpChecksum::Zero
                };
                h.pdu_session_container = pdusc;
                h
            },
        )
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn pdu_session_container_round_trips(c in container()) {
        let mut buf = vec![0u8; c.content_len()];
        c.emit(&mut buf).unwrap();
        prop_assert_eq!((buf.len() + 2) % 4, 0);
        prop_assert_eq!(PduSessionContainer::parse(&buf), Ok(c));
    }

    #[test]
    fn gtpu_repr_round_trips(
        teid in any::<u32>(),
        seq in proptest::option::of(any::<u16>()),
        npdu in proptest::option::of(any::<u8>()),
        pdusc in proptest::option::of(container()),
        udp_port in proptest::option::of(any::<u16>()),
        body in body(),
        t_pdu in proptest::collection::vec(any::<u8>(), 0..300),
    ) {
        let repr = GtpuRepr {
            teid: Teid(teid),
            sequence_number: seq,
            npdu_number: npdu,
            pdu_session_container: pdusc,
            udp_port,
            message: message(&body, &t_pdu),
        };
        let mut buf = vec![0u8; repr.buffer_len()];
        repr.emit(&mut buf).unwrap();
        let view = GtpuPacket::new_checked(&buf[..]).unwrap();
        prop_assert_eq!(view.message_len(), buf.len());
        prop_assert_eq!(view.header_len(), repr.header().buffer_len());
        prop_assert_eq!(view.message_type(), repr.message.message_type());
        prop_assert_eq!(view.qfi(), pdusc.map(|c| c.qfi()));
        prop_assert_eq!(GtpuHeaderRepr::parse(&view), repr.header());
        prop_assert_eq!(GtpuRepr::parse(&view), Ok(repr));
    }

    #[test]
    fn encapsulate_then_decapsulate(
        headers in outer_headers(),
        inner in proptest::collection::vec(any::<u8>(), 0..1600),
        headroom_extra in 0usize..64,
    ) {
        let encap = Encapsulator::new(&headers).unwrap();
        let start = encap.outer_len() + headroom_extra;
        let mut buf = vec![0u8; start + inner.len()];
        buf[start..].copy_from_slice(&inner);
        let frame = encap.encapsulate(&mut buf, start..start + inner.len()).unwrap();
        prop_assert_eq!(frame.clone(), headroom_extra..buf.len());
        let d = decapsulate(&buf[frame]).unwrap();
        prop_assert_eq!(d.inner(), &inner[..]);
        prop_assert_eq!(d.inner_offset(), encap.outer_len());
        prop_assert_eq!(d.teid(), headers.teid);
        prop_assert_eq!(d.pdu_session_container(), headers.pdu_session_container);
        let f = d.frame();
        prop_assert_eq!(EthernetRepr::parse(&f.ethernet()).source, headers.source_mac);
        prop_assert!(f.datagram().verify_checksums());
        let ip = Ipv4Repr::parse(&f.datagram().ipv4().unwrap()).unwrap();
        prop_assert_eq!(ip.ttl, headers.ttl);
        prop_assert_eq!(ip.identification, headers.identification);
        prop_assert_eq!(ip.dont_fragment, headers.dont_fragment);
        prop_assert_eq!(f.datagram().udp().source_port(), headers.source_port);
        prop_assert_eq!(
            f.datagram().udp().checksum() != 0,
            headers.udp_checksum == UdpChecksum::Compute
        );
    }

    #[test]
    fn ipv4_udp_round_trips(
        src in any::<u32>(), dst in any::<u32>(), ttl in any::<u8>(), tos in any::<u8>(),
        id in any::<u16>(), df in any::<bool>(), sport in any::<u16>(), dport in any::<u16>(),
        payload in proptest::collection::vec(any::<u8>(), 0..600), csum in any::<bool>(),
    ) {
        let ip = Ipv4Repr {
            source: Ipv4Addr::from(src),
            destination: Ipv4Addr::from(dst),
            protocol: 17,
            payload_len: 8 + payload.len(),
            ttl,
            dscp_ecn: tos,
            identification: id,
            dont_fragment: df,
        };
        let udp = UdpRepr { source_port: sport, destination_port: dport };
        let mut buf = vec![0u8; 28 + payload.len()];
        let mode = if csum { UdpChecksum::Compute } else { UdpChecksum::Zero };
        prop_assert_eq!(emit_ipv4_udp(&mut buf, &ip, &udp, &payload, mode), Ok(buf.len()));
        let p = Ipv4Packet::new_checked(&buf[..]).unwrap();
        prop_assert_eq!(Ipv4Repr::parse(&p), Ok(ip));
        let u = UdpPacket::new_checked(p.payload()).unwrap();
        prop_assert_eq!(UdpRepr::parse(&u, ip.source, ip.destination), Ok(udp));
        prop_assert_eq!(u.payload(), &payload[..]);
        prop_assert_eq!(u.checksum() != 0, csum);
    }

    /// Arbitrary bytes: every decoder returns, none panics, and what decodes re-emits and
    /// decodes to the same representation.
    #[test]
    fn decoders_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..200)) {
        let _ = decapsulate(&bytes);
        let _ = GtpuFrame::parse(&bytes);
        let _ = GtpuDatagram::parse(&bytes);
        prop_assert_eq!(
            PduSessionContainer::validate(&bytes),
            PduSessionContainer::parse(&bytes).map(|_| ())
        );
        if let Ok(p) = GtpuPacket::new_checked(&bytes[..]) {
            let _ = p.extension_headers().count();
            let _ = (p.pdu_session_container(), p.udp_port(), p.payload());
            if let Ok(repr) = GtpuRepr::parse(&p) {
                let mut out = vec![0u8; repr.buffer_len()];
                repr.emit(&mut out).unwrap();
                prop_assert_eq!(GtpuRepr::parse_bytes(&out), Ok(repr));
            }
        }
    }

    /// The cheap validation of the receive path agrees with the full decoder, error included.
    #[test]
    fn container_validate_agrees_with_parse(
        first in 0u8..0x30,
        rest in proptest::collection::vec(any::<u8>(), 0..50),
    ) {
        let mut content = vec![first];
        content.extend_from_slice(&rest);
        prop_assert_eq!(
            PduSessionContainer::validate(&content),
            PduSessionContainer::parse(&content).map(|_| ())
        );
    }

    /// GTP-U-shaped bytes: a valid first octet and length so that the fuzzing reaches the
    /// extension header chain and the IEs.
    #[test]
    fn gtpu_shaped_bytes_never_panic(
        flags in 0u8..8, message_type in prop_oneof![Just(1u8), Just(2), Just(26), Just(254), Just(255)],
        rest in proptest::collection::vec(any::<u8>(), 4..120),
    ) {
        let mut m = vec![0x30 | flags, message_type, 0, 0, 0, 0, 0, 1];
        m.extend_from_slice(&rest);
        let len = (m.len() - 8) as u16;
        m[2..4].copy_from_slice(&len.to_be_bytes());
        if let Ok(p) = GtpuPacket::new_checked(&m[..]) {
            prop_assert!(p.header_len() <= p.message_len());
            if let Ok(repr) = GtpuRepr::parse(&p) {
                prop_assert_eq!(repr.message.message_type(), MessageType(message_type));
                let mut out = vec![0u8; repr.buffer_len()];
                repr.emit(&mut out).unwrap();
                prop_assert_eq!(GtpuRepr::parse_bytes(&out), Ok(repr));
            }
        }
    }
}

/// Damages a packet the way the shortcut tests need: the big-endian 16-bit length fields at the
/// given offsets moved by a little (where a shortcut's bound would be off by one), octets
/// overwritten, and the packet cut short.
fn mangle(
    buf: &mut Vec<u8>,
    length_nudges: &[(usize, i32)],
    edits: &[(usize, u8)],
    cut: Option<proptest::sample::Index>,
) {
    for &(at, delta) in length_nudges {
        let len = i32::from(u16::from_be_bytes([buf[at], buf[at + 1]])) + delta;
        buf[at..at + 2].copy_from_slice(&(len as u16).to_be_bytes());
    }
    for &(at, byte) in edits {
        if let Some(b) = buf.get_mut(at) {
            *b = byte;
        }
    }
    if let Some(cut) = cut {
        buf.truncate(cut.index(buf.len() + 1));
    }
}

/// What `decapsulate` must return: the result of the public layer views, one after the other.
fn decapsulate_by_layers(f: &[u8]) -> Result<(GtpuFrame<'_>, &[u8], usize), ParseError> {
    let parsed = GtpuFrame::parse(f)?;
    let (inner, offset) = parsed
        .datagram()
        .t_pdu()
        .map_err(|e| e.offset_by(upfbench_gtpu::ethernet::HEADER_LEN))?;
    Ok((parsed, inner, upfbench_gtpu::ethernet::HEADER_LEN + offset))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(8000))]

    /// `decapsulate` reads common frames at fixed offsets and sends the rest through the layer
    /// views: on encapsulated frames, and on the same frames with header octets overwritten
    /// (flags, lengths, extension types, IHL...) or the frame cut short, its answer is the
    /// layered one, errors included.
    #[test]
    fn decapsulate_agrees_with_the_layer_views(
        headers in outer_headers(),
        inner in proptest::collection::vec(any::<u8>(), 0..120),
        edits in proptest::collection::vec((0usize..96, any::<u8>()), 0..4),
        cut in proptest::option::of(any::<proptest::sample::Index>()),
        length_deltas in (-2i32..=2, -2i32..=2, -2i32..=2),
        padding in 0usize..4,
    ) {
        let encap = Encapsulator::new(&headers).unwrap();
        let start = encap.outer_len();
        let mut buf = vec![0u8; start + inner.len() + padding];
        buf[start..start + inner.len()].copy_from_slice(&inner);
        encap.encapsulate(&mut buf, start..start + inner.len()).unwrap();
        // The IPv4 total, UDP and GTP-U length fields.
        let (ip, udp, gtpu) = length_deltas;
        mangle(&mut buf, &[(16, ip), (38, udp), (44, gtpu)], &edits, cut);
        let expected = decapsulate_by_layers(&buf);
        match decapsulate(&buf) {
            Ok(d) => {
                let (frame, inner, offset) = expected.unwrap();
                prop_assert_eq!(d.frame(), &frame);
                prop_assert_eq!(d.inner(), inner);
                prop_assert_eq!(d.inner_offset(), offset);
                prop_assert_eq!(d.qfi(), frame.gtpu().qfi());
            }
            Err(e) => prop_assert_eq!(Err(e), expected.map(|_| ())),
        }
    }
}

/// What `udp_payload` must return: the public IPv4 or IPv6 (by the version) and UDP views,
/// one after the other.
fn udp_payload_by_layers(d: &[u8]) -> Result<&[u8], ParseError> {
    if d.first().is_some_and(|b| b >> 4 == 6) {
        return udp_payload_by_ipv6_layers(d);
    }
    let ip = Ipv4Packet::new_checked(d)?;
    if ip.is_fragment() {
        return Err(ParseError::Net(net::ParseError::Fragmented {
            offset: 0,
            fragment_offset: ip.fragment_offset(),
            more_fragments: ip.more_fragments(),
        }));
    }
    if ip.protocol() != 17 {
        return Err(ParseError::UnexpectedProtocol {
            offset: 9,
            protocol: ip.protocol(),
        });
    }
    let udp =
        UdpPacket::new_checked(ip.payload_slice()).map_err(|e| e.offset_by(ip.header_len()))?;
    Ok(udp.payload_slice())
}

fn udp_payload_by_ipv6_layers(d: &[u8]) -> Result<&[u8], ParseError> {
    let ip = Ipv6Packet::new_checked(d)?;
    let next_header = Ipv6Repr::parse(&ip)?.next_header;
    if next_header != 17 {
        return Err(ParseError::UnexpectedNextHeader {
            offset: 6,
            next_header,
        });
    }
    let udp = UdpPacket::new_checked(ip.payload_slice()).map_err(|e| e.offset_by(40))?;
    Ok(udp.payload_slice())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(8000))]

    /// `udp_payload` reads IPv4 without options at fixed offsets and sends the rest through the
    /// views: on emitted datagrams (with Ethernet-style padding), and on the same with header
    /// octets overwritten (IHL, flags, protocol, lengths) or the datagram cut short, its answer
    /// is the layered one, errors included.
    #[test]
    fn udp_payload_agrees_with_the_layer_views(
        payload in proptest::collection::vec(any::<u8>(), 0..64),
        padding in 0usize..8,
        df in any::<bool>(),
        edits in proptest::collection::vec((0usize..36, any::<u8>()), 0..4),
        cut in proptest::option::of(any::<proptest::sample::Index>()),
        total_delta in -2i32..=2,
        udp_delta in -2i32..=2,
    ) {
        let ip = Ipv4Repr {
            source: Ipv4Addr::new(10, 45, 0, 1),
            destination: Ipv4Addr::new(10, 0, 0, 2),
            protocol: 17,
            payload_len: 8 + payload.len(),
            ttl: 64,
            dscp_ecn: 0,
            identification: 7,
            dont_fragment: df,
        };
        let udp = UdpRepr { source_port: 5000, destination_port: 6000 };
        let mut buf = vec![0u8; 28 + payload.len() + padding];
        emit_ipv4_udp(&mut buf, &ip, &udp, &payload, UdpChecksum::Compute).unwrap();
        prop_assert_eq!(udp_payload(&buf), Ok(&payload[..]));
        // The IPv4 total and UDP length fields.
        mangle(&mut buf, &[(2, total_delta), (24, udp_delta)], &edits, cut);
        prop_assert_eq!(udp_payload(&buf), udp_payload_by_layers(&buf));
    }
}

fn outer_headers_v6() -> impl Strategy<Value = OuterHeaders<Ipv6Addr>> {
    (
        (mac(), mac(), any::<u128>(), any::<u128>(), any::<u32>()),
        (any::<u8>(), any::<u8>(), 0u32..=0xf_ffff, any::<u16>()),
        proptest::option::of(container()),
    )
        .prop_map(|((sm, dm, s, d, teid), (hops, tc, flow, sport), pdusc)| {
            let mut h = OuterHeaders::new(sm, dm, Ipv6Addr::from(s), Ipv6Addr::from(d), Teid(teid));
            h.ttl = hops;
            h.dscp_ecn = tc;
            h.flow_label = flow;
            h.source_port = sport;
            h.pdu_session_container = pdusc;
            h
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    /// Over IPv6: the frame decapsulates to the inner packet, the IPv6 header holds the
    /// headers' fields, and the mandatory UDP checksum is there and right.
    #[test]
    fn encapsulate_then_decapsulate_over_ipv6(
        headers in outer_headers_v6(),
        inner in proptest::collection::vec(any::<u8>(), 0..1600),
        headroom_extra in 0usize..64,
    ) {
        let encap = Encapsulator::new(&headers).unwrap();
        let gtpu_len = encap.outer_len() - 62;
        prop_assert_eq!(encap.outer_len(), 14 + 40 + 8 + gtpu_len);
        let start = encap.outer_len() + headroom_extra;
        let mut buf = vec![0u8; start + inner.len()];
        buf[start..].copy_from_slice(&inner);
        let frame = encap.encapsulate(&mut buf, start..start + inner.len()).unwrap();
        let d = decapsulate(&buf[frame]).unwrap();
        prop_assert_eq!(d.inner(), &inner[..]);
        prop_assert_eq!(d.inner_offset(), encap.outer_len());
        prop_assert_eq!(d.teid(), headers.teid);
        prop_assert_eq!(d.pdu_session_container(), headers.pdu_session_container);
        let datagram = d.frame().datagram();
        prop_assert!(datagram.verify_checksums());
        prop_assert_ne!(datagram.udp().checksum(), 0);
        prop_assert!(datagram.ipv4().is_none());
        let ip = Ipv6Repr::parse(&datagram.ipv6().unwrap()).unwrap();
        prop_assert_eq!((ip.source, ip.destination), (headers.source, headers.destination));
        prop_assert_eq!((ip.hop_limit, ip.traffic_class, ip.flow_label), (headers.ttl, headers.dscp_ecn, headers.flow_label));
        prop_assert_eq!(ip.payload_len, 8 + gtpu_len + inner.len());
        prop_assert_eq!(datagram.source_ip(), IpAddr::V6(headers.source));
        prop_assert_eq!(datagram.source(), Ipv4Addr::UNSPECIFIED);
    }

    #[test]
    fn ipv6_udp_round_trips(
        src in any::<u128>(), dst in any::<u128>(), hops in any::<u8>(),
        sport in any::<u16>(), dport in any::<u16>(),
        payload in proptest::collection::vec(any::<u8>(), 0..600),
    ) {
        let ip = Ipv6Repr { hop_limit: hops, ..Ipv6Repr::udp(Ipv6Addr::from(src), Ipv6Addr::from(dst)) };
        let udp = UdpRepr { source_port: sport, destination_port: dport };
        let mut buf = vec![0u8; 48 + payload.len()];
        prop_assert_eq!(emit_ipv6_udp(&mut buf, &ip, &udp, &payload), Ok(buf.len()));
        prop_assert_eq!(udp_payload(&buf), Ok(&payload[..]));
        let p = Ipv6Packet::new_checked(&buf[..]).unwrap();
        prop_assert_eq!(Ipv6Repr::parse(&p), Ok(Ipv6Repr { payload_len: 8 + payload.len(), ..ip }));
        let u = UdpPacket::new_checked(p.payload_slice()).unwrap();
        prop_assert_eq!(UdpRepr::parse_ipv6(&u, &ip.source, &ip.destination), Ok(udp));
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(8000))]

    /// The IPv6 shortcut of `decapsulate` against the layer views, as
    /// `decapsulate_agrees_with_the_layer_views` does over IPv4.
    #[test]
    fn decapsulate_agrees_with_the_layer_views_over_ipv6(
        headers in outer_headers_v6(),
        inner in proptest::collection::vec(any::<u8>(), 0..120),
        edits in proptest::collection::vec((0usize..116, any::<u8>()), 0..4),
        cut in proptest::option::of(any::<proptest::sample::Index>()),
        length_deltas in (-2i32..=2, -2i32..=2, -2i32..=2),
        padding in 0usize..4,
    ) {
        let encap = Encapsulator::new(&headers).unwrap();
        let start = encap.outer_len();
        let mut buf = vec![0u8; start + inner.len() + padding];
        buf[start..start + inner.len()].copy_from_slice(&inner);
        encap.encapsulate(&mut buf, start..start + inner.len()).unwrap();
        // The IPv6 payload, UDP and GTP-U length fields.
        let (ip, udp, gtpu) = length_deltas;
        mangle(&mut buf, &[(18, ip), (58, udp), (64, gtpu)], &edits, cut);
        let expected = decapsulate_by_layers(&buf);
        match decapsulate(&buf) {
            Ok(d) => {
                let (frame, inner, offset) = expected.unwrap();
                prop_assert_eq!(d.frame(), &frame);
                prop_assert_eq!(d.inner(), inner);
                prop_assert_eq!(d.inner_offset(), offset);
                prop_assert_eq!(d.qfi(), frame.gtpu().qfi());
            }
            Err(e) => prop_assert_eq!(Err(e), expected.map(|_| ())),
        }
    }

    /// The IPv6 shortcut of `udp_payload` against the layer views.
    #[test]
    fn udp_payload_agrees_with_the_layer_views_over_ipv6(
        payload in proptest::collection::vec(any::<u8>(), 0..64),
        padding in 0usize..8,
        edits in proptest::collection::vec((0usize..56, any::<u8>()), 0..4),
        cut in proptest::option::of(any::<proptest::sample::Index>()),
        payload_delta in -2i32..=2,
        udp_delta in -2i32..=2,
    ) {
        let ip = Ipv6Repr::udp(Ipv6Addr::LOCALHOST, Ipv6Addr::from(0x2001_0db8 << 96));
        let udp = UdpRepr { source_port: 5000, destination_port: 6000 };
        let mut buf = vec![0u8; 48 + payload.len() + padding];
        emit_ipv6_udp(&mut buf, &ip, &udp, &payload).unwrap();
        prop_assert_eq!(udp_payload(&buf), Ok(&payload[..]));
        mangle(&mut buf, &[(4, payload_delta), (44, udp_delta)], &edits, cut);
        prop_assert_eq!(udp_payload(&buf), udp_payload_by_layers(&buf));
    }
}
