//! A comparison's latency: per payload and report direction, the median as a dot and the
//! 99th percentile as a triangle joined by a line, on a log scale, so that UPFs a decade
//! apart still read.

use plotters::prelude::*;

use super::{
    Categories, LogAxis, Mark, caption_font, colour, label_font, log_range, side_legend,
    svg_document, us_label,
};
use crate::compare::series::{Series, Spread};
use crate::error::PlotError;

/// The plot's height (px).
const HEIGHT: u32 = 460;

/// The marks of `series`, as an SVG document.
pub(crate) fn compare_latency(series: &[Series<Spread>]) -> Result<String, PlotError> {
    let (rows, categories) = Categories::of_rows(series);
    let y = log_range(
        series
            .iter()
            .flat_map(|s| s.values.values())
            .flat_map(|v| [v.p50_us, v.p99_us]),
    );
    let legend: Vec<(String, Mark)> = series
        .iter()
        .enumerate()
        .map(|(j, s)| (s.name.clone(), Mark::Line(colour(j), 2)))
        .collect();
    svg_document(HEIGHT, |root| {
        let area = side_legend(root, &legend)?;
        let mut chart = ChartBuilder::on(&area)
            .caption(
                "One-way latency: p50 (dot) to p99 (triangle)",
                caption_font(),
            )
            .margin(16)
            .x_label_area_size(50)
            .y_label_area_size(70)
            .build_cartesian_2d(categories.range(), LogAxis::new(y))?;
        chart
            .configure_mesh()
            .disable_x_mesh()
            .x_labels(categories.0.len())
            .x_label_formatter(&|x| categories.label(*x))
            .y_label_formatter(&|v| us_label(*v))
            .x_desc("payload")
            .y_desc("latency (µs)")
            .axis_desc_style(label_font())
            .label_style(label_font())
            .light_line_style(TRANSPARENT)
            .draw()?;
        for (j, s) in series.iter().enumerate() {
            let c = colour(j);
            let marks: Vec<(f64, Spread)> = rows
                .iter()
                .enumerate()
                .filter_map(|(i, k)| {
                    Some((Categories::slot(i, j, series.len()).0, *s.values.get(*k)?))
                })
                .collect();
            for (x, v) in &marks {
                chart.draw_series(LineSeries::new(
                    [(*x, v.p50_us), (*x, v.p99_us)],
                    c.stroke_width(2),
                ))?;
            }
            chart.draw_series(
                marks
                    .iter()
                    .map(|(x, v)| Circle::new((*x, v.p50_us), 5, c.filled())),
            )?;
            chart.draw_series(
                marks
                    .iter()
                    .map(|(x, v)| TriangleMarker::new((*x, v.p99_us), 6, c.filled())),
            )?;
        }
        Ok(())
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::compare::Labelled;
    use crate::compare::series::latency;
    use crate::plot::svg_check::summary;
    use crate::samples::{search, sweep};

    #[test]
    fn a_dot_and_a_triangle_per_series_and_payload_it_has() {
        let (a, b, s) = (sweep("open5gs", 100), sweep("eupf", 100), search("upg"));
        let series = latency(&[
            Labelled {
                label: "open5gs",
                report: &a,
            },
            Labelled {
                label: "eupf",
                report: &b,
            },
            Labelled {
                label: "upg",
                report: &s,
            },
        ]);
        assert_eq!(series.len(), 5);
        let svg = summary(&compare_latency(&series).unwrap());
        for (j, s) in series.iter().enumerate() {
            let c = colour(j);
            let c = format!("#{:02X}{:02X}{:02X}", c.0, c.1, c.2);
            let n = s.values.len();
            assert_eq!(svg.circles_of(&c), n, "{}", s.name);
            assert_eq!(svg.polygons_of(&c), n, "{}", s.name);
            // A p50-to-p99 line per payload, and the legend's sample.
            assert_eq!(svg.polylines_of(&c).len(), n + 1, "{}", s.name);
        }
        for text in [
            "One-way latency: p50 (dot) to p99 (triangle)",
            "latency (µs)",
            "10 B",
            "upg UL @90% PDR",
        ] {
            assert!(svg.has_text(text), "no {text:?} in {:?}", svg.texts);
        }
    }
}
