//! What the reflector prints at exit of its QERs: per QFI (deleted sessions' QERs included),
//! then per QER of the sessions held, the first [`ROWS`] of them.

use std::fmt::Write;

use upfbench_pfcp::Qfi;

use crate::datapath::qer::{QerCounts, QerRow};

/// QERs listed one by one at most.
pub(crate) const ROWS: usize = 16;

/// One direction's counts, as the lines show them.
fn counts(c: &QerCounts) -> String {
    format!(
        "passed {} ({} B) policed {} ({} B) gated {}",
        c.passed, c.passed_bytes, c.policed, c.policed_bytes, c.gated
    )
}

fn qfi(q: Option<Qfi>) -> String {
    q.map_or_else(|| "none".to_owned(), |q| q.get().to_string())
}

/// Whether a QER counted anything: one that enforces nothing (no MBR, gates open) lets its
/// packets pass uncounted, and a line of zeros would read as if it had passed none.
fn counted(c: &[QerCounts; 2]) -> bool {
    c.iter().any(|d| d.passed + d.policed + d.gated > 0)
}

/// The QER lines: nothing when no QER was enforced.
pub(crate) fn render_qers(by_qfi: &[(Option<Qfi>, [QerCounts; 2])], rows: &[QerRow]) -> String {
    let mut out = String::new();
    for (q, c) in by_qfi.iter().filter(|(_, c)| counted(c)) {
        let _ = writeln!(
            out,
            "  QER qfi {:<4} UL {}; DL {}",
            qfi(*q),
            counts(&c[0]),
            counts(&c[1])
        );
    }
    let rows: Vec<&QerRow> = rows.iter().filter(|r| counted(&r.counts)).collect();
    for r in rows.iter().take(ROWS) {
        let _ = writeln!(
            out,
            "  QER {} of session {:#x} (qfi {}): UL {}; DL {}",
            r.qer_id.0,
            r.seid.0,
            qfi(r.qfi),
            counts(&r.counts[0]),
            counts(&r.counts[1])
        );
    }
    if rows.len() > ROWS {
        let _ = writeln!(out, "  ... and {} more QERs", rows.len() - ROWS);
    }
    out
}

#[cfg(test)]
mod tests {
    use upfbench_pfcp::{QerId, Seid};

    use super::*;

    #[test]
    fn qers_are_shown_per_qfi_then_one_by_one_up_to_a_limit() {
        assert_eq!(render_qers(&[], &[]), "");
        // A QER that enforced nothing counted nothing: no line of zeros.
        let idle = [(Qfi::new(1).ok(), [QerCounts::default(); 2])];
        assert_eq!(render_qers(&idle, &[]), "");
        let c = QerCounts {
            passed: 10,
            passed_bytes: 1_000,
            policed: 2,
            policed_bytes: 200,
            gated: 1,
        };
        let by_qfi = [(Qfi::new(5).ok(), [c, QerCounts::default()])];
        let rows: Vec<QerRow> = (1..=20)
            .map(|i| QerRow {
                seid: Seid(i),
                qer_id: QerId(1),
                qfi: Qfi::new(5).ok(),
                counts: [c, QerCounts::default()],
            })
            .collect();
        let text = render_qers(&by_qfi, &rows);
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 1 + ROWS + 1, "{text}");
        assert_eq!(
            lines[0],
            "  QER qfi 5    UL passed 10 (1000 B) policed 2 (200 B) gated 1; DL passed 0 (0 B) \
             policed 0 (0 B) gated 0"
        );
        assert!(lines[1].starts_with("  QER 1 of session 0x1 (qfi 5): UL passed 10"));
        assert_eq!(lines[ROWS + 1], "  ... and 4 more QERs");
    }
}
