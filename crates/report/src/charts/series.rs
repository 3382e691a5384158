//! One job's per-second figures (`JobResult::series`): IOPS and MB/s of
//! each direction over the measured phase. Where the timeline shows a
//! cliff between runs, this shows one inside a run (a burst bucket running
//! dry after 30 minutes), and the stalls a mean smooths away.
//!
//! Only whole intervals are drawn ([`stats::full_intervals`]): the short
//! tail of a run would show as a spike or a dip that never happened.

use super::line::{stacked, Line, Mark, Panel, XAxis, CLIFF_COLOUR, PANEL_H};
use super::scale::compact;
use super::{LegendEntry, READ_COLOUR, WRITE_COLOUR};
use crate::format::mb_per_sec;
use crate::stats;
use model::{JobResult, RunRecord, SeriesPoint};

/// A chart per job that has a series: `(job name, svg)`.
pub fn series_charts(record: &RunRecord) -> Vec<(String, String)> {
    record
        .result
        .jobs
        .iter()
        .filter_map(|j| Some((j.name.clone(), series_chart(record, j)?)))
        .collect()
}

/// `job`'s per-second chart; `None` when it has no whole interval.
pub fn series_chart(record: &RunRecord, job: &JobResult) -> Option<String> {
    let points: Vec<&SeriesPoint> = stats::full_intervals(&job.series)
        .filter(|p| p.duration_ms > 0)
        .collect();
    if points.is_empty() {
        return None;
    }
    let t = |p: &SeriesPoint| (p.start_ms + p.duration_ms) as f64 / 1000.0;
    let rate = |count: u64, p: &SeriesPoint| count as f64 * 1000.0 / p.duration_ms as f64;
    let reads = points.iter().any(|p| p.read_ios > 0);
    let writes = points.iter().any(|p| p.write_ios > 0);
    let markers = points.len() <= 60;
    let line = |colour: &'static str, f: &dyn Fn(&SeriesPoint) -> f64, unit: &str| Line {
        colour,
        dashed: false,
        markers,
        points: points
            .iter()
            .map(|p| {
                let v = f(p);
                let tip = format!("{:.0} s: {} {unit}", t(p), compact(v));
                (t(p), v, Some(tip))
            })
            .collect(),
    };
    let mut iops = Vec::new();
    let mut mbs = Vec::new();
    let mut legend: Vec<LegendEntry> = Vec::new();
    if reads {
        iops.push(line(READ_COLOUR, &|p| rate(p.read_ios, p), "read IOPS"));
        mbs.push(line(
            READ_COLOUR,
            &|p| mb_per_sec(rate(p.read_bytes, p)),
            "read MB/s",
        ));
        legend.push(("read".into(), READ_COLOUR, false));
    }
    if writes {
        iops.push(line(WRITE_COLOUR, &|p| rate(p.write_ios, p), "write IOPS"));
        mbs.push(line(
            WRITE_COLOUR,
            &|p| mb_per_sec(rate(p.write_bytes, p)),
            "write MB/s",
        ));
        legend.push(("write".into(), WRITE_COLOUR, false));
    }
    let panels = if iops.is_empty() {
        Vec::new()
    } else {
        vec![
            Panel {
                title: "IOPS".into(),
                log: false,
                fmt: compact,
                lines: iops,
                height: PANEL_H,
            },
            Panel {
                title: "MB/s".into(),
                log: false,
                fmt: compact,
                lines: mbs,
                height: PANEL_H,
            },
        ]
    };
    let end = points.iter().map(|p| t(p)).fold(0.0, f64::max);
    let cliff = crate::cliff::within_run(job);
    let marks = match cliff.detected {
        true => vec![Mark {
            from: cliff.at_seconds,
            to: None,
            label: format!(
                "cliff at {:.1} s: {} -> {} IOPS",
                cliff.at_seconds,
                compact(cliff.before_iops),
                compact(cliff.after_iops)
            ),
            colour: CLIFF_COLOUR,
        }],
        false => Vec::new(),
    };
    let x = XAxis {
        title: "seconds into the measured phase".into(),
        lo: 0.0,
        hi: end,
        ticks: Vec::new(),
        fmt: compact,
        marks,
    };
    let title = format!("run {}, job {}: per second", record.id, job.name);
    Some(stacked("series", &title, &x, &panels, &legend))
}
