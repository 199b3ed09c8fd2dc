//! A direction's loss in words, the same wherever it is shown: the live line, the line a step
//! ends with, and the notes under the report's direction tables. A bare count reads as the
//! UPF's loss; these say which part of it is something else: packets that did arrive, after the
//! reorder window (counted lost, since their position was given up), and frames the tester's
//! own interfaces lost.

use upfbench_stats::loss_text;

use super::model::StepReport;

impl StepReport {
    /// One line per direction, as printed when the step ends:
    /// `10 B UL: sent 100000 received 100000 lost 9996 (9.996%; late 9996: ...) reordered 0
    /// duplicates 0`.
    pub fn summary(&self) -> String {
        self.directions
            .iter()
            .map(|d| {
                format!(
                    "{} {}: sent {} received {} {} reordered {} duplicates {}",
                    self.label,
                    d.direction.short(),
                    d.loss.sent,
                    d.rx.packets,
                    loss_text(d.loss.lost, d.loss.loss_pct, d.loss.late, d.tester_lost),
                    d.loss.reordered,
                    d.loss.duplicates
                )
            })
            .collect::<Vec<_>>()
            .join("\n")
    }
}
