//! The forwarding table's maps: a [`FlatMap`] cut into shards by key, the shards the leaves
//! of a tree of fanout 32, every node shared (`Arc`) by every table that has it unchanged, so
//! that a rule change and a publication cost about the same at any table size.
//!
//! The control thread changes its own copy ([`ShardedMap::insert`], [`ShardedMap::remove`]):
//! the first change after a publication copies the nodes on the way to the changed shard (32
//! pointers each, a reference count taken in each child) and the shard itself
//! (`Arc::make_mut` at each level); later changes copy only what they touch first. Publishing
//! is a clone of the map ([`Clone`]): one reference count. A worker's lookup follows one
//! pointer a level (a few dozen KB of them in all, which stay in its cache), then probes the
//! shard as it would probe one map.
//!
//! The shards stay between [`MIN_PER_SHARD`] and [`MAX_PER_SHARD`] entries on average: past
//! either bound the map is cut again into twice or half as many (a rebuild of every entry,
//! O(n) once per doubling: O(1) amortised per change). With 1,000,000 keys there are 8,192
//! shards of about 122 entries under 3 levels (8 × 32 × 32), and a change copies 2 KB (uplink)
//! or 5 KB (downlink) and 72 pointers. What each choice cost at 1,000 / 100,000 / 1,000,000
//! sessions a round of `benches/reflector_rules.rs` (an install, a removal, a publication):
//! the shard pointers in one list, 4.2 / 20.6 / 115 us (a reference count in each of 2,048
//! shards a publication); in pages of sqrt(shards) shards of up to 1,024 entries, 2.4 / 10.2
//! / 13.9 us (each change copied a 40 KB shard); the same with shards of up to 128, 0.9 / 3.2 /
//! 11.5 us (each change took 192 reference counts, in pages of 128 and a list of 64: 45 % of
//! the reflector's PFCP thread in a 1,000,000 climb).

use std::sync::Arc;

use super::flat_map::FlatMap;

/// Past this many entries per shard on average, the map gets twice the shards.
pub(crate) const MAX_PER_SHARD: usize = 128;
/// Below this many entries per shard on average, the map gets half the shards (never fewer
/// than one).
pub(crate) const MIN_PER_SHARD: usize = 16;
/// Bits of the shard index a level of the tree takes (its fanout is `1 << LEVEL_BITS`; the
/// root's may be less).
const LEVEL_BITS: u32 = 5;

type Shard<V> = Arc<FlatMap<V>>;

/// A node of the tree: a shard, or the nodes of the next level.
#[derive(Debug, Clone)]
enum Node<V: Copy> {
    Shard(Shard<V>),
    Inner(Arc<Vec<Node<V>>>),
}

/// See the module documentation.
#[derive(Debug, Clone)]
pub struct ShardedMap<V: Copy> {
    /// Always [`Node::Inner`].
    root: Node<V>,
    /// `1 << bits` shards in all.
    bits: u32,
    len: usize,
}

/// Levels of inner nodes over `1 << bits` shards (at least one).
fn levels(bits: u32) -> u32 {
    bits.div_ceil(LEVEL_BITS).max(1)
}

/// Bits of the shard index the root takes.
fn root_bits(bits: u32) -> u32 {
    bits - LEVEL_BITS * (levels(bits) - 1)
}

impl<V: Copy + Default> Default for ShardedMap<V> {
    fn default() -> Self {
        ShardedMap::of_shards((0..1).map(|_| FlatMap::with_capacity(0)), 0)
    }
}

impl<V: Copy + Default> ShardedMap<V> {
    /// A map of `1 << bits` shards, in order.
    fn of_shards(shards: impl Iterator<Item = FlatMap<V>>, bits: u32) -> ShardedMap<V> {
        let mut level: Vec<Node<V>> = shards.map(|s| Node::Shard(Arc::new(s))).collect();
        let top = levels(bits);
        for d in 0..top {
            let take = if d + 1 == top {
                root_bits(bits)
            } else {
                LEVEL_BITS
            };
            let mut nodes = level.into_iter();
            let mut above = Vec::new();
            loop {
                let group: Vec<Node<V>> = nodes.by_ref().take(1 << take).collect();
                if group.is_empty() {
                    break;
                }
                above.push(Node::Inner(Arc::new(group)));
            }
            level = above;
        }
        ShardedMap {
            root: level.pop().expect("one root"),
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

    /// The shard of `key`, to change: every node shared with a published map is copied first.
    fn shard_mut(&mut self, key: u32) -> &mut FlatMap<V> {
        let i = shard_index(key, self.bits);
        let mut shift = self.bits;
        let mut take = root_bits(self.bits);
        let mut node = &mut self.root;
        loop {
            match node {
                Node::Inner(children) => {
                    shift -= take;
                    let c = (i >> shift) & ((1 << take) - 1);
                    node = &mut Arc::make_mut(children)[c];
                    take = LEVEL_BITS;
                }
                Node::Shard(shard) => return Arc::make_mut(shard),
            }
        }
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
    fn all_shards(&self) -> Vec<&Shard<V>> {
        fn walk<'a, V: Copy>(n: &'a Node<V>, out: &mut Vec<&'a Shard<V>>) {
            match n {
                Node::Shard(s) => out.push(s),
                Node::Inner(children) => children.iter().for_each(|c| walk(c, out)),
            }
        }
        let mut out = Vec::with_capacity(self.shards());
        walk(&self.root, &mut out);
        out
    }

    /// The value of `key`.
    #[inline(always)]
    pub fn get(&self, key: u32) -> Option<&V> {
        let i = shard_index(key, self.bits);
        let mut shift = self.bits;
        let mut take = root_bits(self.bits);
        let mut node = &self.root;
        loop {
            match node {
                Node::Inner(children) => {
                    shift -= take;
                    node = &children[(i >> shift) & ((1 << take) - 1)];
                    take = LEVEL_BITS;
                }
                Node::Shard(shard) => return shard.get(key),
            }
        }
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
        self.all_shards().into_iter().flat_map(|s| s.iter())
    }

    /// Shards this map shares with `other` (the same allocation): what a publication did not
    /// copy.
    pub fn shared_with(&self, other: &ShardedMap<V>) -> usize {
        self.all_shards()
            .into_iter()
            .zip(other.all_shards())
            .filter(|(a, b)| Arc::ptr_eq(a, b))
            .count()
    }

    /// Inner nodes (the root's children and below) this map shares with `other`.
    pub fn nodes_shared_with(&self, other: &ShardedMap<V>) -> usize {
        fn inner<V: Copy>(n: &Node<V>) -> usize {
            match n {
                Node::Inner(children) => 1 + children.iter().map(inner).sum::<usize>(),
                Node::Shard(_) => 0,
            }
        }
        fn walk<V: Copy>(a: &Node<V>, b: &Node<V>) -> usize {
            match (a, b) {
                (Node::Inner(x), Node::Inner(y)) if Arc::ptr_eq(x, y) => inner(a),
                (Node::Inner(x), Node::Inner(y)) => {
                    x.iter().zip(y.iter()).map(|(p, q)| walk(p, q)).sum()
                }
                _ => 0,
            }
        }
        match (&self.root, &other.root) {
            (Node::Inner(x), Node::Inner(y)) if self.bits == other.bits => {
                x.iter().zip(y.iter()).map(|(p, q)| walk(p, q)).sum()
            }
            _ => 0,
        }
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
