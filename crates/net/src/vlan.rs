//! VLAN tags between the Ethernet addresses and the EtherType: IEEE 802.1Q C-tags (TPID
//! 0x8100) and the 802.1ad S-tag (TPID 0x88A8) of QinQ outside one.
//!
//! ```text
//!  0      6      12          14             16          18
//!  +------+------+-----------+--------------+-----------+-------
//!  | dst  | src  | TPID      | PCP DEI VID  | EtherType | payload     one tag
//!  +------+------+-----------+--------------+-----------+-------
//!                | 0x88a8    | S-tag TCI    | 0x8100    | C-tag TCI | EtherType | ...  QinQ
//! ```
//!
//! A tag is the TPID and the tag control information (IEEE 802.1Q-2018 §9.3, §9.6): PCP
//! (3 bits), DEI (1 bit), VID (12 bits). [`TaggedEthernetRepr::parse`] walks up to two tags and
//! says where the payload starts and what its EtherType is.
//!
//! VIDs 0 and 4095 are reserved (802.1Q-2018 Table 9-2). A VID a user configures is a
//! [`VlanId`], which refuses both. On the wire, 4095 "shall not be transmitted in a tag header":
//! parsing refuses it with [`ParseError::ReservedVlanId`] and emitting refuses to write it.
//! VID 0, the null VID, marks a priority-tagged frame (a PCP and no VLAN, Table 9-2 and §6.9.1):
//! parsing accepts it and reports VID 0, since a bridge may legitimately send one and the
//! receiver then treats the frame as untagged on its port's VLAN.

use core::fmt;

use crate::error::{EmitError, Layer, ParseError};
use crate::ethernet::{self, ETHERTYPE_QINQ, ETHERTYPE_VLAN, EthernetFrame, MacAddr};

/// Field offsets of a tag.
pub mod field {
    use core::ops::Range;
    /// Tag protocol identifier: 0x8100 (C-tag) or 0x88a8 (S-tag).
    pub const TPID: Range<usize> = 0..2;
    /// Tag control information: PCP (3 bits), DEI (1 bit), VID (12 bits).
    pub const TCI: Range<usize> = 2..4;
}

/// Length of a tag: TPID and TCI.
pub const TAG_LEN: usize = 4;
/// The largest VID a tag may carry (4095 is reserved).
pub const MAX_VID: u16 = 4094;
/// The largest priority code point (3 bits).
pub const MAX_PCP: u8 = 7;
/// The reserved VID that is never transmitted.
const RESERVED_VID: u16 = 0xfff;

/// Which tag: its TPID.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum VlanKind {
    /// An IEEE 802.1Q customer VLAN tag (C-tag), TPID 0x8100.
    Customer,
    /// An IEEE 802.1ad service VLAN tag (S-tag), TPID 0x88a8: the outer tag of QinQ.
    Service,
}

impl VlanKind {
    /// The TPID of the tag.
    #[inline]
    pub const fn tpid(self) -> u16 {
        match self {
            VlanKind::Customer => ETHERTYPE_VLAN,
            VlanKind::Service => ETHERTYPE_QINQ,
        }
    }

    /// The kind of a TPID, if it is one.
    #[inline]
    pub const fn from_tpid(tpid: u16) -> Option<VlanKind> {
        match tpid {
            ETHERTYPE_VLAN => Some(VlanKind::Customer),
            ETHERTYPE_QINQ => Some(VlanKind::Service),
            _ => None,
        }
    }
}

/// A checked view of a tag: `new_checked` guarantees its four octets.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct VlanTag<T> {
    buffer: T,
}

impl<T: AsRef<[u8]>> VlanTag<T> {
    /// Wraps `buffer` after checking that it holds a whole tag.
    #[inline]
    pub fn new_checked(buffer: T) -> Result<Self, ParseError> {
        let len = buffer.as_ref().len();
        if len < TAG_LEN {
            return Err(ParseError::Truncated {
                layer: Layer::Vlan,
                offset: 0,
                needed: TAG_LEN,
                available: len,
            });
        }
        Ok(VlanTag { buffer })
    }

    #[inline]
    fn u16_at(&self, at: usize) -> u16 {
        let b = self.buffer.as_ref();
        u16::from_be_bytes([b[at], b[at + 1]])
    }

    /// The TPID.
    #[inline]
    pub fn tpid(&self) -> u16 {
        self.u16_at(field::TPID.start)
    }

    /// Priority code point (IEEE 802.1Q-2018 §6.9.3).
    #[inline]
    pub fn pcp(&self) -> u8 {
        (self.u16_at(field::TCI.start) >> 13) as u8
    }

    /// Drop eligible indicator.
    #[inline]
    pub fn dei(&self) -> bool {
        self.u16_at(field::TCI.start) & 0x1000 != 0
    }

    /// VLAN identifier (0: priority-tagged).
    #[inline]
    pub fn vid(&self) -> u16 {
        self.u16_at(field::TCI.start) & 0x0fff
    }
}

/// The fields of a tag.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct VlanRepr {
    /// C-tag or S-tag.
    pub kind: VlanKind,
    /// Priority code point (0–7).
    pub pcp: u8,
    /// Drop eligible indicator.
    pub dei: bool,
    /// VLAN identifier: 1–4094, or 0 for a priority-tagged frame.
    pub vid: u16,
}

impl VlanRepr {
    /// A C-tag for `vid` with priority `pcp`, DEI clear.
    #[inline]
    pub const fn customer(vid: VlanId, pcp: u8) -> Self {
        VlanRepr {
            kind: VlanKind::Customer,
            pcp,
            dei: false,
            vid: vid.get(),
        }
    }

    /// Reads a checked tag: the TPID must be a C-tag's or an S-tag's, the VID not 4095.
    #[inline]
    pub fn parse<T: AsRef<[u8]>>(tag: &VlanTag<T>) -> Result<Self, ParseError> {
        let Some(kind) = VlanKind::from_tpid(tag.tpid()) else {
            return Err(ParseError::UnsupportedVlanTag {
                offset: field::TPID.start,
                tpid: tag.tpid(),
            });
        };
        let vid = tag.vid();
        if vid == RESERVED_VID {
            return Err(ParseError::ReservedVlanId {
                offset: field::TCI.start,
                vid,
            });
        }
        Ok(VlanRepr {
            kind,
            pcp: tag.pcp(),
            dei: tag.dei(),
            vid,
        })
    }

    /// Bytes [`emit`](Self::emit) writes.
    #[inline]
    pub const fn buffer_len(&self) -> usize {
        TAG_LEN
    }

    /// Writes the tag into the first [`TAG_LEN`] bytes of `buf`; a PCP over 7 or a VID over
    /// 4094 is refused.
    #[inline]
    pub fn emit(&self, buf: &mut [u8]) -> Result<(), EmitError> {
        let invalid = |field, value: u16, reason| EmitError::InvalidField {
            layer: Layer::Vlan,
            field,
            value: u32::from(value),
            reason,
        };
        if self.pcp > MAX_PCP {
            return Err(invalid("PCP", self.pcp.into(), "does not fit in 3 bits"));
        }
        if self.vid > RESERVED_VID {
            return Err(invalid("VLAN id", self.vid, "does not fit in 12 bits"));
        }
        if self.vid == RESERVED_VID {
            return Err(invalid(
                "VLAN id",
                self.vid,
                "is reserved (IEEE 802.1Q Table 9-2)",
            ));
        }
        let available = buf.len();
        let Some(t) = buf.get_mut(..TAG_LEN) else {
            return Err(EmitError::BufferTooSmall {
                needed: TAG_LEN,
                available,
            });
        };
        let tci = (u16::from(self.pcp) << 13) | (u16::from(self.dei) << 12) | self.vid;
        t[field::TPID].copy_from_slice(&self.kind.tpid().to_be_bytes());
        t[field::TCI].copy_from_slice(&tci.to_be_bytes());
        Ok(())
    }
}

/// A VLAN id a user configures: 1–4094 (IEEE 802.1Q-2018 Table 9-2 reserves 0 and 4095).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct VlanId(u16);

/// A VLAN id that cannot be configured.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, thiserror::Error)]
pub enum VlanIdError {
    /// 0 (the null VID of a priority-tagged frame) or 4095 (reserved for implementations,
    /// never transmitted).
    #[error(
        "VLAN id {vid} is reserved (IEEE 802.1Q Table 9-2: 0 marks a priority tag, 4095 is never sent): use 1 to 4094"
    )]
    Reserved {
        /// The id given.
        vid: u16,
    },
    /// Over 4095: more than the 12 bits of the VID.
    #[error("VLAN id {vid} does not fit in 12 bits: use 1 to 4094")]
    TooLarge {
        /// The id given.
        vid: u16,
    },
}

impl VlanId {
    /// The id `vid`, if it can be configured.
    #[inline]
    pub const fn new(vid: u16) -> Result<VlanId, VlanIdError> {
        match vid {
            0 | RESERVED_VID => Err(VlanIdError::Reserved { vid }),
            1..=MAX_VID => Ok(VlanId(vid)),
            _ => Err(VlanIdError::TooLarge { vid }),
        }
    }

    /// The id as a number.
    #[inline]
    pub const fn get(self) -> u16 {
        self.0
    }
}

impl fmt::Display for VlanId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

/// The tags of a frame, outermost first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum VlanTags {
    /// No tag.
    Untagged,
    /// One tag (usually a C-tag).
    Single(VlanRepr),
    /// QinQ: an outer tag (an S-tag, or a C-tag for 802.1Q in 802.1Q) and an inner C-tag.
    Double {
        /// The outer tag.
        outer: VlanRepr,
        /// The inner tag, a C-tag.
        inner: VlanRepr,
    },
}

impl VlanTags {
    /// Bytes the tags take.
    #[inline]
    pub const fn len(&self) -> usize {
        match self {
            VlanTags::Untagged => 0,
            VlanTags::Single(_) => TAG_LEN,
            VlanTags::Double { .. } => 2 * TAG_LEN,
        }
    }

    /// Whether there is no tag.
    #[inline]
    pub const fn is_empty(&self) -> bool {
        matches!(self, VlanTags::Untagged)
    }
}

/// The fields of an Ethernet II header with up to two VLAN tags.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct TaggedEthernetRepr {
    /// Source MAC address.
    pub source: MacAddr,
    /// Destination MAC address.
    pub destination: MacAddr,
    /// The tags.
    pub tags: VlanTags,
    /// The EtherType of the payload, after the tags.
    pub ethertype: u16,
}

impl TaggedEthernetRepr {
    /// Reads the header of `frame`, walking its tags: an outer tag of either kind, then a C-tag.
    /// A third tag, or an S-tag inside another, is [`ParseError::UnsupportedVlanTag`] at its
    /// TPID. Offsets in errors count from the start of the frame.
    pub fn parse(frame: &[u8]) -> Result<Self, ParseError> {
        let eth = EthernetFrame::new_checked(frame)?;
        let mut at = ethernet::field::ETHERTYPE.start;
        let mut ethertype = eth.ethertype();
        let mut found = [None; 2];
        let mut count = 0;
        while let Some(kind) = VlanKind::from_tpid(ethertype) {
            if count == 2 || (count == 1 && kind != VlanKind::Customer) {
                return Err(ParseError::UnsupportedVlanTag {
                    offset: at,
                    tpid: ethertype,
                });
            }
            // The tag and the EtherType after it.
            let available = frame.len() - at;
            if available < TAG_LEN + 2 {
                return Err(ParseError::Truncated {
                    layer: Layer::Vlan,
                    offset: at,
                    needed: TAG_LEN + 2,
                    available,
                });
            }
            let tag = VlanTag::new_checked(&frame[at..]).map_err(|e| e.offset_by(at))?;
            found[count] = Some(VlanRepr::parse(&tag).map_err(|e| e.offset_by(at))?);
            count += 1;
            at += TAG_LEN;
            ethertype = u16::from_be_bytes([frame[at], frame[at + 1]]);
        }
        let tags = match found {
            [Some(outer), Some(inner)] => VlanTags::Double { outer, inner },
            [Some(tag), None] => VlanTags::Single(tag),
            _ => VlanTags::Untagged,
        };
        Ok(TaggedEthernetRepr {
            source: eth.source(),
            destination: eth.destination(),
            tags,
            ethertype,
        })
    }

    /// Length of the header, tags included: where the payload starts.
    #[inline]
    pub const fn header_len(&self) -> usize {
        ethernet::HEADER_LEN + self.tags.len()
    }

    /// Bytes [`emit`](Self::emit) writes.
    #[inline]
    pub const fn buffer_len(&self) -> usize {
        self.header_len()
    }

    /// Writes the header, tags included, into the start of `buf`. An inner tag that is not a
    /// C-tag is refused, as parsing would refuse it.
    pub fn emit(&self, buf: &mut [u8]) -> Result<(), EmitError> {
        let needed = self.header_len();
        let available = buf.len();
        let Some(h) = buf.get_mut(..needed) else {
            return Err(EmitError::BufferTooSmall { needed, available });
        };
        h[ethernet::field::DESTINATION].copy_from_slice(&self.destination.0);
        h[ethernet::field::SOURCE].copy_from_slice(&self.source.0);
        let at = ethernet::field::ETHERTYPE.start;
        match self.tags {
            VlanTags::Untagged => {}
            VlanTags::Single(tag) => tag.emit(&mut h[at..])?,
            VlanTags::Double { outer, inner } => {
                if inner.kind != VlanKind::Customer {
                    return Err(EmitError::InvalidField {
                        layer: Layer::Vlan,
                        field: "inner TPID",
                        value: u32::from(inner.kind.tpid()),
                        reason: "is not a C-tag's (0x8100)",
                    });
                }
                outer.emit(&mut h[at..])?;
                inner.emit(&mut h[at + TAG_LEN..])?;
            }
        }
        h[needed - 2..].copy_from_slice(&self.ethertype.to_be_bytes());
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn configured_ids_exclude_the_reserved_ones() {
        assert_eq!(VlanId::new(0), Err(VlanIdError::Reserved { vid: 0 }));
        assert_eq!(VlanId::new(4095), Err(VlanIdError::Reserved { vid: 4095 }));
        assert_eq!(VlanId::new(4096), Err(VlanIdError::TooLarge { vid: 4096 }));
        assert_eq!(VlanId::new(1).map(VlanId::get), Ok(1));
        assert_eq!(VlanId::new(4094).map(VlanId::get), Ok(4094));
        assert_eq!(
            VlanId::new(0).unwrap_err().to_string(),
            "VLAN id 0 is reserved (IEEE 802.1Q Table 9-2: 0 marks a priority tag, 4095 is never sent): use 1 to 4094"
        );
    }
}
