//! The PDU Session Container extension header content (TS 38.415 §5.5.2; carried as GTP-U
//! extension header type 0x85, TS 29.281 §5.2.2.7).
//!
//! The content is the extension header minus its length octet and its next-extension-header
//! octet: `4n - 2` octets, padded with zeros (TS 38.415 §5.5.3.5).

use crate::error::{EmitError, Layer, ParseError};
use crate::types::{Ppi, QfiSequenceNumber};
use upfbench_net::Qfi;

/// Field offsets and bits of the content, from its first octet.
pub mod field {
    /// PDU type (high nibble) and the per-type flags (low nibble).
    pub const PDU_TYPE_FLAGS: usize = 0;
    /// DL: PPP, RQI, QFI. UL: N3/N9 Delay Ind, New IE Flag, QFI.
    pub const QFI: usize = 1;
    /// First optional field.
    pub const OPTIONAL: usize = 2;

    /// QFI mask of octet [`QFI`].
    pub const QFI_MASK: u8 = 0x3f;
    /// DL: Paging Policy Presence, octet [`QFI`].
    pub(crate) const DL_PPP: u8 = 0x80;
    /// DL: Reflective QoS Indicator, octet [`QFI`].
    pub(crate) const DL_RQI: u8 = 0x40;
    /// DL: QoS Monitoring Packet, octet [`PDU_TYPE_FLAGS`].
    pub(crate) const DL_QMP: u8 = 0x08;
    /// DL: DL QFI Sequence Number presence, octet [`PDU_TYPE_FLAGS`].
    pub(crate) const DL_SNP: u8 = 0x04;
    /// UL: QoS Monitoring Packet, octet [`PDU_TYPE_FLAGS`].
    pub(crate) const UL_QMP: u8 = 0x08;
    /// UL: DL Delay Ind, octet [`PDU_TYPE_FLAGS`].
    pub(crate) const UL_DL_DELAY_IND: u8 = 0x04;
    /// UL: UL Delay Ind, octet [`PDU_TYPE_FLAGS`].
    pub(crate) const UL_UL_DELAY_IND: u8 = 0x02;
    /// UL: UL QFI Sequence Number presence, octet [`PDU_TYPE_FLAGS`].
    pub(crate) const UL_SNP: u8 = 0x01;
    /// UL: N3/N9 Delay Ind, octet [`QFI`].
    pub(crate) const UL_N3N9_DELAY_IND: u8 = 0x80;
}

/// PDU type of DL PDU SESSION INFORMATION (TS 38.415 §5.5.3.1).
pub const PDU_TYPE_DL: u8 = 0;
/// PDU type of UL PDU SESSION INFORMATION (TS 38.415 §5.5.3.1).
pub const PDU_TYPE_UL: u8 = 1;

/// DL PDU SESSION INFORMATION, PDU type 0 (TS 38.415 §5.5.2.1).
///
/// The MSNP flag (DL MBS QFI Sequence Number, Rel-17) is not decoded: as a spare bit it is
/// ignored, and the field it announces is skipped with the padding.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct DlPduSessionInformation {
    /// QoS Flow Identifier.
    pub qfi: Qfi,
    /// Reflective QoS Indicator (§5.5.3.4).
    pub rqi: bool,
    /// Paging Policy Indicator; present iff the PPP bit is set (§5.5.3.6, §5.5.3.7).
    pub ppi: Option<Ppi>,
    /// DL Sending Time Stamp, 64-bit NTP format; present iff QMP is set (§5.5.3.8).
    pub dl_sending_time_stamp: Option<u64>,
    /// DL QFI Sequence Number; present iff SNP is set (§5.5.3.18).
    pub dl_qfi_sequence_number: Option<QfiSequenceNumber>,
}

/// The time stamps of a UL QoS monitoring packet (QMP set, TS 38.415 §5.5.3.9–§5.5.3.11).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct UlQosMonitoring {
    /// DL Sending Time Stamp Repeated.
    pub dl_sending_time_stamp_repeated: u64,
    /// DL Received Time Stamp.
    pub dl_received_time_stamp: u64,
    /// UL Sending Time Stamp.
    pub ul_sending_time_stamp: u64,
}

/// UL PDU SESSION INFORMATION, PDU type 1 (TS 38.415 §5.5.2.2).
///
/// Fields announced by the New IE Flag (Rel-17 and later) are not decoded: they are skipped with
/// the padding, and the flag is not re-emitted.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct UlPduSessionInformation {
    /// QoS Flow Identifier.
    pub qfi: Qfi,
    /// Time stamps; present iff QMP is set.
    pub qos_monitoring: Option<UlQosMonitoring>,
    /// DL Delay Result (§5.5.3.14); present iff DL Delay Ind is set.
    pub dl_delay_result: Option<u32>,
    /// UL Delay Result (§5.5.3.15); present iff UL Delay Ind is set.
    pub ul_delay_result: Option<u32>,
    /// UL QFI Sequence Number (§5.5.3.21); present iff SNP is set.
    pub ul_qfi_sequence_number: Option<QfiSequenceNumber>,
    /// N3/N9 Delay Result (§5.5.3.23); present iff N3/N9 Delay Ind is set.
    pub n3_n9_delay_result: Option<u32>,
}

/// The content of a PDU Session Container (TS 38.415 §5.5.2).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum PduSessionContainer {
    /// DL PDU SESSION INFORMATION (PDU type 0): UPF to gNB.
    Downlink(DlPduSessionInformation),
    /// UL PDU SESSION INFORMATION (PDU type 1): gNB to UPF.
    Uplink(UlPduSessionInformation),
}

/// Reads big-endian fields from the content, reporting a truncation at the field's offset.
struct Reader<'a> {
    buf: &'a [u8],
    at: usize,
}

impl<'a> Reader<'a> {
    fn take<const N: usize>(&mut self) -> Result<[u8; N], ParseError> {
        let Some(b) = self.buf.get(self.at..self.at + N) else {
            return Err(ParseError::Truncated {
                layer: Layer::PduSessionContainer,
                offset: self.at,
                needed: N,
                available: self.buf.len().saturating_sub(self.at),
            });
        };
        let mut out = [0u8; N];
        out.copy_from_slice(b);
        self.at += N;
        Ok(out)
    }

    fn u64(&mut self) -> Result<u64, ParseError> {
        self.take::<8>().map(u64::from_be_bytes)
    }

    fn u32(&mut self) -> Result<u32, ParseError> {
        self.take::<4>().map(u32::from_be_bytes)
    }

    fn u24(&mut self) -> Result<QfiSequenceNumber, ParseError> {
        let [a, b, c] = self.take::<3>()?;
        // 24 bits always fit.
        Ok(QfiSequenceNumber::new(u32::from_be_bytes([0, a, b, c])).unwrap_or_default())
    }
}

struct Writer<'a> {
    buf: &'a mut [u8],
    at: usize,
}

impl Writer<'_> {
    // Callers size the buffer with `content_len` first, so every put fits.
    fn put(&mut self, bytes: &[u8]) {
        self.buf[self.at..self.at + bytes.len()].copy_from_slice(bytes);
        self.at += bytes.len();
    }
}

impl PduSessionContainer {
    /// Decodes a container's content (`4n - 2` octets). Offsets in errors count from the
    /// content's first octet. Spare bits and padding are ignored (TS 38.415 §5.5.1).
    pub fn parse(content: &[u8]) -> Result<Self, ParseError> {
        let mut r = Reader {
            buf: content,
            at: 0,
        };
        let [first, second] = r.take::<2>()?;
        let pdu_type = first >> 4;
        let qfi = Qfi::from_bits(second);
        match pdu_type {
            PDU_TYPE_DL => {
                let ppi = if second & field::DL_PPP != 0 {
                    let [o] = r.take::<1>()?;
                    Some(Ppi::from_bits(o >> 5))
                } else {
                    None
                };
                let dl_sending_time_stamp = if first & field::DL_QMP != 0 {
                    Some(r.u64()?)
                } else {
                    None
                };
                let dl_qfi_sequence_number = if first & field::DL_SNP != 0 {
                    Some(r.u24()?)
                } else {
                    None
                };
                Ok(PduSessionContainer::Downlink(DlPduSessionInformation {
                    qfi,
                    rqi: second & field::DL_RQI != 0,
                    ppi,
                    dl_sending_time_stamp,
                    dl_qfi_sequence_number,
                }))
            }
            PDU_TYPE_UL => {
                let qos_monitoring = if first & field::UL_QMP != 0 {
                    Some(UlQosMonitoring {
                        dl_sending_time_stamp_repeated: r.u64()?,
                        dl_received_time_stamp: r.u64()?,
                        ul_sending_time_stamp: r.u64()?,
                    })
                } else {
                    None
                };
                let dl_delay_result = if first & field::UL_DL_DELAY_IND != 0 {
                    Some(r.u32()?)
                } else {
                    None
                };
                let ul_delay_result = if first & field::UL_UL_DELAY_IND != 0 {
                    Some(r.u32()?)
                } else {
                    None
                };
                let ul_qfi_sequence_number = if first & field::UL_SNP != 0 {
                    Some(r.u24()?)
                } else {
                    None
                };
                let n3_n9_delay_result = if second & field::UL_N3N9_DELAY_IND != 0 {
                    Some(r.u32()?)
                } else {
                    None
                };
                Ok(PduSessionContainer::Uplink(UlPduSessionInformation {
                    qfi,
                    qos_monitoring,
                    dl_delay_result,
                    ul_delay_result,
                    ul_qfi_sequence_number,
                    n3_n9_delay_result,
                }))
            }
            _ => Err(ParseError::UnknownPduType {
                offset: field::PDU_TYPE_FLAGS,
                pdu_type,
            }),
        }
    }

    /// Checks a container's content as [`parse`](Self::parse) does, without building it: the
    /// receive path validates every container but rarely reads more than its QFI.
    #[inline]
    pub fn validate(content: &[u8]) -> Result<(), ParseError> {
        if Self::fits(content) {
            Ok(())
        } else {
            Err(Self::error(content))
        }
    }

    /// Whether the PDU type is known and the content holds every field its flags announce:
    /// exactly when [`parse`](Self::parse) succeeds.
    #[inline]
    pub(crate) fn fits(content: &[u8]) -> bool {
        let (Some(&first), Some(&second)) = (content.first(), content.get(1)) else {
            return false;
        };
        let flag = |octet: u8, bit: u8, n: usize| if octet & bit != 0 { n } else { 0 };
        let needed = match first >> 4 {
            PDU_TYPE_DL => {
                2 + flag(second, field::DL_PPP, 1)
                    + flag(first, field::DL_QMP, 8)
                    + flag(first, field::DL_SNP, 3)
            }
            PDU_TYPE_UL => {
                2 + flag(first, field::UL_QMP, 24)
                    + flag(first, field::UL_DL_DELAY_IND, 4)
                    + flag(first, field::UL_UL_DELAY_IND, 4)
                    + flag(first, field::UL_SNP, 3)
                    + flag(second, field::UL_N3N9_DELAY_IND, 4)
            }
            _ => return false,
        };
        needed <= content.len()
    }

    /// The error [`parse`](Self::parse) reports for content that does not [`fits`](Self::fits);
    /// out of line, off the receive path.
    #[cold]
    #[inline(never)]
    fn error(content: &[u8]) -> ParseError {
        match Self::parse(content) {
            Err(e) => e,
            // Not reached: `fits` is false exactly when `parse` fails (a property test and the
            // fuzz target check that); report the whole content as short rather than panic.
            Ok(_) => ParseError::Truncated {
                layer: Layer::PduSessionContainer,
                offset: 0,
                needed: content.len() + 1,
                available: content.len(),
            },
        }
    }

    /// The PDU type: [`PDU_TYPE_DL`] or [`PDU_TYPE_UL`].
    pub const fn pdu_type(&self) -> u8 {
        match self {
            PduSessionContainer::Downlink(_) => PDU_TYPE_DL,
            PduSessionContainer::Uplink(_) => PDU_TYPE_UL,
        }
    }

    /// The QoS Flow Identifier.
    pub const fn qfi(&self) -> Qfi {
        match self {
            PduSessionContainer::Downlink(dl) => dl.qfi,
            PduSessionContainer::Uplink(ul) => ul.qfi,
        }
    }

    /// A DL container with only a QFI, as a UPF sends it.
    pub const fn downlink(qfi: Qfi) -> Self {
        PduSessionContainer::Downlink(DlPduSessionInformation {
            qfi,
            rqi: false,
            ppi: None,
            dl_sending_time_stamp: None,
            dl_qfi_sequence_number: None,
        })
    }

    /// A UL container with only a QFI, as a gNB sends it.
    pub const fn uplink(qfi: Qfi) -> Self {
        PduSessionContainer::Uplink(UlPduSessionInformation {
            qfi,
            qos_monitoring: None,
            dl_delay_result: None,
            ul_delay_result: None,
            ul_qfi_sequence_number: None,
            n3_n9_delay_result: None,
        })
    }

    fn unpadded_len(&self) -> usize {
        let opt = |present: bool, n: usize| if present { n } else { 0 };
        2 + match self {
            PduSessionContainer::Downlink(dl) => {
                opt(dl.ppi.is_some(), 1)
                    + opt(dl.dl_sending_time_stamp.is_some(), 8)
                    + opt(dl.dl_qfi_sequence_number.is_some(), 3)
            }
            PduSessionContainer::Uplink(ul) => {
                opt(ul.qos_monitoring.is_some(), 24)
                    + opt(ul.dl_delay_result.is_some(), 4)
                    + opt(ul.ul_delay_result.is_some(), 4)
                    + opt(ul.ul_qfi_sequence_number.is_some(), 3)
                    + opt(ul.n3_n9_delay_result.is_some(), 4)
            }
        }
    }

    /// Length of the content [`emit`](Self::emit) writes: the fields padded to `4n - 2` octets.
    pub fn content_len(&self) -> usize {
        (self.unpadded_len() + 2).next_multiple_of(4) - 2
    }

    /// Writes the content (fields and zero padding, [`content_len`](Self::content_len) octets)
    /// into the start of `buf`.
    pub fn emit(&self, buf: &mut [u8]) -> Result<(), EmitError> {
        let len = self.content_len();
        let available = buf.len();
        let Some(buf) = buf.get_mut(..len) else {
            return Err(EmitError::BufferTooSmall {
                needed: len,
                available,
            });
        };
        buf.fill(0);
        let mut w = Writer { buf, at: 0 };
        match self {
            PduSessionContainer::Downlink(dl) => {
                let mut first = PDU_TYPE_DL << 4;
                if dl.dl_sending_time_stamp.is_some() {
                    first |= field::DL_QMP;
                }
                if dl.dl_qfi_sequence_number.is_some() {
                    first |= field::DL_SNP;
                }
                let mut second = dl.qfi.get();
                if dl.ppi.is_some() {
                    second |= field::DL_PPP;
                }
                if dl.rqi {
                    second |= field::DL_RQI;
                }
                w.put(&[first, second]);
                if let Some(ppi) = dl.ppi {
                    w.put(&[ppi.get() << 5]);
                }
                if let Some(ts) = dl.dl_sending_time_stamp {
                    w.put(&ts.to_be_bytes());
                }
                if let Some(sn) = dl.dl_qfi_sequence_number {
                    w.put(&sn.get().to_be_bytes()[1..]);
                }
            }
            PduSessionContainer::Uplink(ul) => {
                let mut first = PDU_TYPE_UL << 4;
                if ul.qos_monitoring.is_some() {
                    first |= field::UL_QMP;
                }
                if ul.dl_delay_result.is_some() {
                    first |= field::UL_DL_DELAY_IND;
                }
                if ul.ul_delay_result.is_some() {
                    first |= field::UL_UL_DELAY_IND;
                }
                if ul.ul_qfi_sequence_number.is_some() {
                    first |= field::UL_SNP;
                }
                let mut second = ul.qfi.get();
                if ul.n3_n9_delay_result.is_some() {
                    second |= field::UL_N3N9_DELAY_IND;
                }
                w.put(&[first, second]);
                if let Some(m) = ul.qos_monitoring {
                    w.put(&m.dl_sending_time_stamp_repeated.to_be_bytes());
                    w.put(&m.dl_received_time_stamp.to_be_bytes());
                    w.put(&m.ul_sending_time_stamp.to_be_bytes());
                }
                if let Some(d) = ul.dl_delay_result {
                    w.put(&d.to_be_bytes());
                }
                if let Some(d) = ul.ul_delay_result {
                    w.put(&d.to_be_bytes());
                }
                if let Some(sn) = ul.ul_qfi_sequence_number {
                    w.put(&sn.get().to_be_bytes()[1..]);
                }
                if let Some(d) = ul.n3_n9_delay_result {
                    w.put(&d.to_be_bytes());
                }
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn minimal_containers_are_two_octets() {
        let qfi = Qfi::new(9).unwrap();
        let mut buf = [0xaa; 2];
        PduSessionContainer::uplink(qfi).emit(&mut buf).unwrap();
        assert_eq!(buf, [0x10, 0x09]);
        PduSessionContainer::downlink(qfi).emit(&mut buf).unwrap();
        assert_eq!(buf, [0x00, 0x09]);
    }

    #[test]
    fn dl_with_ppi_rqi_is_padded_to_six() {
        let c = PduSessionContainer::Downlink(DlPduSessionInformation {
            qfi: Qfi::new(5).unwrap(),
            rqi: true,
            ppi: Some(Ppi::new(3).unwrap()),
            ..Default::default()
        });
        assert_eq!(c.content_len(), 6);
        let mut buf = [0xaa; 6];
        c.emit(&mut buf).unwrap();
        assert_eq!(buf, [0x00, 0xc5, 0x60, 0, 0, 0]);
        assert_eq!(PduSessionContainer::parse(&buf), Ok(c));
    }

    #[test]
    fn unknown_pdu_type() {
        assert_eq!(
            PduSessionContainer::parse(&[0x20, 0x01]),
            Err(ParseError::UnknownPduType {
                offset: 0,
                pdu_type: 2
            })
        );
    }

    #[test]
    fn flagged_field_beyond_content_is_truncated() {
        // DL with QMP set: an 8-octet time stamp must follow the first two octets.
        assert_eq!(
            PduSessionContainer::parse(&[0x08, 0x01, 0, 0, 0, 0]),
            Err(ParseError::Truncated {
                layer: Layer::PduSessionContainer,
                offset: 2,
                needed: 8,
                available: 4
            })
        );
    }
}
