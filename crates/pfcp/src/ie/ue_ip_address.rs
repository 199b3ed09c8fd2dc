//! UE IP Address (TS 29.244 §8.2.62).

use core::net::{IpAddr, Ipv4Addr, Ipv6Addr};

use super::{IeType, IeValue, IeView, TypedIe};
use crate::error::{EmitError, Result};
use crate::wire::{Writer, bit_if, opt_len};

/// The UE's address in a PDI or a Created PDR.
///
/// Layout: octet 5 spare IP6PL CHV6 CHV4 IPv6D S/D V4 V6, then IPv4 (V4), IPv6 (V6), IPv6 Prefix
/// Delegation Bits (IPv6D), IPv6 Prefix Length (IP6PL).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct UeIpAddress {
    /// S/D: the address is the destination address (set in a downlink PDI), else the source.
    pub is_destination: bool,
    /// IPv4 address (V4).
    pub ipv4: Option<Ipv4Addr>,
    /// IPv6 address or prefix (V6).
    pub ipv6: Option<Ipv6Addr>,
    /// IPv6 Prefix Delegation Bits (IPv6D).
    pub ipv6_prefix_delegation_bits: Option<u8>,
    /// IPv6 Prefix Length (IP6PL).
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

impl UeIpAddress {
    /// An address of either family (V4 or V6) as the destination or the source.
    pub const fn new(addr: IpAddr, is_destination: bool) -> Self {
        match addr {
            IpAddr::V4(a) => UeIpAddress::ipv4(a, is_destination),
            IpAddr::V6(a) => UeIpAddress {
                is_destination,
                ipv4: None,
                ipv6: Some(a),
                ipv6_prefix_delegation_bits: None,
                ipv6_prefix_length: None,
                choose_ipv4: false,
                choose_ipv6: false,
            },
        }
    }

    /// An IPv4 address as the destination (downlink PDI) or the source (uplink PDI).
    pub const fn ipv4(addr: Ipv4Addr, is_destination: bool) -> Self {
        UeIpAddress {
            is_destination,
            ipv4: Some(addr),
            ipv6: None,
            ipv6_prefix_delegation_bits: None,
            ipv6_prefix_length: None,
            choose_ipv4: false,
            choose_ipv6: false,
        }
    }
}

impl IeValue for UeIpAddress {
    fn decode(ie: &IeView<'_>) -> Result<Self> {
        let mut r = ie.reader();
        let f = r.u8()?;
        let ipv4 = r.field_if(f & V4 != 0)?;
        let ipv6 = r.field_if(f & V6 != 0)?;
        let ipv6_prefix_delegation_bits = r.field_if(f & IPV6D != 0)?;
        let ipv6_prefix_length = r.field_if(f & IP6PL != 0)?;
        Ok(UeIpAddress {
            is_destination: f & SD != 0,
            ipv4,
            ipv6,
            ipv6_prefix_delegation_bits,
            ipv6_prefix_length,
            choose_ipv4: f & CHV4 != 0,
            choose_ipv6: f & CHV6 != 0,
        })
    }
    fn value_len(&self) -> usize {
        1 + opt_len(self.ipv4)
            + opt_len(self.ipv6)
            + opt_len(self.ipv6_prefix_delegation_bits)
            + opt_len(self.ipv6_prefix_length)
    }
    fn encode_value(&self, w: &mut Writer<'_>) -> core::result::Result<(), EmitError> {
        w.u8(bit_if(self.ipv6.is_some(), V6)
            | bit_if(self.ipv4.is_some(), V4)
            | bit_if(self.is_destination, SD)
            | bit_if(self.ipv6_prefix_delegation_bits.is_some(), IPV6D)
            | bit_if(self.choose_ipv4, CHV4)
            | bit_if(self.choose_ipv6, CHV6)
            | bit_if(self.ipv6_prefix_length.is_some(), IP6PL))?;
        w.field_opt(self.ipv4)?;
        w.field_opt(self.ipv6)?;
        w.field_opt(self.ipv6_prefix_delegation_bits)?;
        w.field_opt(self.ipv6_prefix_length)
    }
}

impl TypedIe for UeIpAddress {
    const TYPE: IeType = IeType::UE_IP_ADDRESS;
}
