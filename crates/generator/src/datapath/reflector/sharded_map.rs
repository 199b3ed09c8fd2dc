//! The forwarding table's maps: a [`FlatMap`] cut into shards by key, each shared (`Arc`) by
//! every table that has it unchanged, so that a rule change costs the same at any table size.
//!
//! The control thread changes its own copy ([`ShardedMap::insert`], [`ShardedMap::remove`]):
//! the first change to a shard after a publication copies that shard alone
//! (`Arc::make_mut`), later ones change the copy in place. Publishing is a clone of the
//! shard pointers ([`Clone`]): O(shards), one reference count each. A worker's lookup reads the
//! shard pointer, then probes the shard as it would probe one map.
//!
//! The shards stay between [`MIN_PER_SHARD`] and [`MAX_PER_SHARD`] entries on average: past
//! either bound the map is cut again into twice or half as many (a rebuild of every entry,
//! O(n) once per doubling: O(1) amortised per change). With 1,000,000 keys there are 1,024
//! shards of about 977 entries, and a change copies about 16 KB (uplink) or 40 KB (downlink).
//! Why so large: a copy is one sequential `memcpy`, while each shard costs a publication a
//! reference count in an allocation of its own, a cache miss once the table is large (with
//! 256 entries a shard, 4,096 shards at 1,000,000 keys, the publications' reference counts
//! took more of the control thread than the copies).

use std::sync::Arc;

use super::flat_map::FlatMap;

/// Past this many entries per shard on average, the map gets twice the shards.
pub const MAX_PER_SHARD: usize = 1024;
/// Below this many entries per shard on average, the map gets half the shards (never fewer
/// than one).
pub const MIN_PER_SHARD: usize = 128;

/// See the module documentation.
#[derive(Debug, Clone)]
pub struct ShardedMap<V: Copy> {
    /// `1 << bits` shards.
    shards: Box<[Arc<FlatMap<V>>]>,
    bits: u32,
    len: usize,
}

impl<V: Copy + Default> Default for ShardedMap<V> {
    fn default() -> Self {
        ShardedMap::with_shard_bits(0)
    }
}

impl<V: Copy + Default> ShardedMap<V> {
    fn with_shard_bits(bits: u32) -> ShardedMap<V> {
        let empty = Arc::new(FlatMap::with_capacity(0));
        ShardedMap {
            shards: (0..1usize << bits).map(|_| Arc::clone(&empty)).collect(),
            bits,
            len: 0,
        }
    }

    /// A map of `entries`; for a repeated key, the last value wins.
    pub fn build(entries: impl IntoIterator<Item = (u32, V)>) -> ShardedMap<V> {
        let mut map = ShardedMap::default();
        for (k, v) in entries {
            map.insert(k, v);
        }
        map
    }

    /// Sets `key` to `value`; returns the value it had.
    pub fn insert(&mut self, key: u32, value: V) -> Option<V> {
        let i = self.shard_of(key);
        let previous = Arc::make_mut(&mut self.shards[i]).insert(key, value);
        if previous.is_none() {
            self.len += 1;
            if self.len > self.shards.len() * MAX_PER_SHARD {
                self.reshard(self.bits + 1);
            }
        }
        previous
    }

    /// Removes `key`; returns its value.
    pub fn remove(&mut self, key: u32) -> Option<V> {
        let i = self.shard_of(key);
        // Not there: no copy of the shard.
        self.shards[i].get(key)?;
        let value = Arc::make_mut(&mut self.shards[i]).remove(key);
        self.len -= 1;
        if self.bits > 0 && self.len < self.shards.len() * MIN_PER_SHARD {
            self.reshard(self.bits - 1);
        }
        value
    }

    fn reshard(&mut self, bits: u32) {
        let per_shard = (self.len >> bits).max(1);
        let mut shards: Vec<FlatMap<V>> = (0..1usize << bits)
            .map(|_| FlatMap::with_capacity(per_shard + per_shard / 4))
            .collect();
        for (k, v) in self.shards.iter().flat_map(|s| s.iter()) {
            shards[shard_index(k, bits)].insert(k, v);
        }
        self.shards = shards.into_iter().map(Arc::new).collect();
        self.bits = bits;
    }
}

/// Which of `1 << bits` shards holds `key`: the top bits of a multiplicative hash with another
/// constant than the shards' own (whose top bits choose the slot within a shard), so that the
/// keys of one shard spread over its slots.
#[inline(always)]
fn shard_index(key: u32, bits: u32) -> usize {
    ((u64::from(key.wrapping_mul(0x85eb_ca6b)) << bits) >> 32) as usize
}

impl<V: Copy> ShardedMap<V> {
    #[inline(always)]
    fn shard_of(&self, key: u32) -> usize {
        shard_index(key, self.bits)
    }

    /// The value of `key`.
    #[inline(always)]
    pub fn get(&self, key: u32) -> Option<&V> {
        self.shards[self.shard_of(key)].get(key)
    }

    /// Entries.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether there is no entry.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Shards.
    pub fn shards(&self) -> usize {
        self.shards.len()
    }

    /// Every entry, shard by shard.
    pub fn iter(&self) -> impl Iterator<Item = (u32, V)> + '_ {
        self.shards.iter().flat_map(|s| s.iter())
    }

    /// Bytes of the slots and shard pointers (what a full copy would take).
    pub fn bytes(&self) -> usize {
        let slot = size_of::<(u32, V)>();
        self.shards.iter().map(|s| s.slots() * slot).sum::<usize>()
            + self.shards.len() * size_of::<Arc<FlatMap<V>>>()
    }

    /// Shards this map shares with `other` (the same allocation): what a publication did not
    /// copy.
    pub fn shared_with(&self, other: &ShardedMap<V>) -> usize {
        self.shards
            .iter()
            .zip(other.shards.iter())
            .filter(|(a, b)| Arc::ptr_eq(a, b))
            .count()
    }
}

/// Two maps are equal when they hold the same entries, however they are cut.
impl<V: Copy + PartialEq> PartialEq for ShardedMap<V> {
    fn eq(&self, other: &Self) -> bool {
        self.len == other.len && self.iter().all(|(k, v)| other.get(k) == Some(&v))
    }
}

impl<V: Copy + Eq> Eq for ShardedMap<V> {}

#[cfg(test)]
mod tests;
