//! One worker: a thread that keeps `iodepth` I/Os in flight on its engine
//! until the job's time or size is done, and records every completion.
//!
//! Timestamps are taken per batch, not per I/O: one before a batch is
//! queued, one after it is submitted, one after each reap. slat is
//! submit - queue, clat is completion - submit, lat is completion - queue.
//! A synchronous engine does the I/O inside `queue`, so its clat spans the
//! call and it has no slat, as in fio.

use crate::clock::Clock;
use crate::offsets::{OffsetGen, Region};
use crate::record::Recorder;
use engine::{sys, AnyEngine, Completion, Engine, EngineConfig, EngineError, IoRequest};
use model::{CpuUsage, DirStats, Direction, JobSpec, SeriesPoint};
use std::io;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;

/// Everything a worker needs, built by the runner before the thread starts.
pub struct WorkerPlan {
    pub spec: Arc<JobSpec>,
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
}

#[derive(Clone, Copy, Default)]
struct Slot {
    dir: Direction,
    file: u32,
    offset: u64,
    queued_at: u64,
    submitted_at: u64,
}

pub fn run_worker(mut plan: WorkerPlan, shared: &Shared) -> WorkerOutcome {
    let clock = &shared.clock;
    let spec = Arc::clone(&plan.spec);
    let caps = plan.engine.capabilities();
    let depth = if caps.asynchronous {
        spec.iodepth.max(1)
    } else {
        1
    };
    let block = spec.bs_bytes;
    let seed = if spec.randrepeat {
        spec.randseed
    } else {
        clock.now() ^ std::process::id() as u64
    };
    let mut gen = OffsetGen::new(
        spec.rw,
        spec.rwmix_read_pct,
        &plan.regions,
        seed.wrapping_add(plan.clone as u64 * 0x9e37_79b9),
    );

    let start = clock.now();
    let ramp_end = start + clock.ticks(spec.ramp_time.as_nanos() as u64);
    let mut ramping = !spec.ramp_time.is_zero();
    let runtime_ticks = spec.runtime.map(|d| clock.ticks(d.as_nanos() as u64));
    let mut deadline = runtime_ticks.map(|t| start + t);
    if ramping {
        deadline = None;
    }
    let mut rec = Recorder::new(clock, start, caps.asynchronous);
    let mut cpu_start = sys::thread_usage();

    let mut slots = vec![Slot::default(); depth as usize];
    let mut free: Vec<u32> = (0..depth).rev().collect();
    let mut done: Vec<Completion> = Vec::with_capacity(depth as usize);
    let mut batch: Vec<u32> = Vec::with_capacity(depth as usize);
    let mut in_flight = 0u32;
    let mut issued = 0u64;
    let budget = plan.io_budget.unwrap_or(u64::MAX);
    let sync_every = [spec.fsync_every, spec.fdatasync_every];
    let mut writes_since_sync = 0u32;
    let mut sync_due = false;
    let mut stopping = false;
    let mut seq = 0u64;
    let mut error: Option<String> = None;
    let mut reported = 0u64;
    let mut last_series_len = 0usize;

    let result: Result<(), EngineError> = (|| {
        loop {
            // Issue up to the depth, unless stopping or waiting to fsync.
            let queued_at = clock.now();
            batch.clear();
            while in_flight < depth && !stopping && !sync_due && (ramping || issued < budget) {
                let slot = free.pop().expect("a free slot while under depth");
                let t = gen.next_io();
                if t.dir == Direction::Write {
                    seq += 1;
                    stamp(plan.engine.buffer(slot), block as usize, t.offset, seq);
                    writes_since_sync += 1;
                    let every = sync_every[0].max(sync_every[1]);
                    if every > 0 && writes_since_sync >= every {
                        sync_due = true;
                    }
                }
                slots[slot as usize] = Slot {
                    dir: t.dir,
                    file: t.file,
                    offset: t.offset,
                    queued_at,
                    submitted_at: queued_at,
                };
                plan.engine.queue(IoRequest {
                    slot,
                    file: t.file,
                    dir: t.dir,
                    offset: t.offset,
                    len: block as u32,
                })?;
                batch.push(slot);
                in_flight += 1;
                if !ramping {
                    issued += 1;
                }
                if !caps.asynchronous {
                    break;
                }
            }
            if caps.asynchronous && !batch.is_empty() {
                plan.engine.submit()?;
                let submitted_at = clock.now();
                let slat_ns = clock.nanos(queued_at, submitted_at);
                for &s in &batch {
                    let slot = &mut slots[s as usize];
                    slot.submitted_at = submitted_at;
                    rec.slat(slot.dir, slat_ns, 1);
                }
            }
            if in_flight == 0 {
                if sync_due {
                    sync_files(&mut plan.engine, plan.regions.len(), &spec)?;
                    sync_due = false;
                    writes_since_sync = 0;
                    continue;
                }
                break;
            }

            plan.engine.reap(1, &mut done)?;
            let now = clock.now();
            if !ramping {
                rec.advance(now);
            }
            for c in done.drain(..) {
                let slot = slots[c.slot as usize];
                check_result(c, &slot, block, &plan.engine_cfg)?;
                if !ramping {
                    rec.completed(
                        slot.dir,
                        block,
                        clock.nanos(slot.submitted_at, now),
                        clock.nanos(slot.queued_at, now),
                    );
                }
                free.push(c.slot);
                in_flight -= 1;
            }

            if ramping && now >= ramp_end {
                ramping = false;
                deadline = runtime_ticks.map(|t| now + t);
                rec = Recorder::new(clock, now, caps.asynchronous);
                cpu_start = sys::thread_usage();
            }
            if deadline.is_some_and(|d| now >= d) || shared.stop.load(Ordering::Relaxed) {
                stopping = true;
            }
            if !ramping && (issued >= budget) {
                stopping = true;
            }
            if rec.series.len() != last_series_len {
                last_series_len = rec.series.len();
                let total = rec.dirs[0].ios + rec.dirs[1].ios;
                shared
                    .ios_done
                    .fetch_add(total - reported, Ordering::Relaxed);
                reported = total;
            }
        }
        Ok(())
    })();
    let end = clock.now();
    if let Err(e) = result {
        error = Some(e.to_string());
        shared.stop.store(true, Ordering::Relaxed);
    }
    // Wait for what is still in flight so no buffer is freed under the kernel.
    while in_flight > 0 {
        match plan.engine.reap(1, &mut done) {
            Ok(_) => {
                in_flight -= done.len() as u32;
                done.clear();
            }
            Err(_) => break,
        }
    }
    let cpu_end = sys::thread_usage();
    if spec.end_fsync && error.is_none() {
        if let Err(e) = sync_files(&mut plan.engine, plan.regions.len(), &spec) {
            error = Some(e.to_string());
        }
    }
    let total = rec.dirs[0].ios + rec.dirs[1].ios;
    shared
        .ios_done
        .fetch_add(total - reported, Ordering::Relaxed);
    let (read, write, series, runtime_ns) = rec.finish(clock, end);
    WorkerOutcome {
        read,
        write,
        series,
        runtime_ns,
        cpu: CpuUsage {
            user_ns: cpu_end.user_ns.saturating_sub(cpu_start.user_ns),
            system_ns: cpu_end.system_ns.saturating_sub(cpu_start.system_ns),
            voluntary_ctx: cpu_end
                .voluntary_ctx
                .saturating_sub(cpu_start.voluntary_ctx),
            involuntary_ctx: cpu_end
                .involuntary_ctx
                .saturating_sub(cpu_start.involuntary_ctx),
            minor_faults: cpu_end.minor_faults.saturating_sub(cpu_start.minor_faults),
            major_faults: cpu_end.major_faults.saturating_sub(cpu_start.major_faults),
        },
        error,
    }
}

fn sync_files(engine: &mut AnyEngine, files: usize, spec: &JobSpec) -> Result<(), EngineError> {
    let data_only = spec.fdatasync_every > 0 && spec.fsync_every == 0;
    for f in 0..files as u32 {
        engine.sync_file(f, data_only)?;
    }
    Ok(())
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
    let source = if c.result < 0 {
        io::Error::from_raw_os_error((-c.result) as i32)
    } else {
        io::Error::new(
            io::ErrorKind::UnexpectedEof,
            format!("short {}: {} of {len} bytes", op_name(slot.dir), c.result),
        )
    };
    Err(EngineError::Io {
        op: op_name(slot.dir),
        path: cfg.path(slot.file),
        offset: slot.offset,
        len,
        source,
    })
}

fn op_name(dir: Direction) -> &'static str {
    match dir {
        Direction::Read => "read",
        Direction::Write => "write",
    }
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
