//! The UDP payload of an IPv4/UDP datagram, as the receive path needs it: the T-PDU of a G-PDU,
//! or an N6 packet after its Ethernet header, down to the measurement tag.
//!
//! Like [`decapsulate`](crate::decapsulate), it reads the common shape (IPv4 without options)
//! at fixed offsets and sends everything else, and every error, through the layer views; the two
//! give the same answer (a property test and the fuzz target hold them to it).

use crate::error::ParseError;
use crate::ipv4::{self, Ipv4Packet};
use crate::udp;
use upfbench_net::error as net;

/// Version/IHL, DSCP/ECN, total length, identification, flags/fragment offset of the IPv4
/// header as one big-endian word: version 4, IHL 5, neither MF nor a fragment offset.
const MASK_FIRST_WORD: u64 = 0xff00_0000_0000_3fff;
const VALUE_FIRST_WORD: u64 = 0x4500_0000_0000_0000;
/// The shortest datagram the shortcut reads: IPv4 without options and a UDP header.
const COMMON_HEADERS_LEN: usize = ipv4::MIN_HEADER_LEN + udp::HEADER_LEN;

/// The payload of the UDP datagram in `packet`, which starts with its IPv4 header: checks the
/// IPv4 header and total length (bytes after it are padding), refuses fragments and protocols
/// other than UDP, checks the UDP length. Checksums are not verified. Offsets in errors count
/// from the IPv4 header.
#[inline(always)]
pub fn udp_payload(packet: &[u8]) -> Result<&[u8], ParseError> {
    match udp_payload_common(packet) {
        Some(payload) => Ok(payload),
        None => udp_payload_layered(packet),
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

#[inline(never)]
fn udp_payload_layered(packet: &[u8]) -> Result<&[u8], ParseError> {
    let d = check_datagram(packet)?;
    Ok(&packet[d.udp_offset + udp::HEADER_LEN..d.udp_end])
}

/// Where the UDP datagram lies in an IPv4 packet that [`check_datagram`] accepted; offsets from
/// the IPv4 header.
#[derive(Debug, Clone, Copy)]
pub(crate) struct UdpSpan {
    /// The UDP header (the IPv4 header length).
    pub(crate) udp_offset: usize,
    /// The end of the UDP datagram (by its length field).
    pub(crate) udp_end: usize,
    /// The end of the IPv4 datagram (by its total length).
    pub(crate) ipv4_end: usize,
}

/// The IPv4 and UDP checks every IPv4/UDP decoder of the crate makes: IPv4 header and total
/// length, no fragment, protocol UDP, UDP length within the IPv4 payload. Offsets in errors count
/// from the IPv4 header.
#[inline]
pub(crate) fn check_datagram(packet: &[u8]) -> Result<UdpSpan, ParseError> {
    let (udp_offset, ipv4_end) = ipv4::check(packet)?;
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
    let udp_len = udp::check(&packet[udp_offset..ipv4_end]).map_err(|e| e.offset_by(udp_offset))?;
    Ok(UdpSpan {
        udp_offset,
        udp_end: udp_offset + udp_len,
        ipv4_end,
    })
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
