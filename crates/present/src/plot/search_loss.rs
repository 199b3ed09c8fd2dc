//! A throughput search at one case: each trial's loss ratio against its offered load, the
//! goals' loss ratios as horizontal lines and each goal's relevant lower and upper bounds as
//! vertical ones: what RFC 9971's search found, and how tightly the trials pin it.
//!
//! Loss ratios span zero to one and the goals sit at 0 and 0.5 %: the y axis is logarithmic
//! with a floor a decade under the smallest loss ratio, where the zero losses are drawn. Loads
//! span decades too (Min Load to Max Load, which the search visits on its way to the bounds):
//! the x axis is logarithmic, so that the trials near the bounds are not crushed together.

use plotters::prelude::*;
use upfbench_report::{GoalSpec, SearchCase};

use super::{
    LogAxis, Mark, caption_font, colour, label_font, short_number, side_legend, svg_document,
};
use crate::error::PlotError;

/// The plot's height (px).
const HEIGHT: u32 = 480;

/// The colour of trials, and of tester-limited ones (no evidence about the UPF).
const TRIAL: RGBColor = RGBColor(0x00, 0x72, 0xB2);
const TESTER_LIMITED: RGBColor = RGBColor(0x00, 0x00, 0x00);

/// The `i`th goal's colour: after the trials' blue.
fn goal_colour(i: usize) -> RGBColor {
    colour(i + 2)
}

/// The width of the `i`th of `n` goals' bound lines: the first goal's the widest, drawn first,
/// so that goals with the same bound (a tester-limited NDR and PDR) show each its colour.
fn bound_width(i: usize, n: usize) -> u32 {
    2 + 2 * n.saturating_sub(i + 1) as u32
}

/// The loss ratio axis: log10 of the ratio, with zero drawn at the floor.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct LossAxis {
    /// log10 of the smallest ratio drawn as itself; zero is drawn here too.
    pub(crate) floor_exp: i32,
}

impl LossAxis {
    /// The axis for these ratios: its floor a decade under the smallest positive one, between
    /// 1e-9 and 1e-2 (1e-6 when every ratio is zero).
    pub(crate) fn for_ratios(ratios: impl IntoIterator<Item = f64>) -> LossAxis {
        let smallest = ratios
            .into_iter()
            .filter(|r| *r > 0.0)
            .fold(f64::INFINITY, f64::min);
        let floor_exp = if smallest.is_finite() {
            (smallest.log10().floor() as i32 - 1).clamp(-9, -2)
        } else {
            -6
        };
        LossAxis { floor_exp }
    }

    /// Where `ratio` is drawn.
    pub(crate) fn y(self, ratio: f64) -> f64 {
        ratio.max(10f64.powi(self.floor_exp)).log10()
    }

    /// The tick label at `y`: `0` at the floor, then `1e-5`, ..., `0.001`, `0.01`, `0.1`, `1`.
    pub(crate) fn label(self, y: f64) -> String {
        let e = y.round() as i32;
        match e {
            e if e <= self.floor_exp => "0".to_owned(),
            e if e >= 0 => "1".to_owned(),
            e if e >= -3 => format!("{}", 10f64.powi(e)),
            e => format!("1e{e}"),
        }
    }
}

/// The offered load axis: logarithmic, over the trials' loads and the goals' bounds with 5 %
/// to spare, in Mpps or kpps.
struct LoadAxis {
    /// Its start, in `unit`.
    x0: f64,
    /// Its end, in `unit`.
    x1: f64,
    /// Packets per second in one `unit`.
    div: f64,
    /// `Mpps` or `kpps`.
    unit: &'static str,
}

impl LoadAxis {
    fn for_case(case: &SearchCase) -> LoadAxis {
        let bounds = || {
            case.results
                .iter()
                .flat_map(|r| [r.lower_bound_pps, r.upper_bound_pps])
                .flatten()
        };
        let loads = || {
            case.trials
                .iter()
                .map(|t| t.offered_load_pps)
                .chain(bounds())
        };
        let (lo, hi) = loads().fold((f64::INFINITY, 0.0f64), |(lo, hi), x| {
            (lo.min(x), hi.max(x))
        });
        let (lo, hi) = if hi > 0.0 {
            (lo * 0.95, hi * 1.05)
        } else {
            (0.0, 1.0)
        };
        let (div, unit) = if hi >= 1e6 {
            (1e6, "Mpps")
        } else {
            (1e3, "kpps")
        };
        LoadAxis {
            x0: lo / div,
            x1: hi / div,
            div,
            unit,
        }
    }
}

/// The legend: the trials, then each goal's loss ratio and bounds.
fn legend(goals: &[GoalSpec]) -> Vec<(String, Mark)> {
    let mut legend = vec![
        ("trial".to_owned(), Mark::Dot(TRIAL)),
        (
            "tester-limited trial".to_owned(),
            Mark::Cross(TESTER_LIMITED),
        ),
    ];
    for (i, g) in goals.iter().enumerate() {
        legend.push((
            format!("{} loss ratio {}", g.name, g.loss_ratio),
            Mark::Dashed(goal_colour(i)),
        ));
        legend.push((
            format!("{} bounds", g.name),
            Mark::Line(goal_colour(i), bound_width(i, goals.len())),
        ));
    }
    legend
}

/// The plot of `case` for `goals` (the search's, in the order of the case's results), as an
/// SVG document.
pub(crate) fn search_loss(goals: &[GoalSpec], case: &SearchCase) -> Result<String, PlotError> {
    let axis = LossAxis::for_ratios(
        case.trials
            .iter()
            .map(|t| t.loss_ratio)
            .chain(goals.iter().map(|g| g.loss_ratio)),
    );
    let LoadAxis { x0, x1, div, unit } = LoadAxis::for_case(case);
    let legend = legend(goals);
    svg_document(HEIGHT, |root| {
        let area = side_legend(root, &legend)?;
        let y0 = f64::from(axis.floor_exp) - 0.3;
        let mut chart = ChartBuilder::on(&area)
            .caption(
                format!("{}: loss ratio against offered load", case.label),
                caption_font(),
            )
            .margin(16)
            .x_label_area_size(50)
            .y_label_area_size(70)
            .build_cartesian_2d(LogAxis::new(x0..x1), y0..0.3)?;
        chart
            .configure_mesh()
            .x_desc(format!("offered load ({unit}, the directions together)"))
            .y_desc("trial loss ratio (0 at the bottom)")
            .axis_desc_style(label_font())
            .label_style(label_font())
            // A tick per decade of loss ratio.
            .y_labels((-axis.floor_exp) as usize + 1)
            .x_label_formatter(&|x| short_number(*x))
            .y_label_formatter(&|y| axis.label(*y))
            .light_line_style(TRANSPARENT)
            .draw()?;
        for (i, g) in goals.iter().enumerate() {
            let y = axis.y(g.loss_ratio);
            let style = goal_colour(i).stroke_width(2);
            chart.draw_series(DashedLineSeries::new([(x0, y), (x1, y)], 8, 6, style))?;
        }
        for (i, r) in case.results.iter().enumerate() {
            let style = goal_colour(i).stroke_width(bound_width(i, case.results.len()));
            for x in [r.lower_bound_pps, r.upper_bound_pps].into_iter().flatten() {
                chart.draw_series(LineSeries::new([(x / div, y0), (x / div, 0.3)], style))?;
            }
        }
        let point =
            |t: &upfbench_report::TrialRecord| (t.offered_load_pps / div, axis.y(t.loss_ratio));
        let (limited, measured): (Vec<_>, Vec<_>) =
            case.trials.iter().partition(|t| t.tester_limited.is_some());
        chart.draw_series(
            measured
                .iter()
                .map(|t| Circle::new(point(t), 4, TRIAL.filled())),
        )?;
        chart.draw_series(
            limited
                .iter()
                .map(|t| Cross::new(point(t), 5, TESTER_LIMITED.stroke_width(2))),
        )?;
        Ok(())
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plot::svg_check::summary;
    use crate::samples::search;

    #[test]
    fn zero_loss_sits_on_the_floor_a_decade_under_the_smallest_ratio() {
        let axis = LossAxis::for_ratios([0.0, 0.004, 0.2]);
        assert_eq!(axis.floor_exp, -4);
        assert_eq!(axis.y(0.0), -4.0);
        assert!((axis.y(0.004) - 0.004f64.log10()).abs() < 1e-12);
        let labels: Vec<String> = (-4..=0).map(|e| axis.label(f64::from(e))).collect();
        assert_eq!(labels, ["0", "0.001", "0.01", "0.1", "1"]);
        assert_eq!(LossAxis::for_ratios([0.0]).floor_exp, -6);
        assert_eq!(LossAxis::for_ratios([1e-12]).floor_exp, -9);
        assert_eq!(LossAxis::for_ratios([1e-7]).label(-8.0), "0");
        assert_eq!(LossAxis::for_ratios([1e-7]).label(-5.0), "1e-5");
    }

    #[test]
    fn every_trial_is_a_point_and_every_bound_a_vertical_line() {
        let report = search("upf");
        let s = report.search.unwrap();
        let case = &s.cases[0];
        let svg = search_loss(&s.goals, case).unwrap();
        let sum = summary(&svg);
        let limited = case
            .trials
            .iter()
            .filter(|t| t.tester_limited.is_some())
            .count();
        assert_eq!(limited, 1);
        // A dot per trial the tester could send, and the legend's.
        assert_eq!(sum.circles_of("#0072B2"), case.trials.len() - limited + 1);
        // A cross (two lines) per tester-limited trial, and the legend's.
        assert_eq!(sum.lines_of("#000000"), 2 * (limited + 1));
        // Each goal's lower and upper bound, left to right.
        for (i, r) in case.results.iter().enumerate() {
            let c = format!(
                "#{:02X}{:02X}{:02X}",
                goal_colour(i).0,
                goal_colour(i).1,
                goal_colour(i).2
            );
            let xs = sum.verticals_of(&c);
            assert_eq!(xs.len(), 2, "{}: {xs:?}", r.goal);
        }
        // NDR's bounds lie left of PDR's.
        assert!(sum.verticals_of("#009E73")[1] < sum.verticals_of("#D55E00")[0]);
        for text in [
            "10 B both: loss ratio against offered load",
            "offered load (Mpps, the directions together)",
            "trial loss ratio (0 at the bottom)",
            "NDR loss ratio 0",
            "PDR loss ratio 0.005",
            "PDR bounds",
            "tester-limited trial",
            "0",
            "0.001",
            "1",
            // The load axis: 1.8 to 4.4 Mpps, a tick per whole Mpps.
            "2",
            "3",
            "4",
        ] {
            assert!(sum.has_text(text), "no {text:?} in {:?}", sum.texts);
        }
    }
}
