//! Port statistics: the basic counters and the driver's extended ones by name.

use std::ffi::{CStr, CString};

use crate::error::{Error, Result};
use crate::port::Port;
use crate::sys;

/// Receive queues whose packets the basic counters count one by one
/// (`RTE_ETHDEV_QUEUE_STAT_CNTRS` of DPDK's build).
pub const QUEUE_STATS: usize = 16;

/// The basic counters of a port (`rte_eth_stats`), since start or the last reset.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct PortStats {
    /// Packets received.
    pub ipackets: u64,
    /// Packets sent.
    pub opackets: u64,
    /// Bytes received.
    pub ibytes: u64,
    /// Bytes sent.
    pub obytes: u64,
    /// Packets dropped by the port because no receive descriptor was free.
    pub imissed: u64,
    /// Receive errors.
    pub ierrors: u64,
    /// Transmit errors.
    pub oerrors: u64,
    /// Receive failures for want of an mbuf.
    pub rx_nombuf: u64,
    /// Packets received by each of the first [`QUEUE_STATS`] receive queues, as far as the
    /// driver counts them per queue (zeros where it does not).
    pub rx_queues: [u64; QUEUE_STATS],
}

impl Port<'_> {
    /// The basic counters.
    pub fn stats(&self) -> Result<PortStats> {
        let mut s = sys::rte_eth_stats::default();
        // SAFETY: the port id is valid; s is a valid out pointer.
        let ret = unsafe { sys::rte_eth_stats_get(self.id(), &mut s) };
        Error::check("rte_eth_stats_get", ret)?;
        Ok(PortStats {
            ipackets: s.ipackets,
            opackets: s.opackets,
            ibytes: s.ibytes,
            obytes: s.obytes,
            imissed: s.imissed,
            ierrors: s.ierrors,
            oerrors: s.oerrors,
            rx_nombuf: s.rx_nombuf,
            rx_queues: s.q_ipackets,
        })
    }

    /// Resets the basic counters (and, for most drivers, the extended ones).
    pub fn reset_stats(&self) -> Result<()> {
        // SAFETY: the port id is valid; the handle is not Sync, so no other control call on this
        // port runs concurrently.
        let ret = unsafe { sys::rte_eth_stats_reset(self.id()) };
        Error::check("rte_eth_stats_reset", ret).map(drop)
    }

    /// All extended counters, by name, in the driver's order.
    pub fn xstats(&self) -> Result<Vec<(String, u64)>> {
        // SAFETY: the port id is valid; a null array with size 0 asks for the count.
        let count = unsafe { sys::rte_eth_xstats_get_names(self.id(), std::ptr::null_mut(), 0) };
        let count = Error::check("rte_eth_xstats_get_names", count)? as usize;
        let mut names = vec![sys::rte_eth_xstat_name::default(); count];
        let mut values = vec![sys::rte_eth_xstat::default(); count];
        // SAFETY: names has room for count entries.
        let n =
            unsafe { sys::rte_eth_xstats_get_names(self.id(), names.as_mut_ptr(), count as u32) };
        let n = Error::check("rte_eth_xstats_get_names", n)? as usize;
        // SAFETY: values has room for count entries.
        let m = unsafe { sys::rte_eth_xstats_get(self.id(), values.as_mut_ptr(), count as u32) };
        let m = Error::check("rte_eth_xstats_get", m)? as usize;
        let n = n.min(m).min(count);
        Ok(values[..n]
            .iter()
            .filter_map(|v| {
                let name = names.get(usize::try_from(v.id).ok()?)?;
                // SAFETY: DPDK writes NUL-terminated names into the fixed-size arrays.
                let name = unsafe { CStr::from_ptr(name.name.as_ptr()) };
                Some((name.to_string_lossy().into_owned(), v.value))
            })
            .collect())
    }

    /// One extended counter by name (`rx_good_packets`, `tx_q0_packets`, ...).
    pub fn xstat(&self, name: &str) -> Result<u64> {
        let cname = CString::new(name).map_err(|_| Error::NulByte { what: "xstat name" })?;
        let mut id = 0u64;
        // SAFETY: the port id is valid; cname is a valid C string; id is a valid out pointer.
        let ret = unsafe { sys::rte_eth_xstats_get_id_by_name(self.id(), cname.as_ptr(), &mut id) };
        Error::check("rte_eth_xstats_get_id_by_name", ret)?;
        let mut value = 0u64;
        // SAFETY: one id in, room for one value out.
        let ret = unsafe { sys::rte_eth_xstats_get_by_id(self.id(), &id, &mut value, 1) };
        match Error::check("rte_eth_xstats_get_by_id", ret)? {
            1 => Ok(value),
            _ => Err(Error::rte("rte_eth_xstats_get_by_id", 22)), // EINVAL
        }
    }
}
