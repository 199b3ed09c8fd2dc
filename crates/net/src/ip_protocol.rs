//! IP protocol numbers (IANA's Assigned Internet Protocol Numbers): one place for the IPv4 and
//! IPv6 headers and the checksums' pseudo headers to take them from. [`crate::ipv4`] and
//! [`crate::ipv6`] hand them on.

/// Protocol number of UDP.
pub const PROTOCOL_UDP: u8 = 17;
/// Protocol number of ICMP.
pub const PROTOCOL_ICMP: u8 = 1;
/// Protocol number of ICMPv6 (RFC 4443).
pub const PROTOCOL_ICMPV6: u8 = 58;

/// Whether `next_header` names an IPv6 extension header (RFC 8200 §4; IANA's IPv6 Extension
/// Header Types): Hop-by-Hop 0, Routing 43, Fragment 44, ESP 50, AH 51, Destination Options 60,
/// Mobility 135, HIP 139, Shim6 140, and the experimental 253 and 254.
#[inline]
pub const fn is_ipv6_extension_header(next_header: u8) -> bool {
    matches!(
        next_header,
        0 | 43 | 44 | 50 | 51 | 60 | 135 | 139 | 140 | 253 | 254
    )
}
