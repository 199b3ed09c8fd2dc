//! Messages (TS 29.244 §7): the header plus a typed body.
//!
//! [`Message::parse`] decodes one message that fills a buffer; [`Datagram`] walks the messages of
//! a UDP datagram, following the FO flag. Messages this codec does not decode (PFD Management,
//! Node Report, Session Set Deletion/Modification, unknown types) fail with
//! [`ErrorKind::UnsupportedMessage`] after the header was checked, never with a guess.

pub(crate) mod message_type;
mod node;
mod session;

pub use message_type::MessageType;
pub use node::{
    AssociationReleaseRequest, AssociationReleaseResponse, AssociationSetupRequest,
    AssociationSetupResponse, AssociationUpdateRequest, AssociationUpdateResponse,
    HeartbeatRequest, HeartbeatResponse, VersionNotSupportedResponse,
};
pub use session::{
    SessionDeletionRequest, SessionDeletionResponse, SessionEstablishmentRequest,
    SessionEstablishmentResponse, SessionModificationRequest, SessionModificationResponse,
    SessionReportRequest, SessionReportResponse,
};

use crate::error::{DecodeError, EmitError, ErrorKind, Result};
use crate::header::{Header, HeaderRepr};
use crate::types::{MessagePriority, Seid, SequenceNumber};
use crate::wire::Writer;

macro_rules! message_bodies {
    ($( $name:ident = $ty:ident, )*) => {
        /// The typed IEs of a message; the variant gives the message type.
        #[derive(Debug, Clone, PartialEq, Eq)]
        #[allow(clippy::large_enum_variant)]
        pub enum MessageBody {
            $(
                #[doc = concat!("Message type ", stringify!($ty), ".")]
                $name($name),
            )*
        }

        impl MessageBody {
            /// The message type.
            pub fn message_type(&self) -> MessageType {
                match self {
                    $( MessageBody::$name(_) => MessageType::$ty, )*
                }
            }

            fn decode(h: &Header<&[u8]>) -> Result<Self> {
                let t = h.message_type();
                let at = h.header_len();
                Ok(match t {
                    $( MessageType::$ty => MessageBody::$name($name::decode_ies(h.ies(), None, at)?), )*
                    _ => return Err(DecodeError::new(ErrorKind::UnsupportedMessage, None, crate::header::field::MESSAGE_TYPE)),
                })
            }

            fn ies_len(&self) -> usize {
                match self {
                    $( MessageBody::$name(b) => b.ies_len(), )*
                }
            }

            fn encode_ies(&self, w: &mut Writer<'_>) -> core::result::Result<(), EmitError> {
                match self {
                    $( MessageBody::$name(b) => b.encode_ies(w), )*
                }
            }
        }

        $(
            impl From<$name> for MessageBody {
                fn from(b: $name) -> Self {
                    MessageBody::$name(b)
                }
            }
        )*
    };
}

message_bodies! {
    HeartbeatRequest = HEARTBEAT_REQUEST,
    HeartbeatResponse = HEARTBEAT_RESPONSE,
    AssociationSetupRequest = ASSOCIATION_SETUP_REQUEST,
    AssociationSetupResponse = ASSOCIATION_SETUP_RESPONSE,
    AssociationUpdateRequest = ASSOCIATION_UPDATE_REQUEST,
    AssociationUpdateResponse = ASSOCIATION_UPDATE_RESPONSE,
    AssociationReleaseRequest = ASSOCIATION_RELEASE_REQUEST,
    AssociationReleaseResponse = ASSOCIATION_RELEASE_RESPONSE,
    VersionNotSupportedResponse = VERSION_NOT_SUPPORTED_RESPONSE,
    SessionEstablishmentRequest = SESSION_ESTABLISHMENT_REQUEST,
    SessionEstablishmentResponse = SESSION_ESTABLISHMENT_RESPONSE,
    SessionModificationRequest = SESSION_MODIFICATION_REQUEST,
    SessionModificationResponse = SESSION_MODIFICATION_RESPONSE,
    SessionDeletionRequest = SESSION_DELETION_REQUEST,
    SessionDeletionResponse = SESSION_DELETION_RESPONSE,
    SessionReportRequest = SESSION_REPORT_REQUEST,
    SessionReportResponse = SESSION_REPORT_RESPONSE,
}

/// A whole message: header fields and typed body.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Message {
    /// SEID: present exactly for session messages (0 in a Session Establishment Request).
    pub seid: Option<Seid>,
    /// Sequence Number.
    pub sequence: SequenceNumber,
    /// Message Priority (session messages only).
    pub priority: Option<MessagePriority>,
    /// FO: another message follows in the datagram.
    pub follow_on: bool,
    /// The IEs.
    pub body: MessageBody,
}

impl Message {
    /// A node message (no SEID).
    pub fn node(sequence: SequenceNumber, body: impl Into<MessageBody>) -> Self {
        Message {
            seid: None,
            sequence,
            priority: None,
            follow_on: false,
            body: body.into(),
        }
    }

    /// A session message with the peer's SEID in its header.
    pub fn session(seid: Seid, sequence: SequenceNumber, body: impl Into<MessageBody>) -> Self {
        Message {
            seid: Some(seid),
            sequence,
            priority: None,
            follow_on: false,
            body: body.into(),
        }
    }

    /// The message type.
    pub fn message_type(&self) -> MessageType {
        self.body.message_type()
    }

    /// The header.
    pub fn header(&self) -> HeaderRepr {
        HeaderRepr {
            message_type: self.message_type(),
            seid: self.seid,
            sequence: self.sequence,
            priority: self.priority,
            follow_on: self.follow_on,
        }
    }

    /// Decodes the message that starts at `bytes[0]`; returns it and its length. Bytes after it
    /// are not looked at.
    pub(crate) fn parse_prefix(bytes: &[u8]) -> Result<(Message, usize)> {
        let h = Header::new_checked(bytes)?;
        let repr = HeaderRepr::parse(&h);
        let t = repr.message_type;
        if repr.seid.is_some() != t.is_session_message() && t.name().is_some() {
            let what = if t.is_session_message() {
                "S flag is 0 in a session message"
            } else {
                "S flag is 1 in a node message"
            };
            return Err(DecodeError::new(ErrorKind::InvalidValue { what }, None, 0).in_message(t));
        }
        let body = MessageBody::decode(&h).map_err(|e| e.in_message(t))?;
        let msg = Message {
            seid: repr.seid,
            sequence: repr.sequence,
            priority: repr.priority,
            follow_on: repr.follow_on,
            body,
        };
        Ok((msg, h.message_len()))
    }

    /// Decodes a message that fills `bytes` exactly (Message Length + 4 = `bytes.len()`).
    pub fn parse(bytes: &[u8]) -> Result<Message> {
        let (msg, len) = Self::parse_prefix(bytes)?;
        if len != bytes.len() {
            let e = DecodeError::new(
                ErrorKind::TrailingBytes {
                    extra: bytes.len() - len,
                },
                None,
                len,
            );
            return Err(e.in_message(msg.message_type()));
        }
        Ok(msg)
    }

    /// Encoded length.
    pub fn buffer_len(&self) -> usize {
        self.header().buffer_len() + self.body.ies_len()
    }

    /// Encodes into `buf`; returns the length written (`buffer_len()`).
    pub fn emit(&self, buf: &mut [u8]) -> core::result::Result<usize, EmitError> {
        let t = self.message_type();
        if self.seid.is_some() != t.is_session_message() {
            return Err(EmitError::Invalid {
                what: "a SEID must be present exactly in session messages",
            });
        }
        let h = self.header();
        let hl = h.buffer_len();
        let available = buf.len();
        let too_small = || EmitError::BufferTooSmall {
            needed: self.buffer_len(),
            available,
        };
        if available < hl {
            return Err(too_small());
        }
        // One pass: the IEs first, then the header with the length they took.
        let (head, rest) = buf.split_at_mut(hl);
        let mut w = Writer::new(rest);
        self.body.encode_ies(&mut w).map_err(|e| match e {
            EmitError::BufferTooSmall { .. } => too_small(),
            e => e,
        })?;
        let payload_len = w.position();
        h.emit(payload_len, head)?;
        Ok(hl + payload_len)
    }

    /// Appends the encoded message to `out`.
    pub fn emit_to_vec(&self, out: &mut Vec<u8>) -> core::result::Result<usize, EmitError> {
        let start = out.len();
        out.resize(start + self.buffer_len(), 0);
        match self.emit(&mut out[start..]) {
            Ok(n) => Ok(n),
            Err(e) => {
                out.truncate(start);
                Err(e)
            }
        }
    }

    /// The encoded message in a new vector.
    pub fn to_vec(&self) -> core::result::Result<Vec<u8>, EmitError> {
        let mut v = Vec::new();
        self.emit_to_vec(&mut v)?;
        Ok(v)
    }
}

/// The messages of one UDP datagram (TS 29.244 §7.2.2.1, FO flag): a message with FO=1 must be
/// followed by another; the one with FO=0 must end the datagram.
#[derive(Debug, Clone)]
pub struct Datagram<'a> {
    bytes: &'a [u8],
    pos: usize,
    done: bool,
}

impl<'a> Datagram<'a> {
    /// Walks `bytes`.
    pub fn new(bytes: &'a [u8]) -> Self {
        Datagram {
            bytes,
            pos: 0,
            done: false,
        }
    }

    fn step(&mut self) -> Result<Message> {
        let rest = &self.bytes[self.pos..];
        let at = self.pos;
        let shift = |mut e: DecodeError| {
            e.offset += at;
            e
        };
        let (msg, len) = Message::parse_prefix(rest).map_err(shift)?;
        self.pos += len;
        let remaining = self.bytes.len() - self.pos;
        if msg.follow_on {
            if remaining == 0 {
                let e = DecodeError::truncated(None, self.pos, crate::header::MANDATORY_LEN, 0);
                return Err(e.in_message(msg.message_type()));
            }
        } else {
            self.done = true;
            if remaining != 0 {
                let e = DecodeError::new(
                    ErrorKind::TrailingBytes { extra: remaining },
                    None,
                    self.pos,
                );
                return Err(e.in_message(msg.message_type()));
            }
        }
        Ok(msg)
    }
}

impl Iterator for Datagram<'_> {
    type Item = Result<Message>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.done {
            return None;
        }
        let r = self.step();
        if r.is_err() {
            self.done = true;
        }
        Some(r)
    }
}
