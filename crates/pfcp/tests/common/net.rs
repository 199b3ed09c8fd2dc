//! An in-memory network between a client node and a UPF-side node: a virtual clock, seeded
//! loss each way, optional duplication and reordering, and a capture of what was delivered.

use std::net::{Ipv4Addr, SocketAddr};
use std::time::{Duration, Instant};

pub use super::plans::{GNB_N3, UPF_N3, ue_plan};
use upfbench_pfcp::ie::NtpTimestamp;
use upfbench_pfcp::node::{Client, ClientConfig, Event, Upf, UpfConfig, UpfEvent};
use upfbench_pfcp::plan::UeSessionPlan;

pub const CP: Ipv4Addr = Ipv4Addr::new(192, 168, 14, 111);
pub const UP: Ipv4Addr = Ipv4Addr::new(192, 168, 14, 151);
pub const CP_TS: NtpTimestamp = NtpTimestamp(3_900_000_000);
pub const UP_TS: NtpTimestamp = NtpTimestamp(3_800_000_000);

pub fn cp_addr() -> SocketAddr {
    SocketAddr::new(CP.into(), 8805)
}

pub fn up_addr() -> SocketAddr {
    SocketAddr::new(UP.into(), 8805)
}

pub fn client_config() -> ClientConfig {
    ClientConfig::new(CP, CP_TS, up_addr())
}

pub fn upf_config() -> UpfConfig {
    UpfConfig::new(UP, UPF_N3, UP_TS, CP.into())
}

/// UE `i`'s plan (see [`ue_plan`]) with our CP address.
pub fn plan(i: u32) -> UeSessionPlan {
    ue_plan(i, CP)
}

/// SplitMix64: a small seeded generator, enough to decide drops.
#[derive(Debug, Clone)]
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Self {
        Rng(seed)
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// True with probability `p`.
    pub fn chance(&mut self, p: f64) -> bool {
        ((self.next_u64() >> 11) as f64 / (1u64 << 53) as f64) < p
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Dir {
    ToUpf,
    ToClient,
}

/// A delivered (or dropped) datagram.
#[derive(Debug, Clone)]
pub struct Captured {
    pub dir: Dir,
    pub at: Instant,
    pub bytes: Vec<u8>,
    pub dropped: bool,
}

pub struct Net {
    pub start: Instant,
    pub now: Instant,
    pub client: Client,
    pub upf: Upf,
    pub rng: Rng,
    pub loss_to_upf: f64,
    pub loss_to_client: f64,
    pub duplicate: f64,
    pub reorder: bool,
    /// The UPF's receive buffer, in datagrams: of what the client sends at once, only this
    /// many arrive and the rest overflow (as with a real UPF's UDP socket). `None`: no limit.
    pub upf_buffer: Option<usize>,
    /// Datagrams lost to the UPF's receive buffer.
    pub overflowed: u64,
    pub capture: bool,
    pub captured: Vec<Captured>,
    pub client_events: Vec<(Instant, Event)>,
    pub upf_events: Vec<(Instant, UpfEvent)>,
}

impl Net {
    pub fn new(client: ClientConfig, upf: UpfConfig, seed: u64) -> Self {
        let start = Instant::now();
        Net {
            start,
            now: start,
            client: Client::new(client),
            upf: Upf::new(upf),
            rng: Rng::new(seed),
            loss_to_upf: 0.0,
            loss_to_client: 0.0,
            duplicate: 0.0,
            reorder: false,
            upf_buffer: None,
            overflowed: 0,
            capture: false,
            captured: Vec::new(),
            client_events: Vec::new(),
            upf_events: Vec::new(),
        }
    }

    /// Virtual time since the start.
    pub fn elapsed(&self) -> Duration {
        self.now - self.start
    }

    fn carry(&mut self, dir: Dir) -> bool {
        let mut batch = Vec::new();
        loop {
            let t = match dir {
                Dir::ToUpf => self.client.poll_transmit(),
                Dir::ToClient => self.upf.poll_transmit(),
            };
            let Some(t) = t else { break };
            batch.push(t);
        }
        if batch.is_empty() {
            return false;
        }
        if self.reorder {
            for i in (1..batch.len()).rev() {
                let j = (self.rng.next_u64() % (i as u64 + 1)) as usize;
                batch.swap(i, j);
            }
        }
        if let (Dir::ToUpf, Some(room)) = (dir, self.upf_buffer)
            && batch.len() > room
        {
            self.overflowed += (batch.len() - room) as u64;
            batch.truncate(room);
        }
        let loss = match dir {
            Dir::ToUpf => self.loss_to_upf,
            Dir::ToClient => self.loss_to_client,
        };
        for t in batch {
            let copies = if self.rng.chance(self.duplicate) {
                2
            } else {
                1
            };
            for _ in 0..copies {
                let dropped = self.rng.chance(loss);
                if self.capture {
                    self.captured.push(Captured {
                        dir,
                        at: self.now,
                        bytes: t.contents.clone(),
                        dropped,
                    });
                }
                if dropped {
                    continue;
                }
                match dir {
                    Dir::ToUpf => {
                        assert_eq!(t.destination, up_addr());
                        self.upf.handle_datagram(self.now, cp_addr(), &t.contents)
                    }
                    Dir::ToClient => {
                        assert_eq!(t.destination, cp_addr());
                        self.client
                            .handle_datagram(self.now, up_addr(), &t.contents)
                    }
                }
            }
        }
        true
    }

    /// Moves datagrams both ways until both nodes are quiet; collects events.
    pub fn settle(&mut self) {
        loop {
            let a = self.carry(Dir::ToUpf);
            let b = self.carry(Dir::ToClient);
            while let Some(e) = self.client.poll_event() {
                self.client_events.push((self.now, e));
            }
            while let Some(e) = self.upf.poll_event() {
                self.upf_events.push((self.now, e));
            }
            if !a && !b {
                break;
            }
        }
    }

    /// The earliest timer of either node.
    pub fn next_timeout(&mut self) -> Option<Instant> {
        match (self.client.poll_timeout(), self.upf.poll_timeout()) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    /// Jumps to the next timer (if it is before `limit`) and runs it; false when there is none.
    pub fn advance(&mut self, limit: Instant) -> bool {
        self.settle();
        match self.next_timeout() {
            Some(t) if t <= limit => {
                self.now = self.now.max(t);
                self.client.handle_timeout(self.now);
                self.upf.handle_timeout(self.now);
                self.settle();
                true
            }
            _ => false,
        }
    }

    /// Runs until `done` holds, for at most `budget` of virtual time; returns whether it held.
    pub fn run_until(&mut self, budget: Duration, mut done: impl FnMut(&Net) -> bool) -> bool {
        let limit = self.now + budget;
        self.settle();
        loop {
            if done(self) {
                return true;
            }
            if !self.advance(limit) {
                return done(self);
            }
        }
    }

    /// Runs all timers up to `now + d`, then sets the clock there.
    pub fn run_for(&mut self, d: Duration) {
        let limit = self.now + d;
        while self.advance(limit) {}
        self.now = limit;
        self.settle();
    }

    /// Associates the client, or panics.
    pub fn associate(&mut self) {
        self.client.associate(self.now).unwrap();
        let ok = self.run_until(Duration::from_secs(600), |n| {
            n.client_events
                .iter()
                .any(|(_, e)| matches!(e, Event::Associated { .. }))
        });
        assert!(ok, "no association: {:?}", self.client_events);
    }

    pub fn take_client_events(&mut self) -> Vec<Event> {
        self.client_events.drain(..).map(|(_, e)| e).collect()
    }

    pub fn take_upf_events(&mut self) -> Vec<UpfEvent> {
        self.upf_events.drain(..).map(|(_, e)| e).collect()
    }
}
