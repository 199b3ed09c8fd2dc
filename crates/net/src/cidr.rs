//! IPv6 prefixes (RFC 4291 §2.3): the pools of UE addresses and the /64 a UE is delegated (TS
//! 23.501 §5.8.2.2.2), validated once so that a prefix with host bits set cannot be built.

use core::fmt;
use core::str::FromStr;
use std::net::Ipv6Addr;

/// An IPv6 prefix: an address whose bits past the prefix length are zero, and that length.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Ipv6Cidr {
    network: Ipv6Addr,
    prefix_len: u8,
}

/// Why a prefix was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CidrError {
    /// Not `ADDRESS/LENGTH`.
    #[error("{text:?} is not an IPv6 prefix (ADDRESS/LENGTH, such as 2001:db8::/64)")]
    Syntax {
        /// The text given.
        text: String,
    },
    /// A prefix length over 128.
    #[error("prefix length {prefix_len} is over 128")]
    PrefixTooLong {
        /// The length given.
        prefix_len: u8,
    },
    /// Bits set past the prefix length: an address in a network, not the network.
    #[error("{address}/{prefix_len} has host bits set: the prefix is {network}/{prefix_len}")]
    HostBitsSet {
        /// The address given.
        address: Ipv6Addr,
        /// The length given.
        prefix_len: u8,
        /// The network the address is in.
        network: Ipv6Addr,
    },
}

impl Ipv6Cidr {
    /// The prefix `network`/`prefix_len`; host bits must be zero.
    pub fn new(network: Ipv6Addr, prefix_len: u8) -> Result<Self, CidrError> {
        if prefix_len > 128 {
            return Err(CidrError::PrefixTooLong { prefix_len });
        }
        let masked = Ipv6Addr::from(u128::from(network) & mask(prefix_len));
        if masked != network {
            return Err(CidrError::HostBitsSet {
                address: network,
                prefix_len,
                network: masked,
            });
        }
        Ok(Ipv6Cidr {
            network,
            prefix_len,
        })
    }

    /// The network address (host bits zero).
    #[inline]
    pub const fn network(&self) -> Ipv6Addr {
        self.network
    }

    /// The prefix length.
    #[inline]
    pub const fn prefix_len(&self) -> u8 {
        self.prefix_len
    }

    /// Whether `addr` is in the prefix.
    #[inline]
    pub fn contains(&self, addr: Ipv6Addr) -> bool {
        u128::from(addr) & mask(self.prefix_len) == u128::from(self.network)
    }

    /// The `index`th address of the prefix (0 is the network address), if it is in the prefix.
    #[inline]
    pub fn nth(&self, index: u128) -> Option<Ipv6Addr> {
        let host_bits = 128 - u32::from(self.prefix_len);
        if host_bits < 128 && index >> host_bits != 0 {
            return None;
        }
        Some(Ipv6Addr::from(u128::from(self.network) | index))
    }
}

/// The mask of a prefix length of at most 128.
#[inline]
fn mask(prefix_len: u8) -> u128 {
    u128::MAX
        .checked_shl(128 - u32::from(prefix_len))
        .unwrap_or(0)
}

impl fmt::Display for Ipv6Cidr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.network, self.prefix_len)
    }
}

impl FromStr for Ipv6Cidr {
    type Err = CidrError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let syntax = || CidrError::Syntax { text: s.to_owned() };
        let (address, len) = s.split_once('/').ok_or_else(syntax)?;
        let address: Ipv6Addr = address.parse().map_err(|_| syntax())?;
        // Digits only: `u8::from_str` would take a sign.
        if len.is_empty() || !len.bytes().all(|b| b.is_ascii_digit()) {
            return Err(syntax());
        }
        let prefix_len: u8 = len.parse().map_err(|_| syntax())?;
        Ipv6Cidr::new(address, prefix_len)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prefixes_parse_and_refuse_host_bits() {
        let p: Ipv6Cidr = "2001:db8:45::/48".parse().unwrap();
        assert_eq!(p.prefix_len(), 48);
        assert_eq!(p.to_string(), "2001:db8:45::/48");
        assert!(p.contains("2001:db8:45:ffff::1".parse().unwrap()));
        assert!(!p.contains("2001:db8:46::".parse().unwrap()));
        assert_eq!(p.nth(1), Some("2001:db8:45::1".parse().unwrap()));
        assert_eq!(p.nth(1 << 80), None);
        let err = "2001:db8:45::1/48".parse::<Ipv6Cidr>().unwrap_err();
        assert_eq!(
            err.to_string(),
            "2001:db8:45::1/48 has host bits set: the prefix is 2001:db8:45::/48"
        );
        assert_eq!(
            "::/129".parse::<Ipv6Cidr>(),
            Err(CidrError::PrefixTooLong { prefix_len: 129 })
        );
        for bad in [
            "2001:db8::",
            "2001:db8::/+4",
            "10.0.0.0/8",
            "::/",
            "::/1000",
        ] {
            assert!(
                matches!(bad.parse::<Ipv6Cidr>(), Err(CidrError::Syntax { .. })),
                "{bad}"
            );
        }
        let all: Ipv6Cidr = "::/0".parse().unwrap();
        assert!(all.contains(Ipv6Addr::LOCALHOST));
        assert_eq!(all.nth(u128::MAX), Some(Ipv6Addr::from(u128::MAX)));
        let host: Ipv6Cidr = "::1/128".parse().unwrap();
        assert_eq!(host.nth(1), None);
    }
}
