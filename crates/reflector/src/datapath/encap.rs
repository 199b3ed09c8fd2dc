//! The reflector's downlink encapsulators: the outer headers toward one (gNB, QFI, next-hop
//! MAC), built once and reused for every packet of every session that shares them. A UPF's
//! sessions go to a handful of gNBs, so a few entries searched linearly are enough; a ninth
//! combination replaces the oldest.

use upfbench_gtpu::{Encapsulator, OuterHeaders, PduSessionContainer};
use upfbench_net::{MacAddr, Qfi, Teid};

use upfbench_datapath::service::Interface;

/// Entries kept.
pub(crate) const ENCAP_CACHE: usize = 8;

/// The outer headers toward one (gNB, QFI, next-hop MAC), ready to prepend.
struct CachedEncap {
    gnb: u32,
    qfi: Option<Qfi>,
    mac: MacAddr,
    encap: Encapsulator,
}

/// Encapsulators by tunnel destination, QFI and next-hop MAC.
pub(crate) struct EncapCache {
    local: Interface,
    entries: Vec<CachedEncap>,
    next_victim: usize,
}

impl EncapCache {
    /// An empty cache for G-PDUs leaving from `local` (our N3 MAC and address).
    pub(crate) fn new(local: Interface) -> EncapCache {
        EncapCache {
            local,
            entries: Vec::with_capacity(ENCAP_CACHE),
            next_victim: 0,
        }
    }

    /// The encapsulator toward gNB `gnb` (big-endian integer) through next hop `mac`, with a DL
    /// PDU Session Container carrying `qfi` when there is one; its TEID is whatever was
    /// set last (the caller sets the session's). None only if the headers did not fit the
    /// template, which a fixed shape of at most 58 octets never does.
    #[inline]
    pub(crate) fn get(
        &mut self,
        gnb: u32,
        qfi: Option<Qfi>,
        mac: MacAddr,
    ) -> Option<&mut Encapsulator> {
        if let Some(i) = self
            .entries
            .iter()
            .position(|e| e.gnb == gnb && e.qfi == qfi && e.mac == mac)
        {
            return Some(&mut self.entries[i].encap);
        }
        let mut headers = OuterHeaders::new(
            self.local.mac,
            mac,
            self.local.address,
            gnb.into(),
            Teid::ZERO,
        );
        headers.pdu_session_container = qfi.map(PduSessionContainer::downlink);
        let entry = CachedEncap {
            gnb,
            qfi,
            mac,
            encap: Encapsulator::new(&headers).ok()?,
        };
        let i = if self.entries.len() < ENCAP_CACHE {
            self.entries.push(entry);
            self.entries.len() - 1
        } else {
            let i = self.next_victim;
            self.next_victim = (i + 1) % ENCAP_CACHE;
            self.entries[i] = entry;
            i
        };
        Some(&mut self.entries[i].encap)
    }

    #[cfg(test)]
    /// Entries held.
    pub(crate) fn len(&self) -> usize {
        self.entries.len()
    }
}

#[cfg(test)]
mod tests;
