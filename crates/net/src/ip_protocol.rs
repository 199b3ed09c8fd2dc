//! IP protocol numbers (IANA's Assigned Internet Protocol Numbers): one place for the IPv4 header
//! and the checksum's pseudo header to take them from. [`crate::ipv4`] hands them on.

/// Protocol number of UDP.
pub const PROTOCOL_UDP: u8 = 17;
/// Protocol number of ICMP.
pub const PROTOCOL_ICMP: u8 = 1;
