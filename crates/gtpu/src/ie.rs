//! GTP-U information elements (TS 29.281 §8).
//!
//! Types 0–127 are TV elements whose value length is fixed by the type; types 128–255 are TLV
//! elements with a 2-octet length (§8.1), except Extension Header Type List (141) whose length
//! is one octet (§8.5). An unknown TV element stops decoding, since its end is unknown.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

use crate::error::{EmitError, Layer, ParseError};

/// Recovery (§8.2): TV, 1 octet, the restart counter (set to 0 by the sender, ignored).
pub(crate) const IE_RECOVERY: u8 = 14;
/// Tunnel Endpoint Identifier Data I (§8.3): TV, 4 octets.
pub const IE_TEID_DATA_I: u8 = 16;
/// GTP-U Peer Address (§8.4): TLV, an IPv4 (4 octets) or IPv6 (16 octets) address.
pub const IE_GTPU_PEER_ADDRESS: u8 = 133;
/// Extension Header Type List (§8.5): TLV with a 1-octet length.
pub(crate) const IE_EXTENSION_HEADER_TYPE_LIST: u8 = 141;
/// Private Extension (§8.6): TLV.
pub const IE_PRIVATE_EXTENSION: u8 = 255;

/// Value length of a TV element of a known type.
const fn tv_value_len(ie_type: u8) -> Option<usize> {
    match ie_type {
        IE_RECOVERY => Some(1),
        IE_TEID_DATA_I => Some(4),
        _ => None,
    }
}

/// One information element.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct InformationElement<'a> {
    /// Its type.
    pub ie_type: u8,
    /// Offset of its type octet in the buffer walked.
    pub offset: usize,
    /// Its value (after the type and, for TLV elements, the length).
    pub value: &'a [u8],
}

/// Iterator over the information elements of a message body. It yields each element or the
/// error that stops the walk; after an error it yields nothing.
#[derive(Debug, Clone)]
pub struct InformationElements<'a> {
    buf: &'a [u8],
    at: usize,
    base: usize,
    failed: bool,
}

impl<'a> InformationElements<'a> {
    /// Walks `buf`; offsets are reported as `base` plus the position in `buf`.
    pub fn new(buf: &'a [u8], base: usize) -> Self {
        InformationElements {
            buf,
            at: 0,
            base,
            failed: false,
        }
    }

    fn truncated(&self, needed: usize) -> ParseError {
        ParseError::Truncated {
            layer: Layer::InformationElement,
            offset: self.base + self.at,
            needed,
            available: self.buf.len() - self.at,
        }
    }

    fn next_ie(&mut self) -> Result<InformationElement<'a>, ParseError> {
        let at = self.at;
        let ie_type = self.buf[at];
        let offset = self.base + at;
        let (value_start, value_len) = if ie_type < 128 {
            let Some(len) = tv_value_len(ie_type) else {
                return Err(ParseError::UnknownInformationElement { offset, ie_type });
            };
            (at + 1, len)
        } else if ie_type == IE_EXTENSION_HEADER_TYPE_LIST {
            let Some(&len) = self.buf.get(at + 1) else {
                return Err(self.truncated(2));
            };
            (at + 2, usize::from(len))
        } else {
            let Some(len) = self.buf.get(at + 1..at + 3) else {
                return Err(self.truncated(3));
            };
            (at + 3, usize::from(u16::from_be_bytes([len[0], len[1]])))
        };
        let Some(value) = self.buf.get(value_start..value_start + value_len) else {
            return Err(self.truncated(value_start - at + value_len));
        };
        self.at = value_start + value_len;
        Ok(InformationElement {
            ie_type,
            offset,
            value,
        })
    }
}

impl<'a> Iterator for InformationElements<'a> {
    type Item = Result<InformationElement<'a>, ParseError>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.failed || self.at >= self.buf.len() {
            return None;
        }
        let r = self.next_ie();
        self.failed = r.is_err();
        Some(r)
    }
}

/// Decodes a GTP-U Peer Address value (§8.4): 4 octets IPv4, 16 octets IPv6.
pub fn parse_peer_address(ie: &InformationElement<'_>) -> Result<IpAddr, ParseError> {
    match ie.value.len() {
        4 => {
            let mut o = [0u8; 4];
            o.copy_from_slice(ie.value);
            Ok(IpAddr::V4(Ipv4Addr::from(o)))
        }
        16 => {
            let mut o = [0u8; 16];
            o.copy_from_slice(ie.value);
            Ok(IpAddr::V6(Ipv6Addr::from(o)))
        }
        length => Err(ParseError::BadIeLength {
            offset: ie.offset,
            ie_type: ie.ie_type,
            length,
        }),
    }
}

/// Writes elements one after another into a buffer.
pub(crate) struct IeWriter<'a> {
    buf: &'a mut [u8],
    at: usize,
}

impl<'a> IeWriter<'a> {
    pub(crate) fn new(buf: &'a mut [u8]) -> Self {
        IeWriter { buf, at: 0 }
    }

    fn put(&mut self, bytes: &[u8]) -> Result<(), EmitError> {
        let available = self.buf.len() - self.at;
        let Some(dst) = self.buf.get_mut(self.at..self.at + bytes.len()) else {
            return Err(EmitError::BufferTooSmall {
                needed: bytes.len(),
                available,
            });
        };
        dst.copy_from_slice(bytes);
        self.at += bytes.len();
        Ok(())
    }

    /// A TV element.
    pub(crate) fn tv(&mut self, ie_type: u8, value: &[u8]) -> Result<(), EmitError> {
        self.put(&[ie_type])?;
        self.put(value)
    }

    /// A TLV element with a 2-octet length; `value` is at most 65 535 octets by construction.
    pub(crate) fn tlv(&mut self, ie_type: u8, value: &[u8]) -> Result<(), EmitError> {
        self.put(&[ie_type])?;
        self.put(&(value.len() as u16).to_be_bytes())?;
        self.put(value)
    }
}

/// Encoded length of a GTP-U Peer Address element.
pub(crate) const fn peer_address_len(addr: &IpAddr) -> usize {
    3 + match addr {
        IpAddr::V4(_) => 4,
        IpAddr::V6(_) => 16,
    }
}

/// Writes a GTP-U Peer Address element.
pub(crate) fn emit_peer_address(w: &mut IeWriter<'_>, addr: &IpAddr) -> Result<(), EmitError> {
    match addr {
        IpAddr::V4(a) => w.tlv(IE_GTPU_PEER_ADDRESS, &a.octets()),
        IpAddr::V6(a) => w.tlv(IE_GTPU_PEER_ADDRESS, &a.octets()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn walks_tv_and_tlv() {
        let body = [16, 0, 0, 0, 0x99, 133, 0, 4, 192, 168, 13, 151];
        let ies: Vec<_> = InformationElements::new(&body, 12).collect();
        assert_eq!(ies.len(), 2);
        let teid = ies[0].unwrap();
        assert_eq!(
            (teid.ie_type, teid.offset, teid.value),
            (16, 12, &[0, 0, 0, 0x99][..])
        );
        let peer = ies[1].unwrap();
        assert_eq!(
            parse_peer_address(&peer),
            Ok(IpAddr::V4(Ipv4Addr::new(192, 168, 13, 151)))
        );
    }

    #[test]
    fn unknown_tv_stops_the_walk() {
        let body = [3, 1, 14, 0];
        let mut it = InformationElements::new(&body, 0);
        assert_eq!(
            it.next(),
            Some(Err(ParseError::UnknownInformationElement {
                offset: 0,
                ie_type: 3
            }))
        );
        assert_eq!(it.next(), None);
    }

    #[test]
    fn tlv_past_the_end_is_truncated() {
        let body = [255, 0, 9, 1, 2];
        assert_eq!(
            InformationElements::new(&body, 8).next(),
            Some(Err(ParseError::Truncated {
                layer: Layer::InformationElement,
                offset: 8,
                needed: 12,
                available: 5
            }))
        );
    }
}
