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
//!
//! IPv6 UEs are found by their prefix in [`PrefixTable`], beside (a dual-stack UE is in both).
//!
//! A downlink entry names its gNB by a 32-bit key: its IPv4 address on an IPv4 N3, and on an
//! IPv6 N3 (every tunnel is then IPv6: the PFCP side refuses the other family) the gNB's
//! index in [`ForwardingTable::gnbs_v6`], where an address keeps its index for the run. The
//! entries stay as small as they were, and the IPv4 path reads them as it did.
//!
//! A key (uplink TEID, UE address or prefix) with several PDRs, SDF filters or a QER to enforce has an
//! entry that says so (`flows`) and its [`Flow`]s in a map beside ([`super::flows`]); the
//! entries of every other key are as they were, and so is their lookup. The flow maps are
//! copied whole when one of their keys changes: cheap for the thousands of sessions a QoS test
//! holds (a pointer each), not meant for a million. The QERs' cells ([`QerCell`](super::qer::QerCell)) outlive the
//! tables: a modification keeps a QER's bucket and counters, and the [`QerBook`] keeps what
//! the QERs of deleted sessions counted.

use std::collections::HashMap;
use std::net::{IpAddr, Ipv6Addr};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::{Receiver, Sender, TryRecvError, channel};

use upfbench_pfcp::node::{DownlinkRule, RuleChange, RulesTable, SessionRules, UplinkRule};
use upfbench_pfcp::plan::UeIpv6Prefix;
use upfbench_pfcp::{QerId, Qfi, Teid};

use super::flows::{Flow, FlowMap, Flows, PacketFilter};
use super::prefixes::{PrefixRule, PrefixTable};
use super::qer::{self, QerBook, QerPolicy};
use super::sharded_map::ShardedMap;

/// What an uplink G-PDU to a known TEID gets.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct UplinkEntry {
    /// The FAR forwards (else the packet is dropped and counted).
    pub forward: bool,
    /// The QFI the PDR matches, if any.
    pub qfi: Option<Qfi>,
    /// The TEID's PDRs are told apart per packet, or its QER enforced: see
    /// [`ForwardingTable::uplink_flows`] (`forward` is then false).
    pub flows: bool,
}

/// What a downlink packet to a known UE gets.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct DownlinkEntry {
    /// The FAR forwards into a tunnel (else the packet is dropped and counted).
    pub forward: bool,
    /// The tunnel's TEID.
    pub teid: Teid,
    /// The gNB: its IPv4 address (big-endian integer), or on an IPv6 N3 its index in
    /// [`ForwardingTable::gnbs_v6`].
    pub gnb: u32,
    /// The QFI for the DL PDU Session Container (from the session's QER); none: no container.
    pub qfi: Option<Qfi>,
    /// The impairment `far_update_delay` holds the rule's update back: its packets are dropped
    /// and counted (the old path ended, the new one has not started) until its release tick
    /// ([`ForwardingTable::release_at`]); it carries the new tunnel.
    pub held: bool,
}

impl DownlinkEntry {
    /// The entry of a UE whose PDRs are told apart per packet, or whose QER is enforced: see
    /// [`ForwardingTable::downlink_flows`]. It is told by its gNB, the broadcast address, which
    /// no tunnel goes to (a flag of its own would make every slot 4 bytes larger).
    pub const FLOWS: DownlinkEntry = DownlinkEntry {
        forward: false,
        teid: Teid(0),
        gnb: u32::MAX,
        qfi: None,
        held: false,
    };

    /// Whether this is [`DownlinkEntry::FLOWS`].
    #[inline(always)]
    pub fn flows(&self) -> bool {
        !self.forward && !self.held && self.gnb == u32::MAX
    }

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
    /// Downlink by UE IPv4 address.
    pub downlink: ShardedMap<DownlinkEntry>,
    /// Downlink by UE IPv6 prefix, with the flows of the entries that have them.
    pub downlink_v6: Arc<PrefixTable>,
    /// Sessions it was built from.
    pub sessions: usize,
    /// The gNBs the forwarding downlink rules tunnel to (big-endian integers), each once, in
    /// ascending order: the N3 next hops the reflector resolves before traffic needs them.
    pub gnbs: Arc<[u32]>,
    /// The IPv6 gNBs by key (index): every one a tunnel named so far, none forgotten, so that a
    /// key means one gNB for the run.
    pub gnbs_v6: Arc<[Ipv6Addr]>,
    /// The held downlink rules' release ticks by UE, in ascending order of UE: read only for
    /// a packet that meets a held rule, so that the entries stay small.
    pub releases: Arc<[(u32, u64)]>,
    /// The flows of the uplink entries that have them, by TEID.
    pub uplink_flows: Arc<FlowMap>,
    /// The flows of the downlink entries that have them, by UE address.
    pub downlink_flows: Arc<FlowMap>,
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
            downlink_v6: Arc::default(),
            sessions: 0,
            gnbs: Arc::new([]),
            gnbs_v6: Arc::new([]),
            releases: Arc::new([]),
            uplink_flows: Arc::default(),
            downlink_flows: Arc::default(),
        }
    }

    /// The IPv6 gNB of key `gnb`, if it is one.
    #[inline]
    pub fn gnb_v6(&self, gnb: u32) -> Option<Ipv6Addr> {
        self.gnbs_v6.get(gnb as usize).copied()
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
    /// The IPv6 gNBs named so far, by key ([`ForwardingTable::gnbs_v6`]).
    gnbs_v6: Vec<Ipv6Addr>,
    /// Release ticks of the held downlink rules, by UE (a few: the UEs in a handover).
    releases: HashMap<u32, u64>,
    releases_changed: bool,
    dirty: bool,
    /// The flows of the keys that have them: [uplink, downlink].
    flows: [FlowMap; 2],
    flows_changed: [bool; 2],
    /// What the QERs enforce.
    policy: QerPolicy,
    /// The QERs' cells, shared with the metrics.
    qers: QerBook,
}

impl Default for RulesMirror {
    fn default() -> Self {
        RulesMirror::new(QerPolicy::new(1_000_000_000), QerBook::default())
    }
}

impl RulesMirror {
    /// An empty mirror whose QERs are enforced by `policy`, their cells kept in `qers`.
    pub fn new(policy: QerPolicy, qers: QerBook) -> RulesMirror {
        RulesMirror {
            table: ForwardingTable::empty(),
            tunnels_to: HashMap::new(),
            gnbs_changed: false,
            gnbs_v6: Vec::new(),
            releases: HashMap::new(),
            releases_changed: false,
            dirty: false,
            flows: Default::default(),
            flows_changed: [false; 2],
            policy,
            qers,
        }
    }

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
                // The QERs that stay keep their buckets and counters.
                self.qers.forget(previous, Some(current));
            }
            RuleChange::Removed(s) => {
                self.remove(s);
                self.qers.forget(s, None);
            }
            // No rule changes: the control thread sends the End Marker.
            RuleChange::EndMarker { .. } => return,
        }
        self.dirty = true;
    }

    fn add(&mut self, s: &SessionRules) {
        self.table.sessions += 1;
        for q in &s.qers {
            self.qers.configure(s.up_seid, q, &self.policy);
        }
        for teid in keys(&s.uplink, |u| u.teid.get()) {
            let rules: Vec<&UplinkRule> =
                s.uplink.iter().filter(|u| u.teid.get() == teid).collect();
            let entry = match rules[..] {
                [u] if u.sdf_filters.is_empty() && self.transparent(s, u.qer, qer::UPLINK) => {
                    UplinkEntry {
                        forward: u.forward && u.remove_outer_header,
                        qfi: u.qfi,
                        flows: false,
                    }
                }
                _ => {
                    let flows = rules.iter().map(|u| self.uplink_flow(s, u)).collect();
                    self.set_flows(qer::UPLINK, teid, Some(sorted(flows)));
                    UplinkEntry {
                        flows: true,
                        ..UplinkEntry::default()
                    }
                }
            };
            self.table.uplink.insert(teid, entry);
        }
        let v4 = |d: &DownlinkRule| d.ue_address.map(u32::from);
        let mut ues: Vec<u32> = s.downlink.iter().filter_map(v4).collect();
        ues.sort_unstable();
        ues.dedup();
        for ue in ues {
            let rules: Vec<&DownlinkRule> =
                s.downlink.iter().filter(|d| v4(d) == Some(ue)).collect();
            let (entry, flows) = self.downlink_entry(s, &rules);
            if flows.is_some() {
                self.set_flows(qer::DOWNLINK, ue, flows);
            }
            let replaced = self.table.downlink.insert(ue, entry);
            self.count_tunnel(replaced, Some(entry));
        }
        let mut prefixes: Vec<UeIpv6Prefix> = Vec::new();
        for p in s.downlink.iter().filter_map(|d| d.ue_prefix) {
            if !prefixes.contains(&p) {
                prefixes.push(p);
            }
        }
        for p in prefixes {
            let rules: Vec<&DownlinkRule> = s
                .downlink
                .iter()
                .filter(|d| d.ue_prefix == Some(p))
                .collect();
            let (entry, flows) = self.downlink_entry(s, &rules);
            let replaced =
                Arc::make_mut(&mut self.table.downlink_v6).insert(p, PrefixRule { entry, flows });
            self.count_tunnel(replaced.map(|r| r.entry), Some(entry));
        }
    }

    /// The entry of a UE key whose downlink PDRs are `rules`, and its flows when the entry is
    /// [`DownlinkEntry::FLOWS`] (their gNBs counted).
    fn downlink_entry(
        &mut self,
        s: &SessionRules,
        rules: &[&DownlinkRule],
    ) -> (DownlinkEntry, Option<Flows>) {
        match rules {
            [d] if d.sdf_filters.is_empty() && self.transparent(s, d.qer, qer::DOWNLINK) => {
                let entry = match d.tunnel {
                    Some(t) if d.forward => DownlinkEntry {
                        forward: true,
                        teid: t.teid,
                        gnb: self.gnb_key(t.address),
                        qfi: d.qfi,
                        held: false,
                    },
                    _ => DownlinkEntry::default(),
                };
                (entry, None)
            }
            _ => {
                let flows: Vec<Flow> = rules.iter().map(|d| self.downlink_flow(s, d)).collect();
                for f in &flows {
                    self.count_gnb(None, flow_gnb(f));
                }
                (DownlinkEntry::FLOWS, Some(sorted(flows)))
            }
        }
    }

    /// Whether the session's QER `id` (if any) lets every packet of direction `dir` pass
    /// unseen: then a key with one PDR needs no classifying.
    fn transparent(&self, s: &SessionRules, id: Option<QerId>, dir: usize) -> bool {
        id.and_then(|id| self.qers.cell(s.up_seid, id))
            .is_none_or(|c| c.is_transparent(dir))
    }

    fn uplink_flow(&self, s: &SessionRules, u: &UplinkRule) -> Flow {
        Flow {
            precedence: u.precedence.0,
            qfi: u.qfi,
            filters: u.sdf_filters.iter().map(PacketFilter::new).collect(),
            forward: u.forward && u.remove_outer_header,
            tunnel: None,
            container_qfi: None,
            qer: u.qer.and_then(|id| self.qers.cell(s.up_seid, id)),
        }
    }

    fn downlink_flow(&mut self, s: &SessionRules, d: &DownlinkRule) -> Flow {
        let tunnel = d
            .tunnel
            .filter(|_| d.forward)
            .map(|t| (t.teid, self.gnb_key(t.address)));
        Flow {
            precedence: d.precedence.0,
            qfi: None,
            filters: d.sdf_filters.iter().map(PacketFilter::new).collect(),
            forward: tunnel.is_some(),
            tunnel,
            container_qfi: d.qfi,
            qer: d.qer.and_then(|id| self.qers.cell(s.up_seid, id)),
        }
    }

    /// Sets (or with None removes) the flows of `key` in direction `dir`.
    fn set_flows(&mut self, dir: usize, key: u32, flows: Option<Flows>) {
        let changed = match flows {
            Some(f) => {
                self.flows[dir].insert(key, f);
                true
            }
            None => self.flows[dir].remove(&key).is_some(),
        };
        self.flows_changed[dir] |= changed;
    }

    fn remove(&mut self, s: &SessionRules) {
        self.table.sessions = self.table.sessions.saturating_sub(1);
        for u in &s.uplink {
            self.table.uplink.remove(u.teid.get());
            self.set_flows(qer::UPLINK, u.teid.get(), None);
        }
        for d in &s.downlink {
            if let Some(p) = d.ue_prefix
                && let Some(r) = Arc::make_mut(&mut self.table.downlink_v6).remove(p)
            {
                self.count_tunnel(Some(r.entry), None);
                for f in r.flows.iter().flat_map(|f| f.iter()) {
                    self.count_gnb(flow_gnb(f), None);
                }
            }
            let Some(ue) = d.ue_address.map(u32::from) else {
                continue;
            };
            let removed = self.table.downlink.remove(ue);
            self.count_tunnel(removed, None);
            if let Some(flows) = self.flows[qer::DOWNLINK].remove(&ue) {
                self.flows_changed[qer::DOWNLINK] = true;
                for f in flows.iter() {
                    self.count_gnb(flow_gnb(f), None);
                }
            }
            self.releases_changed |= self.releases.remove(&ue).is_some();
        }
    }

    /// Holds the downlink rule of `ue` (a big-endian address) back: its packets are dropped
    /// until TSC tick `release_at` (the workers then forward them) or
    /// [`release_downlink`](Self::release_downlink). Returns the rule held back.
    pub(crate) fn hold_downlink(&mut self, ue: u32, release_at: u64) -> Option<DownlinkEntry> {
        // A UE whose packets are classified keeps its flows (the delay is for one-flow
        // sessions).
        let held = *self.table.downlink.get(ue).filter(|e| !e.flows())?;
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
        self.count_gnb(
            before.and_then(|d| d.tunnel_gnb()),
            after.and_then(|d| d.tunnel_gnb()),
        );
    }

    /// Keeps the tunnels per gNB counted as one goes from the gNB `before` to `after`.
    fn count_gnb(&mut self, before: Option<u32>, after: Option<u32>) {
        if let Some(gnb) = before
            && let Some(n) = self.tunnels_to.get_mut(&gnb)
        {
            *n -= 1;
            if *n == 0 {
                self.tunnels_to.remove(&gnb);
                self.gnbs_changed = true;
            }
        }
        if let Some(gnb) = after {
            let n = self.tunnels_to.entry(gnb).or_insert(0);
            *n += 1;
            self.gnbs_changed |= *n == 1;
        }
    }

    /// The key of gNB `address` in the entries: an IPv4 address itself; an IPv6 one its index
    /// in [`ForwardingTable::gnbs_v6`], given on first sight and kept.
    fn gnb_key(&mut self, address: IpAddr) -> u32 {
        match address {
            IpAddr::V4(a) => u32::from(a),
            IpAddr::V6(a) => match self.gnbs_v6.iter().position(|&g| g == a) {
                Some(i) => i as u32,
                None => {
                    self.gnbs_v6.push(a);
                    self.table.gnbs_v6 = self.gnbs_v6.clone().into();
                    (self.gnbs_v6.len() - 1) as u32
                }
            },
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
        for (dir, map) in [
            (qer::UPLINK, &mut self.table.uplink_flows),
            (qer::DOWNLINK, &mut self.table.downlink_flows),
        ] {
            if std::mem::take(&mut self.flows_changed[dir]) {
                *map = Arc::new(self.flows[dir].clone());
            }
        }
        Some(self.table.clone())
    }
}

/// The keys of `rules` (each once, in order).
fn keys<R>(rules: &[R], key: impl Fn(&R) -> u32) -> Vec<u32> {
    let mut k: Vec<u32> = rules.iter().map(key).collect();
    k.sort_unstable();
    k.dedup();
    k
}

/// `flows` by precedence (the lowest first; equal ones in the order given).
fn sorted(mut flows: Vec<Flow>) -> Flows {
    flows.sort_by_key(|f| f.precedence);
    flows.into()
}

/// The gNB a downlink flow tunnels to, if it forwards.
fn flow_gnb(f: &Flow) -> Option<u32> {
    f.tunnel.filter(|_| f.forward).map(|t| t.1)
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
