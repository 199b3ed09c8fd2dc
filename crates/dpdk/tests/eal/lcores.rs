//! EAL once per process, lcores, TSC, closures on worker lcores.

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use upfbench_dpdk::{Error, StopFlag, current_lcore, tsc};

use upfbench_testkit::eal::EalSetup;

use crate::fixture::{Fixture, TestResult};

pub(crate) fn second_init_is_an_error(_: &Fixture<'_>) -> TestResult {
    let again = EalSetup::new("again").init();
    assert!(
        matches!(again, Err(Error::AlreadyInitialised)),
        "got {again:?}"
    );
    Ok(())
}

pub(crate) fn lcore_list_and_tsc(fx: &Fixture<'_>) -> TestResult {
    let eal = fx.eal;
    assert_eq!(eal.lcores(), [0, 1]);
    assert_eq!(eal.main_lcore(), 0);
    assert_eq!(eal.worker_lcores(), [1]);
    assert_eq!(eal.lcore_count(), 2);
    assert!(eal.lcore_enabled(1) && !eal.lcore_enabled(2) && !eal.lcore_enabled(u32::MAX));
    assert_eq!(eal.lcore_socket(0), Some(0));
    assert_eq!(eal.lcore_socket(7), None);
    assert_eq!(
        current_lcore(),
        Some(0),
        "the thread that initialised EAL is the main lcore"
    );
    assert_eq!(
        std::thread::spawn(current_lcore).join().expect("thread"),
        None,
        "a plain thread is no lcore"
    );

    let hz = eal.tsc_hz();
    assert!(hz > 100_000_000, "TSC frequency {hz} Hz");
    let t0 = tsc();
    std::thread::sleep(Duration::from_millis(50));
    let ticks = tsc() - t0;
    // 50 ms of sleep is about 50 ms of ticks (EAL's calibration is not exact to the tick); the
    // bounds catch a wrong frequency, not jitter.
    assert!(ticks >= hz / 25, "{ticks} ticks in 50 ms at {hz} Hz");
    assert!(ticks < hz * 5, "{ticks} ticks in 50 ms at {hz} Hz");
    Ok(())
}

pub(crate) fn closure_runs_on_a_worker_lcore_and_returns(fx: &Fixture<'_>) -> TestResult {
    let numbers: Vec<u64> = (1..=1000).collect();
    let (lcore, sum) = fx.eal.scope(|s| -> Result<_, Error> {
        // Borrows `numbers` from the caller's stack: the scope joins before it returns.
        let handle = s.launch(1, || (current_lcore(), numbers.iter().sum::<u64>()))?;
        assert_eq!(handle.lcore(), 1);
        Ok(handle.join().expect("the closure does not panic"))
    })?;
    assert_eq!(lcore, Some(1), "the closure ran on worker lcore 1");
    assert_eq!(sum, 500_500);

    // The lcore is free again for the next launch, and a result that moves out works too.
    let text = fx.eal.scope(|s| {
        s.launch(1, || format!("lcore {:?}", current_lcore()))?
            .join()
            .map_err(|_| Error::NotMainLcore)
    })?;
    assert_eq!(text, "lcore Some(1)");
    Ok(())
}

pub(crate) fn launch_errors(fx: &Fixture<'_>) -> TestResult {
    let release = StopFlag::new();
    let started = AtomicBool::new(false);
    fx.eal.scope(|s| -> TestResult {
        let main = s.launch(0, || ()).map(drop);
        assert_eq!(
            main,
            Err(Error::NotWorkerLcore(0)),
            "the main lcore is no worker"
        );
        let disabled = s.launch(5, || ()).map(drop);
        assert_eq!(
            disabled,
            Err(Error::NotWorkerLcore(5)),
            "lcore 5 is not in -l"
        );

        let busy = s.launch(1, || {
            started.store(true, Ordering::Release);
            while !release.is_stopped() {
                std::hint::spin_loop();
            }
            7
        })?;
        while !started.load(Ordering::Acquire) {
            std::hint::spin_loop();
        }
        assert!(!busy.is_finished());
        let second = s.launch(1, || 8).map(drop);
        assert_eq!(second, Err(Error::LcoreBusy(1)));

        // Launching from a thread that is not the main lcore is refused.
        let from_other_thread = std::thread::scope(|t| {
            t.spawn(|| fx.eal.scope(|s2| s2.launch(1, || ()).map(drop)))
                .join()
                .expect("thread")
        });
        assert_eq!(from_other_thread, Err(Error::NotMainLcore));

        release.stop();
        assert_eq!(busy.join().expect("no panic"), 7);
        Ok(())
    })
}

pub(crate) fn worker_panic_is_returned_by_join(fx: &Fixture<'_>) -> TestResult {
    let outcome = fx.eal.scope(|s| -> Result<_, Error> {
        let h = s.launch(1, || -> u32 { panic!("worker gives up") })?;
        Ok(h.join())
    })?;
    let payload = outcome.expect_err("the panic comes back from join");
    assert_eq!(payload.downcast_ref::<&str>(), Some(&"worker gives up"));
    // The lcore is usable again.
    let again = fx.eal.scope(|s| s.launch(1, || 3).map(|h| h.join().ok()))?;
    assert_eq!(again, Some(3));
    Ok(())
}

pub(crate) fn unjoined_worker_panic_fails_the_scope(fx: &Fixture<'_>) -> TestResult {
    let result = catch_unwind(AssertUnwindSafe(|| {
        fx.eal.scope(|s| {
            let _unjoined = s.launch(1, || panic!("nobody joins me")).expect("launch");
        })
    }));
    let payload = result.expect_err("the scope panics");
    let msg = payload
        .downcast_ref::<String>()
        .cloned()
        .unwrap_or_default();
    assert!(
        msg.contains("1 closure(s) launched on worker lcores panicked"),
        "{msg}"
    );
    Ok(())
}
