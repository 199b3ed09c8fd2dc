//! The reflector's forwarding rules as its workers read them: an immutable snapshot looked up
//! with no lock, replaced whole when the PFCP side changed something.
//!
//! The control thread mirrors the PFCP UPF side's rules table from its change events
//! ([`RulesMirror::apply`]) and, at most once per publication period, builds a new
//! [`ForwardingTable`] and hands it to every worker ([`TablePublisher`]); a worker looks for a
//! new table once per loop ([`TableReader::refresh`]: one plain load of a counter that changes
//! only on publication when there is none; the channel's own `try_recv` costs a full fence,
//! which was a quarter of the reflector's own time per packet over memif) and drops the old one. Lookups are one probe into a flat map per packet.
//!
//! A table is built whole before it is published and never changes after: a worker sees the
//! old table or the new one, never a mix. The last worker to let go of a table frees it.

use std::collections::{BTreeSet, HashMap};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::{Receiver, Sender, TryRecvError, channel};

use upfbench_pfcp::node::{RuleChange, RulesTable, SessionRules};
use upfbench_pfcp::{Qfi, Teid};

use super::flat_map::FlatMap;

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

/// One immutable snapshot of the rules.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ForwardingTable {
    /// Uplink by TEID (its number: the map's keys are 32-bit).
    pub uplink: FlatMap<UplinkEntry>,
    /// Downlink by UE address.
    pub downlink: FlatMap<DownlinkEntry>,
    /// Sessions it was built from.
    pub sessions: usize,
    /// The gNBs the forwarding downlink rules tunnel to (big-endian integers), each once, in
    /// ascending order: the N3 next hops the reflector resolves before traffic needs them.
    pub gnbs: Box<[u32]>,
    /// The held downlink rules' release ticks by UE, in ascending order of UE: read only for
    /// a packet that meets a held rule, so that the entries stay small.
    pub releases: Box<[(u32, u64)]>,
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
            uplink: FlatMap::build(std::iter::empty()),
            downlink: FlatMap::build(std::iter::empty()),
            sessions: 0,
            gnbs: Box::new([]),
            releases: Box::new([]),
        }
    }
}

/// The control thread's copy of the rules, kept in step with the PFCP side's changes.
#[derive(Debug, Default)]
pub struct RulesMirror {
    uplink: HashMap<Teid, UplinkEntry>,
    downlink: HashMap<u32, DownlinkEntry>,
    /// Release ticks of the held downlink rules, by UE.
    releases: HashMap<u32, u64>,
    sessions: usize,
    dirty: bool,
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

    /// Holds the downlink rule of `ue` (a big-endian address) back: its packets are dropped
    /// until TSC tick `release_at` (the workers then forward them) or
    /// [`release_downlink`](Self::release_downlink). Returns the rule held back.
    pub fn hold_downlink(&mut self, ue: u32, release_at: u64) -> Option<DownlinkEntry> {
        let e = self.downlink.get_mut(&ue)?;
        let held = *e;
        *e = DownlinkEntry {
            forward: false,
            held: true,
            ..held
        };
        self.releases.insert(ue, release_at);
        self.dirty = true;
        Some(held)
    }

    /// Puts `entry` in place for `ue` if its rule is still the one held back; true if it did.
    pub fn release_downlink(&mut self, ue: u32, entry: DownlinkEntry) -> bool {
        match self.downlink.get_mut(&ue) {
            Some(e) if e.held => {
                *e = entry;
                self.releases.remove(&ue);
                self.dirty = true;
                true
            }
            _ => false,
        }
    }

    fn add(&mut self, s: &SessionRules) {
        self.sessions += 1;
        for u in &s.uplink {
            let entry = UplinkEntry {
                forward: u.forward && u.remove_outer_header,
                qfi: u.qfi,
            };
            self.uplink.insert(u.teid, entry);
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
            self.downlink.insert(u32::from(d.ue_address), entry);
        }
    }

    fn remove(&mut self, s: &SessionRules) {
        self.sessions = self.sessions.saturating_sub(1);
        for u in &s.uplink {
            self.uplink.remove(&u.teid);
        }
        for d in &s.downlink {
            self.downlink.remove(&u32::from(d.ue_address));
            self.releases.remove(&u32::from(d.ue_address));
        }
    }

    /// Sessions mirrored.
    pub fn sessions(&self) -> usize {
        self.sessions
    }

    /// A new snapshot if anything changed since the last one.
    pub fn snapshot(&mut self) -> Option<ForwardingTable> {
        if !self.dirty {
            return None;
        }
        self.dirty = false;
        let gnbs: BTreeSet<u32> = self
            .downlink
            .values()
            .filter(|d| d.forward || d.held)
            .map(|d| d.gnb)
            .collect();
        let mut releases: Vec<(u32, u64)> = self.releases.iter().map(|(&u, &t)| (u, t)).collect();
        releases.sort_unstable();
        Some(ForwardingTable {
            uplink: FlatMap::build(self.uplink.iter().map(|(&k, &v)| (k.get(), v))),
            downlink: FlatMap::build(self.downlink.iter().map(|(&k, &v)| (k, v))),
            sessions: self.sessions,
            gnbs: gnbs.into_iter().collect(),
            releases: releases.into_boxed_slice(),
        })
    }
}

/// Hands new snapshots to every worker.
#[derive(Debug)]
pub struct TablePublisher {
    workers: Vec<Sender<Arc<ForwardingTable>>>,
    /// Publications so far, counted after each one's sends.
    published: Arc<AtomicU64>,
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
        },
        readers,
    )
}

impl TablePublisher {
    /// Gives `table` to every worker; returns how many still listen.
    pub fn publish(&self, table: ForwardingTable) -> usize {
        let table = Arc::new(table);
        let listening = self
            .workers
            .iter()
            .filter(|w| w.send(Arc::clone(&table)).is_ok())
            .count();
        // After the sends: a reader that sees the new count finds the table in its channel.
        self.published.fetch_add(1, Ordering::Release);
        listening
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
