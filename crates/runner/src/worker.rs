//! One worker: a thread that keeps `iodepth` I/Os in flight on its engine
//! until the job's time or size is done, and records every completion.
//!
//! A worker's life is a sequence of named phases (lay out, start, ramp,
//! measure, stop, final sync, verify, drain), laid out in [`phase`] with
//! which of them are inside the job's clock; `run_worker` goes through them
//! in that order.
//!
//! `Worker` holds the loop's state, in small groups with their own methods
//! (the queue's slots and depth limits in [`slots`], the phase and runtime
//! in [`phase`], what was reported as progress in [`progress`]), and the
//! job's *parts* ([`parts`]): one per feature the job asked for, each with
//! its state in its own type and file, built from the job when the worker
//! starts. A part is told what happens at a few points only: before an I/O
//! is issued (rates and thinktimes in [`paced`], the I/O log replayed or
//! written in [`iolog`], each I/O's priority in [`prio`], the data of a
//! write in [`data`] or [`verifying`], the file options in [`fileops`],
//! trims in [`trim`]), when I/Os complete (the logs, `verify=`'s checks,
//! the latency target's search in [`latency`], errors continued past in
//! [`errors`]), at the clock's ticks and phase changes (rate floors, the
//! stability stop in [`stable`], the latency windows), whether it holds the
//! queue until nothing is in flight (`parts::Hold`), and at the end what it
//! adds to the outcome. The queue itself (submission, completion,
//! timestamps) is in [`queue`].
//!
//! A job with one block size, uniform random or sequential offsets and no
//! pacing, replay or verify takes the plain path: one call to the offset
//! generator per I/O and nothing else, the path measured against fio.
//! Everything else (rates, thinktime, several block sizes, skewed
//! distributions, `number_ios`) goes through [`paced`], chosen once per job
//! by the precomputed `plain` flag.

mod data;
mod errors;
mod fileops;
mod iolog;
mod latency;
mod numa;
mod overlap;
mod paced;
mod parts;
mod phase;
mod prio;
mod progress;
mod queue;
mod slots;
mod stable;
mod trim;
mod verifying;

use crate::clock::Clock;
use crate::error::RunError;
use crate::offsets::{OffsetGen, Region};
use crate::record::Recorder;
use engine::sys;
use engine::{AnyEngine, Engine, EngineConfig, EngineError};
use model::{CpuUsage, DirStats, Histogram, JobSpec, LivePoint, SeriesPoint};
use parts::{Hold, Parts};
use phase::{Stop, Tick, Timeline};
use progress::Progress;
use queue::Writes;
use slots::{Queue, Slot};
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// The longest a worker sleeps at once while waiting (startdelay, a rate,
/// a thinktime), so that a stop request is heard quickly.
const SLEEP_SLICE: Duration = Duration::from_millis(20);

/// Everything a worker needs, built by the runner before the thread starts.
pub struct WorkerPlan {
    pub spec: Arc<JobSpec>,
    /// The job's group and its position in the group, for live points.
    pub place: (u32, u32),
    pub clone: u32,
    pub regions: Vec<Region>,
    pub engine: AnyEngine,
    pub engine_cfg: EngineConfig,
    /// I/Os to do after the ramp (size-based jobs), or `None` for time only.
    pub io_budget: Option<u64>,
    /// `sprandom`: the plan of the job's pass (see `offsets::sprandom`).
    pub(crate) sprandom: Option<crate::offsets::SpRandomPlan>,
    /// This clone's number among all the run's threads, from 1: fio's `N` in
    /// log file names.
    pub thread_number: u32,
    /// Ends this job's clones only: set by the runner when the job reached
    /// its `steadystate`, and by a clone that failed (as in fio, a job's
    /// error ends that job; the others of its group go on).
    pub job_stop: Option<Arc<AtomicBool>>,
    /// The group's stop flags, for `exitall` and `exitall_on_error`.
    pub(crate) group_exit: Option<Arc<crate::exits::GroupExit>>,
    /// Its place in a `flow` (see `crate::flow`), taken by its pacing.
    pub(crate) flow: Option<crate::flow::FlowShare>,
    /// The clone's files, for the file options (see `fileops`).
    pub file_set: Option<crate::fileset::FileSet>,
    /// May stop before its runtime once its figure is stable (see `stable`).
    pub stable_stop: Option<model::StableStop>,
    /// Its part of the run's shared dedupe working set (`dedupe_global`).
    pub dedupe: Option<crate::dedupe::DedupeShare>,
}

pub struct WorkerOutcome {
    pub read: DirStats,
    pub write: DirStats,
    pub trim: DirStats,
    /// Each sync's latency.
    pub sync: Histogram,
    pub series: Vec<SeriesPoint>,
    pub runtime_ns: u64,
    pub cpu: CpuUsage,
    /// Why the job failed (the first of its errors); the job's `error`
    /// text in the result is made from it.
    pub error: Option<RunError>,
    /// What `verify=` found.
    pub verify: Option<model::VerifyResult>,
    /// How deep the queue was kept.
    pub depth: model::DepthStats,
    /// The engine's buffers (`None` when the worker had no engine to ask).
    pub buffers: Option<model::BufferMemory>,
    /// The slices judged by a stability stop, if the job had one.
    pub stability: Option<model::Stability>,
    /// The depth a `latency_target` search ended at.
    pub latency_depth: Option<u32>,
    /// The errors the job continued past (see `errors`).
    pub errors: Option<model::errors::ErrorCount>,
    /// The seed the clone's random numbers came from.
    pub seed: u64,
    /// Reads and writes completed before the measured figures (re)started
    /// (the ramp, a `latency_target` search): out of the figures, but the
    /// device counted them, so the shared-device check adds them back.
    pub unmeasured: Issued,
}

/// I/Os and their bytes, reads and writes together.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Issued {
    pub ios: u64,
    pub bytes: u64,
}

/// Signals shared by all workers of a run.
pub struct Shared {
    pub clock: Clock,
    pub stop: Arc<AtomicBool>,
    /// I/Os completed so far by all workers, updated once a second, for progress.
    pub ios_done: AtomicU64,
    /// The group's clones that do I/O (not `cpuio`) and have not ended:
    /// a `cpuio` job with `exit_on_io_done` ends when it reaches zero.
    pub io_clones_left: AtomicUsize,
    /// Each worker's finished seconds, pushed once a second (one lock per
    /// worker-second, nothing per I/O) and drained by the runner's thread;
    /// `None` when nobody listens.
    pub live: Option<Mutex<Vec<LivePoint>>>,
    /// Each worker's finished seconds' latencies, as `live`; `None` unless
    /// the live listener asked for them (`RunOptions::live_latency`).
    pub live_latency: Option<Mutex<Vec<crate::LiveLatency>>>,
    /// fio's `--debug=io` hook (see [`crate::trace`]).
    pub io_trace: Option<crate::trace::IoTraceFn>,
}

struct Worker<'a> {
    plan: WorkerPlan,
    shared: &'a Shared,
    /// The slots, what is in flight, and the depth limits (see `slots`).
    q: Queue,
    gen: OffsetGen,
    rec: Recorder,
    /// Ramp, measure or stopping, the runtime, and when the measured
    /// figures started (see `phase`).
    time: Timeline,
    /// Bytes issued after the ramp, and the most the job may issue.
    budget: Budget,
    /// The writes' sequence numbers and `fsync=N`'s count (see `queue`).
    writes: Writes,
    /// Only plain I/Os (see the module comment); else `next_target` picks them.
    plain: bool,
    /// Why the job stopped, when it was not the engine (a missed `rate_min`).
    failure: Option<RunError>,
    cpu_start: CpuUsage,
    /// What was reported as progress and to the live listener.
    progress: Progress,
    /// The features the job asked for, each in its own part (see `parts`).
    parts: Parts,
    /// The clone's seed, which its random numbers come from.
    seed: u64,
    /// What was done before the measured figures (re)started.
    unmeasured: Issued,
}

/// Bytes issued after the ramp, and the most the job may issue
/// (`u64::MAX` for a time-based job).
#[derive(Clone, Copy)]
struct Budget {
    issued: u64,
    total: u64,
    /// The job's size ends in a piece shorter than a block, which is never
    /// issued. fio asks for one more I/O after the last whole block, finds
    /// that piece too short, and ends; a sync due by then (`fdatasync=1`)
    /// is issued on the way, so its last write is followed by a sync. When
    /// the size is whole blocks, fio stops asking and the last write is not.
    short_tail: bool,
    /// Bytes of one loop of a size-based job of several `loops` (0 for
    /// one loop, or a time-based job). Between two loops fio asks for the
    /// next I/O twice, once before it finds the file done and once after
    /// reopening it, and a sync due (`fdatasync=N`, its writes a multiple
    /// of N) is issued at each ask: two syncs there, where one is due.
    loop_bytes: u64,
}

impl Budget {
    /// Whether the job may issue more after its ramp.
    #[inline]
    fn left(&self) -> bool {
        self.issued < self.total
    }

    /// Whether what was issued ends a loop with another to come.
    fn between_loops(&self) -> bool {
        self.loop_bytes > 0
            && self.issued > 0
            && self.issued < self.total
            && self.issued.is_multiple_of(self.loop_bytes)
    }
}

/// The names `write_iolog` gives the clone's files: their paths, or for
/// the null engine (no files) fio's names of them (`filename=`'s, else
/// `JOB.CLONE.FILE`).
fn file_names(plan: &WorkerPlan) -> Vec<String> {
    let files = match plan.engine_cfg.paths.is_empty() {
        false => plan.engine_cfg.paths.len(),
        true => plan.regions.len(),
    };
    (0..files as u32).map(|f| file_name(plan, f)).collect()
}

/// The name of the clone's file `file` (see [`file_names`]): for the null
/// engine, the name `filename=` gives it (each of `a:b`) when there is one.
fn file_name(plan: &WorkerPlan, file: u32) -> String {
    if let Some(p) = plan.engine_cfg.paths.get(file as usize) {
        return p.display().to_string();
    }
    let named = match &plan.spec.target {
        model::FileTarget::Named(first) => {
            let also = &plan.spec.file_options.also_named;
            std::iter::once(first).chain(also).nth(file as usize)
        }
        _ => None,
    };
    match named {
        Some(p) => p.display().to_string(),
        None => (plan.spec.file_options).generated_name(&plan.spec.name, plan.clone, file),
    }
}

/// A worker's life, phase by phase (see `phase` for the table of what is
/// inside the clock). The files were laid out by the runner.
pub fn run_worker(mut plan: WorkerPlan, shared: &Shared) -> WorkerOutcome {
    // Start: CPU pinning, NUMA placement, the I/O priority and
    // `startdelay`, outside the clock.
    let setup = paced::before_start(&plan, shared).and_then(|()| numa::place(&mut plan));
    // The clock starts here, with the ramp or the measured phase.
    let mut w = Worker::new(plan, shared);
    let spec = Arc::clone(&w.plan.spec);
    let in_job = |e: RunError| RunError::in_job(&spec.name, e);
    let mut error = match setup {
        // create_only: the files are made, no I/O is done.
        Ok(()) if spec.file_options.create_only => None,
        Ok(()) => w.clocked_phases().err().map(|e| in_job(e.into())),
        Err(e) => Some(e),
    };
    error = error.or_else(|| w.failure.take());
    if spec.engine != model::EngineKind::Cpuio {
        shared.io_clones_left.fetch_sub(1, Ordering::Relaxed);
    }
    if let Some(exit) = &w.plan.group_exit {
        exit.job_ended(w.plan.place.1 as usize, &spec.exit_rules, error.is_some());
    }
    if error.is_some() {
        if let Some(stop) = &w.plan.job_stop {
            stop.store(true, Ordering::Relaxed);
        }
    }
    // The clock stops. What follows (draining after an error, closing the
    // files, writing the logs) is not the job's I/O.
    let end = shared.clock.now();
    w.drain();
    let cpu_end = sys::thread_usage();
    w.close_parts(end, error.is_none(), &mut error);
    w.report_progress();
    let mut cpu = cpu_end.since(&w.cpu_start);
    let buffers = Some(w.plan.engine.memory());
    let recorded = w.rec.finish(&shared.clock, end);
    cpu.wall_ns = recorded.runtime_ns;
    let ended = w.parts.end(&spec, &mut error);
    WorkerOutcome {
        read: recorded.read,
        write: recorded.write,
        trim: recorded.trim,
        sync: recorded.sync,
        series: recorded.series,
        runtime_ns: recorded.runtime_ns,
        depth: recorded.depth,
        cpu,
        error,
        verify: ended.verify,
        stability: ended.stability,
        buffers,
        latency_depth: ended.latency_depth,
        errors: ended.errors,
        seed: w.seed,
        unmeasured: w.unmeasured,
    }
}

impl<'a> Worker<'a> {
    fn new(mut plan: WorkerPlan, shared: &'a Shared) -> Worker<'a> {
        let clock = &shared.clock;
        let spec = Arc::clone(&plan.spec);
        let caps = plan.engine.capabilities();
        let mut q = Queue::new(&spec, caps.asynchronous, caps.does_io);
        let seed = spec
            .repeatable_seed()
            .unwrap_or_else(|| clock.now() ^ std::process::id() as u64);
        let seed = seed.wrapping_add(plan.clone as u64 * 0x9e37_79b9);
        let gen =
            OffsetGen::for_job(&spec, &plan.regions, seed).with_sprandom(plan.sprandom.take());
        let start = clock.now();
        let ticks = |d: Duration| clock.ticks(d.as_nanos() as u64);
        let ramp = (!spec.ramp_time.is_zero()).then(|| ticks(spec.ramp_time));
        let mut time = Timeline::begin(start, ramp, spec.runtime.map(ticks));
        let total = match spec.iolog.replays() {
            true => spec.iolog.bytes(),
            false => paced::byte_budget(&spec, plan.io_budget, gen.is_plain()),
        };
        let names = file_names(&plan);
        let at = parts::Start {
            clock,
            at: start,
            seed,
            plain_offsets: gen.is_plain(),
        };
        let loop_bytes = paced::loop_bytes(&spec, plan.io_budget, total);
        let (parts, failure) = Parts::new(&mut plan, at, &q, &time, loop_bytes, names);
        if failure.is_some() {
            time.phase.stop(Stop::Setup);
        }
        q.allowed = parts.allowed(q.depth);
        Worker {
            plain: gen.is_plain() && parts.plain(),
            parts,
            failure,
            shared,
            gen,
            rec: Recorder::new(clock, start, q.with_slat, shared.live_latency.is_some())
                .with_prios(&spec.prio),
            q,
            budget: Budget {
                issued: 0,
                total,
                short_tail: paced::short_tail(&spec, plan.io_budget, plan.regions.len()),
                loop_bytes,
            },
            time,
            writes: Writes::default(),
            cpu_start: sys::thread_usage(),
            progress: Progress::default(),
            seed,
            unmeasured: Issued::default(),
            plan,
        }
    }

    fn ramping(&self) -> bool {
        self.time.phase.ramping()
    }

    /// The phases inside the job's clock, in their order: ramp and measure
    /// (for `verify_only`, the replay of the earlier run's writes), the
    /// final sync, the verify pass.
    fn clocked_phases(&mut self) -> Result<(), EngineError> {
        match self.parts.verify.as_ref().is_some_and(|v| v.only()) {
            true => self.replay_writes(),
            false => self.ramp_and_measure()?,
        }
        self.final_sync()?;
        self.save_verify_state();
        self.final_verify()
    }

    /// The final sync is the job's I/O, as in fio: its time counts in the
    /// runtime, the bandwidth, the CPU and the last second of the series.
    fn final_sync(&mut self) -> Result<(), EngineError> {
        let spec = &self.plan.spec;
        if (spec.end_fsync || spec.fsync_on_close) && self.failure.is_none() {
            self.sync_files()?;
            self.synced_for_verify();
        }
        Ok(())
    }

    /// What stops the queue from being refilled until nothing is in flight.
    #[inline]
    fn hold(&self) -> Option<Hold> {
        self.parts.hold(self.writes.sync_due)
    }

    /// The ramp and the measured phase: I/O until the phase says stop and
    /// what is in flight has completed.
    fn ramp_and_measure(&mut self) -> Result<(), EngineError> {
        // The time the last completions were seen: the refill that follows
        // at once is queued as of then, so a freed slot's wait for the tool
        // is charged to the I/O that fills it, and one clock read is saved.
        let mut freed_at = None;
        loop {
            self.issue(freed_at.take())?;
            if self.q.in_flight == 0 {
                if let Some(until) = self.parts.wait_until() {
                    self.sleep_until(until);
                    continue;
                }
                match self.hold() {
                    Some(Hold::VerifyBacklog) => self.verify_pass(false)?,
                    Some(Hold::Files) => self.serve_files()?,
                    Some(Hold::Sync) => self.serve_sync()?,
                    Some(Hold::Quiesce) => self.quiesced(),
                    // Nothing in flight, nothing due, nothing issued: done.
                    None => return Ok(()),
                }
                continue;
            }
            let now = self.reap()?;
            self.complete(now)?;
            self.check_time(now);
            freed_at = Some(now);
        }
    }

    /// A sync due with nothing in flight: a replayed sync syncs the file it
    /// names; `fsync=` all, and only before more writes, as fio (the last
    /// writes of a job are not followed by one, unless its size ends in a
    /// piece shorter than a block).
    fn serve_sync(&mut self) -> Result<(), EngineError> {
        match self.parts.replay.as_mut().and_then(|r| r.sync_file.take()) {
            Some(file) => {
                let slot = self.parts.files.slot_of(file);
                self.timed_sync(|w| w.sync_file(slot))?
            }
            None if self.more_to_come() || self.asks_for_the_short_tail() => {
                self.timed_sync(Self::sync_files)?;
                if self.budget.between_loops() && !self.ramping() {
                    self.timed_sync(Self::sync_files)?;
                }
                self.synced_for_verify();
            }
            None => {}
        }
        self.writes.synced();
        Ok(())
    }

    /// Whether fio would ask for the piece shorter than a block that ends
    /// the job's size, now that its whole blocks are issued (see
    /// [`Budget::short_tail`]).
    fn asks_for_the_short_tail(&self) -> bool {
        self.budget.short_tail && self.time.phase.done_by_size()
    }

    /// Moves the phase on with the clock at `now`: ends the ramp (the
    /// recorder, CPU, rate floors and logs start afresh), and stops at the
    /// deadline, a missed rate floor, a stop request, or the size issued.
    fn check_time(&mut self, now: u64) {
        if self.time.tick(now) == Tick::RampEnded {
            self.start_measuring(now);
            self.ramp_ended(now);
        }
        self.tick_parts(now);
        if self.shared.stop.load(Ordering::Relaxed) {
            self.time.phase.stop(Stop::Asked);
        }
        let job_stop = self.plan.job_stop.as_ref();
        if job_stop.is_some_and(|s| s.load(Ordering::Relaxed)) {
            self.time.phase.stop(Stop::JobEnded);
        }
        if !self.ramping() && !self.budget.left() {
            self.time.phase.stop(Stop::Done);
        }
        // cpuio's exit_on_io_done: the I/O jobs beside it have all ended.
        let cpu = self.plan.spec.cpuio.as_ref();
        if cpu.is_some_and(|c| c.exit_on_io_done)
            && self.shared.io_clones_left.load(Ordering::Relaxed) == 0
        {
            self.time.phase.stop(Stop::Done);
        }
        self.seconds_closed();
    }

    /// The measured figures start afresh at `now` (the recorder, CPU, rate
    /// floors, logs and stability slices): when the ramp ends, and when a
    /// latency target's depth is found.
    fn start_measuring(&mut self, now: u64) {
        for d in &self.rec.dirs {
            self.unmeasured.ios += d.ios;
            self.unmeasured.bytes += d.bytes;
        }
        let clock = &self.shared.clock;
        self.rec = Recorder::new(
            clock,
            now,
            self.q.with_slat,
            self.shared.live_latency.is_some(),
        )
        .with_prios(&self.plan.spec.prio);
        self.progress.series_seen = 0;
        self.cpu_start = sys::thread_usage();
        let stable = self.plan.stable_stop;
        self.parts
            .measure_started(&self.plan.spec, clock, now, stable);
        self.time.measure_start = now;
    }
}
