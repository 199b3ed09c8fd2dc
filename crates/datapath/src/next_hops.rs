//! The resolution of next hops by ARP (IPv4) or Neighbor Solicitation (IPv6), for both roles: each hop is asked for every `interval`
//! until it is resolved, at most `requests` times (the files' `arp.timeout` and
//! `arp.retries + 1`); then it is given up on. Sans-IO: the ARP side is a trait ([`Arp`]), which
//! also says when a hop counts as resolved, and the time a TSC reading.
//!
//! The generator resolves its two peers before traffic ([`resolve`](super::port_setup::resolve)):
//! a MAC known either way, from a reply or from the peer's own request, resolves a hop, and one
//! given up on ends the run.
//!
//! The reflector resolves its next hops as it forwards: the N6 peer and any configured N3 peer
//! from the start, and the gNBs of the sessions' downlink tunnels as the rules arrive. A MAC
//! learned in passing from the neighbour's own ARP request is used for forwarding, but it does
//! not end the resolution: the reflector asks until a reply comes, as a UPF must when its peer
//! never asks. A hop given up on is not fatal (traffic that needs it still asks again, paced by
//! the service plane, and counts `no_neighbor` drops meanwhile). A new rules table re-arms every
//! hop not yet answered (the peer that was not up at the start usually is once it has
//! established sessions); the pacing is kept, so a hop is never asked more often than once per
//! `interval`.

use std::net::{IpAddr, Ipv4Addr};

use super::queues::Side;

/// Next hops followed per worker; more are not resolved ahead of traffic.
pub const MAX_NEXT_HOPS: usize = 16;

/// What resolution needs of the service plane.
pub trait Arp {
    /// Whether `ip` on `side` is resolved: the caller's rule (a reply to our request, or any
    /// MAC known), the configured MACs included.
    fn resolved(&self, side: Side, ip: IpAddr) -> bool;
    /// Sends an ARP request (IPv4) or a Neighbor Solicitation (IPv6) for `ip` on `side` now.
    fn request(&mut self, side: Side, ip: IpAddr, now: u64);
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    Asking,
    Resolved,
    GivenUp,
}

#[derive(Debug, Clone, Copy)]
struct Hop {
    side: Side,
    ip: IpAddr,
    /// Requests sent since the hop was (re-)armed.
    sent: u32,
    /// When the last request went, whatever the arming.
    last: Option<u64>,
    state: State,
}

/// The next hops of one worker and where their resolution stands.
#[derive(Debug, Clone)]
pub struct NextHops {
    hops: [Hop; MAX_NEXT_HOPS],
    len: usize,
    asking: usize,
    interval: u64,
    requests: u32,
}

impl NextHops {
    /// No next hop yet; requests every `interval` TSC ticks, `requests` per hop at most.
    pub fn new(interval: u64, requests: u32) -> NextHops {
        NextHops {
            hops: [Hop {
                side: Side::N3,
                ip: IpAddr::V4(Ipv4Addr::UNSPECIFIED),
                sent: 0,
                last: None,
                state: State::Resolved,
            }; MAX_NEXT_HOPS],
            len: 0,
            asking: 0,
            interval,
            requests,
        }
    }

    /// Resolves `ip` on `side`: a new hop, or one not answered yet, is asked for again (a fresh
    /// budget of requests). Address 0 (no next hop configured) and hops beyond
    /// [`MAX_NEXT_HOPS`] are left out.
    pub fn want(&mut self, side: Side, ip: u32) {
        self.want_addr(side, IpAddr::V4(Ipv4Addr::from(ip)));
    }

    /// [`want`](Self::want) for an address of either family (the unspecified one of either is
    /// left out).
    pub fn want_addr(&mut self, side: Side, ip: IpAddr) {
        if ip.is_unspecified() {
            return;
        }
        if let Some(h) = self.hops[..self.len]
            .iter_mut()
            .find(|h| h.side == side && h.ip == ip)
        {
            if h.state == State::GivenUp {
                h.state = State::Asking;
                self.asking += 1;
            }
            if h.state == State::Asking {
                h.sent = 0;
            }
            return;
        }
        if self.len < MAX_NEXT_HOPS {
            self.hops[self.len] = Hop {
                side,
                ip,
                sent: 0,
                last: None,
                state: State::Asking,
            };
            self.len += 1;
            self.asking += 1;
        }
    }

    /// Sends the requests that are due at `now` and notes the answers; cheap when every hop is
    /// settled.
    #[inline]
    pub fn poll(&mut self, now: u64, arp: &mut impl Arp) {
        if self.asking == 0 {
            return;
        }
        for h in self.hops[..self.len]
            .iter_mut()
            .filter(|h| h.state == State::Asking)
        {
            if arp.resolved(h.side, h.ip) {
                h.state = State::Resolved;
                self.asking -= 1;
                continue;
            }
            if h.last
                .is_some_and(|l| now.saturating_sub(l) < self.interval)
            {
                continue;
            }
            if h.sent >= self.requests {
                h.state = State::GivenUp;
                self.asking -= 1;
                continue;
            }
            arp.request(h.side, h.ip, now);
            h.sent += 1;
            h.last = Some(now);
        }
    }

    /// Hops answered.
    pub fn resolved(&self) -> usize {
        self.count(State::Resolved)
    }

    /// Hops given up on (no answer to every request).
    pub fn given_up(&self) -> usize {
        self.count(State::GivenUp)
    }

    /// Hops still being asked for.
    pub fn asking(&self) -> usize {
        self.asking
    }

    /// The first hop given up on, in the order they were wanted.
    pub(crate) fn first_given_up(&self) -> Option<(Side, IpAddr)> {
        self.hops[..self.len]
            .iter()
            .find(|h| h.state == State::GivenUp)
            .map(|h| (h.side, h.ip))
    }

    fn count(&self, state: State) -> usize {
        self.hops[..self.len]
            .iter()
            .filter(|h| h.state == state)
            .count()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An ARP side that records requests and answers the addresses in `up` after `delay`
    /// ticks.
    #[derive(Default)]
    struct FakeArp {
        up: Vec<(Side, IpAddr)>,
        answered: Vec<(Side, IpAddr)>,
        requests: Vec<(Side, IpAddr, u64)>,
    }

    impl Arp for FakeArp {
        fn resolved(&self, side: Side, ip: IpAddr) -> bool {
            self.answered.contains(&(side, ip))
        }

        fn request(&mut self, side: Side, ip: IpAddr, now: u64) {
            self.requests.push((side, ip, now));
            if self.up.contains(&(side, ip)) {
                self.answered.push((side, ip));
            }
        }
    }

    const PEER: u32 = 0xc0a8_1098;
    const GNB: u32 = 0xc0a8_0d83;

    fn v4(ip: u32) -> IpAddr {
        IpAddr::V4(Ipv4Addr::from(ip))
    }

    #[test]
    fn each_hop_is_asked_until_it_answers() {
        let mut hops = NextHops::new(100, 4);
        let mut arp = FakeArp {
            up: vec![(Side::N6, v4(PEER))],
            ..FakeArp::default()
        };
        hops.want(Side::N6, PEER);
        hops.want(Side::N3, 0);
        hops.poll(0, &mut arp);
        assert_eq!(arp.requests, [(Side::N6, v4(PEER), 0)]);
        hops.poll(50, &mut arp);
        assert_eq!((hops.resolved(), hops.asking()), (1, 0));
        hops.poll(500, &mut arp);
        assert_eq!(arp.requests.len(), 1, "an answered hop is not asked again");
    }

    #[test]
    fn a_silent_hop_gets_its_requests_one_interval_apart_then_is_given_up() {
        let mut hops = NextHops::new(100, 3);
        let mut arp = FakeArp::default();
        hops.want(Side::N3, GNB);
        for t in (0..=1000).step_by(10) {
            hops.poll(t, &mut arp);
        }
        let times: Vec<u64> = arp.requests.iter().map(|r| r.2).collect();
        assert_eq!(times, [0, 100, 200]);
        assert_eq!((hops.given_up(), hops.asking()), (1, 0));
        assert_eq!(hops.first_given_up(), Some((Side::N3, v4(GNB))));
        // A new table wants it again: a fresh budget, still one interval apart.
        hops.want(Side::N3, GNB);
        hops.poll(1005, &mut arp);
        hops.poll(1050, &mut arp);
        assert_eq!(arp.requests.len(), 4);
        assert_eq!(arp.requests[3].2, 1005);
        assert_eq!(hops.asking(), 1);
    }

    #[test]
    fn re_arming_keeps_the_pacing() {
        let mut hops = NextHops::new(100, 2);
        let mut arp = FakeArp::default();
        hops.want(Side::N3, GNB);
        hops.poll(0, &mut arp);
        // Tables arriving every few ticks do not make it ask more often.
        for t in 1..100 {
            hops.want(Side::N3, GNB);
            hops.poll(t, &mut arp);
        }
        assert_eq!(arp.requests.len(), 1);
        hops.poll(100, &mut arp);
        assert_eq!(arp.requests.len(), 2);
    }

    #[test]
    fn at_most_max_next_hops_are_followed() {
        let mut hops = NextHops::new(100, 1);
        let mut arp = FakeArp::default();
        for i in 0..(MAX_NEXT_HOPS as u32 + 5) {
            hops.want(Side::N3, GNB + i);
        }
        hops.want(Side::N3, GNB);
        hops.poll(0, &mut arp);
        assert_eq!(arp.requests.len(), MAX_NEXT_HOPS);
        hops.poll(100, &mut arp);
        assert_eq!(hops.given_up(), MAX_NEXT_HOPS);
    }

    #[test]
    fn ipv6_hops_are_followed_beside_ipv4_ones() {
        let upf: IpAddr = "2001:db8:13::151".parse().unwrap();
        let mut hops = NextHops::new(100, 2);
        let mut arp = FakeArp {
            up: vec![(Side::N3, upf)],
            ..FakeArp::default()
        };
        hops.want_addr(Side::N3, upf);
        hops.want_addr(Side::N3, "::".parse().unwrap());
        hops.want(Side::N3, GNB);
        hops.poll(0, &mut arp);
        assert_eq!(
            arp.requests,
            [(Side::N3, upf, 0), (Side::N3, v4(GNB), 0)],
            "the unspecified address is left out"
        );
        hops.poll(300, &mut arp);
        hops.poll(600, &mut arp);
        assert_eq!((hops.resolved(), hops.given_up()), (1, 1));
        assert_eq!(hops.first_given_up(), Some((Side::N3, v4(GNB))));
    }
}
