//! Impairments the reflector can apply to what it forwards, to test the tester: a known loss,
//! duplication, reordering, added delay and a rate cap, each counted exactly so that the
//! generator's figures can be checked against them.
//!
//! Generic over the packet type (mbufs in the reflector, numbers in the tests). Per packet, in
//! this order: the rate cap (a token bucket) may drop it; "drop one in N" drops every N-th
//! packet; "duplicate one in N" sends every N-th twice; "reorder one in N" holds every N-th
//! back until the next one has gone; a fixed delay holds every packet until its time. All off
//! by default.

use std::collections::VecDeque;

use upfbench_gtpu::{decapsulate, udp_payload};
use upfbench_net::ethernet::HEADER_LEN as ETHERNET_LEN;
use upfbench_net::tag::TagView;

/// What to do to the forwarded packets.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub(crate) struct ImpairConfig {
    /// Drop every N-th packet.
    pub drop_one_in: Option<u64>,
    /// Send every N-th packet twice.
    pub duplicate_one_in: Option<u64>,
    /// Send every N-th packet after the next one.
    pub reorder_one_in: Option<u64>,
    /// Hold every packet this many TSC ticks.
    pub(crate) delay_ticks: u64,
    /// At most this many packets per second; the excess is dropped.
    pub(crate) rate_cap_pps: Option<f64>,
}

impl ImpairConfig {
    /// Whether anything is impaired.
    pub(crate) fn is_active(&self) -> bool {
        *self != ImpairConfig::default()
    }
}

/// What the impairments did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct ImpairCounters {
    /// Packets that entered.
    pub seen: u64,
    /// Dropped by "drop one in N".
    pub dropped: u64,
    /// Dropped by the rate cap.
    pub(crate) rate_dropped: u64,
    /// Extra copies sent.
    pub duplicated: u64,
    /// Packets sent after their successor.
    pub reordered: u64,
    /// Copies that could not be made (no buffer): the packet went once.
    pub(crate) duplicate_failed: u64,
    /// Packets held by the delay (each one that went on, copies and reordered ones included):
    /// an impairment like the others, so that a delayed run says so in the reflector's lines.
    pub delayed: u64,
}

/// Token bucket in TSC ticks: `burst` tokens at most, `per_tick` more each tick. At the start
/// of a phase of traffic (a warm-up, a measured phase: each trial of a search) it holds at
/// most [`RATE_CAP_MIN_BURST`]: a bucket that refilled in the pause between two trials let its
/// whole burst through at the start of the next one (1 % over the cap in a 1 s trial), and
/// however short the pause, each trial starts from the same bucket. A phase starts at a flow's
/// first packet after packets that were not: the first packets of all the flows at a phase's
/// start (the senders go round their flows) restart it once, and a bucket that restarted at
/// each would police the bursts of a phase's first round away (with 20,000 flows, its first
/// 50 ms at 400 kpps).
#[derive(Debug, Clone, Copy)]
struct Bucket {
    tokens: f64,
    burst: f64,
    per_tick: f64,
    last: u64,
    /// A packet that is not a flow's first came since the last restart: the next first packet
    /// starts a phase.
    armed: bool,
}

impl Bucket {
    /// A token for a packet at tick `now`, if there is one; `first`: the packet starts a flow.
    fn take(&mut self, now: u64, first: bool) -> bool {
        let elapsed = now.saturating_sub(self.last);
        self.last = now.max(self.last);
        self.tokens = (self.tokens + elapsed as f64 * self.per_tick).min(self.burst);
        if !first {
            self.armed = true;
        } else if std::mem::take(&mut self.armed) {
            // Lowered, never raised.
            self.tokens = self.tokens.min(RATE_CAP_MIN_BURST);
        }
        if self.tokens >= 1.0 {
            self.tokens -= 1.0;
            true
        } else {
            false
        }
    }
}

/// The impairments of one worker. See the module documentation.
#[derive(Debug)]
pub(crate) struct Impairments<T> {
    config: ImpairConfig,
    counters: ImpairCounters,
    bucket: Option<Bucket>,
    held: Option<T>,
    delayed: VecDeque<(u64, T)>,
}

/// The rate cap's bucket: 50 ms of the rate, and at least 32 packets. Senders and the hosts
/// they run on are bursty (a sender descheduled for a few ms sends what fell due at once, and
/// so does this worker when it gets its core back: a 2-vCPU VM with two busy-polling processes
/// stalls one for up to 15 ms about once a second); a bucket of one burst would police those
/// ms away and let through less than the cap. Under a load above the cap the bucket never
/// fills, so its size lets no more through than the cap and the first `RATE_CAP_MIN_BURST`.
const RATE_CAP_MIN_BURST: f64 = 32.0;
const RATE_CAP_BURST_S: f64 = 0.05;

/// Whether `frame`, as the reflector forwards it (a G-PDU, or a plain IPv4/UDP packet), starts
/// a flow: the measurement tag in its innermost UDP payload has sequence number 0, as the
/// first packet of each flow in a warm-up or a measured phase has. Anything else does not.
pub(crate) fn starts_a_flow(frame: &[u8]) -> bool {
    let payload = match decapsulate(frame) {
        Ok(d) => udp_payload(d.inner()),
        Err(_) => match frame.get(ETHERNET_LEN..) {
            Some(ip) => udp_payload(ip),
            None => return false,
        },
    };
    payload
        .ok()
        .and_then(|p| TagView::new_checked(p).ok())
        .is_some_and(|t| t.sequence() == 0)
}

impl<T> Impairments<T> {
    /// Impairments with `config` on a TSC of `tsc_hz`; `delay_capacity` packets can be held by
    /// the delay at once without allocating.
    pub(crate) fn new(config: ImpairConfig, tsc_hz: u64, delay_capacity: usize) -> Impairments<T> {
        Impairments {
            bucket: config.rate_cap_pps.map(|pps| {
                let burst = (pps * RATE_CAP_BURST_S).max(RATE_CAP_MIN_BURST);
                Bucket {
                    tokens: RATE_CAP_MIN_BURST,
                    burst,
                    per_tick: pps / tsc_hz.max(1) as f64,
                    last: 0,
                    armed: true,
                }
            }),
            config,
            counters: ImpairCounters::default(),
            held: None,
            delayed: VecDeque::with_capacity(if config.delay_ticks > 0 {
                delay_capacity
            } else {
                0
            }),
        }
    }

    /// Whether the rate cap is on: then [`push`](Self::push) wants to know which packets start
    /// a flow ([`starts_a_flow`]).
    pub(crate) fn caps_rate(&self) -> bool {
        self.bucket.is_some()
    }

    /// What was done so far.
    pub(crate) fn counters(&self) -> &ImpairCounters {
        &self.counters
    }

    #[cfg(test)]
    /// Packets held (for reordering or delay).
    pub(crate) fn held(&self) -> usize {
        self.delayed.len() + usize::from(self.held.is_some())
    }

    /// Passes `packet`, received at tick `now`, through (`first`: it starts a flow, which
    /// restarts the rate cap): what may go now is handed to `out`, `copy` makes the duplicate
    /// (None: no buffer), `discard` takes dropped packets.
    #[inline]
    pub(crate) fn push(
        &mut self,
        now: u64,
        packet: T,
        first: bool,
        copy: impl FnOnce(&T) -> Option<T>,
        discard: &mut impl FnMut(T),
        out: &mut impl FnMut(T),
    ) {
        self.counters.seen += 1;
        let k = self.counters.seen;
        let nth = |n: Option<u64>| n.is_some_and(|n| n > 0 && k.is_multiple_of(n));
        if let Some(b) = &mut self.bucket
            && !b.take(now, first)
        {
            self.counters.rate_dropped += 1;
            discard(packet);
            return;
        }
        if nth(self.config.drop_one_in) {
            self.counters.dropped += 1;
            discard(packet);
            return;
        }
        let duplicate = if nth(self.config.duplicate_one_in) {
            let c = copy(&packet);
            match &c {
                Some(_) => self.counters.duplicated += 1,
                None => self.counters.duplicate_failed += 1,
            }
            c
        } else {
            None
        };
        if nth(self.config.reorder_one_in) && self.held.is_none() {
            self.held = Some(packet);
            if let Some(d) = duplicate {
                self.emit(now, d, out);
            }
            return;
        }
        self.emit(now, packet, out);
        if let Some(d) = duplicate {
            self.emit(now, d, out);
        }
        if let Some(h) = self.held.take() {
            self.counters.reordered += 1;
            self.emit(now, h, out);
        }
    }

    fn emit(&mut self, now: u64, packet: T, out: &mut impl FnMut(T)) {
        if self.config.delay_ticks == 0 {
            out(packet);
        } else {
            self.counters.delayed += 1;
            self.delayed
                .push_back((now + self.config.delay_ticks, packet));
        }
    }

    /// Hands over the delayed packets whose time has come.
    #[inline]
    pub(crate) fn poll(&mut self, now: u64, out: &mut impl FnMut(T)) {
        while let Some(&(due, _)) = self.delayed.front() {
            if due > now {
                return;
            }
            if let Some((_, p)) = self.delayed.pop_front() {
                out(p);
            }
        }
    }

    /// Hands over everything still held, in order (at the end of a run).
    pub(crate) fn drain(&mut self, out: &mut impl FnMut(T)) {
        while let Some((_, p)) = self.delayed.pop_front() {
            out(p);
        }
        if let Some(h) = self.held.take() {
            out(h);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Packets 0, 1, ... one µs apart through impairments `config`: what was sent (in order)
    /// and dropped, and the counters.
    fn impair_sequence(config: ImpairConfig, packets: u64) -> (Vec<u64>, Vec<u64>, ImpairCounters) {
        let mut imp = Impairments::new(config, 1_000_000_000, 1024);
        let (mut sent, mut dropped) = (Vec::new(), Vec::new());
        for p in 0..packets {
            imp.push(
                p * 1000,
                p,
                p == 0,
                |&p| Some(p),
                &mut |p| dropped.push(p),
                &mut |p| sent.push(p),
            );
            imp.poll(p * 1000, &mut |p| sent.push(p));
        }
        imp.drain(&mut |p| sent.push(p));
        (sent, dropped, *imp.counters())
    }

    #[test]
    fn nothing_configured_passes_everything_in_order() {
        let (sent, dropped, c) = impair_sequence(ImpairConfig::default(), 10);
        assert_eq!(sent, (0..10).collect::<Vec<_>>());
        assert!(dropped.is_empty());
        assert_eq!(c.seen, 10);
        assert_eq!(c.delayed, 0);
    }

    #[test]
    fn drop_one_in_n_drops_every_nth() {
        let (sent, dropped, c) = impair_sequence(
            ImpairConfig {
                drop_one_in: Some(100),
                ..Default::default()
            },
            1000,
        );
        assert_eq!(c.dropped, 10);
        assert_eq!(dropped, (0..10).map(|i| i * 100 + 99).collect::<Vec<_>>());
        assert_eq!(sent.len(), 990);
    }

    #[test]
    fn duplicate_one_in_n_sends_every_nth_twice() {
        let (sent, _, c) = impair_sequence(
            ImpairConfig {
                duplicate_one_in: Some(4),
                ..Default::default()
            },
            8,
        );
        assert_eq!(sent, [0, 1, 2, 3, 3, 4, 5, 6, 7, 7]);
        assert_eq!(c.duplicated, 2);
    }

    #[test]
    fn reorder_one_in_n_swaps_every_nth_with_its_successor() {
        let (sent, _, c) = impair_sequence(
            ImpairConfig {
                reorder_one_in: Some(3),
                ..Default::default()
            },
            9,
        );
        assert_eq!(sent, [0, 1, 3, 2, 4, 6, 5, 7, 8]);
        assert_eq!(c.reordered, 2);
    }

    #[test]
    fn the_delay_holds_each_packet_its_time() {
        let mut imp = Impairments::new(
            ImpairConfig {
                delay_ticks: 500,
                ..Default::default()
            },
            1,
            16,
        );
        let mut sent = Vec::new();
        imp.push(100, 'a', true, |_| None, &mut |_| {}, &mut |p| sent.push(p));
        imp.push(300, 'b', false, |_| None, &mut |_| {}, &mut |p| {
            sent.push(p)
        });
        imp.poll(599, &mut |p| sent.push(p));
        assert!(sent.is_empty());
        imp.poll(600, &mut |p| sent.push(p));
        assert_eq!(sent, ['a']);
        assert_eq!(imp.held(), 1);
        imp.poll(800, &mut |p| sent.push(p));
        assert_eq!(sent, ['a', 'b']);
        assert_eq!(imp.counters().delayed, 2);
    }

    #[test]
    fn every_packet_that_goes_on_is_counted_delayed_copies_and_swaps_included() {
        let (sent, dropped, c) = impair_sequence(
            ImpairConfig {
                drop_one_in: Some(5),
                duplicate_one_in: Some(4),
                reorder_one_in: Some(3),
                delay_ticks: 2_500,
                ..Default::default()
            },
            60,
        );
        assert!(
            c.dropped > 0 && c.duplicated > 0 && c.reordered > 0,
            "{c:?}"
        );
        assert_eq!(c.delayed, sent.len() as u64, "{c:?}");
        assert_eq!(c.delayed, 60 - dropped.len() as u64 + c.duplicated);
    }

    #[test]
    fn the_rate_cap_lets_through_its_rate() {
        // 1000 pps on a 1 GHz clock, packets every 100 us (10,000 pps) for 1 s.
        let config = ImpairConfig {
            rate_cap_pps: Some(1000.0),
            ..Default::default()
        };
        let mut imp = Impairments::new(config, 1_000_000_000, 0);
        let mut passed = 0u64;
        for i in 0..10_000u64 {
            imp.push(i * 100_000, i, i == 0, |_| None, &mut |_| {}, &mut |_| {
                passed += 1
            });
        }
        // 1000 per second plus the initial burst of 32 (10 ms of 1000 pps is less).
        assert!((1000..=1033).contains(&passed), "{passed}");
        assert_eq!(imp.counters().rate_dropped, 10_000 - passed);
    }

    #[test]
    fn the_rate_cap_holds_over_each_1_s_trial_whatever_the_pause() {
        // 38,000 pps (a bucket of 50 ms: 1,900 packets), offered twice that for 1 s, then 1 s of
        // nothing, then 1 s again, then 1 ms of nothing and 1 s again: each trial passes the
        // cap and the minimum burst of 32, not what a bucket refilled in the pause would add,
        // because its first packets (of each of its flows) restart the bucket.
        let hz = 1_000_000_000u64;
        let config = ImpairConfig {
            rate_cap_pps: Some(38_000.0),
            ..Default::default()
        };
        let mut imp = Impairments::new(config, hz, 0);
        let gap = hz / 76_000;
        let mut trial = |start: u64, flows: u64| {
            let mut passed = 0u64;
            for i in 0..76_000u64 {
                imp.push(
                    start + i * gap,
                    i,
                    i < flows,
                    |_| None,
                    &mut |_| {},
                    &mut |_| passed += 1,
                );
            }
            passed
        };
        for (start, flows) in [(0, 1), (2 * hz, 2), (3 * hz + hz / 1000, 100)] {
            let passed = trial(start, flows);
            assert!(
                (38_000..=38_033).contains(&passed),
                "trial at {start}: {passed}"
            );
        }
        // Without a first packet (traffic that is not upfbench's), the bucket refilled in the
        // pause passes its 50 ms.
        let passed = trial(5 * hz, 0);
        assert!((39_800..=39_933).contains(&passed), "{passed}");
    }

    #[test]
    fn a_phase_restarts_the_bucket_once_however_many_flows_it_starts() {
        // 38,000 pps; a phase of 2,000 flows at 90 % of it, in bursts of 48 (a sender goes round
        // its flows: the first 2,000 packets, 42 bursts, are first ones). Only the first burst
        // finds the bucket restarted (32 tokens: 16 dropped); the rest of the first round finds
        // it refilled, as later bursts do.
        let hz = 1_000_000_000u64;
        let config = ImpairConfig {
            rate_cap_pps: Some(38_000.0),
            ..Default::default()
        };
        let mut imp = Impairments::new(config, hz, 0);
        let every = hz * 48 / 34_200;
        let mut passed = 0u64;
        for b in 0..200u64 {
            for k in 0..48u64 {
                let i = b * 48 + k;
                imp.push(b * every, i, i < 2_000, |_| None, &mut |_| {}, &mut |_| {
                    passed += 1
                });
            }
        }
        assert_eq!(200 * 48 - passed, 16);
    }

    #[test]
    fn a_flow_starts_at_sequence_0_of_its_tag_in_either_direction() {
        use upfbench_net::Teid;
        use upfbench_net::tag::Tag;
        use upfbench_testkit::upf_frames::{gpdu, inner, plain};
        let ue = std::net::Ipv4Addr::new(10, 45, 0, 1);
        let dn = std::net::Ipv4Addr::new(192, 168, 16, 152);
        let packet = |sequence: u32| {
            let tag = Tag {
                stream: 1,
                sequence,
                tx_time: 7,
            };
            inner(dn, ue, (5000, 6000), &tag.to_bytes())
        };
        for sequence in [0, 1] {
            let first = sequence == 0;
            assert_eq!(starts_a_flow(&plain(&packet(sequence))), first);
            assert_eq!(
                starts_a_flow(&gpdu(Teid(0x1000_0001), None, &packet(sequence))),
                first
            );
        }
        // No tag, or no packet.
        assert!(!starts_a_flow(&plain(&inner(
            dn,
            ue,
            (5000, 6000),
            &[0; 4]
        ))));
        assert!(!starts_a_flow(&[0; 10]));
    }

    #[test]
    fn a_failed_copy_is_counted_and_the_packet_still_goes() {
        let mut imp = Impairments::new(
            ImpairConfig {
                duplicate_one_in: Some(1),
                ..Default::default()
            },
            1,
            0,
        );
        let mut sent = Vec::new();
        imp.push(0, 1, false, |_| None, &mut |_| {}, &mut |p| sent.push(p));
        assert_eq!(sent, [1]);
        assert_eq!(imp.counters().duplicate_failed, 1);
    }
}
