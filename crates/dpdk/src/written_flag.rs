//! The dynamic mbuf flag `upfbench_written`: which packets' bytes were written through the safe
//! API, reserved once when EAL starts.

use crate::sys;

/// The `ol_flags` bit that says "this mbuf's data was written through the safe API": the dynamic
/// mbuf flag `upfbench_written`, reserved by [`crate::Eal::init`] at a fixed bit, the last of
/// the bits DPDK leaves to dynamic flags (`RTE_MBUF_F_LAST_FREE`; DPDK hands out the lowest free
/// bit first, so PMDs that register flags get others).
///
/// Every accessor that hands out writable packet bytes ([`crate::Mbuf::data_mut`],
/// [`crate::Mbuf::prepend`], [`crate::Mbuf::append`] and what builds on them) sets it, on any mbuf:
/// one OR of a constant into the first cache line, which the accessor touches anyway (a flag read
/// from memory would cost more: the compiler then reloads the mbuf's fields after it). Only
/// template pools read it: a template mbuf that comes back marked gets its whole frame restored
/// before it is sent again. Ordinary mbufs lose the mark when they are reset on allocation or
/// received by a PMD (which rewrites `ol_flags`).
pub(crate) const WRITTEN_FLAG: u64 = sys::RTE_MBUF_F_LAST_FREE;

/// Name of the dynamic mbuf flag that is [`WRITTEN_FLAG`].
const WRITTEN_FLAG_NAME: &[u8] = b"upfbench_written";

/// Registers [`WRITTEN_FLAG`] with DPDK as a dynamic mbuf flag at its fixed bit, so that no PMD or
/// library is given that bit. Called once, right after `rte_eal_init`.
pub(crate) fn reserve_written_flag() -> crate::Result<()> {
    let mut params = sys::rte_mbuf_dynflag::default();
    for (dst, &src) in params.name.iter_mut().zip(WRITTEN_FLAG_NAME) {
        *dst = src as std::ffi::c_char;
    }
    // SAFETY: EAL is initialised; params is a valid description, its name NUL-terminated (the
    // array is zeroed after it), which DPDK copies.
    let bit =
        unsafe { sys::rte_mbuf_dynflag_register_bitnum(&params, WRITTEN_FLAG.trailing_zeros()) };
    if bit < 0 {
        return Err(crate::Error::last("rte_mbuf_dynflag_register_bitnum"));
    }
    Ok(())
}
