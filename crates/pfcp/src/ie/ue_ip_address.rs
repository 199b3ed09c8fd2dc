//! UE IP Address (TS 29.244 §8.2.62).

use core::net::{IpAddr, Ipv4Addr, Ipv6Addr};

use super::{IeType, IeValue, IeView, TypedIe};
use crate::error::{EmitError, Result};
use crate::wire::{Writer, bit_if, opt_len};

/// The UE's address in a PDI or a Created PDR: IPv4, IPv6 (an address or a prefix), both
/// (a dual-stack PDU session), or a request that the UP function choose them.
///
/// Layout (§8.2.62): octet 5 spare IP6PL CHV6 CHV4 IPv6D S/D V4 V6, then IPv4 (V4), IPv6 (V6),
/// IPv6 Prefix Delegation Bits (IPv6D), IPv6 Prefix Length (IP6PL). The spec's rules on the
/// flags are kept by the decoder (an IE that breaks one is refused: Cause 69, Mandatory IE
/// incorrect) and by the encoder (`EmitError::Invalid`):
/// - V4 and CHV4 exclude each other, and so do V6 and CHV6;
/// - IPv6D and IP6PL apply only with V6 or CHV6, and exclude each other;
/// - the delegation bits count below the default /64 (at most 64), the length at most 128.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct UeIpAddress {
    /// S/D: the address is the destination address (set in a downlink PDI), else the source.
    pub is_destination: bool,
    /// IPv4 address (V4).
    pub ipv4: Option<Ipv4Addr>,
    /// IPv6 address or prefix (V6).
    pub ipv6: Option<Ipv6Addr>,
    /// IPv6 Prefix Delegation Bits (IPv6D): the bits delegated below the default /64, so 4 for a
    /// /60 (§8.2.62, octet r).
    pub ipv6_prefix_delegation_bits: Option<u8>,
    /// IPv6 Prefix Length (IP6PL): a prefix other than the default /64, 128 for a single
    /// address (§8.2.62, octet s).
    pub ipv6_prefix_length: Option<u8>,
    /// CHV4: the UP function shall allocate an IPv4 address.
    pub choose_ipv4: bool,
    /// CHV6: the UP function shall allocate an IPv6 address.
    pub choose_ipv6: bool,
}

const V6: u8 = 0x01;
const V4: u8 = 0x02;
const SD: u8 = 0x04;
const IPV6D: u8 = 0x08;
const CHV4: u8 = 0x10;
const CHV6: u8 = 0x20;
const IP6PL: u8 = 0x40;

/// The IPv6 prefix a UE IP Address names when neither IPv6D nor IP6PL says otherwise.
pub(crate) const DEFAULT_IPV6_PREFIX_LEN: u8 = 64;

/// Which rule of §8.2.62 a UE IP Address breaks, and where: the flags octet or a length field.
enum Broken {
    Flags(&'static str),
    DelegationBits(&'static str),
    PrefixLength(&'static str),
}

impl UeIpAddress {
    /// An address of either family (V4 or V6) as the destination or the source.
    pub const fn new(addr: IpAddr, is_destination: bool) -> Self {
        match addr {
            IpAddr::V4(a) => UeIpAddress::ipv4(a, is_destination),
            IpAddr::V6(a) => UeIpAddress {
                ipv6: Some(a),
                ..UeIpAddress::none(is_destination)
            },
        }
    }

    /// An IPv4 address as the destination (downlink PDI) or the source (uplink PDI).
    pub const fn ipv4(addr: Ipv4Addr, is_destination: bool) -> Self {
        UeIpAddress {
            ipv4: Some(addr),
            ..UeIpAddress::none(is_destination)
        }
    }

    /// A dual-stack UE (PDN Type IPv4v6): its IPv4 address and its IPv6 address or /64 prefix.
    pub const fn dual_stack(ipv4: Ipv4Addr, ipv6: Ipv6Addr, is_destination: bool) -> Self {
        UeIpAddress {
            ipv4: Some(ipv4),
            ipv6: Some(ipv6),
            ..UeIpAddress::none(is_destination)
        }
    }

    /// An IPv6 prefix of `len` bits (TS 23.501 §5.8.2.2.2 gives each UE a /64: the default,
    /// sent with no length field; any other length goes in IP6PL, 128 for a single address).
    pub const fn ipv6_prefix(prefix: Ipv6Addr, len: u8, is_destination: bool) -> Self {
        UeIpAddress {
            ipv6: Some(prefix),
            ipv6_prefix_length: if len == DEFAULT_IPV6_PREFIX_LEN {
                None
            } else {
                Some(len)
            },
            ..UeIpAddress::none(is_destination)
        }
    }

    /// A request that the UP function allocate the UE's addresses (CHV4, CHV6; §5.21).
    pub const fn choose(ipv4: bool, ipv6: bool, is_destination: bool) -> Self {
        UeIpAddress {
            choose_ipv4: ipv4,
            choose_ipv6: ipv6,
            ..UeIpAddress::none(is_destination)
        }
    }

    const fn none(is_destination: bool) -> Self {
        UeIpAddress {
            is_destination,
            ipv4: None,
            ipv6: None,
            ipv6_prefix_delegation_bits: None,
            ipv6_prefix_length: None,
            choose_ipv4: false,
            choose_ipv6: false,
        }
    }

    /// The length of the IPv6 prefix the IE names (§8.2.62): 64 minus the delegation bits with
    /// IPv6D, the IP6PL length, else the default /64. `None` without V6 or CHV6.
    pub fn ipv6_prefix_len(&self) -> Option<u8> {
        if self.ipv6.is_none() && !self.choose_ipv6 {
            return None;
        }
        Some(
            match (self.ipv6_prefix_delegation_bits, self.ipv6_prefix_length) {
                (Some(bits), _) => DEFAULT_IPV6_PREFIX_LEN.saturating_sub(bits),
                (None, Some(len)) => len,
                (None, None) => DEFAULT_IPV6_PREFIX_LEN,
            },
        )
    }

    /// The first rule of §8.2.62 the value breaks.
    fn broken_rule(&self) -> Option<Broken> {
        let v6 = self.ipv6.is_some() || self.choose_ipv6;
        let delegation = self.ipv6_prefix_delegation_bits;
        let length = self.ipv6_prefix_length;
        if self.ipv4.is_some() && self.choose_ipv4 {
            return Some(Broken::Flags("UE IP Address: V4 and CHV4 both set"));
        }
        if self.ipv6.is_some() && self.choose_ipv6 {
            return Some(Broken::Flags("UE IP Address: V6 and CHV6 both set"));
        }
        if delegation.is_some() && !v6 {
            return Some(Broken::Flags("UE IP Address: IPv6D without V6 or CHV6"));
        }
        if length.is_some() && !v6 {
            return Some(Broken::Flags("UE IP Address: IP6PL without V6 or CHV6"));
        }
        if delegation.is_some() && length.is_some() {
            return Some(Broken::Flags("UE IP Address: IPv6D and IP6PL both set"));
        }
        if delegation.is_some_and(|b| b > DEFAULT_IPV6_PREFIX_LEN) {
            return Some(Broken::DelegationBits(
                "UE IP Address: IPv6 Prefix Delegation Bits above 64",
            ));
        }
        if length.is_some_and(|l| l > 128) {
            return Some(Broken::PrefixLength(
                "UE IP Address: IPv6 Prefix Length above 128",
            ));
        }
        None
    }

    fn flags(&self) -> u8 {
        bit_if(self.ipv6.is_some(), V6)
            | bit_if(self.ipv4.is_some(), V4)
            | bit_if(self.is_destination, SD)
            | bit_if(self.ipv6_prefix_delegation_bits.is_some(), IPV6D)
            | bit_if(self.choose_ipv4, CHV4)
            | bit_if(self.choose_ipv6, CHV6)
            | bit_if(self.ipv6_prefix_length.is_some(), IP6PL)
    }
}

impl IeValue for UeIpAddress {
    fn decode(ie: &IeView<'_>) -> Result<Self> {
        let mut r = ie.reader();
        let flags_at = r.offset();
        let f = r.u8()?;
        let ipv4 = r.field_if(f & V4 != 0)?;
        let ipv6 = r.field_if(f & V6 != 0)?;
        let delegation_at = r.offset();
        let ipv6_prefix_delegation_bits = r.field_if(f & IPV6D != 0)?;
        let length_at = r.offset();
        let ipv6_prefix_length = r.field_if(f & IP6PL != 0)?;
        let ue = UeIpAddress {
            is_destination: f & SD != 0,
            ipv4,
            ipv6,
            ipv6_prefix_delegation_bits,
            ipv6_prefix_length,
            choose_ipv4: f & CHV4 != 0,
            choose_ipv6: f & CHV6 != 0,
        };
        match ue.broken_rule() {
            None => Ok(ue),
            Some(Broken::Flags(what)) => Err(r.invalid_at(flags_at, what)),
            Some(Broken::DelegationBits(what)) => Err(r.invalid_at(delegation_at, what)),
            Some(Broken::PrefixLength(what)) => Err(r.invalid_at(length_at, what)),
        }
    }
    fn value_len(&self) -> usize {
        1 + opt_len(self.ipv4)
            + opt_len(self.ipv6)
            + opt_len(self.ipv6_prefix_delegation_bits)
            + opt_len(self.ipv6_prefix_length)
    }
    fn encode_value(&self, w: &mut Writer<'_>) -> core::result::Result<(), EmitError> {
        if let Some(
            Broken::Flags(what) | Broken::DelegationBits(what) | Broken::PrefixLength(what),
        ) = self.broken_rule()
        {
            return Err(EmitError::Invalid { what });
        }
        w.u8(self.flags())?;
        w.field_opt(self.ipv4)?;
        w.field_opt(self.ipv6)?;
        w.field_opt(self.ipv6_prefix_delegation_bits)?;
        w.field_opt(self.ipv6_prefix_length)
    }
}

impl TypedIe for UeIpAddress {
    const TYPE: IeType = IeType::UE_IP_ADDRESS;
}
