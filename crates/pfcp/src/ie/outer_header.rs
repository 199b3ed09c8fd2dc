//! Outer Header Removal (§8.2.64) and Outer Header Creation (§8.2.56).

use core::net::{IpAddr, Ipv4Addr, Ipv6Addr};

use super::{IeType, IeValue, IeView, TypedIe};
use crate::error::{EmitError, Result};
use crate::types::Teid;
use crate::wire::{Writer, opt_len};

/// Outer Header Removal (TS 29.244 §8.2.64): which outer headers a PDR strips.
///
/// Layout: octet 5 description; octet 6, optional, GTP-U Extension Header Deletion.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct OuterHeaderRemoval {
    /// Outer Header Removal Description (see the constants).
    pub description: u8,
    /// GTP-U Extension Header Deletion (bit 1: PDU Session Container), when present.
    pub gtpu_extension_header_deletion: Option<u8>,
}

impl OuterHeaderRemoval {
    /// 0: GTP-U/UDP/IPv4.
    pub const GTPU_UDP_IPV4: u8 = 0;
    /// 1: GTP-U/UDP/IPv6.
    pub const GTPU_UDP_IPV6: u8 = 1;
    /// 2: UDP/IPv4.
    pub const UDP_IPV4: u8 = 2;
    /// 3: UDP/IPv6.
    pub const UDP_IPV6: u8 = 3;
    /// 4: IPv4.
    pub const IPV4: u8 = 4;
    /// 5: IPv6.
    pub const IPV6: u8 = 5;
    /// 6: GTP-U/UDP/IP: the tunnel over either family (a dual-stack N3).
    pub const GTPU_UDP_IP: u8 = 6;
    /// 7: VLAN S-TAG.
    pub const VLAN_S_TAG: u8 = 7;
    /// 8: S-TAG and C-TAG.
    pub const S_TAG_AND_C_TAG: u8 = 8;

    /// Removal of GTP-U/UDP over the N3 transport's family (`ipv6`: GTP-U/UDP/IPv6).
    pub const fn gtpu_udp(ipv6: bool) -> Self {
        OuterHeaderRemoval {
            description: if ipv6 {
                Self::GTPU_UDP_IPV6
            } else {
                Self::GTPU_UDP_IPV4
            },
            gtpu_extension_header_deletion: None,
        }
    }

    /// Removal of GTP-U/UDP/IPv4, the uplink PDR's default.
    pub const fn gtpu_udp_ipv4() -> Self {
        OuterHeaderRemoval {
            description: Self::GTPU_UDP_IPV4,
            gtpu_extension_header_deletion: None,
        }
    }
}

impl IeValue for OuterHeaderRemoval {
    fn decode(ie: &IeView<'_>) -> Result<Self> {
        let mut r = ie.reader();
        let description = r.u8()?;
        let gtpu_extension_header_deletion = r.field_if(r.remaining() > 0)?;
        Ok(OuterHeaderRemoval {
            description,
            gtpu_extension_header_deletion,
        })
    }
    fn value_len(&self) -> usize {
        1 + opt_len(self.gtpu_extension_header_deletion)
    }
    fn encode_value(&self, w: &mut Writer<'_>) -> core::result::Result<(), EmitError> {
        w.u8(self.description)?;
        w.field_opt(self.gtpu_extension_header_deletion)
    }
}

impl TypedIe for OuterHeaderRemoval {
    const TYPE: IeType = IeType::OUTER_HEADER_REMOVAL;
}

/// Outer Header Creation (TS 29.244 §8.2.56): the tunnel header a FAR adds.
///
/// Layout: octets 5-6 description (a bit mask, octet 5 in the high byte of [`Self::description`]),
/// then TEID, IPv4, IPv6, Port Number, C-TAG, S-TAG, each present as the description requires.
/// GTP-U/UDP/IPv4 and GTP-U/UDP/IPv6 may be set together, for a peer whose F-TEID has both
/// addresses (one TEID, both addresses; the UP function picks the family). The decoder fills
/// exactly the fields the description requires and refuses a description with no bit set (the
/// spec wants at least one); the encoder refuses a value whose fields disagree with its
/// description.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct OuterHeaderCreation {
    /// Outer Header Creation Description (see the constants; combinations allowed).
    pub description: u16,
    /// TEID (GTP-U descriptions).
    pub teid: Option<Teid>,
    /// IPv4 address (GTP-U/UDP/IPv4, UDP/IPv4, IPv4).
    pub ipv4: Option<Ipv4Addr>,
    /// IPv6 address (GTP-U/UDP/IPv6, UDP/IPv6, IPv6).
    pub ipv6: Option<Ipv6Addr>,
    /// UDP port (UDP/IPv4, UDP/IPv6).
    pub port: Option<u16>,
    /// C-TAG, 3 octets (C-TAG).
    pub c_tag: Option<[u8; 3]>,
    /// S-TAG, 3 octets (S-TAG).
    pub s_tag: Option<[u8; 3]>,
}

impl OuterHeaderCreation {
    /// GTP-U/UDP/IPv4 (octet 5 bit 1).
    pub const GTPU_UDP_IPV4: u16 = 0x0100;
    /// GTP-U/UDP/IPv6 (octet 5 bit 2).
    pub const GTPU_UDP_IPV6: u16 = 0x0200;
    /// UDP/IPv4 (octet 5 bit 3).
    pub const UDP_IPV4: u16 = 0x0400;
    /// UDP/IPv6 (octet 5 bit 4).
    pub const UDP_IPV6: u16 = 0x0800;
    /// IPv4 (octet 5 bit 5).
    pub const IPV4: u16 = 0x1000;
    /// IPv6 (octet 5 bit 6).
    pub const IPV6: u16 = 0x2000;
    /// C-TAG (octet 5 bit 7).
    pub const C_TAG: u16 = 0x4000;
    /// S-TAG (octet 5 bit 8).
    pub const S_TAG: u16 = 0x8000;
    /// N19 Indication (octet 6 bit 1).
    pub const N19_INDICATION: u16 = 0x0001;
    /// N6 Indication (octet 6 bit 2).
    pub const N6_INDICATION: u16 = 0x0002;

    /// A GTP-U/UDP header towards `addr` with `teid`, over the address's family (GTP-U/UDP/IPv4
    /// or GTP-U/UDP/IPv6): the downlink FAR's tunnel to the gNB.
    pub const fn gtpu_udp(teid: Teid, addr: IpAddr) -> Self {
        match addr {
            IpAddr::V4(a) => Self::gtpu_udp_ipv4(teid, a),
            IpAddr::V6(a) => OuterHeaderCreation {
                description: Self::GTPU_UDP_IPV6,
                teid: Some(teid),
                ipv4: None,
                ipv6: Some(a),
                port: None,
                c_tag: None,
                s_tag: None,
            },
        }
    }

    /// A GTP-U/UDP/IPv4 header towards `addr` with `teid`: the downlink FAR's tunnel to the gNB.
    pub const fn gtpu_udp_ipv4(teid: Teid, addr: Ipv4Addr) -> Self {
        OuterHeaderCreation {
            description: Self::GTPU_UDP_IPV4,
            teid: Some(teid),
            ipv4: Some(addr),
            ipv6: None,
            port: None,
            c_tag: None,
            s_tag: None,
        }
    }

    /// A GTP-U/UDP header with `teid` towards a peer that has both an IPv4 and an IPv6 address
    /// (GTP-U/UDP/IPv4 and GTP-U/UDP/IPv6 set together, §8.2.56).
    pub const fn gtpu_udp_dual_stack(teid: Teid, ipv4: Ipv4Addr, ipv6: Ipv6Addr) -> Self {
        OuterHeaderCreation {
            description: Self::GTPU_UDP_IPV4 | Self::GTPU_UDP_IPV6,
            teid: Some(teid),
            ipv4: Some(ipv4),
            ipv6: Some(ipv6),
            port: None,
            c_tag: None,
            s_tag: None,
        }
    }

    const fn needs_teid(d: u16) -> bool {
        d & (Self::GTPU_UDP_IPV4 | Self::GTPU_UDP_IPV6) != 0
    }
    const fn needs_ipv4(d: u16) -> bool {
        d & (Self::GTPU_UDP_IPV4 | Self::UDP_IPV4 | Self::IPV4) != 0
    }
    const fn needs_ipv6(d: u16) -> bool {
        d & (Self::GTPU_UDP_IPV6 | Self::UDP_IPV6 | Self::IPV6) != 0
    }
    const fn needs_port(d: u16) -> bool {
        d & (Self::UDP_IPV4 | Self::UDP_IPV6) != 0
    }
}

impl IeValue for OuterHeaderCreation {
    fn decode(ie: &IeView<'_>) -> Result<Self> {
        let mut r = ie.reader();
        let at = r.offset();
        let d = r.u16()?;
        if d == 0 {
            return Err(r.invalid_at(at, "Outer Header Creation: no description bit set"));
        }
        let teid = r.field_if(Self::needs_teid(d))?;
        let ipv4 = r.field_if(Self::needs_ipv4(d))?;
        let ipv6 = r.field_if(Self::needs_ipv6(d))?;
        let port = r.field_if(Self::needs_port(d))?;
        let c_tag = r.field_if(d & Self::C_TAG != 0)?;
        let s_tag = r.field_if(d & Self::S_TAG != 0)?;
        Ok(OuterHeaderCreation {
            description: d,
            teid,
            ipv4,
            ipv6,
            port,
            c_tag,
            s_tag,
        })
    }
    fn value_len(&self) -> usize {
        2 + opt_len(self.teid)
            + opt_len(self.ipv4)
            + opt_len(self.ipv6)
            + opt_len(self.port)
            + opt_len(self.c_tag)
            + opt_len(self.s_tag)
    }
    fn encode_value(&self, w: &mut Writer<'_>) -> core::result::Result<(), EmitError> {
        let d = self.description;
        let consistent = Self::needs_teid(d) == self.teid.is_some()
            && Self::needs_ipv4(d) == self.ipv4.is_some()
            && Self::needs_ipv6(d) == self.ipv6.is_some()
            && Self::needs_port(d) == self.port.is_some()
            && (d & Self::C_TAG != 0) == self.c_tag.is_some()
            && (d & Self::S_TAG != 0) == self.s_tag.is_some();
        if d == 0 {
            return Err(EmitError::Invalid {
                what: "Outer Header Creation: no description bit set",
            });
        }
        if !consistent {
            return Err(EmitError::Invalid {
                what: "Outer Header Creation fields disagree with its description",
            });
        }
        w.u16(d)?;
        w.field_opt(self.teid)?;
        w.field_opt(self.ipv4)?;
        w.field_opt(self.ipv6)?;
        w.field_opt(self.port)?;
        w.field_opt(self.c_tag)?;
        w.field_opt(self.s_tag)
    }
}

impl TypedIe for OuterHeaderCreation {
    const TYPE: IeType = IeType::OUTER_HEADER_CREATION;
}
