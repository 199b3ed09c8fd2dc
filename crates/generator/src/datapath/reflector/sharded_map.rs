//! The forwarding table's maps: a [`FlatMap`] cut into shards by key, the shards gathered in
//! pages, every level shared (`Arc`) by every table that has it unchanged, so that a rule
//! change and a publication cost the same at any table size.
//!
//! The control thread changes its own copy ([`ShardedMap::insert`], [`ShardedMap::remove`]):
//! the first change after a publication copies the page list and the changed shard's page
//! (pointers, a few dozen) and the shard itself (`Arc::make_mut` at each level); later changes
//! copy only what they touch first. Publishing is a clone of the map ([`Clone`]): one reference
//! count. A worker's lookup reads the page pointer and the shard pointer (both in a few KB that
//! stay in its cache), then probes the shard as it would probe one map.
//!
//! The shards stay between [`MIN_PER_SHARD`] and [`MAX_PER_SHARD`] entries on average: past
//! either bound the map is cut again into twice or half as many (a rebuild of every entry,
//! O(n) once per doubling: O(1) amortised per change). With 1,000,000 keys there are 1,024
//! shards of about 977 entries in 32 pages of 32, and a change copies 16 KB (uplink) or 40 KB
//! (downlink) with 64 pointers. Why two levels: with the shard pointers in one list, every
//! publication took a reference count in each of 2,048 shards, a cache miss each once the
//! table is large: 115 us a change at 1,000,000 sessions against 4 us at 1,000
//! (`benches/reflector_rules.rs`).

use std::sync::Arc;

use super::flat_map::FlatMap;

/// Past this many entries per shard on average, the map gets twice the shards.
pub const MAX_PER_SHARD: usize = 1024;
/// Below this many entries per shard on average, the map gets half the shards (never fewer
/// than one).
pub const MIN_PER_SHARD: usize = 128;

type Shard<V> = Arc<FlatMap<V>>;

/// A page of `1 << page_bits` shards.
#[derive(Debug, Clone)]
struct Page<V: Copy> {
    shards: Box<[Shard<V>]>,
}

/// See the module documentation.
#[derive(Debug, Clone)]
pub struct ShardedMap<V: Copy> {
    /// `1 << (bits - page_bits)` pages.
    pages: Arc<Vec<Arc<Page<V>>>>,
    /// `1 << bits` shards in all.
    bits: u32,
    page_bits: u32,
    len: usize,
}

impl<V: Copy + Default> Default for ShardedMap<V> {
    fn default() -> Self {
        ShardedMap::of_shards((0..1).map(|_| FlatMap::with_capacity(0)), 0)
    }
}

impl<V: Copy + Default> ShardedMap<V> {
    /// A map of `1 << bits` shards, in order.
    fn of_shards(shards: impl Iterator<Item = FlatMap<V>>, bits: u32) -> ShardedMap<V> {
        let page_bits = bits.div_ceil(2);
        let mut shards = shards.map(Arc::new);
        let pages = (0..1usize << (bits - page_bits))
            .map(|_| {
                Arc::new(Page {
                    shards: shards.by_ref().take(1 << page_bits).collect(),
                })
            })
            .collect();
        ShardedMap {
            pages: Arc::new(pages),
            bits,
            page_bits,
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

    /// The shard of `key`, to change: every level shared with a published map is copied
    /// first.
    fn shard_mut(&mut self, key: u32) -> &mut FlatMap<V> {
        let (page, shard) = self.place(key);
        let pages = Arc::make_mut(&mut self.pages);
        let page = Arc::make_mut(&mut pages[page]);
        Arc::make_mut(&mut page.shards[shard])
    }

    /// Sets `key` to `value`; returns the value it had.
    pub fn insert(&mut self, key: u32, value: V) -> Option<V> {
        let previous = self.shard_mut(key).insert(key, value);
        if previous.is_none() {
            self.len += 1;
            if self.len > self.shards() * MAX_PER_SHARD {
                self.reshard(self.bits + 1);
            }
        }
        previous
    }

    /// Removes `key`; returns its value.
    pub fn remove(&mut self, key: u32) -> Option<V> {
        // Not there: nothing copied.
        self.get(key)?;
        let value = self.shard_mut(key).remove(key);
        self.len -= 1;
        if self.bits > 0 && self.len < self.shards() * MIN_PER_SHARD {
            self.reshard(self.bits - 1);
        }
        value
    }

    fn reshard(&mut self, bits: u32) {
        let per_shard = (self.len >> bits).max(1);
        let mut shards: Vec<FlatMap<V>> = (0..1usize << bits)
            .map(|_| FlatMap::with_capacity(per_shard + per_shard / 4))
            .collect();
        for (k, v) in self.iter() {
            shards[shard_index(k, bits)].insert(k, v);
        }
        let len = self.len;
        *self = ShardedMap::of_shards(shards.into_iter(), bits);
        self.len = len;
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
    /// The page of `key` and its shard there.
    #[inline(always)]
    fn place(&self, key: u32) -> (usize, usize) {
        let i = shard_index(key, self.bits);
        (i >> self.page_bits, i & ((1 << self.page_bits) - 1))
    }

    fn all_shards(&self) -> impl Iterator<Item = &Shard<V>> + '_ {
        self.pages.iter().flat_map(|p| p.shards.iter())
    }

    /// The value of `key`.
    #[inline(always)]
    pub fn get(&self, key: u32) -> Option<&V> {
        let (page, shard) = self.place(key);
        self.pages[page].shards[shard].get(key)
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
        1 << self.bits
    }

    /// Every entry, shard by shard.
    pub fn iter(&self) -> impl Iterator<Item = (u32, V)> + '_ {
        self.all_shards().flat_map(|s| s.iter())
    }

    /// Shards this map shares with `other` (the same allocation): what a publication did not
    /// copy.
    pub fn shared_with(&self, other: &ShardedMap<V>) -> usize {
        self.all_shards()
            .zip(other.all_shards())
            .filter(|(a, b)| Arc::ptr_eq(a, b))
            .count()
    }

    /// Pages this map shares with `other` (the same allocation).
    pub fn pages_shared_with(&self, other: &ShardedMap<V>) -> usize {
        self.pages
            .iter()
            .zip(other.pages.iter())
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
