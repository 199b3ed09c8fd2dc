//! The error type of every fallible call.

use std::ffi::CStr;

use crate::sys;

/// What went wrong in a DPDK call or in a use of the safe API.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// `Eal::init` was called a second time: EAL initialises once per process (a failed first
    /// attempt counts, DPDK cannot retry it).
    #[error("EAL was already initialised in this process (rte_eal_init runs once per process)")]
    AlreadyInitialised,
    /// A DPDK function failed; `errno` is the (positive) `rte_errno` or negated return value.
    #[error("{call} failed: {message} (errno {errno})")]
    Rte {
        /// The DPDK function that failed.
        call: &'static str,
        /// The error number (`rte_errno` or the negated return value).
        errno: i32,
        /// `rte_strerror(errno)`.
        message: String,
    },
    /// A string given to DPDK contains a NUL byte.
    #[error("{what} contains a NUL byte")]
    NulByte {
        /// Which argument.
        what: &'static str,
    },
    /// The mempool had fewer free mbufs than asked for; nothing was allocated.
    #[error("mempool exhausted: {requested} mbufs requested, {available} available")]
    MempoolExhausted {
        /// How many mbufs were asked for.
        requested: usize,
        /// How many the pool had free at the time of the failure (cached ones are not counted).
        available: usize,
    },
    /// More mbufs were asked for than a burst has free slots.
    #[error("burst has {free} free slots, {requested} requested")]
    BurstFull {
        /// How many mbufs were asked for.
        requested: usize,
        /// How many slots were free.
        free: usize,
    },
    /// A template frame or its patch region cannot make a [`crate::TemplatePool`].
    #[error("invalid template: {reason}")]
    InvalidTemplate {
        /// What is wrong.
        reason: String,
    },
    /// No port has this name (vdev name or PCI address).
    #[error("no DPDK port named {0:?} (is the device probed? see the --vdev / -a EAL arguments)")]
    PortNotFound(String),
    /// No port has this id.
    #[error("no DPDK port with id {0}")]
    InvalidPort(u16),
    /// Another `Port` handle of this process holds the port.
    #[error("port {0} is already held by another handle")]
    PortInUse(u16),
    /// The queues of a started port are taken: handles of an earlier call are alive.
    #[error("the queues of port {0} are taken (their handles are still alive)")]
    QueuesTaken(u16),
    /// The port configuration is not possible on this port.
    #[error("port {port}: {reason}")]
    InvalidConfig {
        /// The port.
        port: u16,
        /// Why.
        reason: String,
    },
    /// The lcore is not a worker lcore of this EAL (not in `-l`, or the main lcore).
    #[error("lcore {0} is not a worker lcore of this EAL")]
    NotWorkerLcore(u32),
    /// A closure is still running on the lcore.
    #[error("lcore {0} is busy")]
    LcoreBusy(u32),
    /// Worker lcores can only be launched and joined from the main lcore.
    #[error("worker lcores are launched from the main lcore only")]
    NotMainLcore,
}

/// The result type of this crate.
pub type Result<T, E = Error> = std::result::Result<T, E>;

impl Error {
    /// An error from the error number `errno` (positive) of a failed `call`.
    pub(crate) fn rte(call: &'static str, errno: i32) -> Self {
        let errno = errno.abs();
        // SAFETY: rte_strerror accepts any error number.
        let text = unsafe { sys::rte_strerror(errno) };
        // SAFETY: rte_strerror returns a NUL-terminated string, static or in a per-lcore buffer,
        // which is copied here before anything on this thread can overwrite it.
        let message = unsafe { CStr::from_ptr(text) }
            .to_string_lossy()
            .into_owned();
        Error::Rte {
            call,
            errno,
            message,
        }
    }

    /// An error from the current `rte_errno` after a failed `call`.
    pub(crate) fn last(call: &'static str) -> Self {
        // SAFETY: reads the calling thread's rte_errno; no preconditions.
        let errno = unsafe { sys::upfb_errno() };
        Self::rte(call, errno)
    }

    /// `Ok(ret)` for a non-negative return value, the error for a negative (`-errno`) one.
    pub(crate) fn check(call: &'static str, ret: i32) -> Result<i32> {
        if ret < 0 {
            Err(Self::rte(call, -ret))
        } else {
            Ok(ret)
        }
    }

    /// The error number, for `Rte` errors.
    pub fn errno(&self) -> Option<i32> {
        match self {
            Error::Rte { errno, .. } => Some(*errno),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rte_errors_carry_errno_and_its_text() {
        let e = Error::rte("rte_eth_dev_configure", 22);
        assert_eq!(e.errno(), Some(22));
        assert_eq!(
            e.to_string(),
            "rte_eth_dev_configure failed: Invalid argument (errno 22)"
        );
        assert_eq!(
            Error::rte("x", -12),
            Error::rte("x", 12),
            "the sign does not matter"
        );
    }

    #[test]
    fn negative_returns_become_errors() {
        assert_eq!(Error::check("f", 3), Ok(3));
        assert_eq!(Error::check("f", -19).map_err(|e| e.errno()), Err(Some(19)));
    }
}
