//! Identifiers shared by the user plane (GTP-U) and the control plane (PFCP), defined once here
//! so that a TEID or QFI programmed over N4 is the same type as the one carried on N3.

use core::fmt;

/// Tunnel Endpoint Identifier (TS 29.281 §5.1): the tunnel endpoint at the receiver. Any 32-bit
/// value; 0 is used by the path management messages and Error Indication. PFCP carries it in the
/// F-TEID and Outer Header Creation IEs (TS 29.244 §8.2.3, §8.2.56).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, PartialOrd, Ord)]
pub struct Teid(pub u32);

impl Teid {
    /// The TEID of path management messages (Echo, TS 29.281 §5.1).
    pub const ZERO: Teid = Teid(0);

    /// The TEID as a number.
    pub const fn get(self) -> u32 {
        self.0
    }
}

impl fmt::Display for Teid {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:#010x}", self.0)
    }
}

impl From<u32> for Teid {
    fn from(v: u32) -> Self {
        Teid(v)
    }
}

/// An IP version: of a UE's packets, or of a tunnel's transport (N3 over IPv4 or IPv6).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum IpFamily {
    /// IPv4 (RFC 791).
    Ipv4,
    /// IPv6 (RFC 8200).
    Ipv6,
}

impl IpFamily {
    /// The EtherType of the family's packets.
    pub const fn ethertype(self) -> u16 {
        match self {
            IpFamily::Ipv4 => crate::ethernet::ETHERTYPE_IPV4,
            IpFamily::Ipv6 => crate::ethernet::ETHERTYPE_IPV6,
        }
    }

    /// The length of the header the emitters of this crate write: IPv4 without options (20),
    /// the IPv6 fixed header (40).
    pub const fn header_len(self) -> usize {
        match self {
            IpFamily::Ipv4 => crate::ipv4::MIN_HEADER_LEN,
            IpFamily::Ipv6 => crate::ipv6::HEADER_LEN,
        }
    }
}

impl fmt::Display for IpFamily {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            IpFamily::Ipv4 => "IPv4",
            IpFamily::Ipv6 => "IPv6",
        })
    }
}

/// A value too large for a bit field.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, thiserror::Error)]
#[error("{field}: {value} does not fit in {bits} bits")]
pub struct OutOfRange {
    /// Name of the field.
    pub field: &'static str,
    /// The value given.
    pub value: u32,
    /// Width of the field.
    pub bits: u8,
}

/// QoS Flow Identifier (TS 38.415 §5.5.3.3, TS 29.244 §8.2.89): 6 bits, 0–63.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, PartialOrd, Ord)]
pub struct Qfi(u8);

impl Qfi {
    /// The largest QFI.
    pub const MAX: u8 = 63;

    /// A QFI, if `v` fits in 6 bits.
    pub const fn new(v: u8) -> Result<Qfi, OutOfRange> {
        if v <= Self::MAX {
            Ok(Qfi(v))
        } else {
            Err(OutOfRange {
                field: "QFI",
                value: v as u32,
                bits: 6,
            })
        }
    }

    /// The low 6 bits of `v` as a QFI (for decoding a masked field).
    pub const fn from_bits(v: u8) -> Qfi {
        Qfi(v & Self::MAX)
    }

    /// The QFI as a number.
    pub const fn get(self) -> u8 {
        self.0
    }
}

impl TryFrom<u8> for Qfi {
    type Error = OutOfRange;
    fn try_from(v: u8) -> Result<Self, Self::Error> {
        Qfi::new(v)
    }
}

impl fmt::Display for Qfi {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn qfi_range() {
        assert_eq!(Qfi::new(63).map(Qfi::get), Ok(63));
        assert_eq!(
            Qfi::new(64),
            Err(OutOfRange {
                field: "QFI",
                value: 64,
                bits: 6
            })
        );
        assert_eq!(Qfi::try_from(9).map(Qfi::get), Ok(9));
        assert_eq!(Qfi::from_bits(0xc9).get(), 9);
        assert_eq!(
            Qfi::new(64).unwrap_err().to_string(),
            "QFI: 64 does not fit in 6 bits"
        );
    }

    #[test]
    fn teid_displays_as_hex() {
        assert_eq!(Teid(0x1234).to_string(), "0x00001234");
        assert_eq!(Teid::from(7).get(), 7);
    }
}
