//! Turns validated jobs into a [`RunResult`]: prepares files, starts one
//! thread per clone with its own engine, stops them on time, size or signal,
//! and merges what they measured.
//!
//! Groups run one after another; the jobs of a group run at the same time,
//! as fio runs the jobs of one command line (until `stonewall`). The suites
//! put each test in its own group.

mod atomic;
mod blocksizes;
mod budget;
mod clock;
mod dedupe;
mod diskstats;
mod distribution;
mod draw;
mod error;
mod exits;
mod files;
mod fileset;
mod fill;
mod flow;
mod groupids;
pub mod guard;
mod job_path;
mod job_warnings;
mod laid_out;
mod live;
mod logs;
pub mod notice;
pub mod offsets;
mod one_file;
mod opfiles;
mod plan;
mod preflight;
pub mod probe;
mod rate;
mod record;
mod region;
mod stale;
mod steady;
pub mod trace;
mod verify_state;
mod worker;

pub use error::{IoError, RunError};
pub use files::{remove_test_dirs, LaidOut, Workspace};
pub use groupids::of_run as groupids;
pub use live::{fan_out, LiveLatency};
use preflight::{check_free_space, check_places, check_readonly, not_a_local_disk, targets_of};
pub use preflight::{check_targets, layout_bytes, target_warnings};
pub use verify_state::StateError;

use clock::Clock;
use diskstats::DiskWatch;
use model::result::SCHEMA_VERSION;
use model::{EngineKind, JobResult, JobSpec, RunResult, Warning};
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::mpsc::RecvTimeoutError;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};
use steady::SteadyWatch;
use worker::{run_worker, Shared, WorkerOutcome, WorkerPlan};

pub const TOOL_VERSION: &str = concat!("diskbench-", env!("CARGO_PKG_VERSION"));

/// Receives progress about four times a second while a group runs.
pub type ProgressFn = Box<dyn Fn(&Progress) + Send + Sync>;

/// Receives each worker's finished seconds while a group runs (see [`LiveUpdate`]).
pub type LiveFn = Box<dyn Fn(&LiveUpdate) + Send + Sync>;

pub struct RunOptions {
    /// Write to a block device that holds a signature or was not made by diskbench.
    pub allow_destructive: bool,
    /// Write to a mounted device even so (fio's `allow_mounted_write`).
    pub allow_mounted_write: bool,
    /// Write to a regular file that diskbench did not create.
    pub allow_overwrite: bool,
    /// Refuse every job that writes (fio's `--readonly`).
    pub readonly: bool,
    /// Set by a signal handler (or a test) to stop the run early.
    pub stop: Arc<AtomicBool>,
    pub progress: Option<ProgressFn>,
    /// Called from the runner's own thread (never a worker's) shortly after
    /// workers finish a second, so a slow consumer (the history) can delay
    /// the next call but never a measurement.
    pub live: Option<LiveFn>,
    /// Also hand the live hook each second's latency histograms
    /// ([`LiveUpdate::latencies`]): two histogram copies per worker and
    /// second, so only for a listener that shows latency as the run goes on.
    pub live_latency: bool,
    pub command_line: Vec<String>,
    /// fio's `[global]` options, carried into the result for its JSON.
    pub global_options: Vec<(String, String)>,
    /// `--inject-fault`: I/Os every worker's engine makes fail or lie, to
    /// test error handling and verification (the result says so in a warning).
    pub faults: Vec<model::FaultRule>,
    /// Time-based jobs may stop before their runtime once their figure is
    /// stable (`diskbench run`'s suite); `None`: every job runs its runtime.
    pub stable_stop: Option<model::StableStop>,
    /// fio's `--debug=io`: each completed I/O handed to this hook.
    pub io_trace: Option<trace::IoTraceFn>,
}

impl Default for RunOptions {
    fn default() -> Self {
        RunOptions {
            allow_destructive: false,
            allow_mounted_write: false,
            allow_overwrite: false,
            readonly: false,
            stop: Arc::new(AtomicBool::new(false)),
            progress: None,
            live: None,
            live_latency: false,
            command_line: Vec::new(),
            global_options: Vec::new(),
            faults: Vec::new(),
            stable_stop: None,
            io_trace: None,
        }
    }
}

/// What a run has measured so far, for keeping it while it goes on: the
/// seconds the workers finished since the last call, and the context to
/// read them in.
pub struct LiveUpdate<'a> {
    /// The run so far: host, targets and command line, and the complete
    /// results of the groups that already ended (none of the current one).
    pub result: &'a RunResult,
    /// The group running now, named by its first job's `JobResult::groupid`,
    /// and its jobs with each one's `groupid` (`new_group` can split a
    /// group that runs together into several).
    pub group: u32,
    pub jobs: &'a [JobSpec],
    pub groupids: &'a [u32],
    /// The new seconds, each with its job's position in `jobs` and its clone.
    pub points: &'a [model::LivePoint],
    /// The same seconds' latency histograms, when `RunOptions::live_latency`
    /// asked for them (else empty).
    pub latencies: &'a [LiveLatency],
}

pub struct Progress<'a> {
    pub label: String,
    pub elapsed: Duration,
    /// The group's planned duration, when it is time-bound.
    pub planned: Option<Duration>,
    pub ios: u64,
    /// The group's finished seconds of the measured phase so far (all its
    /// jobs and clones added up), for the live view's rate and sparkline.
    pub seconds: &'a [model::SeriesPoint],
}

/// The result (complete or partial) and, if the run stopped early, why.
pub struct RunOutcome {
    pub result: RunResult,
    pub failure: Option<RunError>,
    /// The job clones that found their files missing or short and laid
    /// them out, in order (fio's `Laying out IO file` lines).
    pub laid_out: Vec<LaidOut>,
}

fn unix_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as u64)
}

pub fn run(groups: &[Vec<JobSpec>], opts: &RunOptions) -> RunOutcome {
    run_in(groups, opts, &mut Workspace::default())
}

/// [`run`] with test files in `ws`: a soak passes the same workspace to each
/// run, so its files are laid out once (a cloud disk's burst credits are
/// not spent on writing the same gigabyte again) and removed when the soak
/// drops it.
pub fn run_in(groups: &[Vec<JobSpec>], opts: &RunOptions, ws: &mut Workspace) -> RunOutcome {
    let mut result = RunResult {
        schema_version: SCHEMA_VERSION,
        tool_version: TOOL_VERSION.to_string(),
        command_line: opts.command_line.clone(),
        global_options: opts.global_options.clone(),
        started_unix_ms: unix_ms(),
        host: probe::host(),
        targets: targets_of(groups),
        ..RunResult::default()
    };
    if !opts.faults.is_empty() {
        let faults = opts.faults.iter().map(|f| f.to_string()).collect();
        result.warnings.push(Warning::FaultsInjected { faults });
    }
    result
        .warnings
        .extend(result.targets.iter().filter_map(not_a_local_disk));
    ws.start_run();
    let mut failure = check_readonly(groups, opts)
        .and_then(|()| check_places(groups))
        .and_then(|()| check_free_space(groups, &result.targets, ws))
        .err();
    // As in fio, a job that fails ends alone: the rest of its group and
    // the later groups still run, and the run fails at the end.
    let mut failed_jobs = Vec::new();
    if failure.is_none() {
        let clock = Clock::new();
        logs::new_run();
        let mut disks = DiskWatch::new(groups);
        // `exit_what=all`, `exitall_on_error`: no later group starts.
        let rest_of_run = Arc::new(AtomicBool::new(false));
        let dedupe = dedupe::DedupeShares::of(groups);
        let mut first_id = 0;
        let started = std::time::Instant::now();
        for (done, group) in groups.iter().enumerate() {
            let group = &*budget::share(
                group,
                opts.stable_stop,
                started.elapsed(),
                groups.len() - done,
            );
            if rest_of_run.load(Ordering::Relaxed) {
                break;
            }
            let ids = groupids::of(group, first_id);
            first_id = groupids::next(&ids, first_id);
            let place = (&clock, &rest_of_run, &dedupe);
            match run_group(&ids, group, opts, place, &mut disks, ws, &mut result) {
                Ok(errors) => failed_jobs.extend(errors),
                Err(e) => {
                    failure = Some(e);
                    break;
                }
            }
            if opts.stop.load(Ordering::Relaxed) {
                failure = Some(RunError::Interrupted);
                break;
            }
        }
        result.disk_util = disks.result();
    }
    if failure.is_none() {
        failure = jobs_failed(failed_jobs);
    }
    if let Some(f) = &failure {
        result.fail(f.failure());
        // Bad input leaves nothing behind, where files are kept too.
        if f.kind() == model::FailureKind::Usage {
            ws.remove_created();
        }
    }
    result.finished_unix_ms = unix_ms();
    let laid_out = ws.take_laid_out();
    RunOutcome {
        result,
        failure,
        laid_out,
    }
}

/// The run's error when jobs failed: the first job's, and how many more
/// failed (each job's own error is in its result).
fn jobs_failed(errors: Vec<RunError>) -> Option<RunError> {
    (!errors.is_empty()).then_some(RunError::JobsFailed(errors))
}

struct Clone_ {
    job: usize,
    plan: WorkerPlan,
}

/// Runs one group's jobs at the same time; `ids` are their `groupid`s, and
/// the first one names the group in the live updates.
fn run_group(
    ids: &[u32],
    group: &[JobSpec],
    opts: &RunOptions,
    (clock, rest_of_run, dedupe): (&Clock, &Arc<AtomicBool>, &dedupe::DedupeShares),
    disks: &mut DiskWatch,
    ws: &mut Workspace,
    result: &mut RunResult,
) -> Result<Vec<RunError>, RunError> {
    let gid = ids[0];
    let mut watch = Watch::of(group);
    let mut clones = plan_group(gid, group, opts, ws, (&watch, dedupe), result)?;
    let exit = group_exit(ids, &clones, rest_of_run);
    for c in &mut clones {
        c.plan.group_exit = Some(Arc::clone(&exit));
    }
    let io_clones = clones
        .iter()
        .filter(|c| c.plan.spec.engine != EngineKind::Cpuio)
        .count();
    let shared = shared_state(clock, opts, &watch, io_clones);
    let planned = group
        .iter()
        .filter(|s| s.time_based)
        .filter_map(|s| s.runtime.map(|r| r + s.ramp_time))
        .max();
    let label = group
        .iter()
        .map(|s| s.name.as_str())
        .collect::<Vec<_>>()
        .join(", ");
    let started = Instant::now();
    let jobs_of: Vec<usize> = clones.iter().map(|c| c.job).collect();
    let snapshot: &RunResult = result;
    // After the files are laid out and the engines opened: the jobs' I/O only.
    let disk_start = disks.start();
    // Each worker says when it is done, so the disks are read as the last
    // one ends, not at the next 50 ms tick: their wall time is util's divisor.
    let (done_tx, done) = std::sync::mpsc::channel::<()>();
    let (mut outcomes, disk_stretch) = std::thread::scope(|scope| {
        let handles: Vec<_> = clones
            .into_iter()
            .map(|c| {
                let shared = &shared;
                let done_tx = done_tx.clone();
                scope.spawn(move || {
                    let outcome = run_worker(c.plan, shared);
                    let _ = done_tx.send(());
                    outcome
                })
            })
            .collect();
        drop(done_tx);
        let mut running = handles.len();
        loop {
            match done.recv_timeout(Duration::from_millis(50)) {
                Ok(()) => running -= 1,
                // Every worker ended, a panicked one without saying so.
                Err(RecvTimeoutError::Disconnected) => running = 0,
                Err(RecvTimeoutError::Timeout) => {}
            }
            if running == 0 {
                break;
            }
            pass_live(opts, &shared, snapshot, ids, group, &mut watch);
            if let Some(progress) = &opts.progress {
                progress(&Progress {
                    label: label.clone(),
                    elapsed: started.elapsed(),
                    planned,
                    ios: shared.ios_done.load(Ordering::Relaxed),
                    seconds: &watch.seconds,
                });
            }
        }
        let disk_stretch = disks.stop(disk_start);
        pass_live(opts, &shared, snapshot, ids, group, &mut watch);
        let outcomes: Vec<WorkerOutcome> = handles
            .into_iter()
            .map(|h| h.join().expect("a worker panicked"))
            .collect();
        (outcomes, disk_stretch)
    });

    let issued = diskstats::issued_by_job(group.len(), &outcomes, &jobs_of);
    let errors = record_group(ids, group, &mut outcomes, &jobs_of, &watch, result);
    diskstats::device_warnings(group, &issued, &disk_stretch, &mut result.warnings);
    Ok(errors)
}

/// What stops each job of the group early (`exitall` and the like): the
/// first clone's stop, shared by its clones, and the run's.
fn group_exit(
    ids: &[u32],
    clones: &[Clone_],
    rest_of_run: &Arc<AtomicBool>,
) -> Arc<exits::GroupExit> {
    Arc::new(exits::GroupExit {
        stops: (0..ids.len())
            .map(|j| {
                let first = clones.iter().find(|c| c.job == j);
                first
                    .and_then(|c| c.plan.job_stop.clone())
                    .unwrap_or_default()
            })
            .collect(),
        groupids: ids.to_vec(),
        rest_of_run: Arc::clone(rest_of_run),
    })
}

/// What the workers share: the clock, the stop flag, the I/O count, and
/// the finished seconds (and their latencies) when someone reads them.
fn shared_state(clock: &Clock, opts: &RunOptions, watch: &Watch, io_clones: usize) -> Shared {
    Shared {
        clock: clock.clone(),
        io_clones_left: AtomicUsize::new(io_clones),
        stop: Arc::clone(&opts.stop),
        ios_done: AtomicU64::new(0),
        // Collected for the history's live series, the progress line and steadystate.
        live: (opts.live.is_some()
            || opts.progress.is_some()
            || watch.steady.iter().any(Option::is_some))
        .then(|| Mutex::new(Vec::new())),
        live_latency: (opts.live.is_some() && opts.live_latency).then(|| Mutex::new(Vec::new())),
        io_trace: opts.io_trace.clone(),
    }
}

/// One worker plan per clone of each job of the group, numbered as fio
/// numbers threads over the whole run (log file names use it).
fn plan_group(
    gid: u32,
    group: &[JobSpec],
    opts: &RunOptions,
    ws: &mut Workspace,
    (watch, dedupe): (&Watch, &dedupe::DedupeShares),
    result: &mut RunResult,
) -> Result<Vec<Clone_>, RunError> {
    let mut clones = Vec::new();
    let threads_before: u32 = result.jobs.iter().map(|j| j.clones).sum();
    let flows = flow::of_group(group);
    for (j, spec) in group.iter().enumerate() {
        let spec = Arc::new(fill::sized(spec)?);
        // Ends all of this job's clones (and only them): its steadystate
        // was reached, or one of them failed.
        let job_stop = match &watch.steady[j] {
            Some(w) => Arc::clone(&w.stop),
            None => Arc::new(AtomicBool::new(false)),
        };
        for c in 0..spec.numjobs.max(1) {
            let mine = clone_spec(&spec, c);
            let mut plan = plan::plan_clone(&mine, c, ws, opts, &mut result.warnings)?;
            plan.place = (gid, j as u32);
            plan.job_stop = Some(Arc::clone(&job_stop));
            plan.flow = flow::FlowShare::of(&spec, &flows);
            plan.thread_number = threads_before + clones.len() as u32 + 1;
            plan.dedupe = dedupe.get(plan.thread_number);
            clones.push(Clone_ { job: j, plan });
        }
    }
    Ok(clones)
}

/// Clone `clone`'s own copy of the job where fio's `offset_increment`
/// moves it: `offset + clone * increment`.
fn clone_spec(spec: &Arc<JobSpec>, clone: u32) -> Arc<JobSpec> {
    match spec.offset_steps.increment {
        0 => Arc::clone(spec),
        step => {
            let mut moved = JobSpec::clone(spec);
            moved.offset_bytes += u64::from(clone) * step;
            Arc::new(moved)
        }
    }
}

/// The group's jobs into the result, with their warnings; returns each
/// failed job's first error.
///
/// Entries follow fio's rule, read off its output: job by job, clone by
/// clone, a clone of a job with `group_reporting` joins the entry before it
/// when that entry is of the same reporting group; any other clone starts
/// an entry of its own. So `group_reporting` in `[global]` gives one entry
/// per reporting group, named for its first job, with every job's I/O;
/// set on one job only, that job's clones join the entry before them
/// (which may be another job's, as in fio); an entry's `jobs` counts its
/// clones.
fn record_group(
    ids: &[u32],
    group: &[JobSpec],
    outcomes: &mut [WorkerOutcome],
    jobs_of: &[usize],
    watch: &Watch,
    result: &mut RunResult,
) -> Vec<RunError> {
    let mut errors = Vec::new();
    // Each entry: the job that started it, and the clones in it.
    let mut entries: Vec<(usize, Vec<&WorkerOutcome>)> = Vec::new();
    for (j, spec) in group.iter().enumerate() {
        let mine: Vec<&WorkerOutcome> = outcomes
            .iter()
            .zip(jobs_of)
            .filter(|(_, &job)| job == j)
            .map(|(o, _)| o)
            .collect();
        for &clone in &mine {
            match entries.last_mut() {
                Some((first, part)) if spec.group_reporting && ids[*first] == ids[j] => {
                    part.push(clone)
                }
                _ => entries.push((j, vec![clone])),
            }
        }
        let engine_used = result_engine(spec, &result.warnings);
        job_warnings::add(spec, engine_used, &mine, &result.host, &mut result.warnings);
    }
    for (j, part) in entries {
        let spec = &group[j];
        let engine_used = result_engine(spec, &result.warnings);
        let mut job = merge(ids[j], spec, engine_used, &part);
        job.steadystate = watch.steady[j].as_ref().map(SteadyWatch::result);
        result.jobs.push(job);
    }
    for j in 0..group.len() {
        // One error per job, the first of its clones'.
        let first = outcomes
            .iter_mut()
            .zip(jobs_of)
            .filter(|(_, &job)| job == j)
            .find_map(|(o, _)| o.error.take());
        errors.extend(first);
    }
    errors
}

/// What the runner's thread keeps of the workers' seconds while a group runs.
struct Watch {
    /// The group's seconds, all jobs and clones added up, for the progress line.
    seconds: Vec<model::SeriesPoint>,
    /// Each job's `steadystate` watch, by its place in the group.
    steady: Vec<Option<SteadyWatch>>,
}

impl Watch {
    fn of(group: &[JobSpec]) -> Watch {
        Watch {
            seconds: Vec::new(),
            steady: group
                .iter()
                .map(|s| {
                    s.steadystate
                        .map(|ss| SteadyWatch::new(ss, s.numjobs.max(1)))
                })
                .collect(),
        }
    }
}

/// Hands the workers' newly finished seconds to the live hook, adds them up
/// into the group's seconds for the progress line, and lets each job's
/// steady-state watch judge them.
fn pass_live(
    opts: &RunOptions,
    shared: &Shared,
    result: &RunResult,
    ids: &[u32],
    jobs: &[JobSpec],
    watch: &mut Watch,
) {
    let Some(pending) = &shared.live else {
        return;
    };
    let points = std::mem::take(&mut *pending.lock().unwrap_or_else(|e| e.into_inner()));
    if points.is_empty() {
        return;
    }
    // Taken after the points, as each worker pushes them before its points:
    // a second's latencies come with its point or one update before it.
    let latencies = shared.live_latency.as_ref().map_or(Vec::new(), |l| {
        std::mem::take(&mut *l.lock().unwrap_or_else(|e| e.into_inner()))
    });
    for p in &points {
        if let Some(Some(w)) = watch.steady.get_mut(p.job as usize) {
            w.add(&p.point);
        }
    }
    for w in watch.steady.iter_mut().flatten() {
        w.judge();
    }
    if opts.progress.is_some() {
        let seconds = &mut watch.seconds;
        for p in &points {
            let i = (p.point.start_ms / 1000) as usize;
            if seconds.len() <= i {
                seconds.resize(i + 1, model::SeriesPoint::default());
            }
            if seconds[i].duration_ms == 0 {
                seconds[i].start_ms = p.point.start_ms;
            }
            seconds[i].add(&p.point);
        }
    }
    if let Some(live) = &opts.live {
        live(&LiveUpdate {
            result,
            group: ids[0],
            jobs,
            groupids: ids,
            points: &points,
            latencies: &latencies,
        });
    }
}

/// The engine that ran a job: the one asked for, unless a fallback was recorded.
fn result_engine(spec: &JobSpec, warnings: &[Warning]) -> EngineKind {
    warnings
        .iter()
        .find_map(|w| match w {
            Warning::EngineFallback { job, used, .. } if *job == spec.name => {
                EngineKind::parse(used)
            }
            _ => None,
        })
        .unwrap_or(spec.engine)
}

fn merge(gid: u32, spec: &JobSpec, engine: EngineKind, parts: &[&WorkerOutcome]) -> JobResult {
    let mut job = JobResult {
        engine,
        ..JobResult::empty(spec, gid, parts.len() as u32)
    };
    for p in parts {
        job.read.merge(&p.read);
        job.write.merge(&p.write);
        job.trim.merge(&p.trim);
        job.sync.merge(&p.sync);
        job.runtime_ns = job.runtime_ns.max(p.runtime_ns);
        job.cpu.add(&p.cpu);
        for (i, point) in p.series.iter().enumerate() {
            if i == job.series.len() {
                job.series.push(*point);
            } else {
                job.series[i].add(point);
            }
        }
        if let (None, Some(e)) = (&job.error, &p.error) {
            job.fail(e.failure());
        }
        if let Some(v) = &p.verify {
            job.verify.get_or_insert_with(Default::default).merge(v);
        }
        job.depth.add(&p.depth);
        job.seeds.push(p.seed);
        if let Some(b) = &p.buffers {
            job.buffers.get_or_insert_with(Default::default).add(b);
        }
        // One clone's slices stand for the job's (the suite runs one clone).
        if job.stability.is_none() {
            job.stability = p.stability.clone();
        }
        // fio reports the last clone's depth for a group of clones.
        job.latency_depth = p.latency_depth.or(job.latency_depth);
        if let Some(e) = &p.errors {
            job.errors.get_or_insert_with(Default::default).merge(e);
        }
    }
    if let Some(v) = &mut job.verify {
        v.sort();
    }
    job
}
