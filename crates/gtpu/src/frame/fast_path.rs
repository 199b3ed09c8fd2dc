//! The receive path's shortcut through [`decapsulate`](super::decapsulate): the frame shapes a
//! UPF sends on N3 (IPv4 without options or IPv6 without extension headers, a G-PDU whose
//! extension header chain is empty or one PDU Session Container) read at fixed offsets with one
//! bounds check up front.
//!
//! The general parser walks the layers through views that each check their own bounds and build
//! a detailed error at every step; on this path that cost 25 ns per frame, more than the whole
//! receive budget. The shortcut accepts a subset of what the general parser accepts and returns
//! the same [`Decapsulated`] value for it; everything else (options, other extension headers,
//! fragments, non-G-PDU messages, anything malformed) goes to the general parser, which also
//! names the error. A property test and the fuzz target hold the two to that contract.

use super::{Decapsulated, GtpuDatagram, GtpuFrame};
use crate::header::{self, Layout};
use crate::pdu_session::PduSessionContainer;
use crate::types::ExtensionHeaderType;
use crate::{ipv4, ipv6, udp};
use upfbench_net::IpFamily;

/// Offsets in the frame of the fixed-shape headers.
mod at {
    use crate::{ethernet, header, ipv4, udp};
    /// The IPv4 header.
    pub(super) const IPV4: usize = ethernet::HEADER_LEN;
    /// The UDP header (IPv4 without options).
    pub(super) const UDP: usize = IPV4 + ipv4::MIN_HEADER_LEN;
    /// The GTP-U header.
    pub(super) const GTPU: usize = UDP + udp::HEADER_LEN;
    /// The end of the GTP-U mandatory header: the shortest frame this path reads.
    pub(super) const GTPU_MANDATORY_END: usize = GTPU + header::MANDATORY_HEADER_LEN;
}

/// Offsets in the frame of the fixed-shape headers over IPv6.
mod at_v6 {
    use crate::{ethernet, header, ipv6, udp};
    /// The IPv6 header.
    pub(super) const IPV6: usize = ethernet::HEADER_LEN;
    /// The UDP header (no extension header).
    pub(super) const UDP: usize = IPV6 + ipv6::HEADER_LEN;
    /// The GTP-U header.
    pub(super) const GTPU: usize = UDP + udp::HEADER_LEN;
    /// The end of the GTP-U mandatory header: the shortest frame this path reads.
    pub(super) const GTPU_MANDATORY_END: usize = GTPU + header::MANDATORY_HEADER_LEN;
}

/// The first octet of an IPv4 header without options: version 4, IHL 5.
const IPV4_NO_OPTIONS: u8 = 0x45;
/// Version 1 and PT (GTP, not GTP') in the high nibble of the GTP-U flags.
const GTPU_V1_PT: u8 = (header::VERSION << header::field::VERSION_SHIFT) | header::field::FLAG_PT;
const GTPU_OPTIONAL_FLAGS: u8 =
    header::field::FLAG_E | header::field::FLAG_S | header::field::FLAG_PN;
/// Offset of the first extension header in the GTP-U header.
const FIRST_EXTENSION: usize = header::MANDATORY_HEADER_LEN + header::OPTIONAL_FIELDS_LEN;

#[inline(always)]
fn be16(hi: u8, lo: u8) -> usize {
    usize::from(u16::from_be_bytes([hi, lo]))
}

/// The fixed fields of the common shape, compared as three big-endian 64-bit words (one branch
/// instead of seven): which octets each word covers, the bits that must match, and their value.
mod shape {
    use core::ops::Range;

    use super::{GTPU_V1_PT, IPV4_NO_OPTIONS, at};
    use crate::types::{GTPU_PORT, MessageType};
    use crate::{ethernet, ipv4, udp};
    /// EtherType, IPv4 version/IHL, DSCP/ECN, total length, identification.
    pub(super) const WORD_ETHERTYPE: Range<usize> =
        ethernet::field::ETHERTYPE.start..ethernet::field::ETHERTYPE.start + 8;
    /// EtherType IPv4, version 4 and IHL 5.
    pub(super) const MASK_ETHERTYPE: u64 = 0xffff_ff00_0000_0000;
    pub(super) const VALUE_ETHERTYPE: u64 =
        ((ethernet::ETHERTYPE_IPV4 as u64) << 48) | ((IPV4_NO_OPTIONS as u64) << 40);
    /// IPv4 flags/fragment offset, TTL, protocol, checksum, half the source address.
    pub(super) const WORD_FRAGMENT: Range<usize> = at::IPV4
        + ipv4::field::FLAGS_FRAGMENT_OFFSET.start
        ..at::IPV4 + ipv4::field::FLAGS_FRAGMENT_OFFSET.start + 8;
    /// MF clear, fragment offset 0, protocol UDP.
    pub(super) const MASK_FRAGMENT: u64 = 0x3fff_00ff_0000_0000;
    pub(super) const VALUE_FRAGMENT: u64 = (ipv4::PROTOCOL_UDP as u64) << 32;
    /// UDP destination port, length, checksum; GTP-U flags and message type.
    pub(super) const WORD_PORT: Range<usize> = at::UDP + udp::field::DESTINATION_PORT.start
        ..at::UDP + udp::field::DESTINATION_PORT.start + 8;
    /// Port 2152; GTP-U version 1 with PT set; message type G-PDU (255).
    pub(super) const MASK_PORT: u64 = 0xffff_0000_0000_f0ff;
    pub(super) const VALUE_PORT: u64 =
        ((GTPU_PORT as u64) << 48) | ((GTPU_V1_PT as u64) << 8) | MessageType::G_PDU.0 as u64;
}

/// The fixed fields of the common shape over IPv6, as three big-endian 64-bit words.
mod shape_v6 {
    use core::ops::Range;

    use super::at_v6;
    use crate::{ethernet, ipv6, udp};
    /// EtherType, version, traffic class, flow label, payload length.
    pub(super) const WORD_ETHERTYPE: Range<usize> =
        ethernet::field::ETHERTYPE.start..ethernet::field::ETHERTYPE.start + 8;
    /// EtherType IPv6 and version 6.
    pub(super) const MASK_ETHERTYPE: u64 = 0xffff_f000_0000_0000;
    pub(super) const VALUE_ETHERTYPE: u64 = ((ethernet::ETHERTYPE_IPV6 as u64) << 48) | (6 << 44);
    /// Next header, hop limit, the start of the source address.
    pub(super) const WORD_NEXT_HEADER: Range<usize> =
        at_v6::IPV6 + ipv6::field::NEXT_HEADER..at_v6::IPV6 + ipv6::field::NEXT_HEADER + 8;
    /// Next header UDP.
    pub(super) const MASK_NEXT_HEADER: u64 = 0xff00_0000_0000_0000;
    pub(super) const VALUE_NEXT_HEADER: u64 = (ipv6::PROTOCOL_UDP as u64) << 56;
    /// UDP destination port, length, checksum; GTP-U flags and message type: as over IPv4.
    pub(super) const WORD_PORT: Range<usize> = at_v6::UDP + udp::field::DESTINATION_PORT.start
        ..at_v6::UDP + udp::field::DESTINATION_PORT.start + 8;
}

#[inline(always)]
fn word<const N: usize>(h: &[u8; N], r: core::ops::Range<usize>) -> u64 {
    let mut w = [0u8; 8];
    w.copy_from_slice(&h[r]);
    u64::from_be_bytes(w)
}

/// Decapsulates `frame` if it has the common shape, or says `None` and leaves it to the general
/// parser. `Some` holds exactly what the general parser returns.
#[inline(always)]
pub(super) fn decapsulate_common(frame: &[u8]) -> Option<Decapsulated<'_>> {
    let h = frame.first_chunk::<{ at::GTPU_MANDATORY_END }>()?;
    let mismatch = ((word(h, shape::WORD_ETHERTYPE) ^ shape::VALUE_ETHERTYPE)
        & shape::MASK_ETHERTYPE)
        | ((word(h, shape::WORD_FRAGMENT) ^ shape::VALUE_FRAGMENT) & shape::MASK_FRAGMENT)
        | ((word(h, shape::WORD_PORT) ^ shape::VALUE_PORT) & shape::MASK_PORT);
    if mismatch != 0 {
        return None;
    }
    // Lengths, each within the one that encloses it, as the general parser checks them.
    let be16_at = |at: usize| be16(h[at], h[at + 1]);
    let total = be16_at(at::IPV4 + ipv4::field::TOTAL_LENGTH.start);
    let udp_len = be16_at(at::UDP + udp::field::LENGTH.start);
    let gtpu_length = be16_at(at::GTPU + header::field::LENGTH.start);
    let gtpu_end = at::GTPU_MANDATORY_END + gtpu_length;
    let lengths_ok = (at::IPV4 + total <= frame.len())
        & (udp_len >= udp::HEADER_LEN + header::MANDATORY_HEADER_LEN)
        & (at::UDP + udp_len <= at::IPV4 + total)
        & (gtpu_end <= at::UDP + udp_len);
    if !lengths_ok {
        return None;
    }
    let (header_len, pdu_session_container_at) =
        gtpu_layout(frame, h[at::GTPU], at::GTPU, gtpu_end, gtpu_length)?;
    let packet = &frame[at::IPV4..];
    let inner_start = at::GTPU + header_len;
    // The conversions cannot truncate: every offset is below `at::IPV4 + 65 535`.
    let datagram = GtpuDatagram {
        packet,
        family: IpFamily::Ipv4,
        udp_offset: ipv4::MIN_HEADER_LEN as u32,
        ip_end: total as u32,
        udp_end: (ipv4::MIN_HEADER_LEN + udp_len) as u32,
        gtpu_end: (gtpu_end - at::IPV4) as u32,
        gtpu: Layout {
            header_len: header_len as u32,
            pdu_session_container_at: pdu_session_container_at as u32,
            udp_port_at: 0,
        },
    };
    Some(Decapsulated {
        frame: GtpuFrame { frame, datagram },
        inner: frame.get(inner_start..gtpu_end)?,
        inner_offset: inner_start,
    })
}

/// [`decapsulate_common`] over IPv6: the fixed header, UDP right after it.
#[inline(always)]
pub(super) fn decapsulate_common_v6(frame: &[u8]) -> Option<Decapsulated<'_>> {
    let h = frame.first_chunk::<{ at_v6::GTPU_MANDATORY_END }>()?;
    let mismatch = ((word(h, shape_v6::WORD_ETHERTYPE) ^ shape_v6::VALUE_ETHERTYPE)
        & shape_v6::MASK_ETHERTYPE)
        | ((word(h, shape_v6::WORD_NEXT_HEADER) ^ shape_v6::VALUE_NEXT_HEADER)
            & shape_v6::MASK_NEXT_HEADER)
        | ((word(h, shape_v6::WORD_PORT) ^ shape::VALUE_PORT) & shape::MASK_PORT);
    if mismatch != 0 {
        return None;
    }
    let be16_at = |at: usize| be16(h[at], h[at + 1]);
    let payload_len = be16_at(at_v6::IPV6 + ipv6::field::PAYLOAD_LENGTH.start);
    let udp_len = be16_at(at_v6::UDP + udp::field::LENGTH.start);
    let gtpu_length = be16_at(at_v6::GTPU + header::field::LENGTH.start);
    let gtpu_end = at_v6::GTPU_MANDATORY_END + gtpu_length;
    let lengths_ok = (at_v6::UDP + payload_len <= frame.len())
        & (udp_len >= udp::HEADER_LEN + header::MANDATORY_HEADER_LEN)
        & (udp_len <= payload_len)
        & (gtpu_end <= at_v6::UDP + udp_len);
    if !lengths_ok {
        return None;
    }
    let (header_len, pdu_session_container_at) =
        gtpu_layout(frame, h[at_v6::GTPU], at_v6::GTPU, gtpu_end, gtpu_length)?;
    let inner_start = at_v6::GTPU + header_len;
    let datagram = GtpuDatagram {
        packet: &frame[at_v6::IPV6..],
        family: IpFamily::Ipv6,
        udp_offset: ipv6::HEADER_LEN as u32,
        ip_end: (ipv6::HEADER_LEN + payload_len) as u32,
        udp_end: (ipv6::HEADER_LEN + udp_len) as u32,
        gtpu_end: (gtpu_end - at_v6::IPV6) as u32,
        gtpu: Layout {
            header_len: header_len as u32,
            pdu_session_container_at: pdu_session_container_at as u32,
            udp_port_at: 0,
        },
    };
    Some(Decapsulated {
        frame: GtpuFrame { frame, datagram },
        inner: frame.get(inner_start..gtpu_end)?,
        inner_offset: inner_start,
    })
}

/// The GTP-U header of the common shape at `gtpu_at` of `frame`, with `flags`, whose message
/// (of length field `gtpu_length`) ends at `gtpu_end`, within the frame: its length and the
/// offset of its PDU Session Container (0 if none), or `None` for any other chain of extension
/// headers.
#[inline(always)]
fn gtpu_layout(
    frame: &[u8],
    flags: u8,
    gtpu_at: usize,
    gtpu_end: usize,
    gtpu_length: usize,
) -> Option<(usize, usize)> {
    if flags & GTPU_OPTIONAL_FLAGS == 0 {
        return Some((header::MANDATORY_HEADER_LEN, 0));
    }
    if gtpu_length < header::OPTIONAL_FIELDS_LEN {
        return None;
    }
    if flags & header::field::FLAG_E == 0 {
        return Some((FIRST_EXTENSION, 0));
    }
    // The message holds the optional fields: `gtpu_at + 12 <= gtpu_end <= frame.len()`.
    let gtpu = frame.get(gtpu_at..gtpu_end)?;
    match ExtensionHeaderType(gtpu[header::field::NEXT_EXTENSION_HEADER_TYPE]) {
        ExtensionHeaderType::NO_MORE => Some((FIRST_EXTENSION, 0)),
        ExtensionHeaderType::PDU_SESSION_CONTAINER => {
            let units = usize::from(*gtpu.get(FIRST_EXTENSION)?);
            let end = FIRST_EXTENSION + units * 4;
            // `units == 0` leaves `end` at the length octet: `ext` is then empty and refused.
            let ext = gtpu.get(FIRST_EXTENSION..end)?;
            let (&next, rest) = ext.split_last()?;
            let content = rest.get(1..)?;
            if next != ExtensionHeaderType::NO_MORE.0 || !PduSessionContainer::fits(content) {
                return None;
            }
            Some((end, FIRST_EXTENSION))
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::super::decapsulate_layered;
    use super::*;

    fn vector(name: &str) -> Vec<u8> {
        vector_of(include_str!("../../testdata/gtpu.json"), name)
    }

    fn vector_of(file: &str, name: &str) -> Vec<u8> {
        let json: serde_json::Value = serde_json::from_str(file).unwrap();
        let v = json["vectors"]
            .as_array()
            .unwrap()
            .iter()
            .find(|v| v["name"] == name)
            .unwrap();
        let hex = v["hex"].as_str().unwrap();
        (0..hex.len())
            .step_by(2)
            .map(|i| u8::from_str_radix(&hex[i..i + 2], 16).unwrap())
            .collect()
    }

    const GPDU_VECTORS: [&str; 6] = [
        "ul_gpdu_payload10",
        "ul_gpdu_payload300",
        "ul_gpdu_payload1400",
        "ul_gpdu_pdusc_qfi9_payload300",
        "ul_gpdu_pdusc_qfi1_payload1400",
        "dl_gpdu_pdusc_qfi1_payload300",
    ];

    #[test]
    fn every_reference_gpdu_takes_the_shortcut_to_the_layered_result() {
        for name in GPDU_VECTORS {
            let f = vector(name);
            assert_eq!(
                decapsulate_common(&f),
                Some(decapsulate_layered(&f).unwrap()),
                "{name}"
            );
        }
    }

    #[test]
    fn every_reference_ipv6_gpdu_takes_its_shortcut_to_the_layered_result() {
        let over_ipv6 = [
            "ul_gpdu_v6_payload10",
            "ul_gpdu_v6_pdusc_qfi9_payload300",
            "dl_gpdu_v6_pdusc_qfi1_payload1400",
            "ul_gpdu_v6_inner_v6_pdusc_qfi9_payload1400",
        ];
        let inner_ipv6 = [
            "ul_gpdu_inner_v6_payload10",
            "dl_gpdu_inner_v6_pdusc_qfi5_payload300",
        ];
        let file = include_str!("../../testdata/gtpu_ipv6.json");
        for name in over_ipv6 {
            let f = vector_of(file, name);
            let layered = decapsulate_layered(&f).unwrap();
            assert_eq!(decapsulate_common(&f), None, "{name}");
            assert_eq!(decapsulate_common_v6(&f), Some(layered), "{name}");
        }
        for name in inner_ipv6 {
            let f = vector_of(file, name);
            assert_eq!(
                decapsulate_common(&f),
                Some(decapsulate_layered(&f).unwrap())
            );
        }
    }

    #[test]
    fn sequence_and_npdu_flags_without_extensions_take_the_shortcut() {
        let mut f = vector("ul_gpdu_payload10");
        assert_eq!(f[at::GTPU] & GTPU_OPTIONAL_FLAGS, 0);
        // Room for the optional fields: the first 4 octets of the T-PDU become them.
        f[at::GTPU] |= header::field::FLAG_S | header::field::FLAG_PN;
        let d = decapsulate_common(&f).unwrap();
        assert_eq!(Ok(d), decapsulate_layered(&f));
        assert_eq!(d.inner_offset(), at::GTPU + FIRST_EXTENSION);
    }

    #[test]
    fn other_shapes_go_to_the_layered_parser() {
        let base = vector("ul_gpdu_pdusc_qfi9_payload300");
        let ext_type_at = at::GTPU + header::field::NEXT_EXTENSION_HEADER_TYPE;
        let container_next_at = {
            let units = usize::from(base[at::GTPU + FIRST_EXTENSION]);
            at::GTPU + FIRST_EXTENSION + units * 4 - 1
        };
        let cases: [(&str, usize, u8); 6] = [
            ("IPv4 options (IHL 6)", at::IPV4, 0x46),
            ("an unknown, skippable extension header", ext_type_at, 0x01),
            (
                "a second extension header after the container",
                container_next_at,
                0x40,
            ),
            ("a fragment", at::IPV4 + 6, 0x20),
            ("an Echo Request", at::GTPU + 1, 1),
            ("a zero-length container", at::GTPU + FIRST_EXTENSION, 0),
        ];
        for (what, at, byte) in cases {
            let mut f = base.clone();
            f[at] = byte;
            assert_eq!(decapsulate_common(&f), None, "{what}");
            // The public entry point still answers, through the layered parser.
            assert_eq!(
                super::super::decapsulate(&f),
                decapsulate_layered(&f),
                "{what}"
            );
        }
    }
}
