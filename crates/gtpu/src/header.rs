//! The GTP-U header (TS 29.281 §5.1) and its extension header chain (§5.2): a checked view.

use crate::error::{EmitError, Layer, ParseError};
use crate::pdu_session::PduSessionContainer;
use crate::types::{Comprehension, ExtensionHeaderType, MessageType};
use upfbench_net::{Qfi, Teid};

/// Field offsets and flag bits of the GTP-U header (TS 29.281 §5.1, Figure 5.1-1).
pub mod field {
    use core::ops::Range;
    /// Version (3 bits), PT, reserved, E, S, PN.
    pub const FLAGS: usize = 0;
    /// Message type.
    pub const MESSAGE_TYPE: usize = 1;
    /// Length of everything after the mandatory 8 octets.
    pub const LENGTH: Range<usize> = 2..4;
    /// Tunnel Endpoint Identifier.
    pub const TEID: Range<usize> = 4..8;
    /// Sequence number (present when any of E, S, PN is set; meaningful when S is).
    pub const SEQUENCE_NUMBER: Range<usize> = 8..10;
    /// N-PDU number (present when any of E, S, PN is set; meaningful when PN is).
    pub(crate) const NPDU_NUMBER: usize = 10;
    /// Next extension header type (present when any of E, S, PN is set; meaningful when E is).
    pub(crate) const NEXT_EXTENSION_HEADER_TYPE: usize = 11;

    /// Shift of the version in [`FLAGS`].
    pub(crate) const VERSION_SHIFT: u8 = 5;
    /// Protocol type: 1 for GTP, 0 for GTP'.
    pub(crate) const FLAG_PT: u8 = 0x10;
    /// Extension header flag.
    pub(crate) const FLAG_E: u8 = 0x04;
    /// Sequence number flag.
    pub const FLAG_S: u8 = 0x02;
    /// N-PDU number flag.
    pub(crate) const FLAG_PN: u8 = 0x01;
}

/// Length of the mandatory part of the header.
pub const MANDATORY_HEADER_LEN: usize = 8;
/// Length of the optional sequence number, N-PDU number and next extension header type fields.
pub const OPTIONAL_FIELDS_LEN: usize = 4;
/// The GTP version of GTP-U.
pub const VERSION: u8 = 1;
/// Largest value of the length field.
pub(crate) const MAX_LENGTH: usize = 65_535;

/// A checked view of a GTP-U message.
///
/// `new_checked` validates the header, the length field against the buffer, and the whole
/// extension header chain: lengths, the "comprehension required" bits of types this crate does
/// not understand (TS 29.281 §5.2.1), and the content of the extension headers it does
/// understand. The accessors cannot fail afterwards. Bytes after `8 + length` are ignored.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GtpuPacket<T> {
    buffer: T,
    layout: Layout,
}

/// What [`check`] learns walking the header: where it ends and where the understood extension
/// headers are.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Layout {
    // Offsets fit in u32: a message is at most 8 + 65 535 octets. 0 means "absent" for the
    // extension header offsets, which are at least 12.
    pub(crate) header_len: u32,
    pub(crate) pdu_session_container_at: u32,
    pub(crate) udp_port_at: u32,
}

impl<T: AsRef<[u8]>> GtpuPacket<T> {
    /// Wraps `buffer` after validating the header and the extension header chain.
    #[inline]
    pub fn new_checked(buffer: T) -> Result<Self, ParseError> {
        let layout = check(buffer.as_ref())?;
        Ok(GtpuPacket { buffer, layout })
    }

    /// Wraps a buffer that [`check`] accepted with this layout.
    #[inline]
    pub(crate) fn from_checked(buffer: T, layout: Layout) -> Self {
        GtpuPacket { buffer, layout }
    }

    /// Gives the buffer back.
    #[inline]
    pub fn into_inner(self) -> T {
        self.buffer
    }

    #[inline]
    fn bytes(&self) -> &[u8] {
        self.buffer.as_ref()
    }

    #[inline]
    fn flags(&self) -> u8 {
        self.bytes()[field::FLAGS]
    }

    #[inline]
    fn has_optional_fields(&self) -> bool {
        self.flags() & (field::FLAG_E | field::FLAG_S | field::FLAG_PN) != 0
    }

    /// GTP version (always 1 in a checked view).
    #[inline]
    pub fn version(&self) -> u8 {
        self.flags() >> field::VERSION_SHIFT
    }

    /// The E flag: an extension header chain follows the optional fields.
    #[inline]
    pub(crate) fn has_extension_headers(&self) -> bool {
        self.flags() & field::FLAG_E != 0
    }

    /// Message type (TS 29.281 §6.1).
    #[inline]
    pub fn message_type(&self) -> MessageType {
        MessageType(self.bytes()[field::MESSAGE_TYPE])
    }

    /// The length field: octets after the mandatory 8-octet header.
    #[inline]
    pub fn length(&self) -> usize {
        let b = self.bytes();
        usize::from(u16::from_be_bytes([b[2], b[3]]))
    }

    /// Length of the whole message: 8 + the length field.
    #[inline]
    pub fn message_len(&self) -> usize {
        MANDATORY_HEADER_LEN + self.length()
    }

    /// Tunnel Endpoint Identifier.
    #[inline]
    pub fn teid(&self) -> Teid {
        let b = &self.bytes()[field::TEID];
        Teid(u32::from_be_bytes([b[0], b[1], b[2], b[3]]))
    }

    /// Sequence number, if the S flag is set.
    #[inline]
    pub fn sequence_number(&self) -> Option<u16> {
        (self.flags() & field::FLAG_S != 0).then(|| {
            let b = self.bytes();
            u16::from_be_bytes([b[8], b[9]])
        })
    }

    /// N-PDU number, if the PN flag is set.
    #[inline]
    pub fn npdu_number(&self) -> Option<u8> {
        (self.flags() & field::FLAG_PN != 0).then(|| self.bytes()[field::NPDU_NUMBER])
    }

    /// Type of the first extension header, if the E flag is set.
    #[inline]
    pub(crate) fn next_extension_header_type(&self) -> Option<ExtensionHeaderType> {
        self.has_extension_headers()
            .then(|| ExtensionHeaderType(self.bytes()[field::NEXT_EXTENSION_HEADER_TYPE]))
    }

    /// The extension headers, in order.
    #[inline]
    pub fn extension_headers(&self) -> ExtensionHeaders<'_> {
        let next = self
            .next_extension_header_type()
            .unwrap_or(ExtensionHeaderType::NO_MORE);
        let start = if self.has_optional_fields() {
            MANDATORY_HEADER_LEN + OPTIONAL_FIELDS_LEN
        } else {
            MANDATORY_HEADER_LEN
        };
        ExtensionHeaders {
            buf: &self.bytes()[..self.header_len()],
            at: start,
            next,
        }
    }

    /// The PDU Session Container, if the chain has one.
    #[inline]
    pub fn pdu_session_container(&self) -> Option<PduSessionContainer> {
        let at = self.layout.pdu_session_container_at as usize;
        if at == 0 {
            return None;
        }
        let b = self.bytes();
        let units = usize::from(*b.get(at)?);
        let content = b.get(at + 1..at + units * 4 - 1)?;
        PduSessionContainer::parse(content).ok()
    }

    /// The QFI of the PDU Session Container, if the chain has one: cheaper than
    /// [`pdu_session_container`](Self::pdu_session_container) on the receive path.
    #[inline]
    pub fn qfi(&self) -> Option<Qfi> {
        let at = self.layout.pdu_session_container_at as usize;
        if at == 0 {
            return None;
        }
        self.bytes()
            .get(at + 1 + crate::pdu_session::field::QFI)
            .map(|&b| Qfi::from_bits(b))
    }

    /// The UDP Port extension header's port (TS 29.281 §5.2.2.1), if the chain has one.
    #[inline]
    pub fn udp_port(&self) -> Option<u16> {
        let at = self.layout.udp_port_at as usize;
        if at == 0 {
            return None;
        }
        let b = self.bytes().get(at + 1..at + 3)?;
        Some(u16::from_be_bytes([b[0], b[1]]))
    }

    /// Length of the header: mandatory part, optional fields and extension headers.
    #[inline]
    pub fn header_len(&self) -> usize {
        self.layout.header_len as usize
    }

    /// The message body after all headers: the T-PDU of a G-PDU, the IEs of other messages.
    #[inline]
    pub fn payload(&self) -> &[u8] {
        &self.bytes()[self.header_len()..self.message_len()]
    }
}

impl<'a> GtpuPacket<&'a [u8]> {
    /// The payload with the lifetime of the underlying buffer.
    #[inline]
    pub fn payload_slice(&self) -> &'a [u8] {
        let (start, end) = (self.header_len(), self.message_len());
        &self.buffer[start..end]
    }
}

impl<T: AsRef<[u8]> + AsMut<[u8]>> GtpuPacket<T> {
    /// Sets the TEID.
    #[inline]
    pub fn set_teid(&mut self, teid: Teid) {
        self.buffer.as_mut()[field::TEID].copy_from_slice(&teid.0.to_be_bytes());
    }

    /// Sets the sequence number if the header carries one (S flag); returns whether it did.
    #[inline]
    pub fn set_sequence_number(&mut self, seq: u16) -> bool {
        if self.flags() & field::FLAG_S == 0 {
            return false;
        }
        self.buffer.as_mut()[field::SEQUENCE_NUMBER].copy_from_slice(&seq.to_be_bytes());
        true
    }

    /// The message body, mutably.
    #[inline]
    pub fn payload_mut(&mut self) -> &mut [u8] {
        let (start, end) = (self.header_len(), self.message_len());
        &mut self.buffer.as_mut()[start..end]
    }
}

/// The checks of [`GtpuPacket::new_checked`].
#[inline]
pub(crate) fn check(b: &[u8]) -> Result<Layout, ParseError> {
    let (flags, end) = check_mandatory(b)?;
    let mut layout = Layout {
        header_len: MANDATORY_HEADER_LEN as u32,
        pdu_session_container_at: 0,
        udp_port_at: 0,
    };
    if flags & (field::FLAG_E | field::FLAG_S | field::FLAG_PN) == 0 {
        return Ok(layout);
    }
    let length = end - MANDATORY_HEADER_LEN;
    if length < OPTIONAL_FIELDS_LEN {
        return Err(ParseError::LengthTooSmall {
            layer: Layer::Gtpu,
            offset: field::LENGTH.start,
            length,
            minimum: OPTIONAL_FIELDS_LEN,
        });
    }
    let mut at = MANDATORY_HEADER_LEN + OPTIONAL_FIELDS_LEN;
    if flags & field::FLAG_E != 0 {
        at = check_extension_chain(b, end, at, &mut layout)?;
    }
    // `at <= end <= 8 + 65535`, so it fits.
    layout.header_len = at as u32;
    Ok(layout)
}

/// The mandatory header's checks: its length, version, protocol type and length field against
/// the buffer. Returns the flags and where the message ends (`8 + length`).
#[inline]
fn check_mandatory(b: &[u8]) -> Result<(u8, usize), ParseError> {
    let len = b.len();
    if len < MANDATORY_HEADER_LEN {
        return Err(ParseError::Truncated {
            layer: Layer::Gtpu,
            offset: 0,
            needed: MANDATORY_HEADER_LEN,
            available: len,
        });
    }
    let flags = b[field::FLAGS];
    let version = flags >> field::VERSION_SHIFT;
    if version != VERSION {
        return Err(ParseError::UnsupportedVersion {
            layer: Layer::Gtpu,
            offset: field::FLAGS,
            version,
        });
    }
    if flags & field::FLAG_PT == 0 {
        return Err(ParseError::NotGtp {
            offset: field::FLAGS,
        });
    }
    let length = usize::from(u16::from_be_bytes([b[2], b[3]]));
    let end = MANDATORY_HEADER_LEN + length;
    if end > len {
        return Err(ParseError::LengthExceedsBuffer {
            layer: Layer::Gtpu,
            offset: field::LENGTH.start,
            length,
            available: len - MANDATORY_HEADER_LEN,
        });
    }
    Ok((flags, end))
}

/// Walks the extension header chain of `b[..end]` from offset `at` (after the optional
/// fields), noting the understood headers in `layout`; returns where the chain ends.
#[inline]
fn check_extension_chain(
    b: &[u8],
    end: usize,
    mut at: usize,
    layout: &mut Layout,
) -> Result<usize, ParseError> {
    let mut next = ExtensionHeaderType(b[field::NEXT_EXTENSION_HEADER_TYPE]);
    while next != ExtensionHeaderType::NO_MORE {
        let Some(&units) = b[..end].get(at) else {
            return Err(ParseError::Truncated {
                layer: Layer::ExtensionHeader,
                offset: at,
                needed: 4,
                available: 0,
            });
        };
        if units == 0 {
            return Err(ParseError::ZeroExtensionLength {
                offset: at,
                extension_type: next.0,
            });
        }
        let ext_len = usize::from(units) * 4;
        let Some(ext) = b[..end].get(at..at + ext_len) else {
            return Err(ParseError::Truncated {
                layer: Layer::ExtensionHeader,
                offset: at,
                needed: ext_len,
                available: end - at,
            });
        };
        check_extension(next, at, ext, layout)?;
        next = ExtensionHeaderType(ext[ext_len - 1]);
        at += ext_len;
    }
    Ok(at)
}

/// One extension header of type `next` at offset `at` (`ext`: from its length octet to its
/// next-type octet): its content if this crate understands it, else its comprehension bits.
#[inline]
fn check_extension(
    next: ExtensionHeaderType,
    at: usize,
    ext: &[u8],
    layout: &mut Layout,
) -> Result<(), ParseError> {
    let units = ext[0];
    match next {
        ExtensionHeaderType::PDU_SESSION_CONTAINER => {
            if layout.pdu_session_container_at != 0 {
                return Err(ParseError::DuplicateExtensionHeader {
                    offset: at,
                    extension_type: next.0,
                });
            }
            let content = &ext[1..ext.len() - 1];
            PduSessionContainer::validate(content).map_err(|e| e.offset_by(at + 1))?;
            layout.pdu_session_container_at = at as u32;
        }
        ExtensionHeaderType::UDP_PORT => {
            if units != 1 {
                return Err(ParseError::BadExtensionLength {
                    offset: at,
                    extension_type: next.0,
                    length: units,
                    expected: 1,
                });
            }
            if layout.udp_port_at != 0 {
                return Err(ParseError::DuplicateExtensionHeader {
                    offset: at,
                    extension_type: next.0,
                });
            }
            layout.udp_port_at = at as u32;
        }
        other => match other.comprehension() {
            Comprehension::RequiredByEndpoint | Comprehension::Required => {
                return Err(ParseError::ComprehensionRequired {
                    offset: at,
                    extension_type: other.0,
                });
            }
            Comprehension::NotRequiredForward | Comprehension::NotRequiredDiscard => {}
        },
    }
    Ok(())
}

/// One extension header of a checked chain.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ExtensionHeader<'a> {
    /// Its type (from the preceding next-extension-header field).
    pub extension_type: ExtensionHeaderType,
    /// Offset of its length octet in the message.
    pub offset: usize,
    /// Its content: between the length octet and the next-extension-header octet.
    pub content: &'a [u8],
}

/// Iterator over the extension headers of a checked [`GtpuPacket`].
#[derive(Debug, Clone)]
pub struct ExtensionHeaders<'a> {
    buf: &'a [u8],
    at: usize,
    next: ExtensionHeaderType,
}

impl<'a> Iterator for ExtensionHeaders<'a> {
    type Item = ExtensionHeader<'a>;

    #[inline]
    fn next(&mut self) -> Option<Self::Item> {
        if self.next == ExtensionHeaderType::NO_MORE {
            return None;
        }
        // The chain was validated by `new_checked`; `get` keeps this total regardless.
        let units = usize::from(*self.buf.get(self.at)?);
        let ext = self.buf.get(self.at..self.at + units * 4)?;
        let (&next, rest) = ext.split_last()?;
        let item = ExtensionHeader {
            extension_type: self.next,
            offset: self.at,
            content: rest.get(1..)?,
        };
        self.next = ExtensionHeaderType(next);
        self.at += units * 4;
        Some(item)
    }
}

/// The fields of a GTP-U header (TS 29.281 §5.1) and of the extension headers this crate
/// emits (§5.2): what `emit` writes in front of a message body.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct GtpuHeaderRepr {
    /// Message type.
    pub message_type: MessageType,
    /// Tunnel Endpoint Identifier.
    pub teid: Teid,
    /// Sequence number; `Some` sets the S flag.
    pub sequence_number: Option<u16>,
    /// N-PDU number; `Some` sets the PN flag.
    pub npdu_number: Option<u8>,
    /// PDU Session Container extension header (type 0x85).
    pub pdu_session_container: Option<PduSessionContainer>,
    /// UDP Port extension header (type 0x40), carried by Error Indication (§7.3.1).
    pub udp_port: Option<u16>,
}

impl GtpuHeaderRepr {
    /// Reads the header of a checked message. Extension headers that this crate does not
    /// understand and whose comprehension is not required are skipped (§5.2.1).
    #[inline]
    pub fn parse<T: AsRef<[u8]>>(packet: &GtpuPacket<T>) -> Self {
        GtpuHeaderRepr {
            message_type: packet.message_type(),
            teid: packet.teid(),
            sequence_number: packet.sequence_number(),
            npdu_number: packet.npdu_number(),
            pdu_session_container: packet.pdu_session_container(),
            udp_port: packet.udp_port(),
        }
    }

    #[inline]
    fn has_extensions(&self) -> bool {
        self.pdu_session_container.is_some() || self.udp_port.is_some()
    }

    /// Bytes [`emit`](Self::emit) writes.
    #[inline]
    pub fn buffer_len(&self) -> usize {
        let mut len = MANDATORY_HEADER_LEN;
        if self.has_extensions() || self.sequence_number.is_some() || self.npdu_number.is_some() {
            len += OPTIONAL_FIELDS_LEN;
        }
        if let Some(c) = &self.pdu_session_container {
            len += c.content_len() + 2;
        }
        if self.udp_port.is_some() {
            len += 4;
        }
        len
    }

    /// Writes the header for a body of `payload_len` octets into the start of `buf`.
    #[inline]
    pub fn emit(&self, buf: &mut [u8], payload_len: usize) -> Result<(), EmitError> {
        let header_len = self.buffer_len();
        let length = header_len - MANDATORY_HEADER_LEN + payload_len;
        if length > MAX_LENGTH {
            return Err(EmitError::PayloadTooLong {
                layer: Layer::Gtpu,
                len: payload_len,
                max: MAX_LENGTH - (header_len - MANDATORY_HEADER_LEN),
            });
        }
        let available = buf.len();
        let Some(h) = buf.get_mut(..header_len) else {
            return Err(EmitError::BufferTooSmall {
                needed: header_len,
                available,
            });
        };
        let mut flags = (VERSION << field::VERSION_SHIFT) | field::FLAG_PT;
        if self.has_extensions() {
            flags |= field::FLAG_E;
        }
        if self.sequence_number.is_some() {
            flags |= field::FLAG_S;
        }
        if self.npdu_number.is_some() {
            flags |= field::FLAG_PN;
        }
        h[field::FLAGS] = flags;
        h[field::MESSAGE_TYPE] = self.message_type.0;
        h[field::LENGTH].copy_from_slice(&(length as u16).to_be_bytes());
        h[field::TEID].copy_from_slice(&self.teid.0.to_be_bytes());
        if header_len == MANDATORY_HEADER_LEN {
            return Ok(());
        }
        h[field::SEQUENCE_NUMBER].copy_from_slice(&self.sequence_number.unwrap_or(0).to_be_bytes());
        h[field::NPDU_NUMBER] = self.npdu_number.unwrap_or(0);
        // Each extension header's last octet names the next one; the field in the fixed
        // header names the first.
        let mut next_at = field::NEXT_EXTENSION_HEADER_TYPE;
        let mut at = MANDATORY_HEADER_LEN + OPTIONAL_FIELDS_LEN;
        if let Some(c) = &self.pdu_session_container {
            let ext_len = c.content_len() + 2;
            h[next_at] = ExtensionHeaderType::PDU_SESSION_CONTAINER.0;
            h[at] = (ext_len / 4) as u8;
            c.emit(&mut h[at + 1..at + ext_len - 1])?;
            next_at = at + ext_len - 1;
            at += ext_len;
        }
        if let Some(port) = self.udp_port {
            h[next_at] = ExtensionHeaderType::UDP_PORT.0;
            h[at] = 1;
            h[at + 1..at + 3].copy_from_slice(&port.to_be_bytes());
            next_at = at + 3;
        }
        h[next_at] = ExtensionHeaderType::NO_MORE.0;
        Ok(())
    }
}
