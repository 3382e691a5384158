//! Repetition (issue 6): `--runs N`, `--duration D` and `--pause D` on
//! `run` and `fio`. A cloud disk can be fast for twenty minutes and then
//! lose most of its speed (seed 000); one run reports the burst and
//! misleads, so a soak repeats the same jobs and keeps every run.
//!
//! Each run is a run of its own in the history, saved as it finishes, and
//! written while it goes on ([`crate::live`]), so a soak of hours that is
//! killed keeps its finished runs and the series of the unfinished one up
//! to its last seconds. The runs of a soak share a [`SoakRef`] id (its
//! start time and a random suffix), whatever their labels, and are numbered
//! from 1. Both commands run the same loop ([`run`]) and differ only in how
//! they print a run, so a soak means the same thing for both.

use crate::history::SaveArgs;
use crate::live::LiveWriter;
use crate::outcome::{report_problems, stop_on_signals, Exit};
use crate::progress;
use crate::timefmt::format_utc;
use anyhow::Context;
use clap::Args;
use model::{JobSpec, RunKind, SoakRef};
use runner::{RunError, RunOptions, RunOutcome};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// The repetition flags, one struct for `run` (clap) and `fio` (split out
/// of the fio options by `history::split_own_args`).
#[derive(Args, Clone, Debug, Default)]
pub struct RepeatArgs {
    /// Repeat the measurement N times (a soak): each run is saved as it finishes
    #[arg(long, value_name = "N", value_parser = parse_runs)]
    pub runs: Option<u32>,
    /// Keep repeating until this much time has passed, e.g. 3h, 90m (with --runs: whichever
    /// comes first)
    #[arg(long, value_name = "DURATION", value_parser = parse_span)]
    pub duration: Option<Duration>,
    /// Idle this long between the runs of a soak, e.g. 30s, 5m
    #[arg(long, value_name = "DURATION", value_parser = parse_pause)]
    pub pause: Option<Duration>,
}

fn parse_runs(text: &str) -> Result<u32, String> {
    match text.trim().parse::<u32>() {
        Ok(n) if n >= 1 => Ok(n),
        _ => Err(format!(
            "'{text}' is not a number of runs: use a whole number of at least 1, e.g. --runs 30"
        )),
    }
}

fn parse_span(text: &str) -> Result<Duration, String> {
    match model::units::parse_duration(text) {
        Ok(d) if !d.is_zero() => Ok(d),
        Ok(_) => Err(format!(
            "'{text}' is too short: a soak lasts more than 0, e.g. 3h"
        )),
        Err(e) => Err(e.to_string()),
    }
}

fn parse_pause(text: &str) -> Result<Duration, String> {
    model::units::parse_duration(text).map_err(|e| e.to_string())
}

/// What the repetition flags ask for, checked.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Plan {
    pub runs: Option<u32>,
    pub duration: Option<Duration>,
    pub pause: Duration,
}

impl RepeatArgs {
    /// `None` for a single run; an error (a usage error) for `--pause` alone.
    pub fn plan(&self) -> Result<Option<Plan>, String> {
        if self.runs.is_none() && self.duration.is_none() {
            return match self.pause {
                Some(_) => Err(
                    "--pause is the idle time between repeated runs: add --runs N or --duration D"
                        .into(),
                ),
                None => Ok(None),
            };
        }
        Ok(Some(Plan {
            runs: self.runs,
            duration: self.duration,
            pause: self.pause.unwrap_or_default(),
        }))
    }
}

impl Plan {
    /// Whether another run follows `done` runs after `elapsed`: a run
    /// starts only while the duration, pause included, has not passed.
    fn more_after(&self, done: u32, elapsed: Duration) -> bool {
        self.runs.is_none_or(|n| done < n) && self.duration.is_none_or(|d| elapsed + self.pause < d)
    }
}

/// What to run, and how to keep it.
pub struct Measure<'a> {
    pub kind: RunKind,
    pub groups: &'a [Vec<JobSpec>],
    pub allow_destructive: bool,
    /// Show the progress line (on a terminal).
    pub progress: bool,
    pub save: &'a SaveArgs,
}

/// One run that just ended, for the command to print.
pub struct Finished<'a> {
    pub outcome: &'a RunOutcome,
    /// 1-based, and the planned number when `--runs` gave one.
    pub run: u32,
    pub of: Option<u32>,
    /// True for a single run and for the last run of a soak.
    pub last: bool,
    pub soak: Option<&'a SoakRef>,
    /// When the run started, from the start of the soak.
    pub at: Duration,
}

impl Finished<'_> {
    /// `run 3/30 at 0:12:34: IOPS 3634, Read 512.3 MB/s, Write 301.2 MB/s`.
    pub fn line(&self) -> String {
        let of = self.of.map(|n| format!("/{n}")).unwrap_or_default();
        let h = report::headline_figures(&self.outcome.result);
        let fig = |f: Option<report::HeadlineFigure>, decimals: usize| {
            f.map_or("-".to_string(), |f| format!("{:.decimals$}", f.value))
        };
        let mut line = format!(
            "run {}{of} at {}: IOPS {}, Read {} MB/s, Write {} MB/s",
            self.run,
            clock(self.at),
            fig(h.iops, 0),
            fig(h.read_mb_per_sec, 1),
            fig(h.write_mb_per_sec, 1)
        );
        match &self.outcome.failure {
            Some(RunError::Interrupted) => line.push_str(" (interrupted)"),
            Some(_) => line.push_str(" (failed)"),
            None => {}
        }
        line
    }
}

/// `H:MM:SS`.
fn clock(d: Duration) -> String {
    let s = d.as_secs();
    format!("{}:{:02}:{:02}", s / 3600, s / 60 % 60, s % 60)
}

/// One line of the list printed at the end of a soak.
pub struct RunLine {
    pub id: Option<i64>,
    pub started_unix_ms: u64,
    pub line: String,
}

/// What a soak (or a single run) came to.
pub struct Summary {
    pub exit: Exit,
    pub soak: Option<String>,
    pub runs: Vec<RunLine>,
    pub elapsed: Duration,
}

/// Runs the jobs once, or as the plan says, printing each run with `print`
/// and saving it as it finishes. Ctrl-C stops after saving what was
/// measured; a run that fails ends the soak (repeating an error measures
/// nothing).
pub fn run(
    m: &Measure,
    plan: Option<Plan>,
    mut print: impl FnMut(&Finished) -> anyhow::Result<()>,
) -> anyhow::Result<Summary> {
    let stop = stop_on_signals()?;
    let soak_id = plan.map(|_| new_soak_id());
    let started = Instant::now();
    let mut summary = Summary {
        exit: Exit::Ok,
        soak: soak_id.clone(),
        runs: Vec::new(),
        elapsed: Duration::ZERO,
    };
    for k in 1.. {
        let soak = soak_id.as_ref().map(|id| SoakRef {
            id: id.clone(),
            run: k,
        });
        let at = started.elapsed();
        let (outcome, written) = measure_once(m, &stop, soak.clone());
        let last =
            outcome.failure.is_some() || plan.is_none_or(|p| !p.more_after(k, started.elapsed()));
        let done = Finished {
            outcome: &outcome,
            run: k,
            of: plan.and_then(|p| p.runs),
            last,
            soak: soak.as_ref(),
            at,
        };
        print(&done)?;
        let line = done.line();
        report_problems(&outcome);
        std::io::Write::flush(&mut std::io::stdout()).context("writing results")?;
        let (exit, id) = crate::history::save_run(
            m.kind,
            &outcome.result,
            soak,
            written,
            m.save,
            Exit::of(&outcome.failure),
        );
        if summary.exit == Exit::Ok {
            summary.exit = exit;
        }
        summary.runs.push(RunLine {
            id,
            started_unix_ms: outcome.result.started_unix_ms,
            line,
        });
        if last {
            break;
        }
        if !pause(plan.map_or(Duration::ZERO, |p| p.pause), &stop) {
            eprintln!("diskbench: interrupted between runs; the runs so far are saved");
            summary.exit = Exit::Interrupted;
            break;
        }
    }
    summary.elapsed = started.elapsed();
    Ok(summary)
}

/// One run, kept in the history while it goes on unless `--no-save`.
fn measure_once(
    m: &Measure,
    stop: &std::sync::Arc<AtomicBool>,
    soak: Option<SoakRef>,
) -> (RunOutcome, crate::live::Written) {
    let (writer, hook) = match m.save.no_save {
        true => (None, None),
        false => {
            let (w, h) = LiveWriter::start(m.kind, m.save, soak);
            (Some(w), Some(h))
        }
    };
    let opts = RunOptions {
        allow_destructive: m.allow_destructive,
        stop: std::sync::Arc::clone(stop),
        progress: if m.progress { progress::bar() } else { None },
        live: hook,
        command_line: std::env::args().collect(),
    };
    let outcome = runner::run(m.groups, &opts);
    // Dropping the options drops the hook, which ends the writer.
    drop(opts);
    progress::clear();
    let written = writer.map_or(
        crate::live::Written {
            id: None,
            store: None,
        },
        LiveWriter::finish,
    );
    (outcome, written)
}

/// Idles between runs; false when a signal came meanwhile.
fn pause(d: Duration, stop: &AtomicBool) -> bool {
    let end = Instant::now() + d;
    while Instant::now() < end && !stop.load(Ordering::Relaxed) {
        std::thread::sleep((end - Instant::now()).min(Duration::from_millis(50)));
    }
    !stop.load(Ordering::Relaxed)
}

/// `20261122-143000-3f9a`: the start (UTC) sorts soaks by time, the random
/// suffix keeps two soaks started in the same second apart.
fn new_soak_id() -> String {
    use std::hash::{BuildHasher, Hasher};
    let mut h = std::collections::hash_map::RandomState::new().build_hasher();
    h.write_u32(std::process::id());
    h.write_u128(
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos()),
    );
    let stamp: String = format_utc(crate::timefmt::now_ms())
        .chars()
        .filter_map(|c| match c {
            ' ' => Some('-'),
            '-' | ':' => None,
            c => Some(c),
        })
        .collect();
    format!("{stamp}-{:04x}", h.finish() & 0xffff)
}

/// The list that ends a soak's text output: one line per run.
pub fn list_text(s: &Summary) -> String {
    let Some(id) = &s.soak else {
        return String::new();
    };
    let mut out = format!(
        "\nsoak {id}: {} run{} in {} (diskbench history --soak {id})\n",
        s.runs.len(),
        if s.runs.len() == 1 { "" } else { "s" },
        clock(s.elapsed)
    );
    for r in &s.runs {
        let saved =
            r.id.map_or("not saved".to_string(), |id| format!("history run {id}"));
        out.push_str(&format!(
            "  {} ({}, started {} UTC)\n",
            r.line,
            saved,
            format_utc(r.started_unix_ms)
        ));
    }
    out
}

/// The JSON of a soak: every run's own document, in order, under `runs`.
pub fn soak_json(s: &Summary, plan: &Plan, docs: &[String]) -> String {
    let runs: Vec<serde_json::Value> = docs
        .iter()
        .map(|d| serde_json::from_str(d).unwrap_or_else(|_| serde_json::Value::String(d.clone())))
        .collect();
    let ids: Vec<Option<i64>> = s.runs.iter().map(|r| r.id).collect();
    let doc = serde_json::json!({
        "soak": {
            "id": s.soak,
            "runs": runs.len(),
            "planned_runs": plan.runs,
            "duration_limit_s": plan.duration.map(|d| d.as_secs_f64()),
            "pause_s": plan.pause.as_secs_f64(),
            "elapsed_s": s.elapsed.as_secs_f64(),
            "history_ids": ids,
        },
        "runs": runs,
    });
    serde_json::to_string_pretty(&doc).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_plan_says_when_to_stop() {
        let s = Duration::from_secs;
        let p = Plan {
            runs: Some(3),
            duration: None,
            pause: Duration::ZERO,
        };
        assert!(p.more_after(2, s(100)) && !p.more_after(3, s(0)));
        let p = Plan {
            runs: None,
            duration: Some(s(3)),
            pause: Duration::from_millis(200),
        };
        assert!(p.more_after(9, s(2)));
        assert!(
            !p.more_after(1, Duration::from_millis(2900)),
            "the pause counts"
        );
        let both = Plan { runs: Some(2), ..p };
        assert!(!both.more_after(2, s(0)));
    }

    #[test]
    fn bad_repetition_flags_are_usage_errors() {
        assert!(parse_runs("0").unwrap_err().contains("at least 1"));
        assert!(parse_runs("-2").is_err() && parse_runs("x").is_err());
        assert!(parse_span("0s").unwrap_err().contains("more than 0"));
        assert!(parse_span("3 hours")
            .unwrap_err()
            .contains("not a duration"));
        assert_eq!(parse_span("3h"), Ok(Duration::from_secs(3 * 3600)));
        assert_eq!(parse_pause("0"), Ok(Duration::ZERO));
        let pause_alone = RepeatArgs {
            pause: Some(Duration::from_secs(1)),
            ..RepeatArgs::default()
        };
        assert!(pause_alone.plan().unwrap_err().contains("--runs"));
        assert_eq!(RepeatArgs::default().plan(), Ok(None));
    }

    #[test]
    fn soak_ids_are_a_time_and_a_random_suffix() {
        let (a, b) = (new_soak_id(), new_soak_id());
        assert_eq!(a.len(), "20261122-143000-3f9a".len(), "{a}");
        assert!(a.as_bytes()[8] == b'-' && a.as_bytes()[15] == b'-', "{a}");
        assert!(a[..8].bytes().all(|c| c.is_ascii_digit()), "{a}");
        assert!(b[16..].bytes().all(|c| c.is_ascii_hexdigit()), "{b}");
    }
}
