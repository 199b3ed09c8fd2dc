//! A step's timeline, second by second from the live lines kept in its report: the TX and RX
//! rates, the losses and the latency percentiles, in three panels over one time axis, so that
//! a stall, a burst of losses or a latency spike shows in the second it happened.

use plotters::coord::{CoordTranslate, Shift};
use plotters::prelude::*;
use upfbench_report::{SecondDirection, StepSecond};
use upfbench_stats::Direction;

use super::{
    LogAxis, Mark, caption_font, label_font, legend_width, log_range, side_legend_sized,
    svg_document, us_label,
};
use crate::error::PlotError;

/// The plot's height (px): three panels.
const HEIGHT: u32 = 760;

/// The longest legend labels of the three panels: their plots line up.
pub(super) const DATA_LABELS: [&str; 4] = ["UL TX", "UL loss", "UL p50", "UL max"];

/// Above this many kpps the rates are in Mpps.
const MPPS_ABOVE_KPPS: f64 = 10_000.0;

/// The colours of a direction's two series (TX or p50, RX or p99): dark and light of one hue.
fn shades(d: Direction) -> (RGBColor, RGBColor) {
    match d {
        Direction::Uplink => (RGBColor(0x00, 0x72, 0xB2), RGBColor(0x56, 0xB4, 0xE9)),
        Direction::Downlink => (RGBColor(0xE6, 0x9F, 0x00), RGBColor(0xD5, 0x5E, 0x00)),
    }
}

/// Each direction that appears in some second, with its figure of each second that has one.
fn series<T>(
    seconds: &[StepSecond],
    figure: impl Fn(&SecondDirection) -> Option<T>,
) -> Vec<(Direction, Vec<(f64, T)>)> {
    Direction::ALL
        .into_iter()
        .filter(|d| {
            seconds
                .iter()
                .any(|s| s.directions.iter().any(|x| x.direction == *d))
        })
        .map(|d| {
            let points = seconds
                .iter()
                .filter_map(|s| {
                    let x = s.directions.iter().find(|x| x.direction == d)?;
                    Some((s.t_s, figure(x)?))
                })
                .collect();
            (d, points)
        })
        .collect()
}

/// The time axis of `seconds`: where it ends, and its label (with the measured part).
pub(super) fn time_axis(seconds: &[StepSecond]) -> (f64, String) {
    let x_end = seconds.iter().map(|s| s.t_s).fold(1.0, f64::max) * 1.02;
    let x_desc = match measured_span(seconds) {
        Some((a, b)) => {
            format!("seconds since the step started (measured from {a:.1} to {b:.1} s)")
        }
        None => "seconds since the step started".to_owned(),
    };
    (x_end, x_desc)
}

/// The measured part of the step (from the first measured second's start to the last one's
/// end), for the time axis's label.
fn measured_span(seconds: &[StepSecond]) -> Option<(f64, f64)> {
    let measured = || {
        seconds
            .iter()
            .filter(|s| s.phase == upfbench_report::StepPhase::Measure)
    };
    let start = measured().next().map(|s| s.t_s - s.interval_s)?;
    let end = measured().next_back().map(|s| s.t_s)?;
    Some((start, end))
}

pub(super) type Panel<'a> = DrawingArea<SVGBackend<'a>, Shift>;

/// A line per `(direction, points)` in `colour(direction)`.
fn lines<'a, DB, CT>(
    chart: &mut ChartContext<'a, DB, CT>,
    data: &[(Direction, Vec<(f64, f64)>)],
    colour: impl Fn(Direction) -> RGBColor,
    width: u32,
) -> Result<(), PlotError>
where
    DB: DrawingBackend + 'a,
    DB::ErrorType: 'static,
    CT: CoordTranslate<From = (f64, f64)>,
{
    for (d, points) in data {
        chart.draw_series(LineSeries::new(
            points.iter().copied(),
            colour(*d).stroke_width(width),
        ))?;
    }
    Ok(())
}

/// The legend's entries of `data`: `name(direction)` with `mark(direction)`.
fn entries<T>(
    data: &[(Direction, Vec<T>)],
    name: &str,
    mark: impl Fn(Direction) -> Mark,
) -> Vec<(String, Mark)> {
    data.iter()
        .map(|(d, _)| (format!("{} {name}", d.short()), mark(*d)))
        .collect()
}

pub(super) fn rates(
    area: &Panel<'_>,
    seconds: &[StepSecond],
    x_end: f64,
    legend_px: u32,
) -> Result<(), PlotError> {
    let tx = series(seconds, |d| Some(d.tx_kpps));
    let rx = series(seconds, |d| Some(d.rx_kpps));
    let top = tx
        .iter()
        .chain(&rx)
        .flat_map(|(_, p)| p)
        .map(|p| p.1)
        .fold(0.0, f64::max);
    let (div, unit) = if top > MPPS_ABOVE_KPPS {
        (1e3, "Mpps")
    } else {
        (1.0, "kpps")
    };
    let scale = |s: Vec<(Direction, Vec<(f64, f64)>)>| -> Vec<(Direction, Vec<(f64, f64)>)> {
        s.into_iter()
            .map(|(d, p)| (d, p.into_iter().map(|(t, v)| (t, v / div)).collect()))
            .collect()
    };
    let mut legend = entries(&tx, "TX", |d| Mark::Line(shades(d).0, 2));
    legend.extend(entries(&rx, "RX", |d| Mark::Line(shades(d).1, 2)));
    let area = side_legend_sized(area, &legend, legend_px)?;
    let mut chart = ChartBuilder::on(&area)
        .margin(10)
        .x_label_area_size(30)
        .y_label_area_size(70)
        .build_cartesian_2d(0.0..x_end, 0.0..(top / div * 1.15).max(1e-3))?;
    chart
        .configure_mesh()
        .y_desc(format!("rate ({unit})"))
        .axis_desc_style(label_font())
        .label_style(label_font())
        .light_line_style(TRANSPARENT)
        .draw()?;
    lines(&mut chart, &scale(tx), |d| shades(d).0, 2)?;
    lines(&mut chart, &scale(rx), |d| shades(d).1, 2)
}

pub(super) fn losses(
    area: &Panel<'_>,
    seconds: &[StepSecond],
    x_end: f64,
    legend_px: u32,
) -> Result<(), PlotError> {
    let loss = series(seconds, SecondDirection::loss_pct);
    let top = loss
        .iter()
        .flat_map(|(_, p)| p)
        .map(|p| p.1)
        .fold(0.0, f64::max);
    let area = side_legend_sized(
        area,
        &entries(&loss, "loss", |d| Mark::Line(shades(d).0, 2)),
        legend_px,
    )?;
    let mut chart = ChartBuilder::on(&area)
        .margin(10)
        .x_label_area_size(30)
        .y_label_area_size(70)
        .build_cartesian_2d(0.0..x_end, 0.0..(top * 1.15).max(1.0))?;
    chart
        .configure_mesh()
        .y_desc("loss in the second (%)")
        .axis_desc_style(label_font())
        .label_style(label_font())
        .light_line_style(TRANSPARENT)
        .draw()?;
    lines(&mut chart, &loss, |d| shades(d).0, 2)
}

pub(super) fn latency(
    area: &Panel<'_>,
    seconds: &[StepSecond],
    x_end: f64,
    x_desc: &str,
    legend_px: u32,
) -> Result<(), PlotError> {
    let us = |ns: Option<upfbench_report::Nanos>| ns.map(upfbench_report::Nanos::us);
    let p50 = series(seconds, |d| us(d.lat_p50_ns));
    let p99 = series(seconds, |d| us(d.lat_p99_ns));
    let max = series(seconds, |d| us(d.lat_max_ns));
    let y = log_range(
        p50.iter()
            .chain(&p99)
            .chain(&max)
            .flat_map(|(_, p)| p)
            .map(|p| p.1),
    );
    let mut legend = entries(&p50, "p50", |d| Mark::Line(shades(d).0, 2));
    legend.extend(entries(&p99, "p99", |d| Mark::Line(shades(d).1, 1)));
    legend.extend(entries(&max, "max", |d| Mark::Dot(shades(d).1)));
    let area = side_legend_sized(area, &legend, legend_px)?;
    let mut chart = ChartBuilder::on(&area)
        .margin(10)
        .x_label_area_size(50)
        .y_label_area_size(70)
        .build_cartesian_2d(0.0..x_end, LogAxis::new(y))?;
    chart
        .configure_mesh()
        .x_desc(x_desc)
        .y_desc("latency (µs)")
        .axis_desc_style(label_font())
        .label_style(label_font())
        .y_label_formatter(&|v| us_label(*v))
        .light_line_style(TRANSPARENT)
        .draw()?;
    lines(&mut chart, &p50, |d| shades(d).0, 2)?;
    lines(&mut chart, &p99, |d| shades(d).1, 1)?;
    // The maximum is a point per second: one packet, not a trend to follow.
    for (d, points) in &max {
        let c = shades(*d).1;
        chart.draw_series(points.iter().map(|&p| Circle::new(p, 3, c.filled())))?;
    }
    Ok(())
}

/// The timeline of `seconds` under `title`, as an SVG document.
pub(crate) fn timeline(title: &str, seconds: &[StepSecond]) -> Result<String, PlotError> {
    let (x_end, x_desc) = time_axis(seconds);
    svg_document(HEIGHT, |root| {
        let body = root.titled(title, caption_font())?;
        let panels = body.split_evenly((3, 1));
        let legend_px = legend_width(DATA_LABELS);
        rates(&panels[0], seconds, x_end, legend_px)?;
        losses(&panels[1], seconds, x_end, legend_px)?;
        latency(&panels[2], seconds, x_end, &x_desc, legend_px)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plot::svg_check::summary;
    use crate::samples::step;

    #[test]
    fn rates_losses_and_latency_have_a_point_per_second_and_direction() {
        let seconds = step(300, 100, 0, 2_000).seconds;
        let n = seconds.len();
        let s = summary(&timeline("300 B: each second", &seconds).unwrap());
        for text in [
            "300 B: each second",
            "rate (kpps)",
            "loss in the second (%)",
            "latency (µs)",
            "seconds since the step started (measured from 1.0 to 6.0 s)",
            "UL TX",
            "DL RX",
            "UL loss",
            "DL p99",
            "UL max",
        ] {
            assert!(s.has_text(text), "no {text:?} in {:?}", s.texts);
        }
        // Uplink's dark shade: TX rate, loss and p50, each a point per second, each with its
        // legend's two-point sample.
        assert_eq!(s.polylines_of("#0072B2"), [2, 2, 2, n, n, n]);
        // Its light shade: RX rate and p99.
        assert_eq!(s.polylines_of("#56B4E9"), [2, 2, n, n]);
        // The maxima: a circle per second, and the legend's.
        assert_eq!(s.circles_of("#56B4E9"), n + 1);
        assert_eq!(s.circles_of("#D55E00"), n + 1);
    }

    #[test]
    fn a_second_without_a_figure_is_left_out_not_drawn_as_zero() {
        let mut seconds = step(300, 100, 0, 2_000).seconds;
        // The drain: nothing sent (no loss ratio), and no sample in the last second.
        let last = seconds.last_mut().unwrap();
        for d in &mut last.directions {
            d.tx_packets = 0;
            d.lat_p50_ns = None;
            d.lat_p99_ns = None;
            d.lat_max_ns = None;
        }
        let n = seconds.len();
        let s = summary(&timeline("drain", &seconds).unwrap());
        assert_eq!(s.polylines_of("#0072B2"), [2, 2, 2, n - 1, n - 1, n]);
        assert_eq!(s.circles_of("#56B4E9"), n);
    }
}
