//! The zero-copy TLV layer: one IE header checked once, its value as a slice (TS 29.244 §8.1.1).

use super::ie_type::IeType;
use crate::error::{DecodeError, ErrorKind, Result};
use crate::wire::Reader;

/// Offset of the Type field in an IE.
pub(crate) const TYPE: usize = 0;
/// Offset of the Length field in an IE.
pub(crate) const LENGTH: usize = 2;
/// Offset of the Enterprise ID of a vendor-specific IE (type ≥ 32768).
pub(crate) const ENTERPRISE_ID: usize = 4;
/// Size of the Type and Length fields.
pub(crate) const HEADER_LEN: usize = 4;

/// A view of one IE inside a message buffer, checked against the buffer when it was read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct IeView<'a> {
    ie_type: IeType,
    enterprise_id: Option<u16>,
    value: &'a [u8],
    offset: usize,
}

impl<'a> IeView<'a> {
    /// The IE type.
    pub fn ie_type(&self) -> IeType {
        self.ie_type
    }

    /// The Enterprise ID of a vendor-specific IE (type with bit 16 set), else `None`.
    pub fn enterprise_id(&self) -> Option<u16> {
        self.enterprise_id
    }

    /// The value: the octets after Length (and after the Enterprise ID of a vendor IE).
    pub fn value(&self) -> &'a [u8] {
        self.value
    }

    /// Offset of the IE's Type field from the start of the message.
    pub fn offset(&self) -> usize {
        self.offset
    }

    /// Offset of the first value octet from the start of the message.
    pub(crate) fn value_offset(&self) -> usize {
        self.offset + HEADER_LEN + if self.enterprise_id.is_some() { 2 } else { 0 }
    }

    /// Length of the whole IE on the wire.
    pub(crate) fn wire_len(&self) -> usize {
        self.value_offset() - self.offset + self.value.len()
    }

    /// The IEs inside a grouped IE.
    pub fn children(&self) -> IeIter<'a> {
        IeIter::new(self.value, self.value_offset())
    }

    pub(crate) fn reader(&self) -> Reader<'a> {
        Reader::new(self.value, self.value_offset(), self.ie_type)
    }
}

/// Iterates over a sequence of IEs; stops after the first malformed one.
#[derive(Debug, Clone)]
pub struct IeIter<'a> {
    buf: &'a [u8],
    pos: usize,
    base: usize,
    failed: bool,
}

impl<'a> IeIter<'a> {
    /// Iterates over `buf`, whose first octet lies `base` bytes into the message (for offsets).
    pub fn new(buf: &'a [u8], base: usize) -> Self {
        IeIter {
            buf,
            pos: 0,
            base,
            failed: false,
        }
    }

    fn read(&mut self) -> Result<IeView<'a>> {
        let rest = &self.buf[self.pos..];
        let offset = self.base + self.pos;
        if rest.len() < HEADER_LEN {
            return Err(DecodeError::truncated(None, offset, HEADER_LEN, rest.len()));
        }
        let ie_type = IeType(u16::from_be_bytes([rest[TYPE], rest[TYPE + 1]]));
        let len = usize::from(u16::from_be_bytes([rest[LENGTH], rest[LENGTH + 1]]));
        let avail = rest.len() - HEADER_LEN;
        if len > avail {
            return Err(DecodeError::truncated(
                Some(ie_type),
                offset + LENGTH,
                len,
                avail,
            ));
        }
        let body = &rest[HEADER_LEN..HEADER_LEN + len];
        let (enterprise_id, value) = if ie_type.is_vendor_specific() {
            if len < 2 {
                return Err(DecodeError::new(
                    ErrorKind::InvalidLength { length: len },
                    Some(ie_type),
                    offset + LENGTH,
                ));
            }
            let e = &rest[ENTERPRISE_ID..ENTERPRISE_ID + 2];
            (Some(u16::from_be_bytes([e[0], e[1]])), &body[2..])
        } else {
            (None, body)
        };
        self.pos += HEADER_LEN + len;
        Ok(IeView {
            ie_type,
            enterprise_id,
            value,
            offset,
        })
    }
}

impl<'a> Iterator for IeIter<'a> {
    type Item = Result<IeView<'a>>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.failed || self.pos >= self.buf.len() {
            return None;
        }
        let r = self.read();
        self.failed = r.is_err();
        Some(r)
    }
}

impl core::iter::FusedIterator for IeIter<'_> {}
