//! A workload's verdicts over a soak (`diskbench fit etcd DIR --duration
//! 10m`): a cloud volume with burst credits can be fit at minute 1 and
//! not once the credits are spent, and a single run says only the first.
//! Each run of the soak is a window with its own verdicts; this answers
//! "when did it stop being fit, and which rule broke first", in words and
//! as JSON.

use crate::judge::{Judged, Report, Verdict};
use crate::text::figure;
use serde::{Deserialize, Serialize};
use std::fmt::Write as _;

/// One run of the soak, judged.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Window {
    /// 1-based.
    pub run: u32,
    /// When the run started, seconds from the start of the soak.
    pub at_s: f64,
    pub report: Report,
}

/// When a soak's workload stopped being fit.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Stopped {
    /// The first run that broke a requirement after runs that kept them all.
    pub run: u32,
    pub at_s: f64,
    /// The requirements that run broke, in words.
    pub broken: Vec<String>,
    /// The runs after it that were fit again (a refilled bucket, a quieter disk).
    pub fit_again: Vec<u32>,
}

/// The whole soak's answer.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Over {
    pub workload: String,
    pub windows: Vec<Window>,
    /// `Some` when the first run was fit and a later one was not.
    pub stopped_being_fit: Option<Stopped>,
    /// Every run fit.
    pub fit_throughout: bool,
}

/// `m:ss`, or `h:mm:ss` past an hour.
pub fn clock(secs: f64) -> String {
    let s = secs.max(0.0).round() as u64;
    match s / 3600 {
        0 => format!("{}:{:02}", s / 60, s % 60),
        h => format!("{h}:{:02}:{:02}", s / 60 % 60, s % 60),
    }
}

/// A broken requirement in a few words: "WAL fdatasync p99 31.0 ms, 3.1x the limit".
fn broken(j: &Judged) -> String {
    let value = j
        .measured
        .as_ref()
        .map_or("not measured".to_string(), |m| figure(j.figure, m.value));
    let margin = match (j.ratio, j.figure.larger_is_better()) {
        (Some(r), false) => format!(", {r:.1}x the limit"),
        (Some(r), true) => format!(", {:.0}% of the minimum", r * 100.0),
        (None, _) => String::new(),
    };
    format!("{} {value}{margin}", j.label)
}

/// The soak's windows, judged together.
pub fn over(workload: &str, windows: Vec<Window>) -> Over {
    let first_fit = windows.first().is_some_and(|w| w.report.fit == Some(true));
    let stop = windows
        .iter()
        .position(|w| w.report.fit == Some(false))
        .filter(|_| first_fit);
    let stopped_being_fit = stop.map(|i| {
        let w = &windows[i];
        Stopped {
            run: w.run,
            at_s: w.at_s,
            broken: w
                .report
                .requirements
                .iter()
                .filter(|j| j.verdict == Verdict::NotFit)
                .map(broken)
                .collect(),
            fit_again: windows[i + 1..]
                .iter()
                .filter(|w| w.report.fit == Some(true))
                .map(|w| w.run)
                .collect(),
        }
    });
    Over {
        workload: workload.to_string(),
        fit_throughout: !windows.is_empty() && windows.iter().all(|w| w.report.fit == Some(true)),
        windows,
        stopped_being_fit,
    }
}

/// One window's line: "run 3 at 1:20: not fit: WAL fdatasync p99 31.0 ms, 3.1x the limit".
pub fn window_line(w: &Window) -> String {
    let answer = match w.report.fit {
        Some(true) => "fit".to_string(),
        Some(false) => {
            let b: Vec<String> = w
                .report
                .requirements
                .iter()
                .filter(|j| j.verdict == Verdict::NotFit)
                .map(broken)
                .collect();
            format!("not fit: {}", b.join("; "))
        }
        None => "no verdict".to_string(),
    };
    let figures: Vec<String> = w
        .report
        .requirements
        .iter()
        .filter_map(|j| {
            Some(format!(
                "{} {}",
                j.label,
                figure(j.figure, j.measured.as_ref()?.value)
            ))
        })
        .collect();
    format!(
        "run {} at {}: {answer} ({})",
        w.run,
        clock(w.at_s),
        figures.join(", ")
    )
}

/// The soak's answer in words, after the windows' lines.
pub fn text(o: &Over) -> String {
    let mut out = String::new();
    let n = o.windows.len();
    let last_at = o.windows.last().map_or(0.0, |w| w.at_s);
    let answer = match (&o.stopped_being_fit, o.windows.first()) {
        _ if o.fit_throughout => format!(
            "fit in every one of its {n} run{} (the last started at {})",
            if n == 1 { "" } else { "s" },
            clock(last_at)
        ),
        (Some(s), _) => {
            let mut t = format!(
                "stopped being fit at run {} of {n}, {} into the soak: {}",
                s.run,
                clock(s.at_s),
                s.broken.join("; ")
            );
            match s.fit_again.as_slice() {
                [] => t.push_str("; not fit again after it"),
                again => {
                    let runs: Vec<String> = again.iter().map(u32::to_string).collect();
                    let _ = write!(t, "; fit again in run{} {}", plural(again.len()), runs.join(", "));
                }
            }
            t
        }
        (None, Some(first)) if first.report.fit == Some(false) => {
            format!("not fit from the first run on ({n} runs)")
        }
        _ => format!("no verdict over its {n} runs (a rule without a published limit, or a check that measured nothing)"),
    };
    let _ = writeln!(out, "{} over the soak: {answer}", o.workload);
    out
}

fn plural(n: usize) -> &'static str {
    if n == 1 {
        ""
    } else {
        "s"
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use model::{JobResult, JobSpec, RunResult};

    /// A run of etcd's two checks whose every sync took `sync_ms`.
    fn etcd_run(sync_ms: f64) -> Report {
        let mut jobs = Vec::new();
        for name in ["etcd-wal", "etcd-backend"] {
            let mut job = JobResult::empty(&JobSpec::new(name), 0, 1);
            for _ in 0..1000 {
                job.sync.record((sync_ms * 1e6) as u64);
                job.write.clat.record(1_000);
            }
            job.write.ios = 1000;
            job.runtime_ns = 1_000_000_000;
            jobs.push(job);
        }
        let result = RunResult {
            jobs,
            ..Default::default()
        };
        crate::judge(crate::catalogue::find("etcd").unwrap(), &result)
    }

    fn windows(ms: &[f64]) -> Vec<Window> {
        ms.iter()
            .enumerate()
            .map(|(i, &m)| Window {
                run: i as u32 + 1,
                at_s: i as f64 * 30.0,
                report: etcd_run(m),
            })
            .collect()
    }

    #[test]
    fn the_first_run_that_breaks_a_rule_after_fit_ones_is_named_with_its_time() {
        let o = over("etcd", windows(&[2.0, 2.0, 31.0, 40.0]));
        let s = o.stopped_being_fit.as_ref().unwrap();
        assert_eq!((s.run, s.at_s), (3, 60.0));
        assert!(
            s.broken[0].contains("WAL fdatasync p99 31.0 ms, 3.1x the limit"),
            "{s:?}"
        );
        assert!(s.fit_again.is_empty());
        assert!(!o.fit_throughout);
        let t = text(&o);
        assert!(
            t.contains("stopped being fit at run 3 of 4, 1:00 into the soak"),
            "{t}"
        );
        assert!(t.contains("not fit again after it"), "{t}");
        assert!(window_line(&o.windows[2]).starts_with("run 3 at 1:00: not fit: WAL"));
        assert!(window_line(&o.windows[0]).starts_with("run 1 at 0:00: fit ("));
    }

    #[test]
    fn fit_throughout_and_never_fit_are_told_apart_from_a_stop() {
        let fit = over("etcd", windows(&[2.0, 3.0]));
        assert!(fit.fit_throughout && fit.stopped_being_fit.is_none());
        assert!(text(&fit).contains("fit in every one of its 2 runs"));
        let never = over("etcd", windows(&[31.0, 2.0]));
        assert!(!never.fit_throughout && never.stopped_being_fit.is_none());
        assert!(text(&never).contains("not fit from the first run on"));
        let back = over("etcd", windows(&[2.0, 31.0, 2.0]));
        assert_eq!(back.stopped_being_fit.unwrap().fit_again, vec![3]);
    }

    #[test]
    fn clock_reads_minutes_and_hours() {
        assert_eq!(clock(65.4), "1:05");
        assert_eq!(clock(3725.0), "1:02:05");
    }
}
