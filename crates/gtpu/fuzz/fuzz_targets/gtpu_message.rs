//! GTP-U-shaped inputs, so that the fuzzer spends its time in the extension header chain, the
//! PDU Session Container and the IEs rather than in outer headers: the first input byte gives
//! the E/S/PN flags, the second the message type, the rest follows a valid length field. Also
//! encapsulates the input as an inner packet and checks that decapsulation gives it back.
#![no_main]

use std::net::Ipv4Addr;

use libfuzzer_sys::fuzz_target;
use upfbench_gtpu::{Encapsulator, GtpuPacket, GtpuRepr, OuterHeaders, PduSessionContainer, UdpChecksum, decapsulate};
use upfbench_net::{MacAddr, Teid};

const TYPES: [u8; 6] = [1, 2, 26, 254, 255, 253];

fuzz_target!(|data: &[u8]| {
    let [flags, kind, rest @ ..] = data else {
        return;
    };
    let mut m = vec![
        0x30 | (flags & 0x07),
        TYPES[usize::from(*kind) % TYPES.len()],
        0,
        0,
        0,
        0,
        0,
        1,
    ];
    m.extend_from_slice(rest);
    let Ok(len) = u16::try_from(m.len() - 8) else {
        return;
    };
    m[2..4].copy_from_slice(&len.to_be_bytes());
    if let Ok(p) = GtpuPacket::new_checked(&m[..]) {
        if let Some(last) = p.extension_headers().last() {
            assert_eq!(last.offset + last.content.len() + 2, p.header_len());
        }
        if let Ok(repr) = GtpuRepr::parse(&p) {
            let mut out = vec![0u8; repr.buffer_len()];
            repr.emit(&mut out).unwrap();
            assert_eq!(GtpuRepr::parse_bytes(&out), Ok(repr));
        }
    }

    // Encapsulate `rest` with a container taken from its first octets, if they decode as one.
    let mut headers = OuterHeaders::new(
        MacAddr([2, 0, 0, 0, 0x13, 0x31]),
        MacAddr([2, 0, 0, 0, 0x13, 0x51]),
        Ipv4Addr::new(192, 168, 13, 131),
        Ipv4Addr::new(192, 168, 13, 151),
        Teid(u32::from(*kind) << 8 | u32::from(*flags)),
    );
    let n = 2 + 4 * usize::from(flags >> 6);
    headers.pdu_session_container = rest
        .get(..n)
        .and_then(|c| PduSessionContainer::parse(c).ok());
    headers.udp_checksum = if flags & 0x20 != 0 {
        UdpChecksum::Compute
    } else {
        UdpChecksum::Zero
    };
    let encap = Encapsulator::new(&headers).unwrap();
    let mut buf = vec![0u8; encap.outer_len() + rest.len()];
    buf[encap.outer_len()..].copy_from_slice(rest);
    match encap.encapsulate_prepended(&mut buf) {
        Ok(()) => {
            let d = decapsulate(&buf).unwrap();
            assert_eq!(d.inner(), rest);
            assert_eq!(d.teid(), headers.teid);
            assert_eq!(d.pdu_session_container(), headers.pdu_session_container);
            assert!(d.frame().datagram().verify_checksums());
        }
        Err(e) => assert!(rest.len() + encap.outer_len() - 14 > 65_535, "{e}"),
    }
});
