//! Decoding and encoding errors.
//!
//! Every decoding error says where it happened: the message type (once known), the innermost IE
//! being decoded, and the byte offset from the start of the PFCP message. That is what a UPF-side
//! node needs to answer with a Cause and an Offending IE (TS 29.244 §7.6).

use crate::ie::ie_type::IeType;
use crate::message::message_type::MessageType;

/// Result of a decoding step.
pub type Result<T> = core::result::Result<T, DecodeError>;

/// A decoding failure with its location.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{}{}at offset {offset}: {kind}", MessageContext(*message_type), IeContext(*ie_type))]
pub struct DecodeError {
    /// What went wrong.
    pub kind: ErrorKind,
    /// The message being decoded, once the header was read.
    pub message_type: Option<MessageType>,
    /// The innermost IE being decoded (for [`ErrorKind::MissingMandatoryIe`]: the missing IE).
    pub ie_type: Option<IeType>,
    /// Byte offset from the first octet of the PFCP message of the field where decoding failed.
    pub offset: usize,
}

/// The kinds of decoding failure.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ErrorKind {
    /// Fewer bytes than a field or an announced length needs.
    #[error("truncated: {needed} bytes needed, {available} available")]
    Truncated {
        /// Bytes needed.
        needed: usize,
        /// Bytes present.
        available: usize,
    },
    /// A length field that contradicts the layout (e.g. an IE too short for its fixed part).
    #[error("invalid length {length}")]
    InvalidLength {
        /// The length found.
        length: usize,
    },
    /// A mandatory IE is absent; `ie_type` of the error names it.
    #[error("mandatory IE missing{}", parent.map(|p| format!(" in {p}")).unwrap_or_default())]
    MissingMandatoryIe {
        /// The grouped IE that lacks it, `None` when the message itself lacks it.
        parent: Option<IeType>,
    },
    /// A field holds a value the layout does not allow.
    #[error("invalid value: {what}")]
    InvalidValue {
        /// Which field and why.
        what: &'static str,
    },
    /// The header's version is not 1 (answer with Version Not Supported Response).
    #[error("unsupported PFCP version {version}")]
    UnsupportedVersion {
        /// The version found.
        version: u8,
    },
    /// A message type this codec recognises but does not decode (or does not know at all).
    #[error("unsupported message")]
    UnsupportedMessage,
    /// Bytes after the last message of a datagram whose FO flag is 0.
    #[error("{extra} trailing bytes after the message")]
    TrailingBytes {
        /// How many.
        extra: usize,
    },
}

struct MessageContext(Option<MessageType>);
impl core::fmt::Display for MessageContext {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self.0 {
            Some(m) => write!(f, "{m}: "),
            None => Ok(()),
        }
    }
}

struct IeContext(Option<IeType>);
impl core::fmt::Display for IeContext {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self.0 {
            Some(t) => write!(f, "IE {t} "),
            None => Ok(()),
        }
    }
}

impl DecodeError {
    pub(crate) fn new(kind: ErrorKind, ie_type: Option<IeType>, offset: usize) -> Self {
        DecodeError {
            kind,
            message_type: None,
            ie_type,
            offset,
        }
    }

    pub(crate) fn truncated(
        ie_type: Option<IeType>,
        offset: usize,
        needed: usize,
        available: usize,
    ) -> Self {
        Self::new(ErrorKind::Truncated { needed, available }, ie_type, offset)
    }

    pub(crate) fn invalid_value(ie_type: IeType, offset: usize, what: &'static str) -> Self {
        Self::new(ErrorKind::InvalidValue { what }, Some(ie_type), offset)
    }

    pub(crate) fn missing(ie_type: IeType, parent: Option<IeType>, offset: usize) -> Self {
        Self::new(
            ErrorKind::MissingMandatoryIe { parent },
            Some(ie_type),
            offset,
        )
    }

    /// Attaches the message type (done by the message decoder).
    pub(crate) fn in_message(mut self, message_type: MessageType) -> Self {
        self.message_type = Some(message_type);
        self
    }

    /// The IE type to put into the Offending IE of the answer (TS 29.244 §8.2.22).
    pub fn offending_ie(&self) -> Option<IeType> {
        self.ie_type
    }
}

/// An encoding failure.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum EmitError {
    /// The output buffer is too small; size it with `buffer_len()`.
    #[error("buffer too small: {needed} bytes needed, {available} available")]
    BufferTooSmall {
        /// Bytes needed.
        needed: usize,
        /// Bytes available.
        available: usize,
    },
    /// An IE or a message would be longer than its 16-bit length field allows.
    #[error("{what} too long: {length} bytes")]
    TooLong {
        /// What overflowed.
        what: &'static str,
        /// Its length.
        length: usize,
    },
    /// A value that cannot be encoded (e.g. a session message without SEID).
    #[error("cannot encode: {what}")]
    Invalid {
        /// What is wrong.
        what: &'static str,
    },
}
