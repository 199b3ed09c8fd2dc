//! The UDP payload of an IPv4/UDP or IPv6/UDP datagram, as the receive path needs it: the
//! T-PDU of a G-PDU, or an N6 packet after its Ethernet header, down to the measurement tag.
//!
//! Like [`decapsulate`](crate::decapsulate), it reads the common shapes (IPv4 without options,
//! IPv6 without extension headers) at fixed offsets and sends everything else, and every error,
//! through the layer views; the two give the same answer (a property test and the fuzz target
//! hold them to it). IPv4 is tried first, so an IPv4 packet pays nothing for IPv6.

use crate::error::ParseError;
use crate::ipv4::{self, Ipv4Packet};
use crate::ipv6;
use crate::udp;
use upfbench_net::error as net;
use upfbench_net::{IpFamily, is_ipv6_extension_header};

/// Version/IHL, DSCP/ECN, total length, identification, flags/fragment offset of the IPv4
/// header as one big-endian word: version 4, IHL 5, neither MF nor a fragment offset.
const MASK_FIRST_WORD: u64 = 0xff00_0000_0000_3fff;
const VALUE_FIRST_WORD: u64 = 0x4500_0000_0000_0000;
/// The shortest datagram the shortcut reads: IPv4 without options and a UDP header.
const COMMON_HEADERS_LEN: usize = ipv4::MIN_HEADER_LEN + udp::HEADER_LEN;
/// The shortest IPv6 datagram the shortcut reads: the fixed header and a UDP header.
const COMMON_HEADERS_LEN_V6: usize = ipv6::HEADER_LEN + udp::HEADER_LEN;

/// The payload of the UDP datagram in `packet`, which starts with its IPv4 or IPv6 header (by
/// its version): checks the IP header and length (bytes after it are padding), refuses
/// fragments, extension headers and protocols other than UDP, checks the UDP length. Checksums
/// are not verified. Offsets in errors count from the IP header.
#[inline(always)]
pub fn udp_payload(packet: &[u8]) -> Result<&[u8], ParseError> {
    match udp_payload_common(packet) {
        Some(payload) => Ok(payload),
        None => udp_payload_other(packet),
    }
}

#[inline(always)]
fn udp_payload_common(packet: &[u8]) -> Option<&[u8]> {
    let h = packet.first_chunk::<COMMON_HEADERS_LEN>()?;
    let first = u64::from_be_bytes([h[0], h[1], h[2], h[3], h[4], h[5], h[6], h[7]]);
    if (first ^ VALUE_FIRST_WORD) & MASK_FIRST_WORD != 0
        || h[ipv4::field::PROTOCOL] != ipv4::PROTOCOL_UDP
    {
        return None;
    }
    let at = ipv4::field::TOTAL_LENGTH.start;
    let total = usize::from(u16::from_be_bytes([h[at], h[at + 1]]));
    let at = ipv4::MIN_HEADER_LEN + udp::field::LENGTH.start;
    let udp_len = usize::from(u16::from_be_bytes([h[at], h[at + 1]]));
    if total > packet.len() || udp_len < udp::HEADER_LEN || ipv4::MIN_HEADER_LEN + udp_len > total {
        return None;
    }
    packet.get(COMMON_HEADERS_LEN..ipv4::MIN_HEADER_LEN + udp_len)
}

/// The IPv6 shortcut, then the layered parser: out of line, so that the IPv4 path stays as
/// short as it was.
#[inline(never)]
fn udp_payload_other(packet: &[u8]) -> Result<&[u8], ParseError> {
    match udp_payload_common_v6(packet) {
        Some(payload) => Ok(payload),
        None => udp_payload_layered(packet),
    }
}

/// IPv6 with UDP right after the fixed header.
#[inline(always)]
fn udp_payload_common_v6(packet: &[u8]) -> Option<&[u8]> {
    let h = packet.first_chunk::<COMMON_HEADERS_LEN_V6>()?;
    if h[0] >> 4 != 6 || h[ipv6::field::NEXT_HEADER] != ipv6::PROTOCOL_UDP {
        return None;
    }
    let at = ipv6::field::PAYLOAD_LENGTH.start;
    let payload_len = usize::from(u16::from_be_bytes([h[at], h[at + 1]]));
    let at = ipv6::HEADER_LEN + udp::field::LENGTH.start;
    let udp_len = usize::from(u16::from_be_bytes([h[at], h[at + 1]]));
    if ipv6::HEADER_LEN + payload_len > packet.len()
        || udp_len < udp::HEADER_LEN
        || udp_len > payload_len
    {
        return None;
    }
    packet.get(COMMON_HEADERS_LEN_V6..ipv6::HEADER_LEN + udp_len)
}

#[inline(never)]
fn udp_payload_layered(packet: &[u8]) -> Result<&[u8], ParseError> {
    let d = check_datagram(packet)?;
    Ok(&packet[d.udp_offset + udp::HEADER_LEN..d.udp_end])
}

/// Where the UDP datagram lies in an IP packet that [`check_datagram`] accepted; offsets from
/// the IP header.
#[derive(Debug, Clone, Copy)]
pub(crate) struct UdpSpan {
    /// The IP version.
    pub(crate) family: IpFamily,
    /// The UDP header (the IP header length).
    pub(crate) udp_offset: usize,
    /// The end of the UDP datagram (by its length field).
    pub(crate) udp_end: usize,
    /// The end of the IP packet (by its total or payload length).
    pub(crate) ip_end: usize,
}

/// The IP and UDP checks every IP/UDP decoder of the crate makes, for the version the first
/// octet names (IPv6 for 6, IPv4 for anything else, whose errors then say so). Offsets in
/// errors count from the IP header.
#[inline]
pub(crate) fn check_datagram(packet: &[u8]) -> Result<UdpSpan, ParseError> {
    match packet.first() {
        Some(b) if b >> 4 == 6 => check_datagram_of(packet, IpFamily::Ipv6),
        _ => check_datagram_of(packet, IpFamily::Ipv4),
    }
}

/// [`check_datagram`] for a packet of `family`: IPv4 header and total length, no fragment,
/// protocol UDP; or the IPv6 fixed header and payload length, next header UDP (an extension
/// header is refused); then the UDP length within the IP payload.
#[inline]
pub(crate) fn check_datagram_of(packet: &[u8], family: IpFamily) -> Result<UdpSpan, ParseError> {
    let (udp_offset, ip_end) = match family {
        IpFamily::Ipv4 => check_ipv4(packet)?,
        IpFamily::Ipv6 => check_ipv6(packet)?,
    };
    let udp_len = udp::check(&packet[udp_offset..ip_end]).map_err(|e| e.offset_by(udp_offset))?;
    Ok(UdpSpan {
        family,
        udp_offset,
        udp_end: udp_offset + udp_len,
        ip_end,
    })
}

fn check_ipv4(packet: &[u8]) -> Result<(usize, usize), ParseError> {
    let (header_len, end) = ipv4::check(packet)?;
    let ip = Ipv4Packet::new_unchecked(packet);
    if ip.is_fragment() {
        return Err(ParseError::Net(net::ParseError::Fragmented {
            offset: 0,
            fragment_offset: ip.fragment_offset(),
            more_fragments: ip.more_fragments(),
        }));
    }
    if ip.protocol() != ipv4::PROTOCOL_UDP {
        return Err(ParseError::UnexpectedProtocol {
            offset: ipv4::field::PROTOCOL,
            protocol: ip.protocol(),
        });
    }
    Ok((header_len, end))
}

fn check_ipv6(packet: &[u8]) -> Result<(usize, usize), ParseError> {
    let end = ipv6::check(packet)?;
    let next_header = packet[ipv6::field::NEXT_HEADER];
    if is_ipv6_extension_header(next_header) {
        return Err(ParseError::Net(
            net::ParseError::UnsupportedExtensionHeader {
                offset: ipv6::field::NEXT_HEADER,
                next_header,
            },
        ));
    }
    if next_header != ipv6::PROTOCOL_UDP {
        return Err(ParseError::UnexpectedNextHeader {
            offset: ipv6::field::NEXT_HEADER,
            next_header,
        });
    }
    Ok((ipv6::HEADER_LEN, end))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// 20 octets of IPv4 without options, 8 of UDP, 3 of payload and 2 of Ethernet padding.
    fn datagram() -> Vec<u8> {
        let mut d = vec![
            0x45, 0x00, 0x00, 0x1f, 0x12, 0x34, 0x40, 0x00, 0x40, 0x11, 0x00, 0x00, 10, 0, 0, 1,
            10, 0, 0, 2, 0x30, 0x39, 0x08, 0x68, 0x00, 0x0b, 0x00, 0x00, b'a', b'b', b'c',
        ];
        d.extend_from_slice(&[0, 0]);
        d
    }

    #[test]
    fn the_common_shape_takes_the_shortcut_to_the_layered_answer() {
        let d = datagram();
        assert_eq!(udp_payload_common(&d), Some(&b"abc"[..]));
        assert_eq!(udp_payload_layered(&d), Ok(&b"abc"[..]));
    }

    #[test]
    fn other_shapes_and_errors_go_to_the_layered_parser() {
        let cases: [(&str, usize, u8, ParseError); 4] = [
            (
                "a fragment",
                7,
                0x01,
                ParseError::Net(net::ParseError::Fragmented {
                    offset: 0,
                    fragment_offset: 1,
                    more_fragments: false,
                }),
            ),
            (
                "TCP",
                9,
                6,
                ParseError::UnexpectedProtocol {
                    offset: 9,
                    protocol: 6,
                },
            ),
            (
                "a UDP length beyond the IPv4 total length",
                25,
                0x0c,
                ParseError::Net(net::ParseError::LengthExceedsBuffer {
                    layer: net::Layer::Udp,
                    offset: 24,
                    length: 12,
                    available: 11,
                }),
            ),
            (
                "IHL 6 (the UDP header is cut to the 7 octets left)",
                0,
                0x46,
                ParseError::Net(net::ParseError::Truncated {
                    layer: net::Layer::Udp,
                    offset: 24,
                    needed: 8,
                    available: 7,
                }),
            ),
        ];
        for (what, at, byte, error) in cases {
            let mut d = datagram();
            d[at] = byte;
            assert_eq!(udp_payload_common(&d), None, "{what}");
            assert_eq!(udp_payload(&d), Err(error), "{what}");
        }
    }
}
