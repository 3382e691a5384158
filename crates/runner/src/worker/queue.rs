//! The queue: keeping `iodepth` I/Os in flight, and timing each one.
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

use super::errors::{absorb, Absorbed};
use super::{Slot, Worker};
use engine::{Completion, Engine, EngineConfig, EngineError, IoRequest};
use model::Direction;
use std::io;

/// The writes' own bookkeeping: their sequence number (stamped into each
/// block) and `fsync=N`/`fdatasync=N`'s count since the last sync.
#[derive(Default)]
pub(super) struct Writes {
    pub seq: u64,
    since_sync: u32,
    /// A sync is due before more I/O is issued (also a replayed sync).
    pub sync_due: bool,
}

impl Writes {
    /// One more write; a sync is due every `every` of them (0: never).
    #[inline]
    fn wrote(&mut self, every: u32) {
        self.since_sync += 1;
        if every > 0 && self.since_sync >= every {
            self.sync_due = true;
        }
    }

    /// The due sync was done (or skipped at the end of the job).
    pub(super) fn synced(&mut self) {
        self.sync_due = false;
        self.since_sync = 0;
    }
}

impl Worker<'_> {
    /// Queues I/Os up to the depth (unless stopping or waiting to fsync),
    /// submitting every `batch_submit` of them.
    /// `freed_at`: when the slots being refilled were freed, if just now.
    pub(super) fn issue(&mut self, freed_at: Option<u64>) -> Result<(), EngineError> {
        if self.q.in_flight > self.q.low_water {
            return Ok(());
        }
        let mut queued_at = freed_at.unwrap_or_else(|| self.shared.clock.now());
        while self.q.in_flight < self.q.allowed
            && !self.time.phase.stopping()
            && self.hold().is_none()
            && (self.ramping() || self.budget.left())
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
            let Some(t) = self.parts.files.route(t) else {
                break;
            };
            // serialize_overlap: one overlapping an I/O in flight waits.
            let Some(t) = self.unless_overlapping(t) else {
                break;
            };
            (self.parts.files).new_pass(self.gen.passes(), &self.plan.engine_cfg.files);
            let (trims, writes) = self.trims_next();
            self.log_issue(&t, queued_at, trims, writes || !trims);
            let scheduled_at = match self.plain {
                true => None,
                false => self.parts.pace.as_mut().and_then(|p| p.scheduled.take()),
            }
            .unwrap_or(0);
            match (trims, writes) {
                // A trim-only mode: the trim is the I/O (see `trim`).
                (true, false) => return self.issue_trim(&t, queued_at),
                // trimwrite: the block is trimmed, then written below.
                (true, true) => self.trim_block(&t)?,
                (false, _) => {}
            }
            let prio = self.io_prio(t.dir, t.len);
            let slot = self.q.take_slot();
            if t.dir == Direction::Write {
                self.prepare_write(slot, t.file, t.offset, t.len)?;
            }
            self.q.slots[slot as usize] = Slot {
                dir: t.dir,
                file: t.file,
                offset: t.offset,
                len: t.len,
                queued_at,
                submitted_at: queued_at,
                scheduled_at,
                check: false,
                trim: false,
                prio,
            };
            let req = IoRequest {
                slot,
                file: self.parts.files.slot_of(t.file),
                dir: t.dir,
                offset: t.offset,
                len: t.len as u32,
                prio,
            };
            self.plan.engine.queue(req)?;
            self.q.in_flight += 1;
            if !self.ramping() {
                self.budget.issued += t.len;
            }
            self.parts.files.queued(&t, self.budget.issued);
            if !self.q.asynchronous {
                // fio counts each synchronous I/O as one submit at depth 1.
                if !self.ramping() {
                    self.rec.depth.submitted(1, 1);
                }
                return Ok(());
            }
            self.q.batch.push(slot);
            if self.q.batch.len() >= self.q.batch_submit {
                queued_at = self.submit_batch(queued_at)?;
            }
        }
        if !self.q.batch.is_empty() {
            self.submit_batch(queued_at)?;
        }
        Ok(())
    }

    /// Submits the queued batch; returns the time after, the next queue time.
    pub(super) fn submit_batch(&mut self, queued_at: u64) -> Result<u64, EngineError> {
        self.plan.engine.submit()?;
        let now = self.shared.clock.now();
        let slat_ns = self.shared.clock.nanos(queued_at, now);
        if !self.ramping() {
            let batch = self.q.batch.len() as u32;
            self.rec.depth.submitted(batch, self.q.in_flight);
        }
        for &s in &self.q.batch {
            let slot = &mut self.q.slots[s as usize];
            slot.submitted_at = now;
            self.rec.slat(slot.dir, slat_ns, 1);
        }
        self.q.batch.clear();
        Ok(now)
    }

    fn prepare_write(
        &mut self,
        slot: u32,
        file: u32,
        offset: u64,
        len: u64,
    ) -> Result<(), EngineError> {
        self.writes.seq += 1;
        match (self.parts.verify.is_some(), self.parts.data.as_mut()) {
            (true, _) => self.fill_verified(slot, file, offset, len, self.writes.seq)?,
            (false, Some(data)) => {
                let buf = self.plan.engine.buffer(slot)?;
                if data.fill(buf, len as usize) == super::data::Then::Scramble {
                    stamp(buf, len as usize, offset, self.writes.seq);
                }
            }
            (false, None) => stamp(
                self.plan.engine.buffer(slot)?,
                len as usize,
                offset,
                self.writes.seq,
            ),
        }
        let spec = &self.plan.spec;
        self.writes
            .wrote(spec.fsync_every.max(spec.fdatasync_every));
        Ok(())
    }

    /// Waits for completions (those left over from a capped reap are taken
    /// first) and returns the time they were seen.
    pub(super) fn reap(&mut self) -> Result<u64, EngineError> {
        let min = self.q.reap_min();
        self.plan.engine.reap(min, &mut self.q.done)?;
        Ok(self.shared.clock.now())
    }

    /// Records what the last reap returned, all at the time `now`: the
    /// parts hear the batch first (see `parts`), then each I/O is recorded.
    pub(super) fn complete(&mut self, now: u64) -> Result<(), EngineError> {
        let measuring = self.time.phase.measuring();
        let shared = self.shared;
        let clock = &shared.clock;
        let take = self.q.to_handle();
        if measuring {
            self.rec.advance(now);
            self.rec.depth.reaped(take as u32);
        }
        let heard = self.tell_parts(now, take, measuring);
        // A failed completion is returned after the whole batch is counted,
        // so that `drain` waits for exactly what is still in flight.
        let mut failed = None;
        let q = &mut self.q;
        for c in q.done.drain(..take) {
            let slot = q.slots[c.slot as usize];
            q.free.push(c.slot);
            q.in_flight -= 1;
            if let Some(trace) = &shared.io_trace {
                trace(&crate::trace::IoTrace {
                    slot: c.slot,
                    offset: slot.offset,
                    len: slot.len,
                    dir: slot.dir,
                    trim: slot.trim,
                    file: &super::file_name(&self.plan, slot.file),
                });
            }
            match check_result(c, &slot, &self.plan.engine_cfg) {
                // A trim was recorded when it was done (see `trim`).
                Ok(()) if measuring && !slot.trim => {
                    let clat = clock.nanos(slot.submitted_at, now);
                    let lat = clock.nanos(slot.queued_at, now);
                    // cpuio's bursts move no bytes (fio counts none).
                    let bytes = match self.plan.spec.engine {
                        model::EngineKind::Cpuio => 0,
                        _ => slot.len,
                    };
                    self.rec.completed(slot.dir, bytes, clat, lat);
                    // fio keeps each priority's clat, or lat with lat_percentiles.
                    let kept = if self.plan.spec.lat_percentiles {
                        lat
                    } else {
                        clat
                    };
                    self.rec.prio_latency(slot.dir, slot.prio, kept);
                    if slot.scheduled_at != 0 {
                        let response = clock.nanos(slot.scheduled_at, now);
                        self.rec.response(slot.dir, response);
                    }
                }
                // The ramp's I/O is not measured but the device counts it:
                // it is kept apart, so the device's counters can be held
                // against all the job did.
                Ok(()) if !measuring && !slot.trim => {
                    self.unmeasured.ios += 1;
                    self.unmeasured.bytes += slot.len;
                }
                Ok(()) => {}
                Err(e) => {
                    let spec = &self.plan.spec;
                    let failure = (&e, &slot, c.result);
                    match absorb(spec, &mut self.parts.errors, &mut self.time.phase, failure) {
                        Absorbed::No => failed = failed.or(Some(e)),
                        Absorbed::Partial(bytes) if measuring => {
                            let clat = clock.nanos(slot.submitted_at, now);
                            let lat = clock.nanos(slot.queued_at, now);
                            self.rec.completed(slot.dir, bytes, clat, lat);
                        }
                        Absorbed::Partial(_) | Absorbed::Continued => {}
                    }
                }
            }
        }
        self.after_completions(take, heard);
        failed.map_or(Ok(()), Err)
    }

    /// Waits for what is still in flight, so no buffer is freed under the kernel.
    /// `complete` counts a failed batch whole, so `in_flight` is what the
    /// engine holds; an empty reap (the engine has nothing in flight) ends
    /// the wait too, so that a miscount can never spin here forever.
    pub(super) fn drain(&mut self) {
        let q = &mut self.q;
        while q.in_flight > 0 {
            match self.plan.engine.reap(1, &mut q.done) {
                Ok(0) | Err(_) => break,
                Ok(_) => {
                    q.in_flight = q.in_flight.saturating_sub(q.done.len() as u32);
                    q.done.clear();
                }
            }
        }
    }

    /// Does `sync` and records how long it took (fio's `sync` latencies).
    pub(super) fn timed_sync(
        &mut self,
        sync: impl FnOnce(&mut Self) -> Result<(), EngineError>,
    ) -> Result<(), EngineError> {
        let start = self.shared.clock.now();
        sync(self)?;
        let end = self.shared.clock.now();
        self.rec.synced(self.shared.clock.nanos(start, end));
        Ok(())
    }

    pub(super) fn sync_files(&mut self) -> Result<(), EngineError> {
        for f in 0..self.parts.files.engine_files(self.plan.regions.len()) as u32 {
            self.sync_file(f)?;
        }
        Ok(())
    }

    /// Syncs the engine's file `f` (its data only with `fdatasync=`).
    pub(super) fn sync_file(&mut self, f: u32) -> Result<(), EngineError> {
        let spec = &self.plan.spec;
        let data_only = spec.fdatasync_every > 0 && spec.fsync_every == 0;
        let synced = self.plan.engine.sync_file(f, data_only);
        synced.map_err(|e| self.parts.files.name_error(e, f))
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
