//! The sizes of the frames a profile makes, for checks against MTUs and line rates.
//!
//! Uplink leaves on N3 as Ether/IPv4/UDP/GTP-U [PDU Session Container]/IPv4/UDP/payload;
//! downlink leaves on N6 as Ether/IPv4/UDP/payload and comes back on N3 tunnelled like uplink.
//! [`FrameShape`] gives the same sizes for IPv6 (inside, or as N3's transport) and VLAN tags.

use upfbench_net::IpFamily;

/// Ethernet header (no VLAN).
pub const ETHERNET: usize = upfbench_net::ethernet::HEADER_LEN;
/// Ethernet frame check sequence.
pub const FCS: usize = 4;
/// Preamble, start delimiter and inter-frame gap: what layer 1 adds to each frame.
pub const L1_OVERHEAD: usize = 20;
/// Smallest Ethernet frame, FCS included.
pub(crate) const MIN_FRAME: usize = 64;
/// IPv4 header without options.
pub const IPV4: usize = upfbench_net::ipv4::MIN_HEADER_LEN;
/// UDP header.
pub const UDP: usize = upfbench_net::udp::HEADER_LEN;
/// GTP-U header without optional fields (TS 29.281 §5.1).
pub const GTPU: usize = upfbench_gtpu::header::MANDATORY_HEADER_LEN;
/// The optional fields (sequence, N-PDU, next extension type) and one PDU Session Container
/// extension header of 4 octets (TS 38.415 §5.5.2).
pub const PDU_SESSION_CONTAINER: usize = 8;
/// The measurement tag, the smallest payload: stream, sequence number, timestamp.
pub const TAG: usize = upfbench_net::tag::TAG_LEN;
/// The inner MTU: the UE's IP packets are at most this long.
pub const INNER_MTU: usize = 1500;
/// The largest payload: an inner IPv4/UDP packet of [`INNER_MTU`].
pub(crate) const MAX_PAYLOAD: usize = INNER_MTU - IPV4 - UDP;

/// The inner IPv4 packet around `payload` bytes.
pub fn inner_ip_len(payload: usize) -> usize {
    IPV4 + UDP + payload
}

/// The outer IPv4 packet on N3 (both directions): the tunnel around the inner packet.
pub fn n3_ip_len(payload: usize, container: bool) -> usize {
    IPV4 + UDP + GTPU + if container { PDU_SESSION_CONTAINER } else { 0 } + inner_ip_len(payload)
}

/// The frame on N3 (layer 2, FCS included, padded to 64).
pub fn n3_frame_len(payload: usize, container: bool) -> usize {
    (ETHERNET + n3_ip_len(payload, container) + FCS).max(MIN_FRAME)
}

/// The frame on N6 (layer 2, FCS included, padded to 64).
pub fn n6_frame_len(payload: usize) -> usize {
    (ETHERNET + inner_ip_len(payload) + FCS).max(MIN_FRAME)
}

/// IPv6 header without extension headers.
pub const IPV6: usize = upfbench_net::ipv6::HEADER_LEN;

/// The IP header of `family`'s packets: 20 bytes (IPv4, no options) or 40 (IPv6).
pub const fn ip_header(family: IpFamily) -> usize {
    match family {
        IpFamily::Ipv4 => IPV4,
        IpFamily::Ipv6 => IPV6,
    }
}

/// What a stream's frames carry: the UE packets' family, the N3 transport's, and the VLAN tags
/// of each port (4 bytes a tag). [`FrameShape::default`] is IPv4 in IPv4, untagged: the sizes
/// of the functions above.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FrameShape {
    /// The UE's packets (inside the tunnel on N3, plain on N6).
    pub inner: IpFamily,
    /// The GTP-U transport on N3.
    pub n3: IpFamily,
    /// Bytes of VLAN tags on N3's frames.
    pub n3_tags: usize,
    /// Bytes of VLAN tags on N6's frames.
    pub n6_tags: usize,
}

impl Default for FrameShape {
    fn default() -> Self {
        FrameShape {
            inner: IpFamily::Ipv4,
            n3: IpFamily::Ipv4,
            n3_tags: 0,
            n6_tags: 0,
        }
    }
}

impl FrameShape {
    /// The UE's IP packet around `payload` bytes (UDP; what a QER counts).
    pub const fn inner_ip_len(&self, payload: usize) -> usize {
        ip_header(self.inner) + UDP + payload
    }

    /// The outer IP packet on N3: the tunnel around the inner packet.
    pub const fn n3_ip_len(&self, payload: usize, container: bool) -> usize {
        ip_header(self.n3)
            + UDP
            + GTPU
            + if container { PDU_SESSION_CONTAINER } else { 0 }
            + self.inner_ip_len(payload)
    }

    /// The frame on N3 (layer 2, tags and FCS included, padded to 64).
    pub fn n3_frame_len(&self, payload: usize, container: bool) -> usize {
        (ETHERNET + self.n3_tags + self.n3_ip_len(payload, container) + FCS).max(MIN_FRAME)
    }

    /// The frame on N6 (layer 2, tags and FCS included, padded to 64).
    pub fn n6_frame_len(&self, payload: usize) -> usize {
        (ETHERNET + self.n6_tags + self.inner_ip_len(payload) + FCS).max(MIN_FRAME)
    }

    /// The largest payload of an inner packet of [`INNER_MTU`].
    pub const fn max_payload(&self) -> usize {
        INNER_MTU - ip_header(self.inner) - UDP
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shapes_count_ipv6_headers_and_tags() {
        let v4 = FrameShape::default();
        for p in [10, 300, 1400] {
            assert_eq!(v4.n3_frame_len(p, true), n3_frame_len(p, true));
            assert_eq!(v4.n6_frame_len(p), n6_frame_len(p));
            assert_eq!(v4.n3_ip_len(p, false), n3_ip_len(p, false));
        }
        let v6 = FrameShape {
            inner: IpFamily::Ipv6,
            n3: IpFamily::Ipv6,
            n3_tags: 4,
            n6_tags: 8,
        };
        // 14 + 4 + 40 + 8 + 8 + 8 + 40 + 8 + 300 + 4.
        assert_eq!(v6.n3_frame_len(300, true), 434);
        // 14 + 8 + 40 + 8 + 10 + 4: above 64 with IPv6 even at the smallest payload.
        assert_eq!(v6.n6_frame_len(10), 84);
        assert_eq!(v6.inner_ip_len(300), 348);
        assert_eq!(v6.max_payload(), 1452);
    }

    #[test]
    fn frame_sizes_of_the_published_payloads() {
        // Payload 10: N6 frame padded to 64; N3 frame 14+20+8+8+8+20+8+10+4.
        assert_eq!(n6_frame_len(10), 64);
        assert_eq!(n3_frame_len(10, true), 100);
        assert_eq!(n3_frame_len(10, false), 92);
        assert_eq!(n6_frame_len(1400), 1446);
        assert_eq!(n3_ip_len(1400, true), 1472);
        assert_eq!(MAX_PAYLOAD, 1472);
        assert_eq!(n6_frame_len(MAX_PAYLOAD), 1518);
    }
}
