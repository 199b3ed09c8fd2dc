//! Packets through ports: ring pair, net_ring loopback, net_null, workers.

use std::time::{Duration, Instant};

use upfbench_dpdk::{Error, MbufBurst, Port, PortConfig, RING_PAIR_SIZE, StopFlag};

use crate::fixture::{Fixture, TestResult, drain, frame, receive, send_all, seq_of};

pub(crate) fn ring_pair_delivers_byte_for_byte(fx: &Fixture<'_>) -> TestResult {
    let (mut a, mut b) = fx.ring_ports()?;
    let a = a.start(&PortConfig::default(), &fx.pool)?;
    let b = b.start(&PortConfig::default(), &fx.pool)?;
    let (mut qa, mut qb) = (a.queues()?, b.queues()?);
    // The rings outlive the ports' starts and stops: empty them of what a failed case left.
    drain(&mut qa.rx[0]);
    drain(&mut qb.rx[0]);
    a.reset_stats()?;
    b.reset_stats()?;

    // 300 frames of every length from 60 to 1514 bytes.
    let frames: Vec<Vec<u8>> = (0..300u32)
        .map(|i| frame(i, 60 + (i as usize * 5) % 1455))
        .collect();
    let bytes: u64 = frames.iter().map(|f| f.len() as u64).sum();
    send_all(&mut qa.tx[0], &fx.pool, &frames)?;
    let got = receive(&mut qb.rx[0], frames.len())?;
    assert_eq!(got.len(), frames.len());
    for (i, (sent, received)) in frames.iter().zip(&got).enumerate() {
        assert_eq!(sent, received, "frame {i} arrives byte for byte, in order");
    }
    assert_eq!(drain(&mut qa.rx[0]), 0, "nothing comes back on the sender");

    let sa = a.stats()?;
    let sb = b.stats()?;
    assert_eq!((sa.opackets, sa.ipackets), (300, 0));
    assert_eq!((sb.ipackets, sb.opackets), (300, 0));
    // net_ring (22.11) counts packets, not bytes; where bytes are counted they must agree.
    assert!(
        sa.obytes == 0 || sa.obytes == bytes,
        "{} of {bytes} bytes",
        sa.obytes
    );
    assert!(
        sb.ibytes == 0 || sb.ibytes == bytes,
        "{} of {bytes} bytes",
        sb.ibytes
    );
    assert_eq!(
        (sa.oerrors, sb.ierrors, sb.imissed, sb.rx_nombuf),
        (0, 0, 0, 0)
    );

    // Extended statistics agree with the basic ones, by name and in the full list.
    assert_eq!(b.xstat("rx_good_packets")?, 300);
    assert_eq!(b.xstat("rx_good_bytes")?, sb.ibytes);
    assert_eq!(a.xstat("tx_good_packets")?, 300);
    let all = b.xstats()?;
    assert!(
        all.contains(&("rx_good_packets".to_owned(), 300)),
        "{all:?}"
    );
    assert!(matches!(b.xstat("no_such_counter"), Err(Error::Rte { .. })));
    Ok(())
}

pub(crate) fn tx_burst_leaves_unsent_with_caller(fx: &Fixture<'_>) -> TestResult {
    let (mut a, mut b) = fx.ring_ports()?;
    let a = a.start(&PortConfig::default(), &fx.pool)?;
    let b = b.start(&PortConfig::default(), &fx.pool)?;
    let (mut qa, mut qb) = (a.queues()?, b.queues()?);
    // The rings outlive the ports' starts and stops: empty them of what a failed case left.
    drain(&mut qa.rx[0]);
    drain(&mut qb.rx[0]);
    a.reset_stats()?;
    b.reset_stats()?;
    let capacity = RING_PAIR_SIZE as usize - 1;

    // Nobody receives: the ring fills up and the port takes only what fits.
    let mut burst = MbufBurst::<64>::new();
    let mut seq = 0u32;
    let mut accepted = 0;
    loop {
        for m in burst.fill(&fx.pool)? {
            m.extend_from_slice(&frame(seq, 64))?;
            seq += 1;
        }
        let sent = qa.tx[0].tx_burst(&mut burst);
        accepted += sent;
        if sent < 64 {
            break;
        }
    }
    assert_eq!(accepted, capacity, "the ring held {capacity}");
    assert_eq!(
        burst.len(),
        64 - capacity % 64,
        "the rest stayed with the caller"
    );
    let kept: Vec<u32> = burst.iter().map(|m| seq_of(m.data())).collect();
    let expected: Vec<u32> = (capacity as u32..seq).collect();
    assert_eq!(
        kept, expected,
        "the unsent mbufs, in order, at the front, unchanged"
    );
    assert_eq!(qa.tx[0].tx_burst(&mut burst), 0, "still full");

    // Once the peer drains the ring, the same mbufs go out.
    let got = receive(&mut qb.rx[0], capacity)?;
    assert!(got.iter().enumerate().all(|(i, f)| seq_of(f) == i as u32));
    assert_eq!(qa.tx[0].tx_burst(&mut burst), kept.len());
    assert!(burst.is_empty());
    let rest = receive(&mut qb.rx[0], kept.len())?;
    assert_eq!(rest.iter().map(|f| seq_of(f)).collect::<Vec<_>>(), expected);
    Ok(())
}

pub(crate) fn net_ring_vdev_loops_back(fx: &Fixture<'_>) -> TestResult {
    // A net_ring vdev made from the command line uses one ring per queue for both directions.
    let mut port = Port::from_name(fx.eal, "net_ring0")?;
    let started = port.start(&PortConfig::default(), &fx.pool)?;
    let mut q = started.queues()?;
    let frames: Vec<Vec<u8>> = (0..100).map(|i| frame(i, 128)).collect();
    send_all(&mut q.tx[0], &fx.pool, &frames)?;
    assert_eq!(receive(&mut q.rx[0], 100)?, frames);
    let stats = started.stats()?;
    assert_eq!((stats.opackets, stats.ipackets), (100, 100));
    Ok(())
}

pub(crate) fn net_null_counts_transmitted(fx: &Fixture<'_>) -> TestResult {
    let mut port = Port::from_name(fx.eal, "net_null1")?;
    let started = port.start(&PortConfig::default(), &fx.pool)?;
    started.reset_stats()?;
    let mut q = started.queues()?;
    let before = fx.pool.available();
    let mut burst = MbufBurst::<32>::new();
    let mut sent = 0;
    for _ in 0..100 {
        for m in burst.fill(&fx.pool)? {
            m.extend_from_slice(&frame(0, 342))?;
        }
        sent += q.tx[0].tx_burst(&mut burst);
    }
    assert_eq!(sent, 3200, "net_null takes everything");
    let stats = started.stats()?;
    assert_eq!(stats.opackets, 3200);
    // net_null (22.11) counts packets, not bytes; where bytes are counted they must agree.
    assert!(
        stats.obytes == 0 || stats.obytes == 3200 * 342,
        "{} bytes",
        stats.obytes
    );
    assert_eq!(fx.pool.available(), before, "net_null freed every mbuf");
    Ok(())
}

pub(crate) fn workers_transmit_until_stopped(fx: &Fixture<'_>) -> TestResult {
    let (mut a, mut b) = fx.ring_ports()?;
    let a = a.start(&PortConfig::default(), &fx.pool)?;
    let b = b.start(&PortConfig::default(), &fx.pool)?;
    let (mut qa, mut qb) = (a.queues()?, b.queues()?);
    // The rings outlive the ports' starts and stops: empty them of what a failed case left.
    drain(&mut qa.rx[0]);
    drain(&mut qb.rx[0]);
    a.reset_stats()?;
    b.reset_stats()?;
    let mut txq = qa.tx.pop().ok_or("tx queue")?;
    let rxq = &mut qb.rx[0];
    let stop = StopFlag::new();
    let pool = fx.pool;

    // A TX worker on lcore 1 sends numbered frames until told to stop; the main lcore receives.
    let (sent, received) = fx.eal.scope(|s| -> Result<(u64, u64), Error> {
        let tx = s.launch(1, || {
            let mut burst = MbufBurst::<32>::new();
            let mut seq = 0u32;
            let mut sent = 0u64;
            while !stop.is_stopped() {
                let free = burst.free_slots();
                if let Ok(fresh) = burst.alloc(&pool, free) {
                    for m in fresh {
                        m.extend_from_slice(&frame(seq, 60)).expect("fits");
                        seq += 1;
                    }
                }
                sent += txq.tx_burst(&mut burst) as u64;
            }
            sent
        })?;
        let mut burst = MbufBurst::<32>::new();
        let mut received = 0u64;
        let deadline = Instant::now() + Duration::from_secs(10);
        while received < 20_000 && Instant::now() < deadline {
            rxq.rx_burst(&mut burst);
            for m in burst.iter() {
                assert_eq!(seq_of(m.data()), received as u32, "in order, none lost");
                received += 1;
            }
            burst.clear();
        }
        stop.stop();
        let sent = tx.join().expect("the TX worker does not panic");
        Ok((sent, received))
    })?;
    assert!(received >= 20_000, "received {received} within 10 s");
    let rest = drain(rxq) as u64;
    assert_eq!(received + rest, sent, "everything sent arrived");
    assert_eq!(b.stats()?.ipackets, sent);
    Ok(())
}
