//! What the cases share: EAL, a mempool, the ring pair, helpers.

use std::time::{Duration, Instant};

use upfbench_dpdk::{DEFAULT_DATA_ROOM, Eal, MbufBurst, Mempool, Port, RxQueue, Socket, TxQueue};

/// A case's outcome; panics (assertions) fail it too.
pub(crate) type TestResult = Result<(), Box<dyn std::error::Error>>;

/// A test case.
pub(crate) type Case = fn(&Fixture<'_>) -> TestResult;

/// Names of the two ports joined by rings.
pub(crate) const RING_PAIR: [&str; 2] = ["ring_a", "ring_b"];

/// Shared by all cases.
pub(crate) struct Fixture<'e> {
    pub(crate) eal: &'e Eal,
    /// 4095 mbufs with the default data room, for the ports.
    pub(crate) pool: Mempool<'e>,
    /// Port ids of the ring pair.
    pub(crate) ring: [u16; 2],
}

impl<'e> Fixture<'e> {
    pub(crate) fn new(eal: &'e Eal) -> upfbench_dpdk::Result<Self> {
        let pool = Mempool::new(eal, "fixture", 4095, 64, DEFAULT_DATA_ROOM, Socket::Any)?;
        let ring = eal.create_ring_pair(RING_PAIR, 1)?;
        Ok(Fixture { eal, pool, ring })
    }

    /// The two ports of the ring pair.
    pub(crate) fn ring_ports(&self) -> upfbench_dpdk::Result<(Port<'e>, Port<'e>)> {
        Ok((
            Port::by_id(self.eal, self.ring[0])?,
            Port::by_id(self.eal, self.ring[1])?,
        ))
    }
}

/// A frame of `len` bytes whose content depends on `seq`: the sequence number big-endian in the
/// first 4 bytes, then a pattern.
pub(crate) fn frame(seq: u32, len: usize) -> Vec<u8> {
    let mut f: Vec<u8> = (0..len)
        .map(|i| (i as u32).wrapping_mul(7).wrapping_add(seq) as u8)
        .collect();
    f[..4].copy_from_slice(&seq.to_be_bytes());
    f
}

/// The sequence number that `frame` wrote.
pub(crate) fn seq_of(data: &[u8]) -> u32 {
    u32::from_be_bytes(data[..4].try_into().expect("4 bytes"))
}

/// Sends all of `frames` on `txq`, 32 at a time, retrying what the port did not take.
pub(crate) fn send_all<'p>(
    txq: &mut TxQueue<'p>,
    pool: &Mempool<'p>,
    frames: &[Vec<u8>],
) -> TestResult {
    let mut burst = MbufBurst::<32>::new();
    let mut next = frames.iter();
    let deadline = Instant::now() + Duration::from_secs(5);
    loop {
        while burst.free_slots() > 0 {
            let Some(f) = next.next() else { break };
            let mut m = pool.alloc()?;
            m.extend_from_slice(f)?;
            burst.push(m).map_err(|_| "burst has room")?;
        }
        if burst.is_empty() {
            return Ok(());
        }
        txq.tx_burst(&mut burst);
        if Instant::now() > deadline {
            return Err("the port did not take the frames within 5 s".into());
        }
    }
}

/// Receives on `rxq` until `n` packets arrived (or 5 s passed) and returns their bytes.
pub(crate) fn receive(
    rxq: &mut RxQueue<'_>,
    n: usize,
) -> Result<Vec<Vec<u8>>, Box<dyn std::error::Error>> {
    let mut got = Vec::with_capacity(n);
    let mut burst = MbufBurst::<32>::new();
    let deadline = Instant::now() + Duration::from_secs(5);
    while got.len() < n {
        if rxq.rx_burst(&mut burst) == 0 && Instant::now() > deadline {
            return Err(format!("{} of {n} packets arrived within 5 s", got.len()).into());
        }
        for m in burst.iter() {
            assert_eq!(m.segments(), 1, "one segment per packet");
            got.push(m.data().to_vec());
        }
        burst.clear();
    }
    Ok(got)
}

/// Receives whatever is queued on `rxq` (until a burst comes back empty) and returns the count.
pub(crate) fn drain(rxq: &mut RxQueue<'_>) -> usize {
    let mut burst = MbufBurst::<64>::new();
    let mut n = 0;
    loop {
        let got = rxq.rx_burst(&mut burst);
        burst.clear();
        if got == 0 {
            return n;
        }
        n += got;
    }
}

/// A pool of `n` mbufs with the default data room and a per-lcore cache of `cache`.
pub(crate) fn new_pool<'e>(eal: &'e Eal, name: &str, n: u32, cache: u32) -> Mempool<'e> {
    Mempool::new(eal, name, n, cache, DEFAULT_DATA_ROOM, Socket::Any).expect("mempool")
}
