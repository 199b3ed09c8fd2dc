//! Bounds-checked cursors for decoding IE values and encoding into caller buffers.

use core::net::{Ipv4Addr, Ipv6Addr};

use crate::error::{DecodeError, EmitError, Result};
use crate::ie::ie_type::IeType;
use crate::types::Teid;

/// Reads the value part of one IE; every read is checked and errors carry IE type and offset.
#[derive(Debug, Clone)]
pub(crate) struct Reader<'a> {
    buf: &'a [u8],
    pos: usize,
    /// Offset of `buf[0]` from the start of the message.
    base: usize,
    ie_type: IeType,
}

impl<'a> Reader<'a> {
    pub(crate) fn new(buf: &'a [u8], base: usize, ie_type: IeType) -> Self {
        Reader {
            buf,
            pos: 0,
            base,
            ie_type,
        }
    }

    /// Offset of the next byte from the start of the message.
    pub(crate) fn offset(&self) -> usize {
        self.base + self.pos
    }

    pub(crate) fn remaining(&self) -> usize {
        self.buf.len() - self.pos
    }

    pub(crate) fn bytes(&mut self, n: usize) -> Result<&'a [u8]> {
        if self.remaining() < n {
            return Err(DecodeError::truncated(
                Some(self.ie_type),
                self.offset(),
                n,
                self.remaining(),
            ));
        }
        let s = &self.buf[self.pos..self.pos + n];
        self.pos += n;
        Ok(s)
    }

    pub(crate) fn array<const N: usize>(&mut self) -> Result<[u8; N]> {
        let mut a = [0u8; N];
        a.copy_from_slice(self.bytes(N)?);
        Ok(a)
    }

    pub(crate) fn rest(&mut self) -> &'a [u8] {
        let s = &self.buf[self.pos..];
        self.pos = self.buf.len();
        s
    }

    pub(crate) fn u8(&mut self) -> Result<u8> {
        Ok(self.array::<1>()?[0])
    }

    pub(crate) fn u16(&mut self) -> Result<u16> {
        Ok(u16::from_be_bytes(self.array()?))
    }

    pub(crate) fn u24(&mut self) -> Result<u32> {
        let [a, b, c] = self.array()?;
        Ok(u32::from_be_bytes([0, a, b, c]))
    }

    pub(crate) fn u32(&mut self) -> Result<u32> {
        Ok(u32::from_be_bytes(self.array()?))
    }

    pub(crate) fn u40(&mut self) -> Result<u64> {
        let [a, b, c, d, e] = self.array()?;
        Ok(u64::from_be_bytes([0, 0, 0, a, b, c, d, e]))
    }

    pub(crate) fn u64(&mut self) -> Result<u64> {
        Ok(u64::from_be_bytes(self.array()?))
    }

    pub(crate) fn ipv4(&mut self) -> Result<Ipv4Addr> {
        Ipv4Addr::read(self)
    }

    pub(crate) fn ipv6(&mut self) -> Result<Ipv6Addr> {
        Ipv6Addr::read(self)
    }

    /// A field that is there only when its flag is set.
    pub(crate) fn field_if<T: Field>(&mut self, present: bool) -> Result<Option<T>> {
        present.then(|| T::read(self)).transpose()
    }

    /// An error about the field that starts at `offset`.
    pub(crate) fn invalid_at(&self, offset: usize, what: &'static str) -> DecodeError {
        DecodeError::invalid_value(self.ie_type, offset, what)
    }
}

/// Writes into a caller buffer; fails instead of panicking when it is too small.
#[derive(Debug)]
pub struct Writer<'a> {
    buf: &'a mut [u8],
    pos: usize,
}

impl<'a> Writer<'a> {
    /// Writes from the start of `buf`.
    pub fn new(buf: &'a mut [u8]) -> Self {
        Writer { buf, pos: 0 }
    }

    /// Bytes written so far.
    pub fn position(&self) -> usize {
        self.pos
    }

    /// Appends bytes.
    pub(crate) fn put_slice(&mut self, s: &[u8]) -> core::result::Result<(), EmitError> {
        let end = self.pos + s.len();
        if end > self.buf.len() {
            return Err(EmitError::BufferTooSmall {
                needed: end,
                available: self.buf.len(),
            });
        }
        self.buf[self.pos..end].copy_from_slice(s);
        self.pos = end;
        Ok(())
    }

    /// Appends one octet.
    pub fn u8(&mut self, v: u8) -> core::result::Result<(), EmitError> {
        self.put_slice(&[v])
    }

    /// Appends 16 bits, big endian.
    pub fn u16(&mut self, v: u16) -> core::result::Result<(), EmitError> {
        self.put_slice(&v.to_be_bytes())
    }

    /// Appends the low 24 bits, big endian.
    pub fn u24(&mut self, v: u32) -> core::result::Result<(), EmitError> {
        self.put_slice(&v.to_be_bytes()[1..])
    }

    /// Appends 32 bits, big endian.
    pub fn u32(&mut self, v: u32) -> core::result::Result<(), EmitError> {
        self.put_slice(&v.to_be_bytes())
    }

    /// Appends the low 40 bits, big endian.
    pub(crate) fn u40(&mut self, v: u64) -> core::result::Result<(), EmitError> {
        self.put_slice(&v.to_be_bytes()[3..])
    }

    /// Appends 64 bits, big endian.
    pub fn u64(&mut self, v: u64) -> core::result::Result<(), EmitError> {
        self.put_slice(&v.to_be_bytes())
    }

    /// Appends a field that is there only when it has a value.
    pub(crate) fn field_opt<T: Field>(
        &mut self,
        v: Option<T>,
    ) -> core::result::Result<(), EmitError> {
        v.map_or(Ok(()), |v| v.write(self))
    }

    /// Writes a 16-bit big-endian value at an earlier position (a length known only afterwards).
    pub(crate) fn patch_u16(&mut self, at: usize, v: u16) {
        self.buf[at..at + 2].copy_from_slice(&v.to_be_bytes());
    }
}

/// A fixed-width value of an IE layout, often present only when a flag octet says so (the
/// addresses of F-SEID, F-TEID, UE IP Address, Outer Header Creation; counters, tags, IDs).
pub(crate) trait Field: Copy {
    /// Octets on the wire.
    const LEN: usize;
    fn read(r: &mut Reader<'_>) -> Result<Self>;
    fn write(self, w: &mut Writer<'_>) -> core::result::Result<(), EmitError>;
}

macro_rules! field {
    ($t:ty, $len:expr, |$r:ident| $read:expr, |$v:ident, $w:ident| $write:expr) => {
        impl Field for $t {
            const LEN: usize = $len;
            fn read($r: &mut Reader<'_>) -> Result<Self> {
                $read
            }
            fn write(self, $w: &mut Writer<'_>) -> core::result::Result<(), EmitError> {
                let $v = self;
                $write
            }
        }
    };
}

field!(u8, 1, |r| r.u8(), |v, w| w.u8(v));
field!(u16, 2, |r| r.u16(), |v, w| w.u16(v));
field!(u32, 4, |r| r.u32(), |v, w| w.u32(v));
field!(u64, 8, |r| r.u64(), |v, w| w.u64(v));
field!([u8; 3], 3, |r| r.array(), |v, w| w.put_slice(&v));
field!(Teid, 4, |r| r.u32().map(Teid), |v, w| w.u32(v.0));
field!(
    Ipv4Addr,
    4,
    |r| r.array::<4>().map(Ipv4Addr::from),
    |v, w| w.put_slice(&v.octets())
);
field!(
    Ipv6Addr,
    16,
    |r| r.array::<16>().map(Ipv6Addr::from),
    |v, w| w.put_slice(&v.octets())
);

/// Octets of a field that may be absent.
pub(crate) fn opt_len<T: Field>(v: Option<T>) -> usize {
    v.map_or(0, |_| T::LEN)
}

/// `bit` when `on`: flag octets built from which fields are present.
pub(crate) const fn bit_if(on: bool, bit: u8) -> u8 {
    if on { bit } else { 0 }
}
