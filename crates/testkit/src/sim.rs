//! A simulated run shared by the integration tests: streams, what the network does to each packet,
//! and the resulting arrival order, generated from a seed.

use upfbench_stats::{Direction, StreamSpec};

/// SplitMix64: a small deterministic generator, so the tests need no RNG crate.
pub struct Rng(pub u64);

impl Rng {
    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A number below `n`.
    pub fn below(&mut self, n: u64) -> u64 {
        self.next_u64() % n
    }

    /// True `per_mille` times in a thousand.
    pub fn chance(&mut self, per_mille: u64) -> bool {
        self.below(1000) < per_mille
    }
}

/// One received packet as the RX worker would parse it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Packet {
    /// The stream's id.
    pub stream: u32,
    /// Its sequence number in the stream.
    pub seq: u32,
    /// When it was sent (ns).
    pub tx_ns: u64,
    /// When it arrived (ns).
    pub rx_ns: u64,
    /// Its frame's length (bytes).
    pub frame_len: u32,
    /// Which copy of the sent packet this is (0 for the first).
    pub copy: u32,
}

/// Network behaviour, in per-mille and packet slots.
#[derive(Debug, Clone, Copy)]
pub struct Impairment {
    /// Packets lost, per thousand.
    pub drop_per_mille: u64,
    /// Packets duplicated, per thousand.
    pub dup_per_mille: u64,
    /// Packets moved out of order, per thousand.
    pub reorder_per_mille: u64,
    /// How many slots a reordered packet moves at most.
    pub max_displacement: u64,
}

/// A simulated run: the streams, what each sent, and what arrived in arrival order.
#[derive(Debug, Clone)]
pub struct Simulation {
    /// The streams.
    pub specs: Vec<StreamSpec>,
    /// Each stream's frame length.
    pub frame_len: Vec<u32>,
    /// What each stream sent.
    pub sent: Vec<u64>,
    /// What arrived, in arrival order.
    pub arrivals: Vec<Packet>,
    /// Distinct positions that arrived per stream (the truth).
    pub delivered: Vec<u64>,
}

/// Simulates `streams` streams of up to `max_sent` packets each through `imp`, from `seed`.
pub fn simulate(
    seed: u64,
    streams: usize,
    max_sent: u64,
    imp: Impairment,
    frame_len: impl Fn(usize) -> u32,
) -> Simulation {
    let mut rng = Rng(seed);
    let mut specs = Vec::new();
    let mut sent = Vec::new();
    let mut lens = Vec::new();
    let mut keyed = Vec::new();
    let mut delivered = Vec::with_capacity(streams);
    for s in 0..streams {
        let direction = if rng.chance(500) {
            Direction::Uplink
        } else {
            Direction::Downlink
        };
        let first_seq = if rng.chance(300) {
            u32::MAX - rng.below(200) as u32
        } else {
            rng.next_u64() as u32
        };
        specs.push(StreamSpec {
            direction,
            first_seq,
        });
        let n = rng.below(max_sent + 1);
        sent.push(n);
        let len = frame_len(s);
        lens.push(len);
        let mut arrived = 0;
        for i in 0..n {
            // Streams interleave round robin: packet i of every stream shares slot i.
            let slot = i * streams as u64 + s as u64;
            let tx_ns = 1_000_000 + slot * 100;
            if rng.chance(imp.drop_per_mille) {
                continue;
            }
            arrived += 1;
            let copies = if rng.chance(imp.dup_per_mille) { 2 } else { 1 };
            for copy in 0..copies {
                let mut at = slot;
                if rng.chance(imp.reorder_per_mille) {
                    at += rng.below(imp.max_displacement + 1) * streams as u64;
                }
                let latency = 2_000 + rng.below(50_000) + if rng.chance(5) { 3_000_000 } else { 0 };
                keyed.push((
                    at,
                    rng.next_u64(),
                    Packet {
                        stream: s as u32,
                        seq: first_seq.wrapping_add(i as u32),
                        tx_ns,
                        rx_ns: tx_ns + latency,
                        frame_len: len,
                        copy,
                    },
                ));
            }
        }
        delivered.push(arrived);
    }
    keyed.sort_unstable_by_key(|(at, tie, _)| (*at, *tie));
    Simulation {
        specs,
        frame_len: lens,
        sent,
        arrivals: keyed.into_iter().map(|(_, _, p)| p).collect(),
        delivered,
    }
}
