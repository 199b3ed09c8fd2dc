//! The layers under GTP-U and beside it, sans-IO: Ethernet II with IEEE 802.1Q/802.1ad VLAN
//! tags, ARP (RFC 826), IPv4 (RFC 791), ICMPv4 (RFC 792), IPv6 (RFC 8200), ICMPv6 (RFC 4443)
//! with Neighbor Discovery (RFC 4861), UDP (RFC 768) and the Internet checksum (RFC 1071,
//! RFC 1624), and the identifiers GTP-U and PFCP share ([`Teid`], [`Qfi`]).
//!
//! Two layers, smoltcp style:
//! - checked views over byte buffers ([`EthernetFrame`], [`VlanTag`], [`ArpPacket`],
//!   [`Ipv4Packet`], [`Icmpv4Packet`], [`Ipv6Packet`], [`Icmpv6Packet`], [`UdpPacket`]):
//!   `new_checked` validates once, then the accessors read named offsets and cannot fail;
//! - representations with `parse` / `emit` / `buffer_len` ([`EthernetRepr`],
//!   [`TaggedEthernetRepr`], [`VlanRepr`], [`ArpRepr`], [`Ipv4Repr`], [`Icmpv4Repr`],
//!   [`Ipv6Repr`], [`Icmpv6Repr`], [`UdpRepr`]) that write into caller buffers and never
//!   allocate.
//!
//! Decoding never panics; every failure is a [`ParseError`] that names the layer and the offset.
//!
//! ```
//! use std::net::Ipv4Addr;
//! use upfbench_net::{ArpOperation, ArpPacket, ArpRepr, EthernetFrame, EthernetRepr, MacAddr};
//! use upfbench_net::ethernet::{ETHERTYPE_ARP, HEADER_LEN};
//!
//! // Who has 192.168.13.131? Asked by 192.168.13.151.
//! let asker = MacAddr([2, 0, 0, 0, 0x13, 0x51]);
//! let request = ArpRepr::request(
//!     asker,
//!     Ipv4Addr::new(192, 168, 13, 151),
//!     Ipv4Addr::new(192, 168, 13, 131),
//! );
//! let mut frame = [0u8; 60];
//! EthernetRepr { source: asker, destination: MacAddr::BROADCAST, ethertype: ETHERTYPE_ARP }
//!     .emit(&mut frame)?;
//! request.emit(&mut frame[HEADER_LEN..])?;
//!
//! // The answering side.
//! let eth = EthernetFrame::new_checked(&frame[..])?;
//! let asked = ArpRepr::parse(&ArpPacket::new_checked(eth.payload())?)?;
//! assert_eq!(asked.operation, ArpOperation::Request);
//! let reply = asked.reply(MacAddr([2, 0, 0, 0, 0x13, 0x31]));
//! assert_eq!(reply.target_mac, asker);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
#![forbid(unsafe_code)]

pub mod arp;
pub mod checksum;
pub mod cidr;
pub mod error;
pub mod ethernet;
pub mod icmpv4;
pub mod icmpv6;
mod ip_protocol;
pub mod ipv4;
pub mod ipv6;
pub mod ndp;
pub mod tag;
pub mod types;
pub mod udp;
pub mod vlan;

pub use arp::{ArpOperation, ArpPacket, ArpRepr};
pub use cidr::{CidrError, Ipv6Cidr};
pub use error::{EmitError, Layer, NdpRule, ParseError};
pub use ethernet::{EthernetFrame, EthernetRepr, MacAddr};
pub use icmpv4::{Icmpv4Packet, Icmpv4Repr};
pub use icmpv6::{Icmpv6Packet, Icmpv6Repr};
pub use ip_protocol::is_ipv6_extension_header;
pub use ipv4::{Ipv4Packet, Ipv4Repr};
pub use ipv6::{Ipv6Packet, Ipv6Repr};
pub use ndp::{NeighborAdvert, NeighborSolicit};
pub use types::{IpFamily, OutOfRange, Qfi, Teid};
pub use udp::{UdpPacket, UdpRepr};
pub use vlan::{TaggedEthernetRepr, VlanId, VlanIdError, VlanKind, VlanRepr, VlanTag, VlanTags};
