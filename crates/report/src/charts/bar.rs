//! The charts of "Benchmarking the Disk Speed of IaaSes": one metric across groups, a horizontal bar per group
//! (long labels such as "google pd-standard 256GiB" stay readable) with the
//! mean ± sample standard deviation as an error bar. Bars are sorted best
//! first (highest IOPS or MB/s, lowest latency on top), as those of
//! Brian Cunnie's 2018 benchmark of cloud disks were; each keeps its group's colour. The log scale is the bonnie++ article's lesson:
//! when one disk does 300,000 IOPS and another 120, only a log axis shows both.

use super::scale::{compact, latency_us, Scale};
use super::{colour, text_px, truncate, x_axis, Area, Svg, WIDTH};
use crate::compare::{Comparison, Group, Metric, Summary};
use crate::format::count;
use std::collections::BTreeMap;

const ROW: f64 = 30.0;
const BAR: f64 = 18.0;
const TOP: f64 = 40.0;
const BOTTOM: f64 = 48.0;
const RIGHT: f64 = 84.0;
const MAX_LABEL: usize = 36;

/// A short name of a group for axes and legends: its label values, in the
/// comparison's `by` order (`aws gp2`), or `(no labels)`.
pub fn group_label(by: &[String], labels: &BTreeMap<String, String>) -> String {
    let values: Vec<&str> = if by.is_empty() {
        labels.values().map(String::as_str).collect()
    } else {
        by.iter()
            .filter_map(|k| labels.get(k).map(String::as_str))
            .collect()
    };
    if values.is_empty() {
        "(no labels)".to_string()
    } else {
        values.join(" ")
    }
}

/// A value of `metric` as its bar label: `3634`, `92.0`, `850 us`.
pub fn value_text(metric: Metric, v: f64) -> String {
    match metric {
        Metric::Iops => format!("{v:.0}"),
        Metric::ReadMbPerS | Metric::WriteMbPerS => format!("{v:.1}"),
        Metric::P99LatencyUs => latency_us(v),
    }
}

/// The tick labels of `metric`'s axis.
pub fn tick_format(metric: Metric) -> fn(f64) -> String {
    match metric {
        Metric::P99LatencyUs => latency_us,
        _ => compact,
    }
}

/// The axis title: `IOPS (higher is better)`.
fn axis_title(metric: Metric) -> String {
    let better = if metric.lower_is_better() {
        "lower"
    } else {
        "higher"
    };
    format!("{} ({better} is better)", metric.title())
}

/// A bar per group of `metric`, with ± stddev error bars, on a linear or log axis.
pub fn bar_chart(c: &Comparison, metric: Metric, log: bool) -> String {
    // (colour index, label, summary), best first, groups without the figure last.
    let mut rows: Vec<(usize, &Group, Option<&Summary>)> = c
        .groups
        .iter()
        .enumerate()
        .map(|(i, g)| (i, g, g.summary(metric)))
        .collect();
    rows.sort_by(|a, b| {
        let key = |s: Option<&Summary>| match s {
            None => f64::INFINITY,
            Some(s) if metric.lower_is_better() => s.mean,
            Some(s) => -s.mean,
        };
        key(a.2).total_cmp(&key(b.2))
    });
    let labels: Vec<String> = rows
        .iter()
        .map(|(_, g, _)| truncate(&group_label(&c.by, &g.labels), MAX_LABEL))
        .collect();
    let left = labels.iter().map(|l| text_px(l)).fold(90.0, f64::max) + 18.0;
    let plot = Area {
        x: left,
        y: TOP,
        w: WIDTH - left - RIGHT,
        h: ROW * rows.len().max(1) as f64,
    };
    let height = TOP + plot.h + BOTTOM;
    let scale_note = if log { ", log scale" } else { "" };
    // "mean ± sd" only where some bar has a spread to show.
    let what = match rows.iter().any(|r| r.2.is_some_and(Summary::has_spread)) {
        true => "mean ± sd",
        false => "one run each",
    };
    let title = format!("{} by group ({what}{scale_note})", metric.title());
    let mut svg = Svg::new(if log { "bar-log" } else { "bar" }, WIDTH, height, &title);
    let extent = rows
        .iter()
        .filter_map(|r| r.2)
        .flat_map(|s| [s.mean, s.mean + s.stddev, s.mean - s.stddev]);
    let (x0, x1) = (plot.x, plot.x + plot.w);
    let scale = if log {
        Scale::log_decades(extent, x0, x1)
    } else {
        Scale::linear_from_zero(extent.fold(0.0, f64::max), x0, x1)
    };
    let fmt = tick_format(metric);
    let ticks: Vec<(f64, String)> = scale
        .ticks()
        .into_iter()
        .map(|t| (scale.px(t), fmt(t)))
        .collect();
    x_axis(&mut svg, plot, &ticks, &axis_title(metric));
    if rows.is_empty() {
        svg.text(
            plot.x + plot.w / 2.0,
            plot.y + ROW / 2.0 + 4.0,
            "middle",
            "no runs",
            "",
        );
    }
    for (row, ((index, group, summary), label)) in rows.iter().zip(&labels).enumerate() {
        let cy = plot.y + row as f64 * ROW + ROW / 2.0;
        svg.text(left - 8.0, cy + 4.0, "end", label, "");
        let Some(s) = summary else {
            svg.text(x0 + 6.0, cy + 4.0, "start", "n/a", "fill-opacity=\"0.7\"");
            continue;
        };
        let tip = match s.has_spread() {
            true => format!(
                "{}: {} ± {} (mean ± sd of {}; 95% CI {} to {})",
                group.name(),
                value_text(metric, s.mean),
                value_text(metric, s.stddev),
                count(s.n, "run"),
                value_text(metric, s.ci95_low),
                value_text(metric, s.ci95_high),
            ),
            false => format!(
                "{}: {} (one run: no spread)",
                group.name(),
                value_text(metric, s.mean)
            ),
        };
        let end = scale.px(s.mean);
        let bar = Area {
            x: x0,
            y: cy - BAR / 2.0,
            w: end - x0,
            h: BAR,
        };
        svg.rect(bar, colour(*index), Some(&tip));
        let (lo, hi) = (scale.px(s.mean - s.stddev), scale.px(s.mean + s.stddev));
        if s.stddev > 0.0 {
            svg.line((lo, cy), (hi, cy), "#222222", "stroke-width=\"1.5\"");
            for x in [lo, hi] {
                svg.line(
                    (x, cy - 6.0),
                    (x, cy + 6.0),
                    "#222222",
                    "stroke-width=\"1.5\"",
                );
            }
        }
        svg.text(
            end.max(hi) + 6.0,
            cy + 4.0,
            "start",
            &value_text(metric, s.mean),
            "",
        );
    }
    svg.finish()
}
