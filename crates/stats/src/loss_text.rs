//! A direction's loss in words, the same wherever it is shown: the live line, the line a step
//! ends with, and the notes under the report's direction tables. A bare count reads as the
//! UPF's loss; these say which part of it is something else: packets that did arrive, after the
//! reorder window (counted lost, since their position was given up), and frames the tester's
//! own interfaces lost.

/// `lost 9996 (9.996%)`, then in the parentheses what the loss includes, when it does:
/// `late 9996: arrived after the reorder window, counted lost` and `up to 316 of them lost by
/// the tester's own interfaces, not the UPF`. `tester_lost` counts every frame of the
/// direction's ports (warm-up and service frames too): of the loss it is at most all of it.
pub fn loss_text(lost: u64, loss_pct: f64, late: u64, tester_lost: Option<u64>) -> String {
    let mut text = format!("lost {lost} ({loss_pct:.3}%");
    if late > 0 {
        text.push_str(&format!(
            "; late {late}: arrived after the reorder window, counted lost"
        ));
    }
    if let Some(t) = tester_lost.map(|t| t.min(lost)).filter(|&t| t > 0) {
        text.push_str(&format!(
            "; up to {t} of them lost by the tester's own interfaces, not the UPF"
        ));
    }
    text.push(')');
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_loss_says_what_it_includes_only_when_it_does() {
        assert_eq!(loss_text(0, 0.0, 0, None), "lost 0 (0.000%)");
        assert_eq!(loss_text(12, 0.012, 0, Some(0)), "lost 12 (0.012%)");
        assert_eq!(
            loss_text(9_996, 9.996, 9_996, None),
            "lost 9996 (9.996%; late 9996: arrived after the reorder window, counted lost)"
        );
        assert_eq!(
            loss_text(316, 0.316, 0, Some(316)),
            "lost 316 (0.316%; up to 316 of them lost by the tester's own interfaces, not the UPF)"
        );
        assert_eq!(
            loss_text(400, 0.4, 3, Some(316)),
            "lost 400 (0.400%; late 3: arrived after the reorder window, counted lost; up to 316 \
             of them lost by the tester's own interfaces, not the UPF)"
        );
        // The interfaces' losses include frames that were not measured (warm-up, service): of
        // the measured loss they are at most all of it, and nothing when there is none.
        assert_eq!(
            loss_text(10, 0.01, 0, Some(316)),
            "lost 10 (0.010%; up to 10 of them lost by the tester's own interfaces, not the UPF)"
        );
        assert_eq!(loss_text(0, 0.0, 0, Some(5)), "lost 0 (0.000%)");
    }
}
