//! Repetition: `--runs N`, `--duration D` and `--pause D` on
//! `run` and `fio`. A cloud disk can be fast for twenty minutes and then
//! lose most of its speed (the IaaS disk-speed study); one run reports the burst and
//! misleads, so a soak repeats the same jobs and keeps every run.
//!
//! Each run is a run of its own in the history, saved as it finishes, and
//! written while it goes on ([`crate::live`]), so a soak of hours that is
//! killed keeps its finished runs and the series of the unfinished one up
//! to its last seconds. The runs of a soak share a [`SoakRef`] id (its
//! start time and a random suffix), whatever their labels, and are numbered
//! from 1. Both commands run the same loop ([`run`]) and differ only in how
//! they print a run, so a soak means the same thing for both. Each soak
//! ends with each job's lowest, median and highest figures across its runs
//! ([`spread`]), in every output form. With `--metrics-listen` the runs
//! are also shown live ([`crate::metrics`]).

pub mod spread;

use crate::history::SaveArgs;
use crate::live::LiveWriter;
use crate::outcome::{report_problems, stop_on_signals, Exit};
use crate::progress;
use anyhow::Context;
use clap::Args;
use dates::format_utc;
use model::{JobSpec, RunKind, SoakRef};
use report::soak::{JobVerdict, SoakTracker};
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
    /// Repeat until a throttling cliff is confirmed (at most --max-duration, default 24h)
    #[arg(long, conflicts_with = "until_steady")]
    pub until_throttled: bool,
    /// Repeat until steady state (SNIA: 5 runs within 20% range, 10% slope; at most 25 runs)
    #[arg(long)]
    pub until_steady: bool,
    /// The longest --until-throttled or --until-steady may go on, e.g. 6h
    #[arg(long, value_name = "DURATION", value_parser = parse_span)]
    pub max_duration: Option<Duration>,
    /// After the runs, when a cliff was found: idle this long, run once more,
    /// and report how much came back, e.g. 10m
    #[arg(long, value_name = "DURATION", value_parser = parse_pause)]
    pub recovery_check: Option<Duration>,
    /// Repeat until every job's median IOPS is known within this, e.g. 3%: the half-width of
    /// its 95% interval (order statistics; at least 6 runs) under this share of the median
    #[arg(long, value_name = "PCT", value_parser = parse_ci, conflicts_with_all = ["until_throttled", "until_steady"])]
    pub ci: Option<f64>,
    /// The most runs --ci may take (default 20)
    #[arg(long, value_name = "N", value_parser = parse_runs, requires = "ci")]
    pub max_rounds: Option<u32>,
}

/// What ends a soak besides its number of runs and its duration.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Until {
    Throttled,
    Steady,
    /// Every job's median IOPS within this percentage (95% interval half-width).
    Precise(f64),
}

/// `--ci` without `--max-rounds`: 20 runs give an interval of the median
/// between the 6th and 15th values, enough for a few percent on a quiet disk.
pub(crate) const DEFAULT_MAX_CI_RUNS: u32 = 20;

/// `--ci 3%` or `--ci 3`: a percentage above 0 and below 100.
pub(crate) fn parse_ci(text: &str) -> Result<f64, String> {
    match text.trim().trim_end_matches('%').parse::<f64>() {
        Ok(p) if p > 0.0 && p < 100.0 => Ok(p),
        _ => Err(format!(
            "'{text}' is not a precision: give the interval's half-width as a percentage of \
             the median, above 0 and below 100, e.g. --ci 3%"
        )),
    }
}

/// `--until-throttled` stops after a day at most unless told otherwise.
const DEFAULT_MAX_THROTTLED: Duration = Duration::from_secs(24 * 3600);
/// SNIA's PTS gives up on steady state after 25 rounds.
const DEFAULT_MAX_STEADY_RUNS: u32 = 25;

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
    pub until: Option<Until>,
    /// Idle this long after the runs and measure again (`--recovery-check`).
    pub recovery: Option<Duration>,
}

impl RepeatArgs {
    /// `None` for a single run; an error (a usage error) for flags that
    /// mean nothing without others (`--pause` alone, `--max-duration`
    /// without an `--until-*`).
    pub fn plan(&self) -> Result<Option<Plan>, String> {
        let until = match (self.until_throttled, self.until_steady, self.ci) {
            (true, _, _) => Some(Until::Throttled),
            (_, true, _) => Some(Until::Steady),
            (_, _, Some(pct)) => Some(Until::Precise(pct)),
            _ => None,
        };
        if self.max_duration.is_some() && until.is_none() {
            return Err("--max-duration bounds --until-throttled or --until-steady: add one, or use --duration D for a soak of fixed length".into());
        }
        if self.runs.is_none()
            && self.duration.is_none()
            && until.is_none()
            && self.recovery_check.is_none()
        {
            return match self.pause {
                Some(_) => Err(
                    "--pause is the idle time between repeated runs: add --runs N or --duration D"
                        .into(),
                ),
                None => Ok(None),
            };
        }
        let mut plan = Plan {
            runs: self.runs,
            duration: self.duration.or(self.max_duration),
            pause: self.pause.unwrap_or_default(),
            until,
            recovery: self.recovery_check,
        };
        match until {
            Some(Until::Throttled) if plan.runs.is_none() && plan.duration.is_none() => {
                plan.duration = Some(DEFAULT_MAX_THROTTLED)
            }
            Some(Until::Steady) if plan.runs.is_none() && plan.duration.is_none() => {
                plan.runs = Some(DEFAULT_MAX_STEADY_RUNS)
            }
            Some(Until::Precise(_)) if plan.runs.is_none() => {
                plan.runs = Some(self.max_rounds.unwrap_or(DEFAULT_MAX_CI_RUNS))
            }
            None if plan.runs.is_none() && plan.duration.is_none() => plan.runs = Some(1),
            _ => {}
        }
        Ok(Some(plan))
    }
}

impl Plan {
    /// Whether another run follows `done` runs after `elapsed`: a run
    /// starts only while the duration, pause included, has not passed, and
    /// while what `--until-*` waits for has not come.
    fn more_after(
        &self,
        done: u32,
        elapsed: Duration,
        verdicts: &[JobVerdict],
        spreads: &[spread::JobSpread],
    ) -> bool {
        let arrived = match self.until {
            Some(Until::Throttled) => report::soak::throttled(verdicts),
            Some(Until::Steady) => report::soak::steady(verdicts),
            Some(Until::Precise(pct)) => spread::precise(spreads, pct),
            None => false,
        };
        !arrived
            && self.runs.is_none_or(|n| done < n)
            && self.duration.is_none_or(|d| elapsed + self.pause < d)
    }

    /// Says what an `--until-*` soak waited for and whether it came.
    fn until_outcome(
        &self,
        verdicts: &[JobVerdict],
        spreads: &[spread::JobSpread],
    ) -> Option<(bool, &'static str)> {
        match self.until? {
            Until::Throttled => Some((report::soak::throttled(verdicts), "a throttling cliff")),
            Until::Steady => Some((report::soak::steady(verdicts), "steady state")),
            Until::Precise(pct) => Some((
                spread::precise(spreads, pct),
                "the precision --ci asked for",
            )),
        }
    }
}

/// A second consumer of the runner's live seconds, shared by the runs of a soak.
pub type Watch = std::sync::Arc<dyn Fn(&runner::LiveUpdate) + Send + Sync>;

/// What to run, and how to keep it.
pub struct Measure<'a> {
    pub kind: RunKind,
    pub groups: &'a [Vec<JobSpec>],
    pub allow_destructive: bool,
    pub safety: crate::history::SafetyArgs,
    /// `--inject-fault`: for testing only; the result carries a warning.
    pub faults: &'a [model::FaultRule],
    /// fio's `[global]` options, for the JSON's `global options`.
    pub global_options: &'a [(String, String)],
    /// When to show the progress line.
    pub progress: crate::progress::Settings,
    /// Also receives the live seconds (fio's `--status-interval`), beside the history's writer.
    pub watch: Option<Watch>,
    pub save: &'a SaveArgs,
    /// `--metrics-listen`: the endpoint that shows the runs as they go.
    pub metrics: Option<&'a crate::metrics::Metrics>,
    /// Time-based jobs stop once their figure is stable (`run`'s suite).
    pub stable_stop: Option<model::StableStop>,
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
    /// `run 3/30 at 0:12:34: IOPS 3634, Read 512.3 MB/s, Write 301.2 MB/s`;
    /// a figure the run has not is `n/a` without its unit (`Write n/a`).
    pub fn line(&self) -> String {
        let of = self.of.map(|n| format!("/{n}")).unwrap_or_default();
        let h = report::headline_figures(&self.outcome.result);
        let fig = |f: Option<report::HeadlineFigure>, decimals: usize, unit: &str| {
            f.map_or("n/a".to_string(), |f| {
                format!("{:.decimals$}{unit}", f.value)
            })
        };
        let mut line = format!(
            "run {}{of} at {}: IOPS {}, Read {}, Write {}",
            self.run,
            clock(self.at),
            fig(h.iops, 0, ""),
            fig(h.read_mb_per_sec, 1, " MB/s"),
            fig(h.write_mb_per_sec, 1, " MB/s")
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
    /// Each job's cliff, steady state and recovery over the soak's runs.
    pub verdicts: Vec<JobVerdict>,
    /// Each job's min / median / max across the runs (the recovery run left out).
    pub spreads: Vec<spread::JobSpread>,
    /// What `--until-*` waited for and whether it came: (attained, what).
    pub until: Option<(bool, &'static str)>,
    /// Sentences about how the soak ended, for the text output.
    pub notes: Vec<String>,
    /// Each job's cliff over the runs against the declared volume's (`--volume`).
    pub volume_cliffs: Vec<model::volume::CliffVerdict>,
}

impl Summary {
    fn new(soak: Option<String>) -> Summary {
        Summary {
            exit: Exit::Ok,
            soak,
            runs: Vec::new(),
            elapsed: Duration::ZERO,
            verdicts: Vec::new(),
            spreads: Vec::new(),
            until: None,
            notes: Vec::new(),
            volume_cliffs: Vec::new(),
        }
    }

    /// Saves one run in the history and keeps its line; the soak's exit is
    /// the first run's that was not ok.
    fn save(
        &mut self,
        m: &Measure,
        outcome: &runner::RunOutcome,
        soak: Option<SoakRef>,
        written: crate::live::Written,
        line: String,
    ) {
        let (exit, id) = crate::history::save_run(
            m.kind,
            &outcome.result,
            soak,
            written,
            m.save,
            Exit::of(&outcome.failure),
        );
        if self.exit == Exit::Ok {
            self.exit = exit;
        }
        self.runs.push(RunLine {
            id,
            started_unix_ms: outcome.result.started_unix_ms,
            line,
        });
    }
}

/// Runs the jobs once, or as the plan says, printing each run with `print`
/// and saving it as it finishes. Ctrl-C stops after saving what was
/// measured; a run that fails ends the soak (repeating an error measures
/// nothing). With `--recovery-check` and a cliff, one more run follows the
/// idle time; it is saved as a run of the soak but left out of the verdicts.
pub fn run(
    m: &Measure,
    plan: Option<Plan>,
    mut print: impl FnMut(&Finished) -> anyhow::Result<()>,
) -> anyhow::Result<Summary> {
    let stop = stop_on_signals()?;
    // Before any figure, and once for a soak: the target is memory, a
    // network share or FUSE (report_problems leaves these out).
    for w in runner::target_warnings(m.groups) {
        eprintln!("warning: {w}");
    }
    let soak_id = plan.map(|_| new_soak_id());
    let volume = crate::volume::VolumeContext::start(m);
    let started = Instant::now();
    let mut summary = Summary::new(soak_id.clone());
    let mut tracker = SoakTracker::default();
    let mut spreads = spread::SpreadTracker::default();
    // The verdicts over the runs so far (the recovery run left out).
    let mut verdicts: Vec<JobVerdict> = Vec::new();
    // One workspace for every run: files are laid out once, removed at the end.
    let mut ws = runner::Workspace::default();
    // Set when the run about to start is the recovery run: how long it idled.
    let mut recovering: Option<Duration> = None;
    for k in 1.. {
        let soak = soak_id.as_ref().map(|id| SoakRef {
            id: id.clone(),
            run: k,
        });
        let at = started.elapsed();
        let prefix = soak.as_ref().map(|_| match plan.and_then(|p| p.runs) {
            Some(n) if recovering.is_none() => format!("run {k}/{n}"),
            _ if recovering.is_some() => format!("run {k} (recovery)"),
            _ => format!("run {k}"),
        });
        if let Some(metrics) = m.metrics {
            metrics.run_started(soak.as_ref(), plan.and_then(|p| p.runs));
        }
        let (mut outcome, written) = measure_once(m, &stop, &mut ws, soak.clone(), prefix);
        volume.annotate(&mut outcome.result, k > 1);
        if recovering.is_none() {
            tracker.add(k, &outcome.result);
            verdicts = tracker.verdicts();
            spreads.add(&outcome.result);
        }
        if let Some(metrics) = m.metrics {
            metrics.run_finished(&outcome.result, &verdicts);
        }
        let failed = outcome.failure.is_some();
        let (more, recover_next) = match (failed, recovering) {
            (false, None) => next_step(plan, k, started.elapsed(), &verdicts, &spreads.spreads()),
            _ => (false, false),
        };
        let last = !more && !recover_next;
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
        summary.save(m, &outcome, soak, written, line);
        if let (Some(idle), false) = (recovering, failed) {
            summary.verdicts = tracker.with_recovery(&outcome.result, idle.as_secs_f64());
        }
        if last {
            break;
        }
        let idle = match (recover_next, plan.and_then(|p| p.recovery)) {
            (true, Some(idle)) => {
                eprintln!(
                    "diskbench: a cliff was found; idling {} before run {} to see what comes back",
                    clock(idle),
                    k + 1
                );
                recovering = Some(idle);
                idle
            }
            _ => plan.map_or(Duration::ZERO, |p| p.pause),
        };
        if !pause(idle, &stop) {
            eprintln!("diskbench: interrupted between runs; the runs so far are saved");
            summary.exit = Exit::Interrupted;
            break;
        }
    }
    finish(&mut summary, plan, &verdicts, &spreads, started.elapsed());
    if summary.soak.is_some() {
        summary.volume_cliffs =
            volume.soak_cliffs(&summary.verdicts, summary.elapsed.as_secs_f64());
    }
    Ok(summary)
}

/// After run `k` went well and was not the recovery run: whether another
/// run follows (`more`), or else the recovery run after a cliff.
fn next_step(
    plan: Option<Plan>,
    k: u32,
    elapsed: Duration,
    verdicts: &[JobVerdict],
    spreads: &[spread::JobSpread],
) -> (bool, bool) {
    let Some(p) = plan else {
        return (false, false);
    };
    let more = p.more_after(k, elapsed, verdicts, spreads);
    let recover = !more && p.recovery.is_some() && verdicts.iter().any(|v| v.cliff.detected);
    (more, recover)
}

/// The soak's closing figures: its time, the spread across runs, whether
/// `--until` came, and the notes on what was not done.
fn finish(
    summary: &mut Summary,
    plan: Option<Plan>,
    verdicts: &[JobVerdict],
    spreads: &spread::SpreadTracker,
    elapsed: Duration,
) {
    summary.elapsed = elapsed;
    summary.spreads = spreads.spreads();
    summary.until = plan.and_then(|p| p.until_outcome(verdicts, &summary.spreads));
    if summary.verdicts.is_empty() {
        summary.verdicts = verdicts.to_vec();
    }
    if let Some(p) = &plan {
        if let Some((false, what)) = summary.until {
            summary.notes.push(format!(
                "{what} did not come within the limit ({})",
                limit_text(p)
            ));
        }
        let cliff = summary.verdicts.iter().any(|v| v.cliff.detected);
        if p.recovery.is_some() && !cliff && summary.exit == Exit::Ok {
            summary
                .notes
                .push("no cliff was found, so there was nothing to recover from: --recovery-check skipped".into());
        }
    }
}

fn limit_text(p: &Plan) -> String {
    match (p.runs, p.duration) {
        (Some(n), Some(d)) => format!("{n} runs or {}", clock(d)),
        (Some(n), None) => format!("{n} runs"),
        (None, Some(d)) => clock(d),
        (None, None) => "none".into(),
    }
}

/// One run, kept in the history while it goes on unless `--no-save`.
pub(crate) fn measure_once(
    m: &Measure,
    stop: &std::sync::Arc<AtomicBool>,
    ws: &mut runner::Workspace,
    soak: Option<SoakRef>,
    prefix: Option<String>,
) -> (RunOutcome, crate::live::Written) {
    let (writer, history_hook) = match m.save.no_save {
        true => (None, None),
        false => {
            let (w, h) = LiveWriter::start(m.kind, m.save, soak);
            (Some(w), Some(h))
        }
    };
    let metrics_hook = m.metrics.map(crate::metrics::Metrics::hook);
    let opts = RunOptions {
        allow_destructive: m.allow_destructive,
        allow_mounted_write: m.safety.allow_mounted_write,
        allow_overwrite: m.safety.allow_overwrite,
        readonly: m.safety.readonly,
        stop: std::sync::Arc::clone(stop),
        progress: progress::bar(prefix, m.progress),
        live: runner::fan_out(
            history_hook
                .into_iter()
                .chain(metrics_hook)
                .chain(m.watch.clone().map(watcher_hook))
                .collect(),
        ),
        live_latency: m.metrics.is_some(),
        command_line: crate::history::command_line(),
        global_options: m.global_options.to_vec(),
        faults: m.faults.to_vec(),
        stable_stop: m.stable_stop,
    };
    let outcome = runner::run_in(m.groups, &opts, ws);
    // Dropping the options drops the hook, which ends the writer.
    drop(opts);
    progress::clear();
    let written = writer.map_or_else(crate::live::Written::none, LiveWriter::finish);
    (outcome, written)
}

/// The command's own watcher (shared by the runs of a soak) as one run's hook.
fn watcher_hook(watch: Watch) -> runner::LiveFn {
    Box::new(move |u: &runner::LiveUpdate| watch(u))
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
pub(crate) fn new_soak_id() -> String {
    use std::hash::{BuildHasher, Hasher};
    let mut h = std::collections::hash_map::RandomState::new().build_hasher();
    h.write_u32(std::process::id());
    h.write_u128(
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos()),
    );
    let stamp: String = format_utc(dates::now_ms())
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
    out.push_str(&spread::text(&s.spreads));
    if !s.verdicts.is_empty() {
        out.push_str("\nOver the runs:\n");
        out.push_str(&report::soak::text(&s.verdicts));
    }
    if let Some((true, what)) = s.until {
        out.push_str(&format!("Stopped: {what} came.\n"));
    }
    for note in &s.notes {
        out.push_str(&format!("Note: {note}.\n"));
    }
    for c in &s.volume_cliffs {
        out.push_str(&format!("Volume: {}: {}.\n", c.job, c.sentence));
    }
    out
}

/// The soak's summary for `--output-format=terse`, after the runs' terse
/// lines. fio's terse format has no soak, so these are diskbench's own
/// lines, semicolon-separated as fio's are, each starting with its kind and
/// the format's version (1); an empty field is "none":
///
/// - `diskbench-soak;1;ID;RUNS;ELAPSED_S;PLANNED_RUNS;DURATION_LIMIT_S;PAUSE_S;UNTIL;ATTAINED`
///   (`UNTIL` is what `--until-*` waited for, `ATTAINED` 1 or 0);
/// - per run, `diskbench-soak-run;1;N;HISTORY_ID;STARTED_UNIX_MS`;
/// - per job, `diskbench-soak-job;1;NAME;RUNS;CLIFF;CLIFF_AT_RUN;IOPS_BEFORE;IOPS_AFTER;DROP_PCT;STEADY`
///   (`CLIFF` 1 or 0; `STEADY` 1 or 0, empty with fewer runs than SNIA's window);
/// - per job, `diskbench-soak-spread;1;NAME;RUNS;IOPS_MIN;IOPS_MEDIAN;IOPS_MAX;MBPS_MIN;MBPS_MEDIAN;MBPS_MAX;P99_CLAT_US_MIN;P99_CLAT_US_MEDIAN;P99_CLAT_US_MAX`
///   (across the runs; MB = 10^6 bytes).
pub fn soak_terse(s: &Summary, plan: &Plan) -> String {
    let Some(id) = &s.soak else {
        return String::new();
    };
    let opt = |v: Option<String>| v.unwrap_or_default();
    let flag = |b: bool| if b { "1" } else { "0" }.to_string();
    let mut out = format!(
        "diskbench-soak;1;{id};{};{:.3};{};{};{:.3};{};{}\n",
        s.runs.len(),
        s.elapsed.as_secs_f64(),
        opt(plan.runs.map(|n| n.to_string())),
        opt(plan.duration.map(|d| format!("{:.3}", d.as_secs_f64()))),
        plan.pause.as_secs_f64(),
        opt(s.until.map(|(_, what)| what.to_string())),
        opt(s.until.map(|(attained, _)| flag(attained))),
    );
    for (n, r) in s.runs.iter().enumerate() {
        out.push_str(&format!(
            "diskbench-soak-run;1;{};{};{}\n",
            n + 1,
            opt(r.id.map(|id| id.to_string())),
            r.started_unix_ms
        ));
    }
    for v in &s.verdicts {
        let c = &v.cliff;
        out.push_str(&format!(
            "diskbench-soak-job;1;{};{};{};{};{:.0};{:.0};{:.1};{}\n",
            v.name,
            v.runs,
            flag(c.detected),
            opt(c.at_run.filter(|_| c.detected).map(|r| r.to_string())),
            c.before_iops,
            c.after_iops,
            c.drop_pct,
            opt(v.steady.as_ref().map(|st| flag(st.attained))),
        ));
    }
    for sp in &s.spreads {
        out.push_str(&spread::terse(sp));
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
    let mut jobs = report::soak::to_json(&s.verdicts);
    for job in jobs.as_array_mut().into_iter().flatten() {
        let sp = s.spreads.iter().find(|sp| job["name"] == sp.name.as_str());
        if let Some(sp) = sp {
            job["across_runs"] = spread::to_json(sp);
        }
    }
    let doc = serde_json::json!({
        "soak": {
            "id": s.soak,
            "runs": runs.len(),
            "planned_runs": plan.runs,
            "duration_limit_s": plan.duration.map(|d| d.as_secs_f64()),
            "pause_s": plan.pause.as_secs_f64(),
            "elapsed_s": s.elapsed.as_secs_f64(),
            "history_ids": ids,
            "until": s.until.map(|(attained, what)| serde_json::json!({
                "waited_for": what,
                "attained": attained,
            })),
            "recovery_check_s": plan.recovery.map(|d| d.as_secs_f64()),
            "jobs": jobs,
            "volume_cliffs": s.volume_cliffs,
        },
        "runs": runs,
    });
    serde_json::to_string_pretty(&doc).unwrap_or_default()
}

#[cfg(test)]
mod tests;
