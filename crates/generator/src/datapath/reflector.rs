//! A reflector worker: a minimal UPF's datapath between N3 and N6 (see [`super::forward`]), or
//! an echo on one port, with optional impairments, and the service plane on both ports.
//!
//! Frames are forwarded in place: the mbuf that arrived is rewritten (outer headers stripped or
//! prepended) and handed to the other port's transmit queue, in arrival order, a burst at a
//! time. Without impairments a received burst becomes the transmitted burst (one bulk free for
//! what is dropped); with impairments each packet goes through them one by one.

use std::sync::atomic::{AtomicU64, Ordering};

use upfbench_dpdk::{Mbuf, MbufBurst, Mempool, StopFlag, tsc};
use upfbench_gtpu::{Encapsulator, MacAddr, OuterHeaders, PduSessionContainer, Qfi, Teid};

use super::forward::{self, Drop, ETHERNET_LEN, FromN3, FromN6};
use super::impair::{ImpairCounters, Impairments};
use super::queues::{PortQueues, RX_BURST, Side};
use super::rules::{NO_QFI, TableReader};
use super::service::{Interface, ServicePlane};

/// What the reflector does with what it receives.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// A minimal UPF between N3 and N6.
    Upf,
    /// Swap addresses and send back on the port it came from.
    Echo(Side),
}

/// Counters of one reflector worker, published for the control thread.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ReflectorCounters {
    /// Frames received, per port.
    pub received: [u64; 2],
    /// Uplink packets forwarded N3 → N6 (queued for N6 after the impairments; a full
    /// backlog's drops are counted apart).
    pub uplink: u64,
    /// Downlink packets forwarded N6 → N3 (likewise).
    pub downlink: u64,
    /// Packets echoed (likewise).
    pub echoed: u64,
    /// Dropped, per [`Drop`] kind.
    pub dropped: [u64; Drop::COUNT],
    /// What the impairments did.
    pub impair: ImpairCounters,
}

/// Words of [`ReflectorCounters`] as published.
const WORDS: usize = 2 + 3 + Drop::COUNT + 6;

impl ReflectorCounters {
    fn to_words(self) -> [u64; WORDS] {
        let mut w = [0u64; WORDS];
        w[0] = self.received[0];
        w[1] = self.received[1];
        w[2] = self.uplink;
        w[3] = self.downlink;
        w[4] = self.echoed;
        w[5..5 + Drop::COUNT].copy_from_slice(&self.dropped);
        let i = &self.impair;
        w[5 + Drop::COUNT..].copy_from_slice(&[
            i.seen,
            i.dropped,
            i.rate_dropped,
            i.duplicated,
            i.reordered,
            i.duplicate_failed,
        ]);
        w
    }

    fn from_words(w: &[u64; WORDS]) -> ReflectorCounters {
        let mut dropped = [0; Drop::COUNT];
        dropped.copy_from_slice(&w[5..5 + Drop::COUNT]);
        let i = &w[5 + Drop::COUNT..];
        ReflectorCounters {
            received: [w[0], w[1]],
            uplink: w[2],
            downlink: w[3],
            echoed: w[4],
            dropped,
            impair: ImpairCounters {
                seen: i[0],
                dropped: i[1],
                rate_dropped: i[2],
                duplicated: i[3],
                reordered: i[4],
                duplicate_failed: i[5],
            },
        }
    }

    /// Adds another worker's counters.
    pub fn merge(&mut self, o: &ReflectorCounters) {
        for (a, b) in self.received.iter_mut().zip(o.received) {
            *a += b;
        }
        self.uplink += o.uplink;
        self.downlink += o.downlink;
        self.echoed += o.echoed;
        for (a, b) in self.dropped.iter_mut().zip(o.dropped) {
            *a += b;
        }
        let (a, b) = (&mut self.impair, &o.impair);
        a.seen += b.seen;
        a.dropped += b.dropped;
        a.rate_dropped += b.rate_dropped;
        a.duplicated += b.duplicated;
        a.reordered += b.reordered;
        a.duplicate_failed += b.duplicate_failed;
    }
}

/// Where a worker publishes its counters: single writer, relaxed stores, read by the control
/// thread (each word is consistent; the set is as of some instant within one loop).
#[derive(Debug, Default)]
pub struct CounterCell {
    words: [AtomicU64; WORDS],
}

impl CounterCell {
    fn publish(&self, c: &ReflectorCounters) {
        for (cell, v) in self.words.iter().zip(c.to_words()) {
            cell.store(v, Ordering::Relaxed);
        }
    }

    /// The counters as last published.
    pub fn read(&self) -> ReflectorCounters {
        let mut w = [0u64; WORDS];
        for (v, cell) in w.iter_mut().zip(&self.words) {
            *v = cell.load(Ordering::Relaxed);
        }
        ReflectorCounters::from_words(&w)
    }
}

/// The outer headers toward one (gNB, QFI, next-hop MAC), ready to prepend.
struct CachedEncap {
    gnb: u32,
    qfi: u8,
    mac: MacAddr,
    encap: Encapsulator,
}

/// Encapsulators by tunnel destination and QFI; a handful of entries, searched linearly.
struct EncapCache {
    local: Interface,
    entries: Vec<CachedEncap>,
    next_victim: usize,
}

const ENCAP_CACHE: usize = 8;

impl EncapCache {
    fn new(local: Interface) -> EncapCache {
        EncapCache {
            local,
            entries: Vec::with_capacity(ENCAP_CACHE),
            next_victim: 0,
        }
    }

    #[inline]
    fn get(&mut self, gnb: u32, qfi: u8, mac: MacAddr) -> &mut Encapsulator {
        if let Some(i) = self
            .entries
            .iter()
            .position(|e| e.gnb == gnb && e.qfi == qfi && e.mac == mac)
        {
            return &mut self.entries[i].encap;
        }
        let mut headers =
            OuterHeaders::new(self.local.mac, mac, self.local.address, gnb.into(), Teid(0));
        if qfi != NO_QFI {
            headers.pdu_session_container =
                Some(PduSessionContainer::downlink(Qfi::from_bits(qfi)));
        }
        let encap = Encapsulator::new(&headers).expect("the outer headers fit the template");
        let entry = CachedEncap {
            gnb,
            qfi,
            mac,
            encap,
        };
        let i = if self.entries.len() < ENCAP_CACHE {
            self.entries.push(entry);
            self.entries.len() - 1
        } else {
            let i = self.next_victim;
            self.next_victim = (i + 1) % ENCAP_CACHE;
            self.entries[i] = entry;
            i
        };
        &mut self.entries[i].encap
    }
}

/// A reflector worker and what it owns.
pub struct ReflectorWorker<'p> {
    /// Its queues, by [`Side`].
    pub ports: [PortQueues<'p>; 2],
    /// The forwarding rules.
    pub table: TableReader,
    /// Our addresses per port.
    pub interfaces: [Interface; 2],
    /// The next hop per port for destinations off its subnet (N3: toward the gNB; N6: toward
    /// the data network).
    pub gateways: [u32; 2],
    /// The service plane.
    pub service: ServicePlane<'p>,
    /// Impairments of forwarded packets, one set per direction (by the port it leaves by), if
    /// any.
    pub impair: Option<[Impairments<Mbuf<'p>>; 2]>,
    /// For duplicates.
    pub pool: Mempool<'p>,
    /// UPF or echo.
    pub mode: Mode,
}

/// Loops between publications of the counters.
const PUBLISH_EVERY: u32 = 1024;

impl<'p> ReflectorWorker<'p> {
    /// Runs until `stop`; publishes its counters into `cell`; returns them.
    pub fn run(self, stop: &StopFlag, cell: &CounterCell) -> ReflectorCounters {
        let ReflectorWorker {
            mut ports,
            mut table,
            interfaces,
            gateways,
            mut service,
            mut impair,
            pool,
            mode,
        } = self;
        let mut c = ReflectorCounters::default();
        let mut rx = MbufBurst::<RX_BURST>::new();
        // Per port, what waits for its transmit queue: a full queue holds packets back here
        // (in order) instead of dropping them; only a full backlog drops.
        let mut out: [MbufBurst<'p, BACKLOG>; 2] = [MbufBurst::new(), MbufBurst::new()];
        let mut encaps = EncapCache::new(interfaces[Side::N3.index()]);
        let mut n6_next_hop: Option<(u32, MacAddr)> = None;
        let mut loops = 0u32;
        while !stop.is_stopped() {
            table.refresh();
            let now = tsc();
            for side in Side::BOTH {
                let n = ports[side.index()].rx.rx_burst(&mut rx);
                if n == 0 {
                    continue;
                }
                c.received[side.index()] += n as u64;
                let to = match (mode, side) {
                    (Mode::Echo(s), _) if s == side => side,
                    (Mode::Echo(_), _) => {
                        // The other port only answers the service plane.
                        for m in rx.iter() {
                            service.handle_any(side, m.data());
                        }
                        rx.clear();
                        continue;
                    }
                    (Mode::Upf, Side::N3) => Side::N6,
                    (Mode::Upf, Side::N6) => Side::N3,
                };
                let t = table.table();
                rx.retain_mut(|m| match (mode, side) {
                    (Mode::Echo(_), _) => echo(m, side, &mut service, &mut c),
                    (Mode::Upf, Side::N3) => uplink(
                        m,
                        forward::from_n3(t, m.data()),
                        &interfaces,
                        gateways[Side::N6.index()],
                        &mut n6_next_hop,
                        &mut service,
                        now,
                        &mut c,
                    ),
                    (Mode::Upf, Side::N6) => downlink(
                        m,
                        forward::from_n6(t, m.data()),
                        &interfaces,
                        gateways[Side::N3.index()],
                        &mut encaps,
                        &mut service,
                        now,
                        &mut c,
                    ),
                });
                match &mut impair {
                    None => {
                        let o = &mut out[to.index()];
                        rx.drain_each(|m| queue(o, m, mode, to, &mut c));
                    }
                    Some(imp) => {
                        let (imp, o) = (&mut imp[to.index()], &mut out[to.index()]);
                        rx.drain_each(|m| {
                            imp.push(now, m, |m| copy(&pool, m), &mut drop, &mut |m| {
                                queue(o, m, mode, to, &mut c)
                            });
                        });
                    }
                }
            }
            if let Some(imp) = &mut impair {
                for side in Side::BOTH {
                    let o = &mut out[side.index()];
                    imp[side.index()].poll(now, &mut |m| queue(o, m, mode, side, &mut c));
                }
                c.impair = sum_impairments(imp);
            }
            for side in Side::BOTH {
                let o = &mut out[side.index()];
                if !o.is_empty() {
                    ports[side.index()].tx.tx_burst(o);
                }
            }
            for side in Side::BOTH {
                service.flush(side, &mut ports[side.index()].tx);
            }
            loops = loops.wrapping_add(1);
            if loops.is_multiple_of(PUBLISH_EVERY) {
                cell.publish(&c);
            }
        }
        if let Some(imp) = &mut impair {
            for i in imp.iter_mut() {
                i.drain(&mut drop);
            }
            c.impair = sum_impairments(imp);
        }
        cell.publish(&c);
        c
    }
}

fn sum_impairments<T>(imp: &[Impairments<T>; 2]) -> ImpairCounters {
    let (a, b) = (imp[0].counters(), imp[1].counters());
    ImpairCounters {
        seen: a.seen + b.seen,
        dropped: a.dropped + b.dropped,
        rate_dropped: a.rate_dropped + b.rate_dropped,
        duplicated: a.duplicated + b.duplicated,
        reordered: a.reordered + b.reordered,
        duplicate_failed: a.duplicate_failed + b.duplicate_failed,
    }
}

/// A copy of `m` in a fresh mbuf of `pool`.
fn copy<'p>(pool: &Mempool<'p>, m: &Mbuf<'p>) -> Option<Mbuf<'p>> {
    let mut c = pool.alloc().ok()?;
    c.extend_from_slice(m.data()).ok()?;
    Some(c)
}

/// Packets that may wait per port for a full transmit queue.
const BACKLOG: usize = 1024;

/// Queues `m` to leave by port `to` and counts it as forwarded (or echoed), or drops it when
/// the backlog is full: packets are counted where they leave, after the impairments.
fn queue<'p>(
    out: &mut MbufBurst<'p, BACKLOG>,
    m: Mbuf<'p>,
    mode: Mode,
    to: Side,
    c: &mut ReflectorCounters,
) {
    if let Err(m) = out.push(m) {
        c.dropped[Drop::TxFull as usize] += 1;
        drop(m);
        return;
    }
    match (mode, to) {
        (Mode::Echo(_), _) => c.echoed += 1,
        (Mode::Upf, Side::N6) => c.uplink += 1,
        (Mode::Upf, Side::N3) => c.downlink += 1,
    }
}

/// Rewrites an uplink G-PDU into its inner packet behind an Ethernet header toward the next
/// hop on N6; true to keep (forward) it.
#[allow(clippy::too_many_arguments)]
#[inline]
fn uplink(
    m: &mut Mbuf<'_>,
    decision: FromN3,
    interfaces: &[Interface; 2],
    gateway: u32,
    next_hop: &mut Option<(u32, MacAddr)>,
    service: &mut ServicePlane<'_>,
    now: u64,
    c: &mut ReflectorCounters,
) -> bool {
    match decision {
        FromN3::Decapsulate {
            inner_offset,
            inner_len,
        } => {
            let n6 = &interfaces[Side::N6.index()];
            let d = m.data();
            let dst = u32::from_be_bytes([
                d[inner_offset + 16],
                d[inner_offset + 17],
                d[inner_offset + 18],
                d[inner_offset + 19],
            ]);
            let hop = if n6.on_link(dst) { dst } else { gateway };
            let mac = match *next_hop {
                Some((ip, mac)) if ip == hop => mac,
                _ => match service.neighbor(Side::N6, hop) {
                    Some(mac) => {
                        *next_hop = Some((hop, mac));
                        mac
                    }
                    None => {
                        service.resolve(Side::N6, hop, now);
                        c.dropped[Drop::NoNeighbor as usize] += 1;
                        return false;
                    }
                },
            };
            let strip = inner_offset - ETHERNET_LEN;
            let excess = m.len() - inner_offset - inner_len;
            if m.adj(strip).is_err() || m.trim(excess).is_err() {
                c.dropped[Drop::NoRoom as usize] += 1;
                return false;
            }
            let eth = &mut m.data_mut()[..ETHERNET_LEN];
            eth[..6].copy_from_slice(&mac.0);
            eth[6..12].copy_from_slice(&n6.mac.0);
            eth[12..14].copy_from_slice(&0x0800u16.to_be_bytes());
            true
        }
        FromN3::Drop(Drop::UnknownTeid, teid) => {
            service.error_indication(m.data(), teid, now);
            c.dropped[Drop::UnknownTeid as usize] += 1;
            false
        }
        FromN3::Drop(kind, _) => {
            c.dropped[kind as usize] += 1;
            false
        }
        FromN3::Service(kind) => {
            service.handle(Side::N3, kind, m.data());
            false
        }
    }
}

/// Rewrites a downlink packet into a G-PDU toward its tunnel; true to keep (forward) it.
#[allow(clippy::too_many_arguments)]
#[inline]
fn downlink(
    m: &mut Mbuf<'_>,
    decision: FromN6,
    interfaces: &[Interface; 2],
    gateway: u32,
    encaps: &mut EncapCache,
    service: &mut ServicePlane<'_>,
    now: u64,
    c: &mut ReflectorCounters,
) -> bool {
    match decision {
        FromN6::Encapsulate(rule, len) => {
            let n3 = &interfaces[Side::N3.index()];
            let hop = if n3.on_link(rule.gnb) {
                rule.gnb
            } else {
                gateway
            };
            let Some(mac) = service.neighbor(Side::N3, hop) else {
                service.resolve(Side::N3, hop, now);
                c.dropped[Drop::NoNeighbor as usize] += 1;
                return false;
            };
            let encap = encaps.get(rule.gnb, rule.qfi, mac);
            encap.set_teid(Teid(rule.teid));
            let excess = m.len() - ETHERNET_LEN - len;
            let grow = encap.outer_len() - ETHERNET_LEN;
            if m.trim(excess).is_err() || m.prepend(grow).is_err() {
                c.dropped[Drop::NoRoom as usize] += 1;
                return false;
            }
            if encap.encapsulate_prepended(m.data_mut()).is_err() {
                c.dropped[Drop::NoRoom as usize] += 1;
                return false;
            }
            true
        }
        FromN6::Drop(kind) => {
            c.dropped[kind as usize] += 1;
            false
        }
        FromN6::Service(kind) => {
            service.handle(Side::N6, kind, m.data());
            false
        }
    }
}

/// Swaps the Ethernet, IPv4 and UDP addresses of `m` so that it goes back where it came from;
/// service traffic is answered instead. The IPv4 and UDP checksums do not change: a swap keeps
/// their one's-complement sums.
#[inline]
fn echo(
    m: &mut Mbuf<'_>,
    side: Side,
    service: &mut ServicePlane<'_>,
    c: &mut ReflectorCounters,
) -> bool {
    let d = m.data();
    let is_ipv4 = d.get(12..14) == Some(&[0x08, 0x00][..]) && d.len() >= ETHERNET_LEN + 20;
    let is_udp = is_ipv4 && d[ETHERNET_LEN + 9] == 17;
    let ihl = if is_ipv4 {
        usize::from(d[ETHERNET_LEN] & 0x0f) * 4
    } else {
        0
    };
    if !is_udp || d.len() < ETHERNET_LEN + ihl + 8 {
        service.handle_any(side, d);
        if !is_ipv4 {
            c.dropped[Drop::NotUserTraffic as usize] += 1;
        }
        return false;
    }
    let d = m.data_mut();
    let (dst, src) = d[..12].split_at_mut(6);
    dst.swap_with_slice(src);
    let ip = ETHERNET_LEN;
    let (a, b) = d[ip + 12..ip + 20].split_at_mut(4);
    a.swap_with_slice(b);
    let udp = ip + ihl;
    let (a, b) = d[udp..udp + 4].split_at_mut(2);
    a.swap_with_slice(b);
    true
}
