//! Every decoder of the crate on arbitrary bytes: none may panic, and whatever decodes must
//! re-emit to bytes that decode to the same representation.
#![no_main]

use libfuzzer_sys::fuzz_target;
use upfbench_gtpu::{
    EthernetFrame, EthernetRepr, GtpuDatagram, GtpuFrame, GtpuPacket, GtpuRepr,
    InformationElements, Ipv4Packet, Ipv4Repr, Ipv6Packet, Ipv6Repr, ParseError,
    PduSessionContainer, UdpPacket, UdpRepr, decapsulate, udp_payload,
};
use upfbench_net::error as net;

fuzz_target!(|data: &[u8]| {
    // `decapsulate` takes a fixed-offset shortcut for common frames: its answer must be the
    // one of the layer views, errors included.
    let layered = GtpuFrame::parse(data).and_then(|f| {
        let (inner, offset) = f.datagram().t_pdu().map_err(|e| e.offset_by(14))?;
        Ok((f, inner, 14 + offset))
    });
    match decapsulate(data) {
        Ok(d) => {
            assert!(d.inner_offset() + d.inner().len() <= data.len());
            assert_eq!(d.qfi(), d.pdu_session_container().map(|c| c.qfi()));
            assert_eq!(Ok((*d.frame(), d.inner(), d.inner_offset())), layered);
        }
        Err(e) => assert_eq!(Err(e), layered.map(|_| ())),
    }
    if let Ok(f) = GtpuFrame::parse(data) {
        let _ = EthernetRepr::parse(&f.ethernet());
        let _ = f.datagram().verify_checksums();
    }
    if let Ok(d) = GtpuDatagram::parse(data) {
        let _ = d.t_pdu();
        if let Some(ip) = d.ipv4() {
            let _ = Ipv4Repr::parse(&ip);
            let _ = UdpRepr::parse(&d.udp(), d.source(), d.destination());
        }
        if let Some(ip) = d.ipv6() {
            assert!(Ipv6Repr::parse(&ip).is_ok());
            let (src, dst) = (ip.source(), ip.destination());
            assert_eq!(
                UdpRepr::parse_ipv6(&d.udp(), &src, &dst).is_ok(),
                d.verify_checksums()
            );
        }
    }
    // `udp_payload` takes the same kind of shortcut for IPv4 without options and IPv6 without
    // extension headers.
    let udp_by_layers = if data.first().is_some_and(|b| b >> 4 == 6) {
        udp_by_ipv6_layers(data)
    } else {
        udp_by_ipv4_layers(data)
    };
    assert_eq!(udp_payload(data), udp_by_layers);
    if let Ok(e) = EthernetFrame::new_checked(data) {
        let _ = (e.source(), e.destination(), e.ethertype(), e.payload());
    }
    if let Ok(p) = Ipv4Packet::new_checked(data) {
        assert!(p.header_len() <= p.total_len() && p.total_len() <= data.len());
        let _ = (
            p.options(),
            p.payload(),
            p.verify_checksum(),
            Ipv4Repr::parse(&p),
        );
    }
    if let Ok(u) = UdpPacket::new_checked(data) {
        let _ = u.payload();
    }
    assert_eq!(
        PduSessionContainer::validate(data),
        PduSessionContainer::parse(data).map(|_| ())
    );
    if let Ok(c) = PduSessionContainer::parse(data) {
        let mut out = vec![0u8; c.content_len()];
        c.emit(&mut out).unwrap();
        assert_eq!(PduSessionContainer::parse(&out), Ok(c));
    }
    for ie in InformationElements::new(data, 0) {
        if ie.is_err() {
            break;
        }
    }
    gtpu(data);
});

/// What `udp_payload` must return for IPv4: the public views, one after the other.
fn udp_by_ipv4_layers(data: &[u8]) -> Result<&[u8], ParseError> {
    let ip = Ipv4Packet::new_checked(data)?;
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

/// The same for IPv6: an extension header is refused by `Ipv6Repr::parse`.
fn udp_by_ipv6_layers(data: &[u8]) -> Result<&[u8], ParseError> {
    let ip = Ipv6Packet::new_checked(data)?;
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

fn gtpu(data: &[u8]) {
    let Ok(p) = GtpuPacket::new_checked(data) else {
        return;
    };
    assert!(p.header_len() <= p.message_len() && p.message_len() <= data.len());
    // The validated chain ends exactly where the header does.
    if let Some(last) = p.extension_headers().last() {
        assert_eq!(last.offset + last.content.len() + 2, p.header_len());
    }
    let _ = (p.sequence_number(), p.npdu_number(), p.udp_port(), p.qfi());
    let _ = p.pdu_session_container();
    if let Ok(repr) = GtpuRepr::parse(&p) {
        let mut out = vec![0u8; repr.buffer_len()];
        repr.emit(&mut out).unwrap();
        assert_eq!(GtpuRepr::parse_bytes(&out), Ok(repr));
    }
}
