//! The plots, one kind per file, each a function from report data to an SVG document (a
//! string). They share the canvas, the palette, the fonts, the legend and the axes made here.
//!
//! Text is SVG `<text>` (plotters' SVG backend without a font backend): the browser sets it in
//! its own sans-serif, nothing reads a font file, and plotters' width estimate (0.7 em a
//! character) only places labels. Legends are drawn in a column of their own beside the plot,
//! never over its data.

pub(crate) mod compare_latency;
pub(crate) mod compare_throughput;
pub(crate) mod latency_distribution;
mod log_axis;
pub(crate) mod n4_timeline;
pub(crate) mod search_loss;
#[cfg(test)]
pub(crate) mod svg_check;
pub(crate) mod timeline;

use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use crate::compare::RowKey;
use crate::compare::series::Series;

pub(crate) use log_axis::LogAxis;

use crate::error::PlotError;

/// Width of every plot (px): a page's column.
pub(crate) const WIDTH: u32 = 960;

/// Colours of the series, in order: Okabe and Ito's, told apart by colour-blind readers too.
pub(crate) const PALETTE: [RGBColor; 8] = [
    RGBColor(0x00, 0x72, 0xB2),
    RGBColor(0xE6, 0x9F, 0x00),
    RGBColor(0x00, 0x9E, 0x73),
    RGBColor(0xD5, 0x5E, 0x00),
    RGBColor(0xCC, 0x79, 0xA7),
    RGBColor(0x56, 0xB4, 0xE9),
    RGBColor(0x99, 0x88, 0x00),
    RGBColor(0x00, 0x00, 0x00),
];

/// The `i`th series' colour (the palette again after eight).
pub(crate) fn colour(i: usize) -> RGBColor {
    PALETTE[i % PALETTE.len()]
}

/// The font of captions.
pub(crate) fn caption_font() -> TextStyle<'static> {
    ("sans-serif", 20).into_font().into()
}

/// The font of axis labels and legends.
pub(crate) fn label_font() -> TextStyle<'static> {
    ("sans-serif", 15).into_font().into()
}

/// An SVG document of `height` px drawn by `draw` on a white canvas.
pub(crate) fn svg_document(
    height: u32,
    draw: impl FnOnce(&DrawingArea<SVGBackend<'_>, Shift>) -> Result<(), PlotError>,
) -> Result<String, PlotError> {
    let mut out = String::new();
    {
        let root = SVGBackend::with_string(&mut out, (WIDTH, height)).into_drawing_area();
        root.fill(&WHITE)?;
        draw(&root)?;
        root.present()?;
    }
    Ok(out)
}

/// How a legend shows a series.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Mark {
    /// A line of this width.
    Line(RGBColor, u32),
    /// A dashed line.
    Dashed(RGBColor),
    /// A filled dot.
    Dot(RGBColor),
    /// A cross (×).
    Cross(RGBColor),
    /// A filled square (a bar).
    Bar(RGBColor),
}

/// Pixels a legend needs per character of its longest name (plotters' estimate at the label
/// font is 0.7 em of 12 px), and around the names.
const LEGEND_PX_PER_CHAR: u32 = 8;
const LEGEND_PADDING_PX: u32 = 56;

/// Splits `area` into the plot's part (returned) and a legend's column on its right, and draws
/// the legend there.
pub(crate) fn side_legend<'a>(
    area: &DrawingArea<SVGBackend<'a>, Shift>,
    entries: &[(String, Mark)],
) -> Result<DrawingArea<SVGBackend<'a>, Shift>, PlotError> {
    let width = legend_width(entries.iter().map(|(n, _)| n.as_str()));
    side_legend_sized(area, entries, width)
}

/// The width of a legend column for `labels` (px): panels that share a time axis take the
/// widest of theirs, so that their plots line up.
pub(crate) fn legend_width<'s>(labels: impl IntoIterator<Item = &'s str>) -> u32 {
    let longest = labels
        .into_iter()
        .map(|n| n.chars().count())
        .max()
        .unwrap_or(0) as u32;
    (LEGEND_PADDING_PX + LEGEND_PX_PER_CHAR * longest).clamp(110, WIDTH / 3)
}

/// [`side_legend`] in a column `width` px wide.
pub(crate) fn side_legend_sized<'a>(
    area: &DrawingArea<SVGBackend<'a>, Shift>,
    entries: &[(String, Mark)],
    width: u32,
) -> Result<DrawingArea<SVGBackend<'a>, Shift>, PlotError> {
    let (plot, legend) = area.split_horizontally(area.dim_in_pixel().0.saturating_sub(width));
    let font = label_font().pos(Pos::new(HPos::Left, VPos::Center));
    for (i, (name, mark)) in entries.iter().enumerate() {
        let y = 24 + 22 * i as i32;
        let (x0, x1) = (6, 30);
        match *mark {
            Mark::Line(c, w) => {
                legend.draw(&PathElement::new([(x0, y), (x1, y)], c.stroke_width(w)))?;
            }
            Mark::Dashed(c) => {
                for x in (x0..x1).step_by(8) {
                    legend.draw(&PathElement::new([(x, y), (x + 4, y)], c.stroke_width(2)))?;
                }
            }
            Mark::Dot(c) => legend.draw(&Circle::new((x0 + 12, y), 4, c.filled()))?,
            Mark::Cross(c) => legend.draw(&Cross::new((x0 + 12, y), 5, c.stroke_width(2)))?,
            Mark::Bar(c) => {
                legend.draw(&Rectangle::new(
                    [(x0 + 4, y - 6), (x1 - 4, y + 6)],
                    c.filled(),
                ))?;
            }
        }
        legend.draw(&Text::new(name.as_str(), (x1 + 8, y), font.clone()))?;
    }
    Ok(plot)
}

/// A latency in µs as an axis label: `0.5`, `12`, `1,500`, with no more digits than it needs.
pub(crate) fn us_label(us: f64) -> String {
    if us >= 1_000.0 {
        let whole = us.round() as u64;
        let (thousands, rest) = (whole / 1_000, whole % 1_000);
        format!("{thousands},{rest:03}")
    } else if us >= 10.0 || us == us.round() {
        format!("{us:.0}")
    } else if us >= 1.0 {
        format!("{us:.1}")
    } else {
        format!("{us:.2}")
    }
}

/// A figure as an axis label: three significant digits at most, no trailing zeros (`50`,
/// `2.5`, `0.25`).
pub(crate) fn short_number(v: f64) -> String {
    if v == 0.0 || !v.is_finite() {
        return "0".to_owned();
    }
    let decimals = (2 - v.abs().log10().floor() as i32).clamp(0, 6) as usize;
    let s = format!("{v:.decimals$}");
    if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.').to_owned()
    } else {
        s
    }
}

/// The range of a log axis over `values`: whole decades (plotters ticks a log axis from its
/// first power of ten on, so a range starting at 1.5 would have no tick under 10), at least
/// one. Non-positive values are left out.
pub(crate) fn log_range(values: impl IntoIterator<Item = f64>) -> std::ops::Range<f64> {
    let (lo, hi) = values
        .into_iter()
        .filter(|v| *v > 0.0 && v.is_finite())
        .fold((f64::INFINITY, 0.0f64), |(lo, hi), v| {
            (lo.min(v), hi.max(v))
        });
    if hi <= 0.0 {
        return 0.1..10.0;
    }
    let lo = 10f64.powf(lo.log10().floor());
    let hi = 10f64.powf((hi * 1.05).log10().ceil()).max(lo * 10.0);
    lo..hi
}

/// The categories of a comparison plot (its rows), drawn at x = 0, 1, 2, ... on an axis
/// from −0.5, so that each one's tick and label sit at its group's centre.
pub(crate) struct Categories(pub(crate) Vec<String>);

impl Categories {
    /// The payload rows that any of `series` has, in order, and their categories ("300 B").
    pub(crate) fn of_rows<T>(series: &[Series<T>]) -> (Vec<&RowKey>, Categories) {
        let mut rows: Vec<&RowKey> = series.iter().flat_map(|s| s.values.keys()).collect();
        rows.sort();
        rows.dedup();
        let categories = Categories(
            rows.iter()
                .map(|k| format!("{k} B").replace("B B", "B"))
                .collect(),
        );
        (rows, categories)
    }

    /// The x axis's range.
    pub(crate) fn range(&self) -> std::ops::Range<f64> {
        -0.5..self.0.len().max(1) as f64 - 0.5
    }

    /// The label of the tick at `x`: its category's, none between them.
    pub(crate) fn label(&self, x: f64) -> String {
        let i = x.round();
        if (x - i).abs() > 1e-6 || i < 0.0 {
            return String::new();
        }
        self.0.get(i as usize).cloned().unwrap_or_default()
    }

    /// Where the `j`th of `n` series' mark sits in category `i`, and the width each gets:
    /// the group takes 80 % of the category's width.
    pub(crate) fn slot(i: usize, j: usize, n: usize) -> (f64, f64) {
        let w = 0.8 / n.max(1) as f64;
        (i as f64 - 0.4 + w * (j as f64 + 0.5), w)
    }
}

/// `svg` as an element of an HTML page: without the XML namespace, which HTML does not need
/// and which a page with no URL in it must not carry.
pub(crate) fn inline_svg(svg: &str) -> String {
    svg.replacen(" xmlns=\"http://www.w3.org/2000/svg\"", "", 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn latency_labels_have_the_digits_they_need() {
        let labels: Vec<String> = [0.25, 1.0, 2.5, 12.0, 150.0, 1_500.0, 68_020.0]
            .into_iter()
            .map(us_label)
            .collect();
        assert_eq!(labels, ["0.25", "1", "2.5", "12", "150", "1,500", "68,020"]);
    }

    #[test]
    fn short_numbers_drop_what_they_do_not_need() {
        let labels: Vec<String> = [50.0, 2.5, 0.25, 1234.0, 4.4, 0.0]
            .into_iter()
            .map(short_number)
            .collect();
        assert_eq!(labels, ["50", "2.5", "0.25", "1234", "4.4", "0"]);
    }

    #[test]
    fn a_log_range_spans_whole_decades() {
        assert_eq!(log_range([2.0, 3.0, 0.0]), 1.0..10.0);
        assert_eq!(log_range([1.5, 46.0]), 1.0..100.0);
        assert_eq!(log_range([1.0, 1_000.0]), 1.0..10_000.0);
        assert_eq!(log_range([10.0]), 10.0..100.0);
        assert_eq!(log_range([]), 0.1..10.0);
    }

    #[test]
    fn categories_sit_at_whole_numbers_and_their_series_share_80_percent() {
        let c = Categories(vec!["10 B".into(), "1400 B".into()]);
        assert_eq!(c.range(), -0.5..1.5);
        assert_eq!(c.label(1.0), "1400 B");
        assert_eq!(c.label(0.5), "");
        assert_eq!(c.label(2.0), "");
        let (x, w) = Categories::slot(1, 0, 4);
        assert!((x - 0.7).abs() < 1e-9 && (w - 0.2).abs() < 1e-9, "{x} {w}");
    }

    #[test]
    fn an_inline_svg_names_no_url() {
        let svg = svg_document(100, |_| Ok(())).unwrap();
        assert!(svg.contains("http://"));
        assert!(!inline_svg(&svg).contains("http"));
        assert!(inline_svg(&svg).starts_with("<svg width=\"960\" height=\"100\""));
    }
}
