//! The PFCP message header (TS 29.244 §7.2.2): a zero-copy view and its owned representation.
//!
//! ```text
//! octet 1     Version(3) Spare(2) FO MP S
//! octet 2     Message Type
//! octets 3-4  Message Length: octets after the first 4
//! octets 5-12 SEID                              (S=1 only)
//! 3 octets    Sequence Number
//! 1 octet     Message Priority(4) Spare(4)      (S=1; priority valid when MP=1) | Spare (S=0)
//! ```

use crate::error::{DecodeError, EmitError, ErrorKind, Result};
use crate::ie::tlv::IeIter;
use crate::message::message_type::MessageType;
use crate::types::{MessagePriority, Seid, SequenceNumber};

/// Field offsets.
pub mod field {
    /// Version, FO, MP and S flags.
    pub const FLAGS: usize = 0;
    /// Message Type.
    pub const MESSAGE_TYPE: usize = 1;
    /// Message Length (2 octets).
    pub const LENGTH: usize = 2;
    /// SEID (8 octets, S=1).
    pub const SEID: usize = 4;
    /// Sequence Number without SEID (3 octets).
    pub(crate) const SEQUENCE_NODE: usize = 4;
    /// Sequence Number with SEID (3 octets).
    pub(crate) const SEQUENCE_SESSION: usize = 12;
    /// Message Priority octet (S=1).
    pub(crate) const PRIORITY: usize = 15;
}

/// Octets before the Message Length starts counting.
pub(crate) const MANDATORY_LEN: usize = 4;
/// Header length without SEID.
pub(crate) const NODE_HEADER_LEN: usize = 8;
/// Header length with SEID.
pub(crate) const SESSION_HEADER_LEN: usize = 16;
/// The only version defined (§7.2.2.1).
pub const VERSION: u8 = 1;

const FLAG_S: u8 = 0x01;
const FLAG_MP: u8 = 0x02;
const FLAG_FO: u8 = 0x04;

/// A view of a PFCP message: header accessors and the IE part, over a checked buffer.
#[derive(Debug, Clone, Copy)]
pub struct Header<T: AsRef<[u8]>> {
    buffer: T,
}

impl<T: AsRef<[u8]>> Header<T> {
    /// Wraps without checking; accessors may panic on a short buffer. Prefer [`Self::new_checked`].
    pub const fn new_unchecked(buffer: T) -> Self {
        Header { buffer }
    }

    /// Wraps after checking the version, that the Message Length covers the header, and that
    /// the buffer holds the whole message (it may hold more: see [`Self::message_len`]).
    pub fn new_checked(buffer: T) -> Result<Self> {
        let b = buffer.as_ref();
        if b.len() < MANDATORY_LEN {
            return Err(DecodeError::truncated(None, 0, MANDATORY_LEN, b.len()));
        }
        let h = Header { buffer };
        if h.version() != VERSION {
            return Err(DecodeError::new(
                ErrorKind::UnsupportedVersion {
                    version: h.version(),
                },
                None,
                field::FLAGS,
            ));
        }
        let length = usize::from(h.length());
        if length + MANDATORY_LEN < h.header_len() {
            return Err(DecodeError::new(
                ErrorKind::InvalidLength { length },
                None,
                field::LENGTH,
            ));
        }
        let avail = h.buffer.as_ref().len();
        if h.message_len() > avail {
            return Err(DecodeError::truncated(
                None,
                field::LENGTH,
                h.message_len(),
                avail,
            ));
        }
        if h.mp_flag() && !h.s_flag() {
            return Err(DecodeError::new(
                ErrorKind::InvalidValue {
                    what: "MP flag set without SEID",
                },
                None,
                field::FLAGS,
            ));
        }
        Ok(h)
    }

    fn b(&self) -> &[u8] {
        self.buffer.as_ref()
    }

    /// Version (3 bits).
    pub fn version(&self) -> u8 {
        self.b()[field::FLAGS] >> 5
    }

    /// FO: another message follows in the datagram.
    pub fn fo_flag(&self) -> bool {
        self.b()[field::FLAGS] & FLAG_FO != 0
    }

    /// MP: the Message Priority field is valid.
    pub fn mp_flag(&self) -> bool {
        self.b()[field::FLAGS] & FLAG_MP != 0
    }

    /// S: the header carries a SEID.
    pub fn s_flag(&self) -> bool {
        self.b()[field::FLAGS] & FLAG_S != 0
    }

    /// Message Type.
    pub fn message_type(&self) -> MessageType {
        MessageType(self.b()[field::MESSAGE_TYPE])
    }

    /// Message Length field.
    pub fn length(&self) -> u16 {
        u16::from_be_bytes([self.b()[field::LENGTH], self.b()[field::LENGTH + 1]])
    }

    /// Header length: 16 with SEID, 8 without.
    pub fn header_len(&self) -> usize {
        if self.s_flag() {
            SESSION_HEADER_LEN
        } else {
            NODE_HEADER_LEN
        }
    }

    /// The whole message's length: Message Length + 4.
    pub fn message_len(&self) -> usize {
        usize::from(self.length()) + MANDATORY_LEN
    }

    /// SEID, when S=1.
    pub fn seid(&self) -> Option<Seid> {
        self.s_flag().then(|| {
            let mut s = [0u8; 8];
            s.copy_from_slice(&self.b()[field::SEID..field::SEID + 8]);
            Seid(u64::from_be_bytes(s))
        })
    }

    /// Sequence Number.
    pub fn sequence(&self) -> SequenceNumber {
        let at = if self.s_flag() {
            field::SEQUENCE_SESSION
        } else {
            field::SEQUENCE_NODE
        };
        let s = &self.b()[at..at + 3];
        SequenceNumber::from_masked(u32::from_be_bytes([0, s[0], s[1], s[2]]))
    }

    /// Message Priority, when S=1 and MP=1.
    pub fn priority(&self) -> Option<MessagePriority> {
        (self.s_flag() && self.mp_flag())
            .then(|| MessagePriority::from_masked(self.b()[field::PRIORITY] >> 4))
    }

    /// The IE part: after the header, up to the end of this message.
    pub fn payload(&self) -> &[u8] {
        &self.b()[self.header_len()..self.message_len()]
    }

    /// The IEs of the message; offsets count from the message's first octet.
    pub fn ies(&self) -> IeIter<'_> {
        IeIter::new(self.payload(), self.header_len())
    }
}

impl<T: AsRef<[u8]> + AsMut<[u8]>> Header<T> {
    /// Rewrites the Sequence Number in place (a request encoded once, numbered when sent).
    pub fn set_sequence(&mut self, sequence: SequenceNumber) {
        let at = if self.s_flag() {
            field::SEQUENCE_SESSION
        } else {
            field::SEQUENCE_NODE
        };
        let b = sequence.get().to_be_bytes();
        self.buffer.as_mut()[at..at + 3].copy_from_slice(&b[1..]);
    }

    /// Rewrites the SEID in place; does nothing when S=0.
    pub fn set_seid(&mut self, seid: Seid) {
        if self.s_flag() {
            self.buffer.as_mut()[field::SEID..field::SEID + 8]
                .copy_from_slice(&seid.0.to_be_bytes());
        }
    }
}

/// The owned header.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct HeaderRepr {
    /// Message Type.
    pub message_type: MessageType,
    /// SEID (S=1).
    pub seid: Option<Seid>,
    /// Sequence Number.
    pub sequence: SequenceNumber,
    /// Message Priority (MP=1; needs a SEID).
    pub priority: Option<MessagePriority>,
    /// FO: another message follows in the same datagram.
    pub follow_on: bool,
}

impl HeaderRepr {
    /// Reads a checked header.
    pub fn parse<T: AsRef<[u8]>>(h: &Header<T>) -> Self {
        HeaderRepr {
            message_type: h.message_type(),
            seid: h.seid(),
            sequence: h.sequence(),
            priority: h.priority(),
            follow_on: h.fo_flag(),
        }
    }

    /// Header length.
    pub fn buffer_len(&self) -> usize {
        if self.seid.is_some() {
            SESSION_HEADER_LEN
        } else {
            NODE_HEADER_LEN
        }
    }

    /// Writes the header for an IE part of `payload_len` octets into `buf[..self.buffer_len()]`.
    pub fn emit(&self, payload_len: usize, buf: &mut [u8]) -> core::result::Result<(), EmitError> {
        let hl = self.buffer_len();
        if buf.len() < hl {
            return Err(EmitError::BufferTooSmall {
                needed: hl,
                available: buf.len(),
            });
        }
        if self.priority.is_some() && self.seid.is_none() {
            return Err(EmitError::Invalid {
                what: "message priority without SEID",
            });
        }
        let length = hl - MANDATORY_LEN + payload_len;
        let length = u16::try_from(length).map_err(|_| EmitError::TooLong {
            what: "message",
            length: length + MANDATORY_LEN,
        })?;
        buf[field::FLAGS] = VERSION << 5
            | if self.follow_on { FLAG_FO } else { 0 }
            | if self.priority.is_some() { FLAG_MP } else { 0 }
            | if self.seid.is_some() { FLAG_S } else { 0 };
        buf[field::MESSAGE_TYPE] = self.message_type.0;
        buf[field::LENGTH..field::LENGTH + 2].copy_from_slice(&length.to_be_bytes());
        let seq = self.sequence.get().to_be_bytes();
        match self.seid {
            Some(seid) => {
                buf[field::SEID..field::SEID + 8].copy_from_slice(&seid.0.to_be_bytes());
                buf[field::SEQUENCE_SESSION..field::SEQUENCE_SESSION + 3]
                    .copy_from_slice(&seq[1..]);
                buf[field::PRIORITY] = self.priority.map_or(0, |p| p.get() << 4);
            }
            None => {
                buf[field::SEQUENCE_NODE..field::SEQUENCE_NODE + 3].copy_from_slice(&seq[1..]);
                buf[field::SEQUENCE_NODE + 3] = 0;
            }
        }
        Ok(())
    }
}
