//! Quiescent states of the datapath workers, and a grace period that every `munmap` in the
//! process waits for.
//!
//! DPDK 22.11's memif PMD tears a link down on EAL's interrupt thread when its peer goes away:
//! it clears the port's "connected" flag, then unmaps the shared regions and frees their
//! descriptors, with nothing that waits for a worker that is inside `rx_burst` or `tx_burst` on
//! them at that moment. A worker caught there reads unmapped memory: `upfbench reflect` died of
//! SIGSEGV in `librte_net_memif.so` in 2 of 15 generator runs that ended against it.
//!
//! The bursts test the flag first, so a worker that starts a burst after the flag is cleared
//! never touches the regions. What is missing is a grace period between the flag and the unmap,
//! as in RCU with quiescent-state reporting (DPDK's own `rte_rcu_qsbr`): each worker reports a
//! quiescent state ([`Quiescent::pass`]) between its bursts, and the C shim's `munmap`, which the
//! `upfbench` binary exports so that the PMD plugins bind to it, first waits until every online
//! worker has reported one since the call began ([`grace_period`]). Then no worker is still in
//! a burst that began before the flag was cleared, and each one's next burst sees it cleared.
//!
//! A report is a load and a store, once per loop. A `munmap` with no worker online, or made by
//! a worker itself, does not wait. Each slot (and the token every worker reads) has a cache line
//! of its own: side by side, the slots of lcores 1 and 2 shared one line, which the two
//! workers' stores of every loop passed back and forth (docs/scale.md, S1).

use std::cell::Cell;
use std::sync::atomic::{AtomicU64, Ordering};

/// Worker slots: one per lcore id (DPDK's `RTE_MAX_LCORE` in Debian's build).
const SLOTS: usize = 128;
/// A slot whose worker is not polling.
const OFFLINE: u64 = 0;

/// An atomic alone in its cache line (64 bytes on every x86_64 and most arm64 cores).
#[repr(align(64))]
struct Line(AtomicU64);

/// The grace periods started so far, plus one: a worker's slot holds the value it last saw.
static TOKEN: Line = Line(AtomicU64::new(1));
static SLOT: [Line; SLOTS] = [const { Line(AtomicU64::new(OFFLINE)) }; SLOTS];
/// Workers online, so that a `munmap` with none skips the scan.
static ONLINE: AtomicU64 = AtomicU64::new(0);

thread_local! {
    static IS_WORKER: Cell<bool> = const { Cell::new(false) };
}

/// A datapath worker's reports of its quiescent states: online from [`Quiescent::online`] until
/// dropped. Not `Send`: it belongs to the thread that polls.
#[derive(Debug)]
pub struct Quiescent {
    slot: usize,
    _not_send: std::marker::PhantomData<*const ()>,
}

impl Quiescent {
    /// The calling thread, polling as worker `slot` (its lcore id), online and quiescent now.
    ///
    /// # Panics
    /// If `slot` is 128 or more, or already online.
    pub fn online(slot: u32) -> Quiescent {
        let slot = slot as usize;
        assert!(slot < SLOTS, "quiescence slot {slot} of {SLOTS}");
        let now = TOKEN.0.load(Ordering::Acquire);
        let was = SLOT[slot].0.swap(now, Ordering::AcqRel);
        assert_eq!(was, OFFLINE, "quiescence slot {slot} is online already");
        ONLINE.fetch_add(1, Ordering::AcqRel);
        IS_WORKER.with(|w| w.set(true));
        Quiescent {
            slot,
            _not_send: std::marker::PhantomData,
        }
    }

    /// Reports a quiescent state: the worker is in none of its bursts, and what it does next
    /// sees everything done before the grace periods started so far.
    #[inline(always)]
    pub fn pass(&self) {
        // Acquire: synchronises with the waiter's increment, which follows its caller's clearing
        // of the flag. Release: the bursts before this point are over before the waiter sees it.
        let now = TOKEN.0.load(Ordering::Acquire);
        SLOT[self.slot].0.store(now, Ordering::Release);
    }
}

impl Drop for Quiescent {
    fn drop(&mut self) {
        SLOT[self.slot].0.store(OFFLINE, Ordering::Release);
        ONLINE.fetch_sub(1, Ordering::AcqRel);
        IS_WORKER.with(|w| w.set(false));
    }
}

/// Waits until every online worker has reported a quiescent state since the call began, unless
/// the caller is a worker itself (it is in none of its bursts while it calls this).
pub fn grace_period() {
    // During thread teardown the thread-local may be gone: that thread is no worker.
    let is_worker = IS_WORKER.try_with(Cell::get).unwrap_or(false);
    if is_worker || ONLINE.load(Ordering::Acquire) == 0 {
        return;
    }
    let token = TOKEN.0.fetch_add(1, Ordering::AcqRel) + 1;
    for slot in &SLOT {
        let mut spins = 0u32;
        loop {
            let seen = slot.0.load(Ordering::Acquire);
            if seen == OFFLINE || seen >= token {
                break;
            }
            // A worker reports within a loop (a microsecond); one that lost its core may take
            // a scheduling period.
            spins += 1;
            if spins < 1_000 {
                std::hint::spin_loop();
            } else {
                std::thread::yield_now();
            }
        }
    }
}

/// The C shim's `munmap` calls this before unmapping (see the module's documentation).
#[unsafe(no_mangle)]
pub(crate) extern "C" fn upfb_datapath_grace() {
    grace_period();
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;
    use std::sync::atomic::AtomicBool;
    use std::sync::mpsc;
    use std::time::Duration;

    use super::*;

    /// A worker on its own thread that polls and reports only once allowed; the test's thread
    /// waits for grace periods. (Every `munmap` in this test binary waits for it too, a thread's
    /// exit among them: it always reports in the end.)
    #[test]
    fn a_grace_period_waits_for_every_online_worker_to_pass_but_never_for_the_caller() {
        let allowed = Arc::new(AtomicBool::new(false));
        let stop = Arc::new(AtomicBool::new(false));
        let (ready, is_ready) = mpsc::channel();
        let worker = std::thread::spawn({
            let (allowed, stop) = (allowed.clone(), stop.clone());
            move || {
                let q = Quiescent::online(100);
                ready.send(()).expect("test thread");
                while !stop.load(Ordering::Acquire) {
                    if allowed.load(Ordering::Acquire) {
                        q.pass();
                    }
                    std::hint::spin_loop();
                }
            }
        });
        is_ready.recv().expect("online");
        let (done, is_done) = mpsc::channel();
        let waiter = std::thread::spawn(move || {
            grace_period();
            done.send(()).expect("test thread");
        });
        assert_eq!(
            is_done.recv_timeout(Duration::from_millis(200)),
            Err(mpsc::RecvTimeoutError::Timeout),
            "the grace period ended before the worker reported"
        );
        allowed.store(true, Ordering::Release);
        is_done
            .recv_timeout(Duration::from_secs(10))
            .expect("the grace period ends once the worker reported");
        waiter.join().expect("waiter");

        // A worker's own grace period does not wait, not even for itself.
        allowed.store(false, Ordering::Release);
        let me = Quiescent::online(101);
        grace_period();
        drop(me);
        allowed.store(true, Ordering::Release);

        // A worker gone offline is not waited for.
        stop.store(true, Ordering::Release);
        worker.join().expect("worker");
        assert_eq!(ONLINE.load(Ordering::Acquire), 0);
        grace_period();
    }
}
