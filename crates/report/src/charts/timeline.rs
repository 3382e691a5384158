//! A group's runs one after the other: the most telling chart of Brian Cunnie's 2018 benchmark of cloud disks. GCE's
//! 20 GiB pd-standard read 98 MB/s for four runs and 6 MB/s from the fifth
//! on, AWS gp2 fell off on the 34th: a mean hides that, a timeline shows
//! it. x is the run's place in its group (oldest first; each point's
//! tooltip has its id and start time), y each metric on its own panel,
//! from zero so a drop looks as deep as it is.

use super::bar::{group_label, tick_format};
use super::line::{stacked, Line, Mark, Panel, XAxis, CLIFF_COLOUR, PANEL_H, STEADY_COLOUR};
use super::scale::nice_step;
use super::{colour, dashed};
use crate::compare::{group_runs, Metric, RunFigures};
use crate::format::{count, ctime_utc};
use crate::soak::SoakTracker;
use model::RunRecord;

/// One timeline per group of two runs or more, in the comparison's order:
/// `(group label, svg)`. A group of one run has none: four panels with one
/// dot each show nothing a table does not (see [`one_run_groups`]).
pub fn timeline_charts(records: &[RunRecord], by: &[String]) -> Vec<(String, String)> {
    group_runs(records, by)
        .into_iter()
        .enumerate()
        .filter(|(_, (_, runs))| runs.len() >= 2)
        .map(|(i, (labels, runs))| {
            let name = group_label(by, &labels);
            let svg = timeline_chart(&name, i, &runs);
            (name, svg)
        })
        .collect()
}

/// The groups [`timeline_charts`] leaves out, each with its one run:
/// `(group label, run)`, in the comparison's order.
pub fn one_run_groups<'a>(records: &'a [RunRecord], by: &[String]) -> Vec<(String, &'a RunRecord)> {
    group_runs(records, by)
        .into_iter()
        .filter_map(|(labels, runs)| match runs[..] {
            [run] => Some((group_label(by, &labels), run)),
            _ => None,
        })
        .collect()
}

/// The timeline of `runs` (already in order), drawn in colour `index`.
pub fn timeline_chart(name: &str, index: usize, runs: &[&RunRecord]) -> String {
    let figures: Vec<RunFigures> = runs.iter().map(|r| RunFigures::of(&r.result)).collect();
    let panels: Vec<Panel> = Metric::ALL
        .into_iter()
        .filter(|&m| figures.iter().any(|f| f.get(m).is_some()))
        .map(|m| Panel {
            title: m.title().to_string(),
            log: false,
            fmt: tick_format(m),
            height: PANEL_H,
            lines: vec![Line {
                colour: colour(index),
                dashed: dashed(index),
                markers: true,
                points: runs
                    .iter()
                    .zip(&figures)
                    .enumerate()
                    .filter_map(|(i, (r, f))| {
                        let v = f.get(m)?;
                        let tip = format!(
                            "run {} (id {}), {} UTC: {} {}",
                            i + 1,
                            r.id,
                            ctime_utc(r.result.started_unix_ms / 1000),
                            super::bar::value_text(m, v),
                            if m == Metric::P99LatencyUs {
                                "p99"
                            } else {
                                m.unit()
                            },
                        );
                        let tip = match r.result.warnings.first() {
                            Some(w) => format!("{tip}; warned: {w}"),
                            None => tip,
                        };
                        Some(((i + 1) as f64, v, Some(tip)))
                    })
                    .collect(),
            }],
        })
        .collect();
    let n = runs.len().max(1);
    let step = nice_step(n as f64, 10).max(1.0).round() as usize;
    let ticks = (1..=n)
        .filter(|i| *i == 1 || i % step == 0)
        .map(|i| (i as f64, i.to_string()))
        .collect();
    let x = XAxis {
        title: "run (oldest first)".into(),
        lo: 0.5,
        hi: n as f64 + 0.5,
        ticks,
        fmt: super::scale::compact,
        marks: soak_marks(runs),
    };
    let title = format!("{name}: run by run ({})", count(runs.len(), "run"));
    stacked("timeline", &title, &x, &panels, &[])
}

/// The soak's verdicts over these runs, as marks: the earliest cliff of any
/// job (a line before the run it came in, where that run's bar begins) and
/// the steady-state window when every job reached one.
fn soak_marks(runs: &[&RunRecord]) -> Vec<Mark> {
    let mut tracker = SoakTracker::default();
    for (i, r) in runs.iter().enumerate() {
        tracker.add(i as u32 + 1, &r.result);
    }
    let verdicts = tracker.verdicts();
    let mut marks = Vec::new();
    let first_cliff = verdicts
        .iter()
        .filter(|v| v.cliff.detected)
        .min_by(|a, b| a.cliff.at_seconds.total_cmp(&b.cliff.at_seconds));
    if let Some(v) = first_cliff {
        let run = v.cliff.at_run.unwrap_or(1) as f64;
        marks.push(Mark {
            from: run - 0.5,
            to: None,
            label: format!(
                "cliff in run {run}: {} {} -> {} IOPS",
                v.name,
                super::scale::compact(v.cliff.before_iops),
                super::scale::compact(v.cliff.after_iops)
            ),
            colour: CLIFF_COLOUR,
        });
    }
    let windows: Option<Vec<usize>> = verdicts
        .iter()
        .map(|v| v.steady.filter(|s| s.attained).map(|s| s.window_start))
        .collect();
    if let Some(start) = windows.and_then(|w| w.into_iter().max()) {
        let window = analysis::SteadyRules::default().window as f64;
        marks.push(Mark {
            from: start as f64 + 0.5,
            to: Some(start as f64 + window + 0.5),
            label: format!(
                "steady state, runs {}-{}",
                start + 1,
                start + window as usize
            ),
            colour: STEADY_COLOUR,
        });
    }
    marks
}
