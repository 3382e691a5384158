//! Charts as SVG, written by hand: a chart is a few hundred rectangles,
//! lines and labels, so a charting library would add weight and web fonts
//! or scripts where a string builder does. Every chart is a standalone SVG
//! document (for `diskbench chart`, blog posts and [`svg_to_png`]); the
//! HTML report inlines the same text.
//!
//! One file per kind of chart:
//! - [`bar`]: a metric across groups, mean with a ± stddev error bar, linear or log;
//! - [`timeline`]: a group's runs in order, where a burst-credit cliff shows
//!   (groups of two runs or more: one run is a table's job, not a chart's);
//! - [`series`]: one job's per-second IOPS and MB/s per direction;
//! - [`percentiles`]: latency percentile curves on a "nines" axis, one per group;
//! - [`png`]: rasterising with resvg.
//!
//! Colours are the Okabe-Ito palette, chosen to stay distinguishable with
//! the common colour-vision deficiencies; a group keeps its colour in
//! every chart (its index in the comparison), and lines past the eighth
//! colour are dashed. Text uses DejaVu Sans first (on every Debian with
//! `fonts-dejavu-core`, and what the PNG export finds), then the usual sans.

pub mod bar;
pub mod curve;
mod line;
pub mod percentiles;
pub mod png;
pub mod scale;
pub mod series;
pub mod timeline;

pub use bar::bar_chart;
pub use curve::curve_chart;
pub use percentiles::percentile_chart;
pub use png::{svg_to_png, PngError};
pub use series::{series_chart, series_charts};
pub use timeline::{one_run_groups, timeline_chart, timeline_charts};

use std::fmt::Write;

/// Okabe-Ito: blue, orange, bluish green, vermillion, reddish purple, sky blue, black, grey.
pub const PALETTE: [&str; 8] = [
    "#0072B2", "#E69F00", "#009E73", "#D55E00", "#CC79A7", "#56B4E9", "#000000", "#999999",
];

/// The colour of series `i` (wrapping past the palette).
pub fn colour(i: usize) -> &'static str {
    PALETTE[i % PALETTE.len()]
}

/// Whether series `i` is dashed (from the second round of colours on).
pub fn dashed(i: usize) -> bool {
    i >= PALETTE.len()
}

/// The colour of reads and of writes, the same in every chart.
pub const READ_COLOUR: &str = PALETTE[0];
pub const WRITE_COLOUR: &str = PALETTE[3];

const FONT: &str = "DejaVu Sans, Liberation Sans, Arial, Helvetica, sans-serif";
/// Estimated advance of a 12 px DejaVu Sans character, to lay out labels.
const CHAR_PX: f64 = 7.2;
pub(crate) const WIDTH: f64 = 760.0;

/// Several charts as one SVG document, one above the other (the per-job
/// charts of `diskbench chart --kind series` in the one file asked for).
/// Each keeps its own size and scales: a 1 MiB sequential job and a 4 KiB
/// random one do not share an IOPS axis well. One chart comes back as is.
pub fn column(charts: &[String]) -> String {
    if let [one] = charts {
        return one.clone();
    }
    let size = |svg: &str, attr: &str| -> f64 {
        let head = &svg[..svg.find('>').unwrap_or(svg.len())];
        let key = format!(" {attr}=\"");
        head.find(&key)
            .and_then(|at| {
                let rest = &head[at + key.len()..];
                rest[..rest.find('"')?].parse().ok()
            })
            .unwrap_or(0.0)
    };
    let width = charts.iter().map(|c| size(c, "width")).fold(0.0, f64::max);
    let mut y = 0.0;
    let mut body = String::new();
    for chart in charts {
        let nested = chart
            .trim_end()
            .replacen("<svg ", &format!("<svg x=\"0\" y=\"{y:.0}\" "), 1);
        body.push_str(&nested);
        y += size(chart, "height");
    }
    format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"chart chart-column\" \
         width=\"{width:.0}\" height=\"{y:.0}\" viewBox=\"0 0 {width:.0} {y:.0}\">{body}</svg>\n"
    )
}

/// Text for XML and HTML: `& < > " '` escaped; characters XML forbids
/// (controls other than tab and newlines) replaced, so the SVG always parses.
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            '\t' | '\n' | '\r' => out.push(c),
            c if (c as u32) < 0x20 || c == '\u{fffe}' || c == '\u{ffff}' => out.push('\u{fffd}'),
            c => out.push(c),
        }
    }
    out
}

/// `text` cut to `max` characters with an ellipsis.
pub(crate) fn truncate(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        return text.to_string();
    }
    let mut s: String = text.chars().take(max.saturating_sub(1)).collect();
    s.push('…');
    s
}

pub(crate) fn text_px(text: &str) -> f64 {
    text.chars().count() as f64 * CHAR_PX
}

/// A rectangle of the canvas.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Area {
    pub x: f64,
    pub y: f64,
    pub w: f64,
    pub h: f64,
}

/// A string builder for one SVG document.
pub(crate) struct Svg {
    out: String,
}

impl Svg {
    /// A white canvas with the title on top; `kind` becomes the class `chart-KIND`.
    pub fn new(kind: &str, width: f64, height: f64, title: &str) -> Svg {
        let t = escape(title);
        let mut out = String::new();
        let _ = write!(
            out,
            "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"chart chart-{kind}\" \
             width=\"{width:.0}\" height=\"{height:.0}\" viewBox=\"0 0 {width:.0} {height:.0}\" \
             font-family=\"{FONT}\" font-size=\"12\" role=\"img\" aria-label=\"{t}\">\
             <title>{t}</title><rect width=\"{width:.0}\" height=\"{height:.0}\" fill=\"#ffffff\"/>"
        );
        let mut svg = Svg { out };
        // Bold 15 px runs about 9.5 px a character; the full title is in <title>.
        let fits = ((width - 24.0) / 9.5) as usize;
        svg.text(
            12.0,
            22.0,
            "start",
            &truncate(title, fits),
            "font-size=\"15\" font-weight=\"bold\"",
        );
        svg
    }

    /// Text in the default colour unless `extra` sets its own `fill`.
    pub fn text(&mut self, x: f64, y: f64, anchor: &str, text: &str, extra: &str) {
        let fill = if extra.contains("fill=") {
            ""
        } else {
            "fill=\"#222222\" "
        };
        let _ = write!(
            self.out,
            "<text x=\"{x:.1}\" y=\"{y:.1}\" text-anchor=\"{anchor}\" {fill}{extra}>{}</text>",
            escape(text)
        );
    }

    pub fn line(&mut self, (x1, y1): (f64, f64), (x2, y2): (f64, f64), stroke: &str, extra: &str) {
        let _ = write!(
            self.out,
            "<line x1=\"{x1:.1}\" y1=\"{y1:.1}\" x2=\"{x2:.1}\" y2=\"{y2:.1}\" stroke=\"{stroke}\" {extra}/>"
        );
    }

    pub fn rect(&mut self, a: Area, fill: &str, tip: Option<&str>) {
        let _ = write!(
            self.out,
            "<rect x=\"{:.1}\" y=\"{:.1}\" width=\"{:.1}\" height=\"{:.1}\" fill=\"{fill}\">",
            a.x,
            a.y,
            a.w.max(0.0),
            a.h.max(0.0)
        );
        self.tip_and_close(tip, "rect");
    }

    /// A translucent band with a tooltip (a steady-state window).
    pub fn band(&mut self, a: Area, fill: &str, tip: &str) {
        let _ = write!(
            self.out,
            "<rect class=\"mark-band\" x=\"{:.1}\" y=\"{:.1}\" width=\"{:.1}\" height=\"{:.1}\" fill=\"{fill}\" fill-opacity=\"0.12\">",
            a.x,
            a.y,
            a.w.max(0.0),
            a.h.max(0.0)
        );
        self.tip_and_close(Some(tip), "rect");
    }

    pub fn circle(&mut self, (cx, cy): (f64, f64), r: f64, fill: &str, tip: Option<&str>) {
        let _ = write!(
            self.out,
            "<circle cx=\"{cx:.1}\" cy=\"{cy:.1}\" r=\"{r}\" fill=\"{fill}\">"
        );
        self.tip_and_close(tip, "circle");
    }

    fn tip_and_close(&mut self, tip: Option<&str>, tag: &str) {
        if let Some(t) = tip {
            let _ = write!(self.out, "<title>{}</title>", escape(t));
        }
        let _ = write!(self.out, "</{tag}>");
    }

    pub fn polyline(&mut self, points: &[(f64, f64)], stroke: &str, dashed: bool) {
        if points.len() < 2 {
            return;
        }
        let mut p = String::new();
        for (x, y) in points {
            let _ = write!(p, "{x:.1},{y:.1} ");
        }
        let dash = if dashed {
            " stroke-dasharray=\"6 4\""
        } else {
            ""
        };
        let _ = write!(
            self.out,
            "<polyline points=\"{}\" fill=\"none\" stroke=\"{stroke}\" stroke-width=\"2\" stroke-linejoin=\"round\"{dash}/>",
            p.trim_end()
        );
    }

    pub fn finish(mut self) -> String {
        self.out.push_str("</svg>\n");
        self.out
    }
}

/// A legend entry: name, colour, dashed.
pub(crate) type LegendEntry = (String, &'static str, bool);

/// Entries laid out left to right, wrapping within `width`: their (x, row) places.
fn legend_layout(entries: &[LegendEntry], width: f64) -> Vec<(f64, usize)> {
    let (mut x, mut row) = (0.0, 0);
    let mut places = Vec::new();
    for (name, _, _) in entries {
        let w = 28.0 + text_px(&truncate(name, 60)) + 18.0;
        if x > 0.0 && x + w > width {
            x = 0.0;
            row += 1;
        }
        places.push((x, row));
        x += w;
    }
    places
}

/// Height the legend takes in `width` (0 for no entries).
pub(crate) fn legend_height(entries: &[LegendEntry], width: f64) -> f64 {
    legend_layout(entries, width)
        .last()
        .map_or(0.0, |&(_, row)| (row + 1) as f64 * 20.0)
}

pub(crate) fn legend(svg: &mut Svg, at: Area, entries: &[LegendEntry]) {
    for ((name, colour, dashed), (x, row)) in entries.iter().zip(legend_layout(entries, at.w)) {
        let (x, y) = (at.x + x, at.y + row as f64 * 20.0 + 10.0);
        let dash = if *dashed {
            "stroke-width=\"3\" stroke-dasharray=\"6 4\""
        } else {
            "stroke-width=\"3\""
        };
        svg.line((x, y), (x + 22.0, y), colour, dash);
        svg.text(x + 28.0, y + 4.0, "start", &truncate(name, 60), "");
    }
}

/// Horizontal grid lines and labels of a y scale, on the left of `plot`.
pub(crate) fn y_axis(svg: &mut Svg, plot: Area, s: &scale::Scale, fmt: fn(f64) -> String) {
    for t in s.ticks() {
        let y = s.px(t);
        svg.line((plot.x, y), (plot.x + plot.w, y), "#dddddd", "");
        svg.text(plot.x - 6.0, y + 4.0, "end", &fmt(t), "");
    }
    svg.line((plot.x, plot.y), (plot.x, plot.y + plot.h), "#444444", "");
}

/// Vertical grid lines and labels of an x scale, under `plot`, and the axis title.
pub(crate) fn x_axis(svg: &mut Svg, plot: Area, ticks: &[(f64, String)], title: &str) {
    let bottom = plot.y + plot.h;
    for (x, label) in ticks {
        svg.line((*x, plot.y), (*x, bottom), "#eeeeee", "");
        svg.line((*x, bottom), (*x, bottom + 4.0), "#444444", "");
        svg.text(*x, bottom + 17.0, "middle", label, "");
    }
    svg.line((plot.x, bottom), (plot.x + plot.w, bottom), "#444444", "");
    svg.text(plot.x + plot.w / 2.0, bottom + 36.0, "middle", title, "");
}

#[cfg(test)]
mod tests;
