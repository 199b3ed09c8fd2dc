//! What the workers see of the churn sessions: for each, the probes sent and received, and
//! the first one the UPF forwarded (lowest sequence number: probes go out in order, one every
//! probe interval from the session's request). Per worker, merged after the step.

/// One churn session's probes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ProbeRecord {
    /// Probes sent.
    pub sent: u32,
    /// Probes received (a duplicate counts again).
    pub received: u32,
    /// The lowest sequence number received (`u32::MAX`: none).
    pub first_seq: u32,
    /// Its transmit time (run clock, ns).
    pub(crate) first_tx_ns: u64,
    /// Its arrival (run clock, ns).
    pub(crate) first_rx_ns: u64,
}

impl Default for ProbeRecord {
    fn default() -> Self {
        ProbeRecord {
            sent: 0,
            received: 0,
            first_seq: u32::MAX,
            first_tx_ns: 0,
            first_rx_ns: 0,
        }
    }
}

impl ProbeRecord {
    /// Adds another worker's view of the same session.
    pub fn merge(&mut self, o: &ProbeRecord) {
        self.sent += o.sent;
        self.received += o.received;
        if o.first_seq < self.first_seq {
            self.first_seq = o.first_seq;
            self.first_tx_ns = o.first_tx_ns;
            self.first_rx_ns = o.first_rx_ns;
        }
    }
}

/// A worker's record of the step's churn sessions, by slot.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ChurnRx {
    /// By churn slot.
    pub sessions: Box<[ProbeRecord]>,
    /// The measured phase's start (run clock, ns), set by the worker that sends probes.
    pub(crate) measure_start_ns: Option<u64>,
}

impl ChurnRx {
    /// A record of `sessions` churn sessions.
    pub fn new(sessions: usize) -> ChurnRx {
        ChurnRx {
            sessions: vec![ProbeRecord::default(); sessions].into_boxed_slice(),
            measure_start_ns: None,
        }
    }

    /// A probe of `slot` with `sequence`, sent at `tx_ns` and received at `rx_ns`.
    #[inline]
    pub fn record(&mut self, slot: u32, sequence: u32, tx_ns: u64, rx_ns: u64) {
        if let Some(r) = self.sessions.get_mut(slot as usize) {
            r.received += 1;
            if sequence < r.first_seq {
                r.first_seq = sequence;
                r.first_tx_ns = tx_ns;
                r.first_rx_ns = rx_ns;
            }
        }
    }

    /// Adds another worker's record (of the same shape; an empty one adds nothing).
    pub fn merge(&mut self, o: &ChurnRx) {
        if self.sessions.is_empty() {
            self.clone_from(o);
            return;
        }
        for (a, b) in self.sessions.iter_mut().zip(o.sessions.iter()) {
            a.merge(b);
        }
        self.measure_start_ns = self.measure_start_ns.or(o.measure_start_ns);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_first_forwarded_probe_is_the_lowest_sequence_across_workers() {
        let mut a = ChurnRx::new(3);
        let mut b = ChurnRx::new(3);
        a.record(1, 7, 7_000, 7_050);
        a.record(1, 8, 8_000, 8_040);
        b.record(1, 5, 5_000, 9_000);
        b.record(9, 1, 1, 1);
        a.sessions[1].sent = 6;
        b.sessions[1].sent = 4;
        b.measure_start_ns = Some(100);
        a.merge(&b);
        let r = a.sessions[1];
        assert_eq!((r.sent, r.received), (10, 3));
        assert_eq!(
            (r.first_seq, r.first_tx_ns, r.first_rx_ns),
            (5, 5_000, 9_000)
        );
        assert_eq!(a.sessions[0], ProbeRecord::default());
        assert_eq!(a.measure_start_ns, Some(100));
        let mut empty = ChurnRx::default();
        empty.merge(&a);
        assert_eq!(empty, a);
    }
}
