//! The service plane of a port: answers ARP, Neighbor Discovery, ICMP and ICMPv6 echo and
//! GTP-U echo for our addresses, learns the neighbours' MAC addresses, resolves them by ARP or
//! Neighbor Solicitation, and sends GTP-U Error Indications. It runs only for frames the fast
//! path hands over (never per packet of the measured traffic); answers are built in mbufs of its
//! own small pool and queued per port until the worker's next flush.
//!
//! A tagged port ([`with_vlan`](ServicePlane::with_vlan)) tags everything the service plane
//! sends with its tags, and handles only received frames that carry them: others are counted
//! ([`Seen::OtherVlan`]) and dropped. Neighbours are kept per family: the IPv4 table is keyed
//! by the address as a `u32`, as before IPv6 came, so that the IPv4 lookups cost what they did.

mod limit;
mod respond;
mod respond6;

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};
use std::time::Duration;

use upfbench_dpdk::{Mbuf, MbufBurst, Mempool, StrippedTags, TxQueue};
use upfbench_net::{MacAddr, Teid};

pub use limit::ErrorIndicationLimit;
pub use respond::{
    Interface, Outcome, Seen, arp_request, end_marker, error_indication, respond, respond_port,
};
pub use respond6::{Interface6, neighbor_solicitation, port_interfaces};

use super::next_hops::Arp;
use super::queues::Side;
use super::vlan::PortTags;

/// Neighbours remembered per port.
const NEIGHBOURS: usize = 16;
/// Replies queued per port between flushes.
const PENDING: usize = 32;
/// At most one ARP request per address this often, unless set otherwise (the files' default
/// `arp.timeout`).
const DEFAULT_ARP_RETRY: Duration = Duration::from_secs(1);
/// Error Indications per second at most (and at once), unless set otherwise.
pub(crate) const DEFAULT_ERROR_INDICATIONS_PER_S: u32 = 100;

/// What the service plane may have to answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Service {
    /// An ARP packet.
    Arp,
    /// An ICMP packet.
    Icmp,
    /// An ICMPv6 packet (Neighbor Discovery, echo).
    Icmpv6,
    /// GTP-U signalling on N3 (Echo, Error Indication, End Marker, ...), with its message type.
    Gtpu(u8),
}

/// What the service plane did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ServiceCounters {
    /// Frames handed over, per port ([`Side`]), by what they were.
    pub seen: [[u64; Seen::COUNT]; 2],
    /// Replies sent.
    pub replies: u64,
    /// ARP requests sent to resolve a neighbour.
    pub arp_requests: u64,
    /// Neighbor Solicitations sent to resolve an IPv6 neighbour.
    pub neighbor_solicitations: u64,
    /// Error Indications sent.
    pub error_indications: u64,
    /// Error Indications not sent (over the rate limit).
    pub error_indications_suppressed: u64,
    /// End Markers queued (the reflector's, after a path switch with SNDEM).
    pub end_markers: u64,
    /// Frames not queued: no mbuf, or no room in the pending burst.
    pub no_buffer: u64,
    /// Frames the transmit queue did not take (its link down, or the queue full).
    pub tx_refused: u64,
}

/// A neighbour: its address (IPv4 as a `u32`, IPv6 as a `u128`), its MAC, and whether the MAC
/// came in an answer to ours, an ARP reply or a Neighbor Advertisement (confirmed), or only in
/// the neighbour's own request (learned in passing: usable, but not an answer to ours).
#[derive(Debug, Clone, Copy, Default)]
struct Neighbour<K> {
    ip: K,
    mac: MacAddr,
    confirmed: bool,
}

/// A small table of neighbours of one family, newest replacing oldest.
#[derive(Debug, Clone, Copy)]
struct Neighbours<K> {
    entries: [Neighbour<K>; NEIGHBOURS],
    len: usize,
    next: usize,
}

impl<K: Copy + Default> Default for Neighbours<K> {
    fn default() -> Self {
        Neighbours {
            entries: [Neighbour::default(); NEIGHBOURS],
            len: 0,
            next: 0,
        }
    }
}

impl<K: Copy + Eq> Neighbours<K> {
    #[inline]
    fn find(&self, ip: K) -> Option<&Neighbour<K>> {
        self.entries[..self.len].iter().find(|e| e.ip == ip)
    }

    fn learn(&mut self, ip: K, mac: MacAddr, confirmed: bool) {
        if let Some(e) = self.entries[..self.len].iter_mut().find(|e| e.ip == ip) {
            e.mac = mac;
            e.confirmed |= confirmed;
            return;
        }
        let entry = Neighbour { ip, mac, confirmed };
        if self.len < NEIGHBOURS {
            self.entries[self.len] = entry;
            self.len += 1;
        } else {
            self.entries[self.next] = entry;
            self.next = (self.next + 1) % NEIGHBOURS;
        }
    }
}

/// What a port has besides its IPv4 [`Interface`]: an IPv6 address, VLAN tags.
#[derive(Debug, Clone, Copy, Default)]
struct PortExtras {
    v6: Option<Interface6>,
    tags: PortTags,
}

/// The service plane of one worker, for both ports.
pub struct ServicePlane<'e> {
    interfaces: [Interface; 2],
    ports: [PortExtras; 2],
    pool: Mempool<'e>,
    pending: [MbufBurst<'e, PENDING>; 2],
    neighbours: [Neighbours<u32>; 2],
    neighbours6: [Neighbours<u128>; 2],
    /// Last ARP request per (port, address): (address, time in ns).
    asked: [[(u32, u64); 4]; 2],
    /// Last Neighbor Solicitation per (port, address): (address, time in ns).
    asked6: [[(u128, u64); 4]; 2],
    arp_retry_ns: u64,
    ei_limit: ErrorIndicationLimit,
    tsc_hz: u64,
    counters: ServiceCounters,
    /// N3 and N6 on one device: a frame with the other port's tags is the other port's.
    one_port: bool,
}

impl<'e> ServicePlane<'e> {
    /// A service plane answering for `interfaces` (by [`Side`]), building answers in `pool`,
    /// with neighbours known in advance (configured MACs).
    pub fn new(
        interfaces: [Interface; 2],
        pool: Mempool<'e>,
        tsc_hz: u64,
        known: &[(Side, Ipv4Addr, MacAddr)],
    ) -> ServicePlane<'e> {
        let mut neighbours = [Neighbours::default(); 2];
        for &(side, ip, mac) in known {
            neighbours[side.index()].learn(u32::from(ip), mac, true);
        }
        ServicePlane {
            interfaces,
            ports: [PortExtras::default(); 2],
            pool,
            pending: [MbufBurst::new(), MbufBurst::new()],
            neighbours,
            neighbours6: [Neighbours::default(); 2],
            asked: [[(0, 0); 4]; 2],
            asked6: [[(0, 0); 4]; 2],
            arp_retry_ns: DEFAULT_ARP_RETRY.as_nanos() as u64,
            ei_limit: ErrorIndicationLimit::new(DEFAULT_ERROR_INDICATIONS_PER_S, 1),
            tsc_hz: tsc_hz.max(1),
            counters: ServiceCounters::default(),
            one_port: false,
        }
    }

    /// N3 and N6 on one device (one-port mode): a frame received on either port's queue is
    /// handled as the port's whose tags it carries (a NIC's RSS, or af_packet's fanout over
    /// several queues, may put it on the other's).
    pub fn with_one_port(mut self, one_port: bool) -> Self {
        self.one_port = one_port;
        self
    }

    /// Gives `side` the IPv6 address `v6`: Neighbor Discovery, ICMPv6 and GTP-U echo are
    /// answered for it, IPv6 neighbours resolved from it.
    pub fn with_ipv6(mut self, side: Side, v6: Interface6) -> Self {
        self.ports[side.index()].v6 = Some(v6);
        self
    }

    /// Tags everything sent on `side` with `tags`, and handles only the frames received there
    /// that carry them ([`handle_any`](Self::handle_any)).
    pub fn with_vlan(mut self, side: Side, tags: PortTags) -> Self {
        self.ports[side.index()].tags = tags;
        self
    }

    /// Knows neighbour `ip` on `side` at `mac` from the start (a configured MAC), of either
    /// family.
    pub fn with_neighbour(mut self, side: Side, ip: IpAddr, mac: MacAddr) -> Self {
        self.learn(side, ip, mac, true);
        self
    }

    /// Sends the Error Indications `limit` allows (the worker's share of the process's rate).
    pub fn with_error_indication_limit(mut self, limit: ErrorIndicationLimit) -> Self {
        self.ei_limit = limit;
        self
    }

    /// Asks for one address at most once per `retry` ([`resolve`](Self::resolve)): the
    /// file's `arp.timeout`.
    pub fn with_arp_retry(mut self, retry: Duration) -> Self {
        self.arp_retry_ns = u64::try_from(retry.as_nanos()).unwrap_or(u64::MAX);
        self
    }

    /// `interval` in TSC ticks, for pacing by the TSC (as [`resolve`](Self::resolve)'s `now`).
    pub fn ticks(&self, interval: Duration) -> u64 {
        u64::try_from(interval.as_nanos() * u128::from(self.tsc_hz) / 1_000_000_000)
            .unwrap_or(u64::MAX)
    }

    /// Our interface on `side`.
    pub fn interface(&self, side: Side) -> &Interface {
        &self.interfaces[side.index()]
    }

    /// What was done so far.
    pub fn counters(&self) -> &ServiceCounters {
        &self.counters
    }

    /// The MAC of neighbour `ip` on `side`, if known.
    #[inline]
    pub fn neighbor(&self, side: Side, ip: u32) -> Option<MacAddr> {
        self.neighbours[side.index()].find(ip).map(|n| n.mac)
    }

    /// Whether neighbour `ip` on `side` answered an ARP request (or was configured).
    pub fn confirmed(&self, side: Side, ip: u32) -> bool {
        self.neighbours[side.index()]
            .find(ip)
            .is_some_and(|n| n.confirmed)
    }

    /// The MAC of IPv6 neighbour `ip` on `side`, if known.
    #[inline]
    pub fn neighbor_v6(&self, side: Side, ip: Ipv6Addr) -> Option<MacAddr> {
        self.neighbours6[side.index()]
            .find(u128::from(ip))
            .map(|n| n.mac)
    }

    /// The MAC of neighbour `ip` (either family) on `side`, if known.
    pub fn neighbor_ip(&self, side: Side, ip: IpAddr) -> Option<MacAddr> {
        match ip {
            IpAddr::V4(a) => self.neighbor(side, u32::from(a)),
            IpAddr::V6(a) => self.neighbor_v6(side, a),
        }
    }

    /// Whether neighbour `ip` (either family) on `side` answered our request (an ARP reply,
    /// a Neighbor Advertisement) or was configured.
    pub fn confirmed_ip(&self, side: Side, ip: IpAddr) -> bool {
        match ip {
            IpAddr::V4(a) => self.confirmed(side, u32::from(a)),
            IpAddr::V6(a) => self.neighbours6[side.index()]
                .find(u128::from(a))
                .is_some_and(|n| n.confirmed),
        }
    }

    fn learn(&mut self, side: Side, ip: IpAddr, mac: MacAddr, confirmed: bool) {
        match ip {
            IpAddr::V4(a) => self.neighbours[side.index()].learn(u32::from(a), mac, confirmed),
            IpAddr::V6(a) => self.neighbours6[side.index()].learn(u128::from(a), mac, confirmed),
        }
    }

    /// Handles a frame the classifier gave to the service plane (`kind` is its guess; the
    /// answer does not depend on it).
    pub fn handle(&mut self, side: Side, _kind: Service, frame: &[u8]) {
        self.handle_any(side, frame);
    }

    /// Handles any frame received on `side`, tagged as it came: answers it if it is for us,
    /// learns from it. On a tagged port a frame without the port's tags is counted
    /// ([`Seen::OtherVlan`]) and dropped.
    pub fn handle_any(&mut self, side: Side, frame: &[u8]) {
        self.handle_received(side, StrippedTags::NONE, frame);
    }

    /// [`Self::handle_any`] for a frame received with `stripped` taken off by the NIC (its
    /// VLAN strip offload): the port's tags are those and what is left in the frame.
    pub fn handle_received(&mut self, side: Side, stripped: StrippedTags, frame: &[u8]) {
        let tags = self.ports[side.index()].tags;
        if tags.is_empty() && stripped.is_empty() {
            self.handle_untagged(side, frame);
            return;
        }
        let other = match side {
            Side::N3 => Side::N6,
            Side::N6 => Side::N3,
        };
        let mine = tags.match_received(stripped, frame).map(|n| (side, n));
        let theirs = || {
            let t = self.ports[other.index()].tags;
            let n = t.match_received(stripped, frame)?;
            self.one_port.then_some((other, n))
        };
        let Some((side, left)) = mine.or_else(theirs) else {
            self.counters.seen[side.index()][Seen::OtherVlan as usize] += 1;
            return;
        };
        let mut untagged = [0u8; 1600];
        let n = frame.len().min(untagged.len() + left) - left;
        untagged[..12].copy_from_slice(&frame[..12]);
        untagged[12..n].copy_from_slice(&frame[12 + left..n + left]);
        self.handle_untagged(side, &untagged[..n]);
    }

    /// Handles a frame received on `side` whose tags the caller checked and removed (the
    /// generator's receive path strips them in place).
    pub fn handle_untagged(&mut self, side: Side, frame: &[u8]) {
        let iface = self.interfaces[side.index()];
        let v6 = self.ports[side.index()].v6;
        let mut out = [0u8; 1600];
        let o = respond_port(&iface, v6.as_ref(), frame, &mut out);
        self.counters.seen[side.index()][o.seen as usize] += 1;
        if let Some((ip, mac)) = o.learned {
            let confirmed = matches!(o.seen, Seen::ArpReply | Seen::NdpAdvert);
            self.learn(side, ip, mac, confirmed);
        }
        if let Some(n) = o.reply
            && self.queue(side, &out[..n])
        {
            self.counters.replies += 1;
        }
    }

    /// `now` (TSC ticks) in ns.
    fn ns(&self, now: u64) -> u64 {
        (u128::from(now) * 1_000_000_000 / u128::from(self.tsc_hz)) as u64
    }

    /// Asks for the MAC of `ip` on `side` by ARP, at most once per ARP retry interval per
    /// address (`now` in TSC ticks).
    pub fn resolve(&mut self, side: Side, ip: u32, now: u64) {
        let now_ns = self.ns(now);
        let retry = self.arp_retry_ns;
        let asked = &mut self.asked[side.index()];
        let slot = match asked.iter().position(|a| a.0 == ip) {
            Some(i) if now_ns.saturating_sub(asked[i].1) < retry && asked[i].1 != 0 => {
                return;
            }
            Some(i) => i,
            None => asked
                .iter()
                .enumerate()
                .min_by_key(|(_, a)| a.1)
                .map_or(0, |(i, _)| i),
        };
        asked[slot] = (ip, now_ns.max(1));
        let iface = self.interfaces[side.index()];
        let mut out = [0u8; 64];
        if let Some(n) = arp_request(&iface, Ipv4Addr::from(ip), &mut out)
            && self.queue(side, &out[..n])
        {
            self.counters.arp_requests += 1;
        }
        // The second address (a handover's target gNB) asks too: the peer learns it in passing,
        // as a UPF knows a gNB it already serves, and its first packets there find it.
        if let Some(also) = iface.secondary {
            let from = Interface {
                address: also,
                ..iface
            };
            if let Some(n) = arp_request(&from, Ipv4Addr::from(ip), &mut out)
                && self.queue(side, &out[..n])
            {
                self.counters.arp_requests += 1;
            }
        }
    }

    /// Asks for the MAC of IPv6 `ip` on `side` by a Neighbor Solicitation, at most once per
    /// retry interval per address (`now` in TSC ticks); nothing on a port without an IPv6
    /// address.
    pub fn resolve_v6(&mut self, side: Side, ip: Ipv6Addr, now: u64) {
        let Some(v6) = self.ports[side.index()].v6 else {
            return;
        };
        let now_ns = self.ns(now);
        let retry = self.arp_retry_ns;
        let key = u128::from(ip);
        let asked = &mut self.asked6[side.index()];
        let slot = match asked.iter().position(|a| a.0 == key) {
            Some(i) if now_ns.saturating_sub(asked[i].1) < retry && asked[i].1 != 0 => {
                return;
            }
            Some(i) => i,
            None => asked
                .iter()
                .enumerate()
                .min_by_key(|(_, a)| a.1)
                .map_or(0, |(i, _)| i),
        };
        asked[slot] = (key, now_ns.max(1));
        let mac = self.interfaces[side.index()].mac;
        let mut out = [0u8; 128];
        for from in [Some(v6.address), v6.secondary].into_iter().flatten() {
            let iface = Interface6 {
                address: from,
                ..v6
            };
            if let Some(n) = neighbor_solicitation(mac, &iface, ip, &mut out)
                && self.queue(side, &out[..n])
            {
                self.counters.neighbor_solicitations += 1;
            }
        }
    }

    /// [`resolve`](Self::resolve) or [`resolve_v6`](Self::resolve_v6) by `ip`'s family.
    pub fn resolve_ip(&mut self, side: Side, ip: IpAddr, now: u64) {
        match ip {
            IpAddr::V4(a) => self.resolve(side, u32::from(a), now),
            IpAddr::V6(a) => self.resolve_v6(side, a, now),
        }
    }

    /// Forgets when `ip` was last asked for on `side`, so that the next
    /// [`resolve`](Self::resolve) asks at once (for a caller that paces its own retries).
    pub(crate) fn forget_request(&mut self, side: Side, ip: IpAddr) {
        match ip {
            IpAddr::V4(ip) => {
                let ip = u32::from(ip);
                for a in self.asked[side.index()].iter_mut().filter(|a| a.0 == ip) {
                    *a = (0, 0);
                }
            }
            IpAddr::V6(ip) => {
                let ip = u128::from(ip);
                for a in self.asked6[side.index()].iter_mut().filter(|a| a.0 == ip) {
                    *a = (0, 0);
                }
            }
        }
    }

    /// Sends an Error Indication for the G-PDU `frame` (received on N3) to the unknown `teid`,
    /// unless over the rate limit (`now` in TSC ticks).
    pub fn error_indication(&mut self, frame: &[u8], teid: Teid, now: u64) {
        let now_ns = self.ns(now);
        let allowed = self.ei_limit.allow(now_ns);
        self.counters.error_indications_suppressed = self.ei_limit.suppressed;
        if !allowed {
            return;
        }
        let iface = self.interfaces[Side::N3.index()];
        let mut out = [0u8; 128];
        if let Some(n) = error_indication(&iface, frame, teid, &mut out)
            && self.queue(Side::N3, &out[..n])
        {
            self.counters.error_indications += 1;
        }
    }

    /// An End Marker on N3 for the tunnel (`teid`, `gnb`) through the next hop whose MAC is
    /// `to_mac`, in an mbuf of the service pool, for the caller to send behind the G-PDUs it
    /// queued; counted here. `None` (counted in `no_buffer`) without an mbuf.
    pub fn end_marker(&mut self, to_mac: MacAddr, gnb: Ipv4Addr, teid: Teid) -> Option<Mbuf<'e>> {
        let iface = self.interfaces[Side::N3.index()];
        let mut out = [0u8; 64];
        let n = end_marker(&iface, to_mac, gnb, teid, &mut out)?;
        let tags = self.ports[Side::N3.index()].tags;
        let mut tagged = [0u8; 72];
        let frame = match tags.tag_into(&out[..n], &mut tagged) {
            Some(t) if !tags.is_empty() => &tagged[..t],
            _ => &out[..n],
        };
        let m = self
            .pool
            .alloc()
            .ok()
            .and_then(|mut m| m.extend_from_slice(frame).is_ok().then_some(m));
        match &m {
            Some(_) => self.counters.end_markers += 1,
            None => self.counters.no_buffer += 1,
        }
        m
    }

    /// Queues `frame` (untagged) for `side`, with the port's tags; false (counted in
    /// `no_buffer`) when there was no room.
    fn queue(&mut self, side: Side, frame: &[u8]) -> bool {
        let Ok(mut m) = self.pool.alloc() else {
            self.counters.no_buffer += 1;
            return false;
        };
        let tags = self.ports[side.index()].tags;
        let written = if tags.is_empty() {
            m.extend_from_slice(frame).map(|_| ())
        } else {
            m.append(frame.len() + tags.len()).map(|out| {
                tags.tag_into(frame, out);
            })
        };
        if written.is_err() {
            self.counters.no_buffer += 1;
            return false;
        }
        if self.pending[side.index()].push(m).is_err() {
            self.counters.no_buffer += 1;
            return false;
        }
        true
    }

    /// Hands a copy of each frame queued for `side` to `txq` (in mbufs of the service pool),
    /// leaving the frames queued for [`flush`](Self::flush): the same requests on several
    /// queues. Returns how many copies it took; a copy it does not take is dropped.
    pub(crate) fn copy_pending(&mut self, side: Side, txq: &mut TxQueue<'e>) -> u64 {
        let mut copies = MbufBurst::<PENDING>::new();
        for m in self.pending[side.index()].iter() {
            let Ok(mut copy) = self.pool.alloc() else {
                self.counters.no_buffer += 1;
                continue;
            };
            if copy.extend_from_slice(m.data()).is_err() || copies.push(copy).is_err() {
                self.counters.no_buffer += 1;
            }
        }
        let taken = txq.tx_burst(&mut copies) as u64;
        self.counters.tx_refused += copies.len() as u64;
        copies.clear();
        taken
    }

    /// Hands what is queued for `side` to its transmit queue; what it does not take is dropped.
    /// Returns how many frames it took. When it refused some, the ARP requests of `side` count
    /// as never asked: the next [`resolve`](Self::resolve) asks at once instead of an ARP retry
    /// interval later (a vhost or memif port refuses everything until its peer connects, and
    /// traffic that comes then would wait out the interval).
    #[inline]
    pub fn flush(&mut self, side: Side, txq: &mut TxQueue<'e>) -> u64 {
        let pending = &mut self.pending[side.index()];
        if pending.is_empty() {
            return 0;
        }
        let taken = txq.tx_burst(pending) as u64;
        if !pending.is_empty() {
            self.counters.tx_refused += pending.len() as u64;
            pending.clear();
            self.asked[side.index()] = [(0, 0); 4];
            self.asked6[side.index()] = [(0, 0); 4];
        }
        taken
    }
}

/// Next-hop resolution through the service plane, by its strict rule: a hop is resolved once it
/// answered our ARP request (or was configured), not when its MAC was only learned from its own
/// request.
impl Arp for ServicePlane<'_> {
    fn resolved(&self, side: Side, ip: IpAddr) -> bool {
        self.confirmed_ip(side, ip)
    }

    fn request(&mut self, side: Side, ip: IpAddr, now: u64) {
        // The next hops pace their own requests.
        self.forget_request(side, ip);
        self.resolve_ip(side, ip, now);
    }
}
