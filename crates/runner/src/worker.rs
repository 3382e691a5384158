//! One worker: a thread that keeps `iodepth` I/Os in flight on its engine
//! until the job's time or size is done, and records every completion.
//!
//! A worker's life is a sequence of named phases (lay out, start, ramp,
//! measure, stop, final sync, verify, drain), laid out in [`phase`] with
//! which of them are inside the job's clock; `run_worker` goes through them
//! in that order. The queue itself (submission, completion, timestamps) is
//! in [`queue`].
//!
//! A job with one block size, uniform random or sequential offsets and no
//! pacing takes the plain path: one call to the offset generator per I/O and
//! nothing else, the path measured against fio. Everything else (rates,
//! thinktime, several block sizes, skewed distributions, `number_ios`) goes
//! through [`paced`], chosen once per job by the precomputed `plain` flag.

mod data;
mod errors;
mod fileops;
mod iolog;
mod latency;
mod numa;
mod paced;
mod phase;
mod prio;
mod queue;
mod stable;
mod trim;
mod verifying;

use crate::clock::Clock;
use crate::error::RunError;
use crate::logs::{JobLogs, Sample};
use crate::offsets::{OffsetGen, Region, Rng};
use crate::rate::RateFloors;
use crate::record::Recorder;
use engine::sys;
use engine::{AnyEngine, Completion, Engine, EngineConfig, EngineError};
use model::{CpuUsage, DirStats, Direction, Histogram, JobSpec, LivePoint, SeriesPoint};
use phase::{Phase, Stop, Tick};
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
}

#[derive(Clone, Copy, Default)]
struct Slot {
    dir: Direction,
    file: u32,
    offset: u64,
    len: u64,
    queued_at: u64,
    submitted_at: u64,
    /// When a rate's schedule meant the I/O to start (0: no rate).
    scheduled_at: u64,
    /// A read of a verify pass: checked when it completes.
    check: bool,
    /// A trim, done and recorded when it was issued (see `trim`): its
    /// completion only frees the slot.
    trim: bool,
    /// The ioprio value it went with (see `prio`).
    prio: u16,
}

struct Worker<'a> {
    plan: WorkerPlan,
    shared: &'a Shared,
    asynchronous: bool,
    /// Whether I/Os have a submission latency (slat) to record: an
    /// asynchronous engine's do, except the null engine's with one I/O in
    /// flight, which fio completes in the submit itself.
    with_slat: bool,
    depth: u32,
    batch_submit: usize,
    gen: OffsetGen,
    rec: Recorder,
    slots: Vec<Slot>,
    free: Vec<u32>,
    batch: Vec<u32>,
    done: Vec<Completion>,
    in_flight: u32,
    /// Bytes issued after the ramp, and the most the job may issue.
    issued: u64,
    budget: u64,
    /// Only plain I/Os (see the module comment); else `next_paced` picks them.
    plain: bool,
    pace: Option<Box<paced::Pace>>,
    floors: Option<RateFloors>,
    /// `iodepth_low`: the queue is refilled only once it is down to this.
    low_water: u32,
    /// `iodepth_batch_complete_min/max` (a max of 0: no cap).
    reap_min: usize,
    reap_max: usize,
    /// `openfiles`, `sync_file_range`, `unlink_each_loop` (see `fileops`).
    files: fileops::FileOps,
    /// Why the job stopped, when it was not the engine (a missed `rate_min`).
    failure: Option<RunError>,
    /// Clock ticks the thinktimes so far overran (see `paced::stall`).
    think_debt: u64,
    logs: Option<JobLogs>,
    /// `verify=` (see `verifying`); `None` for most jobs.
    verify: Option<Box<verifying::Verifier>>,
    /// Ramp, measure or stopping: what the clock counts (see `phase`).
    phase: Phase,
    /// The job's `runtime` in clock ticks.
    runtime_ticks: Option<u64>,
    /// `fsync=N`/`fdatasync=N`: writes since the last sync, and whether one is due.
    writes_since_sync: u32,
    sync_due: bool,
    write_seq: u64,
    /// fio's buffer options, when the job has any (see `data`).
    data: Option<data::DataFiller>,
    cpu_start: CpuUsage,
    reported_ios: u64,
    /// Seconds of the series already reported as progress.
    series_seen: usize,
    /// The stability stop's slices, from the start of the measured phase
    /// (`measure_start`, a clock reading); `None` without one.
    stable: Option<stable::StableWatch>,
    measure_start: u64,
    /// `read_iolog`: the log being replayed; `write_iolog`: the log written.
    replay: Option<iolog::Replayer>,
    iolog_out: Option<iolog::IoLogOut>,
    /// `latency_target`: the depth search (see `latency`), the depth it
    /// allows (`depth` without one), and the drain it asked for.
    search: Option<latency::DepthSearch>,
    allowed: u32,
    quiesce: Option<Quiesce>,
    /// The errors continued past (`continue_on_error`, see `errors`);
    /// `Some` from the start for a job that may continue past any.
    errors: Option<model::errors::ErrorCount>,
    /// `cmdprio_*`: the draw of each I/O's priority (see `prio`).
    prio_draw: Option<Rng>,
}

/// The names `write_iolog` gives the clone's files: their paths, or for
/// the null engine (no files) fio's names of them (`JOB.CLONE.FILE`).
fn file_names(plan: &WorkerPlan) -> Vec<String> {
    match plan.engine_cfg.paths.is_empty() {
        false => plan
            .engine_cfg
            .paths
            .iter()
            .map(|p| p.display().to_string())
            .collect(),
        true => (0..plan.regions.len())
            .map(|i| {
                let file = i as u32;
                (plan.spec.file_options).generated_name(&plan.spec.name, plan.clone, file)
            })
            .collect(),
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
    if let Err(e) = w.finish_files(error.is_none()) {
        error.get_or_insert(in_job(e.into()));
    }
    if let Some(logs) = w.logs.take() {
        if let Err(e) = logs.finish(end) {
            error.get_or_insert(in_job(e.into()));
        }
    }
    if let Some(out) = w.iolog_out.take() {
        if let Err(e) = out.finish(&shared.clock, end) {
            error.get_or_insert(in_job(e.into()));
        }
    }
    w.report_progress();
    let mut cpu = cpu_end.since(&w.cpu_start);
    let buffers = Some(w.plan.engine.memory());
    let stability = w.stable.take().map(stable::StableWatch::result);
    let latency_depth = w.search.as_ref().map(latency::DepthSearch::depth);
    let recorded = w.rec.finish(&shared.clock, end);
    cpu.wall_ns = recorded.runtime_ns;
    let verify = w.verify.take().map(|v| {
        let mut r = v.result;
        r.sort();
        r
    });
    let verify_continued = verify
        .as_ref()
        .is_some_and(|v| errors::absorb_verify(&spec, &mut w.errors, v));
    if let Some(v) = verify.as_ref().filter(|_| !verify_continued) {
        if let (Some(summary), Some(first)) = (v.error(), v.failures.first()) {
            error.get_or_insert(in_job(RunError::BadData {
                summary,
                path: first.path.clone(),
                offset: first.offset,
            }));
        }
    }
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
        verify,
        stability,
        buffers,
        latency_depth,
        errors: w.errors.take(),
    }
}

impl<'a> Worker<'a> {
    fn new(mut plan: WorkerPlan, shared: &'a Shared) -> Worker<'a> {
        let clock = &shared.clock;
        let spec = Arc::clone(&plan.spec);
        let asynchronous = plan.engine.capabilities().asynchronous;
        let depth = if asynchronous { spec.iodepth.max(1) } else { 1 };
        let with_slat = asynchronous && (plan.engine.capabilities().does_io || depth > 1);
        let seed = if spec.randrepeat {
            spec.randseed
        } else {
            clock.now() ^ std::process::id() as u64
        };
        let seed = seed.wrapping_add(plan.clone as u64 * 0x9e37_79b9);
        let gen =
            OffsetGen::for_job(&spec, &plan.regions, seed).with_sprandom(plan.sprandom.take());
        let start = clock.now();
        let ticks = |d: Duration| clock.ticks(d.as_nanos() as u64);
        let runtime_ticks = spec.runtime.map(ticks);
        let ramp = (!spec.ramp_time.is_zero()).then(|| ticks(spec.ramp_time));
        let mut phase = Phase::begin(start, ramp, runtime_ticks);
        let replay = iolog::Replayer::new(&spec, start);
        let budget = match replay {
            Some(_) => spec.iolog.bytes(),
            None => paced::byte_budget(&spec, plan.io_budget, gen.is_plain()),
        };
        let files = fileops::FileOps::new(plan.file_set.take(), &spec, budget);
        let pace_rng = Rng::new(seed ^ 0x7a7e);
        let pace = paced::Pace::new(
            &spec,
            clock,
            start,
            gen.is_plain(),
            pace_rng,
            plan.flow.take(),
        );
        let complete_max = spec.iodepth_batch_complete_max as usize;
        let (logs, mut failure) = match JobLogs::open(&spec.logs, plan.thread_number, clock, start)
        {
            Ok(logs) => (logs, None),
            Err(e) => (None, Some(RunError::in_job(&spec.name, e))),
        };
        let verify = verifying::Verifier::new(&spec, &plan.regions, seed, plan.clone, depth)
            .unwrap_or_else(|e| {
                failure.get_or_insert(e);
                None
            });
        let iolog_out =
            iolog::IoLogOut::open(&spec, file_names(&plan), start).unwrap_or_else(|e| {
                failure.get_or_insert(RunError::in_job(&spec.name, RunError::from(e)));
                None
            });
        if failure.is_some() {
            phase.stop(Stop::Setup);
        }
        let window = ticks(spec.latency_target.window);
        let search = latency::DepthSearch::new(&spec.latency_target, depth, start, window);
        Worker {
            plain: gen.is_plain() && pace.is_none() && verify.is_none() && replay.is_none(),
            replay,
            iolog_out,
            verify,
            pace,
            // Floors apply to the measured phase only.
            floors: match phase.ramping() {
                true => None,
                false => RateFloors::new(&spec, clock, start),
            },
            low_water: spec.iodepth_low.unwrap_or(depth).min(depth),
            reap_min: spec.iodepth_batch_complete_min as usize,
            // fio: the max defaults to the min, so by default one completion
            // is handled, its slot refilled, and only then the next one.
            reap_max: match complete_max {
                0 => spec.iodepth_batch_complete_min as usize,
                max => max,
            },
            failure,
            think_debt: 0,
            files,
            logs,
            shared,
            asynchronous,
            with_slat,
            depth,
            batch_submit: match spec.iodepth_batch_submit {
                0 => depth,
                n => n.min(depth),
            } as usize,
            gen,
            rec: Recorder::new(clock, start, with_slat, shared.live_latency.is_some())
                .with_prios(&spec.prio),
            slots: vec![Slot::default(); depth as usize],
            free: (0..depth).rev().collect(),
            batch: Vec::with_capacity(depth as usize),
            done: Vec::with_capacity(depth as usize),
            in_flight: 0,
            issued: 0,
            budget,
            phase,
            runtime_ticks,
            writes_since_sync: 0,
            sync_due: false,
            write_seq: 0,
            data: data::DataFiller::new(
                &spec.buffer_data,
                plan.regions.iter().map(|r| r.blocks).sum(),
                // Each clone of the run its own buffers: none repeats another's.
                spec.randseed ^ u64::from(plan.thread_number) << 40,
                plan.dedupe,
            ),
            cpu_start: sys::thread_usage(),
            reported_ios: 0,
            series_seen: 0,
            stable: match phase.ramping() {
                true => None,
                false => plan.stable_stop.map(|r| stable::StableWatch::new(r, 0)),
            },
            measure_start: start,
            allowed: search.as_ref().map_or(depth, latency::DepthSearch::depth),
            search,
            quiesce: None,
            errors: spec.errors.any().then(Default::default),
            prio_draw: prio::draw(&spec, seed),
            plan,
        }
    }

    fn ramping(&self) -> bool {
        self.phase.ramping()
    }

    /// The phases inside the job's clock, in their order: ramp and measure
    /// (for `verify_only`, the replay of the earlier run's writes), the
    /// final sync, the verify pass.
    fn clocked_phases(&mut self) -> Result<(), EngineError> {
        match self.verify.as_ref().is_some_and(|v| v.only()) {
            true => self.replay_writes(),
            false => self.ramp_and_measure()?,
        }
        self.final_sync()?;
        self.final_verify()
    }

    /// The final sync is the job's I/O, as in fio: its time counts in the
    /// runtime, the bandwidth, the CPU and the last second of the series.
    fn final_sync(&mut self) -> Result<(), EngineError> {
        let spec = &self.plan.spec;
        if (spec.end_fsync || spec.fsync_on_close) && self.failure.is_none() {
            self.sync_files()?;
        }
        Ok(())
    }

    /// What stops the queue from being refilled until nothing is in flight,
    /// to be done then (the first due, in this order).
    fn hold(&self) -> Option<Hold> {
        if self.verify.as_ref().is_some_and(|v| v.due) {
            Some(Hold::VerifyBacklog)
        } else if self.files.due {
            Some(Hold::Files)
        } else if self.sync_due {
            Some(Hold::Sync)
        } else if self.quiesce.is_some() {
            Some(Hold::Quiesce)
        } else {
            None
        }
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
            if self.in_flight == 0 {
                let paced = self.pace.as_mut().and_then(|p| p.wait_until.take());
                let replayed = self.replay.as_mut().and_then(|r| r.wait_until.take());
                if let Some(until) = paced.or(replayed) {
                    self.sleep_until(until);
                    continue;
                }
                match self.hold() {
                    Some(Hold::VerifyBacklog) => self.verify_pass(false)?,
                    Some(Hold::Files) => self.serve_files()?,
                    Some(Hold::Sync) => {
                        // A replayed sync syncs the file it names; fsync= all,
                        // and only before more writes, as fio (the last
                        // writes of a job are not followed by one).
                        match self.replay.as_mut().and_then(|r| r.sync_file.take()) {
                            Some(file) => {
                                let slot = self.files.slot_of(file);
                                self.timed_sync(|w| w.sync_file(slot))?
                            }
                            None if self.more_to_come() => self.timed_sync(Self::sync_files)?,
                            None => {}
                        }
                        self.sync_due = false;
                        self.writes_since_sync = 0;
                    }
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

    /// Moves the phase on with the clock at `now`: ends the ramp (the
    /// recorder, CPU, rate floors and logs start afresh), and stops at the
    /// deadline, a missed rate floor, a stop request, or the size issued.
    fn check_time(&mut self, now: u64) {
        let clock = &self.shared.clock;
        if self.phase.tick(now, self.runtime_ticks) == Tick::RampEnded {
            self.start_measuring(now);
            if let Some(search) = &mut self.search {
                search.restart(now);
                self.allowed = search.depth();
            }
        }
        // The latency search judges its windows in the measured phase only.
        if self.quiesce.is_none() && self.phase.measuring() && !self.phase.stopping() {
            if let Some(search) = &mut self.search {
                let verdict = search.judge(now);
                self.steer(verdict, None);
            }
        }
        if let (Some(watch), false) = (&mut self.stable, self.phase.stopping()) {
            let [r, w] = &self.rec.dirs;
            let since = clock.nanos(self.measure_start, now);
            if watch.stable(since, r.ios + w.ios, r.bytes + w.bytes) {
                self.phase.stop(Stop::Stable);
            }
        }
        if let Some(floors) = &mut self.floors {
            if let Err(e) = floors.check(now, &self.rec.dirs) {
                self.failure = Some(RunError::in_job(&self.plan.spec.name, e));
                self.phase.stop(Stop::RateFloor);
            }
        }
        if self.shared.stop.load(Ordering::Relaxed) {
            self.phase.stop(Stop::Asked);
        }
        let job_stop = self.plan.job_stop.as_ref();
        if job_stop.is_some_and(|s| s.load(Ordering::Relaxed)) {
            self.phase.stop(Stop::JobEnded);
        }
        if !self.ramping() && self.issued >= self.budget {
            self.phase.stop(Stop::Done);
        }
        // cpuio's exit_on_io_done: the I/O jobs beside it have all ended.
        let cpu = self.plan.spec.cpuio.as_ref();
        if cpu.is_some_and(|c| c.exit_on_io_done)
            && self.shared.io_clones_left.load(Ordering::Relaxed) == 0
        {
            self.phase.stop(Stop::Done);
        }
        if self.rec.series.len() != self.series_seen {
            self.publish_seconds();
            self.series_seen = self.rec.series.len();
            self.report_progress();
        }
    }

    /// The measured figures start afresh at `now` (the recorder, CPU, rate
    /// floors, logs and stability slices): when the ramp ends, and when a
    /// latency target's depth is found.
    fn start_measuring(&mut self, now: u64) {
        let clock = &self.shared.clock;
        self.rec = Recorder::new(
            clock,
            now,
            self.with_slat,
            self.shared.live_latency.is_some(),
        )
        .with_prios(&self.plan.spec.prio);
        self.series_seen = 0;
        self.cpu_start = sys::thread_usage();
        self.floors = RateFloors::new(&self.plan.spec, clock, now);
        if let Some(logs) = &mut self.logs {
            logs.restart(now);
        }
        self.stable = self
            .plan
            .stable_stop
            .map(|r| stable::StableWatch::new(r, 0));
        self.measure_start = now;
    }

    /// Acts on what the latency search said; `missed` is the I/O that
    /// failed the job, for a `Verdict::Fatal` from a completion.
    fn steer(&mut self, verdict: latency::Verdict, missed: Option<latency::Missed>) {
        use latency::Verdict;
        let Some(search) = &self.search else { return };
        self.allowed = search.depth();
        match verdict {
            Verdict::Keep | Verdict::Raised => {}
            Verdict::Lowered => self.quiesce = Some(Quiesce::Window),
            Verdict::Settled => self.quiesce = Some(Quiesce::Found),
            Verdict::Done => self.phase.stop(Stop::LatencyFound),
            Verdict::Fatal => {
                let Some(m) = missed else { return };
                let spec = &self.plan.spec;
                let e = crate::error::LatencyMissed {
                    op: match m.dir {
                        Direction::Read => "read",
                        Direction::Write => "write",
                    },
                    path: self.plan.engine_cfg.path(m.file),
                    offset: m.offset,
                    len: m.len,
                    lat_ns: m.lat_ns,
                    target_ns: spec.latency_target.target.as_nanos() as u64,
                };
                self.failure = Some(RunError::in_job(&spec.name, RunError::from(e)));
                self.phase.stop(Stop::LatencyMissed);
            }
        }
    }

    /// Nothing is in flight any more after a change of the latency search's
    /// depth: the next window starts now, and once the depth is found the
    /// measured figures and the runtime start afresh, as fio's do.
    fn quiesced(&mut self) {
        let now = self.shared.clock.now();
        if self.quiesce.take() == Some(Quiesce::Found) && !self.phase.stopping() {
            self.start_measuring(now);
            self.phase.restart(now, self.runtime_ticks);
        }
        if let Some(search) = &mut self.search {
            search.new_window(now);
        }
    }

    /// Hands the first `take` completions to the logs, before they are counted.
    fn log_completions(&mut self, now: u64, take: usize) {
        let Some(logs) = &mut self.logs else { return };
        let clock = &self.shared.clock;
        for c in &self.done[..take] {
            let slot = &self.slots[c.slot as usize];
            logs.record(&Sample {
                at: now,
                dir: slot.dir,
                len: slot.len,
                offset: slot.offset,
                slat_ns: self
                    .with_slat
                    .then(|| clock.nanos(slot.queued_at, slot.submitted_at)),
                clat_ns: clock.nanos(slot.submitted_at, now),
                lat_ns: clock.nanos(slot.queued_at, now),
                prio: slot.prio,
            });
        }
    }

    /// Hands the seconds closed since the last call to the live listener.
    fn publish_seconds(&mut self) {
        let (group, job) = self.plan.place;
        if let Some(live) = &self.shared.live_latency {
            let fresh = std::mem::take(&mut self.rec.latency_seconds);
            let mut pending = live.lock().unwrap_or_else(|e| e.into_inner());
            pending.extend(fresh.into_iter().map(|(start_ms, lat)| crate::LiveLatency {
                group,
                job,
                clone: self.plan.clone,
                start_ms,
                lat,
            }));
        }
        let Some(live) = &self.shared.live else {
            return;
        };
        let fresh = &self.rec.series[self.series_seen.min(self.rec.series.len())..];
        let mut pending = live.lock().unwrap_or_else(|e| e.into_inner());
        pending.extend(fresh.iter().map(|&point| LivePoint {
            group,
            job,
            clone: self.plan.clone,
            point,
        }));
    }

    fn report_progress(&mut self) {
        let total = self.rec.dirs[0].ios + self.rec.dirs[1].ios + self.rec.trim.ios;
        let delta = total.saturating_sub(self.reported_ios);
        if delta > 0 {
            self.shared.ios_done.fetch_add(delta, Ordering::Relaxed);
            self.reported_ios = total;
        }
    }
}

/// See `Worker::hold`.
#[derive(Clone, Copy)]
enum Hold {
    /// `verify_backlog`: the last writes are read back and checked.
    VerifyBacklog,
    /// `sync_file_range`, the end of a loop, a file to open (see `fileops`).
    Files,
    /// `fsync=N` or `fdatasync=N` writes since the last sync.
    Sync,
    /// The latency search changed the depth (see `latency`).
    Quiesce,
}

/// Why the latency search drains the queue.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Quiesce {
    /// The depth went down: a new window once the deeper queue is gone.
    Window,
    /// The depth is found: the measured figures start afresh too.
    Found,
}
