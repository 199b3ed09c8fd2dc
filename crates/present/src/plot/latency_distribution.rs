//! The latency percentile distribution of a step, a curve per direction, on HdrHistogram's
//! axis: x is log10(1/(1−q)), ticked 0 %, 90 %, 99 %, 99.9 %, ...; y is the latency on a log
//! scale, since a UPF's median (µs) and its tail (ms on a shared host) differ by decades.

use plotters::prelude::*;

use super::{
    LogAxis, Mark, caption_font, colour, label_font, log_range, side_legend, svg_document, us_label,
};
use crate::distribution::{PercentilePoint, percentile_label};
use crate::error::PlotError;

/// The plot's height (px).
const HEIGHT: u32 = 440;

/// The axis reaches 99.999 % at least, so that plots of different steps line up.
const MIN_DECADES: f64 = 5.0;

/// One curve: a direction's distribution.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct DistributionCurve {
    /// Its name in the legend (`uplink`).
    pub name: String,
    /// Its points, by increasing x.
    pub points: Vec<PercentilePoint>,
}

/// The plot of `curves` under `title`, as an SVG document.
pub(crate) fn latency_distribution(
    title: &str,
    curves: &[DistributionCurve],
) -> Result<String, PlotError> {
    let all = || curves.iter().flat_map(|c| &c.points);
    let decades = all().map(|p| p.x).fold(MIN_DECADES, f64::max).ceil();
    let y = log_range(all().map(|p| p.latency_us));
    let legend: Vec<(String, Mark)> = curves
        .iter()
        .enumerate()
        .map(|(i, c)| (c.name.clone(), Mark::Line(colour(i), 2)))
        .collect();
    svg_document(HEIGHT, |root| {
        let area = side_legend(root, &legend)?;
        let mut chart = ChartBuilder::on(&area)
            .caption(title, caption_font())
            .margin(16)
            // Room for the last tick's label, centred on the plot's edge.
            .margin_right(48)
            .x_label_area_size(50)
            .y_label_area_size(70)
            .build_cartesian_2d(0.0..decades, LogAxis::new(y))?;
        chart
            .configure_mesh()
            .x_desc("percentile")
            .y_desc("one-way latency (µs)")
            // A tick per decade: 0 %, 90 %, 99 %, ...
            .x_labels(decades as usize + 1)
            .axis_desc_style(label_font())
            .label_style(label_font())
            .x_label_formatter(&|x| percentile_label(*x))
            .y_label_formatter(&|v| us_label(*v))
            .light_line_style(TRANSPARENT)
            .draw()?;
        for (i, c) in curves.iter().enumerate() {
            chart.draw_series(LineSeries::new(
                c.points.iter().map(|p| (p.x, p.latency_us)),
                colour(i).stroke_width(2),
            ))?;
        }
        Ok(())
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::distribution::from_summary;
    use crate::plot::svg_check::summary;
    use crate::samples::latency;

    #[test]
    fn a_curve_per_direction_with_every_point_on_the_nines_axis() {
        let ul = from_summary(&latency(2_000));
        let dl = from_summary(&latency(3_000));
        let curves = [
            DistributionCurve {
                name: "uplink".into(),
                points: ul.clone(),
            },
            DistributionCurve {
                name: "downlink".into(),
                points: dl.clone(),
            },
        ];
        let svg = latency_distribution("300 B: latency", &curves).unwrap();
        let s = summary(&svg);
        for tick in ["0%", "90%", "99%", "99.9%", "99.99%", "99.999%"] {
            assert!(s.has_text(tick), "no tick {tick}: {:?}", s.texts);
        }
        for text in [
            "300 B: latency",
            "percentile",
            "one-way latency (µs)",
            "uplink",
            "downlink",
        ] {
            assert!(s.has_text(text), "no {text:?}: {:?}", s.texts);
        }
        // Each direction's curve has its points; its legend sample has two.
        assert_eq!(s.polylines_of("#0072B2"), [2, ul.len()]);
        assert_eq!(s.polylines_of("#E69F00"), [2, dl.len()]);
        // 500,000 samples: min, p50 ... p99.99 and the max.
        assert_eq!(ul.len(), 7);
    }

    #[test]
    fn no_curve_still_makes_a_plot() {
        let s = summary(&latency_distribution("nothing", &[]).unwrap());
        assert!(s.has_text("nothing"));
        // The axes' lines only, in black.
        assert!(!s.polylines.is_empty());
        assert!(s.polylines.iter().all(|(c, _)| c == "#000000"));
    }
}
