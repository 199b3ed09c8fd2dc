//! The sizes of the frames a profile makes, for checks against MTUs and line rates.
//!
//! Uplink leaves on N3 as Ether/IPv4/UDP/GTP-U [PDU Session Container]/IPv4/UDP/payload;
//! downlink leaves on N6 as Ether/IPv4/UDP/payload and comes back on N3 tunnelled like uplink.

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

#[cfg(test)]
mod tests {
    use super::*;

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
