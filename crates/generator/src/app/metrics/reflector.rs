//! The reflector's metrics: its workers' counter cells read at scrape time (the same cells its
//! per-second line reads), then the totals it prints at exit.

use std::sync::Arc;

use super::Metrics;
use super::exposition::{Exposition, Value};
use super::families as f;
use super::health::Phase;
use crate::app::reflect_lines::sum;
use crate::datapath::reflector::counters::{CounterCell, ReflectorCounters};
use crate::datapath::reflector::forward::Drop;

/// What the reflector's scrape shows.
#[derive(Debug, Clone, Default)]
pub(super) struct ReflectorState {
    /// The workers' cells while they run.
    cells: Option<Arc<Vec<CounterCell>>>,
    /// The totals at exit, once the workers were joined.
    totals: Option<ReflectorCounters>,
}

impl ReflectorState {
    /// Adds the reflector's samples to `e` (the workers' cells read now).
    pub(super) fn expose(&self, e: &mut Exposition) {
        let c = match (&self.totals, &self.cells) {
            (Some(t), _) => *t,
            (None, Some(cells)) => sum(&cells.iter().map(CounterCell::read).collect::<Vec<_>>()),
            (None, None) => return,
        };
        expose_counters(&c, e);
    }
}

/// The samples of the reflector's counters `c`.
pub(super) fn expose_counters(c: &ReflectorCounters, e: &mut Exposition) {
    for (port, i) in [("n3", 0), ("n6", 1)] {
        e.add(
            &f::REFLECTOR_RECEIVED,
            &[port],
            Value::Counter(c.received[i]),
        );
        e.add(
            &f::REFLECTOR_SERVICE,
            &[port],
            Value::Counter(c.service.frames[i]),
        );
    }
    for (direction, n) in [("uplink", c.uplink), ("downlink", c.downlink)] {
        e.add(&f::REFLECTOR_FORWARDED, &[direction], Value::Counter(n));
    }
    e.add(&f::REFLECTOR_ECHOED, &[], Value::Counter(c.echoed));
    for (kind, n) in Drop::NAMES.iter().zip(c.dropped) {
        e.add(&f::REFLECTOR_DROPPED, &[kind], Value::Counter(n));
    }
    let i = &c.impair;
    for (kind, n) in [
        ("dropped", i.dropped),
        ("rate_capped", i.rate_dropped),
        ("duplicated", i.duplicated),
        ("reordered", i.reordered),
        ("delayed", i.delayed),
    ] {
        e.add(&f::REFLECTOR_IMPAIRED, &[kind], Value::Counter(n));
    }
    e.add(
        &f::REFLECTOR_ERROR_INDICATIONS,
        &[],
        Value::Counter(c.service.error_indications),
    );
    e.add(
        &f::REFLECTOR_ERROR_INDICATIONS_SUPPRESSED,
        &[],
        Value::Counter(c.service.error_indications_suppressed),
    );
}

impl Metrics {
    /// The reflector's workers run, publishing into `cells`.
    pub(crate) fn reflector_running(&self, cells: Arc<Vec<CounterCell>>) {
        let mut s = self.shared.lock();
        s.reflector.cells = Some(cells);
        s.phase = Phase::Running;
    }

    /// The reflector's workers were joined: these are its totals.
    pub(crate) fn reflector_stopped(&self, totals: ReflectorCounters) {
        let mut s = self.shared.lock();
        s.reflector.totals = Some(totals);
        s.reflector.cells = None;
    }
}
