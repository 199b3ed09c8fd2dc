//! The Environment Abstraction Layer: initialisation once per process, cleanup, lcores, TSC.

use std::ffi::{CString, c_char, c_int};
use std::marker::PhantomData;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Mutex, MutexGuard, PoisonError};

use crate::error::{Error, Result};
use crate::sys;

/// Set by the first `Eal::init`, never cleared: DPDK cannot initialise twice in one process, not
/// even after a failed attempt or after `rte_eal_cleanup`.
static INIT_ATTEMPTED: AtomicBool = AtomicBool::new(false);

const _: () = assert!(sys::RTE_MAX_ETHPORTS <= 64, "port claims are a u64 bit set");

/// The initialised EAL of this process.
///
/// Everything that needs EAL (mempools, ports, queues, mbufs, launched lcores) borrows it, so the
/// borrow checker guarantees that all of it is gone before `Drop` runs `rte_eal_cleanup`.
/// `Eal` is `Sync` (workers may borrow it) but not `Send`: it is dropped, and EAL cleaned up, on the
/// thread that initialised it, which EAL made the main lcore.
pub struct Eal {
    /// Ports held by a `Port` handle, one bit per port id.
    claimed_ports: Mutex<u64>,
    _main_thread: PhantomData<MutexGuard<'static, ()>>,
}

impl std::fmt::Debug for Eal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Eal")
            .field("main_lcore", &self.main_lcore())
            .finish()
    }
}

impl Eal {
    /// Initialises EAL with these arguments (as on a DPDK command line, without the program name:
    /// `["-l", "0,1", "--no-huge", "--vdev", "net_null0"]`). The calling thread becomes the main
    /// lcore. It also registers the dynamic mbuf flag `upfbench_written` at the last bit DPDK
    /// leaves to dynamic flags (what keeps [`crate::TemplatePool`] frames intact); should that
    /// bit be taken, EAL is cleaned up and the error names `rte_mbuf_dynflag_register_bitnum`.
    ///
    /// Only the first call in a process may succeed; any later one returns
    /// [`Error::AlreadyInitialised`].
    pub fn init<I, S>(args: I) -> Result<Eal>
    where
        I: IntoIterator<Item = S>,
        S: AsRef<str>,
    {
        let mut argv = vec![CString::new("upfbench").expect("no NUL")];
        for arg in args {
            argv.push(CString::new(arg.as_ref()).map_err(|_| Error::NulByte {
                what: "EAL argument",
            })?);
        }
        if INIT_ATTEMPTED.swap(true, Ordering::SeqCst) {
            return Err(Error::AlreadyInitialised);
        }
        // EAL keeps pointers into argv (and getopt permutes it): the strings and the array live for
        // the rest of the process.
        let argv: &'static mut [*mut c_char] =
            Vec::leak(argv.into_iter().map(CString::into_raw).collect::<Vec<_>>());
        let argc = c_int::try_from(argv.len()).expect("fewer than 2^31 EAL arguments");
        // SAFETY: argc counts the valid, NUL-terminated, 'static strings in argv; the guard above
        // makes this the only call of rte_eal_init in the process.
        let ret = unsafe { sys::rte_eal_init(argc, argv.as_mut_ptr()) };
        if ret < 0 {
            return Err(Error::last("rte_eal_init"));
        }
        // Before any port is configured (PMDs register their dynamic flags then), so that the
        // bit stays ours.
        if let Err(e) = crate::written_flag::reserve_written_flag() {
            // SAFETY: EAL was initialised just above and nothing has used it yet.
            unsafe {
                sys::rte_eal_cleanup();
            }
            return Err(e);
        }
        Ok(Eal {
            claimed_ports: Mutex::new(0),
            _main_thread: PhantomData,
        })
    }

    /// The DPDK version this crate was built against (pkg-config's `libdpdk` version).
    pub fn dpdk_version() -> &'static str {
        env!("UPFBENCH_DPDK_VERSION")
    }

    /// The main lcore (the thread that called [`Eal::init`]).
    pub fn main_lcore(&self) -> u32 {
        // SAFETY: EAL is initialised (self exists); reads EAL's configuration.
        unsafe { sys::rte_get_main_lcore() }
    }

    /// All enabled lcores, main included, in ascending order.
    pub fn lcores(&self) -> Vec<u32> {
        self.next_lcores(false)
    }

    /// The enabled worker lcores (all but the main one), in ascending order.
    pub fn worker_lcores(&self) -> Vec<u32> {
        self.next_lcores(true)
    }

    fn next_lcores(&self, skip_main: bool) -> Vec<u32> {
        let mut lcores = Vec::new();
        let mut i = u32::MAX; // rte_get_next_lcore(-1, ...) starts at lcore 0
        loop {
            // SAFETY: EAL is initialised; rte_get_next_lcore only reads its configuration.
            i = unsafe { sys::rte_get_next_lcore(i, c_int::from(skip_main), 0) };
            if i >= sys::RTE_MAX_LCORE {
                return lcores;
            }
            lcores.push(i);
        }
    }

    /// Whether `lcore` is enabled in this EAL.
    pub fn lcore_enabled(&self, lcore: u32) -> bool {
        // SAFETY: EAL is initialised; rte_lcore_is_enabled bounds-checks its argument.
        lcore < sys::RTE_MAX_LCORE && unsafe { sys::rte_lcore_is_enabled(lcore) } != 0
    }

    /// The NUMA socket of an lcore, `None` if the lcore is not enabled.
    pub fn lcore_socket(&self, lcore: u32) -> Option<u32> {
        // SAFETY: EAL is initialised and lcore was checked to be below RTE_MAX_LCORE (the function
        // indexes an array with it unchecked).
        self.lcore_enabled(lcore)
            .then(|| unsafe { sys::rte_lcore_to_socket_id(lcore) })
    }

    /// Number of enabled lcores.
    pub fn lcore_count(&self) -> u32 {
        // SAFETY: EAL is initialised; reads its configuration.
        unsafe { sys::rte_lcore_count() }
    }

    /// TSC ticks per second, as calibrated by EAL.
    pub fn tsc_hz(&self) -> u64 {
        // SAFETY: EAL is initialised; reads the calibrated frequency.
        unsafe { sys::rte_get_tsc_hz() }
    }

    /// The ids of all ports that EAL probed (vdevs and bound NICs), ascending.
    pub fn port_ids(&self) -> Vec<u16> {
        let mut ids = Vec::new();
        // SAFETY: EAL is initialised; rte_eth_find_next only reads the ethdev table.
        let mut id = unsafe { sys::rte_eth_find_next(0) };
        while u32::from(id) < sys::RTE_MAX_ETHPORTS {
            ids.push(id);
            // SAFETY: as above.
            id = unsafe { sys::rte_eth_find_next(id + 1) };
        }
        ids
    }

    /// Marks a port as held; false if another handle already holds it.
    pub(crate) fn claim_port(&self, id: u16) -> bool {
        let mut claimed = self
            .claimed_ports
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        let bit = 1u64 << id;
        let free = *claimed & bit == 0;
        *claimed |= bit;
        free
    }

    pub(crate) fn release_port(&self, id: u16) {
        let mut claimed = self
            .claimed_ports
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        *claimed &= !(1u64 << id);
    }
}

impl Drop for Eal {
    fn drop(&mut self) {
        // SAFETY: every object that used EAL borrowed self and is gone; launched closures were
        // joined by their scope. This is the main lcore thread (Eal is not Send).
        unsafe {
            sys::rte_eal_cleanup();
        }
    }
}

/// The lcore the calling thread runs on, `None` for a thread that is not an EAL lcore.
pub fn current_lcore() -> Option<u32> {
    // SAFETY: reads a thread-local variable; valid on any thread.
    let id = unsafe { sys::upfb_lcore_id() };
    (id < sys::RTE_MAX_LCORE).then_some(id)
}

/// Reads the time-stamp counter (the clock of DPDK's cycle counts; see [`Eal::tsc_hz`]).
#[inline(always)]
pub fn tsc() -> u64 {
    #[cfg(target_arch = "x86_64")]
    {
        // SAFETY: RDTSC has no preconditions; it is available on every x86_64 CPU.
        unsafe { core::arch::x86_64::_rdtsc() }
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        // SAFETY: rte_rdtsc has no preconditions.
        unsafe { sys::upfb_rdtsc() }
    }
}
