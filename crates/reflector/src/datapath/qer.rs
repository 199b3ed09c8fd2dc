//! QER enforcement: a token bucket per QER and direction at its MBR, and its gate.
//!
//! A [`QerCell`] is one QER of one session as every worker shares it: its gates, its bucket
//! and its counters, all atomics. The control thread sets a cell's gates and rates when the
//! QER is created or updated ([`QerCell::configure`]) and the workers read them per packet,
//! so an Update QER takes effect in every worker before the Session Modification is answered
//! (the answer waits for the grace period that follows the new table's publication, and the
//! cell is changed before it).
//!
//! The bucket is a GCRA (the virtual scheduling form of a token bucket, ITU-T I.371) on the
//! TSC: one word, the theoretical arrival time `tat`, changed by compare-and-swap, so that
//! workers sharing a QER police its aggregate. A packet of `len` bytes costs `len` × ticks per
//! byte; it passes when `max(tat, now)` plus its cost is at most the burst tolerance past `now`,
//! and then moves `tat` there. That is a bucket of `burst` bytes, full at the start, refilled
//! at the MBR: over any window of `t` seconds the bytes passed are at most MBR × t + burst
//! (the cost is rounded up, so the bound holds to the byte).
//!
//! The bytes counted are the IP packet's (the T-PDU: what the MBR of TS 23.501 §5.7.2.5
//! limits), without the GTP-U encapsulation. The burst is `qer_burst` of the MBR (10 ms by
//! default), and never less than [`MIN_BURST_BYTES`] so that a full-size packet can pass a
//! slow flow. An MBR of 0 in a direction polices nothing that way (PFCP peers send 0 for "no
//! limit").
//!
//! The impairment `qer` makes the policer misbehave on purpose ([`Policing`]): `off` lets
//! every packet of an open gate pass, `over` polices at the MBR times (1 + over).

use std::collections::{BTreeMap, HashMap};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use upfbench_pfcp::ie::{BitRate, GateStatus};
use upfbench_pfcp::node::{QerRule, SessionRules};
use upfbench_pfcp::{QerId, Qfi, Seid};

/// The smallest burst a bucket allows: one full-size (1,500-byte) IP packet.
pub const MIN_BURST_BYTES: u64 = 1_500;

/// The default `qer_burst`: 10 ms of the MBR.
pub const DEFAULT_BURST: Duration = Duration::from_millis(10);

/// Fixed-point fraction bits of the cost per byte.
const FRACTION: u32 = 32;

/// How the reflector polices MBRs: as it should, or misbehaving on purpose (the impairment
/// `qer`).
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub enum Policing {
    /// At the MBR.
    #[default]
    On,
    /// Not at all: every packet of an open gate passes.
    Off,
    /// At the MBR times (1 + this), e.g. 0.1 for 10 % over.
    Over(f64),
}

/// What the reflector enforces of the QERs.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct QerPolicy {
    /// The bucket's depth, as time at the policed rate (`qer_burst`).
    pub burst: Duration,
    /// The impairment `qer`.
    pub policing: Policing,
    /// The impairment `qer: {gates: ignored}`: every gate stays open.
    pub gates_ignored: bool,
    /// The TSC's frequency: the buckets count in its ticks.
    pub tsc_hz: u64,
}

impl QerPolicy {
    /// Policing at the MBR with the default burst, on a TSC of `tsc_hz`.
    pub fn new(tsc_hz: u64) -> QerPolicy {
        QerPolicy {
            burst: DEFAULT_BURST,
            policing: Policing::On,
            gates_ignored: false,
            tsc_hz,
        }
    }

    /// The rate policed for an MBR of `kbps` in one direction, in bytes per second; None when
    /// nothing is policed that way.
    pub fn rate_bytes_per_s(&self, kbps: u64) -> Option<f64> {
        let factor = match self.policing {
            Policing::Off => return None,
            Policing::On => 1.0,
            Policing::Over(over) => 1.0 + over,
        };
        (kbps > 0).then(|| kbps as f64 * 1000.0 / 8.0 * factor)
    }

    /// The bucket's depth for a policed rate of `rate` bytes per second.
    pub fn burst_bytes(&self, rate: f64) -> u64 {
        ((rate * self.burst.as_secs_f64()) as u64).max(MIN_BURST_BYTES)
    }

    /// The bucket's parameters for `kbps` in one direction: the cost per byte in ticks
    /// (fixed point, rounded up: never above the rate) and the tolerance in ticks; (0, 0) when
    /// nothing is policed.
    fn bucket(&self, kbps: u64) -> (u64, u64) {
        let Some(rate) = self.rate_bytes_per_s(kbps) else {
            return (0, 0);
        };
        let per_byte = ((self.tsc_hz as f64 / rate) * (1u64 << FRACTION) as f64).ceil();
        let per_byte = (per_byte as u64).max(1);
        (per_byte, cost(self.burst_bytes(rate), per_byte))
    }
}

/// What a QER does with a packet.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    /// It passes.
    Pass,
    /// Over the MBR: dropped.
    Policed,
    /// The gate is closed: dropped.
    Gated,
}

/// Direction index of a cell: uplink.
pub const UPLINK: usize = 0;
/// Direction index of a cell: downlink.
pub const DOWNLINK: usize = 1;

/// One direction of a QER.
#[derive(Debug, Default)]
struct Direction {
    open: AtomicBool,
    /// Ticks per byte, fixed point; 0: not policed.
    per_byte: AtomicU64,
    /// The burst tolerance, ticks.
    tolerance: AtomicU64,
    /// The theoretical arrival time, ticks.
    tat: AtomicU64,
    passed: AtomicU64,
    passed_bytes: AtomicU64,
    policed: AtomicU64,
    policed_bytes: AtomicU64,
    gated: AtomicU64,
}

/// What one direction of a QER did, in packets (and bytes for what passed or was policed).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct QerCounts {
    /// Packets passed.
    pub passed: u64,
    /// Their bytes (IP packets).
    pub passed_bytes: u64,
    /// Packets dropped over the MBR.
    pub policed: u64,
    /// Their bytes.
    pub policed_bytes: u64,
    /// Packets dropped at a closed gate.
    pub gated: u64,
}

impl QerCounts {
    /// Adds `o`.
    pub fn add(&mut self, o: &QerCounts) {
        self.passed += o.passed;
        self.passed_bytes += o.passed_bytes;
        self.policed += o.policed;
        self.policed_bytes += o.policed_bytes;
        self.gated += o.gated;
    }
}

/// One QER of one session, shared by every worker (see the module documentation).
#[derive(Debug, Default)]
pub struct QerCell {
    dirs: [Direction; 2],
}

/// The cost in ticks of `len` bytes at `per_byte` (fixed point), rounded up.
fn cost(len: u64, per_byte: u64) -> u64 {
    let c = (u128::from(len) * u128::from(per_byte)).div_ceil(1 << FRACTION);
    u64::try_from(c).unwrap_or(u64::MAX)
}

impl QerCell {
    /// A cell with `gate`, `mbr` and `policy`.
    pub fn new(gate: GateStatus, mbr: Option<BitRate>, policy: &QerPolicy) -> QerCell {
        let c = QerCell::default();
        c.configure(gate, mbr, policy);
        c
    }

    /// Sets the gates and the rates (the buckets' fill carries on from where it was).
    pub fn configure(&self, gate: GateStatus, mbr: Option<BitRate>, policy: &QerPolicy) {
        let kbps = mbr.map_or([0, 0], |m| [m.ul_kbps, m.dl_kbps]);
        let open = [gate.ul.is_open(), gate.dl.is_open()].map(|o| o || policy.gates_ignored);
        for ((d, kbps), open) in self.dirs.iter().zip(kbps).zip(open) {
            let (per_byte, tolerance) = policy.bucket(kbps);
            d.per_byte.store(per_byte, Ordering::Relaxed);
            d.tolerance.store(tolerance, Ordering::Relaxed);
            d.open.store(open, Ordering::Release);
        }
    }

    /// Whether the cell would let every packet of direction `dir` pass unseen (gate open, no
    /// bucket).
    pub fn is_transparent(&self, dir: usize) -> bool {
        let d = &self.dirs[dir];
        d.open.load(Ordering::Acquire) && d.per_byte.load(Ordering::Relaxed) == 0
    }

    /// The verdict for a packet of `len` bytes in direction `dir` at TSC tick `now`, counted.
    #[inline]
    pub fn admit(&self, dir: usize, len: usize, now: u64) -> Verdict {
        let d = &self.dirs[dir];
        if !d.open.load(Ordering::Acquire) {
            d.gated.fetch_add(1, Ordering::Relaxed);
            return Verdict::Gated;
        }
        let len = len as u64;
        let per_byte = d.per_byte.load(Ordering::Relaxed);
        if per_byte != 0 {
            let tolerance = d.tolerance.load(Ordering::Relaxed);
            let c = cost(len, per_byte);
            let mut tat = d.tat.load(Ordering::Relaxed);
            loop {
                let next = tat.max(now).saturating_add(c);
                if next - now > tolerance {
                    d.policed.fetch_add(1, Ordering::Relaxed);
                    d.policed_bytes.fetch_add(len, Ordering::Relaxed);
                    return Verdict::Policed;
                }
                match d
                    .tat
                    .compare_exchange_weak(tat, next, Ordering::Relaxed, Ordering::Relaxed)
                {
                    Ok(_) => break,
                    Err(seen) => tat = seen,
                }
            }
        }
        d.passed.fetch_add(1, Ordering::Relaxed);
        d.passed_bytes.fetch_add(len, Ordering::Relaxed);
        Verdict::Pass
    }

    /// What direction `dir` counted so far.
    pub fn counts(&self, dir: usize) -> QerCounts {
        let d = &self.dirs[dir];
        QerCounts {
            passed: d.passed.load(Ordering::Relaxed),
            passed_bytes: d.passed_bytes.load(Ordering::Relaxed),
            policed: d.policed.load(Ordering::Relaxed),
            policed_bytes: d.policed_bytes.load(Ordering::Relaxed),
            gated: d.gated.load(Ordering::Relaxed),
        }
    }
}

/// One QER of a session in the book.
#[derive(Debug)]
struct Live {
    qfi: Option<Qfi>,
    cell: Arc<QerCell>,
}

#[derive(Debug, Default)]
struct Book {
    live: HashMap<(Seid, QerId), Live>,
    /// What the QERs of deleted sessions (or removed QERs) counted, per QFI: [uplink,
    /// downlink].
    gone: BTreeMap<Option<Qfi>, [QerCounts; 2]>,
}

/// The QERs' cells by session and QER ID, kept by the control thread and read by the metrics
/// and the totals at exit (a lock taken per rule change and per read, never per packet).
#[derive(Debug, Clone, Default)]
pub struct QerBook(Arc<Mutex<Book>>);

/// What one QER counted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct QerRow {
    /// Its session (our SEID).
    pub seid: Seid,
    /// The QER.
    pub qer_id: QerId,
    /// The QFI it sets, if any.
    pub qfi: Option<Qfi>,
    /// Uplink and downlink.
    pub counts: [QerCounts; 2],
}

impl QerBook {
    fn lock(&self) -> MutexGuard<'_, Book> {
        self.0.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Creates the cell of `q` in session `seid`, or sets the gates and rates of the one it
    /// has.
    pub(crate) fn configure(&self, seid: Seid, q: &QerRule, policy: &QerPolicy) {
        let mut b = self.lock();
        match b.live.get_mut(&(seid, q.qer_id)) {
            Some(l) => {
                l.qfi = q.qfi;
                l.cell.configure(q.gate, q.mbr, policy);
            }
            None => {
                let cell = Arc::new(QerCell::new(q.gate, q.mbr, policy));
                b.live.insert((seid, q.qer_id), Live { qfi: q.qfi, cell });
            }
        }
    }

    /// The cell of QER `id` of session `seid`.
    pub(crate) fn cell(&self, seid: Seid, id: QerId) -> Option<Arc<QerCell>> {
        self.lock()
            .live
            .get(&(seid, id))
            .map(|l| Arc::clone(&l.cell))
    }

    /// Lets go of the cells of `previous`'s QERs that `current` (the same session after a
    /// modification) does not have; what they counted goes to the totals per QFI.
    pub(crate) fn forget(&self, previous: &SessionRules, current: Option<&SessionRules>) {
        let mut b = self.lock();
        for q in &previous.qers {
            if current.is_some_and(|c| c.qer(q.qer_id).is_some()) {
                continue;
            }
            if let Some(l) = b.live.remove(&(previous.up_seid, q.qer_id)) {
                let gone = b.gone.entry(l.qfi).or_default();
                for (dir, g) in gone.iter_mut().enumerate() {
                    g.add(&l.cell.counts(dir));
                }
            }
        }
    }

    /// The QERs held now, by session and QER ID.
    pub fn rows(&self) -> Vec<QerRow> {
        let b = self.lock();
        let mut rows: Vec<QerRow> = b
            .live
            .iter()
            .map(|(&(seid, qer_id), l)| QerRow {
                seid,
                qer_id,
                qfi: l.qfi,
                counts: [l.cell.counts(UPLINK), l.cell.counts(DOWNLINK)],
            })
            .collect();
        rows.sort_unstable_by_key(|r| (r.seid, r.qer_id));
        rows
    }

    /// What every QER counted since the start, deleted ones included, per QFI (None: QERs
    /// that set none): [uplink, downlink].
    pub fn by_qfi(&self) -> Vec<(Option<Qfi>, [QerCounts; 2])> {
        let b = self.lock();
        let mut totals = b.gone.clone();
        for l in b.live.values() {
            let t = totals.entry(l.qfi).or_default();
            for (dir, c) in t.iter_mut().enumerate() {
                c.add(&l.cell.counts(dir));
            }
        }
        totals.into_iter().collect()
    }
}

#[cfg(test)]
mod tests;
