//! The UEs of a run: UE `i` gets its address and its TEIDs by arithmetic, so that a million UEs
//! cost no table and the receive path maps an address back to its UE with a subtraction.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

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

/// The UEs' IPv6 prefixes: UE `i`'s is `first + i · 2^(128 − len)` (its `/len`), its address
/// the prefix with interface id `::2` (for /128 UEs: the prefix itself, `first` being the pool's
/// `::2`), so that the receive side maps an address back to its UE by arithmetic too.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct UeV6 {
    /// UE 0's prefix (its address for /128).
    first: u128,
    /// The prefix length.
    len: u8,
    /// The distance between two UEs' prefixes.
    stride: u128,
    /// The interface id of each UE's address in its prefix.
    iid: u128,
}

impl UeV6 {
    /// Prefixes of `len` bits from `first` (a /64 each, or /128 addresses), the address `::2` in
    /// each (none for /128).
    pub fn new(first: Ipv6Addr, len: u8) -> UeV6 {
        let len = len.min(128);
        UeV6 {
            first: u128::from(first),
            len,
            stride: 1u128.checked_shl(128 - u32::from(len)).unwrap_or(0),
            iid: if len < 128 { 2 } else { 0 },
        }
    }

    /// UE `i`'s prefix.
    pub fn prefix(&self, i: u32) -> Ipv6Addr {
        Ipv6Addr::from(
            self.first
                .wrapping_add(u128::from(i).wrapping_mul(self.stride)),
        )
    }

    /// The prefix length.
    pub fn prefix_len(&self) -> u8 {
        self.len
    }

    /// UE `i`'s address.
    pub fn address(&self, i: u32) -> Ipv6Addr {
        Ipv6Addr::from(u128::from(self.prefix(i)) | self.iid)
    }

    /// The UE `0..count` whose address is `address`, if any.
    pub fn index_of(&self, address: Ipv6Addr, count: u32) -> Option<u32> {
        let off = u128::from(address).wrapping_sub(self.first | self.iid);
        if self.stride == 0 || off % self.stride != 0 {
            return None;
        }
        u32::try_from(off / self.stride).ok().filter(|&i| i < count)
    }
}

/// The UEs: addresses `first_address + i` for `i` in `0..count`, of the pool's family.
///
/// The datapath is IPv4 (validation refuses IPv6 UEs for now): it reads UE addresses as 32-bit
/// numbers through [`UeTable::address_v4`] and [`UeTable::index_of`], from the first address
/// precomputed as a number, so that the family-generic address costs the hot path nothing.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct UeTable {
    /// Number of UEs (sessions).
    pub count: u32,
    /// UE 0's address.
    first_address: IpAddr,
    /// UE 0's IPv4 address as a number (0 for IPv6 UEs, which the IPv4 datapath never sees).
    first_v4: u32,
    /// Uplink TEIDs (the UPF's N3 tunnel endpoints).
    pub uplink_teid: UplinkTeids,
    /// Downlink TEIDs (ours, at the gNB side).
    pub downlink_teid: TeidSequence,
    /// The UEs' IPv6 prefixes (pdn_type ipv6 or ipv4v6), none for IPv4 UEs.
    pub v6: Option<UeV6>,
}

impl UeTable {
    /// `count` UEs from `first_address`, with their TEIDs.
    pub fn new(
        count: u32,
        first_address: IpAddr,
        uplink_teid: UplinkTeids,
        downlink_teid: TeidSequence,
    ) -> UeTable {
        let first_v4 = match first_address {
            IpAddr::V4(a) => u32::from(a),
            IpAddr::V6(_) => 0,
        };
        UeTable {
            count,
            first_address,
            first_v4,
            uplink_teid,
            downlink_teid,
            v6: None,
        }
    }

    /// The table with the UEs' IPv6 prefixes too (IPv6 or dual-stack UEs).
    pub fn with_v6(mut self, v6: UeV6) -> UeTable {
        self.v6 = Some(v6);
        self
    }

    /// UE 0's address.
    pub fn first_address(&self) -> IpAddr {
        self.first_address
    }

    /// UE `i`'s address: its IPv4 one if it has one, else its IPv6 one.
    pub fn address(&self, i: u32) -> IpAddr {
        match (self.first_address, self.v6) {
            (IpAddr::V4(_), _) => IpAddr::V4(self.address_v4(i)),
            (IpAddr::V6(_), Some(v6)) => IpAddr::V6(v6.address(i)),
            (IpAddr::V6(a), None) => {
                IpAddr::V6(Ipv6Addr::from(u128::from(a).wrapping_add(u128::from(i))))
            }
        }
    }

    /// UE `i`'s IPv6 address, if the UEs have IPv6.
    pub fn address_v6(&self, i: u32) -> Option<Ipv6Addr> {
        self.v6.map(|v6| v6.address(i))
    }

    /// UE `i`'s IPv4 address: the datapath's (an IPv4 table's only).
    #[inline(always)]
    pub fn address_v4(&self, i: u32) -> Ipv4Addr {
        Ipv4Addr::from(self.first_v4.wrapping_add(i))
    }

    /// How far IPv4 address `address` is from UE 0's (wrapping): UE `i`'s is `i`, which the
    /// receive side checks against a stream's UEs (the churn's come after the table's).
    #[inline(always)]
    pub fn offset_of(&self, address: u32) -> u32 {
        address.wrapping_sub(self.first_v4)
    }

    /// The UE whose IPv4 address is `address` (as a big-endian integer), if any.
    #[inline(always)]
    pub fn index_of(&self, address: u32) -> Option<u32> {
        let i = address.wrapping_sub(self.first_v4);
        (i < self.count).then_some(i)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const DOWNLINK: TeidSequence = TeidSequence {
        first: Teid(2),
        step: 2,
    };

    #[test]
    fn addresses_and_indices_are_inverse() {
        let first = Ipv4Addr::new(10, 45, 0, 2);
        let t = UeTable::new(300, first.into(), UplinkTeids::ChosenByUpf, DOWNLINK);
        assert_eq!(t.address(0), IpAddr::V4(first));
        assert_eq!(t.address_v4(299), Ipv4Addr::new(10, 45, 1, 45));
        for i in [0, 1, 253, 254, 299] {
            assert_eq!(t.address(i), IpAddr::V4(t.address_v4(i)));
            assert_eq!(t.index_of(u32::from(t.address_v4(i))), Some(i));
        }
        assert_eq!(t.index_of(u32::from(Ipv4Addr::new(10, 45, 0, 1))), None);
        assert_eq!(t.index_of(u32::from(t.address_v4(300))), None);
    }

    #[test]
    fn an_ipv6_table_counts_up_from_its_first_address() {
        let first: Ipv6Addr = "2001:db8::ffff:fffe".parse().unwrap();
        let t = UeTable::new(3, first.into(), UplinkTeids::ChosenByUpf, DOWNLINK);
        assert_eq!(t.first_address(), IpAddr::V6(first));
        assert_eq!(
            t.address(2),
            "2001:db8::1:0:0".parse::<IpAddr>().unwrap(),
            "the carry crosses 32-bit groups"
        );
        // No IPv4 UE matches an IPv6 table's IPv4 view beyond its count.
        assert_eq!(t.index_of(u32::from(Ipv4Addr::new(10, 45, 0, 2))), None);
    }

    #[test]
    fn ipv6_prefixes_map_back_to_their_ues() {
        let v6 = UeV6::new("2001:db8:45::".parse().unwrap(), 64);
        let t = UeTable::new(
            1000,
            v6.address(0).into(),
            UplinkTeids::ChosenByUpf,
            DOWNLINK,
        )
        .with_v6(v6);
        assert_eq!(t.address(0).to_string(), "2001:db8:45::2");
        assert_eq!(t.address(999).to_string(), "2001:db8:45:3e7::2");
        assert_eq!(v6.prefix(1).to_string(), "2001:db8:45:1::");
        for i in [0, 1, 500, 999] {
            assert_eq!(v6.index_of(v6.address(i), 1000), Some(i));
        }
        assert_eq!(v6.index_of(v6.address(1000), 1000), None, "past the count");
        assert_eq!(v6.index_of("2001:db8:45:1::3".parse().unwrap(), 1000), None);
        // /128 UEs from the pool's ::2.
        let a = UeV6::new("2001:db8:45::2".parse().unwrap(), 128);
        assert_eq!(a.address(254).to_string(), "2001:db8:45::100");
        assert_eq!(a.index_of(a.address(254), 255), Some(254));
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
