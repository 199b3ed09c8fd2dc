//! The downlink rules of IPv6 UEs, by their prefix: a /64 per UE as TS 23.501 §5.8.2.2.2
//! assigns, an address per UE (/128), or a shorter prefix delegated to one.
//!
//! A packet's destination is looked up longest prefix first in one hash map per prefix length
//! in use (a run uses one): a mask and one probe per length, no allocation, no lock. A UE's
//! rule carries its flows when it has several PDRs or a QER to enforce, so that a lookup
//! finds both at once.
//!
//! The table is part of the [`ForwardingTable`](super::rules::ForwardingTable) snapshot and,
//! as its flow maps are, is copied whole when a session with an IPv6 UE changes: cheap for the
//! thousands of sessions a test of IPv6 traffic holds, not meant for a million (the IPv4
//! UEs' map is sharded for that).

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

use upfbench_pfcp::plan::UeIpv6Prefix;

use super::flows::Flows;
use super::rules::DownlinkEntry;

/// What a downlink packet to an IPv6 UE gets.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PrefixRule {
    /// As an IPv4 UE's entry ([`DownlinkEntry::FLOWS`]: see `flows`).
    pub entry: DownlinkEntry,
    /// The UE's flows, by precedence, when `entry` says so.
    pub flows: Option<Flows>,
}

/// A hasher for the masked 128-bit keys: the halves folded, then one multiplication
/// (Fibonacci hashing, as the flow maps' [`KeyHasher`](super::flows::KeyHasher)).
#[derive(Debug, Default, Clone, Copy)]
pub struct PrefixHasher(u64);

impl Hasher for PrefixHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0 << 8 | u64::from(b)).wrapping_mul(0x9e37_79b9_7f4a_7c15);
        }
    }
    fn write_u128(&mut self, k: u128) {
        let folded = (k >> 64) as u64 ^ k as u64;
        self.0 = folded.wrapping_mul(0x9e37_79b9_7f4a_7c15);
    }
}

type ByPrefix = HashMap<u128, PrefixRule, BuildHasherDefault<PrefixHasher>>;

/// See the module documentation.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PrefixTable {
    /// A map per prefix length in use, the longest first.
    by_len: Vec<(u8, ByPrefix)>,
    /// Rules that carry flows.
    with_flows: usize,
}

/// The mask of a prefix of `len` bits.
#[inline(always)]
fn mask(len: u8) -> u128 {
    u128::MAX
        .checked_shl(128 - u32::from(len.min(128)))
        .unwrap_or(0)
}

impl PrefixTable {
    /// The rule of the UE whose prefix holds `address` (a big-endian integer), the longest
    /// prefix first.
    #[inline]
    pub fn get(&self, address: u128) -> Option<&PrefixRule> {
        self.by_len
            .iter()
            .find_map(|(len, map)| map.get(&(address & mask(*len))))
    }

    /// Puts `rule` in place for `prefix`; returns the one it replaced.
    pub fn insert(&mut self, prefix: UeIpv6Prefix, rule: PrefixRule) -> Option<PrefixRule> {
        let len = prefix.len.min(128);
        let at = match self.by_len.iter().position(|(l, _)| *l <= len) {
            Some(i) if self.by_len[i].0 == len => i,
            Some(i) => {
                self.by_len.insert(i, (len, ByPrefix::default()));
                i
            }
            None => {
                self.by_len.push((len, ByPrefix::default()));
                self.by_len.len() - 1
            }
        };
        self.with_flows += usize::from(rule.flows.is_some());
        let key = prefix.prefix.to_bits() & mask(len);
        let old = self.by_len[at].1.insert(key, rule);
        self.with_flows -= usize::from(old.as_ref().is_some_and(|r| r.flows.is_some()));
        old
    }

    /// Removes the rule of `prefix`; returns it.
    pub fn remove(&mut self, prefix: UeIpv6Prefix) -> Option<PrefixRule> {
        let len = prefix.len.min(128);
        let at = self.by_len.iter().position(|(l, _)| *l == len)?;
        let old = self.by_len[at]
            .1
            .remove(&(prefix.prefix.to_bits() & mask(len)))?;
        if self.by_len[at].1.is_empty() {
            self.by_len.remove(at);
        }
        self.with_flows -= usize::from(old.flows.is_some());
        Some(old)
    }

    /// Rules held.
    pub fn len(&self) -> usize {
        self.by_len.iter().map(|(_, m)| m.len()).sum()
    }

    /// Whether it holds no rule.
    pub fn is_empty(&self) -> bool {
        self.by_len.is_empty()
    }

    /// Whether a rule carries flows (their QERs' buckets need the clock read every loop).
    pub fn has_flows(&self) -> bool {
        self.with_flows != 0
    }
}

#[cfg(test)]
mod tests {
    use std::net::Ipv6Addr;

    use super::*;
    use upfbench_net::Teid;

    fn prefix(text: &str, len: u8) -> UeIpv6Prefix {
        UeIpv6Prefix {
            prefix: text.parse().unwrap(),
            len,
        }
    }

    fn rule(teid: u32) -> PrefixRule {
        PrefixRule {
            entry: DownlinkEntry {
                forward: true,
                teid: Teid(teid),
                gnb: 1,
                qfi: None,
                held: false,
            },
            flows: None,
        }
    }

    fn at(text: &str) -> u128 {
        text.parse::<Ipv6Addr>().unwrap().to_bits()
    }

    fn teid(t: &PrefixTable, address: &str) -> Option<u32> {
        t.get(at(address)).map(|r| r.entry.teid.0)
    }

    #[test]
    fn any_address_in_a_ues_prefix_finds_its_rule_and_no_other_does() {
        let mut t = PrefixTable::default();
        for i in 0..4u16 {
            let p = Ipv6Addr::new(0x2001, 0xdb8, 0x45, i, 0, 0, 0, 0);
            t.insert(
                UeIpv6Prefix { prefix: p, len: 64 },
                rule(100 + u32::from(i)),
            );
        }
        assert_eq!(teid(&t, "2001:db8:45::2"), Some(100));
        assert_eq!(teid(&t, "2001:db8:45:3::2"), Some(103));
        assert_eq!(teid(&t, "2001:db8:45:3:ffff:ffff:ffff:ffff"), Some(103));
        assert_eq!(teid(&t, "2001:db8:45:4::2"), None);
        assert_eq!(teid(&t, "2001:db8:46::2"), None);
        assert_eq!(t.len(), 4);
    }

    #[test]
    fn the_longest_prefix_wins_and_removal_leaves_the_others() {
        let mut t = PrefixTable::default();
        t.insert(prefix("2001:db8:45::", 48), rule(48));
        t.insert(prefix("2001:db8:45:7::", 64), rule(64));
        t.insert(prefix("2001:db8:45:7::2", 128), rule(128));
        assert_eq!(teid(&t, "2001:db8:45:7::2"), Some(128));
        assert_eq!(teid(&t, "2001:db8:45:7::3"), Some(64));
        assert_eq!(teid(&t, "2001:db8:45:8::3"), Some(48));
        assert_eq!(t.remove(prefix("2001:db8:45:7::2", 128)), Some(rule(128)));
        assert_eq!(teid(&t, "2001:db8:45:7::2"), Some(64));
        assert_eq!(t.remove(prefix("2001:db8:45:7::", 64)), Some(rule(64)));
        assert_eq!(t.remove(prefix("2001:db8:45:7::", 64)), None);
        assert_eq!(teid(&t, "2001:db8:45:7::2"), Some(48));
        t.remove(prefix("2001:db8:45::", 48));
        assert!(t.is_empty() && t.get(at("2001:db8:45::2")).is_none());
    }

    #[test]
    fn host_bits_of_a_prefix_given_are_ignored_and_flows_are_counted() {
        let mut t = PrefixTable::default();
        let with_flows = PrefixRule {
            entry: DownlinkEntry::FLOWS,
            flows: Some(Vec::new().into()),
        };
        assert_eq!(t.insert(prefix("2001:db8:45:1::2", 64), with_flows), None);
        assert!(t.has_flows());
        assert_eq!(teid(&t, "2001:db8:45:1::9"), Some(0));
        let replaced = t.insert(prefix("2001:db8:45:1::", 64), rule(7));
        assert!(replaced.is_some_and(|r| r.entry.flows()));
        assert!(!t.has_flows());
        assert_eq!(teid(&t, "2001:db8:45:1::9"), Some(7));
    }
}
