//! Template-prefilled transmit pools: what goes out is the template and its patch, every time.

use std::ops::Range;
use std::time::{Duration, Instant};

use upfbench_dpdk::{Error, MbufBurst, PortConfig, Socket, TemplatePool, TxQueue};

use crate::fixture::{Fixture, TestResult, drain, receive};

/// A frame of `len` bytes in which no two neighbouring bytes are equal and no byte is zero, so
/// that a missing, shifted or stale byte shows.
fn template_frame(len: usize) -> Vec<u8> {
    (0..len).map(|i| (i % 251) as u8 + 1).collect()
}

/// Takes every mbuf of `pool` (bursts of 32, then one at a time when fewer are left), hands each
/// one's patch region to `patch` with the next sequence number, and sends them all on `txq`.
/// Returns how many went out.
fn send_whole_pool<'p>(
    pool: &TemplatePool<'p>,
    txq: &mut TxQueue<'p>,
    next_seq: &mut u32,
    mut patch: impl FnMut(u32, &mut [u8]),
) -> Result<usize, Box<dyn std::error::Error>> {
    let mut burst = MbufBurst::<32>::new();
    let mut sent = 0;
    let deadline = Instant::now() + Duration::from_secs(5);
    loop {
        let mut one = |p: &mut [u8]| {
            patch(*next_seq, p);
            *next_seq += 1;
        };
        if let Err(e) = pool.fill(&mut burst, &mut one) {
            assert!(matches!(e, Error::MempoolExhausted { .. }), "{e}");
            while burst.free_slots() > 0 && pool.alloc(&mut burst, 1, &mut one).is_ok() {}
        }
        if burst.is_empty() {
            return Ok(sent);
        }
        while !burst.is_empty() {
            sent += txq.tx_burst(&mut burst);
            if Instant::now() > deadline {
                return Err("the port did not take the frames within 5 s".into());
            }
        }
    }
}

/// The template with `seq` big-endian at the start of the patch region, and its complement 8
/// bytes further for even sequence numbers only (what [`patch_seq`] writes).
fn expected(frame: &[u8], patch: &Range<usize>, seq: u32) -> Vec<u8> {
    let mut f = frame.to_vec();
    f[patch.start..patch.start + 4].copy_from_slice(&seq.to_be_bytes());
    if seq.is_multiple_of(2) {
        f[patch.start + 8..patch.start + 12].copy_from_slice(&(!seq).to_be_bytes());
    }
    f
}

/// Writes a packet's fields into its patch region: the sequence number always, its complement
/// only for even ones, so that odd packets show whether the region was restored from the template
/// (an mbuf's previous packet may have been even).
fn patch_seq(seq: u32, p: &mut [u8]) {
    p[0..4].copy_from_slice(&seq.to_be_bytes());
    if seq.is_multiple_of(2) {
        p[8..12].copy_from_slice(&(!seq).to_be_bytes());
    }
}

pub(crate) fn every_frame_is_the_template_and_its_patch(fx: &Fixture<'_>) -> TestResult {
    const MBUFS: usize = 255;
    const ROUNDS: u32 = 8;
    let frame = template_frame(342);
    let patch = 42..58;
    let pool = TemplatePool::new(
        fx.eal,
        "tmpl_frames",
        MBUFS as u32,
        32,
        &frame,
        patch.clone(),
        Socket::Any,
    )?;
    assert_eq!(pool.frame(), &frame[..]);
    assert_eq!((pool.available(), pool.in_use()), (MBUFS, 0));
    let (mut a, mut b) = fx.ring_ports()?;
    let a = a.start(&PortConfig::default(), &fx.pool)?;
    let b = b.start(&PortConfig::default(), &fx.pool)?;
    let (mut qa, mut qb) = (a.queues()?, b.queues()?);
    // The rings outlive the ports' starts and stops: empty them of what a failed case left.
    drain(&mut qa.rx[0]);
    drain(&mut qb.rx[0]);

    // Each round sends every mbuf of the pool once (all of them are in the ring at once), so the
    // first round shows that creation wrote the frame into every object, and the later ones that
    // reuse (after an even or an odd packet) leaves nothing behind.
    let mut seq = 0u32;
    for round in 0..ROUNDS {
        let first = seq;
        let sent = send_whole_pool(&pool, &mut qa.tx[0], &mut seq, patch_seq)?;
        assert_eq!(sent, MBUFS, "round {round}: the whole pool went out");
        assert_eq!(pool.in_use(), MBUFS, "round {round}: every mbuf in flight");
        let got = receive(&mut qb.rx[0], MBUFS)?;
        for (i, f) in got.iter().enumerate() {
            let s = first + i as u32;
            assert!(
                *f == expected(&frame, &patch, s),
                "round {round}, packet {s}: not the template with its patch: {f:?}"
            );
        }
        assert_eq!(pool.in_use(), 0, "round {round}: every mbuf came back");
    }
    assert_eq!(seq, ROUNDS * MBUFS as u32);
    assert_eq!(drain(&mut qb.rx[0]), 0, "nothing more arrived");
    assert_eq!(pool.restored(), 0, "reading received frames writes nothing");
    Ok(())
}

pub(crate) fn writes_to_sent_mbufs_are_undone(fx: &Fixture<'_>) -> TestResult {
    const MBUFS: usize = 127;
    let frame = template_frame(64);
    let patch = 42..54;
    let pool = TemplatePool::new(
        fx.eal,
        "tmpl_written",
        MBUFS as u32,
        0,
        &frame,
        patch.clone(),
        Socket::Any,
    )?;
    let (mut a, mut b) = fx.ring_ports()?;
    let a = a.start(&PortConfig::default(), &fx.pool)?;
    let b = b.start(&PortConfig::default(), &fx.pool)?;
    let (mut qa, mut qb) = (a.queues()?, b.queues()?);
    drain(&mut qa.rx[0]);
    drain(&mut qb.rx[0]);

    // The peer of a ring pair receives the very mbufs that were sent: it writes into three of
    // every four, each way the API allows, moving the data offset and length too.
    let mut seq = 0u32;
    assert_eq!(
        send_whole_pool(&pool, &mut qa.tx[0], &mut seq, patch_seq)?,
        MBUFS
    );
    let mut written = 0u64;
    let mut received = 0;
    let mut burst = MbufBurst::<32>::new();
    let deadline = Instant::now() + Duration::from_secs(5);
    while received < MBUFS {
        if qb.rx[0].rx_burst(&mut burst) == 0 && Instant::now() > deadline {
            return Err(format!("{received} of {MBUFS} arrived").into());
        }
        for m in burst.iter_mut() {
            match received % 4 {
                0 => m.data_mut().fill(0xee),
                1 => {
                    m.adj(10)?;
                    m.prepend(24)?.fill(0xdd); // over the first 10 bytes and the headroom
                }
                2 => {
                    m.trim(20)?;
                    m.append(20)?.fill(0xcc); // over the last 20 bytes
                }
                _ => assert_eq!(m.data(), &expected(&frame, &patch, received as u32)[..]),
            }
            written += u64::from(received % 4 != 3);
            received += 1;
        }
        burst.clear(); // back to the template pool, written
    }
    assert_eq!(pool.in_use(), 0);
    assert_eq!(pool.restored(), 0, "nothing restored before reuse");

    // The next round takes every mbuf again: the written ones had their frame put back, and the
    // lengths and offsets are the template's.
    let first = seq;
    assert_eq!(
        send_whole_pool(&pool, &mut qa.tx[0], &mut seq, patch_seq)?,
        MBUFS
    );
    for (i, f) in receive(&mut qb.rx[0], MBUFS)?.iter().enumerate() {
        let s = first + i as u32;
        assert_eq!(f.len(), frame.len(), "packet {s}");
        assert!(
            *f == expected(&frame, &patch, s),
            "packet {s}: not the template with its patch: {f:?}"
        );
    }
    assert_eq!(
        pool.restored(),
        written,
        "exactly the written mbufs were restored"
    );

    // Restoring cleared the mark: a third round copies nothing.
    let first = seq;
    send_whole_pool(&pool, &mut qa.tx[0], &mut seq, patch_seq)?;
    for (i, f) in receive(&mut qb.rx[0], MBUFS)?.iter().enumerate() {
        assert!(*f == expected(&frame, &patch, first + i as u32));
    }
    assert_eq!(pool.restored(), written, "no mbuf restored twice");
    Ok(())
}

pub(crate) fn template_pool_errors(fx: &Fixture<'_>) -> TestResult {
    let frame = template_frame(64);
    let invalid =
        |r: Result<TemplatePool<'_>, Error>| matches!(r, Err(Error::InvalidTemplate { .. }));
    assert!(invalid(TemplatePool::new(
        fx.eal,
        "tmpl_bad",
        63,
        0,
        &frame,
        60..68,
        Socket::Any
    )));
    assert!(invalid(TemplatePool::new(
        fx.eal,
        "tmpl_bad",
        63,
        0,
        &[],
        0..0,
        Socket::Any
    )));
    let pool = TemplatePool::new(fx.eal, "tmpl_small", 63, 0, &frame, 0..0, Socket::Any)?;
    assert_eq!(pool.patch_range(), 0..0);
    let again = TemplatePool::new(fx.eal, "tmpl_small", 63, 0, &frame, 0..0, Socket::Any);
    assert!(
        matches!(again, Err(Error::Rte { errno: 17, .. })),
        "a second pool of the same name: EEXIST, {again:?}"
    );

    // All or nothing, as for ordinary pools; an empty patch region calls the closure anyway.
    let mut calls = 0;
    let mut a = MbufBurst::<64>::new();
    pool.alloc(&mut a, 40, |p| {
        assert!(p.is_empty());
        calls += 1;
    })?;
    assert_eq!((a.len(), calls, pool.available()), (40, 40, 23));
    assert!(a.iter().all(|m| m.data() == &frame[..]));
    let mut b = MbufBurst::<32>::new();
    assert_eq!(
        pool.fill(&mut b, |_| calls += 1),
        Err(Error::MempoolExhausted {
            requested: 32,
            available: 23
        })
    );
    assert_eq!(
        pool.alloc(&mut b, 33, |_| calls += 1),
        Err(Error::BurstFull {
            requested: 33,
            free: 32
        })
    );
    assert_eq!((b.len(), calls, pool.available()), (0, 40, 23));
    drop(a);
    assert_eq!(pool.available(), 63);
    Ok(())
}

/// `alloc_overwriting` leaves the patch region as the mbuf's previous packet left it (and the
/// rest of the frame as the template): a patch that writes only some bytes of the region sees
/// the others from before.
pub(crate) fn overwriting_alloc_keeps_the_previous_packet_in_the_region(
    fx: &Fixture<'_>,
) -> TestResult {
    const MBUFS: usize = 63;
    let frame = template_frame(128);
    let patch = 42..58;
    let pool = TemplatePool::new(
        fx.eal,
        "tmpl_overwrite",
        MBUFS as u32,
        0,
        &frame,
        patch.clone(),
        Socket::Any,
    )?;
    let (mut a, mut b) = fx.ring_ports()?;
    let a = a.start(&PortConfig::default(), &fx.pool)?;
    let b = b.start(&PortConfig::default(), &fx.pool)?;
    let (mut qa, mut qb) = (a.queues()?, b.queues()?);
    drain(&mut qa.rx[0]);
    drain(&mut qb.rx[0]);

    // Round 1 marks bytes 8..12 of every region; round 2 writes only bytes 0..4.
    for round in 0..2u32 {
        let mut burst = MbufBurst::<32>::new();
        let mut left = MBUFS;
        while left > 0 {
            let n = left.min(burst.free_slots());
            pool.alloc_overwriting(&mut burst, n, |p| {
                p[0..4].copy_from_slice(&(round + 1).to_be_bytes());
                if round == 0 {
                    p[8..12].copy_from_slice(&[0xab; 4]);
                }
            })?;
            left -= n;
            while !burst.is_empty() {
                qa.tx[0].tx_burst(&mut burst);
            }
        }
        let got = receive(&mut qb.rx[0], MBUFS)?;
        for f in &got {
            assert_eq!(f.len(), frame.len());
            assert_eq!(f[..patch.start], frame[..patch.start], "round {round}");
            assert_eq!(f[patch.end..], frame[patch.end..], "round {round}");
            let region = &f[patch.clone()];
            assert_eq!(region[0..4], (round + 1).to_be_bytes(), "round {round}");
            // Round 2 did not write 8..12: round 1's mark is still there in every mbuf.
            assert_eq!(region[8..12], [0xab; 4], "round {round}");
            assert_eq!(region[4..8], frame[patch.start + 4..patch.start + 8]);
        }
        assert_eq!(pool.in_use(), 0);
    }
    assert_eq!(pool.restored(), 0);
    Ok(())
}
