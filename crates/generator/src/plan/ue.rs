//! The UEs of a run: UE `i` gets its address and its TEIDs by arithmetic, so that a million UEs
//! cost no table and the receive path maps an address back to its UE with a subtraction.

use std::net::Ipv4Addr;

use upfbench_net::Teid;

/// TEIDs allocated as `first + i * step` for UE `i` (validated not to wrap).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TeidSequence {
    /// The first UE's TEID.
    pub first: Teid,
    /// The distance between consecutive UEs' TEIDs (at least 1).
    pub step: u32,
}

impl TeidSequence {
    /// UE `i`'s TEID.
    #[inline(always)]
    pub const fn get(&self, i: u32) -> Teid {
        Teid(self.first.get().wrapping_add(i.wrapping_mul(self.step)))
    }

    /// The last TEID of `count` UEs, if none wraps past 2^32 - 1.
    pub fn last(&self, count: u32) -> Option<Teid> {
        let n = count.checked_sub(1)?;
        n.checked_mul(self.step)?
            .checked_add(self.first.get())
            .map(Teid)
    }
}

/// Who picks a UE's uplink TEID.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum UplinkTeids {
    /// The tester, by arithmetic (the default: no CHOOSE flag).
    Sequence(TeidSequence),
    /// The UPF (CH=1); read back from each session's Created PDR.
    ChosenByUpf,
}

/// The UEs: addresses `first_address + i` for `i` in `0..count`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct UeTable {
    /// Number of UEs (sessions).
    pub count: u32,
    /// UE 0's address.
    pub first_address: Ipv4Addr,
    /// Uplink TEIDs (the UPF's N3 tunnel endpoints).
    pub uplink_teid: UplinkTeids,
    /// Downlink TEIDs (ours, at the gNB side).
    pub downlink_teid: TeidSequence,
}

impl UeTable {
    /// UE `i`'s address.
    #[inline(always)]
    pub fn address(&self, i: u32) -> Ipv4Addr {
        Ipv4Addr::from(u32::from(self.first_address).wrapping_add(i))
    }

    /// The UE whose address is `address` (as a big-endian integer), if any.
    #[inline(always)]
    pub fn index_of(&self, address: u32) -> Option<u32> {
        let i = address.wrapping_sub(u32::from(self.first_address));
        (i < self.count).then_some(i)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn addresses_and_indices_are_inverse() {
        let t = UeTable {
            count: 300,
            first_address: Ipv4Addr::new(10, 45, 0, 2),
            uplink_teid: UplinkTeids::ChosenByUpf,
            downlink_teid: TeidSequence {
                first: Teid(2),
                step: 2,
            },
        };
        assert_eq!(t.address(0), Ipv4Addr::new(10, 45, 0, 2));
        assert_eq!(t.address(299), Ipv4Addr::new(10, 45, 1, 45));
        for i in [0, 1, 253, 254, 299] {
            assert_eq!(t.index_of(u32::from(t.address(i))), Some(i));
        }
        assert_eq!(t.index_of(u32::from(Ipv4Addr::new(10, 45, 0, 1))), None);
        assert_eq!(t.index_of(u32::from(t.address(300))), None);
    }

    #[test]
    fn teid_sequences_know_when_they_wrap() {
        let s = TeidSequence {
            first: Teid(1),
            step: 2,
        };
        assert_eq!((s.get(0), s.get(1), s.get(9)), (Teid(1), Teid(3), Teid(19)));
        assert_eq!(s.last(10), Some(Teid(19)));
        assert_eq!(s.last(0), None);
        assert_eq!(
            TeidSequence {
                first: Teid(u32::MAX - 3),
                step: 2
            }
            .last(3),
            None
        );
        assert_eq!(
            TeidSequence {
                first: Teid(u32::MAX - 4),
                step: 2
            }
            .last(3),
            Some(Teid(u32::MAX))
        );
    }
}
