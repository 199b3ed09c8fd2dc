//! A churn step's timeline: the data plane's three panels ([`super::timeline`]) with the
//! control plane's two between them, on the same time axis: the session procedures asked and
//! achieved each second, and their latency. A second in which the UPF forwarded less, lost
//! packets or answered late shows beside what N4 asked of it then.

use plotters::prelude::*;
use upfbench_report::{ChurnSecond, StepSecond};

use super::timeline::{DATA_LABELS, Panel, latency, losses, rates, time_axis};
use super::{
    LogAxis, Mark, caption_font, colour, label_font, legend_width, log_range, side_legend_sized,
    svg_document,
};
use crate::error::PlotError;

/// Five panels.
const HEIGHT: u32 = 1200;

const KINDS: [&str; 3] = ["estab.", "modif.", "delet."];
/// Their colours: the palette's that the directions' shades leave free.
const KIND_COLOURS: [usize; 3] = [2, 6, 7];

fn procedures(
    area: &Panel<'_>,
    n4: &[ChurnSecond],
    x_end: f64,
    legend_px: u32,
) -> Result<(), PlotError> {
    let per_s = |s: &ChurnSecond, v: u64| v as f64 / s.interval_s.max(1e-3);
    let top = n4
        .iter()
        .flat_map(|s| s.asked.iter().chain(&s.achieved).map(move |&v| per_s(s, v)))
        .fold(0.0, f64::max);
    let mut legend = Vec::new();
    for (k, name) in KINDS.iter().enumerate() {
        legend.push((
            format!("{name} asked"),
            Mark::Dashed(colour(KIND_COLOURS[k])),
        ));
        legend.push((
            format!("{name} done"),
            Mark::Line(colour(KIND_COLOURS[k]), 2),
        ));
    }
    let area = side_legend_sized(area, &legend, legend_px)?;
    let mut chart = ChartBuilder::on(&area)
        .margin(10)
        .x_label_area_size(30)
        .y_label_area_size(70)
        .build_cartesian_2d(0.0..x_end, 0.0..(top * 1.15).max(1.0))?;
    chart
        .configure_mesh()
        .y_desc("N4 procedures per second")
        .axis_desc_style(label_font())
        .label_style(label_font())
        .light_line_style(TRANSPARENT)
        .draw()?;
    for (k, &i) in KIND_COLOURS.iter().enumerate() {
        let c = colour(i);
        chart.draw_series(DashedLineSeries::new(
            n4.iter().map(|s| (s.t_s, per_s(s, s.asked[k]))),
            6,
            4,
            c.stroke_width(1),
        ))?;
        chart.draw_series(LineSeries::new(
            n4.iter().map(|s| (s.t_s, per_s(s, s.achieved[k]))),
            c.stroke_width(2),
        ))?;
    }
    Ok(())
}

fn n4_latency(
    area: &Panel<'_>,
    n4: &[ChurnSecond],
    x_end: f64,
    legend_px: u32,
) -> Result<(), PlotError> {
    // Microseconds, like the data plane's latency below.
    let us = |f: fn(&upfbench_report::Percentiles) -> upfbench_report::Nanos| -> Vec<(f64, f64)> {
        n4.iter()
            .filter_map(|s| Some((s.t_s, f(s.latency.as_ref()?).us())))
            .collect()
    };
    let (p50, p99, max) = (us(|p| p.p50), us(|p| p.p99), us(|p| p.max));
    let y = log_range(p50.iter().chain(&p99).chain(&max).map(|p| p.1));
    let c = colour(4);
    let legend = [
        ("N4 p50".to_owned(), Mark::Line(c, 2)),
        ("N4 p99".to_owned(), Mark::Line(c, 1)),
        ("N4 max".to_owned(), Mark::Dot(c)),
    ];
    let area = side_legend_sized(area, &legend, legend_px)?;
    let mut chart = ChartBuilder::on(&area)
        .margin(10)
        .x_label_area_size(30)
        .y_label_area_size(70)
        .build_cartesian_2d(0.0..x_end, LogAxis::new(y))?;
    chart
        .configure_mesh()
        .y_desc("N4 request → answer (µs)")
        .axis_desc_style(label_font())
        .label_style(label_font())
        .y_label_formatter(&|v| super::us_label(*v))
        .light_line_style(TRANSPARENT)
        .draw()?;
    chart.draw_series(LineSeries::new(p50, c.stroke_width(2)))?;
    chart.draw_series(LineSeries::new(p99, c.stroke_width(1)))?;
    chart.draw_series(max.into_iter().map(|p| Circle::new(p, 3, c.filled())))?;
    Ok(())
}

/// The timeline of a churn step under `title`: `seconds` (the data plane) and `n4` (the
/// control plane, one entry per second of `seconds`), as an SVG document.
pub(crate) fn n4_timeline(
    title: &str,
    seconds: &[StepSecond],
    n4: &[ChurnSecond],
) -> Result<String, PlotError> {
    let (x_end, x_desc) = time_axis(seconds);
    svg_document(HEIGHT, |root| {
        let body = root.titled(title, caption_font())?;
        let panels = body.split_evenly((5, 1));
        // One legend width for the five panels: their plots line up on the time axis.
        let legend_px = legend_width(DATA_LABELS.into_iter().chain(["estab. asked"]));
        rates(&panels[0], seconds, x_end, legend_px)?;
        procedures(&panels[1], n4, x_end, legend_px)?;
        n4_latency(&panels[2], n4, x_end, legend_px)?;
        losses(&panels[3], seconds, x_end, legend_px)?;
        latency(&panels[4], seconds, x_end, &x_desc, legend_px)
    })
}

#[cfg(test)]
mod tests {
    use upfbench_report::Percentiles;

    use super::*;
    use crate::plot::svg_check::summary;
    use crate::samples::step;

    #[test]
    fn control_and_data_plane_share_the_time_axis() {
        let seconds = step(300, 100, 0, 2_000).seconds;
        let n = seconds.len();
        let n4: Vec<ChurnSecond> = seconds
            .iter()
            .map(|s| ChurnSecond {
                t_s: s.t_s,
                interval_s: s.interval_s,
                asked: [100, 50, 100],
                achieved: [99, 50, 100],
                failed: 1,
                latency: Percentiles::of_ms([0.2, 0.4, 9.0]),
            })
            .collect();
        let s = summary(&n4_timeline("300 B, churn: each second", &seconds, &n4).unwrap());
        for text in [
            "300 B, churn: each second",
            "rate (kpps)",
            "N4 procedures per second",
            "estab. asked",
            "delet. done",
            "N4 request → answer (µs)",
            "N4 p99",
            "loss in the second (%)",
            "latency (µs)",
        ] {
            assert!(s.has_text(text), "no {text:?} in {:?}", s.texts);
        }
        // Each kind: a dashed asked line and a solid done line, a point per second (and the
        // legend's samples); N4 p50 and p99 a point per second, max a dot per second.
        assert_eq!(
            s.polylines_of("#009E73")
                .iter()
                .filter(|&&p| p == n)
                .count(),
            1
        );
        assert_eq!(s.circles_of("#CC79A7"), n + 1);
    }
}
