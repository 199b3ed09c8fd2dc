//! VLAN tags the port inserts or strips: what an mbuf asks a port to insert on transmit
//! ([`TxVlan`]) and what a port took off a received frame ([`StrippedTags`]). A tag's TCI is
//! its PCP (3 bits), DEI (1 bit) and VID (12 bits), in host order.

use crate::sys;

/// The tags a port inserts into a frame on transmit (`RTE_MBUF_F_TX_VLAN`, and
/// `RTE_MBUF_F_TX_QINQ` with the outer tag): the `ol_flags` bits and the TCIs written into
/// each mbuf sent ([`crate::Mbuf::set_tx_vlan`], [`crate::TemplatePool::with_tx_vlan`]). The
/// port must have been started with [`crate::Offloads::tx_vlan_insert`] (and
/// [`crate::Offloads::tx_qinq_insert`] for two tags).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct TxVlan {
    pub(crate) flags: u64,
    pub(crate) tci: u16,
    pub(crate) tci_outer: u16,
}

/// The transmit flags a [`TxVlan`] sets or clears.
pub(crate) const TX_VLAN_FLAGS: u64 = sys::RTE_MBUF_F_TX_VLAN | sys::RTE_MBUF_F_TX_QINQ;

impl TxVlan {
    /// No tag inserted.
    pub const NONE: TxVlan = TxVlan {
        flags: 0,
        tci: 0,
        tci_outer: 0,
    };

    /// One tag (802.1Q) of TCI `tci`.
    pub const fn single(tci: u16) -> TxVlan {
        TxVlan {
            flags: sys::RTE_MBUF_F_TX_VLAN,
            tci,
            tci_outer: 0,
        }
    }

    /// Two tags: `outer` (the port's outer TPID, 802.1ad by default) around `inner` (802.1Q).
    pub const fn double(outer: u16, inner: u16) -> TxVlan {
        TxVlan {
            flags: sys::RTE_MBUF_F_TX_VLAN | sys::RTE_MBUF_F_TX_QINQ,
            tci: inner,
            tci_outer: outer,
        }
    }

    /// Whether no tag is inserted.
    pub const fn is_none(&self) -> bool {
        self.flags == 0
    }

    /// The TCIs inserted, outermost first.
    pub fn tcis(&self) -> Vec<u16> {
        match (self.flags & sys::RTE_MBUF_F_TX_QINQ != 0, self.is_none()) {
            (_, true) => Vec::new(),
            (false, false) => vec![self.tci],
            (true, false) => vec![self.tci_outer, self.tci],
        }
    }
}

/// The tags a port took off a received frame into the mbuf (`RTE_MBUF_F_RX_VLAN_STRIPPED`:
/// one, in `vlan_tci`; `RTE_MBUF_F_RX_QINQ_STRIPPED`: two, the outer in `vlan_tci_outer`),
/// outermost first. Their TPIDs are not kept.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct StrippedTags {
    count: u8,
    tcis: [u16; 2],
}

impl StrippedTags {
    /// Nothing stripped: the frame's tags, if any, are in its bytes.
    pub const NONE: StrippedTags = StrippedTags {
        count: 0,
        tcis: [0; 2],
    };

    /// One tag stripped (the outermost).
    pub const fn one(tci: u16) -> StrippedTags {
        StrippedTags {
            count: 1,
            tcis: [tci, 0],
        }
    }

    /// Two tags stripped, `outer` around `inner`.
    pub const fn two(outer: u16, inner: u16) -> StrippedTags {
        StrippedTags {
            count: 2,
            tcis: [outer, inner],
        }
    }

    /// From an mbuf's `ol_flags` and TCIs.
    #[inline(always)]
    pub(crate) fn from_mbuf(flags: u64, tci: u16, tci_outer: u16) -> StrippedTags {
        if flags & sys::RTE_MBUF_F_RX_QINQ_STRIPPED != 0 {
            StrippedTags::two(tci_outer, tci)
        } else if flags & sys::RTE_MBUF_F_RX_VLAN_STRIPPED != 0 {
            StrippedTags::one(tci)
        } else {
            StrippedTags::NONE
        }
    }

    /// How many tags were stripped (0, 1 or 2).
    #[inline(always)]
    pub fn len(&self) -> usize {
        usize::from(self.count)
    }

    /// Whether none was.
    #[inline(always)]
    pub fn is_empty(&self) -> bool {
        self.count == 0
    }

    /// Their TCIs, outermost first.
    #[inline(always)]
    pub fn tcis(&self) -> &[u16] {
        &self.tcis[..usize::from(self.count)]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stripped_tags_follow_the_receive_flags() {
        let vlan = sys::RTE_MBUF_F_RX_VLAN | sys::RTE_MBUF_F_RX_VLAN_STRIPPED;
        assert_eq!(StrippedTags::from_mbuf(0, 13, 100), StrippedTags::NONE);
        // RX_VLAN alone: the tag is still in the frame (af_packet put it back).
        let put_back = StrippedTags::from_mbuf(sys::RTE_MBUF_F_RX_VLAN, 13, 0);
        assert!(put_back.is_empty());
        assert_eq!(StrippedTags::from_mbuf(vlan, 0xa00d, 0).tcis(), [0xa00d]);
        let qinq = vlan | sys::RTE_MBUF_F_RX_QINQ | sys::RTE_MBUF_F_RX_QINQ_STRIPPED;
        let two = StrippedTags::from_mbuf(qinq, 13, 100);
        assert_eq!((two.len(), two.tcis()), (2, &[100u16, 13][..]));
    }

    #[test]
    fn transmit_tags_set_the_flags_dpdk_reads() {
        assert!(TxVlan::NONE.is_none() && TxVlan::NONE.tcis().is_empty());
        let one = TxVlan::single(0xa00d);
        assert_eq!(one.flags, sys::RTE_MBUF_F_TX_VLAN);
        assert_eq!(one.tcis(), [0xa00d]);
        let two = TxVlan::double(100, 13);
        assert_eq!(two.flags & TX_VLAN_FLAGS, TX_VLAN_FLAGS);
        assert_eq!((two.tci, two.tci_outer), (13, 100));
        assert_eq!(two.tcis(), [100, 13]);
    }
}
