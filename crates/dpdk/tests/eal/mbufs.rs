//! Mempools, mbufs and bursts.

use upfbench_dpdk::{Error, HEADROOM, MbufBurst, NoRoom};

use crate::fixture::{Fixture, TestResult, new_pool};

pub(crate) fn exhausted_mempool_is_an_error(fx: &Fixture<'_>) -> TestResult {
    let pool = new_pool(fx.eal, "exhaust", 63, 0);
    assert_eq!(pool.available(), 63);
    let held: Vec<_> = (0..63).map(|_| pool.alloc()).collect::<Result<_, _>>()?;
    assert_eq!(pool.available(), 0);
    assert_eq!(pool.in_use(), 63);
    let err = pool.alloc().expect_err("the 64th mbuf does not exist");
    assert_eq!(
        err,
        Error::MempoolExhausted {
            requested: 1,
            available: 0
        }
    );
    drop(held);
    assert_eq!(pool.available(), 63, "dropping returns the mbufs");
    assert!(pool.alloc().is_ok());
    Ok(())
}

pub(crate) fn burst_alloc_is_all_or_nothing(fx: &Fixture<'_>) -> TestResult {
    let pool = new_pool(fx.eal, "bulk", 63, 0);
    let mut a = MbufBurst::<64>::new();
    assert_eq!(a.alloc(&pool, 40)?.len(), 40);
    assert_eq!(pool.available(), 23);

    let mut b = MbufBurst::<32>::new();
    let err = b.alloc(&pool, 32).expect_err("23 free, 32 asked");
    assert_eq!(
        err,
        Error::MempoolExhausted {
            requested: 32,
            available: 23
        }
    );
    assert!(b.is_empty(), "nothing was taken");
    assert_eq!(pool.available(), 23, "nothing was taken");

    let err = b.alloc(&pool, 33).expect_err("more than the burst holds");
    assert_eq!(
        err,
        Error::BurstFull {
            requested: 33,
            free: 32
        }
    );

    a.truncate(10); // frees 30 in one call
    assert_eq!(pool.available(), 53);
    assert_eq!(b.fill(&pool)?.len(), 32);
    assert!(b.is_full());
    drop(a);
    drop(b);
    assert_eq!(pool.available(), 63);
    Ok(())
}

pub(crate) fn headroom_prepend_append_adj_trim(fx: &Fixture<'_>) -> TestResult {
    let mut m = fx.pool.alloc()?;
    assert_eq!(
        (m.len(), m.segments(), m.headroom()),
        (0, 1, usize::from(HEADROOM))
    );
    let room = usize::from(fx.pool.data_room()) - usize::from(HEADROOM);
    assert_eq!(m.tailroom(), room);
    assert!(m.is_empty() && m.data().is_empty());

    m.extend_from_slice(b"payload")?;
    m.prepend(4)?.copy_from_slice(b"HDR:");
    assert_eq!(m.data(), b"HDR:payload");
    assert_eq!((m.len(), m.headroom(), m.tailroom()), (11, 124, room - 7));

    m.data_mut()[4] = b'P';
    m.adj(4)?;
    assert_eq!(m.data(), b"Payload");
    m.trim(3)?;
    assert_eq!(m.data(), b"Payl");
    assert_eq!(m.len(), 4);

    assert_eq!(
        m.prepend(129).map(drop),
        Err(NoRoom {
            requested: 129,
            available: 128
        })
    );
    let tail = m.tailroom();
    assert_eq!(
        m.append(tail + 1).map(drop),
        Err(NoRoom {
            requested: tail + 1,
            available: tail
        })
    );
    assert_eq!(
        m.adj(5),
        Err(NoRoom {
            requested: 5,
            available: 4
        })
    );
    assert_eq!(
        m.trim(5),
        Err(NoRoom {
            requested: 5,
            available: 4
        })
    );
    assert_eq!(m.data(), b"Payl", "failed calls change nothing");

    // The whole buffer is usable: headroom and tailroom together.
    m.prepend(128)?;
    m.append(tail)?;
    assert_eq!((m.len(), m.headroom(), m.tailroom()), (room + 128, 0, 0));
    Ok(())
}

pub(crate) fn burst_push_pop_retain(fx: &Fixture<'_>) -> TestResult {
    let before = fx.pool.available();
    let mut burst = MbufBurst::<8>::new();
    for i in 0..8u8 {
        let mut m = fx.pool.alloc()?;
        m.extend_from_slice(&[i])?;
        burst.push(m).map_err(|_| "room")?;
    }
    let extra = fx.pool.alloc()?;
    let extra = burst.push(extra).expect_err("the ninth does not fit");
    drop(extra);

    burst.retain_mut(|m| m.data()[0] % 2 == 0);
    let kept: Vec<u8> = burst.iter().map(|m| m.data()[0]).collect();
    assert_eq!(kept, [0, 2, 4, 6], "kept in order");
    assert_eq!(fx.pool.available(), before - 4, "the odd ones were freed");

    let last = burst.pop().expect("one");
    assert_eq!(last.data(), [6]);
    burst[0].data_mut()[0] = 42;
    assert_eq!(burst[0].data(), [42]);
    drop(last);
    drop(burst);
    assert_eq!(fx.pool.available(), before);
    Ok(())
}

pub(crate) fn retain_mut_keeps_what_the_closure_swaps_in(fx: &Fixture<'_>) -> TestResult {
    let before = fx.pool.available();
    let mut burst = MbufBurst::<4>::new();
    for m in burst.fill(&fx.pool)? {
        m.extend_from_slice(b"old")?;
    }
    let mut taken = Vec::new();
    burst.retain_mut(|m| {
        let mut fresh = fx.pool.alloc().expect("pool");
        fresh.extend_from_slice(b"new").expect("fits");
        taken.push(std::mem::replace(m, fresh));
        true
    });
    assert!(burst.iter().all(|m| m.data() == b"new"));
    assert!(taken.iter().all(|m| m.data() == b"old"));
    drop(taken);
    drop(burst);
    assert_eq!(fx.pool.available(), before, "every mbuf freed once");
    Ok(())
}

pub(crate) fn fill_with_hands_out_reset_mbufs_in_one_pass(fx: &Fixture<'_>) -> TestResult {
    // No cache: the mbufs freed below are the ones fill_with gets back.
    let pool = new_pool(fx.eal, "reuse", 15, 0);
    let mut burst = MbufBurst::<15>::new();
    for m in burst.fill(&pool)? {
        m.extend_from_slice(&[0xee; 300])?;
        m.prepend(20)?;
        m.request_tx_checksum(14, 20, true, true);
    }
    burst.clear();
    assert_eq!(pool.available(), 15);

    let mut calls = 0;
    burst.fill_with(&pool, |m| {
        assert_eq!(
            (m.len(), m.segments(), m.headroom()),
            (0, 1, usize::from(HEADROOM))
        );
        assert!(m.data().is_empty());
        assert_eq!(m.port(), u16::MAX, "no input port");
        assert_eq!(
            m.rx_ip_checksum(),
            upfbench_dpdk::RxChecksum::Unknown,
            "flags cleared"
        );
        m.extend_from_slice(&[calls as u8; 10]).expect("fits");
        calls += 1;
    })?;
    assert_eq!(calls, 15);
    let firsts: Vec<u8> = burst.iter().map(|m| m.data()[0]).collect();
    assert_eq!(
        firsts,
        (0..15).collect::<Vec<u8>>(),
        "init runs once per mbuf, in slot order"
    );

    burst.truncate(5);
    let err = burst
        .alloc_with(&pool, 11, |_| panic!("not called"))
        .expect_err("10 free");
    assert_eq!(
        err,
        Error::BurstFull {
            requested: 11,
            free: 10
        }
    );
    let mut other = MbufBurst::<16>::new();
    let err = other
        .alloc_with(&pool, 11, |_| panic!("not called"))
        .expect_err("10 in the pool");
    assert_eq!(
        err,
        Error::MempoolExhausted {
            requested: 11,
            available: 10
        }
    );
    assert_eq!(pool.available(), 10, "nothing was taken");
    burst.alloc_with(&pool, 10, |m| m.append(1).map(|_| ()).expect("fits"))?;
    assert_eq!((burst.len(), pool.available()), (15, 0));
    Ok(())
}

pub(crate) fn alloc_with_keeps_swapped_mbufs_even_on_panic(fx: &Fixture<'_>) -> TestResult {
    let pool = new_pool(fx.eal, "swap", 31, 0);
    let mut spare = pool.alloc()?;
    spare.extend_from_slice(&[0xaa; 5])?;
    let mut burst = MbufBurst::<8>::new();
    let mut first = true;
    burst.alloc_with(&pool, 4, |m| {
        if std::mem::take(&mut first) {
            // The fresh mbuf goes to `spare`, the old spare into the burst.
            std::mem::swap(m, &mut spare);
        }
    })?;
    assert_eq!(
        burst[0].data(),
        &[0xaa; 5],
        "the burst owns what was swapped in"
    );
    assert!(spare.is_empty(), "the closure's side owns the fresh one");
    assert_eq!(pool.in_use(), 5);

    // A panic after a swap: the slot holds the swapped-in mbuf, nothing is freed twice or lost.
    let mut calls = 0;
    let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        burst.alloc_with(&pool, 4, |m| {
            calls += 1;
            if calls == 2 {
                std::mem::swap(m, &mut spare);
                panic!("init fails");
            }
        })
    }));
    assert!(outcome.is_err());
    assert_eq!(burst.len(), 8, "all four counted");
    assert_eq!(burst[5].len(), 0, "the fresh mbuf swapped in at the panic");
    assert_eq!(pool.in_use(), 9);
    drop(burst);
    drop(spare);
    assert_eq!(pool.available(), 31, "every mbuf back exactly once");
    Ok(())
}

pub(crate) fn drain_each_hands_over_in_order(fx: &Fixture<'_>) -> TestResult {
    let before = fx.pool.available();
    let mut burst = MbufBurst::<8>::new();
    for i in 0..6u8 {
        let mut m = fx.pool.alloc()?;
        m.extend_from_slice(&[i])?;
        burst.push(m).map_err(|_| "room")?;
    }
    let mut kept = Vec::new();
    burst.drain_each(|m| {
        if m.data()[0] % 3 == 0 {
            kept.push(m);
        }
    });
    assert!(burst.is_empty());
    let order: Vec<u8> = kept.iter().map(|m| m.data()[0]).collect();
    assert_eq!(order, [0, 3], "handed over front to back");
    assert_eq!(
        fx.pool.available(),
        before - 2,
        "the others were freed when dropped"
    );
    drop(kept);
    assert_eq!(fx.pool.available(), before);
    burst.drain_each(|_| panic!("an empty burst hands nothing over"));
    Ok(())
}
