//! GTP-U (3GPP TS 29.281) and the PDU Session Container (3GPP TS 38.415), sans-IO.
//!
//! Two layers, smoltcp style:
//! - checked views over byte buffers ([`EthernetFrame`], [`Ipv4Packet`], [`UdpPacket`],
//!   [`GtpuPacket`]): `new_checked` validates once, then the accessors read named offsets and
//!   cannot fail;
//! - representations with `parse` / `emit` / `buffer_len` ([`GtpuRepr`], [`GtpuHeaderRepr`],
//!   [`PduSessionContainer`], [`Ipv4Repr`], [`UdpRepr`], [`EthernetRepr`]) that write into
//!   caller buffers.
//!
//! For the datapath: [`Encapsulator`] writes the outer Ethernet/IP/UDP/GTP-U headers in front of
//! an inner packet already in a buffer (into its headroom), and [`decapsulate`] yields the inner
//! packet of a G-PDU frame as a subslice. Neither allocates. [`PacketTemplate`] is a frame built
//! once and patched per packet (TEID, UE address, measurement tag) with the checksums updated
//! incrementally; [`checksum`] has the Internet checksum and its RFC 1624 update.
//!
//! The transport is IPv4 or IPv6 (RFC 8200), by the address type of [`OuterHeaders`]
//! ([`TunnelAddress`]), and the UE packets are IPv4 or IPv6, by the header type given to the
//! emitters and templates ([`IpHeader`]). Over IPv6 every UDP checksum is computed (RFC 8200
//! §8.1: a zero checksum is discarded), the outer one over the whole G-PDU.
//!
//! Decoding never panics; every failure is a [`ParseError`] that names the layer and the offset.
//!
//! ```
//! use std::net::Ipv4Addr;
//! use upfbench_gtpu::{
//!     decapsulate, emit_ipv4_udp, Encapsulator, Ipv4Repr, OuterHeaders, PduSessionContainer,
//!     UdpChecksum, UdpRepr,
//! };
//! use upfbench_net::{MacAddr, Qfi, Teid};
//!
//! // An inner IPv4/UDP packet from the UE, placed after enough headroom.
//! let mut buf = [0u8; 256];
//! let headroom = 64;
//! let inner = Ipv4Repr {
//!     source: Ipv4Addr::new(10, 45, 0, 2),
//!     destination: Ipv4Addr::new(192, 168, 16, 152),
//!     protocol: 17,
//!     payload_len: 0, // set by emit_ipv4_udp
//!     ttl: 64,
//!     dscp_ecn: 0,
//!     identification: 0,
//!     dont_fragment: false,
//! };
//! let ports = UdpRepr { source_port: 10000, destination_port: 20000 };
//! let inner_len =
//!     emit_ipv4_udp(&mut buf[headroom..], &inner, &ports, b"0123456789", UdpChecksum::Compute)?;
//!
//! // Uplink G-PDU to the UPF, TEID 1, PDU Session Container with QFI 9.
//! let mut outer = OuterHeaders::new(
//!     MacAddr([2, 0, 0, 0, 0x13, 0x31]),
//!     MacAddr([2, 0, 0, 0, 0x13, 0x51]),
//!     Ipv4Addr::new(192, 168, 13, 131),
//!     Ipv4Addr::new(192, 168, 13, 151),
//!     Teid(1),
//! );
//! outer.pdu_session_container = Some(PduSessionContainer::uplink(Qfi::new(9)?));
//! let encap = Encapsulator::new(&outer)?;
//! let frame = encap.encapsulate(&mut buf, headroom..headroom + inner_len)?;
//! assert_eq!(frame.len(), encap.outer_len() + inner_len);
//!
//! // The UPF side: decapsulate.
//! let d = decapsulate(&buf[frame])?;
//! assert_eq!(d.teid(), Teid(1));
//! assert_eq!(d.qfi(), Qfi::new(9).ok());
//! assert_eq!(d.inner().len(), inner_len);
//! assert_eq!(&d.inner()[28..], b"0123456789");
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
#![forbid(unsafe_code)]

pub mod encap;
mod error;
mod family;
mod frame;
pub mod header;
pub mod ie;
mod message;
pub mod pdu_session;
mod template;
mod types;
pub mod udp_payload;

// The layers below GTP-U live in `upfbench-net`; their modules and views are re-exported beside
// GTP-U's own. The shared field types (`MacAddr`, `Teid`, `Qfi`, `OutOfRange`) are not: they are
// imported from `upfbench-net`, the one place that defines them.
pub use upfbench_net::{checksum, ethernet, ipv4, ipv6, udp};

pub use encap::{
    Encapsulator, OuterHeaders, UdpChecksum, emit_ip_udp, emit_ipv4_udp, emit_ipv6_udp,
};
pub use error::{EmitError, Layer, ParseError};
pub use ethernet::{EthernetFrame, EthernetRepr};
pub use family::{IpHeader, TunnelAddress};
pub use frame::{Decapsulated, GtpuDatagram, GtpuFrame, decapsulate};
pub use header::{ExtensionHeader, ExtensionHeaders, GtpuHeaderRepr, GtpuPacket};
pub use ie::{InformationElement, InformationElements};
pub use ipv4::{Ipv4Packet, Ipv4Repr};
pub use ipv6::{Ipv6Packet, Ipv6Repr};
pub use message::{GtpuRepr, Message};
pub use pdu_session::{
    DlPduSessionInformation, PduSessionContainer, UlPduSessionInformation, UlQosMonitoring,
};
pub use template::{PacketTemplate, UeAddress, UePatch, WindowPatcher};
pub use types::{
    Comprehension, ExtensionHeaderType, GTPU_PORT, MessageType, Ppi, QfiSequenceNumber,
};
pub use udp::{UdpPacket, UdpRepr};
pub use udp_payload::udp_payload;
