//! One worker: a thread that keeps `iodepth` I/Os in flight on its engine
//! until the job's time or size is done, and records every completion.
//!
//! Submission follows fio's `iodepth_batch_submit` (default 1: each I/O is
//! handed to the kernel as soon as it is prepared). Batching more looks
//! cheaper, but on a virtio disk it delayed the first I/Os of each batch and
//! cost 10% of the IOPS fio gets (see the core issue's note).
//!
//! Timestamps are chained, not taken per step: the time after one submit is
//! the queue time of the next I/O, and one timestamp serves a whole reaped
//! batch. slat is submit - queue, clat is completion - submit, lat is
//! completion - queue. A synchronous engine does the I/O inside `queue`, so
//! its clat spans the call and it has no slat, as in fio.

use crate::clock::Clock;
use crate::offsets::{OffsetGen, Region};
use crate::record::Recorder;
use engine::sys;
use engine::{AnyEngine, Completion, Engine, EngineConfig, EngineError, IoRequest};
use model::{CpuUsage, DirStats, Direction, JobSpec, LivePoint, SeriesPoint};
use std::io;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

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
}

pub struct WorkerOutcome {
    pub read: DirStats,
    pub write: DirStats,
    pub series: Vec<SeriesPoint>,
    pub runtime_ns: u64,
    pub cpu: CpuUsage,
    pub error: Option<String>,
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
    queued_at: u64,
    submitted_at: u64,
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
    issued: u64,
    budget: u64,
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
    let mut w = Worker::new(plan, shared);
    let mut error = w.run().err().map(|e| e.to_string());
    if error.is_some() {
        shared.stop.store(true, Ordering::Relaxed);
    }
    let end = shared.clock.now();
    w.drain();
    let cpu_end = sys::thread_usage();
    if w.plan.spec.end_fsync && error.is_none() {
        error = w.sync_files().err().map(|e| e.to_string());
    }
    w.report_progress();
    let cpu = cpu_end.since(&w.cpu_start);
    let (read, write, series, runtime_ns) = w.rec.finish(&shared.clock, end);
    WorkerOutcome {
        read,
        write,
        series,
        runtime_ns,
        cpu,
        error,
    }
}

impl<'a> Worker<'a> {
    fn new(plan: WorkerPlan, shared: &'a Shared) -> Worker<'a> {
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
        let gen = OffsetGen::new(spec.rw, spec.rwmix_read_pct, &plan.regions, seed);
        let start = clock.now();
        let ramp_end = (!spec.ramp_time.is_zero())
            .then(|| start + clock.ticks(spec.ramp_time.as_nanos() as u64));
        let deadline = match ramp_end {
            Some(_) => None,
            None => spec
                .runtime
                .map(|d| start + clock.ticks(d.as_nanos() as u64)),
        };
        let budget = plan.io_budget.unwrap_or(u64::MAX);
        Worker {
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
            stopping: false,
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
        loop {
            self.issue()?;
            if self.in_flight == 0 {
                if !self.sync_due {
                    return Ok(());
                }
                self.sync_files()?;
                self.sync_due = false;
                self.writes_since_sync = 0;
                continue;
            }
            self.plan.engine.reap(1, &mut self.done)?;
            let now = self.shared.clock.now();
            self.complete(now)?;
            self.check_time(now);
        }
    }

    /// Queues I/Os up to the depth (unless stopping or waiting to fsync),
    /// submitting every `batch_submit` of them.
    fn issue(&mut self) -> Result<(), EngineError> {
        let mut queued_at = self.shared.clock.now();
        while self.in_flight < self.depth
            && !self.stopping
            && !self.sync_due
            && (self.ramping() || self.issued < self.budget)
        {
            let slot = self.free.pop().expect("a free slot while under depth");
            let t = self.gen.next_io();
            let len = self.plan.spec.bs_bytes;
            if t.dir == Direction::Write {
                self.prepare_write(slot, t.offset);
            }
            self.slots[slot as usize] = Slot {
                dir: t.dir,
                file: t.file,
                offset: t.offset,
                queued_at,
                submitted_at: queued_at,
            };
            let req = IoRequest {
                slot,
                file: t.file,
                dir: t.dir,
                offset: t.offset,
                len: len as u32,
            };
            self.plan.engine.queue(req)?;
            self.in_flight += 1;
            if !self.ramping() {
                self.issued += 1;
            }
            if !self.asynchronous {
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
        for &s in &self.batch {
            let slot = &mut self.slots[s as usize];
            slot.submitted_at = now;
            self.rec.slat(slot.dir, slat_ns, 1);
        }
        self.batch.clear();
        Ok(now)
    }

    fn prepare_write(&mut self, slot: u32, offset: u64) {
        self.write_seq += 1;
        let len = self.plan.spec.bs_bytes as usize;
        stamp(self.plan.engine.buffer(slot), len, offset, self.write_seq);
        self.writes_since_sync += 1;
        let every = self
            .plan
            .spec
            .fsync_every
            .max(self.plan.spec.fdatasync_every);
        if every > 0 && self.writes_since_sync >= every {
            self.sync_due = true;
        }
    }

    /// Records what the last reap returned, all at the time `now`.
    fn complete(&mut self, now: u64) -> Result<(), EngineError> {
        let measuring = !self.ramping();
        if measuring {
            self.rec.advance(now);
        }
        let clock = &self.shared.clock;
        let len = self.plan.spec.bs_bytes;
        for c in self.done.drain(..) {
            let slot = self.slots[c.slot as usize];
            check_result(c, &slot, len, &self.plan.engine_cfg)?;
            if measuring {
                let clat = clock.nanos(slot.submitted_at, now);
                let lat = clock.nanos(slot.queued_at, now);
                self.rec.completed(slot.dir, len, clat, lat);
            }
            self.free.push(c.slot);
            self.in_flight -= 1;
        }
        Ok(())
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
        }
        if self.deadline.is_some_and(|d| now >= d)
            || self.shared.stop.load(Ordering::Relaxed)
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
    fn drain(&mut self) {
        while self.in_flight > 0 {
            match self.plan.engine.reap(1, &mut self.done) {
                Ok(_) => {
                    self.in_flight -= self.done.len() as u32;
                    self.done.clear();
                }
                Err(_) => break,
            }
        }
    }

    fn sync_files(&mut self) -> Result<(), EngineError> {
        let spec = &self.plan.spec;
        let data_only = spec.fdatasync_every > 0 && spec.fsync_every == 0;
        for f in 0..self.plan.regions.len() as u32 {
            self.plan.engine.sync_file(f, data_only)?;
        }
        Ok(())
    }
}

#[inline]
fn check_result(
    c: Completion,
    slot: &Slot,
    len: u64,
    cfg: &EngineConfig,
) -> Result<(), EngineError> {
    if c.result == len as i64 {
        return Ok(());
    }
    let op = match slot.dir {
        Direction::Read => "read",
        Direction::Write => "write",
    };
    let source = if c.result < 0 {
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
