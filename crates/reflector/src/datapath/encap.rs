//! The reflector's downlink encapsulators: the outer headers toward one (gNB, QFI, next-hop
//! MAC), built once and reused for every packet of every session that shares them. A UPF's
//! sessions go to a handful of gNBs, so a few entries searched linearly are enough; a ninth
//! combination replaces the oldest.
//!
//! On an IPv6 N3 the outer headers are IPv6: from our N3 IPv6 address to the gNB the entry's
//! key names in the rules table's IPv6 gNBs ([`EncapCache::set_gnbs_v6`]).

use std::net::Ipv6Addr;
use std::sync::Arc;

use upfbench_gtpu::{Encapsulator, OuterHeaders, PduSessionContainer, TunnelAddress};
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
    /// Our N3 IPv6 address, on an IPv6 N3.
    local_v6: Option<Ipv6Addr>,
    /// The rules table's IPv6 gNBs, by key.
    gnbs_v6: Arc<[Ipv6Addr]>,
    entries: Vec<CachedEncap>,
    next_victim: usize,
}

impl EncapCache {
    /// An empty cache for G-PDUs leaving from `local` (our N3 MAC and address).
    pub(crate) fn new(local: Interface) -> EncapCache {
        EncapCache {
            local,
            local_v6: None,
            gnbs_v6: Arc::new([]),
            entries: Vec::with_capacity(ENCAP_CACHE),
            next_victim: 0,
        }
    }

    /// G-PDUs over IPv6 from our N3 address `ours` (an IPv6 N3): the keys name IPv6 gNBs.
    pub(crate) fn with_ipv6(mut self, ours: Option<Ipv6Addr>) -> EncapCache {
        self.local_v6 = ours;
        self
    }

    /// The IPv6 gNBs of the rules table now read (a key keeps its gNB: the entries stay good).
    pub(crate) fn set_gnbs_v6(&mut self, gnbs: &Arc<[Ipv6Addr]>) {
        if !Arc::ptr_eq(&self.gnbs_v6, gnbs) {
            self.gnbs_v6 = Arc::clone(gnbs);
        }
    }

    /// The IPv6 gNB of key `gnb` on an IPv6 N3, if there is one.
    #[inline]
    pub(crate) fn gnb_v6(&self, gnb: u32) -> Option<Ipv6Addr> {
        self.gnbs_v6.get(gnb as usize).copied()
    }

    /// The headers toward gNB key `gnb` in our N3's family.
    fn build(&self, gnb: u32, qfi: Option<Qfi>, mac: MacAddr) -> Option<Encapsulator> {
        match self.local_v6 {
            None => headers(self.local.mac, mac, (self.local.address, gnb.into()), qfi),
            Some(ours) => headers(self.local.mac, mac, (ours, self.gnb_v6(gnb)?), qfi),
        }
    }

    /// The encapsulator toward gNB `gnb` (big-endian integer, or on an IPv6 N3 its key) through
    /// next hop `mac`, with a DL
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
        let entry = CachedEncap {
            gnb,
            qfi,
            mac,
            encap: self.build(gnb, qfi, mac)?,
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

/// The outer headers from `ours` (MAC `from`) to `gnb` through next hop `to`, with a DL PDU
/// Session Container carrying `qfi` when there is one, the TEID set per packet.
fn headers<A: TunnelAddress>(
    from: MacAddr,
    to: MacAddr,
    (ours, gnb): (A, A),
    qfi: Option<Qfi>,
) -> Option<Encapsulator> {
    let mut headers = OuterHeaders::new(from, to, ours, gnb, Teid::ZERO);
    headers.pdu_session_container = qfi.map(PduSessionContainer::downlink);
    Encapsulator::new(&headers).ok()
}

#[cfg(test)]
mod tests;
