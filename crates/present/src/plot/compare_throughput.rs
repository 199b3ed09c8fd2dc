//! A comparison's throughput: grouped bars, a group per payload and a bar per report's
//! direction or goal, so that the UPFs stand side by side at each size.

use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use super::{Categories, Mark, caption_font, colour, label_font, side_legend, svg_document};
use crate::compare::series::{Series, Throughput};
use crate::error::PlotError;

/// The plot's height (px).
const HEIGHT: u32 = 460;

/// The bars of `series` in `unit` (the same unit their values are in), as an SVG document.
pub(crate) fn compare_throughput(
    series: &[Series<f64>],
    unit: Throughput,
) -> Result<String, PlotError> {
    let (rows, categories) = Categories::of_rows(series);
    let top = series
        .iter()
        .flat_map(|s| s.values.values())
        .fold(0.0f64, |a, b| a.max(*b));
    let legend: Vec<(String, Mark)> = series
        .iter()
        .enumerate()
        .map(|(j, s)| (s.name.clone(), Mark::Bar(colour(j))))
        .collect();
    svg_document(HEIGHT, |root| {
        let area = side_legend(root, &legend)?;
        let mut chart = ChartBuilder::on(&area)
            .caption(
                format!("Throughput forwarded ({})", unit.unit()),
                caption_font(),
            )
            .margin(16)
            .x_label_area_size(50)
            .y_label_area_size(70)
            .build_cartesian_2d(categories.range(), 0.0..(top * 1.1).max(1e-3))?;
        chart
            .configure_mesh()
            .disable_x_mesh()
            .x_labels(categories.0.len())
            .x_label_formatter(&|x| categories.label(*x))
            .x_desc("payload")
            .y_desc(unit.unit())
            .axis_desc_style(label_font())
            .label_style(label_font())
            .light_line_style(TRANSPARENT)
            .draw()?;
        for (j, s) in series.iter().enumerate() {
            let fill = colour(j).filled();
            chart.draw_series(rows.iter().enumerate().filter_map(|(i, k)| {
                let v = *s.values.get(*k)?;
                let (x, w) = Categories::slot(i, j, series.len());
                Some(Rectangle::new([(x - w / 2.0, 0.0), (x + w / 2.0, v)], fill))
            }))?;
            // A lower bound only (tester-limited, Max Load): "≥" on the bar, as in the table.
            chart.draw_series(rows.iter().enumerate().filter_map(|(i, k)| {
                let v = *s.values.get(*k)?;
                s.lower_only.contains(*k).then(|| {
                    let (x, _) = Categories::slot(i, j, series.len());
                    Text::new(
                        "≥",
                        (x, v),
                        label_font().pos(Pos::new(HPos::Center, VPos::Bottom)),
                    )
                })
            }))?;
        }
        Ok(())
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::compare::Labelled;
    use crate::compare::series::throughput;
    use crate::plot::svg_check::summary;
    use crate::samples::{search, sweep};

    #[test]
    fn a_bar_per_series_and_payload_it_has() {
        let (a, s) = (sweep("open5gs", 100), search("upg"));
        let series = throughput(
            &[
                Labelled {
                    label: "open5gs",
                    report: &a,
                },
                Labelled {
                    label: "upg",
                    report: &s,
                },
            ],
            Throughput::GbpsL1,
        );
        let svg = summary(&compare_throughput(&series, Throughput::GbpsL1).unwrap());
        // open5gs UL and DL at 10, 300 and 1400 B; upg's NDR and PDR at 10 and 1400 B; each
        // with its legend's square.
        let counts: Vec<usize> = (0..4)
            .map(|j| {
                let c = colour(j);
                svg.rects_of(&format!("#{:02X}{:02X}{:02X}", c.0, c.1, c.2))
            })
            .collect();
        assert_eq!(counts, [3 + 1, 3 + 1, 2 + 1, 2 + 1]);
        for text in [
            "Throughput forwarded (Gbps L1)",
            "10 B",
            "300 B",
            "1400 B",
            "payload",
            "open5gs UL",
            "upg PDR",
        ] {
            assert!(svg.has_text(text), "no {text:?} in {:?}", svg.texts);
        }
        // upg's 1400 B: NDR tester-limited, PDR at Max Load: each bar a lower bound only.
        let marks = svg.texts.iter().filter(|t| t.as_str() == "≥").count();
        assert_eq!(marks, 2, "{:?}", svg.texts);
    }
}
