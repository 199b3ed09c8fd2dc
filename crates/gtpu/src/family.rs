//! The two IP families of the emitters, the encapsulator and the templates, as sealed traits
//! over the types that name them: [`TunnelAddress`] for the outer addresses ([`Ipv4Addr`],
//! [`Ipv6Addr`]), [`IpHeader`] for the inner headers ([`Ipv4Repr`], [`Ipv6Repr`]). Functions
//! generic over them are written once and get the family's offsets as constants.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

use crate::encap::{
    OuterHeaders, UdpChecksum, emit_ipv4_udp, emit_ipv6_udp, ipv4_pseudo_sum,
    ipv6_needs_udp_checksum, ipv6_pseudo_sum,
};
use crate::error::EmitError;
use crate::ipv4::{self, Ipv4Repr};
use crate::ipv6::{self, Ipv6Repr};
use crate::udp::UdpRepr;
use upfbench_net::IpFamily;

mod sealed {
    pub trait Sealed {}
    impl Sealed for std::net::Ipv4Addr {}
    impl Sealed for std::net::Ipv6Addr {}
    impl Sealed for crate::Ipv4Repr {}
    impl Sealed for crate::Ipv6Repr {}
}

/// The address type of a tunnel's endpoints: [`Ipv4Addr`] for N3 over IPv4, [`Ipv6Addr`] for
/// N3 over IPv6.
pub trait TunnelAddress: Copy + Into<IpAddr> + sealed::Sealed {
    /// The family.
    const FAMILY: IpFamily;

    /// Writes the outer IP header of `headers`, payload length 0, into the start of `buf`.
    #[doc(hidden)]
    fn emit_outer_ip(headers: &OuterHeaders<Self>, buf: &mut [u8]) -> Result<(), EmitError>;

    /// The UDP pseudo header sum of the endpoints and protocol UDP, without the length.
    #[doc(hidden)]
    fn udp_pseudo_sum(source: Self, destination: Self) -> u16;
}

impl TunnelAddress for Ipv4Addr {
    const FAMILY: IpFamily = IpFamily::Ipv4;

    fn emit_outer_ip(h: &OuterHeaders<Self>, buf: &mut [u8]) -> Result<(), EmitError> {
        Ipv4Repr {
            source: h.source,
            destination: h.destination,
            protocol: ipv4::PROTOCOL_UDP,
            payload_len: 0,
            ttl: h.ttl,
            dscp_ecn: h.dscp_ecn,
            identification: h.identification,
            dont_fragment: h.dont_fragment,
        }
        .emit(buf)
        .map_err(EmitError::from)
    }

    fn udp_pseudo_sum(source: Self, destination: Self) -> u16 {
        ipv4_pseudo_sum(source, destination)
    }
}

impl TunnelAddress for Ipv6Addr {
    const FAMILY: IpFamily = IpFamily::Ipv6;

    fn emit_outer_ip(h: &OuterHeaders<Self>, buf: &mut [u8]) -> Result<(), EmitError> {
        Ipv6Repr {
            source: h.source,
            destination: h.destination,
            next_header: ipv6::PROTOCOL_UDP,
            payload_len: 0,
            hop_limit: h.ttl,
            traffic_class: h.dscp_ecn,
            flow_label: h.flow_label,
        }
        .emit(buf)
        .map_err(EmitError::from)
    }

    fn udp_pseudo_sum(source: Self, destination: Self) -> u16 {
        ipv6_pseudo_sum(source, destination)
    }
}

/// The header of an inner packet (a UE's, or an N6 packet): [`Ipv4Repr`] or [`Ipv6Repr`].
pub trait IpHeader: sealed::Sealed {
    /// The family.
    const FAMILY: IpFamily;

    /// Writes an IP/UDP datagram with this header carrying `payload` into the start of `buf`
    /// and returns its length ([`emit_ip_udp`](crate::emit_ip_udp)).
    #[doc(hidden)]
    fn emit_udp(
        &self,
        buf: &mut [u8],
        udp: &UdpRepr,
        payload: &[u8],
        udp_checksum: UdpChecksum,
    ) -> Result<usize, EmitError>;
}

impl IpHeader for Ipv4Repr {
    const FAMILY: IpFamily = IpFamily::Ipv4;

    fn emit_udp(
        &self,
        buf: &mut [u8],
        udp: &UdpRepr,
        payload: &[u8],
        udp_checksum: UdpChecksum,
    ) -> Result<usize, EmitError> {
        emit_ipv4_udp(buf, self, udp, payload, udp_checksum)
    }
}

impl IpHeader for Ipv6Repr {
    const FAMILY: IpFamily = IpFamily::Ipv6;

    fn emit_udp(
        &self,
        buf: &mut [u8],
        udp: &UdpRepr,
        payload: &[u8],
        udp_checksum: UdpChecksum,
    ) -> Result<usize, EmitError> {
        if udp_checksum == UdpChecksum::Zero {
            return Err(ipv6_needs_udp_checksum());
        }
        emit_ipv6_udp(buf, self, udp, payload)
    }
}
