//! A read-only hash map from `u32` keys (TEIDs, IPv4 addresses) to small values, built once and
//! then only looked up: open addressing with linear probing in one array of (key, value) slots,
//! at most half full, a multiplicative hash. A hit costs one or two cache lines; there is no
//! deletion, no growth and no allocation after [`FlatMap::build`].

/// See the module documentation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FlatMap<V: Copy> {
    /// `slots.len()` is a power of two; a slot is empty when `used` says so.
    slots: Box<[(u32, V)]>,
    used: Box<[u64]>,
    shift: u32,
    len: usize,
}

impl<V: Copy + Default> FlatMap<V> {
    /// A map of `entries`; for a repeated key, the last value wins.
    pub fn build(entries: impl ExactSizeIterator<Item = (u32, V)>) -> FlatMap<V> {
        let capacity = (entries.len() * 2).next_power_of_two().max(16);
        let mut map = FlatMap {
            slots: vec![(0, V::default()); capacity].into_boxed_slice(),
            used: vec![0; capacity.div_ceil(64)].into_boxed_slice(),
            shift: 32 - capacity.trailing_zeros(),
            len: 0,
        };
        for (k, v) in entries {
            map.insert(k, v);
        }
        map
    }

    fn insert(&mut self, key: u32, value: V) {
        let mask = self.slots.len() - 1;
        let mut i = self.home(key);
        loop {
            if !self.is_used(i) {
                self.used[i / 64] |= 1 << (i % 64);
                self.slots[i] = (key, value);
                self.len += 1;
                return;
            }
            if self.slots[i].0 == key {
                self.slots[i].1 = value;
                return;
            }
            i = (i + 1) & mask;
        }
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
    pub fn get(&self, key: u32) -> Option<&V> {
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

    /// Entries.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether there is no entry.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;

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

    proptest::proptest! {
        #[test]
        fn agrees_with_a_hash_map(entries in proptest::collection::vec((0u32..5000, proptest::prelude::any::<u16>()), 0..2000), probes in proptest::collection::vec(0u32..6000, 100)) {
            let m = FlatMap::build(entries.iter().copied());
            let h: HashMap<u32, u16> = entries.iter().copied().collect();
            proptest::prop_assert_eq!(m.len(), h.len());
            for k in probes.iter().chain(h.keys()) {
                proptest::prop_assert_eq!(m.get(*k), h.get(k));
            }
        }
    }
}
