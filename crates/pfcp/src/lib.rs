//! PFCP (3GPP TS 29.244), the N4 protocol between the control plane and a UPF.
//!
//! The codec and the state machine are sans-IO; only the driver touches sockets and clocks.
//! - [`header`]: the message header, a zero-copy [`Header`] view and its [`HeaderRepr`];
//! - [`ie`]: the TLV layer ([`IeView`], [`IeIter`]), typed IE values and grouped IEs;
//! - [`message`]: typed message bodies, [`Message`] (parse / emit / buffer_len) and [`Datagram`];
//! - [`plan`]: building a UE's Session Establishment Request from a few parameters;
//! - [`node`]: the node state machine (sequence numbers, T1/N1, response cache, heartbeats,
//!   restart detection), CP side ([`node::Client`]) and UP side ([`node::Upf`] and its
//!   [`node::RulesTable`]);
//! - `driver` (feature `tokio`, on by default): a node over a UDP socket, with an async API
//!   (`PfcpClient` for the generator, `serve` for the reflector).
//!
//! Decoding never panics; errors ([`DecodeError`]) name the message, the IE and the offset, and map to
//! the Cause and Offending IE a UPF answers with. IEs the codec does not type are kept
//! ([`RawIe`]) and re-emitted.
//!
//! # Client side: a UE's session from a plan
//!
//! ```
//! use std::net::Ipv4Addr;
//! use std::sync::Arc;
//! use upfbench_pfcp::ie::{DnsName, NodeId};
//! use upfbench_pfcp::plan::{QerPlan, SessionTemplate, UeSession, UeSessionPlan, UplinkTeid};
//! use upfbench_pfcp::{Message, Qfi, Seid, SequenceNumber, Teid};
//!
//! // What every session of the run shares, once.
//! let template = Arc::new(SessionTemplate {
//!     node_id: NodeId::Ipv4(Ipv4Addr::new(192, 168, 14, 111)),
//!     cp_address: Ipv4Addr::new(192, 168, 14, 111).into(),
//!     upf_n3_address: Ipv4Addr::new(192, 168, 13, 151).into(),
//!     gnb_n3_address: Ipv4Addr::new(192, 168, 13, 131).into(),
//!     network_instance: DnsName::from_dotted("internet").unwrap(),
//!     dnn: Some(DnsName::from_dotted("internet").unwrap()),
//!     uplink_qfi: None,
//!     uplink_sdf_filter: None,
//!     interface_types: true,
//!     qer: Some(QerPlan { qfi: Qfi::new(1).unwrap(), mbr: None, gbr: None }),
//!     urr: None,
//!     flows: Vec::new(),
//!     qers: Vec::new(),
//! });
//! // Each UE's own part.
//! let ue = UeSession {
//!     cp_seid: Seid(1),
//!     ue_address: Ipv4Addr::new(10, 45, 0, 2).into(),
//!     ue_ipv6: None,
//!     uplink_teid: UplinkTeid::Assigned(Teid(1)),
//!     downlink_teid: Teid(2),
//! };
//! let plan = UeSessionPlan::new(template, ue);
//! let request = plan.establishment_request();
//! // SEID 0 in the header: the UPF has not chosen its SEID yet.
//! let msg = Message::session(Seid(0), SequenceNumber::new(3).unwrap(), request);
//! let mut buf = [0u8; 1024];
//! let n = msg.emit(&mut buf).unwrap();
//! assert_eq!(n, msg.buffer_len());
//! ```
//!
//! # UPF side: parse a request, reach its rules, answer
//!
//! ```
//! use std::net::Ipv4Addr;
//! use upfbench_pfcp::ie::{CreatedPdr, Fseid, NodeId};
//! use upfbench_pfcp::message::SessionEstablishmentResponse;
//! use upfbench_pfcp::{Message, MessageBody, Seid};
//!
//! # use upfbench_pfcp::ie::*;
//! # use upfbench_pfcp::message::SessionEstablishmentRequest;
//! # use upfbench_pfcp::{FarId, PdrId, Precedence, SequenceNumber};
//! # let cp = Ipv4Addr::new(192, 168, 14, 111);
//! # let mut r = SessionEstablishmentRequest::new(NodeId::Ipv4(cp), Fseid::ipv4(Seid(1), cp));
//! # r.create_pdrs.push(CreatePdr::new(PdrId(1), Precedence(1), Pdi::new(SourceInterface::CORE)));
//! # let fp = ForwardingParameters::new(DestinationInterface::ACCESS);
//! # r.create_fars.push(CreateFar::forward(FarId(1), fp));
//! # let bytes = Message::session(Seid(0), SequenceNumber::new(1).unwrap(), r).to_vec().unwrap();
//! let upf = NodeId::Ipv4(Ipv4Addr::new(192, 168, 14, 151));
//! let reply = match Message::parse(&bytes) {
//!     Ok(Message { body: MessageBody::SessionEstablishmentRequest(req), sequence, .. }) => {
//!         for pdr in &req.create_pdrs {
//!             let _teid = pdr.pdi.local_f_teid.and_then(|f| f.teid());
//!             let _ue = pdr.pdi.ue_ip_address.and_then(|u| u.ipv4);
//!         }
//!         let up = Fseid::ipv4(Seid(7), Ipv4Addr::new(192, 168, 14, 151));
//!         let rsp = SessionEstablishmentResponse::accepted(upf, up, Vec::<CreatedPdr>::new());
//!         Message::session(req.cp_f_seid.seid, sequence, rsp)
//!     }
//!     // A malformed request: Cause 66/68/69 and the Offending IE come from the error.
//!     Err(e) => {
//!         let h = upfbench_pfcp::Header::new_checked(&bytes[..]).unwrap();
//!         let rsp = SessionEstablishmentResponse::for_error(upf, &e).unwrap();
//!         Message::session(Seid(0), h.sequence(), rsp)
//!     }
//!     Ok(_) => unreachable!(),
//! };
//! assert!(reply.to_vec().is_ok());
//! ```
//!
//! # The zero-copy layer
//!
//! ```
//! use upfbench_pfcp::{Header, IeType};
//! let bytes = [0x20, 0x01, 0x00, 0x0c, 0x00, 0x00, 0x01, 0x00,
//!              0x00, 0x60, 0x00, 0x04, 0xed, 0x15, 0x7e, 0x22];
//! let h = Header::new_checked(&bytes[..]).unwrap();
//! let ie = h.ies().next().unwrap().unwrap();
//! assert_eq!((ie.ie_type(), ie.offset(), ie.value()), (IeType::RECOVERY_TIME_STAMP, 8, &bytes[12..]));
//! ```
#![forbid(unsafe_code)]

#[cfg(feature = "tokio")]
pub mod driver;
mod error;
pub mod header;
#[macro_use]
pub mod ie;
pub mod message;
pub mod node;
pub mod plan;
pub mod types;
mod wire;

pub use error::{DecodeError, EmitError, ErrorKind, Result};
pub use header::{Header, HeaderRepr};
pub use ie::{IeIter, IeType, IeValue, IeView, RawIe, TypedIe};
pub use message::{Datagram, Message, MessageBody, MessageType};
pub use types::{
    FarId, MessagePriority, PdrId, Precedence, QerId, Qfi, Seid, SequenceNumber, Teid, UrrId,
};
pub use wire::Writer;
