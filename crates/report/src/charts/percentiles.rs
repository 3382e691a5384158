//! Latency percentile curves, one per group, from each group's merged
//! histograms (the latency of the job that feeds IOPS, as in compare).
//!
//! The x axis is the "nines" scale, x = -log10(1 - p/100): p50, p90, p99,
//! p99.9 and p99.99 sit one step apart, so the tail, where disks differ
//! most, gets as much room as the median. y is logarithmic: a curve that
//! climbs from 200 us to 20 ms is drawn as steep as it is.
//!
//! A group with runs imported without their histograms draws curves from
//! histograms rebuilt on import: its legend says `~` approximate.

use super::bar::group_label;
use super::line::{stacked, Line, Panel, XAxis};
use super::scale::latency_us;
use super::{colour, dashed, truncate, LegendEntry};
use crate::compare::{group_runs, iops_job, merged_latency};
use crate::source;
use model::{Histogram, RunRecord};

/// The highest percentile drawn (99.99 = 4 nines).
const NINES: f64 = 4.0;
/// Points per nine.
const STEPS: usize = 40;

/// The x of percentile `p` (0 < p < 100) on the nines scale.
pub fn nines(p: f64) -> f64 {
    -(1.0 - p / 100.0).log10()
}

/// Percentile p at nines-scale position x.
fn percentile_at(x: f64) -> f64 {
    100.0 * (1.0 - 10f64.powf(-x))
}

/// `(percentile, latency us)` points of `h` from p1 to p99.99.
pub fn curve(h: &Histogram) -> Vec<(f64, f64)> {
    if h.is_empty() {
        return Vec::new();
    }
    (0..=(NINES as usize * STEPS))
        .map(|i| percentile_at(i as f64 / STEPS as f64).max(1.0))
        .map(|p| (p, h.percentile(p) as f64 / 1e3))
        .collect()
}

/// One curve per group of `records` grouped by `by`.
pub fn percentile_chart(records: &[RunRecord], by: &[String]) -> String {
    let mut lines = Vec::new();
    let mut legend: Vec<LegendEntry> = Vec::new();
    for (i, (labels, runs)) in group_runs(records, by).into_iter().enumerate() {
        let h = merged_latency(runs.iter().copied());
        if h.is_empty() {
            continue;
        }
        let name = group_label(by, &labels);
        let approximate = runs
            .iter()
            .any(|r| iops_job(&r.result).is_some_and(source::rebuilt));
        let points = curve(&h)
            .into_iter()
            .map(|(p, us)| {
                let tip = format!("{}: p{} = {}", truncate(&name, 40), pct(p), latency_us(us));
                (nines(p), us, Some(tip))
            })
            .collect();
        lines.push(Line {
            colour: colour(i),
            dashed: dashed(i),
            markers: false,
            points,
        });
        let approximate_note = match approximate {
            true => ", ~ approximate: rebuilt on import",
            false => "",
        };
        legend.push((
            format!(
                "{name} ({} I/Os{approximate_note})",
                super::scale::compact(h.count() as f64)
            ),
            colour(i),
            dashed(i),
        ));
    }
    let panels = if lines.is_empty() {
        Vec::new()
    } else {
        vec![Panel {
            title: "latency (log scale)".into(),
            log: true,
            fmt: latency_us,
            lines,
            height: 300.0,
        }]
    };
    let ticks = [50.0, 90.0, 99.0, 99.9, 99.99]
        .into_iter()
        .map(|p| (nines(p), pct(p)))
        .collect();
    let x = XAxis {
        title: "percentile (nines scale)".into(),
        lo: 0.0,
        hi: NINES,
        ticks,
        fmt: super::scale::compact,
        marks: Vec::new(),
    };
    stacked(
        "percentiles",
        "Latency percentiles of the IOPS job, all runs of a group merged",
        &x,
        &panels,
        &legend,
    )
}

/// `99.9`, `50`, `1.5`: a percentile without trailing zeros.
fn pct(p: f64) -> String {
    let s = format!("{p:.2}");
    s.trim_end_matches('0').trim_end_matches('.').to_string()
}
