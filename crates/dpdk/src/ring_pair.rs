//! Two ports joined back to back by DPDK rings: a peer pair with no NIC.

use std::ffi::{CString, c_uint};

use crate::eal::Eal;
use crate::error::{Error, Result};
use crate::sys;

/// Slots per ring (one is always left free, so 1023 packets fit).
pub const RING_PAIR_SIZE: u32 = 1024;

impl Eal {
    /// Creates two ports, named `net_ring_<names[0]>` and `net_ring_<names[1]>` (DPDK adds the
    /// prefix), joined by rings (the `net_ring` PMD):
    /// what one transmits on queue `i` the other receives on queue `i`. Each side has `queues`
    /// receive and transmit queues; each ring holds [`RING_PAIR_SIZE`] - 1 packets. Returns the
    /// two port ids. For tests and in-process set-ups with no NIC; the rings live until EAL
    /// cleanup.
    pub fn create_ring_pair(&self, names: [&str; 2], queues: u16) -> Result<[u16; 2]> {
        let mut a_to_b = Vec::with_capacity(usize::from(queues));
        let mut b_to_a = Vec::with_capacity(usize::from(queues));
        for q in 0..queues {
            a_to_b.push(self.create_ring(&format!("{}>{q}", names[0]))?);
            b_to_a.push(self.create_ring(&format!("{}>{q}", names[1]))?);
        }
        let a = self.port_from_rings(names[0], &b_to_a, &a_to_b)?;
        let b = self.port_from_rings(names[1], &a_to_b, &b_to_a)?;
        Ok([a, b])
    }

    fn create_ring(&self, name: &str) -> Result<*mut sys::rte_ring> {
        let cname = CString::new(name).map_err(|_| Error::NulByte { what: "ring name" })?;
        // SAFETY: EAL is initialised; cname is a valid C string that DPDK copies. Each ring has one
        // producer and one consumer (one queue handle each side).
        let ring = unsafe {
            sys::rte_ring_create(
                cname.as_ptr(),
                RING_PAIR_SIZE,
                sys::SOCKET_ID_ANY,
                sys::RING_F_SP_ENQ | sys::RING_F_SC_DEQ,
            )
        };
        if ring.is_null() {
            Err(Error::last("rte_ring_create"))
        } else {
            Ok(ring)
        }
    }

    fn port_from_rings(
        &self,
        name: &str,
        rx: &[*mut sys::rte_ring],
        tx: &[*mut sys::rte_ring],
    ) -> Result<u16> {
        let cname = CString::new(name).map_err(|_| Error::NulByte { what: "port name" })?;
        // SAFETY: EAL is initialised; reads the calling thread's socket.
        let socket = unsafe { sys::rte_socket_id() };
        // SAFETY: EAL is initialised; the rings are live (never freed before EAL cleanup) and the
        // arrays hold rx.len() / tx.len() of them; DPDK copies the pointers.
        let ret = unsafe {
            sys::rte_eth_from_rings(
                cname.as_ptr(),
                rx.as_ptr(),
                rx.len() as c_uint,
                tx.as_ptr(),
                tx.len() as c_uint,
                socket,
            )
        };
        u16::try_from(ret).map_err(|_| Error::last("rte_eth_from_rings"))
    }
}
