//! The reflector's metrics: its workers' counter cells read at scrape time (the same cells its
//! per-second line reads), then the totals it prints at exit.

use std::sync::Arc;

use upfbench_metrics::families::{self as f, Role};
use upfbench_metrics::health::Phase;
use upfbench_metrics::{Exposition, Metrics, RoleFigures, Value};

use crate::datapath::counters::{CounterCell, ReflectorCounters};
use crate::datapath::forward::Drop;
use crate::datapath::qer::QerBook;
use crate::lines::sum;

/// What the reflector's scrape shows.
#[derive(Debug, Clone, Default)]
pub(crate) struct ReflectorFigures {
    /// The workers' cells while they run.
    cells: Option<Arc<Vec<CounterCell>>>,
    /// The totals at exit, once the workers were joined.
    totals: Option<ReflectorCounters>,
    /// The QERs' cells, read at scrape time.
    qers: Option<QerBook>,
}

impl RoleFigures for ReflectorFigures {
    const ROLE: Role = Role::Reflector;

    /// Adds the reflector's samples to `e` (the workers' cells read now).
    fn expose(&self, e: &mut Exposition) {
        let c = match (&self.totals, &self.cells) {
            (Some(t), _) => *t,
            (None, Some(cells)) => sum(&cells.iter().map(CounterCell::read).collect::<Vec<_>>()),
            (None, None) => return,
        };
        expose_counters(&c, e);
        if let Some(q) = &self.qers {
            expose_qers(q, e);
        }
    }
}

/// The samples of the reflector's counters `c`.
fn expose_counters(c: &ReflectorCounters, e: &mut Exposition) {
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

/// The samples of the QERs in `book`, per QFI.
fn expose_qers(book: &QerBook, e: &mut Exposition) {
    for (qfi, dirs) in book.by_qfi() {
        let qfi = qfi.map_or_else(|| "none".to_owned(), |q| q.get().to_string());
        for (direction, c) in [("uplink", &dirs[0]), ("downlink", &dirs[1])] {
            for (verdict, n) in [
                ("passed", c.passed),
                ("policed", c.policed),
                ("gated", c.gated),
            ] {
                e.add(
                    &f::REFLECTOR_QER_PACKETS,
                    &[&qfi, direction, verdict],
                    Value::Counter(n),
                );
            }
            for (verdict, n) in [("passed", c.passed_bytes), ("policed", c.policed_bytes)] {
                e.add(
                    &f::REFLECTOR_QER_BYTES,
                    &[&qfi, direction, verdict],
                    Value::Counter(n),
                );
            }
        }
    }
}

/// The reflector's endpoint.
pub(crate) type ReflectorMetrics = Metrics<ReflectorFigures>;

/// What the reflector tells its endpoint.
pub(crate) trait ReflectorEvents {
    /// The reflector's workers run, publishing into `cells`; its QERs are in `qers`.
    fn reflector_running(&self, cells: Arc<Vec<CounterCell>>, qers: QerBook);
    /// The reflector's workers were joined: these are its totals.
    fn reflector_stopped(&self, totals: ReflectorCounters);
}

impl ReflectorEvents for ReflectorMetrics {
    fn reflector_running(&self, cells: Arc<Vec<CounterCell>>, qers: QerBook) {
        self.update(|f| {
            f.cells = Some(cells);
            f.qers = Some(qers);
        });
        self.set_phase(Phase::Running, None);
    }

    fn reflector_stopped(&self, totals: ReflectorCounters) {
        self.update(|f| {
            f.totals = Some(totals);
            f.cells = None;
        });
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use upfbench_cli::MetricsArgs;
    use upfbench_metrics::scrape::{check_semantics, get, parse, promtool, value};

    use super::*;

    fn endpoint() -> ReflectorMetrics {
        let args = MetricsArgs {
            metrics: Some("127.0.0.1:0".parse().expect("address")),
            metrics_linger: Duration::ZERO,
        };
        Metrics::start(&args).expect("starts").expect("asked for")
    }

    fn reflector_counters(up: u64, down: u64, tx_full: u64) -> ReflectorCounters {
        let mut c = ReflectorCounters {
            received: [up + tx_full, down],
            uplink: up,
            downlink: down,
            ..ReflectorCounters::default()
        };
        c.dropped[6] = tx_full;
        c.impair.delayed = up + down;
        c
    }

    #[test]
    fn the_reflectors_scrape_reads_its_cells_then_its_totals() {
        let m = endpoint();
        let cells = Arc::new(vec![CounterCell::default(), CounterCell::default()]);
        cells[0].publish(&reflector_counters(100, 90, 3));
        cells[1].publish(&reflector_counters(50, 40, 0));
        let qers = QerBook::default();
        let policy = crate::datapath::qer::QerPolicy::new(1_000_000_000);
        qers.configure(
            upfbench_pfcp::Seid(1),
            &upfbench_pfcp::node::QerRule {
                qer_id: upfbench_pfcp::QerId(1),
                qfi: upfbench_pfcp::Qfi::new(5).ok(),
                gate: upfbench_pfcp::ie::GateStatus::OPEN,
                mbr: Some(upfbench_pfcp::ie::BitRate {
                    ul_kbps: 8,
                    dl_kbps: 0,
                }),
                gbr: None,
            },
            &policy,
        );
        let cell = qers
            .cell(upfbench_pfcp::Seid(1), upfbench_pfcp::QerId(1))
            .expect("configured");
        for now in 0..3 {
            cell.admit(crate::datapath::qer::UPLINK, 1_000, now);
        }
        m.reflector_running(Arc::clone(&cells), qers);
        let (status, content_type, text) = get(m.address().expect("served"), "/metrics");
        assert_eq!(status, 200);
        assert_eq!(content_type, "text/plain; version=0.0.4; charset=utf-8");
        let parsed = parse(&text).unwrap_or_else(|e| panic!("{e}\n{text}"));
        check_semantics(Role::Reflector, &parsed);
        let v = |name: &str, labels: &[(&str, &str)]| value(&parsed, name, labels);
        let forwarded = "upfbench_reflector_forwarded_packets_total";
        assert_eq!(v(forwarded, &[("direction", "uplink")]), Some(150.0));
        assert_eq!(v(forwarded, &[("direction", "downlink")]), Some(130.0));
        let dropped = "upfbench_reflector_dropped_packets_total";
        assert_eq!(v(dropped, &[("kind", "tx_full")]), Some(3.0));
        assert_eq!(v(dropped, &[("kind", "unknown_teid")]), Some(0.0));
        let impaired = "upfbench_reflector_impaired_packets_total";
        assert_eq!(v(impaired, &[("kind", "delayed")]), Some(280.0));
        let received = "upfbench_reflector_received_packets_total";
        assert_eq!(v(received, &[("port", "n3")]), Some(153.0));
        // The QER of QFI 5: a 1,500-byte burst at 8 kbit/s passes one of three 1,000-byte
        // packets.
        let qer = "upfbench_reflector_qer_packets_total";
        let of = |d, verdict| [("qfi", "5"), ("direction", d), ("verdict", verdict)];
        assert_eq!(v(qer, &of("uplink", "passed")), Some(1.0));
        assert_eq!(v(qer, &of("uplink", "policed")), Some(2.0));
        assert_eq!(v(qer, &of("downlink", "passed")), Some(0.0));
        let bytes = "upfbench_reflector_qer_bytes_total";
        assert_eq!(v(bytes, &of("uplink", "policed")), Some(2_000.0));
        assert_eq!(v("upfbench_phase", &[("phase", "running")]), Some(1.0));
        assert_eq!(v("upfbench_phase", &[("phase", "starting")]), Some(0.0));
        let info = [
            ("version", env!("CARGO_PKG_VERSION")),
            ("role", "reflector"),
        ];
        assert_eq!(v("upfbench_build_info", &info), Some(1.0));
        // Read at scrape time: a publication shows in the next scrape.
        cells[1].publish(&reflector_counters(60, 40, 0));
        let text = get(m.address().expect("served"), "/metrics").2;
        let parsed = parse(&text).expect("parses");
        assert_eq!(
            value(&parsed, forwarded, &[("direction", "uplink")]),
            Some(160.0)
        );
        // At exit the totals, whatever the cells say.
        m.reflector_stopped(reflector_counters(1_000, 999, 1));
        m.set_phase(Phase::Done, None);
        let text = get(m.address().expect("served"), "/metrics").2;
        let parsed = parse(&text).expect("parses");
        assert_eq!(
            value(&parsed, forwarded, &[("direction", "uplink")]),
            Some(1_000.0)
        );
        assert_eq!(
            value(&parsed, "upfbench_phase", &[("phase", "done")]),
            Some(1.0)
        );
        if let Some((ok, said)) = promtool(&text) {
            assert!(ok, "promtool check metrics:\n{said}\n{text}");
        }
    }

    #[test]
    fn the_scrape_counts_no_route_as_a_kind_of_drop() {
        let m = endpoint();
        // Two pairs' workers; the second's downlink had no route for 4 packets.
        let cells = Arc::new(vec![CounterCell::default(), CounterCell::default()]);
        let mut no_route = reflector_counters(50, 40, 0);
        no_route.dropped[Drop::NoRoute as usize] = 4;
        cells[1].publish(&no_route);
        m.reflector_running(Arc::clone(&cells), QerBook::default());
        let text = get(m.address().expect("served"), "/metrics").2;
        let parsed = parse(&text).unwrap_or_else(|e| panic!("{e}\n{text}"));
        let dropped = "upfbench_reflector_dropped_packets_total";
        assert_eq!(value(&parsed, dropped, &[("kind", "no_route")]), Some(4.0));
        assert_eq!(
            value(&parsed, dropped, &[("kind", "no_neighbor")]),
            Some(0.0)
        );
    }
}
