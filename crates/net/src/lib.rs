//! The layers under GTP-U and beside it, sans-IO: Ethernet II, ARP (RFC 826), IPv4 (RFC 791),
//! ICMPv4 (RFC 792), UDP (RFC 768) and the Internet checksum (RFC 1071, RFC 1624), and the
//! identifiers GTP-U and PFCP share ([`Teid`], [`Qfi`]).
//!
//! Two layers, smoltcp style:
//! - checked views over byte buffers ([`EthernetFrame`], [`ArpPacket`], [`Ipv4Packet`],
//!   [`Icmpv4Packet`], [`UdpPacket`]): `new_checked` validates once, then the accessors read
//!   named offsets and cannot fail;
//! - representations with `parse` / `emit` / `buffer_len` ([`EthernetRepr`], [`ArpRepr`],
//!   [`Ipv4Repr`], [`Icmpv4Repr`], [`UdpRepr`]) that write into caller buffers and never
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
pub mod error;
pub mod ethernet;
pub mod icmpv4;
mod ip_protocol;
pub mod ipv4;
pub mod tag;
pub mod types;
pub mod udp;

pub use arp::{ArpOperation, ArpPacket, ArpRepr};
pub use error::{EmitError, Layer, ParseError};
pub use ethernet::{EthernetFrame, EthernetRepr, MacAddr};
pub use icmpv4::{Icmpv4Packet, Icmpv4Repr};
pub use ipv4::{Ipv4Packet, Ipv4Repr};
pub use types::{OutOfRange, Qfi, Teid};
pub use udp::{UdpPacket, UdpRepr};
