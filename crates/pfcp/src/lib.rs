//! PFCP (3GPP TS 29.244), the N4 protocol between the control plane and a UPF.
//!
//! This part is the sans-IO codec:
//! - [`header`]: the message header, a zero-copy [`Header`] view and its [`HeaderRepr`];
//! - [`ie`]: the TLV layer ([`IeView`], [`IeIter`]), typed IE values and grouped IEs;
//! - [`message`]: typed message bodies, [`Message`] (parse / emit / buffer_len) and [`Datagram`];
//! - [`plan`]: building a UE's Session Establishment Request from a few parameters.
//!
//! Decoding never panics; errors ([`Error`]) name the message, the IE and the offset, and map to
//! the Cause and Offending IE a UPF answers with. IEs the codec does not type are kept
//! ([`RawIe`]) and re-emitted.
//!
//! ```
//! use upfbench_pfcp::{Message, MessageBody};
//! let bytes = [0x20, 0x01, 0x00, 0x0c, 0x00, 0x00, 0x01, 0x00,
//!              0x00, 0x60, 0x00, 0x04, 0xed, 0x15, 0x7e, 0x22];
//! let msg = Message::parse(&bytes).unwrap();
//! let MessageBody::HeartbeatRequest(hb) = &msg.body else { panic!() };
//! assert_eq!(hb.recovery_time_stamp.0, 3977608738);
//! assert_eq!(msg.to_vec().unwrap(), bytes);
//! ```
#![forbid(unsafe_code)]

pub mod error;
pub mod header;
#[macro_use]
pub mod ie;
pub mod message;
pub mod plan;
pub mod types;
mod wire;

pub use error::{EmitError, Error, ErrorKind, Result};
pub use header::{Header, HeaderRepr};
pub use ie::{IeIter, IeType, IeValue, IeView, RawIe, TypedIe};
pub use message::{Datagram, Message, MessageBody, MessageType};
pub use types::{
    FarId, MessagePriority, PdrId, Precedence, QerId, Qfi, Seid, SequenceNumber, Teid, UrrId,
};
pub use wire::Writer;
