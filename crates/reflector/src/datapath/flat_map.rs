//! A hash map from `u32` keys (TEIDs, IPv4 addresses) to small values, made for lookups:
//! open addressing with linear probing in one array of (key, value) slots, at most half full, a
//! multiplicative hash. A hit costs one or two cache lines.
//!
//! The workers only look up; the control thread changes a private copy ([`FlatMap::insert`],
//! [`FlatMap::remove`]: backward-shift deletion, so there are no tombstones and a lookup never
//! walks past deleted slots) and publishes it whole (see [`super::sharded_map`]).

/// See the module documentation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct FlatMap<V: Copy> {
    /// `slots.len()` is a power of two; a slot is empty when `used` says so.
    slots: Box<[(u32, V)]>,
    used: Box<[u64]>,
    shift: u32,
    len: usize,
}

/// The least number of slots.
const MIN_SLOTS: usize = 16;

impl<V: Copy + Default> FlatMap<V> {
    /// A map with room for `entries` before it grows.
    pub(crate) fn with_capacity(entries: usize) -> FlatMap<V> {
        let slots = (entries * 2).next_power_of_two().max(MIN_SLOTS);
        FlatMap {
            slots: vec![(0, V::default()); slots].into_boxed_slice(),
            used: vec![0; slots.div_ceil(64)].into_boxed_slice(),
            shift: 32 - slots.trailing_zeros(),
            len: 0,
        }
    }

    #[cfg(test)]
    /// A map of `entries`; for a repeated key, the last value wins.
    pub(crate) fn build(entries: impl ExactSizeIterator<Item = (u32, V)>) -> FlatMap<V> {
        let mut map = FlatMap::with_capacity(entries.len());
        for (k, v) in entries {
            map.insert(k, v);
        }
        map
    }

    /// Sets `key` to `value`; returns the value it had.
    pub(crate) fn insert(&mut self, key: u32, value: V) -> Option<V> {
        if (self.len + 1) * 2 > self.slots.len() {
            self.grow();
        }
        let mask = self.slots.len() - 1;
        let mut i = self.home(key);
        loop {
            if !self.is_used(i) {
                self.used[i / 64] |= 1 << (i % 64);
                self.slots[i] = (key, value);
                self.len += 1;
                return None;
            }
            if self.slots[i].0 == key {
                return Some(std::mem::replace(&mut self.slots[i].1, value));
            }
            i = (i + 1) & mask;
        }
    }

    fn grow(&mut self) {
        let mut bigger = FlatMap::with_capacity(self.slots.len());
        for (k, v) in self.iter() {
            bigger.insert(k, v);
        }
        *self = bigger;
    }
}

impl<V: Copy> FlatMap<V> {
    #[inline(always)]
    fn home(&self, key: u32) -> usize {
        (key.wrapping_mul(0x9e37_79b1) >> self.shift) as usize
    }

    #[inline(always)]
    fn is_used(&self, i: usize) -> bool {
        self.used[i / 64] & (1 << (i % 64)) != 0
    }

    /// The value of `key`.
    #[inline(always)]
    pub(crate) fn get(&self, key: u32) -> Option<&V> {
        let mask = self.slots.len() - 1;
        let mut i = self.home(key);
        while self.is_used(i) {
            let (k, ref v) = self.slots[i];
            if k == key {
                return Some(v);
            }
            i = (i + 1) & mask;
        }
        None
    }

    /// Removes `key`; returns its value.
    pub(crate) fn remove(&mut self, key: u32) -> Option<V> {
        let mask = self.slots.len() - 1;
        let mut hole = self.home(key);
        loop {
            if !self.is_used(hole) {
                return None;
            }
            if self.slots[hole].0 == key {
                break;
            }
            hole = (hole + 1) & mask;
        }
        let value = self.slots[hole].1;
        // Backward shift: every entry after the hole in its run that may move back to it does,
        // so that a run never has a gap before an entry whose home is before the gap.
        let mut next = (hole + 1) & mask;
        while self.is_used(next) {
            let home = self.home(self.slots[next].0);
            // `next` may fill the hole when its home is not in (hole, next], cyclically.
            if (next.wrapping_sub(home) & mask) >= (next.wrapping_sub(hole) & mask) {
                self.slots[hole] = self.slots[next];
                hole = next;
            }
            next = (next + 1) & mask;
        }
        self.used[hole / 64] &= !(1 << (hole % 64));
        self.len -= 1;
        Some(value)
    }

    /// The entries, in slot order.
    pub(crate) fn iter(&self) -> impl Iterator<Item = (u32, V)> + '_ {
        self.slots
            .iter()
            .enumerate()
            .filter(|&(i, _)| self.is_used(i))
            .map(|(_, &kv)| kv)
    }

    #[cfg(test)]
    /// Entries.
    pub(crate) fn len(&self) -> usize {
        self.len
    }

    #[cfg(test)]
    /// Slots (twice the entries or more): the map's size in memory is this times a slot's.
    pub(crate) fn slots(&self) -> usize {
        self.slots.len()
    }
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;

    use proptest::prelude::*;

    use super::*;

    #[test]
    fn finds_what_it_holds_and_nothing_else() {
        let m = FlatMap::build([(1u32, 10u32), (17, 170), (0, 5), (u32::MAX, 7)].into_iter());
        assert_eq!(m.len(), 4);
        assert_eq!(m.get(1), Some(&10));
        assert_eq!(m.get(0), Some(&5));
        assert_eq!(m.get(u32::MAX), Some(&7));
        assert_eq!(m.get(2), None);
        assert!(FlatMap::<u32>::build(std::iter::empty()).get(0).is_none());
    }

    #[test]
    fn grows_past_its_first_capacity_and_stays_at_most_half_full() {
        let mut m = FlatMap::with_capacity(0);
        for k in 0..10_000u32 {
            assert_eq!(m.insert(k * 7, k), None);
            assert!(m.len() * 2 <= m.slots(), "{} in {}", m.len(), m.slots());
        }
        assert_eq!(m.slots(), 32_768);
        assert!((0..10_000u32).all(|k| m.get(k * 7) == Some(&k)));
    }

    #[test]
    fn removing_inside_a_run_keeps_every_later_entry_reachable() {
        // Keys with one home: a single run that wraps around the end of the slots.
        let mut m = FlatMap::with_capacity(8);
        let same_home: Vec<u32> = (0..u32::MAX)
            .filter(|&k| m.home(k) == m.slots() - 2)
            .take(5)
            .collect();
        for &k in &same_home {
            m.insert(k, k);
        }
        assert_eq!(m.remove(same_home[1]), Some(same_home[1]));
        assert_eq!(m.remove(same_home[1]), None);
        for &k in same_home.iter().filter(|&&k| k != same_home[1]) {
            assert_eq!(m.get(k), Some(&k));
        }
        assert_eq!(m.len(), 4);
    }

    #[derive(Debug, Clone)]
    enum Op {
        Insert(u32, u16),
        Remove(u32),
    }

    fn op() -> impl Strategy<Value = Op> {
        // Few keys: many collisions, replacements and removals of present keys.
        prop_oneof![
            (0u32..300, any::<u16>()).prop_map(|(k, v)| Op::Insert(k, v)),
            (0u32..300).prop_map(Op::Remove),
        ]
    }

    proptest! {
        #[test]
        fn agrees_with_a_hash_map(entries in proptest::collection::vec((0u32..5000, any::<u16>()), 0..2000), probes in proptest::collection::vec(0u32..6000, 100)) {
            let m = FlatMap::build(entries.iter().copied());
            let h: HashMap<u32, u16> = entries.iter().copied().collect();
            prop_assert_eq!(m.len(), h.len());
            for k in probes.iter().chain(h.keys()) {
                prop_assert_eq!(m.get(*k), h.get(k));
            }
        }

        #[test]
        fn inserts_and_removals_agree_with_a_hash_map(ops in proptest::collection::vec(op(), 0..3000)) {
            let mut m = FlatMap::with_capacity(0);
            let mut h = HashMap::new();
            for op in ops {
                match op {
                    Op::Insert(k, v) => prop_assert_eq!(m.insert(k, v), h.insert(k, v)),
                    Op::Remove(k) => prop_assert_eq!(m.remove(k), h.remove(&k)),
                }
            }
            prop_assert_eq!(m.len(), h.len());
            for k in 0..300u32 {
                prop_assert_eq!(m.get(k), h.get(&k));
            }
            let mut listed: Vec<_> = m.iter().collect();
            listed.sort_unstable();
            let mut want: Vec<_> = h.into_iter().collect();
            want.sort_unstable();
            prop_assert_eq!(listed, want);
        }
    }
}
