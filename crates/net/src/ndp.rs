//! Neighbor Discovery for IPv6 (RFC 4861): the Neighbor Solicitation (§4.3) and Neighbor
//! Advertisement (§4.4) that replace ARP, with their link-layer address options (§4.6.1) for
//! Ethernet (RFC 2464 §6). They travel as ICMPv6 messages ([`Icmpv6Repr`](crate::Icmpv6Repr)).
//!
//! ```text
//!  0       1       2       4                               8
//!  +-------+-------+-------+-------------------------------+
//!  | type  | code  | csum  | reserved (NS) / R S O (NA)    |
//!  +-------+-------+-------+-------------------------------+
//!  | target address (16)                                   |  8..24
//!  +-------------------------------------------------------+
//!  | options: type, length in 8-octet units, value ...     |  24..
//! ```
//!
//! Parsing applies the validity checks of §7.1.1 and §7.1.2 that the message itself can show,
//! each failure a located [`ParseError`]; the IPv6 hop limit of 255 is outside the message and
//! the caller's check ([`HOP_LIMIT`]). Options other than the link-layer address each message
//! carries are skipped, as §4.3 and §4.4 tell receivers.

use std::net::Ipv6Addr;

use crate::error::{Layer, NdpRule, ParseError};
use crate::ethernet::MacAddr;
use crate::icmpv6::{field as icmp_field, message_type};
use crate::ipv6::{ALL_NODES, is_solicited_node};

/// The IPv6 hop limit of every Neighbor Discovery message: sent with it, and discarded when
/// received with another (RFC 4861 §7.1), which proves it came from the link.
pub const HOP_LIMIT: u8 = 255;
/// Length of a solicitation or advertisement without options.
pub const MESSAGE_LEN: usize = 24;
/// Length of an Ethernet link-layer address option: type, length (1) and the address.
pub const LINK_LAYER_OPTION_LEN: usize = 8;

/// Field offsets of the Neighbor Solicitation and Advertisement after the ICMPv6 header.
pub mod field {
    use core::ops::Range;
    /// The advertisement's flags: Router, Solicited, Override (the high three bits).
    pub const FLAGS: usize = 4;
    /// The target address.
    pub const TARGET: Range<usize> = 8..24;
    /// The first option.
    pub const OPTIONS: usize = 24;
}

/// Neighbor Discovery option types (RFC 4861 §4.6).
pub mod option_type {
    /// Source Link-Layer Address.
    pub const SOURCE_LINK_LAYER_ADDRESS: u8 = 1;
    /// Target Link-Layer Address.
    pub const TARGET_LINK_LAYER_ADDRESS: u8 = 2;
}

const FLAG_ROUTER: u8 = 0x80;
const FLAG_SOLICITED: u8 = 0x40;
const FLAG_OVERRIDE: u8 = 0x20;

/// A Neighbor Solicitation (RFC 4861 §4.3): who has `target`?
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct NeighborSolicit {
    /// The address asked for.
    pub target: Ipv6Addr,
    /// The asker's Ethernet address (the Source Link-Layer Address option); none in duplicate
    /// address detection, from the unspecified address.
    pub source_link_layer: Option<MacAddr>,
}

/// A Neighbor Advertisement (RFC 4861 §4.4): `target` is at `target_link_layer`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct NeighborAdvert {
    /// The R flag: the sender is a router.
    pub router: bool,
    /// The S flag: an answer to a solicitation.
    pub solicited: bool,
    /// The O flag: the answer overrides a cached link-layer address.
    pub override_flag: bool,
    /// The address advertised.
    pub target: Ipv6Addr,
    /// Its Ethernet address (the Target Link-Layer Address option).
    pub target_link_layer: Option<MacAddr>,
}

impl NeighborSolicit {
    /// A solicitation for `target` from a node with Ethernet address `our_mac`, to be sent from
    /// one of its addresses to the solicited-node address of `target`
    /// ([`solicited_node`](crate::ipv6::solicited_node)).
    #[inline]
    pub const fn new(target: Ipv6Addr, our_mac: MacAddr) -> Self {
        NeighborSolicit {
            target,
            source_link_layer: Some(our_mac),
        }
    }

    /// The answer of the owner of the target, `our_mac`, to this solicitation received from
    /// `solicitor` (RFC 4861 §7.2.4): the advertisement and its destination, the solicitor, or
    /// all nodes with the Solicited flag clear when it asked from the unspecified address.
    #[inline]
    pub fn advert(&self, solicitor: Ipv6Addr, our_mac: MacAddr) -> (Ipv6Addr, NeighborAdvert) {
        let unspecified = solicitor.is_unspecified();
        let advert = NeighborAdvert {
            router: false,
            solicited: !unspecified,
            override_flag: true,
            target: self.target,
            target_link_layer: Some(our_mac),
        };
        (if unspecified { ALL_NODES } else { solicitor }, advert)
    }

    /// Bytes the message takes.
    #[inline]
    pub const fn buffer_len(&self) -> usize {
        MESSAGE_LEN + option_len(self.source_link_layer)
    }

    /// Reads a solicitation (the whole ICMPv6 message, its checksum verified) sent from `src`
    /// to `dst`.
    pub(crate) fn parse(m: &[u8], src: &Ipv6Addr, dst: &Ipv6Addr) -> Result<Self, ParseError> {
        let target = check_message(m)?;
        let source_link_layer = link_layer_option(m, option_type::SOURCE_LINK_LAYER_ADDRESS)?;
        if src.is_unspecified() {
            if let Some((at, _)) = source_link_layer {
                return Err(ParseError::InvalidNeighborDiscovery {
                    offset: at,
                    rule: NdpRule::LinkLayerAddressFromUnspecified,
                });
            }
            if !is_solicited_node(*dst) {
                return Err(ParseError::InvalidNeighborDiscovery {
                    offset: 0,
                    rule: NdpRule::UnspecifiedToNonSolicitedNode,
                });
            }
        }
        Ok(NeighborSolicit {
            target,
            source_link_layer: source_link_layer.map(|(_, mac)| mac),
        })
    }

    /// Writes the message but for its checksum into `m`, [`buffer_len`](Self::buffer_len)
    /// octets.
    pub(crate) fn emit_message(&self, m: &mut [u8]) {
        m[icmp_field::TYPE] = message_type::NEIGHBOR_SOLICIT;
        m[icmp_field::CODE] = 0;
        m[icmp_field::REST_OF_HEADER].fill(0);
        m[field::TARGET].copy_from_slice(&self.target.octets());
        emit_option(
            &mut m[field::OPTIONS..],
            option_type::SOURCE_LINK_LAYER_ADDRESS,
            self.source_link_layer,
        );
    }
}

impl NeighborAdvert {
    /// Bytes the message takes.
    #[inline]
    pub const fn buffer_len(&self) -> usize {
        MESSAGE_LEN + option_len(self.target_link_layer)
    }

    /// Reads an advertisement (the whole ICMPv6 message, its checksum verified) sent to `dst`.
    pub(crate) fn parse(m: &[u8], dst: &Ipv6Addr) -> Result<Self, ParseError> {
        let target = check_message(m)?;
        let flags = m[field::FLAGS];
        let solicited = flags & FLAG_SOLICITED != 0;
        if solicited && dst.is_multicast() {
            return Err(ParseError::InvalidNeighborDiscovery {
                offset: field::FLAGS,
                rule: NdpRule::SolicitedToMulticast,
            });
        }
        let target_link_layer = link_layer_option(m, option_type::TARGET_LINK_LAYER_ADDRESS)?;
        Ok(NeighborAdvert {
            router: flags & FLAG_ROUTER != 0,
            solicited,
            override_flag: flags & FLAG_OVERRIDE != 0,
            target,
            target_link_layer: target_link_layer.map(|(_, mac)| mac),
        })
    }

    /// Writes the message but for its checksum into `m`, [`buffer_len`](Self::buffer_len)
    /// octets.
    pub(crate) fn emit_message(&self, m: &mut [u8]) {
        m[icmp_field::TYPE] = message_type::NEIGHBOR_ADVERT;
        m[icmp_field::CODE] = 0;
        m[icmp_field::REST_OF_HEADER].fill(0);
        let flag = |on: bool, bit: u8| if on { bit } else { 0 };
        m[field::FLAGS] = flag(self.router, FLAG_ROUTER)
            | flag(self.solicited, FLAG_SOLICITED)
            | flag(self.override_flag, FLAG_OVERRIDE);
        m[field::TARGET].copy_from_slice(&self.target.octets());
        emit_option(
            &mut m[field::OPTIONS..],
            option_type::TARGET_LINK_LAYER_ADDRESS,
            self.target_link_layer,
        );
    }
}

const fn option_len(mac: Option<MacAddr>) -> usize {
    match mac {
        Some(_) => LINK_LAYER_OPTION_LEN,
        None => 0,
    }
}

fn emit_option(o: &mut [u8], option: u8, mac: Option<MacAddr>) {
    if let Some(mac) = mac {
        o[0] = option;
        o[1] = (LINK_LAYER_OPTION_LEN / 8) as u8;
        o[2..LINK_LAYER_OPTION_LEN].copy_from_slice(&mac.0);
    }
}

/// The checks both messages share: code 0, 24 octets, a target that is not multicast; returns
/// the target.
fn check_message(m: &[u8]) -> Result<Ipv6Addr, ParseError> {
    if m[icmp_field::CODE] != 0 {
        return Err(ParseError::InvalidNeighborDiscovery {
            offset: icmp_field::CODE,
            rule: NdpRule::NonZeroCode,
        });
    }
    let Some(t) = m.get(field::TARGET) else {
        return Err(ParseError::Truncated {
            layer: Layer::Icmpv6,
            offset: field::TARGET.start,
            needed: field::TARGET.len(),
            available: m.len().saturating_sub(field::TARGET.start),
        });
    };
    let mut octets = [0u8; 16];
    octets.copy_from_slice(t);
    let target = Ipv6Addr::from(octets);
    if target.is_multicast() {
        return Err(ParseError::InvalidNeighborDiscovery {
            offset: field::TARGET.start,
            rule: NdpRule::MulticastTarget,
        });
    }
    Ok(target)
}

/// Walks the options of message `m` and returns the first link-layer address option of type
/// `wanted` and its offset. Every option must have a non-zero length within the message; the
/// wanted one must hold an Ethernet address.
fn link_layer_option(m: &[u8], wanted: u8) -> Result<Option<(usize, MacAddr)>, ParseError> {
    let mut found = None;
    let mut at = field::OPTIONS;
    while at < m.len() {
        let rest = m.len() - at;
        if rest < 2 {
            return Err(ParseError::Truncated {
                layer: Layer::NdpOption,
                offset: at,
                needed: 2,
                available: rest,
            });
        }
        let len = usize::from(m[at + 1]) * 8;
        if len == 0 {
            return Err(ParseError::LengthTooSmall {
                layer: Layer::NdpOption,
                offset: at + 1,
                length: 0,
                minimum: 8,
            });
        }
        if len > rest {
            return Err(ParseError::LengthExceedsBuffer {
                layer: Layer::NdpOption,
                offset: at + 1,
                length: len,
                available: rest,
            });
        }
        if m[at] == wanted {
            if len != LINK_LAYER_OPTION_LEN {
                return Err(ParseError::InvalidNeighborDiscovery {
                    offset: at + 1,
                    rule: NdpRule::LinkLayerAddressNotEthernet,
                });
            }
            if found.is_none() {
                let b = &m[at + 2..at + LINK_LAYER_OPTION_LEN];
                found = Some((at, MacAddr([b[0], b[1], b[2], b[3], b[4], b[5]])));
            }
        }
        at += len;
    }
    Ok(found)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_advert_answers_a_solicitation() {
        let target: Ipv6Addr = "2001:db8:13::131".parse().unwrap();
        let asker: Ipv6Addr = "2001:db8:13::151".parse().unwrap();
        let us = MacAddr([2, 0, 0, 0, 0x13, 0x31]);
        let ns = NeighborSolicit::new(target, MacAddr([2, 0, 0, 0, 0x13, 0x51]));
        let (to, na) = ns.advert(asker, us);
        assert_eq!(to, asker);
        assert!(na.solicited && na.override_flag && !na.router);
        assert_eq!((na.target, na.target_link_layer), (target, Some(us)));
        // Duplicate address detection: the answer goes to all nodes, unsolicited.
        let (to, na) = ns.advert(Ipv6Addr::UNSPECIFIED, us);
        assert_eq!(to, ALL_NODES);
        assert!(!na.solicited);
    }
}
