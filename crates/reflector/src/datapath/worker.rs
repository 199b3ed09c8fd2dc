//! A reflector worker: a minimal UPF's datapath between N3 and N6 (see [`super::forward`]), or
//! an echo on one port, with optional impairments, and the service plane on both ports.
//!
//! Frames are forwarded in place: the mbuf that arrived is rewritten (outer headers stripped or
//! prepended) and handed to the other port's transmit queue, in arrival order, a burst at a
//! time. Without impairments a received burst becomes the transmitted burst (one bulk free for
//! what is dropped); with impairments each packet goes through them one by one.

use std::net::IpAddr;

use upfbench_dpdk::{Mbuf, MbufBurst, Mempool, Quiescent, StopFlag, current_lcore, tsc};
use upfbench_net::MacAddr;
use upfbench_net::ethernet::{self, ETHERTYPE_IPV4, ETHERTYPE_IPV6, HEADER_LEN as ETHERNET_LEN};
use upfbench_net::ipv4;

use super::counters::{CounterCell, ReflectorCounters, ServiceSummary};
use super::echo::{self, EchoVerdict};
use super::encap::EncapCache;
use super::end_marker::EndMarkerInbox;
use super::forward::{self, Drop, FromN3, FromN6};
use super::impair::{ImpairCounters, Impairments, starts_a_flow};
use super::route::Route;
use super::route6::next_hop_mac_v6;
use super::rules::TableReader;
use super::tags;
use upfbench_datapath::next_hops::NextHops;
use upfbench_datapath::queues::{PortQueues, RX_BURST, Side};
use upfbench_datapath::service::ServicePlane;
use upfbench_datapath::vlan::{PortTags, PortVlans};

/// What the reflector does with what it receives.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Mode {
    /// A minimal UPF between N3 and N6.
    Upf,
    /// Swap addresses and send back on the port it came from (see [`super::echo`]).
    Echo(Side),
}

/// A reflector worker and what it owns.
pub(crate) struct ReflectorWorker<'p> {
    /// Its queues, by [`Side`].
    pub ports: [PortQueues<'p>; 2],
    /// The forwarding rules.
    pub table: TableReader,
    /// Per port of its pair, by [`Side`], where it sends (N3: toward the gNBs; N6: toward the
    /// data network): our addresses, the gateway for destinations off the subnet if any
    /// (without one only destinations on the subnet are reached), an IPv6 port's route.
    pub routes: [Route; 2],
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
    /// The ports' VLAN tags, and one-port mode.
    pub vlans: PortVlans,
    /// UPF or echo.
    pub mode: Mode,
    /// The End Markers to send (the first worker's only).
    pub end_markers: Option<EndMarkerInbox>,
    /// Read the clock every loop: held-back downlink rules start at their tick (the impairment
    /// `far_update_delay`).
    pub(crate) precise_clock: bool,
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
    pub(crate) fn poll_until_stopped(
        self,
        stop: &StopFlag,
        cell: &CounterCell,
    ) -> ReflectorCounters {
        let (mut ports, mut w) = Forwarder::new(self);
        let mut bursts = [MbufBurst::<RX_BURST>::new(), MbufBurst::<RX_BURST>::new()];
        // On tagged ports, what was received sorted by the port its tags name.
        let mut roles = [
            MbufBurst::<{ 2 * RX_BURST }>::new(),
            MbufBurst::<{ 2 * RX_BURST }>::new(),
        ];
        // Per port, what waits for its transmit queue: a full queue holds packets back here
        // (in order) instead of dropping them; only a full backlog drops.
        let mut out: [MbufBurst<'p, BACKLOG>; 2] = [MbufBurst::new(), MbufBurst::new()];
        let mut loops = 0u32;
        let mut now = tsc();
        // Between two loops the worker is in no burst: a PMD may unmap what they use then.
        let quiescent = Quiescent::online(current_lcore().unwrap_or(0));
        while !stop.is_stopped() {
            quiescent.pass();
            w.refresh_rules();
            for side in Side::BOTH {
                ports[side.index()].rx.rx_burst(&mut bursts[side.index()]);
            }
            // Read after both polls: the delay impairment holds each packet from when it came,
            // and a reading from before a poll would release the packets that came while this
            // thread was descheduled (after that reading) too early. Without impairments only
            // the next hops' and the service plane's timers (ARP, Error Indications a second)
            // use it, which a reading CLOCK_EVERY loops old serves: the read was a sixth of the
            // reflector's own time per packet over memif.
            if w.impair.is_some() || w.precise_clock || loops.is_multiple_of(CLOCK_EVERY) {
                now = tsc();
            }
            w.next_hops.poll(now, &mut w.service);
            if w.vlans.any() {
                for side in Side::BOTH {
                    w.untag(side, &mut bursts[side.index()], &mut roles);
                }
                for side in Side::BOTH {
                    w.handle_burst(side, &mut roles[side.index()], &mut out, now);
                }
            } else {
                for side in Side::BOTH {
                    w.handle_burst(side, &mut bursts[side.index()], &mut out, now);
                }
            }
            w.release_impaired(&mut out, now);
            // In N3's backlog, behind every G-PDU this worker forwarded before.
            w.queue_end_markers(&mut out[Side::N3.index()]);
            for side in Side::BOTH {
                let o = &mut out[side.index()];
                if !o.is_empty() {
                    ports[side.index()].tx.tx_burst(o);
                }
            }
            for side in Side::BOTH {
                w.service.flush(side, &mut ports[side.index()].tx);
            }
            loops = loops.wrapping_add(1);
            if loops.is_multiple_of(PUBLISH_EVERY) {
                w.publish(cell);
            }
        }
        w.finish(cell)
    }
}

/// A worker's state between its queues: what the loop forwards, echoes, impairs and answers
/// with, and its counters.
struct Forwarder<'p> {
    table: TableReader,
    /// Per port, where it sends (N3: toward the gNBs; N6: toward the data network).
    routes: [Route; 2],
    service: ServicePlane<'p>,
    next_hops: NextHops,
    impair: Option<[Impairments<Mbuf<'p>>; 2]>,
    pool: Mempool<'p>,
    vlans: PortVlans,
    mode: Mode,
    end_markers: Option<EndMarkerInbox>,
    /// The clock is read every loop: for `far_update_delay`, or while the table has flows
    /// (a QER's bucket counts time).
    precise_clock: bool,
    /// The clock is read every loop whatever the table (`far_update_delay`).
    always_precise: bool,
    /// The G-PDU headers toward each gNB.
    encaps: EncapCache,
    /// The last next hop on N6 and its MAC.
    n6_next_hop: Option<(u32, MacAddr)>,
    c: ReflectorCounters,
}

impl<'p> Forwarder<'p> {
    /// The worker's queues, and the rest of it ready to forward: in upf mode, the gateways
    /// asked for from the start.
    fn new(worker: ReflectorWorker<'p>) -> ([PortQueues<'p>; 2], Forwarder<'p>) {
        let ReflectorWorker {
            ports,
            table,
            routes,
            service,
            mut next_hops,
            impair,
            pool,
            vlans,
            mode,
            end_markers,
            precise_clock,
        } = worker;
        if mode == Mode::Upf {
            for side in Side::BOTH {
                if let Some(gateway) = routes[side.index()].gateway {
                    next_hops.want(side, gateway);
                }
                if let Some(gateway) = routes[side.index()].v6.and_then(|r| r.gateway) {
                    next_hops.want_addr(side, IpAddr::V6(gateway));
                }
            }
        }
        let n3 = routes[Side::N3.index()];
        let our_n3_v6 = n3.v6.map(|r| r.interface.address);
        let forwarder = Forwarder {
            table,
            routes,
            service,
            next_hops,
            impair,
            pool,
            vlans,
            mode,
            end_markers,
            precise_clock,
            always_precise: precise_clock,
            encaps: EncapCache::new(n3.interface).with_ipv6(our_n3_v6),
            n6_next_hop: None,
            c: ReflectorCounters::default(),
        };
        (ports, forwarder)
    }

    /// Takes a new rules table if one was published; in upf mode, its gNBs' next hops are
    /// asked for (and the ones not answered yet asked again).
    #[inline]
    fn refresh_rules(&mut self) {
        if self.table.refresh() && self.mode == Mode::Upf {
            let t = self.table.table();
            self.encaps.set_gnbs_v6(&t.gnbs_v6);
            want_next_hops(
                &mut self.next_hops,
                t.gnbs.iter(),
                &self.routes,
                &self.encaps,
            );
            // A bucket refills by the clock: read it every loop while a QER may police (a
            // reading 64 loops old lags by milliseconds under load).
            self.precise_clock = self.always_precise
                || !t.uplink_flows.is_empty()
                || !t.downlink_flows.is_empty()
                || t.downlink_v6.has_flows();
        }
    }

    /// Forwards (or echoes) burst `rx`, received on `side`, into the backlog `out` of the
    /// port it leaves by, through the impairments if any; in echo mode the other port's
    /// frames only go to the service plane.
    #[inline(always)]
    fn handle_burst<const N: usize>(
        &mut self,
        side: Side,
        rx: &mut MbufBurst<'p, N>,
        out: &mut [MbufBurst<'p, BACKLOG>; 2],
        now: u64,
    ) {
        let n = rx.len();
        if n == 0 {
            return;
        }
        self.c.received[side.index()] += n as u64;
        let to = match (self.mode, side) {
            (Mode::Echo(s), _) if s == side => side,
            (Mode::Echo(_), _) => {
                self.answer_only(side, rx);
                return;
            }
            (Mode::Upf, Side::N3) => Side::N6,
            (Mode::Upf, Side::N6) => Side::N3,
        };
        self.rewrite(side, rx, now);
        self.queue_burst(to, rx, &mut out[to.index()], now);
    }

    /// Sorts burst `rx`, received on `side`'s queue of a tagged port, into `roles` by its tags,
    /// removed (see [`tags::untag`]).
    #[inline]
    fn untag<const N: usize, const M: usize>(
        &mut self,
        side: Side,
        rx: &mut MbufBurst<'p, N>,
        roles: &mut [MbufBurst<'p, M>; 2],
    ) {
        let no_room = &mut self.c.dropped[Drop::NoRoom as usize];
        tags::untag(&self.vlans, side, rx, roles, &mut self.service, no_room);
    }

    /// Echo mode, the port that does not echo: its frames go to the service plane or are
    /// counted dropped.
    #[inline]
    fn answer_only<const N: usize>(&mut self, side: Side, rx: &mut MbufBurst<'p, N>) {
        for m in rx.iter() {
            match echo::decide_other_port(m.data()) {
                EchoVerdict::Drop(kind) => self.c.dropped[kind as usize] += 1,
                _ => self.service.handle_untagged(side, m.data()),
            }
        }
        rx.clear();
    }

    /// Rewrites burst `rx`, received on `side`, in place for the port it leaves by (echoed,
    /// decapsulated or encapsulated), keeping only what is forwarded.
    #[inline(always)]
    fn rewrite<const N: usize>(&mut self, side: Side, rx: &mut MbufBurst<'p, N>, now: u64) {
        let Forwarder {
            table,
            routes,
            service,
            mode,
            encaps,
            n6_next_hop,
            c,
            ..
        } = self;
        let t = table.table();
        rx.retain_mut(|m| match (*mode, side) {
            (Mode::Echo(_), _) => echo_one(m, side, service, c),
            (Mode::Upf, Side::N3) => uplink(
                m,
                forward::from_n3(t, m.data(), now),
                &routes[Side::N6.index()],
                n6_next_hop,
                service,
                now,
                c,
            ),
            (Mode::Upf, Side::N6) => downlink(
                m,
                forward::from_n6(t, m.data(), now),
                &routes[Side::N3.index()],
                encaps,
                service,
                now,
                c,
            ),
        });
    }

    /// Moves what is left of `rx` into port `to`'s backlog `out`, through the impairments if
    /// any (which may hold, drop or copy each packet).
    #[inline(always)]
    fn queue_burst<const N: usize>(
        &mut self,
        to: Side,
        rx: &mut MbufBurst<'p, N>,
        out: &mut MbufBurst<'p, BACKLOG>,
        now: u64,
    ) {
        let (mode, c) = (self.mode, &mut self.c);
        let tags = &self.vlans.tags[to.index()];
        match &mut self.impair {
            None => rx.drain_each(|m| queue(out, m, (mode, to, tags), c)),
            Some(imp) => {
                let (imp, pool) = (&mut imp[to.index()], &self.pool);
                // The tag is read only for the rate cap, which restarts at each flow's start.
                let caps = imp.caps_rate();
                rx.drain_each(|m| {
                    let first = caps && starts_a_flow(m.data());
                    imp.push(now, m, first, |m| copy(pool, m), &mut drop, &mut |m| {
                        queue(out, m, (mode, to, tags), c)
                    });
                });
            }
        }
    }

    /// Queues the packets the impairments release at `now` into their ports' backlogs `out`.
    #[inline]
    fn release_impaired(&mut self, out: &mut [MbufBurst<'p, BACKLOG>; 2], now: u64) {
        let (mode, c) = (self.mode, &mut self.c);
        if let Some(imp) = &mut self.impair {
            for side in Side::BOTH {
                let o = &mut out[side.index()];
                let tags = &self.vlans.tags[side.index()];
                imp[side.index()].poll(now, &mut |m| queue(o, m, (mode, side, tags), c));
            }
            c.impair = sum_impairments(imp);
        }
    }

    /// Queues the End Markers ordered, if any, in N3's backlog `out`.
    #[inline]
    fn queue_end_markers(&mut self, out: &mut MbufBurst<'p, BACKLOG>) {
        if let Some(inbox) = &mut self.end_markers
            && inbox.pending()
        {
            let route = &self.routes[Side::N3.index()];
            send_end_markers(inbox, &mut self.service, route, out, &mut self.c);
        }
    }

    /// Publishes the counters, the service plane's summary with them.
    fn publish(&mut self, cell: &CounterCell) {
        self.c.service = summary(&self.service, &self.next_hops);
        cell.publish(&self.c);
    }

    /// At the end: what the impairments still hold is dropped, and the counters published
    /// and returned.
    fn finish(mut self, cell: &CounterCell) -> ReflectorCounters {
        if let Some(imp) = &mut self.impair {
            for i in imp.iter_mut() {
                i.drain(&mut drop);
            }
            self.c.impair = sum_impairments(imp);
        }
        self.publish(cell);
        self.c
    }
}

/// Queues the End Markers ordered in N3's backlog `out` (behind the G-PDUs there), each to its
/// gNB's next hop on `route` (resolved already: the old path carried traffic).
#[cold]
fn send_end_markers<'p, const N: usize>(
    inbox: &mut EndMarkerInbox,
    service: &mut ServicePlane<'p>,
    route: &Route,
    out: &mut MbufBurst<'p, N>,
    c: &mut ReflectorCounters,
) {
    inbox.take(|o| {
        let mac = route
            .next_hop(u32::from(o.gnb))
            .and_then(|hop| service.neighbor(Side::N3, hop));
        let Some(mac) = mac else {
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
    routes: &[Route; 2],
    encaps: &EncapCache,
) {
    let n3 = &routes[Side::N3.index()];
    for &gnb in gnbs {
        match &n3.v6 {
            None => {
                if let Some(hop) = n3.next_hop(gnb) {
                    hops.want(Side::N3, hop);
                }
            }
            // On an IPv6 N3 a gNB's key names its IPv6 address.
            Some(r6) => {
                if let Some(hop) = encaps.gnb_v6(gnb).and_then(|g| r6.next_hop(g)) {
                    hops.want_addr(Side::N3, IpAddr::V6(hop));
                }
            }
        }
    }
    let n6 = &routes[Side::N6.index()];
    if let Some(gateway) = n6.gateway {
        hops.want(Side::N6, gateway);
    }
    if let Some(gateway) = n6.v6.and_then(|r| r.gateway) {
        hops.want_addr(Side::N6, IpAddr::V6(gateway));
    }
}

fn summary(service: &ServicePlane<'_>, hops: &NextHops) -> ServiceSummary {
    let s = service.counters();
    ServiceSummary {
        frames: [s.seen[0].iter().sum(), s.seen[1].iter().sum()],
        replies: s.replies,
        arp_requests: s.arp_requests,
        neighbor_solicitations: s.neighbor_solicitations,
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

/// Queues `m` to leave by port `to`, tagged with its `tags`, and counts it as forwarded (or
/// echoed), or drops it when the backlog is full: packets are counted where they leave, after
/// the impairments.
#[inline(always)]
fn queue<'p>(
    out: &mut MbufBurst<'p, BACKLOG>,
    mut m: Mbuf<'p>,
    (mode, to, tags): (Mode, Side, &PortTags),
    c: &mut ReflectorCounters,
) {
    if !tags::tag(&mut m, tags) {
        c.dropped[Drop::NoRoom as usize] += 1;
        return;
    }
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

/// The MAC of next hop `hop` on `side`, or None while it is not known (counted `no_neighbor`,
/// and asked for by ARP, paced by the service plane). No hop at all (off the subnet, no
/// gateway): nothing to ask for, counted `no_route`.
#[inline]
fn next_hop_mac(
    service: &mut ServicePlane<'_>,
    side: Side,
    hop: Option<u32>,
    now: u64,
    c: &mut ReflectorCounters,
) -> Option<MacAddr> {
    let Some(hop) = hop else {
        c.dropped[Drop::NoRoute as usize] += 1;
        return None;
    };
    if let Some(mac) = service.neighbor(side, hop) {
        return Some(mac);
    }
    service.resolve(side, hop, now);
    c.dropped[Drop::NoNeighbor as usize] += 1;
    None
}

/// Rewrites an uplink G-PDU into its inner packet behind an Ethernet header toward the next
/// hop on N6 (`n6`); true to keep (forward) it. Over an IPv4 N6 an IPv6 inner packet goes to
/// N6's gateway (no IPv6 destination is on its subnet); over an IPv6 N6 (no IPv4 next hop)
/// the packet goes by its IPv6 route ([`Route6::uplink_hop`]). The EtherType is the inner
/// packet's.
#[inline]
fn uplink(
    m: &mut Mbuf<'_>,
    decision: FromN3,
    n6: &Route,
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
            let d = m.data();
            let v6 = d.get(inner_offset).is_some_and(|b| b >> 4 == 6);
            let hop = if v6 {
                n6.gateway
            } else {
                let at = inner_offset + IPV4_DESTINATION_AT;
                n6.next_hop(u32::from_be_bytes([d[at], d[at + 1], d[at + 2], d[at + 3]]))
            };
            let mac = match (*next_hop, hop) {
                (Some((ip, mac)), Some(hop)) if ip == hop => mac,
                (_, None) if n6.v6.is_some() => {
                    let hop6 = n6.v6.and_then(|r| r.uplink_hop(d, inner_offset));
                    match next_hop_mac_v6(service, Side::N6, hop6, now, c) {
                        Some(mac) => mac,
                        None => return false,
                    }
                }
                _ => match next_hop_mac(service, Side::N6, hop, now, c) {
                    Some(mac) => {
                        // A MAC comes only with a hop.
                        *next_hop = hop.map(|hop| (hop, mac));
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
            eth[ethernet::field::SOURCE].copy_from_slice(&n6.interface.mac.0);
            let ethertype = if v6 { ETHERTYPE_IPV6 } else { ETHERTYPE_IPV4 };
            eth[ethernet::field::ETHERTYPE].copy_from_slice(&ethertype.to_be_bytes());
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
        FromN3::Service(_) => {
            service.handle_untagged(Side::N3, m.data());
            false
        }
    }
}

/// Rewrites a downlink packet into a G-PDU toward its tunnel, by the next hop on N3 (`n3`);
/// true to keep (forward) it.
#[inline]
fn downlink(
    m: &mut Mbuf<'_>,
    decision: FromN6,
    n3: &Route,
    encaps: &mut EncapCache,
    service: &mut ServicePlane<'_>,
    now: u64,
    c: &mut ReflectorCounters,
) -> bool {
    match decision {
        FromN6::Encapsulate(rule, len) => {
            let mac = match &n3.v6 {
                None => next_hop_mac(service, Side::N3, n3.next_hop(rule.gnb), now, c),
                // On an IPv6 N3 the rule's gNB is a key into the table's IPv6 gNBs.
                Some(r6) => {
                    let hop = encaps.gnb_v6(rule.gnb).and_then(|g| r6.next_hop(g));
                    next_hop_mac_v6(service, Side::N3, hop, now, c)
                }
            };
            let Some(mac) = mac else {
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
        FromN6::Service(_) => {
            service.handle_untagged(Side::N6, m.data());
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
            service.handle_untagged(side, m.data());
            false
        }
        EchoVerdict::Drop(kind) => {
            c.dropped[kind as usize] += 1;
            false
        }
    }
}
