//! Running closures on worker lcores: a scope that joins every launched lcore before it returns
//! (like `std::thread::scope`), so that closures may borrow from the caller, and a stop flag.

use std::any::Any;
use std::cell::RefCell;
use std::ffi::{c_int, c_void};
use std::marker::PhantomData;
use std::panic::{AssertUnwindSafe, catch_unwind, resume_unwind};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

use crate::eal::{Eal, current_lcore};
use crate::error::{Error, Result};
use crate::sys;

/// A flag that the control thread raises and worker loops poll (one relaxed load per poll).
#[derive(Debug, Default)]
pub struct StopFlag(AtomicBool);

impl StopFlag {
    /// A lowered flag.
    pub const fn new() -> Self {
        StopFlag(AtomicBool::new(false))
    }

    /// Raises the flag.
    pub fn stop(&self) {
        self.0.store(true, Ordering::Release);
    }

    /// Whether the flag was raised.
    #[inline]
    pub fn is_stopped(&self) -> bool {
        self.0.load(Ordering::Relaxed)
    }
}

/// What a launched closure leaves behind: its return value or its panic.
type Outcome<T> = Arc<Mutex<Option<std::thread::Result<T>>>>;

/// The type-erased job that the trampoline runs on the worker lcore.
type Job<'scope> = Box<dyn FnOnce() + Send + 'scope>;

/// A scope in which closures run on worker lcores; see [`Eal::scope`].
pub struct LcoreScope<'scope, 'env: 'scope> {
    eal: &'env Eal,
    launched: RefCell<Vec<u32>>,
    /// Launched closures that panicked and whose handle has not collected the panic.
    uncollected_panics: Arc<AtomicUsize>,
    scope: PhantomData<&'scope mut &'scope ()>,
    env: PhantomData<&'env mut &'env ()>,
}

impl std::fmt::Debug for LcoreScope<'_, '_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LcoreScope")
            .field("launched", &self.launched.borrow())
            .finish()
    }
}

/// A closure running on a worker lcore; [`LcoreHandle::join`] waits for its result.
#[derive(Debug)]
pub struct LcoreHandle<'scope, T> {
    lcore: u32,
    outcome: Outcome<T>,
    uncollected_panics: Arc<AtomicUsize>,
    _scope: PhantomData<&'scope ()>,
    /// Joining (rte_eal_wait_lcore) is for the main lcore: the handle stays on its thread.
    _not_send: PhantomData<*const ()>,
}

impl Eal {
    /// Runs `f` with a scope in which closures are launched on worker lcores; every lcore launched
    /// in the scope has finished when `scope` returns, so the closures may borrow from outside.
    ///
    /// A closure that panicked and was not joined makes `scope` panic after all lcores finished.
    /// Like `std::thread::scope`, the scope waits for closures that never return: give them a
    /// [`StopFlag`] to poll.
    pub fn scope<'env, F, T>(&'env self, f: F) -> T
    where
        F: for<'scope> FnOnce(&'scope LcoreScope<'scope, 'env>) -> T,
    {
        let scope = LcoreScope {
            eal: self,
            launched: RefCell::new(Vec::new()),
            uncollected_panics: Arc::new(AtomicUsize::new(0)),
            scope: PhantomData,
            env: PhantomData,
        };
        let result = catch_unwind(AssertUnwindSafe(|| f(&scope)));
        for &lcore in scope.launched.borrow().iter() {
            // SAFETY: EAL is initialised and this is the main lcore (launch checked it before
            // adding the lcore to the list); waiting on a finished lcore returns at once.
            unsafe {
                sys::rte_eal_wait_lcore(lcore);
            }
        }
        match result {
            Err(panic) => resume_unwind(panic),
            Ok(value) => {
                let panics = scope.uncollected_panics.load(Ordering::Acquire);
                assert!(
                    panics == 0,
                    "{panics} closure(s) launched on worker lcores panicked"
                );
                value
            }
        }
    }
}

impl<'scope> LcoreScope<'scope, '_> {
    /// Runs `f` on the worker lcore `lcore`. Call from the main lcore.
    ///
    /// Errors: [`Error::NotMainLcore`], [`Error::NotWorkerLcore`] (not enabled or the main
    /// lcore), [`Error::LcoreBusy`] (a closure is still running there).
    pub fn launch<F, T>(&'scope self, lcore: u32, f: F) -> Result<LcoreHandle<'scope, T>>
    where
        F: FnOnce() -> T + Send + 'scope,
        T: Send + 'scope,
    {
        let main = self.eal.main_lcore();
        if current_lcore() != Some(main) {
            return Err(Error::NotMainLcore);
        }
        if lcore == main || !self.eal.lcore_enabled(lcore) {
            return Err(Error::NotWorkerLcore(lcore));
        }
        // SAFETY: EAL is initialised and lcore is an enabled lcore id.
        let state = unsafe { sys::rte_eal_get_lcore_state(lcore) };
        if state != sys::rte_lcore_state_t::WAIT {
            return Err(Error::LcoreBusy(lcore));
        }

        let outcome: Outcome<T> = Arc::new(Mutex::new(None));
        let job: Job<'scope> = {
            let outcome = Arc::clone(&outcome);
            let panics = Arc::clone(&self.uncollected_panics);
            Box::new(move || {
                let result = catch_unwind(AssertUnwindSafe(f));
                if result.is_err() {
                    panics.fetch_add(1, Ordering::AcqRel);
                }
                *outcome.lock().unwrap_or_else(PoisonError::into_inner) = Some(result);
            })
        };
        // SAFETY: only the lifetime changes. The job borrows data that lives for 'scope, and the
        // scope waits for this lcore (rte_eal_wait_lcore) before 'scope ends, so the job never
        // runs or is dropped after what it borrows is gone.
        let job: Job<'static> = unsafe { std::mem::transmute::<Job<'scope>, Job<'static>>(job) };
        let arg = Box::into_raw(Box::new(job)).cast::<c_void>();
        // SAFETY: trampoline matches lcore_function_t and takes ownership of arg exactly once;
        // lcore is an idle worker lcore; we are on the main lcore.
        let ret = unsafe { sys::rte_eal_remote_launch(Some(trampoline), arg, lcore) };
        if ret != 0 {
            // SAFETY: the launch failed, so the trampoline never received arg: reclaim it here.
            drop(unsafe { Box::from_raw(arg.cast::<Job<'static>>()) });
            return Err(if ret == -EBUSY {
                Error::LcoreBusy(lcore)
            } else {
                Error::rte("rte_eal_remote_launch", -ret)
            });
        }
        self.launched.borrow_mut().push(lcore);
        Ok(LcoreHandle {
            lcore,
            outcome,
            uncollected_panics: Arc::clone(&self.uncollected_panics),
            _scope: PhantomData,
            _not_send: PhantomData,
        })
    }
}

/// Linux's EBUSY, which rte_eal_remote_launch returns (negated) for a running lcore.
const EBUSY: c_int = 16;

/// Runs the job that `launch` boxed. EAL calls it on the worker lcore.
unsafe extern "C" fn trampoline(arg: *mut c_void) -> c_int {
    // SAFETY: arg is the Box<Job> that launch leaked for this launch only.
    let job = unsafe { Box::from_raw(arg.cast::<Job<'static>>()) };
    job(); // catches the closure's panics itself: nothing unwinds into C
    0
}

impl<T> LcoreHandle<'_, T> {
    /// The lcore the closure runs on.
    pub fn lcore(&self) -> u32 {
        self.lcore
    }

    /// Whether the closure has returned (or panicked).
    pub fn is_finished(&self) -> bool {
        // SAFETY: EAL is initialised (the scope borrows it) and lcore is an enabled lcore id.
        unsafe { sys::rte_eal_get_lcore_state(self.lcore) == sys::rte_lcore_state_t::WAIT }
    }

    /// Waits for the closure (on the main lcore, spinning) and returns what it returned, or the
    /// payload of its panic.
    pub fn join(self) -> std::result::Result<T, Box<dyn Any + Send + 'static>> {
        // SAFETY: EAL is initialised; the handle is not Send, so this is the main lcore thread that
        // launched the closure.
        unsafe {
            sys::rte_eal_wait_lcore(self.lcore);
        }
        let outcome = self
            .outcome
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .take()
            .expect("a finished lcore job leaves its outcome");
        if outcome.is_err() {
            self.uncollected_panics.fetch_sub(1, Ordering::AcqRel);
        }
        outcome
    }
}
