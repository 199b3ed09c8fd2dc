//! A port's VLAN tags in software, on bytes: the tags it writes after the Ethernet addresses of
//! every frame it sends (IEEE 802.1Q C-tag, or an 802.1ad S-tag outside one: QinQ), and the
//! check and removal of them on what it receives. One-port mode (N3 and N6 on one device, told
//! apart by VLAN) asks [`PortVlans::side_of`] which port a received frame is for.
//!
//! A received tag is ours when its TPID and VID are; its PCP and DEI are not looked at (a switch
//! may remark them). A priority-tagged frame (VID 0, IEEE 802.1Q-2018 §6.9.1) is not ours on a
//! tagged port: upfbench never asks for one. Sans-IO: the datapath moves the bytes, the worker
//! owns the mbufs.
//!
//! Where the NIC has the VLAN offloads ([`TagOffload`], chosen per device by
//! [`super::vlan_offload`]), the tags are not written in software: what a port sends asks the
//! NIC to insert them ([`PortTags::tx_vlan`]), and what it receives may come with tags the NIC
//! stripped into the mbuf ([`StrippedTags`]), the rest (a QinQ frame's inner tag, when the NIC
//! strips one) still in the frame: [`PortTags::match_received`] reads both. A stripped tag's
//! TPID is not kept: its VID alone makes it ours.

use upfbench_dpdk::{StrippedTags, TxVlan};
use upfbench_net::ethernet;
use upfbench_net::vlan::TAG_LEN;
use upfbench_net::{VlanKind, VlanRepr, VlanTags};

use super::queues::Side;

/// Where the tags go: after the destination and source addresses.
const TAGS_AT: usize = ethernet::field::ETHERTYPE.start;
/// The TPID and VID bits of a tag as a big-endian word (PCP and DEI left out).
const MATCH_MASK: u32 = 0xffff_0fff;

/// The VID bits of a TCI.
const VID_MASK: u16 = 0x0fff;

/// What the NIC does with a port's tags: inserts them on transmit, strips them on receive.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct TagOffload {
    /// The NIC inserts the tags (`RTE_ETH_TX_OFFLOAD_VLAN_INSERT`, and `QINQ_INSERT`).
    pub insert: bool,
    /// The NIC strips them (`RTE_ETH_RX_OFFLOAD_VLAN_STRIP`, and `QINQ_STRIP` if offered).
    pub strip: bool,
}

/// The tags of one port, as the bytes it writes and the words it matches, and whether the NIC
/// inserts them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PortTags {
    tags: VlanTags,
    bytes: [u8; 2 * TAG_LEN],
    len: usize,
    offload: TagOffload,
    tx: TxVlan,
}

impl Default for PortTags {
    fn default() -> Self {
        PortTags::UNTAGGED
    }
}

impl PortTags {
    /// An untagged port.
    pub const UNTAGGED: PortTags = PortTags {
        tags: VlanTags::Untagged,
        bytes: [0; 2 * TAG_LEN],
        len: 0,
        offload: TagOffload {
            insert: false,
            strip: false,
        },
        tx: TxVlan::NONE,
    };

    /// The port's `tags`; `None` if they cannot be written (a VID of 4095 or over, a PCP over
    /// 7, an inner tag that is not a C-tag: what the configuration refuses first).
    pub fn new(tags: VlanTags) -> Option<PortTags> {
        let mut bytes = [0u8; 2 * TAG_LEN];
        let len = match tags {
            VlanTags::Untagged => 0,
            VlanTags::Single(t) => {
                t.emit(&mut bytes).ok()?;
                TAG_LEN
            }
            VlanTags::Double { outer, inner } => {
                if inner.kind != VlanKind::Customer {
                    return None;
                }
                outer.emit(&mut bytes).ok()?;
                inner.emit(&mut bytes[TAG_LEN..]).ok()?;
                2 * TAG_LEN
            }
        };
        Some(PortTags {
            tags,
            bytes,
            len,
            offload: TagOffload::default(),
            tx: TxVlan::NONE,
        })
    }

    /// The same tags, with what the NIC does with them: when it inserts them, what the port
    /// sends is untagged and asks for them ([`Self::tx_vlan`]). An untagged port stays so.
    pub fn with_offload(mut self, offload: TagOffload) -> PortTags {
        let tci = |t: &VlanRepr| (u16::from(t.pcp) << 13) | (u16::from(t.dei) << 12) | t.vid;
        self.offload = offload;
        self.tx = match self.tags {
            _ if !offload.insert => TxVlan::NONE,
            VlanTags::Untagged => TxVlan::NONE,
            VlanTags::Single(t) => TxVlan::single(tci(&t)),
            VlanTags::Double { outer, inner } => TxVlan::double(tci(&outer), tci(&inner)),
        };
        if self.len == 0 {
            self.offload = TagOffload::default();
        }
        self
    }

    /// What the NIC does with the tags.
    pub fn offload(&self) -> TagOffload {
        self.offload
    }

    /// What each mbuf sent asks the NIC to insert ([`TxVlan::NONE`] when the tags are written
    /// in software, or there are none).
    #[inline(always)]
    pub fn tx_vlan(&self) -> TxVlan {
        self.tx
    }

    /// Whether the NIC inserts the tags (the frames sent are untagged in memory).
    #[inline(always)]
    pub fn inserted_by_nic(&self) -> bool {
        !self.tx.is_none()
    }

    /// Octets of tags written in software into each frame sent: [`Self::len`], or 0 when the
    /// NIC inserts them.
    #[inline(always)]
    pub fn software_len(&self) -> usize {
        if self.inserted_by_nic() { 0 } else { self.len }
    }

    /// An 802.1Q tag `vid` with priority `pcp`, inside an 802.1ad tag `outer` (QinQ) if
    /// given: the system file's `vlan` and `qinq`.
    pub fn dot1q(
        vid: upfbench_net::VlanId,
        pcp: u8,
        outer: Option<(upfbench_net::VlanId, u8)>,
    ) -> Option<PortTags> {
        let inner = VlanRepr::customer(vid, pcp);
        PortTags::new(match outer {
            None => VlanTags::Single(inner),
            Some((id, pcp)) => VlanTags::Double {
                outer: VlanRepr {
                    kind: VlanKind::Service,
                    ..VlanRepr::customer(id, pcp)
                },
                inner,
            },
        })
    }

    /// The tags.
    pub fn tags(&self) -> VlanTags {
        self.tags
    }

    /// Octets the tags take in a frame (0, 4 or 8).
    #[inline(always)]
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether the port is untagged.
    #[inline(always)]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The tags as written on the wire.
    pub fn bytes(&self) -> &[u8] {
        &self.bytes[..self.len]
    }

    /// The outermost VID (0 untagged): what one-port mode tells the ports apart by first.
    pub fn outer_vid(&self) -> u16 {
        u16::from_be_bytes([self.bytes[2], self.bytes[3]]) & 0x0fff
    }

    /// Whether `frame` carries exactly this port's tags (TPIDs and VIDs; PCP and DEI may
    /// differ), followed by a non-tag EtherType. An untagged port matches untagged frames.
    #[inline]
    pub fn matches(&self, frame: &[u8]) -> bool {
        self.matches_from(0, frame)
    }

    /// Whether `frame` carries this port's tags from octet `first` of them on (the ones before
    /// it were stripped), followed by a non-tag EtherType.
    #[inline]
    fn matches_from(&self, first: usize, frame: &[u8]) -> bool {
        let left = self.len - first;
        let Some(h) = frame.get(TAGS_AT..TAGS_AT + left + 2) else {
            return false;
        };
        for at in (0..left).step_by(TAG_LEN) {
            let got = u32::from_be_bytes([h[at], h[at + 1], h[at + 2], h[at + 3]]);
            let b = &self.bytes[first + at..first + at + TAG_LEN];
            let want = u32::from_be_bytes([b[0], b[1], b[2], b[3]]);
            if (got ^ want) & MATCH_MASK != 0 {
                return false;
            }
        }
        let next = u16::from_be_bytes([h[left], h[left + 1]]);
        VlanKind::from_tpid(next).is_none()
    }

    /// Whether a frame received with `stripped` taken off by the NIC carries exactly this
    /// port's tags: the stripped ones its outermost (by VID), the rest in `frame`'s bytes (by
    /// TPID and VID), then a non-tag EtherType. Returns the octets of tags still in the frame,
    /// which the caller removes; `None` when the tags are not this port's.
    #[inline]
    pub fn match_received(&self, stripped: StrippedTags, frame: &[u8]) -> Option<usize> {
        let first = stripped.len() * TAG_LEN;
        if first > self.len {
            return None;
        }
        for (i, tci) in stripped.tcis().iter().enumerate() {
            let at = i * TAG_LEN + 2;
            let vid = u16::from_be_bytes([self.bytes[at], self.bytes[at + 1]]) & VID_MASK;
            if tci & VID_MASK != vid {
                return None;
            }
        }
        self.matches_from(first, frame).then_some(self.len - first)
    }

    /// Removes the tags from `frame` in place if they are this port's: moves the addresses
    /// forward over them and returns the offset at which the untagged frame starts (the tags'
    /// length); `None`, and `frame` untouched, when they are not ours.
    #[inline]
    pub fn strip_in_place(&self, frame: &mut [u8]) -> Option<usize> {
        if !self.matches(frame) {
            return None;
        }
        frame.copy_within(..TAGS_AT, self.len);
        Some(self.len)
    }

    /// Writes `untagged` (an Ethernet II frame) into `out` with the tags inserted; returns the
    /// tagged length, `None` when `out` is too short or `untagged` shorter than its header.
    pub fn tag_into(&self, untagged: &[u8], out: &mut [u8]) -> Option<usize> {
        if untagged.len() < ethernet::HEADER_LEN {
            return None;
        }
        let n = untagged.len() + self.len;
        let o = out.get_mut(..n)?;
        o[..TAGS_AT].copy_from_slice(&untagged[..TAGS_AT]);
        o[TAGS_AT..TAGS_AT + self.len].copy_from_slice(self.bytes());
        o[TAGS_AT + self.len..].copy_from_slice(&untagged[TAGS_AT..]);
        Some(n)
    }

    /// Tags in place a frame whose first [`len`](Self::len) bytes were just prepended (free
    /// headroom) in front of an untagged Ethernet II frame: the addresses move to the front and
    /// the tags follow them. False, and `frame` untouched, when it is too short.
    #[inline]
    pub fn tag_prepended(&self, frame: &mut [u8]) -> bool {
        if frame.len() < self.len + ethernet::HEADER_LEN {
            return false;
        }
        frame.copy_within(self.len..self.len + TAGS_AT, 0);
        frame[TAGS_AT..TAGS_AT + self.len].copy_from_slice(&self.bytes[..self.len]);
        true
    }

    /// `untagged` with the tags inserted, in a new buffer (for templates, at set-up time).
    pub fn tagged(&self, untagged: &[u8]) -> Vec<u8> {
        let mut out = vec![0u8; untagged.len() + self.len];
        match self.tag_into(untagged, &mut out) {
            Some(_) => out,
            None => untagged.to_vec(),
        }
    }
}

/// The tags of both ports, and whether they share one device (one-port mode).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct PortVlans {
    /// Each port's tags, by [`Side`].
    pub tags: [PortTags; 2],
    /// N3 and N6 on one device: a frame received on either is for the port whose tags it
    /// carries.
    pub one_port: bool,
}

impl PortVlans {
    /// Untagged ports on two devices.
    pub const UNTAGGED: PortVlans = PortVlans {
        tags: [PortTags::UNTAGGED; 2],
        one_port: false,
    };

    /// The tags of a system file's ports (`vlan`, `qinq`) and its one-port mode (`n6: {port:
    /// n3}`). Validation refused the tags that cannot be written; any left would be untagged.
    pub fn of_ports<P>(n3: &upfbench_config::Port<P>, n6: &upfbench_config::Port<P>) -> PortVlans {
        let tags = |p: &upfbench_config::Port<P>| PortTags::new(p.vlan_tags()).unwrap_or_default();
        PortVlans {
            tags: [tags(n3), tags(n6)],
            one_port: n6.shares_device(),
        }
    }

    /// Whether either port is tagged: the receive path then looks at every frame's tags.
    #[inline(always)]
    pub fn any(&self) -> bool {
        !self.tags[0].is_empty() || !self.tags[1].is_empty()
    }

    /// The port a frame received on `side`'s device is for: `side` when it carries `side`'s
    /// tags, the other port in one-port mode when it carries the other's, `None` (not ours:
    /// drop and count it) otherwise.
    #[inline]
    pub fn side_of(&self, side: Side, frame: &[u8]) -> Option<Side> {
        self.side_of_received(side, StrippedTags::NONE, frame)
            .map(|(s, _)| s)
    }

    /// [`Self::side_of`] for a frame received with `stripped` taken off by the NIC: the port
    /// it is for, and the octets of its tags still in `frame` (see
    /// [`PortTags::match_received`]).
    #[inline]
    pub fn side_of_received(
        &self,
        side: Side,
        stripped: StrippedTags,
        frame: &[u8],
    ) -> Option<(Side, usize)> {
        if let Some(n) = self.tags[side.index()].match_received(stripped, frame) {
            return Some((side, n));
        }
        let other = match side {
            Side::N3 => Side::N6,
            Side::N6 => Side::N3,
        };
        if !self.one_port {
            return None;
        }
        let n = self.tags[other.index()].match_received(stripped, frame)?;
        Some((other, n))
    }

    /// The same ports, with what each one's NIC does with its tags (by [`Side`]).
    pub fn with_offloads(mut self, offloads: [TagOffload; 2]) -> PortVlans {
        for side in Side::BOTH {
            let i = side.index();
            self.tags[i] = self.tags[i].with_offload(offloads[i]);
        }
        self
    }
}

/// Whether `frame`'s EtherType is a VLAN tag's (a tagged frame).
#[inline]
pub fn is_tagged(frame: &[u8]) -> bool {
    frame
        .get(TAGS_AT..TAGS_AT + 2)
        .is_some_and(|b| VlanKind::from_tpid(u16::from_be_bytes([b[0], b[1]])).is_some())
}

#[cfg(test)]
mod tests {
    use super::*;
    use upfbench_net::{MacAddr, TaggedEthernetRepr, VlanId};

    fn frame(tags: VlanTags, ethertype: u16, payload: &[u8]) -> Vec<u8> {
        let repr = TaggedEthernetRepr {
            source: MacAddr([2, 0, 0, 0, 0, 1]),
            destination: MacAddr([2, 0, 0, 0, 0, 2]),
            tags,
            ethertype,
        };
        let mut f = vec![0u8; repr.header_len() + payload.len()];
        repr.emit(&mut f).unwrap();
        f[repr.header_len()..].copy_from_slice(payload);
        f
    }

    fn vid(v: u16) -> VlanId {
        VlanId::new(v).unwrap()
    }

    #[test]
    fn tags_written_are_what_the_net_codec_reads() {
        let p = PortTags::dot1q(vid(13), 5, Some((vid(100), 1))).unwrap();
        assert_eq!(p.len(), 8);
        let untagged = frame(VlanTags::Untagged, 0x0800, &[0x45; 30]);
        let tagged = p.tagged(&untagged);
        assert_eq!(tagged.len(), untagged.len() + 8);
        let parsed = TaggedEthernetRepr::parse(&tagged).unwrap();
        assert_eq!(parsed.tags, p.tags());
        assert_eq!(parsed.ethertype, 0x0800);
        assert_eq!(&tagged[22..], &untagged[14..]);
        assert_eq!(&tagged[12..14], &[0x88, 0xa8]);
        assert_eq!(&tagged[14..16], &[0x20, 100], "PCP 1, VID 100");
        assert_eq!(&tagged[16..20], &[0x81, 0, 0xa0, 13], "PCP 5, VID 13");
        assert_eq!(p.outer_vid(), 100);
    }

    #[test]
    fn stripping_gives_back_the_untagged_frame() {
        let p = PortTags::dot1q(vid(16), 0, None).unwrap();
        let untagged = frame(VlanTags::Untagged, 0x86dd, &[0x60; 40]);
        let mut tagged = p.tagged(&untagged);
        // Another priority on the wire is still ours.
        tagged[14] |= 0xe0;
        let at = p.strip_in_place(&mut tagged).unwrap();
        assert_eq!(&tagged[at..], &untagged[..]);
    }

    #[test]
    fn tagging_in_place_writes_what_tagging_into_a_buffer_does() {
        for p in [
            PortTags::dot1q(vid(16), 3, None).unwrap(),
            PortTags::dot1q(vid(13), 5, Some((vid(100), 1))).unwrap(),
        ] {
            let untagged = frame(VlanTags::Untagged, 0x0800, &[0x45; 30]);
            let mut buf = vec![0xee; p.len()];
            buf.extend_from_slice(&untagged);
            assert!(p.tag_prepended(&mut buf));
            assert_eq!(buf, p.tagged(&untagged));
            let mut stripped = buf.clone();
            let at = p.strip_in_place(&mut stripped).unwrap();
            assert_eq!(&stripped[at..], &untagged[..]);
        }
        let p = PortTags::dot1q(vid(16), 0, None).unwrap();
        let mut short = [0u8; 17];
        assert!(!p.tag_prepended(&mut short));
        assert_eq!(short, [0u8; 17]);
    }

    #[test]
    fn other_vlans_untagged_frames_and_extra_tags_are_not_ours() {
        let p = PortTags::dot1q(vid(16), 0, None).unwrap();
        let other = frame(
            VlanTags::Single(VlanRepr::customer(vid(17), 0)),
            0x0800,
            &[0; 30],
        );
        let untagged = frame(VlanTags::Untagged, 0x0800, &[0; 30]);
        let qinq = frame(
            VlanTags::Double {
                outer: VlanRepr::customer(vid(16), 0),
                inner: VlanRepr::customer(vid(17), 0),
            },
            0x0800,
            &[0; 30],
        );
        for f in [&other, &untagged, &qinq] {
            let mut g = f.clone();
            assert!(!p.matches(f));
            assert_eq!(p.strip_in_place(&mut g), None);
            assert_eq!(&g, f, "left untouched");
        }
        assert!(PortTags::UNTAGGED.matches(&untagged));
        assert!(!PortTags::UNTAGGED.matches(&other));
        assert!(is_tagged(&other) && !is_tagged(&untagged));
        assert!(!p.matches(&untagged[..13]), "too short");
    }

    #[test]
    fn one_port_mode_tells_the_ports_apart_by_vlan() {
        let n3 = PortTags::dot1q(vid(13), 0, None).unwrap();
        let n6 = PortTags::dot1q(vid(16), 0, None).unwrap();
        let mut v = PortVlans {
            tags: [n3, n6],
            one_port: true,
        };
        let untagged = frame(VlanTags::Untagged, 0x0800, &[0; 30]);
        let to_n6 = n6.tagged(&untagged);
        let to_n3 = n3.tagged(&untagged);
        assert_eq!(v.side_of(Side::N3, &to_n6), Some(Side::N6));
        assert_eq!(v.side_of(Side::N3, &to_n3), Some(Side::N3));
        assert_eq!(v.side_of(Side::N6, &to_n3), Some(Side::N3));
        assert_eq!(v.side_of(Side::N3, &untagged), None);
        v.one_port = false;
        assert_eq!(v.side_of(Side::N3, &to_n6), None, "two devices: not ours");
        assert!(v.any() && !PortVlans::UNTAGGED.any());
    }

    #[test]
    fn tags_that_cannot_be_written_are_refused() {
        let bad = VlanRepr {
            kind: VlanKind::Customer,
            pcp: 0,
            dei: false,
            vid: 4095,
        };
        assert_eq!(PortTags::new(VlanTags::Single(bad)), None);
        let s = VlanRepr {
            kind: VlanKind::Service,
            ..VlanRepr::customer(vid(5), 0)
        };
        assert_eq!(
            PortTags::new(VlanTags::Double { outer: s, inner: s }),
            None,
            "an S-tag inside"
        );
    }

    #[test]
    fn tags_the_nic_stripped_are_matched_from_the_mbuf_and_the_rest_from_the_frame() {
        let qinq = PortTags::dot1q(vid(13), 5, Some((vid(100), 1))).unwrap();
        let dot1q = PortTags::dot1q(vid(16), 0, None).unwrap();
        let untagged = frame(VlanTags::Untagged, 0x0800, &[0x45; 30]);
        // One tag stripped (PCP and DEI in the TCI are not looked at): nothing left in the frame.
        assert_eq!(
            dot1q.match_received(StrippedTags::one(0xf010), &untagged),
            Some(0)
        );
        assert_eq!(dot1q.match_received(StrippedTags::one(17), &untagged), None);
        // Stripped, and a tag still in the frame: one more than the port has.
        let inner16 = PortTags::dot1q(vid(16), 0, None).unwrap().tagged(&untagged);
        assert_eq!(dot1q.match_received(StrippedTags::one(16), &inner16), None);
        // QinQ: both stripped; the outer stripped and the C-tag left (af_packet); none.
        assert_eq!(
            qinq.match_received(StrippedTags::two(100, 13), &untagged),
            Some(0)
        );
        assert_eq!(
            qinq.match_received(StrippedTags::two(13, 100), &untagged),
            None
        );
        let c_tag = PortTags::dot1q(vid(13), 0, None).unwrap().tagged(&untagged);
        assert_eq!(qinq.match_received(StrippedTags::one(100), &c_tag), Some(4));
        assert_eq!(qinq.match_received(StrippedTags::one(100), &untagged), None);
        assert_eq!(
            qinq.match_received(StrippedTags::NONE, &qinq.tagged(&untagged)),
            Some(8)
        );
        // The outer tag put back as a C-tag (TPID 0x8100) is not the port's S-tag.
        let as_c = PortTags::dot1q(vid(100), 1, None).unwrap().tagged(&c_tag);
        assert_eq!(qinq.match_received(StrippedTags::NONE, &as_c), None);
        // Two stripped on a port of one tag, or any on an untagged port: not ours.
        assert_eq!(
            dot1q.match_received(StrippedTags::two(16, 16), &untagged),
            None
        );
        let none = PortTags::UNTAGGED;
        assert_eq!(none.match_received(StrippedTags::one(16), &untagged), None);
        assert_eq!(none.match_received(StrippedTags::NONE, &untagged), Some(0));
        let v = PortVlans {
            tags: [qinq, dot1q],
            one_port: true,
        };
        assert_eq!(
            v.side_of_received(Side::N3, StrippedTags::one(16), &untagged),
            Some((Side::N6, 0))
        );
        assert_eq!(
            v.side_of_received(Side::N6, StrippedTags::one(100), &c_tag),
            Some((Side::N3, 4))
        );
    }

    #[test]
    fn an_offloaded_port_asks_the_nic_for_its_tags_and_writes_none() {
        let both = TagOffload {
            insert: true,
            strip: true,
        };
        let p = PortTags::dot1q(vid(13), 5, None).unwrap();
        assert_eq!((p.software_len(), p.inserted_by_nic()), (4, false));
        let o = p.with_offload(both);
        assert_eq!(
            (o.len(), o.software_len(), o.inserted_by_nic()),
            (4, 0, true)
        );
        assert_eq!(o.tx_vlan(), TxVlan::single(0xa00d), "PCP 5, VID 13");
        let q = PortTags::dot1q(vid(13), 0, Some((vid(100), 3)))
            .unwrap()
            .with_offload(both);
        assert_eq!(q.tx_vlan(), TxVlan::double(0x6064, 13));
        let strip_only = p.with_offload(TagOffload {
            insert: false,
            strip: true,
        });
        assert_eq!(strip_only.tx_vlan(), TxVlan::NONE);
        assert_eq!(strip_only.software_len(), 4);
        let none = PortTags::UNTAGGED.with_offload(both);
        assert_eq!(
            (none.tx_vlan(), none.offload()),
            (TxVlan::NONE, TagOffload::default())
        );
    }
}
