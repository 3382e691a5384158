//! The soak loop of `run` and `fio` (`--runs N`, `--duration D`,
//! `--pause D`, `--until-*`, `--ci`; a single run is a soak of one): each
//! run measured, printed by the command, saved as it finishes and written
//! while it goes on (`history::live`), so a soak of hours that is killed
//! keeps its finished runs and the series of the unfinished one up to its
//! last seconds. When to stop and what the runs came to are the `soak`
//! crate's; this is the part that runs, prints and saves. With
//! `--metrics-listen` the runs are also shown live (the `metrics` crate).

use crate::args::{SafetyArgs, SaveArgs};
use crate::outcome::{report_error, report_findings, report_problems, stop_on_signals, Exit};
use crate::progress;
use anyhow::Context;
use history::{LiveWriter, Written};
use model::{JobSpec, RunKind, SoakRef};
use report::soak::{JobVerdict, SoakTracker};
use runner::{RunOptions, RunOutcome};
use soak::{clock, spread, Finished, Plan, RunLine, Summary};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// A second consumer of the runner's live seconds, shared by the runs of a soak.
pub type Watch = std::sync::Arc<dyn Fn(&runner::LiveUpdate) + Send + Sync>;

/// A command's own checks of a finished run (`report::sanity`'s verdicts),
/// kept with it as warnings and said each kind once.
pub type Checks = dyn Fn(&model::RunResult) -> Vec<report::sanity::Verdict>;

/// A command's checks and how it says them.
#[derive(Clone, Copy)]
pub struct RunChecks<'a> {
    pub verdicts: &'a Checks,
    /// The kinds kept in the result but not said on stderr: a quick run's
    /// `too-short`, which its headline says once instead.
    pub unsaid: &'a [&'a str],
    /// `--explain`: each test's whole text under each line.
    pub explain: bool,
}

/// A command's own reading of a finished run (`fit`'s verdicts), kept in
/// the run as its workload report so the history shows it again.
pub type Describe = dyn Fn(&model::RunResult) -> Option<model::WorkloadReport>;

/// What to run, and how to keep it.
pub struct Measure<'a> {
    pub kind: RunKind,
    pub groups: &'a [Vec<JobSpec>],
    pub allow_destructive: bool,
    pub safety: SafetyArgs,
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
    pub metrics: Option<&'a metrics::Metrics>,
    /// Time-based jobs stop once their figure is stable (`run`'s suite).
    pub stable_stop: Option<model::StableStop>,
    /// The command's own checks of a finished run's figures (`run`'s
    /// too-short and sanity verdicts): kept in the result as
    /// `Warning::Check`, so the history says them again, and said on
    /// stderr each kind once.
    pub checks: Option<RunChecks<'a>>,
    /// The command's reading of each run, made after the volume's verdicts
    /// are in the result and before it is printed and saved.
    pub describe: Option<&'a Describe>,
    /// Warnings known before the run (what the job file asks that diskbench
    /// carries out differently), added to each run's result.
    pub notes: &'a [model::Warning],
    /// Whether the trust checks (the result's warnings) are printed on
    /// stderr: always for diskbench's own commands; for `diskbench fio`
    /// only when asked, since fio's stderr holds only errors and fio's own
    /// warnings and tools that read it take any other byte for a failure.
    pub checks_on_stderr: bool,
    /// fio's `--debug=io`: each completed I/O handed to this hook.
    pub io_trace: Option<runner::trace::IoTraceFn>,
}

impl<'a> Measure<'a> {
    /// A diskbench command's plain measurement of `groups`: no faults, no
    /// fio globals, no live watchers, its checks on stderr; the caller sets
    /// what its command adds (`..Measure::plain(...)`).
    pub fn plain(
        kind: RunKind,
        groups: &'a [Vec<JobSpec>],
        save: &'a SaveArgs,
        progress: crate::progress::Settings,
    ) -> Self {
        Measure {
            kind,
            groups,
            allow_destructive: false,
            safety: SafetyArgs::default(),
            faults: &[],
            global_options: &[],
            progress,
            watch: None,
            save,
            metrics: None,
            stable_stop: None,
            checks: None,
            describe: None,
            notes: &[],
            checks_on_stderr: true,
            io_trace: None,
        }
    }
}

/// Saves one run in the history and keeps its line in `summary`; the
/// soak's `exit` is the first run's that was not ok.
fn save(
    summary: &mut Summary,
    exit_so_far: &mut Exit,
    m: &Measure,
    outcome: &runner::RunOutcome,
    soak: Option<SoakRef>,
    written: Written,
    line: String,
) {
    let (exit, id) = crate::save::save_run(
        m.kind,
        &outcome.result,
        soak,
        written,
        m.save,
        Exit::of(&outcome.failure),
    );
    if *exit_so_far == Exit::Ok {
        *exit_so_far = exit;
    }
    summary.runs.push(RunLine {
        id,
        started_unix_ms: outcome.result.started_unix_ms,
        line,
    });
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
) -> anyhow::Result<(Summary, Exit)> {
    let stop = stop_on_signals()?;
    // Before any figure, and once for a soak: the target is memory, a
    // network share or FUSE (report_problems leaves these out).
    if m.checks_on_stderr {
        for w in runner::target_warnings(m.groups) {
            eprintln!("warning: {w}");
        }
    }
    let soak_id = plan.map(|_| soak::new_soak_id());
    let volume = crate::volume::VolumeContext::start(m.save.tags.volume.as_ref(), m.groups);
    let started = Instant::now();
    let mut summary = Summary::new(soak_id.clone());
    let mut exit = Exit::Ok;
    let mut tracker = SoakTracker::default();
    let mut spreads = spread::SpreadTracker::default();
    // The verdicts over the runs so far (the recovery run left out).
    let mut verdicts: Vec<JobVerdict> = Vec::new();
    // One workspace for every run: files are laid out once, removed at the
    // end; `diskbench fio` leaves them as fio does, for the next job or run.
    let mut ws = match m.kind {
        RunKind::Fio => runner::Workspace::keeping(),
        _ => runner::Workspace::default(),
    };
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
        let verdicts_found = m.checks.map(|c| (c.verdicts)(&outcome.result));
        for v in verdicts_found.iter().flatten() {
            outcome.result.warnings.push(model::Warning::Check {
                name: v.kind.to_string(),
                job: Some(v.job.clone()),
                text: v.text.clone(),
            });
        }
        if let Some(describe) = m.describe {
            outcome.result.workload = describe(&outcome.result);
        }
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
            (false, None) => {
                soak::next_step(plan, k, started.elapsed(), &verdicts, &spreads.spreads())
            }
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
        match (m.checks_on_stderr, m.kind) {
            (false, _) => report_error(&outcome),
            (true, RunKind::Fio) => report_problems(&outcome),
            (true, _) => {
                // A soak's checks are said once, of its last run.
                let said: Vec<_> = match last || soak.is_none() {
                    true => verdicts_found.unwrap_or_default(),
                    false => Vec::new(),
                };
                let unsaid = m.checks.map_or(&[][..], |c| c.unsaid);
                report_findings(
                    &outcome,
                    &said,
                    unsaid,
                    m.checks.is_some_and(|c| c.explain),
                    None,
                );
            }
        }
        std::io::Write::flush(&mut std::io::stdout()).context("writing results")?;
        save(&mut summary, &mut exit, m, &outcome, soak, written, line);
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
            exit = Exit::Interrupted;
            break;
        }
    }
    soak::finish(
        &mut summary,
        plan,
        &verdicts,
        &spreads,
        started.elapsed(),
        exit == Exit::Ok,
    );
    if summary.soak.is_some() {
        summary.volume_cliffs =
            volume.soak_cliffs(&summary.verdicts, summary.elapsed.as_secs_f64());
    }
    Ok((summary, exit))
}

/// One run, kept in the history while it goes on unless `--no-save`.
pub(crate) fn measure_once(
    m: &Measure,
    stop: &std::sync::Arc<AtomicBool>,
    ws: &mut runner::Workspace,
    soak: Option<SoakRef>,
    prefix: Option<String>,
) -> (RunOutcome, Written) {
    let (writer, history_hook) = match m.save.no_save {
        true => (None, None),
        false => {
            let keeping = m.save.tags.keeping(m.save.db.db.clone());
            let (w, h) = LiveWriter::start(m.kind, &keeping, soak, |e| {
                eprintln!(
                    "\ndiskbench: cannot keep the run in the history while it goes on: {}; \
                     the run goes on, and is saved at its end if the database allows it then",
                    crate::save::with_causes(e)
                )
            });
            (Some(w), Some(h))
        }
    };
    let metrics_hook = m.metrics.map(metrics::Metrics::hook);
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
        command_line: history::command_line(),
        global_options: m.global_options.to_vec(),
        faults: m.faults.to_vec(),
        stable_stop: m.stable_stop,
        io_trace: m.io_trace.clone(),
    };
    let mut outcome = runner::run_in(m.groups, &opts, ws);
    let notes = m.notes.iter().cloned();
    outcome.result.warnings.splice(0..0, notes);
    // Dropping the options drops the hook, which ends the writer.
    drop(opts);
    progress::clear();
    let written = writer.map_or_else(Written::none, LiveWriter::finish);
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
