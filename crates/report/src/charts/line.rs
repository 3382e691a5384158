//! The line chart the timeline, the per-second series and the percentile
//! curves share: panels stacked over one x axis, each with its own y scale
//! (IOPS and MB/s cannot share an axis), a legend under the title.

use super::scale::{Scale, ScaleKind};
use super::{legend, legend_height, x_axis, y_axis, Area, LegendEntry, Svg, WIDTH};

/// One line: points `(x, y, tooltip)`; markers are drawn with their tooltips.
pub(crate) struct Line {
    pub colour: &'static str,
    pub dashed: bool,
    pub markers: bool,
    pub points: Vec<(f64, f64, Option<String>)>,
}

pub(crate) struct Panel {
    /// Shown above the panel: "IOPS", "Read MB/s", "latency".
    pub title: String,
    pub log: bool,
    pub fmt: fn(f64) -> String,
    pub lines: Vec<Line>,
    /// Plot height in pixels ([`PANEL_H`] suits most).
    pub height: f64,
}

pub(crate) struct XAxis {
    pub title: String,
    pub lo: f64,
    pub hi: f64,
    /// `(value, label)`; empty: nice ticks of `lo..hi`.
    pub ticks: Vec<(f64, String)>,
    pub fmt: fn(f64) -> String,
    /// Moments and spans drawn across every panel: a cliff, a steady window.
    pub marks: Vec<Mark>,
}

/// A vertical line at `from` (a cliff), or a shaded band from `from` to
/// `to` (a steady-state window), labelled over the first panel.
pub(crate) struct Mark {
    pub from: f64,
    pub to: Option<f64>,
    pub label: String,
    pub colour: &'static str,
}

/// The colours of the marks: a cliff is a warning, steady state is calm.
pub(crate) const CLIFF_COLOUR: &str = "#c0392b";
pub(crate) const STEADY_COLOUR: &str = "#2e8b57";

const LEFT: f64 = 78.0;
const RIGHT: f64 = 24.0;
pub(crate) const PANEL_H: f64 = 150.0;
const HEADING: f64 = 22.0;
const GAP: f64 = 14.0;
const BOTTOM: f64 = 46.0;

pub(crate) fn stacked(
    kind: &str,
    title: &str,
    x: &XAxis,
    panels: &[Panel],
    entries: &[LegendEntry],
) -> String {
    let plot_w = WIDTH - LEFT - RIGHT;
    let legend_h = legend_height(entries, plot_w);
    let top = 34.0 + legend_h + if legend_h > 0.0 { 6.0 } else { 0.0 };
    let shown = panels.len().max(1) as f64;
    let plots: f64 = if panels.is_empty() {
        PANEL_H
    } else {
        panels.iter().map(|p| p.height).sum()
    };
    let height = top + shown * HEADING + plots + (shown - 1.0) * GAP + BOTTOM;
    let mut svg = Svg::new(kind, WIDTH, height, title);
    legend(
        &mut svg,
        Area {
            x: LEFT,
            y: 34.0,
            w: plot_w,
            h: legend_h,
        },
        entries,
    );
    let xs = Scale::linear(x.lo, x.hi, LEFT, LEFT + plot_w);
    let ticks: Vec<(f64, String)> = if x.ticks.is_empty() {
        xs.ticks().into_iter().map(|t| (t, (x.fmt)(t))).collect()
    } else {
        x.ticks.clone()
    };
    let tick_px: Vec<(f64, String)> = ticks.iter().map(|(v, l)| (xs.px(*v), l.clone())).collect();
    if panels.is_empty() {
        let plot = Area {
            x: LEFT,
            y: top + HEADING,
            w: plot_w,
            h: PANEL_H,
        };
        svg.text(
            plot.x + plot.w / 2.0,
            plot.y + plot.h / 2.0,
            "middle",
            "no data",
            "",
        );
        x_axis(&mut svg, plot, &tick_px, &x.title);
        return svg.finish();
    }
    let mut y0 = top;
    for (i, p) in panels.iter().enumerate() {
        let plot = Area {
            x: LEFT,
            y: y0 + HEADING,
            w: plot_w,
            h: p.height,
        };
        svg.text(LEFT, y0 + 14.0, "start", &p.title, "font-weight=\"bold\"");
        let values = p.lines.iter().flat_map(|l| l.points.iter().map(|pt| pt.1));
        let (bottom, top_px) = (plot.y + plot.h, plot.y);
        let ys = if p.log {
            Scale::log_decades(values, bottom, top_px)
        } else {
            Scale::linear_from_zero(values.fold(0.0, f64::max) * 1.05, bottom, top_px)
        };
        y_axis(&mut svg, plot, &ys, p.fmt);
        let last = i + 1 == panels.len();
        if last {
            x_axis(&mut svg, plot, &tick_px, &x.title);
        } else {
            let no_labels: Vec<(f64, String)> =
                tick_px.iter().map(|(px, _)| (*px, String::new())).collect();
            x_axis(&mut svg, plot, &no_labels, "");
        }
        draw_marks(&mut svg, &xs, plot, &x.marks, i == 0);
        draw_lines(&mut svg, &xs, &ys, &p.lines);
        y0 += HEADING + p.height + GAP;
    }
    svg.finish()
}

fn draw_marks(svg: &mut Svg, xs: &Scale, plot: Area, marks: &[Mark], labelled: bool) {
    for m in marks {
        let x0 = xs.px(m.from).clamp(plot.x, plot.x + plot.w);
        match m.to {
            Some(to) => {
                let x1 = xs.px(to).clamp(plot.x, plot.x + plot.w);
                svg.band(
                    Area {
                        x: x0,
                        y: plot.y,
                        w: x1 - x0,
                        h: plot.h,
                    },
                    m.colour,
                    &m.label,
                );
            }
            None => svg.line(
                (x0, plot.y),
                (x0, plot.y + plot.h),
                m.colour,
                "stroke-width=\"2\" stroke-dasharray=\"4 3\" class=\"mark\"",
            ),
        }
        if labelled {
            let extra = format!(
                "fill=\"{}\" font-size=\"11\" class=\"mark-label\"",
                m.colour
            );
            svg.text(x0 + 4.0, plot.y + 12.0, "start", &m.label, &extra);
        }
    }
}

fn draw_lines(svg: &mut Svg, xs: &Scale, ys: &Scale, lines: &[Line]) {
    for l in lines {
        let finite = l
            .points
            .iter()
            .filter(|p| p.0.is_finite() && p.1.is_finite())
            .filter(|p| ys.kind == ScaleKind::Linear || p.1 > 0.0);
        let pts: Vec<(f64, f64)> = finite.clone().map(|p| (xs.px(p.0), ys.px(p.1))).collect();
        svg.polyline(&pts, l.colour, l.dashed);
        if l.markers || pts.len() == 1 {
            for (p, px) in finite.zip(&pts) {
                svg.circle(*px, 3.5, l.colour, p.2.as_deref());
            }
        }
    }
}
