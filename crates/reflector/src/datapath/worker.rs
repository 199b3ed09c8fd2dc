//! A reflector worker: a minimal UPF's datapath between N3 and N6 (see [`super::forward`]), or
//! an echo on one port, with optional impairments, and the service plane on both ports.
//!
//! Frames are forwarded in place: the mbuf that arrived is rewritten (outer headers stripped or
//! prepended) and handed to the other port's transmit queue, in arrival order, a burst at a
//! time. Without impairments a received burst becomes the transmitted burst (one bulk free for
//! what is dropped); with impairments each packet goes through them one by one.

use upfbench_dpdk::{Mbuf, MbufBurst, Mempool, Quiescent, StopFlag, current_lcore, tsc};
use upfbench_net::MacAddr;
use upfbench_net::ethernet::{self, ETHERTYPE_IPV4, HEADER_LEN as ETHERNET_LEN};
use upfbench_net::ipv4;

use super::counters::{CounterCell, ReflectorCounters, ServiceSummary};
use super::echo::{self, EchoVerdict};
use super::encap::EncapCache;
use super::end_marker::EndMarkerInbox;
use super::forward::{self, Drop, FromN3, FromN6};
use super::impair::{ImpairCounters, Impairments};
use super::rules::TableReader;
use upfbench_datapath::next_hops::NextHops;
use upfbench_datapath::queues::{PortQueues, RX_BURST, Side};
use upfbench_datapath::service::{Interface, ServicePlane};

/// What the reflector does with what it receives.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// A minimal UPF between N3 and N6.
    Upf,
    /// Swap addresses and send back on the port it came from (see [`super::echo`]).
    Echo(Side),
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
    /// the data network), 0 for none.
    pub gateways: [u32; 2],
    /// The service plane.
    pub service: ServicePlane<'p>,
    /// The next hops it resolves by itself (upf mode): the gateways from the start, the gNBs
    /// of the rules as they come.
    pub next_hops: NextHops,
    /// Impairments of forwarded packets, one set per direction (by the port it leaves by), if
    /// any.
    pub impair: Option<[Impairments<Mbuf<'p>>; 2]>,
    /// For duplicates.
    pub pool: Mempool<'p>,
    /// UPF or echo.
    pub mode: Mode,
    /// The End Markers to send (the first worker's only).
    pub end_markers: Option<EndMarkerInbox>,
    /// Read the clock every loop: held-back downlink rules start at their tick (the impairment
    /// `far_update_delay`).
    pub precise_clock: bool,
}

/// The inner IPv4 destination, from the start of the inner packet.
const IPV4_DESTINATION_AT: usize = ipv4::field::DESTINATION.start;

/// Loops between publications of the counters.
const PUBLISH_EVERY: u32 = 1024;
/// Loops between two readings of the clock when no impairment needs each burst's.
const CLOCK_EVERY: u32 = 64;

impl<'p> ReflectorWorker<'p> {
    /// Polls both ports, forwarding or echoing what comes, until `stop`; publishes its counters
    /// into `cell` as it goes; returns them.
    pub fn poll_until_stopped(self, stop: &StopFlag, cell: &CounterCell) -> ReflectorCounters {
        let ReflectorWorker {
            mut ports,
            mut table,
            interfaces,
            gateways,
            mut service,
            mut next_hops,
            mut impair,
            pool,
            mode,
            mut end_markers,
            precise_clock,
        } = self;
        let mut c = ReflectorCounters::default();
        let mut bursts = [MbufBurst::<RX_BURST>::new(), MbufBurst::<RX_BURST>::new()];
        // Per port, what waits for its transmit queue: a full queue holds packets back here
        // (in order) instead of dropping them; only a full backlog drops.
        let mut out: [MbufBurst<'p, BACKLOG>; 2] = [MbufBurst::new(), MbufBurst::new()];
        let mut encaps = EncapCache::new(interfaces[Side::N3.index()]);
        let mut n6_next_hop: Option<(u32, MacAddr)> = None;
        if mode == Mode::Upf {
            for side in Side::BOTH {
                next_hops.want(side, gateways[side.index()]);
            }
        }
        let mut loops = 0u32;
        let mut now = tsc();
        // Between two loops the worker is in no burst: a PMD may unmap what they use then.
        let quiescent = Quiescent::online(current_lcore().unwrap_or(0));
        while !stop.is_stopped() {
            quiescent.pass();
            if table.refresh() && mode == Mode::Upf {
                want_next_hops(
                    &mut next_hops,
                    table.table().gnbs.iter(),
                    &interfaces,
                    gateways,
                );
            }
            for side in Side::BOTH {
                ports[side.index()].rx.rx_burst(&mut bursts[side.index()]);
            }
            // Read after both polls: the delay impairment holds each packet from when it came,
            // and a reading from before a poll would release the packets that came while this
            // thread was descheduled (after that reading) too early. Without impairments only
            // the next hops' and the service plane's timers (ARP, Error Indications a second)
            // use it, which a reading CLOCK_EVERY loops old serves: the read was a sixth of the
            // reflector's own time per packet over memif.
            if impair.is_some() || precise_clock || loops.is_multiple_of(CLOCK_EVERY) {
                now = tsc();
            }
            next_hops.poll(now, &mut service);
            for side in Side::BOTH {
                let rx = &mut bursts[side.index()];
                let n = rx.len();
                if n == 0 {
                    continue;
                }
                c.received[side.index()] += n as u64;
                let to = match (mode, side) {
                    (Mode::Echo(s), _) if s == side => side,
                    (Mode::Echo(_), _) => {
                        // The other port only answers the service plane.
                        for m in rx.iter() {
                            match echo::decide_other_port(m.data()) {
                                EchoVerdict::Drop(kind) => c.dropped[kind as usize] += 1,
                                _ => service.handle_any(side, m.data()),
                            }
                        }
                        rx.clear();
                        continue;
                    }
                    (Mode::Upf, Side::N3) => Side::N6,
                    (Mode::Upf, Side::N6) => Side::N3,
                };
                let t = table.table();
                rx.retain_mut(|m| match (mode, side) {
                    (Mode::Echo(_), _) => echo_one(m, side, &mut service, &mut c),
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
                        forward::from_n6(t, m.data(), now),
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
            // In N3's backlog, behind every G-PDU this worker forwarded before.
            if let Some(inbox) = &mut end_markers
                && inbox.pending()
            {
                let o = &mut out[Side::N3.index()];
                send_end_markers(inbox, &mut service, &interfaces, gateways, o, &mut c);
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
                c.service = summary(&service, &next_hops);
                cell.publish(&c);
            }
        }
        if let Some(imp) = &mut impair {
            for i in imp.iter_mut() {
                i.drain(&mut drop);
            }
            c.impair = sum_impairments(imp);
        }
        c.service = summary(&service, &next_hops);
        cell.publish(&c);
        c
    }
}

/// Queues the End Markers ordered in N3's backlog `out` (behind the G-PDUs there), each to its
/// gNB's next hop (resolved already: the old path carried traffic).
#[cold]
fn send_end_markers<'p, const N: usize>(
    inbox: &mut EndMarkerInbox,
    service: &mut ServicePlane<'p>,
    interfaces: &[Interface; 2],
    gateways: [u32; 2],
    out: &mut MbufBurst<'p, N>,
    c: &mut ReflectorCounters,
) {
    inbox.take(|o| {
        let gnb = u32::from(o.gnb);
        let hop = if interfaces[Side::N3.index()].on_link(gnb) {
            gnb
        } else {
            gateways[Side::N3.index()]
        };
        let Some(mac) = service.neighbor(Side::N3, hop) else {
            tracing::warn!("no next hop for the End Marker to {}", o.gnb);
            return;
        };
        if let Some(m) = service.end_marker(mac, o.gnb, o.teid)
            && out.push(m).is_err()
        {
            c.dropped[Drop::TxFull as usize] += 1;
        }
    });
}

/// The N3 next hops toward `gnbs` (each on the link, or through the N3 gateway), and the N6
/// gateway: to resolve, or to ask for again if they have not answered yet.
fn want_next_hops<'a>(
    hops: &mut NextHops,
    gnbs: impl Iterator<Item = &'a u32>,
    interfaces: &[Interface; 2],
    gateways: [u32; 2],
) {
    let n3 = &interfaces[Side::N3.index()];
    for &gnb in gnbs {
        let hop = if n3.on_link(gnb) {
            gnb
        } else {
            gateways[Side::N3.index()]
        };
        hops.want(Side::N3, hop);
    }
    hops.want(Side::N6, gateways[Side::N6.index()]);
}

fn summary(service: &ServicePlane<'_>, hops: &NextHops) -> ServiceSummary {
    let s = service.counters();
    ServiceSummary {
        frames: [s.seen[0].iter().sum(), s.seen[1].iter().sum()],
        replies: s.replies,
        arp_requests: s.arp_requests,
        error_indications: s.error_indications,
        error_indications_suppressed: s.error_indications_suppressed,
        end_markers: s.end_markers,
        no_buffer: s.no_buffer,
        tx_refused: s.tx_refused,
        next_hops_resolved: hops.resolved() as u64,
        next_hops_given_up: hops.given_up() as u64,
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
        delayed: a.delayed + b.delayed,
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

/// The MAC of next hop `hop` on `side`, or None (counted, and asked for by ARP, paced by the
/// service plane) while it is not known. Hop 0 is no next hop at all: nothing to ask for.
#[inline]
fn next_hop_mac(
    service: &mut ServicePlane<'_>,
    side: Side,
    hop: u32,
    now: u64,
    c: &mut ReflectorCounters,
) -> Option<MacAddr> {
    if let Some(mac) = service.neighbor(side, hop) {
        return Some(mac);
    }
    if hop != 0 {
        service.resolve(side, hop, now);
    }
    c.dropped[Drop::NoNeighbor as usize] += 1;
    None
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
            let at = inner_offset + IPV4_DESTINATION_AT;
            let dst = u32::from_be_bytes([d[at], d[at + 1], d[at + 2], d[at + 3]]);
            let hop = if n6.on_link(dst) { dst } else { gateway };
            let mac = match *next_hop {
                Some((ip, mac)) if ip == hop => mac,
                _ => match next_hop_mac(service, Side::N6, hop, now, c) {
                    Some(mac) => {
                        *next_hop = Some((hop, mac));
                        mac
                    }
                    None => return false,
                },
            };
            let strip = inner_offset - ETHERNET_LEN;
            let excess = m.len() - inner_offset - inner_len;
            if m.adj(strip).is_err() || m.trim(excess).is_err() {
                c.dropped[Drop::NoRoom as usize] += 1;
                return false;
            }
            let eth = &mut m.data_mut()[..ETHERNET_LEN];
            eth[ethernet::field::DESTINATION].copy_from_slice(&mac.0);
            eth[ethernet::field::SOURCE].copy_from_slice(&n6.mac.0);
            eth[ethernet::field::ETHERTYPE].copy_from_slice(&ETHERTYPE_IPV4.to_be_bytes());
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
            let Some(mac) = next_hop_mac(service, Side::N3, hop, now, c) else {
                return false;
            };
            let Some(encap) = encaps.get(rule.gnb, rule.qfi, mac) else {
                c.dropped[Drop::NoRoom as usize] += 1;
                return false;
            };
            encap.set_teid(rule.teid);
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

/// Echo mode on the echo port: swaps `m`'s addresses in place (true: send it back), or hands
/// it to the service plane, or counts it dropped (see [`super::echo`]).
#[inline]
fn echo_one(
    m: &mut Mbuf<'_>,
    side: Side,
    service: &mut ServicePlane<'_>,
    c: &mut ReflectorCounters,
) -> bool {
    match echo::decide(m.data()) {
        EchoVerdict::Echo { udp_at } => {
            echo::swap(m.data_mut(), udp_at);
            true
        }
        EchoVerdict::Service => {
            service.handle_any(side, m.data());
            false
        }
        EchoVerdict::Drop(kind) => {
            c.dropped[kind as usize] += 1;
            false
        }
    }
}
