//! One worker: a thread that keeps `iodepth` I/Os in flight on its engine
//! until the job's time or size is done, and records every completion.
//!
//! A worker's life, and which parts are inside the job's clock (runtime,
//! bandwidth, CPU, the per-second series):
//!
//! | phase | where | in the clock |
//! |---|---|---|
//! | lay out the files | the runner, before the thread starts (`files`) | no |
//! | CPU pinning, `startdelay` | `paced::before_start` | no |
//! | ramp (`ramp_time`) | `run`, until `check_time` restarts the recorder | no |
//! | measure: I/O, `fsync=N`, range syncs | `run` | yes |
//! | final sync (`end_fsync`, `fsync_on_close`) | `run_phases` | yes, as in fio |
//! | verify pass | `run_phases` -> `verify_pass` | yes: its reads are the job's |
//! | drain after an error, close, logs | `run_worker` after `end` | no |
//!
//! Submission follows fio's `iodepth_batch_submit` (default 1: each I/O is
//! handed to the kernel as soon as it is prepared). Batching more looks
//! cheaper, but on a virtio disk it delayed the first I/Os of each batch and
//! cost 10% of the IOPS fio gets.
//!
//! Completions are handled as fio does by default: one at a time
//! (`iodepth_batch_complete_max` defaults to `iodepth_batch_complete_min`,
//! 1), each freed slot refilled before the next completion is looked at.
//! Handling every completion available first and then refilling the freed
//! slots one `io_uring_enter` each left the slots idle through the earlier
//! syscalls: on a loop device in /dev/shm, 4 KiB randread at QD32 kept 19.8
//! I/Os in flight (IOPS x mean latency) where fio kept 31.9. The completions
//! not yet handled stay in the engine's queue and are timed when handled,
//! so their latency includes the wait, as in fio.
//!
//! Timestamps are chained, not taken per step: the time after one submit is
//! the queue time of the next I/O, and one timestamp serves a whole reaped
//! batch. slat is submit - queue, clat is completion - submit, lat is
//! completion - queue. A synchronous engine does the I/O inside `queue`, so
//! its clat spans the call and it has no slat, as in fio.
//!
//! A job with one block size, uniform random or sequential offsets and no
//! pacing takes the plain path: one call to the offset generator per I/O and
//! nothing else, the path measured against fio. Everything else (rates,
//! thinktime, several block sizes, skewed distributions, `number_ios`) goes
//! through [`paced`], chosen once per job by the precomputed `plain` flag.

mod fileops;
mod paced;
mod verifying;

use crate::clock::Clock;
use crate::logs::{JobLogs, Sample};
use crate::offsets::{OffsetGen, Region, Rng};
use crate::rate::RateFloors;
use crate::record::Recorder;
use engine::sys;
use engine::{AnyEngine, Completion, Engine, EngineConfig, EngineError, IoRequest};
use model::{CpuUsage, DirStats, Direction, JobSpec, LivePoint, SeriesPoint};
use std::io;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
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
    /// This clone's number among all the run's threads, from 1: fio's `N` in
    /// log file names.
    pub thread_number: u32,
    /// Ends this job's clones only: set by the runner when the job reached
    /// its `steadystate`, and by a clone that failed (as in fio, a job's
    /// error ends that job; the others of its group go on).
    pub job_stop: Option<Arc<AtomicBool>>,
    /// The clone's files, for the file options (see `fileops`).
    pub file_set: Option<crate::fileset::FileSet>,
}

pub struct WorkerOutcome {
    pub read: DirStats,
    pub write: DirStats,
    pub series: Vec<SeriesPoint>,
    pub runtime_ns: u64,
    pub cpu: CpuUsage,
    pub error: Option<String>,
    /// What `verify=` found.
    pub verify: Option<model::VerifyResult>,
    /// How deep the queue was kept.
    pub depth: model::DepthStats,
    /// The engine's buffers (`None` when the worker had no engine to ask).
    pub buffers: Option<model::BufferMemory>,
}

/// Signals shared by all workers of a run.
pub struct Shared {
    pub clock: Clock,
    pub stop: Arc<AtomicBool>,
    /// I/Os completed so far by all workers, updated once a second, for progress.
    pub ios_done: AtomicU64,
    /// Each worker's finished seconds, pushed once a second (one lock per
    /// worker-second, nothing per I/O) and drained by the runner's thread;
    /// `None` when nobody listens.
    pub live: Option<Mutex<Vec<LivePoint>>>,
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
}

struct Worker<'a> {
    plan: WorkerPlan,
    shared: &'a Shared,
    asynchronous: bool,
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
    failure: Option<String>,
    /// Clock ticks the thinktimes so far overran (see `paced::stall`).
    think_debt: u64,
    logs: Option<JobLogs>,
    /// `verify=` (see `verifying`); `None` for most jobs.
    verify: Option<Box<verifying::Verifier>>,
    ramp_end: Option<u64>,
    deadline: Option<u64>,
    stopping: bool,
    writes_since_sync: u32,
    sync_due: bool,
    write_seq: u64,
    cpu_start: CpuUsage,
    reported_ios: u64,
    /// Seconds of the series already reported as progress.
    series_seen: usize,
}

pub fn run_worker(plan: WorkerPlan, shared: &Shared) -> WorkerOutcome {
    let setup = paced::before_start(&plan, shared);
    let mut w = Worker::new(plan, shared);
    let spec = Arc::clone(&w.plan.spec);
    let mut error = match setup {
        // create_only: the files are made, no I/O is done.
        Ok(()) if spec.file_options.create_only => None,
        Ok(()) => w
            .run_phases()
            .err()
            .map(|e| format!("job '{}': {e}", spec.name)),
        Err(e) => Some(e),
    };
    error = error.or_else(|| w.failure.take());
    if error.is_some() {
        if let Some(stop) = &w.plan.job_stop {
            stop.store(true, Ordering::Relaxed);
        }
    }
    let end = shared.clock.now();
    w.drain();
    let cpu_end = sys::thread_usage();
    if let Err(e) = w.finish_files(error.is_none()) {
        error.get_or_insert(format!("job '{}': {e}", spec.name));
    }
    if let Some(logs) = w.logs.take() {
        if let Err(e) = logs.finish(end) {
            error.get_or_insert(format!("job '{}': {e}", spec.name));
        }
    }
    w.report_progress();
    let mut cpu = cpu_end.since(&w.cpu_start);
    let buffers = Some(w.plan.engine.memory());
    let recorded = w.rec.finish(&shared.clock, end);
    cpu.wall_ns = recorded.runtime_ns;
    let verify = w.verify.take().map(|v| {
        let mut r = v.result;
        r.sort();
        r
    });
    if let Some(e) = verify.as_ref().and_then(|v| v.error()) {
        error.get_or_insert(format!("job '{}': {e}", spec.name));
    }
    WorkerOutcome {
        read: recorded.read,
        write: recorded.write,
        series: recorded.series,
        runtime_ns: recorded.runtime_ns,
        depth: recorded.depth,
        cpu,
        error,
        verify,
        buffers,
    }
}

impl<'a> Worker<'a> {
    fn new(mut plan: WorkerPlan, shared: &'a Shared) -> Worker<'a> {
        let clock = &shared.clock;
        let spec = Arc::clone(&plan.spec);
        let asynchronous = plan.engine.capabilities().asynchronous;
        let depth = if asynchronous { spec.iodepth.max(1) } else { 1 };
        let seed = if spec.randrepeat {
            spec.randseed
        } else {
            clock.now() ^ std::process::id() as u64
        };
        let seed = seed.wrapping_add(plan.clone as u64 * 0x9e37_79b9);
        let gen = OffsetGen::for_job(&spec, &plan.regions, seed);
        let start = clock.now();
        let ramp_end = (!spec.ramp_time.is_zero())
            .then(|| start + clock.ticks(spec.ramp_time.as_nanos() as u64));
        let deadline = match ramp_end {
            Some(_) => None,
            None => spec
                .runtime
                .map(|d| start + clock.ticks(d.as_nanos() as u64)),
        };
        let budget = paced::byte_budget(&spec, plan.io_budget, gen.is_plain());
        let files = fileops::FileOps::new(plan.file_set.take(), &spec, budget);
        let pace = paced::Pace::new(&spec, clock, start, gen.is_plain(), Rng::new(seed ^ 0x7a7e));
        let complete_max = spec.iodepth_batch_complete_max as usize;
        let (logs, mut failure) = match JobLogs::open(&spec.logs, plan.thread_number, clock, start)
        {
            Ok(logs) => (logs, None),
            Err(e) => (None, Some(format!("job '{}': {e}", spec.name))),
        };
        let verify = verifying::Verifier::new(&spec, &plan.regions, seed, plan.clone, depth)
            .unwrap_or_else(|e| {
                failure.get_or_insert(e);
                None
            });
        Worker {
            plain: gen.is_plain() && pace.is_none() && verify.is_none(),
            verify,
            pace,
            // Floors apply to the measured phase only.
            floors: match ramp_end {
                Some(_) => None,
                None => RateFloors::new(&spec, clock, start),
            },
            low_water: spec.iodepth_low.unwrap_or(depth).min(depth),
            reap_min: spec.iodepth_batch_complete_min as usize,
            // fio: the max defaults to the min, so by default one completion
            // is handled, its slot refilled, and only then the next one.
            reap_max: match complete_max {
                0 => spec.iodepth_batch_complete_min as usize,
                max => max,
            },
            stopping: failure.is_some(),
            failure,
            think_debt: 0,
            files,
            logs,
            shared,
            asynchronous,
            depth,
            batch_submit: match spec.iodepth_batch_submit {
                0 => depth,
                n => n.min(depth),
            } as usize,
            gen,
            rec: Recorder::new(clock, start, asynchronous),
            slots: vec![Slot::default(); depth as usize],
            free: (0..depth).rev().collect(),
            batch: Vec::with_capacity(depth as usize),
            done: Vec::with_capacity(depth as usize),
            in_flight: 0,
            issued: 0,
            budget,
            ramp_end,
            deadline,
            writes_since_sync: 0,
            sync_due: false,
            write_seq: 0,
            cpu_start: sys::thread_usage(),
            reported_ios: 0,
            series_seen: 0,
            plan,
        }
    }

    fn ramping(&self) -> bool {
        self.ramp_end.is_some()
    }

    fn run(&mut self) -> Result<(), EngineError> {
        // The time the last completions were seen: the refill that follows
        // at once is queued as of then, so a freed slot's wait for the tool
        // is charged to the I/O that fills it, and one clock read is saved.
        let mut freed_at = None;
        loop {
            self.issue(freed_at.take())?;
            if self.in_flight == 0 {
                if let Some(until) = self.pace.as_mut().and_then(|p| p.wait_until.take()) {
                    self.sleep_until(until);
                    continue;
                }
                if self.verify.as_ref().is_some_and(|v| v.due) {
                    self.verify_pass(false)?;
                    continue;
                }
                if self.files.due {
                    self.serve_files()?;
                    continue;
                }
                if !self.sync_due {
                    return Ok(());
                }
                self.sync_files()?;
                self.sync_due = false;
                self.writes_since_sync = 0;
                continue;
            }
            let now = self.reap()?;
            self.complete(now)?;
            self.check_time(now);
            freed_at = Some(now);
        }
    }

    /// Queues I/Os up to the depth (unless stopping or waiting to fsync),
    /// submitting every `batch_submit` of them.
    /// `freed_at`: when the slots being refilled were freed, if just now.
    fn issue(&mut self, freed_at: Option<u64>) -> Result<(), EngineError> {
        if self.in_flight > self.low_water {
            return Ok(());
        }
        let mut queued_at = freed_at.unwrap_or_else(|| self.shared.clock.now());
        while self.in_flight < self.depth
            && !self.stopping
            && !self.sync_due
            && !self.files.due
            && !self.verify.as_ref().is_some_and(|v| v.due)
            && (self.ramping() || self.issued < self.budget)
        {
            let t = match self.plain {
                true => self.gen.next_io(),
                false => match self.next_target()? {
                    // A rate or a thinktime may have waited: queued now.
                    Some(t) => {
                        queued_at = self.shared.clock.now();
                        t
                    }
                    None => break,
                },
            };
            // openfiles: an I/O to a closed file waits for the queue to empty.
            let Some(t) = self.files.route(t) else { break };
            let scheduled_at = match self.plain {
                true => None,
                false => self.pace.as_mut().and_then(|p| p.scheduled.take()),
            }
            .unwrap_or(0);
            let slot = self.free.pop().expect("a free slot while under depth");
            if t.dir == Direction::Write {
                self.prepare_write(slot, t.file, t.offset, t.len)?;
            }
            self.slots[slot as usize] = Slot {
                dir: t.dir,
                file: t.file,
                offset: t.offset,
                len: t.len,
                queued_at,
                submitted_at: queued_at,
                scheduled_at,
                check: false,
            };
            let req = IoRequest {
                slot,
                file: self.files.slot_of(t.file),
                dir: t.dir,
                offset: t.offset,
                len: t.len as u32,
            };
            self.plan.engine.queue(req)?;
            self.in_flight += 1;
            if !self.ramping() {
                self.issued += t.len;
            }
            self.files.queued(&t, self.issued);
            if !self.asynchronous {
                // fio counts each synchronous I/O as one submit at depth 1.
                if !self.ramping() {
                    self.rec.depth.submitted(1, 1);
                }
                return Ok(());
            }
            self.batch.push(slot);
            if self.batch.len() >= self.batch_submit {
                queued_at = self.submit_batch(queued_at)?;
            }
        }
        if !self.batch.is_empty() {
            self.submit_batch(queued_at)?;
        }
        Ok(())
    }

    /// Submits the queued batch; returns the time after, the next queue time.
    fn submit_batch(&mut self, queued_at: u64) -> Result<u64, EngineError> {
        self.plan.engine.submit()?;
        let now = self.shared.clock.now();
        let slat_ns = self.shared.clock.nanos(queued_at, now);
        if !self.ramping() {
            self.rec
                .depth
                .submitted(self.batch.len() as u32, self.in_flight);
        }
        for &s in &self.batch {
            let slot = &mut self.slots[s as usize];
            slot.submitted_at = now;
            self.rec.slat(slot.dir, slat_ns, 1);
        }
        self.batch.clear();
        Ok(now)
    }

    fn prepare_write(
        &mut self,
        slot: u32,
        file: u32,
        offset: u64,
        len: u64,
    ) -> Result<(), EngineError> {
        self.write_seq += 1;
        match self.verify.is_some() {
            true => self.fill_verified(slot, file, offset, len, self.write_seq)?,
            false => stamp(
                self.plan.engine.buffer(slot)?,
                len as usize,
                offset,
                self.write_seq,
            ),
        }
        self.writes_since_sync += 1;
        let every = self
            .plan
            .spec
            .fsync_every
            .max(self.plan.spec.fdatasync_every);
        if every > 0 && self.writes_since_sync >= every {
            self.sync_due = true;
        }
        Ok(())
    }

    /// Waits for completions (those left over from a capped reap are taken
    /// first) and returns the time they were seen.
    fn reap(&mut self) -> Result<u64, EngineError> {
        let min = match self.reap_max > 0 && !self.done.is_empty() {
            true => 0,
            false => self.reap_min,
        };
        self.plan.engine.reap(min, &mut self.done)?;
        Ok(self.shared.clock.now())
    }

    /// Records what the last reap returned, all at the time `now`.
    fn complete(&mut self, now: u64) -> Result<(), EngineError> {
        let measuring = !self.ramping();
        let clock = &self.shared.clock;
        let take = match self.reap_max {
            0 => self.done.len(),
            max => max.min(self.done.len()),
        };
        if measuring {
            self.rec.advance(now);
            self.rec.depth.reaped(take as u32);
        }
        if measuring && self.logs.is_some() {
            self.log_completions(now, take);
        }
        if self.verify.is_some() {
            self.verify_completions(take);
        }
        // A failed completion is returned after the whole batch is counted,
        // so that `drain` waits for exactly what is still in flight.
        let mut failed = None;
        for c in self.done.drain(..take) {
            let slot = self.slots[c.slot as usize];
            self.free.push(c.slot);
            self.in_flight -= 1;
            match check_result(c, &slot, &self.plan.engine_cfg) {
                Ok(()) if measuring => {
                    let clat = clock.nanos(slot.submitted_at, now);
                    let lat = clock.nanos(slot.queued_at, now);
                    self.rec.completed(slot.dir, slot.len, clat, lat);
                    if slot.scheduled_at != 0 {
                        let response = clock.nanos(slot.scheduled_at, now);
                        self.rec.response(slot.dir, response);
                    }
                }
                Ok(()) => {}
                Err(e) => failed = failed.or(Some(e)),
            }
        }
        if let Some(pace) = &mut self.pace {
            pace.completed(take as u32);
        }
        failed.map_or(Ok(()), Err)
    }

    /// Ends the ramp, stops at the deadline, size or a stop request.
    fn check_time(&mut self, now: u64) {
        let clock = &self.shared.clock;
        if self.ramp_end.is_some_and(|end| now >= end) {
            self.ramp_end = None;
            self.deadline = self
                .plan
                .spec
                .runtime
                .map(|d| now + clock.ticks(d.as_nanos() as u64));
            self.rec = Recorder::new(clock, now, self.asynchronous);
            self.series_seen = 0;
            self.cpu_start = sys::thread_usage();
            self.floors = RateFloors::new(&self.plan.spec, clock, now);
            if let Some(logs) = &mut self.logs {
                logs.restart(now);
            }
        }
        if let Some(floors) = &mut self.floors {
            if let Err(e) = floors.check(now, &self.rec.dirs) {
                self.failure = Some(format!("job '{}': {e}", self.plan.spec.name));
                self.stopping = true;
            }
        }
        if self.deadline.is_some_and(|d| now >= d)
            || self.shared.stop.load(Ordering::Relaxed)
            || self
                .plan
                .job_stop
                .as_ref()
                .is_some_and(|s| s.load(Ordering::Relaxed))
            || (!self.ramping() && self.issued >= self.budget)
        {
            self.stopping = true;
        }
        if self.rec.series.len() != self.series_seen {
            self.publish_seconds();
            self.series_seen = self.rec.series.len();
            self.report_progress();
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
                    .asynchronous
                    .then(|| clock.nanos(slot.queued_at, slot.submitted_at)),
                clat_ns: clock.nanos(slot.submitted_at, now),
                lat_ns: clock.nanos(slot.queued_at, now),
            });
        }
    }

    /// Hands the seconds closed since the last call to the live listener.
    fn publish_seconds(&self) {
        let Some(live) = &self.shared.live else {
            return;
        };
        let (group, job) = self.plan.place;
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
        let total = self.rec.dirs[0].ios + self.rec.dirs[1].ios;
        let delta = total.saturating_sub(self.reported_ios);
        if delta > 0 {
            self.shared.ios_done.fetch_add(delta, Ordering::Relaxed);
            self.reported_ios = total;
        }
    }

    /// Waits for what is still in flight, so no buffer is freed under the kernel.
    /// `complete` counts a failed batch whole, so `in_flight` is what the
    /// engine holds; an empty reap (the engine has nothing in flight) ends
    /// the wait too, so that a miscount can never spin here forever.
    fn drain(&mut self) {
        while self.in_flight > 0 {
            match self.plan.engine.reap(1, &mut self.done) {
                Ok(0) | Err(_) => break,
                Ok(_) => {
                    self.in_flight = self.in_flight.saturating_sub(self.done.len() as u32);
                    self.done.clear();
                }
            }
        }
    }

    fn sync_files(&mut self) -> Result<(), EngineError> {
        let spec = &self.plan.spec;
        let data_only = spec.fdatasync_every > 0 && spec.fsync_every == 0;
        for f in 0..self.files.engine_files(self.plan.regions.len()) as u32 {
            let synced = self.plan.engine.sync_file(f, data_only);
            synced.map_err(|e| self.files.name_error(e, f))?;
        }
        Ok(())
    }
}

#[inline]
fn check_result(c: Completion, slot: &Slot, cfg: &EngineConfig) -> Result<(), EngineError> {
    let len = slot.len;
    if c.result == len as i64 {
        return Ok(());
    }
    let op = match slot.dir {
        Direction::Read => "read",
        Direction::Write => "write",
    };
    let source = if c.result == -(libc::EOPNOTSUPP as i64) && cfg.uring.iopoll() {
        hipri_unsupported(cfg, slot.file)
    } else if c.result < 0 {
        io::Error::from_raw_os_error((-c.result) as i32)
    } else {
        io::Error::new(
            io::ErrorKind::UnexpectedEof,
            format!("short {op}: {} of {len} bytes", c.result),
        )
    };
    Err(EngineError::Io {
        op,
        path: cfg.path(slot.file),
        offset: slot.offset,
        len,
        source,
    })
}

/// EOPNOTSUPP from a polled ring: the device has no poll queues, or the
/// I/O cannot be polled (buffered), which is a setting, not a fault of the I/O.
#[cold]
fn hipri_unsupported(cfg: &EngineConfig, file: u32) -> io::Error {
    let why = match crate::probe::io_poll(&cfg.path(file)) {
        Some((path, Some(v))) if v == "0" => format!("{} is 0", path.display()),
        Some((path, _)) => format!("or the I/O is not O_DIRECT; see {}", path.display()),
        None => "see /sys/block/DEV/queue/io_poll, or the I/O is not O_DIRECT".to_string(),
    };
    io::Error::new(
        io::ErrorKind::Unsupported,
        format!(
            "{}: hipri=1 polls for completions, and this device has no poll queues ({why}): \
             drop hipri, use direct=1, or give the driver poll queues (for NVMe, the nvme \
             module's poll_queues=N)",
            io::Error::from_raw_os_error(libc::EOPNOTSUPP)
        ),
    )
}

/// Makes every written block unique (offset and sequence number at the start
/// of each 4 KiB), so no device can deduplicate or compress the repeats of
/// one random buffer.
#[inline]
fn stamp(buf: &mut [u8], len: usize, offset: u64, seq: u64) {
    let len = len.min(buf.len());
    let mut at = 0;
    while at + 16 <= len {
        buf[at..at + 8].copy_from_slice(&(offset + at as u64).to_le_bytes());
        buf[at + 8..at + 16].copy_from_slice(&seq.to_le_bytes());
        at += 4096;
    }
}
