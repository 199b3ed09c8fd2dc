//! The reflector's forwarding rules as its workers read them: an immutable snapshot looked up
//! with no lock, replaced whole when the PFCP side changed something.
//!
//! The control thread mirrors the PFCP UPF side's rules table from its change events
//! ([`RulesMirror::apply`]) and, after each burst of requests, hands a new [`ForwardingTable`]
//! to every worker ([`TablePublisher`]); a worker looks for a new table once per loop
//! ([`TableReader::refresh`]: one plain load of a counter that changes only on publication when
//! there is none; the channel's own `try_recv` costs a full fence, which was a quarter of the
//! reflector's own time per packet over memif) and lets go of the old one. Lookups are one
//! probe into a flat map per packet, behind one shard pointer.
//!
//! A table is built whole before it is published and never changes after: a worker sees the
//! old table or the new one, never a mix. Building one costs the same at any size: the maps are
//! sharded and a table shares every shard a change did not touch with the one before
//! (`ShardedMap`). The publisher keeps the newest table, so that a worker letting go of an
//! old one never frees it (freeing every shard a burst replaced is the control thread's work,
//! [`TablePublisher::retire`], once the workers took the new one).

use std::collections::HashMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::{Receiver, Sender, TryRecvError, channel};

use upfbench_pfcp::node::{RuleChange, RulesTable, SessionRules};
use upfbench_pfcp::{Qfi, Teid};

use super::sharded_map::ShardedMap;

/// What an uplink G-PDU to a known TEID gets.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct UplinkEntry {
    /// The FAR forwards (else the packet is dropped and counted).
    pub forward: bool,
    /// The QFI the PDR matches, if any.
    pub qfi: Option<Qfi>,
}

/// What a downlink packet to a known UE gets.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct DownlinkEntry {
    /// The FAR forwards into a tunnel (else the packet is dropped and counted).
    pub forward: bool,
    /// The tunnel's TEID.
    pub teid: Teid,
    /// The gNB's address (big-endian integer).
    pub gnb: u32,
    /// The QFI for the DL PDU Session Container (from the session's QER); none: no container.
    pub qfi: Option<Qfi>,
    /// The impairment `far_update_delay` holds the rule's update back: its packets are dropped
    /// and counted (the old path ended, the new one has not started) until its release tick
    /// ([`ForwardingTable::release_at`]); it carries the new tunnel.
    pub held: bool,
}

impl DownlinkEntry {
    /// The gNB it tunnels to, when it forwards or is held (so that the new gNB is resolved
    /// before its release).
    fn tunnel_gnb(&self) -> Option<u32> {
        (self.forward || self.held).then_some(self.gnb)
    }
}

/// One immutable snapshot of the rules.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ForwardingTable {
    /// Uplink by TEID (its number: the map's keys are 32-bit).
    pub uplink: ShardedMap<UplinkEntry>,
    /// Downlink by UE address.
    pub downlink: ShardedMap<DownlinkEntry>,
    /// Sessions it was built from.
    pub sessions: usize,
    /// The gNBs the forwarding downlink rules tunnel to (big-endian integers), each once, in
    /// ascending order: the N3 next hops the reflector resolves before traffic needs them.
    pub gnbs: Arc<[u32]>,
    /// The held downlink rules' release ticks by UE, in ascending order of UE: read only for
    /// a packet that meets a held rule, so that the entries stay small.
    pub releases: Arc<[(u32, u64)]>,
}

impl ForwardingTable {
    /// The TSC tick from which the held rule of `ue` forwards (never, if it has none).
    pub fn release_at(&self, ue: u32) -> u64 {
        self.releases
            .binary_search_by_key(&ue, |r| r.0)
            .map_or(u64::MAX, |i| self.releases[i].1)
    }

    /// A table with no rule.
    pub fn empty() -> ForwardingTable {
        ForwardingTable {
            uplink: ShardedMap::default(),
            downlink: ShardedMap::default(),
            sessions: 0,
            gnbs: Arc::new([]),
            releases: Arc::new([]),
        }
    }
}

/// The control thread's copy of the rules, kept in step with the PFCP side's changes: the
/// next table itself, changed in place (each change costs the same at any size).
#[derive(Debug)]
pub struct RulesMirror {
    table: ForwardingTable,
    /// Forwarding (or held) downlink entries per gNB: the table's gNB list changes only when
    /// one of these appears or reaches zero.
    tunnels_to: HashMap<u32, usize>,
    gnbs_changed: bool,
    /// Release ticks of the held downlink rules, by UE (a few: the UEs in a handover).
    releases: HashMap<u32, u64>,
    releases_changed: bool,
    dirty: bool,
}

impl Default for RulesMirror {
    fn default() -> Self {
        RulesMirror {
            table: ForwardingTable::empty(),
            tunnels_to: HashMap::new(),
            gnbs_changed: false,
            releases: HashMap::new(),
            releases_changed: false,
            dirty: false,
        }
    }
}

impl RulesMirror {
    /// A mirror of `table` as it stands.
    pub fn from_table(table: &RulesTable) -> RulesMirror {
        let mut m = RulesMirror::default();
        for s in table.sessions() {
            m.add(s);
        }
        m.dirty = true;
        m
    }

    /// Applies one change.
    pub fn apply(&mut self, change: &RuleChange) {
        match change {
            RuleChange::Installed(s) => self.add(s),
            RuleChange::Modified { previous, current } => {
                self.remove(previous);
                self.add(current);
            }
            RuleChange::Removed(s) => self.remove(s),
            // No rule changes: the control thread sends the End Marker.
            RuleChange::EndMarker { .. } => return,
        }
        self.dirty = true;
    }

    fn add(&mut self, s: &SessionRules) {
        self.table.sessions += 1;
        for u in &s.uplink {
            let entry = UplinkEntry {
                forward: u.forward && u.remove_outer_header,
                qfi: u.qfi,
            };
            self.table.uplink.insert(u.teid.get(), entry);
        }
        for d in &s.downlink {
            let entry = match d.tunnel {
                Some(t) if d.forward => DownlinkEntry {
                    forward: true,
                    teid: t.teid,
                    gnb: u32::from(t.address),
                    qfi: d.qfi,
                    held: false,
                },
                _ => DownlinkEntry::default(),
            };
            let replaced = self.table.downlink.insert(u32::from(d.ue_address), entry);
            self.count_tunnel(replaced, Some(entry));
        }
    }

    fn remove(&mut self, s: &SessionRules) {
        self.table.sessions = self.table.sessions.saturating_sub(1);
        for u in &s.uplink {
            self.table.uplink.remove(u.teid.get());
        }
        for d in &s.downlink {
            let ue = u32::from(d.ue_address);
            let removed = self.table.downlink.remove(ue);
            self.count_tunnel(removed, None);
            self.releases_changed |= self.releases.remove(&ue).is_some();
        }
    }

    /// Holds the downlink rule of `ue` (a big-endian address) back: its packets are dropped
    /// until TSC tick `release_at` (the workers then forward them) or
    /// [`release_downlink`](Self::release_downlink). Returns the rule held back.
    pub(crate) fn hold_downlink(&mut self, ue: u32, release_at: u64) -> Option<DownlinkEntry> {
        let held = *self.table.downlink.get(ue)?;
        let entry = DownlinkEntry {
            forward: false,
            held: true,
            ..held
        };
        self.table.downlink.insert(ue, entry);
        self.count_tunnel(Some(held), Some(entry));
        self.releases.insert(ue, release_at);
        self.releases_changed = true;
        self.dirty = true;
        Some(held)
    }

    /// Puts `entry` in place for `ue` if its rule is still the one held back; true if it did.
    pub fn release_downlink(&mut self, ue: u32, entry: DownlinkEntry) -> bool {
        match self.table.downlink.get(ue).copied() {
            Some(e) if e.held => {
                self.table.downlink.insert(ue, entry);
                self.count_tunnel(Some(e), Some(entry));
                self.releases.remove(&ue);
                self.releases_changed = true;
                self.dirty = true;
                true
            }
            _ => false,
        }
    }

    /// Keeps the tunnels per gNB counted as a downlink entry goes from `before` to `after`.
    fn count_tunnel(&mut self, before: Option<DownlinkEntry>, after: Option<DownlinkEntry>) {
        if let Some(gnb) = before.and_then(|d| d.tunnel_gnb())
            && let Some(n) = self.tunnels_to.get_mut(&gnb)
        {
            *n -= 1;
            if *n == 0 {
                self.tunnels_to.remove(&gnb);
                self.gnbs_changed = true;
            }
        }
        if let Some(gnb) = after.and_then(|d| d.tunnel_gnb()) {
            let n = self.tunnels_to.entry(gnb).or_insert(0);
            *n += 1;
            self.gnbs_changed |= *n == 1;
        }
    }

    /// Sessions mirrored.
    pub fn sessions(&self) -> usize {
        self.table.sessions
    }

    /// A new snapshot if anything changed since the last one: it shares every shard that did
    /// not change with the one before.
    pub fn snapshot(&mut self) -> Option<ForwardingTable> {
        if !self.dirty {
            return None;
        }
        self.dirty = false;
        if std::mem::take(&mut self.gnbs_changed) {
            let mut gnbs: Vec<u32> = self.tunnels_to.keys().copied().collect();
            gnbs.sort_unstable();
            self.table.gnbs = gnbs.into();
        }
        if std::mem::take(&mut self.releases_changed) {
            let mut releases: Vec<(u32, u64)> =
                self.releases.iter().map(|(&u, &t)| (u, t)).collect();
            releases.sort_unstable();
            self.table.releases = releases.into();
        }
        Some(self.table.clone())
    }
}

/// Hands new snapshots to every worker.
#[derive(Debug)]
pub struct TablePublisher {
    workers: Vec<Sender<Arc<ForwardingTable>>>,
    /// Publications so far, counted after each one's sends.
    published: Arc<AtomicU64>,
    /// The newest table, and the ones before it not yet retired: the last reference to each
    /// is dropped here, not in a worker.
    held: Vec<Arc<ForwardingTable>>,
}

/// A worker's current snapshot.
#[derive(Debug)]
pub struct TableReader {
    updates: Receiver<Arc<ForwardingTable>>,
    current: Arc<ForwardingTable>,
    published: Arc<AtomicU64>,
    /// The publications counted when the channel was last read.
    seen: u64,
}

/// A publisher and one reader per worker, all starting from `initial`.
pub fn table_channels(
    workers: usize,
    initial: ForwardingTable,
) -> (TablePublisher, Vec<TableReader>) {
    let initial = Arc::new(initial);
    let held = Arc::clone(&initial);
    let published = Arc::new(AtomicU64::new(0));
    let (senders, readers) = (0..workers)
        .map(|_| {
            let (tx, rx) = channel();
            (
                tx,
                TableReader {
                    updates: rx,
                    current: Arc::clone(&initial),
                    published: Arc::clone(&published),
                    seen: 0,
                },
            )
        })
        .unzip();
    (
        TablePublisher {
            workers: senders,
            published,
            held: vec![held],
        },
        readers,
    )
}

impl TablePublisher {
    /// Gives `table` to every worker; returns how many still listen.
    pub fn publish(&mut self, table: ForwardingTable) -> usize {
        let table = Arc::new(table);
        let listening = self
            .workers
            .iter()
            .filter(|w| w.send(Arc::clone(&table)).is_ok())
            .count();
        // After the sends: a reader that sees the new count finds the table in its channel.
        self.published.fetch_add(1, Ordering::Release);
        self.held.push(table);
        listening
    }

    /// Drops the tables before the newest: call it once every worker took the newest (after a
    /// grace period), so that what they replaced is freed here rather than in a worker.
    pub fn retire(&mut self) {
        let newest = self.held.len().saturating_sub(1);
        self.held.drain(..newest);
    }
}

impl TableReader {
    /// Takes the newest snapshot published since the last call, if any (the ones in between
    /// are dropped unread); true when the table changed.
    #[inline]
    pub fn refresh(&mut self) -> bool {
        let published = self.published.load(Ordering::Acquire);
        if published == self.seen {
            return false;
        }
        self.seen = published;
        let mut changed = false;
        loop {
            match self.updates.try_recv() {
                Ok(t) => {
                    self.current = t;
                    changed = true;
                }
                Err(TryRecvError::Empty | TryRecvError::Disconnected) => return changed,
            }
        }
    }

    /// The current snapshot.
    #[inline(always)]
    pub fn table(&self) -> &ForwardingTable {
        &self.current
    }
}

#[cfg(test)]
mod tests;
