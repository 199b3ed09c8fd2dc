//! What a reflector worker counts, and where it publishes it for the control thread.

use std::sync::atomic::{AtomicU64, Ordering};

use crate::datapath::forward::Drop;
use crate::datapath::impair::ImpairCounters;

/// What the service plane of a worker did, as published.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct ServiceSummary {
    /// Frames handed to the service plane (ARP, ICMP, GTP-U signalling), per port.
    pub frames: [u64; 2],
    /// Answers queued (ARP replies, ICMP and GTP-U echo responses).
    pub replies: u64,
    /// ARP requests queued (next hops resolved ahead, and on demand for traffic).
    pub arp_requests: u64,
    /// GTP-U Error Indications queued, for G-PDUs to unknown TEIDs.
    pub error_indications: u64,
    /// Error Indications not sent: over the rate limit.
    pub error_indications_suppressed: u64,
    /// Answers, requests and Error Indications lost for want of an mbuf.
    pub no_buffer: u64,
    /// Answers, requests and Error Indications the transmit queue did not take (its link
    /// down, e.g. ARP requests sent before the peer connected, or the queue full).
    pub tx_refused: u64,
    /// Next hops that answered our ARP requests (or were configured).
    pub(crate) next_hops_resolved: u64,
    /// Next hops that answered none of them.
    pub(crate) next_hops_given_up: u64,
    /// GTP-U End Markers queued on old tunnels after path switches with SNDEM.
    pub end_markers: u64,
    /// Neighbor Solicitations queued (IPv6 next hops resolved ahead, and on demand).
    pub neighbor_solicitations: u64,
}

/// Counters of one reflector worker, published for the control thread.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct ReflectorCounters {
    /// Frames received, per port.
    pub received: [u64; 2],
    /// Uplink packets forwarded N3 → N6 (queued for N6 after the impairments; a full
    /// backlog's drops are counted apart).
    pub uplink: u64,
    /// Downlink packets forwarded N6 → N3 (likewise).
    pub downlink: u64,
    /// Packets echoed (likewise).
    pub echoed: u64,
    /// Dropped, per [`Drop`] kind.
    pub dropped: [u64; Drop::COUNT],
    /// What the impairments did.
    pub impair: ImpairCounters,
    /// What the service plane did.
    pub service: ServiceSummary,
}

/// Words of [`ReflectorCounters`] as published.
const WORDS: usize = 2 + 3 + Drop::COUNT + 7 + 12;

impl ReflectorCounters {
    /// Packets forwarded or echoed.
    pub(crate) fn forwarded(&self) -> u64 {
        self.uplink + self.downlink + self.echoed
    }

    /// Packets dropped by the reflector itself (not by its impairments).
    pub(crate) fn drops(&self) -> u64 {
        self.dropped.iter().sum()
    }

    fn to_words(self) -> [u64; WORDS] {
        let (i, s) = (&self.impair, &self.service);
        let mut w = [0u64; WORDS];
        let head = [
            self.received[0],
            self.received[1],
            self.uplink,
            self.downlink,
        ];
        let tail = [
            self.echoed,
            i.seen,
            i.dropped,
            i.rate_dropped,
            i.duplicated,
            i.reordered,
            i.duplicate_failed,
            i.delayed,
            s.frames[0],
            s.frames[1],
            s.replies,
            s.arp_requests,
            s.error_indications,
            s.error_indications_suppressed,
            s.no_buffer,
            s.next_hops_resolved,
            s.next_hops_given_up,
            s.tx_refused,
            s.end_markers,
            s.neighbor_solicitations,
        ];
        w[..4].copy_from_slice(&head);
        w[4..4 + Drop::COUNT].copy_from_slice(&self.dropped);
        w[4 + Drop::COUNT..].copy_from_slice(&tail);
        w
    }

    fn from_words(w: &[u64; WORDS]) -> ReflectorCounters {
        let mut dropped = [0; Drop::COUNT];
        dropped.copy_from_slice(&w[4..4 + Drop::COUNT]);
        let t = &w[4 + Drop::COUNT..];
        ReflectorCounters {
            received: [w[0], w[1]],
            uplink: w[2],
            downlink: w[3],
            echoed: t[0],
            dropped,
            impair: ImpairCounters {
                seen: t[1],
                dropped: t[2],
                rate_dropped: t[3],
                duplicated: t[4],
                reordered: t[5],
                duplicate_failed: t[6],
                delayed: t[7],
            },
            service: ServiceSummary {
                frames: [t[8], t[9]],
                replies: t[10],
                arp_requests: t[11],
                error_indications: t[12],
                error_indications_suppressed: t[13],
                no_buffer: t[14],
                next_hops_resolved: t[15],
                next_hops_given_up: t[16],
                tx_refused: t[17],
                end_markers: t[18],
                neighbor_solicitations: t[19],
            },
        }
    }

    /// Adds another worker's counters.
    pub(crate) fn merge(&mut self, o: &ReflectorCounters) {
        let mut w = self.to_words();
        for (a, b) in w.iter_mut().zip(o.to_words()) {
            *a += b;
        }
        *self = ReflectorCounters::from_words(&w);
    }
}

/// Where a worker publishes its counters: single writer, relaxed stores, read by the control
/// thread (each word is consistent; the set is as of some instant within one loop).
#[derive(Debug)]
pub(crate) struct CounterCell {
    words: [AtomicU64; WORDS],
}

impl Default for CounterCell {
    fn default() -> Self {
        CounterCell {
            words: std::array::from_fn(|_| AtomicU64::new(0)),
        }
    }
}

impl CounterCell {
    /// Publishes `c`.
    pub(crate) fn publish(&self, c: &ReflectorCounters) {
        for (cell, v) in self.words.iter().zip(c.to_words()) {
            cell.store(v, Ordering::Relaxed);
        }
    }

    /// The counters as last published.
    pub(crate) fn read(&self) -> ReflectorCounters {
        let mut w = [0u64; WORDS];
        for (v, cell) in w.iter_mut().zip(&self.words) {
            *v = cell.load(Ordering::Relaxed);
        }
        ReflectorCounters::from_words(&w)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Words that all differ: the `k`-th is `k * scale + 1`.
    fn words(scale: u64) -> [u64; WORDS] {
        let mut w = [0u64; WORDS];
        for (k, v) in w.iter_mut().enumerate() {
            *v = k as u64 * scale + 1;
        }
        w
    }

    fn distinct(scale: u64) -> ReflectorCounters {
        ReflectorCounters::from_words(&words(scale))
    }

    #[test]
    fn what_is_published_is_what_is_read() {
        let c = distinct(3);
        let cell = CounterCell::default();
        cell.publish(&c);
        assert_eq!(cell.read(), c);
        // Every word has a field of its own: none is lost or read into two fields.
        assert_eq!(c.to_words(), words(3));
        assert_eq!((c.received, c.uplink, c.downlink), ([1, 4], 7, 10));
        assert_eq!(c.service.end_markers, (WORDS as u64 - 2) * 3 + 1);
        assert_eq!(c.service.neighbor_solicitations, (WORDS as u64 - 1) * 3 + 1);
    }

    #[test]
    fn merging_adds_every_field() {
        let (a, b) = (distinct(1), distinct(10));
        let mut m = a;
        m.merge(&b);
        assert_eq!(m.uplink, a.uplink + b.uplink);
        assert_eq!(m.dropped[3], a.dropped[3] + b.dropped[3]);
        assert_eq!(m.impair.reordered, a.impair.reordered + b.impair.reordered);
        assert_eq!(m.impair.delayed, a.impair.delayed + b.impair.delayed);
        assert_eq!(
            m.service.error_indications_suppressed,
            a.service.error_indications_suppressed + b.service.error_indications_suppressed
        );
        assert_eq!(m.forwarded(), a.forwarded() + b.forwarded());
        assert_eq!(m.drops(), a.drops() + b.drops());
    }
}
